import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.AggrStats;
import org.apache.hadoop.hive.metastore.api.BinaryColumnStatsData;
import org.apache.hadoop.hive.metastore.api.BooleanColumnStatsData;
import org.apache.hadoop.hive.metastore.api.ColumnStatistics;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsData;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsDesc;
import org.apache.hadoop.hive.metastore.api.ColumnStatisticsObj;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.Date;
import org.apache.hadoop.hive.metastore.api.DateColumnStatsData;
import org.apache.hadoop.hive.metastore.api.Decimal;
import org.apache.hadoop.hive.metastore.api.DecimalColumnStatsData;
import org.apache.hadoop.hive.metastore.api.DoubleColumnStatsData;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.LongColumnStatsData;
import org.apache.hadoop.hive.metastore.api.NoSuchObjectException;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.SetPartitionsStatsRequest;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.StringColumnStatsData;
import org.apache.hadoop.hive.metastore.api.Table;

/**
 * Hive 2.3's {@code HiveMetaStoreClient} (the one Spark embeds) through every column-statistics
 * call its {@code IMetaStoreClient} has, in a database of its own:
 *
 * <ol>
 *   <li>create: a table with int, bigint, double, string, boolean, binary, decimal(10,2) and
 *       date columns, partitioned by {@code ds string}, and three partitions;
 *   <li>table: {@code updateTableColumnStatistics} of every kind Hive 2.3 has (it has no
 *       timestamp statistics), names and types written in upper case, read back field by field
 *       with {@code getTableColumnStatistics}, names and types lowercased;
 *   <li>partitions: {@code updatePartitionColumnStatistics} for the first partition,
 *       {@code setPartitionColumnStatistics} (set_aggr_stats_for) for the other two, read back
 *       per partition with {@code getPartitionColumnStatistics};
 *   <li>aggregate: {@code getAggrColStatsFor} of a long and a double column over the three
 *       partitions: partsFound, summed nulls, least low, greatest high and, with no sketches,
 *       the greatest partition NDV (the values keep Hive's long-range cap out of play);
 *   <li>delete: {@code deletePartitionColumnStatistics} and {@code deleteTableColumnStatistics}
 *       of one column: gone on reading, the rest kept, a second delete NoSuchObjectException;
 *   <li>drop: the database, cascade.
 * </ol>
 *
 * <p>usage: java StatsClient HOST PORT DATABASE. Prints one PASS or FAIL line per step; exits 1
 * if any step failed.
 */
public final class StatsClient extends ClientSteps {
  private static final int SOCKET_TIMEOUT_MS = 20_000;
  private static final String TABLE = "events";
  private static final List<String> PARTITION_VALUES =
      Arrays.asList("2024-01-01", "2024-01-02", "2024-01-03");
  private static final List<FieldSchema> COLUMNS = Arrays.asList(
      new FieldSchema("id", "int", null),
      new FieldSchema("big", "bigint", null),
      new FieldSchema("amount", "double", null),
      new FieldSchema("name", "string", null),
      new FieldSchema("flag", "boolean", null),
      new FieldSchema("payload", "binary", null),
      new FieldSchema("price", "decimal(10,2)", null),
      new FieldSchema("day", "date", null));

  private final HiveMetaStoreClient client;
  private final String database;

  private StatsClient(HiveMetaStoreClient client, String database) {
    this.client = client;
    this.database = database;
  }

  // ------------------------------------------------------------------ statistics objects

  private static ColumnStatisticsObj longObj(String name, String type, long low, long high,
      long nulls, long ndv) {
    LongColumnStatsData data = new LongColumnStatsData(nulls, ndv);
    data.setLowValue(low);
    data.setHighValue(high);
    return new ColumnStatisticsObj(name, type, ColumnStatisticsData.longStats(data));
  }

  private static ColumnStatisticsObj doubleObj(double low, double high, long nulls, long ndv) {
    DoubleColumnStatsData data = new DoubleColumnStatsData(nulls, ndv);
    data.setLowValue(low);
    data.setHighValue(high);
    return new ColumnStatisticsObj("amount", "double", ColumnStatisticsData.doubleStats(data));
  }

  private static ColumnStatisticsObj stringObj(long maxLen, double avgLen, long nulls, long ndv) {
    return new ColumnStatisticsObj("name", "string", ColumnStatisticsData.stringStats(
        new StringColumnStatsData(maxLen, avgLen, nulls, ndv)));
  }

  private static ColumnStatisticsObj boolObj(long trues, long falses, long nulls) {
    return new ColumnStatisticsObj("flag", "boolean", ColumnStatisticsData.booleanStats(
        new BooleanColumnStatsData(trues, falses, nulls)));
  }

  private static ColumnStatisticsObj binaryObj(long maxLen, double avgLen, long nulls) {
    return new ColumnStatisticsObj("payload", "binary", ColumnStatisticsData.binaryStats(
        new BinaryColumnStatsData(maxLen, avgLen, nulls)));
  }

  /** A Thrift Decimal as Hive writes one: the unscaled value's shortest two's complement. */
  private static Decimal decimal(String value) {
    BigDecimal parsed = new BigDecimal(value);
    return new Decimal(ByteBuffer.wrap(parsed.unscaledValue().toByteArray()),
        (short) parsed.scale());
  }

  private static ColumnStatisticsObj decimalObj(String low, String high, long nulls, long ndv) {
    DecimalColumnStatsData data = new DecimalColumnStatsData(nulls, ndv);
    data.setLowValue(decimal(low));
    data.setHighValue(decimal(high));
    return new ColumnStatisticsObj("price", "decimal(10,2)",
        ColumnStatisticsData.decimalStats(data));
  }

  private static ColumnStatisticsObj dateObj(long lowDays, long highDays, long nulls, long ndv) {
    DateColumnStatsData data = new DateColumnStatsData(nulls, ndv);
    data.setLowValue(new Date(lowDays));
    data.setHighValue(new Date(highDays));
    return new ColumnStatisticsObj("day", "date", ColumnStatisticsData.dateStats(data));
  }

  /** Table-level statistics: one object of each kind Hive 2.3 has, for every column. */
  private static List<ColumnStatisticsObj> tableStatistics() {
    return Arrays.asList(
        longObj("id", "int", 1, 1000, 0, 1000),
        longObj("big", "bigint", -5_000_000_000L, 9_000_000_000L, 12, 4321),
        doubleObj(-0.5, 2.5, 1, 7),
        stringObj(10, 2.5, 1, 3),
        boolObj(3, 4, 1),
        binaryObj(100, 7.5, 2),
        decimalObj("-2.50", "10.00", 0, 4),
        dateObj(19_723, 19_725, 0, 3));
  }

  /**
   * Each partition's statistics. Aggregated over all three: id -4..300, 3 nulls, NDV 100 (the
   * greatest, under 300 - -4 + 1 and under every partition's own range); amount -1.5..9.0,
   * 4 nulls, NDV 7. The sum of the NDVs (113, 10) would tell a different answer apart.
   */
  private static List<List<ColumnStatisticsObj>> partitionStatistics() {
    return Arrays.asList(
        Arrays.asList(longObj("id", "int", 1, 10, 1, 5),
            longObj("big", "bigint", 0, 1L << 40, 0, 77),
            doubleObj(0.5, 2.5, 0, 7), stringObj(10, 2.0, 1, 3), boolObj(3, 4, 1),
            binaryObj(5, 1.5, 0), decimalObj("1.50", "10.00", 0, 4), dateObj(19_723, 19_723, 0, 1)),
        Arrays.asList(longObj("id", "int", -4, 6, 2, 8),
            longObj("big", "bigint", -10, 10, 3, 21),
            doubleObj(-1.5, 1.0, 3, 2), stringObj(4, 3.5, 0, 9), boolObj(1, 1, 0),
            binaryObj(9, 0.5, 1), decimalObj("-2.50", "1.00", 1, 2), dateObj(19_724, 19_724, 1, 1)),
        Arrays.asList(longObj("id", "int", 3, 300, 0, 100),
            longObj("big", "bigint", 7, 7, 9, 1),
            doubleObj(1.0, 9.0, 1, 1), stringObj(7, 1.0, 2, 1), boolObj(0, 2, 5),
            binaryObj(2, 4.0, 3), decimalObj("5.00", "7.00", 0, 1), dateObj(19_725, 19_725, 0, 1)));
  }

  private static List<String> columnNames() {
    List<String> names = new ArrayList<>();
    for (FieldSchema column : COLUMNS) {
      names.add(column.getName());
    }
    return names;
  }

  private static List<String> partitionNames() {
    List<String> names = new ArrayList<>();
    for (String value : PARTITION_VALUES) {
      names.add("ds=" + value);
    }
    return names;
  }

  private static ColumnStatisticsObj shouted(ColumnStatisticsObj object) {
    return new ColumnStatisticsObj(object.getColName().toUpperCase(),
        object.getColType().toUpperCase(), object.getStatsData());
  }

  private ColumnStatistics statistics(List<ColumnStatisticsObj> objects, String partName) {
    ColumnStatisticsDesc desc =
        new ColumnStatisticsDesc(partName == null, database, TABLE.toUpperCase());
    if (partName != null) {
      desc.setPartName(partName);
    }
    List<ColumnStatisticsObj> written = new ArrayList<>();
    for (ColumnStatisticsObj object : objects) {
      written.add(shouted(object));
    }
    return new ColumnStatistics(desc, written);
  }

  private static Map<String, ColumnStatisticsObj> byName(List<ColumnStatisticsObj> objects) {
    Map<String, ColumnStatisticsObj> named = new TreeMap<>();
    for (ColumnStatisticsObj object : objects) {
      require(named.put(object.getColName(), object) == null,
          "column " + object.getColName() + " answered twice");
    }
    return named;
  }

  /** Every field of every object: Thrift's equals, plus decimals compared as numbers. */
  private static void requireSameObjects(List<ColumnStatisticsObj> expected,
      List<ColumnStatisticsObj> actual, String what) {
    Map<String, ColumnStatisticsObj> want = byName(expected);
    Map<String, ColumnStatisticsObj> got = byName(actual);
    requireEqual(want.keySet(), got.keySet(), what + " columns");
    for (Map.Entry<String, ColumnStatisticsObj> entry : want.entrySet()) {
      ColumnStatisticsObj answer = got.get(entry.getKey());
      if (entry.getValue().getStatsData().isSetDecimalStats()) {
        requireSameDecimals(entry.getValue(), answer, what);
      }
      requireEqual(entry.getValue(), answer, what + " " + entry.getKey());
    }
  }

  private static BigDecimal value(Decimal decimal) {
    return new BigDecimal(new BigInteger(decimal.getUnscaled()), decimal.getScale());
  }

  /** Says which bound differs before the byte-level comparison would. */
  private static void requireSameDecimals(ColumnStatisticsObj expected,
      ColumnStatisticsObj actual, String what) {
    require(actual.getStatsData().isSetDecimalStats(), what + ": " + actual + " is not decimal");
    DecimalColumnStatsData want = expected.getStatsData().getDecimalStats();
    DecimalColumnStatsData got = actual.getStatsData().getDecimalStats();
    requireEqual(value(want.getLowValue()), value(got.getLowValue()), what + " decimal low");
    requireEqual(value(want.getHighValue()), value(got.getHighValue()), what + " decimal high");
  }

  private Map<String, List<ColumnStatisticsObj>> readPartitions() throws Exception {
    return client.getPartitionColumnStatistics(database, TABLE, partitionNames(), columnNames());
  }

  private void requirePartitions(Map<String, List<ColumnStatisticsObj>> expected)
      throws Exception {
    Map<String, List<ColumnStatisticsObj>> got = readPartitions();
    requireEqual(new TreeMap<>(expected).keySet(), new TreeMap<>(got).keySet(), "partitions");
    for (Map.Entry<String, List<ColumnStatisticsObj>> entry : expected.entrySet()) {
      requireSameObjects(entry.getValue(), got.get(entry.getKey()), entry.getKey());
    }
  }

  private static List<ColumnStatisticsObj> without(List<ColumnStatisticsObj> objects,
      String column) {
    List<ColumnStatisticsObj> kept = new ArrayList<>();
    for (ColumnStatisticsObj object : objects) {
      if (!object.getColName().equals(column)) {
        kept.add(object);
      }
    }
    return kept;
  }

  private static void requireNoSuchObject(Step call, String what) throws Exception {
    try {
      call.run();
    } catch (NoSuchObjectException expected) {
      return;
    }
    throw new AssertionError(what + " did not fail with NoSuchObjectException");
  }

  // ------------------------------------------------------------------ steps

  private void create() throws Exception {
    client.createDatabase(new Database(database, "StatsClient's", null, new HashMap<>()));
    StorageDescriptor sd = new StorageDescriptor();
    sd.setCols(new ArrayList<>(COLUMNS));
    sd.setInputFormat("org.apache.hadoop.mapred.TextInputFormat");
    sd.setOutputFormat("org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat");
    sd.setCompressed(false);
    sd.setNumBuckets(-1);
    sd.setSerdeInfo(new SerDeInfo(null, "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
        Collections.singletonMap("serialization.format", "1")));
    sd.setBucketCols(new ArrayList<>());
    sd.setSortCols(new ArrayList<>());
    sd.setParameters(new HashMap<>());
    Table table = new Table();
    table.setDbName(database);
    table.setTableName(TABLE);
    table.setOwner("hive");
    table.setSd(sd);
    table.setPartitionKeys(Collections.singletonList(new FieldSchema("ds", "string", null)));
    table.setParameters(new HashMap<>());
    table.setTableType("MANAGED_TABLE");
    client.createTable(table);
    List<Partition> partitions = new ArrayList<>();
    for (String value : PARTITION_VALUES) {
      Partition partition = new Partition();
      partition.setDbName(database);
      partition.setTableName(TABLE);
      partition.setValues(Collections.singletonList(value));
      partition.setSd(new StorageDescriptor(sd));
      partition.getSd().setLocation(null);
      partition.setParameters(new HashMap<>());
      partitions.add(partition);
    }
    requireEqual(3, client.add_partitions(partitions), "partitions added");
    requireEqual(partitionNames(), client.listPartitionNames(database, TABLE, (short) -1),
        "partition names");
  }

  private void tableLevel() throws Exception {
    require(client.updateTableColumnStatistics(statistics(tableStatistics(), null)),
        "updateTableColumnStatistics returned false");
    List<String> asked = new ArrayList<>();
    for (String name : columnNames()) {
      asked.add(asked.size() % 2 == 0 ? name.toUpperCase() : name);
    }
    List<ColumnStatisticsObj> got = client.getTableColumnStatistics(database, TABLE, asked);
    requireSameObjects(tableStatistics(), got, "table");
  }

  private void partitionLevel() throws Exception {
    List<String> names = partitionNames();
    List<List<ColumnStatisticsObj>> written = partitionStatistics();
    require(client.updatePartitionColumnStatistics(statistics(written.get(0), names.get(0))),
        "updatePartitionColumnStatistics returned false");
    SetPartitionsStatsRequest request = new SetPartitionsStatsRequest(Arrays.asList(
        statistics(written.get(1), names.get(1)), statistics(written.get(2), names.get(2))));
    require(client.setPartitionColumnStatistics(request),
        "setPartitionColumnStatistics returned false");
    Map<String, List<ColumnStatisticsObj>> expected = new LinkedHashMap<>();
    for (int index = 0; index < names.size(); index++) {
      expected.put(names.get(index), written.get(index));
    }
    requirePartitions(expected);
  }

  private void aggregate() throws Exception {
    AggrStats result = client.getAggrColStatsFor(
        database, TABLE, Arrays.asList("id", "amount"), partitionNames());
    requireEqual(3L, result.getPartsFound(), "partsFound");
    requireSameObjects(
        Arrays.asList(longObj("id", "int", -4, 300, 3, 100), doubleObj(-1.5, 9.0, 4, 7)),
        result.getColStats(), "aggregate");
  }

  private void delete() throws Exception {
    List<String> names = partitionNames();
    List<List<ColumnStatisticsObj>> written = partitionStatistics();
    require(client.deletePartitionColumnStatistics(database, TABLE, names.get(1), "amount"),
        "deletePartitionColumnStatistics returned false");
    Map<String, List<ColumnStatisticsObj>> expected = new LinkedHashMap<>();
    expected.put(names.get(0), written.get(0));
    expected.put(names.get(1), without(written.get(1), "amount"));
    expected.put(names.get(2), written.get(2));
    requirePartitions(expected);
    requireNoSuchObject(
        () -> client.deletePartitionColumnStatistics(database, TABLE, names.get(1), "amount"),
        "a second deletePartitionColumnStatistics");

    require(client.deleteTableColumnStatistics(database, TABLE, "name"),
        "deleteTableColumnStatistics returned false");
    List<ColumnStatisticsObj> got =
        client.getTableColumnStatistics(database, TABLE, columnNames());
    requireSameObjects(without(tableStatistics(), "name"), got, "table after delete");
    requireNoSuchObject(() -> client.deleteTableColumnStatistics(database, TABLE, "name"),
        "a second deleteTableColumnStatistics");
    requirePartitions(expected);  // table-level deletes leave partitions alone
  }

  private void drop() throws Exception {
    client.dropDatabase(database, true, false, true);
    requireNoSuchObject(() -> client.getDatabase(database), "getDatabase after the drop");
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: StatsClient HOST PORT DATABASE");
      System.exit(2);
    }
    HiveMetaStoreClient client = open(args[0], Integer.parseInt(args[1]), SOCKET_TIMEOUT_MS);
    StatsClient run = new StatsClient(client, args[2]);
    try {
      run.step("create", run::create);
      run.step("table statistics", run::tableLevel);
      run.step("partition statistics", run::partitionLevel);
      run.step("aggregate", run::aggregate);
      run.step("delete", run::delete);
      run.step("drop", run::drop);
    } finally {
      client.close();
    }
    run.finish("StatsClient");
  }
}
