import java.io.File;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Writes engine/src/partitions/expr/hive_layouts.rs: the fields Kryo's FieldSerializer
 * writes for each class a Hive 2.3 partition expression may hold, read from the classes on
 * the classpath (the pyspark jars). Kryo writes the fields of a class and its superclasses
 * that are neither static, transient nor synthetic, sorted by name; a field of a final class
 * (or an array of one) carries no class of its own.
 *
 * javac -cp "$JARS/*" KryoLayouts.java && java -cp ".:$JARS/*" KryoLayouts > hive_layouts.rs
 */
public class KryoLayouts {
  /** The classes of the expression trees Hive's planner hands the metastore. */
  private static final Pattern WANTED = Pattern.compile(
      "org\\.apache\\.hadoop\\.hive\\.ql\\.udf\\.generic\\.GenericUDF(OP.*|In|Between|Bridge|To.*|Timestamp)"
      + "|org\\.apache\\.hadoop\\.hive\\.serde2\\.objectinspector\\.primitive\\.(Writable|Java).*"
      + "|org\\.apache\\.hadoop\\.hive\\.ql\\.plan\\.ExprNode(GenericFunc|Column|Constant)Desc"
      + "|org\\.apache\\.hadoop\\.hive\\.serde2\\.typeinfo\\.(Primitive|Decimal|Varchar|Char)TypeInfo"
      + "|org\\.apache\\.hadoop\\.io\\.(Boolean|Int|Long|Float)Writable|org\\.apache\\.hadoop\\.io\\.Text"
      + "|org\\.apache\\.hadoop\\.hive\\.serde2\\.io\\.(Byte|Short|Double|Date|HiveDecimal|HiveVarchar|HiveChar|Timestamp)Writable"
      + "|org\\.apache\\.hadoop\\.hive\\.common\\.type\\.Hive(Decimal|Varchar|Char)");

  static boolean kryoFinal(Class<?> type) {
    while (type.isArray()) type = type.getComponentType();
    return Modifier.isFinal(type.getModifiers());
  }

  static String kind(Class<?> type) {
    if (type == boolean.class) return "Bool";
    if (type == byte.class) return "Byte";
    if (type == char.class) return "Char";
    if (type == short.class) return "Short";
    if (type == int.class) return "Int";
    if (type == long.class) return "Long";
    if (type == float.class) return "Float";
    if (type == double.class) return "Double";
    if (kryoFinal(type)) return "Final(\"" + type.getName() + "\")";
    return "Any";
  }

  public static void main(String[] args) throws Exception {
    Deque<String> todo = new ArrayDeque<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!entry.endsWith(".jar") || !new File(entry).isFile()) continue;
      try (ZipFile jar = new ZipFile(entry)) {
        for (Enumeration<? extends ZipEntry> e = jar.entries(); e.hasMoreElements();) {
          String name = e.nextElement().getName();
          if (!name.endsWith(".class") || name.contains("$")) continue;
          String className = name.substring(0, name.length() - 6).replace('/', '.');
          if (WANTED.matcher(className).matches()) todo.add(className);
        }
      }
    }
    TreeMap<String, String> layouts = new TreeMap<>();
    TreeSet<String> enums = new TreeSet<>();
    while (!todo.isEmpty()) {
      String name = todo.poll();
      if (layouts.containsKey(name) || enums.contains(name)) continue;
      Class<?> type;
      try {
        type = Class.forName(name, false, KryoLayouts.class.getClassLoader());
      } catch (Throwable e) {
        continue;
      }
      if (type.isEnum()) { enums.add(name); continue; }
      if (type.isInterface() || Modifier.isAbstract(type.getModifiers())) continue;
      List<Field> fields = new ArrayList<>();
      for (Class<?> k = type; k != null && k != Object.class; k = k.getSuperclass()) {
        for (Field field : k.getDeclaredFields()) {
          int modifiers = field.getModifiers();
          if (Modifier.isStatic(modifiers) || Modifier.isTransient(modifiers) || field.isSynthetic()) continue;
          fields.add(field);
        }
      }
      fields.sort(Comparator.comparing(Field::getName));
      StringBuilder text = new StringBuilder();
      for (Field field : fields) {
        text.append("        (\"").append(field.getName()).append("\", ").append(kind(field.getType())).append("),\n");
        Class<?> element = field.getType();
        while (element.isArray()) element = element.getComponentType();
        // A final class of Hive's that a field holds needs its layout too.
        if (!element.isPrimitive() && element.getName().startsWith("org.apache.hadoop")
            && (element.isEnum() || kryoFinal(element))) {
          todo.add(element.getName());
        }
      }
      layouts.put(name, text.toString());
    }
    System.out.println("//! The field layouts Kryo's `FieldSerializer` writes for the classes of Hive 2.3.10's");
    System.out.println("//! partition expressions (`hive-exec`, `hive-serde`, `hive-common` 2.3.10 and");
    System.out.println("//! `hive-storage-api` 2.8.1, the pyspark 4.3.0 jars): for each class, its fields and its");
    System.out.println("//! superclasses' that are neither static nor transient nor synthetic, sorted by name, as");
    System.out.println("//! Kryo orders them. Written by `tests/java/KryoLayouts.java` from the classes themselves;");
    System.out.println("//! sorted by class name.");
    System.out.println();
    System.out.println("use super::kryo_graph::FieldKind::{self, *};");
    System.out.println();
    System.out.println("/// Class name, then its fields in the order they are written.");
    System.out.println("pub(crate) const FIELD_LAYOUTS: &[(&str, &[(&str, FieldKind)])] = &[");
    for (Map.Entry<String, String> e : layouts.entrySet()) {
      System.out.println("    (\"" + e.getKey() + "\", &[");
      System.out.print(e.getValue());
      System.out.println("    ]),");
    }
    System.out.println("];");
    System.out.println();
    System.out.println("/// The enums those fields hold: Kryo writes an enum as its ordinal plus one.");
    System.out.println("pub(crate) const ENUMS: &[&str] = &[");
    for (String e : enums) System.out.println("    \"" + e + "\",");
    System.out.println("];");
  }
}
