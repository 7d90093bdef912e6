import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.hive.common.ObjectPair;
import org.apache.hadoop.hive.common.type.HiveDecimal;
import org.apache.hadoop.hive.conf.HiveConf;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.ql.exec.SerializationUtilities;
import org.apache.hadoop.hive.ql.optimizer.ppr.PartitionExpressionForMetastore;
import org.apache.hadoop.hive.ql.plan.ExprNodeColumnDesc;
import org.apache.hadoop.hive.ql.plan.ExprNodeConstantDesc;
import org.apache.hadoop.hive.ql.plan.ExprNodeDesc;
import org.apache.hadoop.hive.ql.plan.ExprNodeGenericFuncDesc;
import org.apache.hadoop.hive.ql.udf.generic.GenericUDF;
import org.apache.hadoop.hive.ql.udf.generic.GenericUDFBetween;
import org.apache.hadoop.hive.ql.udf.generic.GenericUDFIn;
import org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPAnd;
import org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPEqual;
import org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPEqualOrGreaterThan;
import org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPGreaterThan;
import org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPLessThan;
import org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPNot;
import org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPNotEqual;
import org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPNotNull;
import org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPNull;
import org.apache.hadoop.hive.ql.udf.generic.GenericUDFOPOr;
import org.apache.hadoop.hive.serde2.typeinfo.PrimitiveTypeInfo;
import org.apache.hadoop.hive.serde2.typeinfo.TypeInfo;
import org.apache.hadoop.hive.serde2.typeinfo.TypeInfoFactory;

/**
 * Hive 2.3's own expression classes and Kryo serializer ({@code SerializationUtilities
 * .serializeExpressionToKryo}, as Hive's PartitionPruner sends them) against a metastore, in a
 * database of its own:
 *
 * <ol>
 *   <li>create: a table partitioned by {@code ds string, hr int, b bigint, dt date,
 *       p decimal(10,2)} with nine partitions;
 *   <li>one step per expression (comparisons of each key type, AND, OR, NOT, IN, BETWEEN,
 *       IS [NOT] NULL, a null literal as Hive puts for predicates on other columns): the UDFs
 *       initialised as Hive's planner does ({@code ExprNodeGenericFuncDesc.newInstance}), the
 *       bytes sent by {@code listPartitionsByExpr}; the partitions answered, and
 *       {@code hasUnknownPartitions}, must equal what Hive's own
 *       {@code PartitionExpressionForMetastore} keeps of the partition names, run here;
 *   <li>blobs: each expression's bytes printed as {@code BLOB label hex}, read back by Hive;
 *   <li>bad bytes: a MetaException;
 *   <li>drop: {@code dropPartitions} with two expressions drops exactly the partitions they
 *       select, and they are gone; one selecting none, without ifExists, is
 *       NoSuchObjectException "Some partitions to drop are missing" and drops nothing;
 *   <li>drop table: the database, cascade.
 * </ol>
 *
 * <p>usage: java PartitionExprClient HOST PORT DATABASE. Prints one PASS or FAIL line per
 * step; exits 1 if any step failed.
 */
public final class PartitionExprClient {
  private static final int SOCKET_TIMEOUT_MS = 60_000;
  private static final String DEFAULT_PARTITION = "__HIVE_DEFAULT_PARTITION__";
  private static final String TABLE = "events";
  private static final String[] DAYS = {"2024-01-01", "2024-01-02", "2024-02-01"};
  private static final int[] HOURS = {1, 7, 10};
  private static final List<FieldSchema> KEYS = Arrays.asList(
      new FieldSchema("ds", "string", null), new FieldSchema("hr", "int", null),
      new FieldSchema("b", "bigint", null), new FieldSchema("dt", "date", null),
      new FieldSchema("p", "decimal(10,2)", null));

  private final String host;
  private final int port;
  private final String database;
  private HiveMetaStoreClient client;
  private int failures = 0;

  private PartitionExprClient(String host, int port, String database) throws Exception {
    this.host = host;
    this.port = port;
    this.database = database;
    this.client = open(host, port);
  }

  interface Step {
    void run() throws Exception;
  }

  private void step(String name, Step body) {
    try {
      body.run();
      System.out.println("PASS " + name);
    } catch (Throwable error) {
      failures++;
      System.out.println("FAIL " + name + ": " + error);
      error.printStackTrace(System.out);
      if (error instanceof org.apache.thrift.transport.TTransportException) {
        // The server dropped the connection: the next steps get a new one.
        try {
          client.close();
          client = open(host, port);
        } catch (Exception reopen) {
          System.out.println("reconnecting failed: " + reopen);
        }
      }
    }
  }

  private static void requireEqual(Object expected, Object actual, String what) {
    if (!expected.equals(actual)) {
      throw new AssertionError(what + ": expected " + expected + ", got " + actual);
    }
  }

  // Expressions, built as Hive's planner builds them.

  private static final PrimitiveTypeInfo STRING = TypeInfoFactory.stringTypeInfo;
  private static final PrimitiveTypeInfo INT = TypeInfoFactory.intTypeInfo;
  private static final PrimitiveTypeInfo BIGINT = TypeInfoFactory.longTypeInfo;
  private static final PrimitiveTypeInfo DATE = TypeInfoFactory.dateTypeInfo;
  private static final PrimitiveTypeInfo DECIMAL = TypeInfoFactory.getDecimalTypeInfo(10, 2);
  private static final PrimitiveTypeInfo BOOLEAN = TypeInfoFactory.booleanTypeInfo;

  private static ExprNodeDesc column(String name, TypeInfo type) {
    return new ExprNodeColumnDesc(type, name, TABLE, true);
  }

  private static ExprNodeDesc literal(TypeInfo type, Object value) {
    return new ExprNodeConstantDesc(type, value);
  }

  private static ExprNodeDesc call(GenericUDF udf, ExprNodeDesc... children) throws Exception {
    return ExprNodeGenericFuncDesc.newInstance(udf, new ArrayList<>(Arrays.asList(children)));
  }

  /**
   * AND, OR and NOT as built without initialising the UDF: newInstance consults Hive's
   * FunctionRegistry for them, whose class does not load from the pyspark jars (it needs
   * LLAP's); their serialised fields are the same.
   */
  private static ExprNodeDesc logical(GenericUDF udf, ExprNodeDesc... children) {
    return new ExprNodeGenericFuncDesc(BOOLEAN, udf, new ArrayList<>(Arrays.asList(children)));
  }

  /** An expression and what Hive keeps of the partition names for it. */
  private interface Expected {
    Kept of(List<String> names) throws Exception;
  }

  /** The names kept (true or unknown), and whether any was unknown. */
  private static final class Kept {
    final TreeSet<String> names;
    final boolean unknown;

    Kept(TreeSet<String> names, boolean unknown) {
      this.names = names;
      this.unknown = unknown;
    }
  }

  private static final class Case {
    final ExprNodeDesc expression;
    final Expected expected;

    Case(ExprNodeDesc expression, Expected expected) {
      this.expression = expression;
      this.expected = expected;
    }
  }

  /** A comparison, IN, BETWEEN or IS [NOT] NULL: Hive's own pruner says what it keeps. */
  private static Case leaf(ExprNodeDesc expression) {
    return new Case(expression, names -> hiveKeeps(serialise(expression), names));
  }

  /**
   * AND, OR and NOT of leaves without unknowns: Hive's pruner cannot evaluate them from the
   * pyspark jars (its evaluator consults FunctionRegistry, whose class needs LLAP's), so what
   * they keep is composed from what the pruner keeps of each leaf, in SQL's logic.
   */
  private static Case and(Case left, Case right) {
    return new Case(logical(new GenericUDFOPAnd(), left.expression, right.expression), names -> {
      TreeSet<String> kept = new TreeSet<>(left.expected.of(names).names);
      kept.retainAll(right.expected.of(names).names);
      return new Kept(kept, false);
    });
  }

  private static Case or(Case left, Case right) {
    return new Case(logical(new GenericUDFOPOr(), left.expression, right.expression), names -> {
      TreeSet<String> kept = new TreeSet<>(left.expected.of(names).names);
      kept.addAll(right.expected.of(names).names);
      return new Kept(kept, false);
    });
  }

  private static Case not(Case operand) {
    return new Case(logical(new GenericUDFOPNot(), operand.expression), names -> {
      TreeSet<String> kept = new TreeSet<>(names);
      kept.removeAll(operand.expected.of(names).names);
      return new Kept(kept, false);
    });
  }

  /** Hive's PartitionPruner puts a null boolean where a predicate on other columns stood: the
   * partitions the rest keeps are unknown. */
  private static Case andUnknown(Case known) {
    return new Case(logical(new GenericUDFOPAnd(), known.expression, literal(BOOLEAN, null)), names -> {
      TreeSet<String> kept = known.expected.of(names).names;
      return new Kept(kept, !kept.isEmpty());
    });
  }

  private static Case equals(String key, PrimitiveTypeInfo type, Object value) throws Exception {
    return leaf(call(new GenericUDFOPEqual(), column(key, type), literal(type, value)));
  }

  private static Map<String, Case> cases() throws Exception {
    Map<String, Case> all = new LinkedHashMap<>();
    all.put("string equals", equals("ds", STRING, "2024-01-02"));
    all.put("string greater", leaf(call(new GenericUDFOPGreaterThan(), column("ds", STRING), literal(STRING, "2024-01-01"))));
    all.put("int equals", equals("hr", INT, 7));
    all.put("int not equals", leaf(call(new GenericUDFOPNotEqual(), column("hr", INT), literal(INT, 7))));
    all.put("bigint less", leaf(call(new GenericUDFOPLessThan(), column("b", BIGINT), literal(BIGINT, 700L))));
    all.put("date at least", leaf(call(new GenericUDFOPEqualOrGreaterThan(), column("dt", DATE),
        literal(DATE, java.sql.Date.valueOf("2024-01-02")))));
    all.put("decimal equals", equals("p", DECIMAL, HiveDecimal.create("3.50")));
    all.put("and", and(equals("ds", STRING, "2024-01-01"),
        leaf(call(new GenericUDFOPGreaterThan(), column("hr", INT), literal(INT, 1)))));
    all.put("or", or(equals("ds", STRING, "2024-02-01"), equals("hr", INT, 1)));
    all.put("not", not(equals("ds", STRING, "2024-01-01")));
    all.put("in ints", leaf(call(new GenericUDFIn(), column("hr", INT), literal(INT, 1), literal(INT, 10))));
    all.put("in strings", leaf(call(new GenericUDFIn(), column("ds", STRING),
        literal(STRING, "2024-01-01"), literal(STRING, "2024-02-01"), literal(STRING, "1999-01-01"))));
    all.put("between", leaf(call(new GenericUDFBetween(), literal(BOOLEAN, false), column("hr", INT),
        literal(INT, 2), literal(INT, 10))));
    all.put("not between", leaf(call(new GenericUDFBetween(), literal(BOOLEAN, true), column("hr", INT),
        literal(INT, 2), literal(INT, 10))));
    all.put("is null", leaf(call(new GenericUDFOPNull(), column("ds", STRING))));
    all.put("is not null", leaf(call(new GenericUDFOPNotNull(), column("hr", INT))));
    all.put("unknown part", andUnknown(equals("ds", STRING, "2024-01-01")));
    return all;
  }

  private static byte[] serialise(ExprNodeDesc expression) {
    return SerializationUtilities.serializeExpressionToKryo((ExprNodeGenericFuncDesc) expression);
  }

  // The table.

  private List<String> names() {
    List<String> names = new ArrayList<>();
    for (String day : DAYS) {
      for (int hour : HOURS) {
        names.add("ds=" + day + "/hr=" + hour + "/b=" + (hour * 100) + "/dt=" + day
            + "/p=" + HiveDecimal.create(hour).divide(HiveDecimal.create(2)));
      }
    }
    return names;
  }

  private void create() throws Exception {
    client.createDatabase(new Database(database, "", null, new HashMap<>()));
    StorageDescriptor sd = new StorageDescriptor();
    sd.setCols(new ArrayList<>(Collections.singletonList(new FieldSchema("v", "string", null))));
    sd.setInputFormat("org.apache.hadoop.mapred.TextInputFormat");
    sd.setOutputFormat("org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat");
    sd.setNumBuckets(-1);
    sd.setSerdeInfo(new SerDeInfo(null, "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
        Collections.singletonMap("serialization.format", "1")));
    sd.setParameters(new HashMap<>());
    Table table = new Table();
    table.setDbName(database);
    table.setTableName(TABLE);
    table.setSd(sd);
    table.setPartitionKeys(new ArrayList<>(KEYS));
    table.setParameters(new HashMap<>());
    table.setTableType("MANAGED_TABLE");
    client.createTable(table);
    for (String name : names()) {
      client.appendPartition(database, TABLE, name);
    }
    requireEqual(new TreeSet<>(names()), new TreeSet<>(client.listPartitionNames(database, TABLE, (short) -1)),
        "partitions created");
  }

  /** What Hive's own PartitionExpressionForMetastore keeps of the names, and its flag. */
  private static Kept hiveKeeps(byte[] bytes, List<String> names) throws Exception {
    List<String> columns = new ArrayList<>();
    List<PrimitiveTypeInfo> types = new ArrayList<>();
    for (FieldSchema key : KEYS) {
      columns.add(key.getName());
      types.add(TypeInfoFactory.getPrimitiveTypeInfo(key.getType()));
    }
    List<String> kept = new ArrayList<>(names);
    boolean unknown = new PartitionExpressionForMetastore()
        .filterPartitionsByExpr(columns, types, bytes, DEFAULT_PARTITION, kept);
    return new Kept(new TreeSet<>(kept), unknown);
  }

  private TreeSet<String> partitionNames(List<Partition> partitions) throws Exception {
    TreeSet<String> names = new TreeSet<>();
    for (Partition partition : partitions) {
      List<String> parts = new ArrayList<>();
      for (int i = 0; i < KEYS.size(); i++) {
        parts.add(KEYS.get(i).getName() + "=" + partition.getValues().get(i));
      }
      names.add(String.join("/", parts));
    }
    return names;
  }

  private void byExpression(Case expression) throws Exception {
    byte[] bytes = serialise(expression.expression);
    Kept expected = expression.expected.of(names());
    List<Partition> answered = new ArrayList<>();
    boolean unknown = client.listPartitionsByExpr(database, TABLE, bytes, DEFAULT_PARTITION, (short) -1, answered);
    requireEqual(expected.names, partitionNames(answered), "partitions");
    requireEqual(expected.unknown, unknown, "hasUnknownPartitions");
  }

  /** Prints each expression's bytes (`BLOB label hex`) for the Python tests of Hive 4's calls,
   * checking that Hive reads them back as the same expression. */
  private void blobs() throws Exception {
    for (Map.Entry<String, Case> entry : cases().entrySet()) {
      byte[] bytes = serialise(entry.getValue().expression);
      ExprNodeDesc back = SerializationUtilities.deserializeExpressionFromKryo(bytes);
      if (!back.isSame(entry.getValue().expression)) {
        throw new AssertionError(entry.getKey() + " reads back as " + back.getExprString());
      }
      StringBuilder hex = new StringBuilder();
      for (byte b : bytes) {
        hex.append(String.format("%02x", b));
      }
      System.out.println("BLOB " + entry.getKey().replace(' ', '_') + " " + hex);
    }
  }

  private void badBytes() throws Exception {
    byte[] bytes = serialise(cases().get("and").expression);
    byte[] truncated = Arrays.copyOf(bytes, bytes.length / 2);
    try {
      client.listPartitionsByExpr(database, TABLE, truncated, DEFAULT_PARTITION, (short) -1, new ArrayList<>());
      throw new AssertionError("truncated expression answered");
    } catch (MetaException expected) {
      if (expected.getMessage() == null || expected.getMessage().isEmpty()) {
        throw new AssertionError("a MetaException without a message");
      }
    }
  }

  private void drop() throws Exception {
    Case february = equals("ds", STRING, "2024-02-01");
    Case hourOne = and(equals("ds", STRING, "2024-01-01"), equals("hr", INT, 1));
    List<String> before = names();
    TreeSet<String> expected = new TreeSet<>(february.expected.of(before).names);
    expected.addAll(hourOne.expected.of(before).names);
    List<ObjectPair<Integer, byte[]>> expressions = Arrays.asList(
        new ObjectPair<>(1, serialise(february.expression)), new ObjectPair<>(2, serialise(hourOne.expression)));
    List<Partition> dropped = client.dropPartitions(database, TABLE, expressions, false, false, true);
    requireEqual(expected, partitionNames(dropped), "dropped");
    TreeSet<String> left = new TreeSet<>(before);
    left.removeAll(expected);
    requireEqual(left, new TreeSet<>(client.listPartitionNames(database, TABLE, (short) -1)), "left");
    // Hive counts what all expressions select against one partition per expression.
    Case none = equals("ds", STRING, "1999-01-01");
    try {
      client.dropPartitions(database, TABLE,
          Collections.singletonList(new ObjectPair<>(1, serialise(none.expression))), false, false, true);
      throw new AssertionError("a drop with an expression selecting nothing, without ifExists, answered");
    } catch (NoSuchObjectException expectedError) {
      requireEqual("Some partitions to drop are missing", expectedError.getMessage(), "message");
    }
    requireEqual(left, new TreeSet<>(client.listPartitionNames(database, TABLE, (short) -1)), "left after");
  }

  private static HiveMetaStoreClient open(String host, int port) throws Exception {
    HiveConf conf = new HiveConf();
    conf.setVar(HiveConf.ConfVars.METASTOREURIS, "thrift://" + host + ":" + port);
    conf.setIntVar(HiveConf.ConfVars.METASTORETHRIFTCONNECTIONRETRIES, 1);
    conf.setIntVar(HiveConf.ConfVars.METASTORETHRIFTFAILURERETRIES, 0);
    conf.setTimeVar(HiveConf.ConfVars.METASTORE_CLIENT_SOCKET_TIMEOUT, SOCKET_TIMEOUT_MS,
        TimeUnit.MILLISECONDS);
    return new HiveMetaStoreClient(conf);
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: PartitionExprClient HOST PORT DATABASE");
      System.exit(2);
    }
    PartitionExprClient run = new PartitionExprClient(args[0], Integer.parseInt(args[1]), args[2]);
    try {
      run.step("create", run::create);
      for (Map.Entry<String, Case> expression : cases().entrySet()) {
        run.step("expr " + expression.getKey(), () -> run.byExpression(expression.getValue()));
      }
      run.step("blobs", run::blobs);
      run.step("bad bytes", run::badBytes);
      run.step("drop by expressions", run::drop);
      run.step("drop", () -> run.client.dropDatabase(run.database, true, true, true));
    } finally {
      run.client.close();
    }
    System.exit(run.failures == 0 ? 0 : 1);
  }
}
