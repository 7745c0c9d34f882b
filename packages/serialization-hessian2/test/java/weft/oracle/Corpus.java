package weft.oracle;

import com.foo.BizException;
import com.foo.Color;
import com.foo.Node;
import com.foo.Order;
import com.foo.User;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Date;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The values Java builds and encodes for Weft to decode (the names are the test's keys). */
final class Corpus {
  static Map<String, Object> values() {
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("int-min", Integer.MIN_VALUE);
    c.put("int-max", Integer.MAX_VALUE);
    c.put("int-2048", 2048);
    c.put("long-min", Long.MIN_VALUE);
    c.put("long-max", Long.MAX_VALUE);
    c.put("long-2^53+1", 9007199254740993L);
    c.put("long-16", 16L);
    c.put("long-int32", 2147483647L);
    c.put("double-0.001", 0.001);
    c.put("double-2147483.648", 2147483.648);
    c.put("double-neg-zero", -0.0);
    c.put("double-nan", Double.NaN);
    c.put("double-inf", Double.NEGATIVE_INFINITY);
    c.put("double-1e300", 1e300);
    c.put("double-min", Double.MIN_VALUE);
    c.put("double-32767", 32767.0);
    c.put("float-1.1", 1.1f);
    c.put("string-empty", "");
    c.put("string-emoji", "a\uD83D\uDE00b");
    StringBuilder big = new StringBuilder();
    while (big.length() < 70000) big.append("x\uD83D\uDE00\u00e9\u4e2d");
    c.put("string-70000", big.toString());
    c.put("binary-20000", new byte[20000]);
    c.put("date-minute", new Date(1704067200000L));
    c.put("date-ms", new Date(1704067200123L));
    c.put("date-1900", new Date(-2208988800000L));
    c.put("date-9999", new Date(253402300799999L));
    c.put("timestamp", new java.sql.Timestamp(1704067200123L));
    c.put("list-mixed", new ArrayList<>(Arrays.asList(1, "a", null, 2L)));
    c.put("list-linked", new LinkedList<>(Arrays.asList(1, 2)));
    c.put("list-empty-jdk", Collections.emptyList());
    c.put("set-hash", new HashSet<>(Arrays.asList("x")));
    c.put("array-int", new int[] {1, 2, 300000});
    c.put("array-long", new long[] {1L, 1L << 40});
    c.put("array-string-2d", new String[][] {{"a"}, {"b", null}});
    c.put("array-user", new User[] {new User("bob", 3)});
    c.put("map-hash", new HashMap<>(Collections.singletonMap("a", 1)));
    c.put("map-int-keys", new HashMap<>(Collections.singletonMap(1, "x")));
    LinkedHashMap<String, Object> linked = new LinkedHashMap<>();
    linked.put("z", 1L);
    linked.put("a", null);
    c.put("map-linked", linked);
    c.put("map-tree", new TreeMap<>(Collections.singletonMap("a", 1)));
    c.put("user", new User("bob", 3));
    c.put("users-two", new ArrayList<>(Arrays.asList(new User("a", 1), new User("b", 2))));
    User shared = new User("s", 9);
    c.put("users-shared", new ArrayList<>(Arrays.asList(shared, shared)));
    Node cycle = new Node("a");
    cycle.next = cycle;
    c.put("node-cycle", cycle);
    c.put("enum-twice", new ArrayList<>(Arrays.asList(Color.RED, Color.RED, Color.BLUE)));
    c.put("decimal", new BigDecimal("12.50"));
    c.put("decimal-exp", new BigDecimal("1E+10"));
    c.put("order", order());
    c.put("exception", new RuntimeException("boom"));
    c.put("exception-nested", new IllegalStateException("outer", new RuntimeException("inner")));
    c.put("exception-biz", new BizException("no stock", 42));
    return c;
  }

  static Order order() {
    Order o = new Order();
    o.id = 1L << 40;
    o.quantity = 3;
    o.weight = 1.5;
    o.paid = true;
    o.note = "rush";
    o.price = new BigDecimal("9.99");
    o.color = Color.GREEN;
    o.at = new Date(1704067200000L);
    o.items = new ArrayList<>(Arrays.asList(new User("bob", 3)));
    o.tags = new HashSet<>(Arrays.asList("t"));
    o.counts = new HashMap<>(Collections.singletonMap("k", 7L));
    o.codes = new int[] {4, 5};
    o.ref = 8L;
    return o;
  }
}
