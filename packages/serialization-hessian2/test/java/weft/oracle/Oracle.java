package weft.oracle;

import com.alibaba.com.caucho.hessian.io.Hessian2Input;
import com.alibaba.com.caucho.hessian.io.Hessian2Output;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.PrintStream;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Weft's Hessian oracle: decodes every body read from stdin (name, bytes; both length-prefixed) with Hessian2Input,
 * prints a canonical dump and Hessian2Output's re-encoding of what it read, then encodes the Java-built corpus of
 * {@link Corpus}. One line per case: {@code D <tab> name <tab> dump <tab> hex} and {@code E <tab> name <tab> hex}.
 * The import line names the Hessian implementation; the test rewrites it for Caucho's com.caucho.hessian.io.
 */
public final class Oracle {
  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(System.out, false, "US-ASCII");
    DataInputStream in = new DataInputStream(System.in);
    while (true) {
      String name;
      byte[] body;
      try {
        name = new String(readBlock(in), StandardCharsets.UTF_8);
      } catch (EOFException end) {
        break;
      }
      body = readBlock(in);
      String dump;
      String again;
      try {
        Hessian2Input input = new Hessian2Input(new ByteArrayInputStream(body));
        Object value = input.readObject();
        dump = Dump.of(value);
        again = hex(encode(value));
      } catch (Throwable error) {
        dump = "ERROR " + Dump.escape(String.valueOf(error));
        again = "-";
      }
      out.println("D\t" + name + "\t" + dump + "\t" + again);
    }
    for (Map.Entry<String, Object> c : Corpus.values().entrySet()) {
      String line;
      try {
        line = hex(encode(c.getValue()));
      } catch (Throwable error) {
        line = "ERROR " + Dump.escape(String.valueOf(error));
      }
      out.println("E\t" + c.getKey() + "\t" + line);
    }
    out.flush();
  }

  static byte[] encode(Object value) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Hessian2Output output = new Hessian2Output(bytes);
    output.writeObject(value);
    output.flush();
    return bytes.toByteArray();
  }

  private static byte[] readBlock(DataInputStream in) throws Exception {
    int length = in.readInt();
    byte[] block = new byte[length];
    in.readFully(block);
    return block;
  }

  static String hex(byte[] bytes) {
    StringBuilder sb = new StringBuilder(bytes.length * 2);
    for (byte b : bytes) sb.append(String.format("%02x", b & 0xff));
    return sb.toString();
  }
}
