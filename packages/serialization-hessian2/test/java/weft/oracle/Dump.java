package weft.oracle;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Date;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** A canonical, ASCII, one-line dump of what a Hessian reader built, compared by the tests as text. */
final class Dump {
  private final IdentityHashMap<Object, Integer> seen = new IdentityHashMap<>();

  static String of(Object value) {
    return new Dump().dump(value);
  }

  String dump(Object o) {
    if (o == null) return "null";
    if (o instanceof Integer) return "int:" + o;
    if (o instanceof Long) return "long:" + o;
    if (o instanceof Short) return "short:" + o;
    if (o instanceof Byte) return "byte:" + o;
    if (o instanceof Double) return "double:" + o;
    if (o instanceof Float) return "float:" + o;
    if (o instanceof Boolean) return "bool:" + o;
    if (o instanceof Character) return "char:" + escape(o.toString());
    if (o instanceof String) {
      String s = (String) o;
      return s.length() <= 40 ? "str:" + escape(s) : "str#" + s.length() + ":" + s.hashCode();
    }
    if (o instanceof byte[]) {
      byte[] b = (byte[]) o;
      return "bin#" + b.length + ":" + Arrays.hashCode(b);
    }
    if (o instanceof BigDecimal) return "decimal:" + o;
    if (o instanceof Date) return (o.getClass() == Date.class ? "date" : o.getClass().getName()) + ":" + ((Date) o).getTime();
    if (o instanceof Enum) return "enum:" + ((Enum<?>) o).getDeclaringClass().getName() + "." + ((Enum<?>) o).name();
    Integer id = seen.get(o);
    if (id != null) return "@" + id;
    seen.put(o, seen.size());
    if (o instanceof Throwable) {
      Throwable t = (Throwable) o;
      StringBuilder sb = new StringBuilder("throwable:" + t.getClass().getName() + "(" + escape(String.valueOf(t.getMessage())) + ")");
      if (t.getCause() != null) sb.append(" cause=").append(dump(t.getCause()));
      for (Field f : fields(t.getClass())) {
        if (f.getDeclaringClass() == Throwable.class) continue;
        sb.append(' ').append(f.getName()).append('=').append(dump(get(f, t)));
      }
      return sb.toString();
    }
    if (o.getClass().isArray()) {
      List<String> items = new ArrayList<>();
      for (int i = 0; i < Array.getLength(o); i++) items.add(dump(Array.get(o, i)));
      return o.getClass().getName() + "[" + String.join(",", items) + "]";
    }
    if (o instanceof Collection) {
      List<String> items = new ArrayList<>();
      for (Object item : (Collection<?>) o) items.add(dump(item));
      if (o instanceof Set) Collections.sort(items);
      return o.getClass().getName() + "[" + String.join(",", items) + "]";
    }
    if (o instanceof Map) {
      List<String> items = new ArrayList<>();
      for (Map.Entry<?, ?> e : ((Map<?, ?>) o).entrySet()) items.add(dump(e.getKey()) + "=" + dump(e.getValue()));
      Collections.sort(items);
      return o.getClass().getName() + "{" + String.join(",", items) + "}";
    }
    List<String> items = new ArrayList<>();
    for (Field f : fields(o.getClass())) items.add(f.getName() + "=" + dump(get(f, o)));
    Collections.sort(items);
    return o.getClass().getName() + "{" + String.join(",", items) + "}";
  }

  private static List<Field> fields(Class<?> cls) {
    List<Field> out = new ArrayList<>();
    for (Class<?> c = cls; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        int m = f.getModifiers();
        if (Modifier.isStatic(m) || Modifier.isTransient(m)) continue;
        if (c == Throwable.class || c.getName().startsWith("java.")) continue;
        out.add(f);
      }
    }
    return out;
  }

  private static Object get(Field f, Object o) {
    try {
      f.setAccessible(true);
      return f.get(o);
    } catch (Exception e) {
      return "?" + e.getClass().getSimpleName();
    }
  }

  static String escape(String s) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= 0x20 && c < 0x7f && c != '\\' && c != ',' && c != '=' && c != '[' && c != ']' && c != '{' && c != '}') sb.append(c);
      else sb.append(String.format("\\u%04x", (int) c));
    }
    return sb.toString();
  }
}
