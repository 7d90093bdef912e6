import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;

import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.ForeignKeysRequest;
import org.apache.hadoop.hive.metastore.api.PrimaryKeysRequest;
import org.apache.hadoop.hive.metastore.api.SQLForeignKey;
import org.apache.hadoop.hive.metastore.api.SQLPrimaryKey;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;

/**
 * Hive 2.3's {@code HiveMetaStoreClient} (the one Spark embeds) through the primary and foreign
 * key calls its {@code IMetaStoreClient} has, in a database of its own:
 *
 * <ol>
 *   <li>create: {@code createTableWithConstraints} of {@code dim(id int, code string)} with
 *       primary key {@code pk_dim(id)} (rely), and a plain {@code fact(dim_id int)};
 *   <li>primary keys: {@code getPrimaryKeys} reads it back, names lowercased, flags kept;
 *   <li>foreign keys: {@code addForeignKey} of {@code fk_dim(fact.dim_id -> dim.id)}, read with
 *       {@code getForeignKeys} from the child's end and from the parent's, naming the
 *       parent's primary key;
 *   <li>drop constraint: {@code dropConstraint} of the foreign key, then of the primary key;
 *       none left;
 *   <li>drop: the database, cascade.
 * </ol>
 *
 * <p>usage: java ConstraintsClient HOST PORT DATABASE. Prints one PASS or FAIL line per step;
 * exits 1 if any step failed.
 */
public final class ConstraintsClient extends ClientSteps {
  private static final int SOCKET_TIMEOUT_MS = 60_000;

  private final HiveMetaStoreClient client;
  private final String database;

  private ConstraintsClient(HiveMetaStoreClient client, String database) {
    this.client = client;
    this.database = database;
  }

  private Table table(String name, List<FieldSchema> columns) {
    StorageDescriptor sd = new StorageDescriptor();
    sd.setCols(new ArrayList<>(columns));
    sd.setInputFormat("org.apache.hadoop.mapred.TextInputFormat");
    sd.setOutputFormat("org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat");
    sd.setNumBuckets(-1);
    sd.setSerdeInfo(new SerDeInfo(null, "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
        Collections.singletonMap("serialization.format", "1")));
    sd.setParameters(new HashMap<>());
    Table table = new Table();
    table.setDbName(database);
    table.setTableName(name);
    table.setOwner("hive");
    table.setSd(sd);
    table.setPartitionKeys(new ArrayList<>());
    table.setParameters(new HashMap<>());
    table.setTableType("MANAGED_TABLE");
    return table;
  }

  private void create() throws Exception {
    client.createDatabase(new Database(database, "ConstraintsClient's", null, new HashMap<>()));
    SQLPrimaryKey key = new SQLPrimaryKey(database, "dim", "ID", 1, "PK_Dim", false, false, true);
    client.createTableWithConstraints(
        table("dim", Arrays.asList(new FieldSchema("id", "int", null),
            new FieldSchema("code", "string", null))),
        Collections.singletonList(key), new ArrayList<>());
    client.createTable(table("fact", Collections.singletonList(
        new FieldSchema("dim_id", "int", null))));
  }

  private List<SQLPrimaryKey> primaryKeys() throws Exception {
    return client.getPrimaryKeys(new PrimaryKeysRequest(database, "dim"));
  }

  private void readPrimaryKeys() throws Exception {
    List<SQLPrimaryKey> keys = primaryKeys();
    requireEqual(1, keys.size(), "primary key columns");
    SQLPrimaryKey key = keys.get(0);
    requireEqual("pk_dim", key.getPk_name(), "name");
    requireEqual("id", key.getColumn_name(), "column");
    requireEqual("dim", key.getTable_name(), "table");
    requireEqual(1, key.getKey_seq(), "key_seq");
    requireEqual(true, key.isRely_cstr(), "rely");
    requireEqual(false, key.isEnable_cstr(), "enable");
  }

  private void foreignKeys() throws Exception {
    client.addForeignKey(Collections.singletonList(new SQLForeignKey(database, "dim", "id",
        database, "fact", "dim_id", 1, 0, 0, "fk_dim", null, false, false, true)));
    List<SQLForeignKey> byChild =
        client.getForeignKeys(new ForeignKeysRequest(null, null, database, "fact"));
    requireEqual(1, byChild.size(), "foreign keys of fact");
    SQLForeignKey key = byChild.get(0);
    requireEqual("fk_dim", key.getFk_name(), "name");
    requireEqual("pk_dim", key.getPk_name(), "referenced key");
    requireEqual("dim", key.getPktable_name(), "parent");
    requireEqual("id", key.getPkcolumn_name(), "parent column");
    requireEqual("dim_id", key.getFkcolumn_name(), "column");
    List<SQLForeignKey> byParent =
        client.getForeignKeys(new ForeignKeysRequest(database, "dim", null, null));
    requireEqual(byChild, byParent, "foreign keys referencing dim");
  }

  private void dropConstraints() throws Exception {
    client.dropConstraint(database, "fact", "fk_dim");
    requireEqual(0, client.getForeignKeys(new ForeignKeysRequest(null, null, database, "fact"))
        .size(), "foreign keys after the drop");
    client.dropConstraint(database, "dim", "pk_dim");
    requireEqual(0, primaryKeys().size(), "primary keys after the drop");
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: ConstraintsClient HOST PORT DATABASE");
      System.exit(2);
    }
    HiveMetaStoreClient client = open(args[0], Integer.parseInt(args[1]), SOCKET_TIMEOUT_MS);
    ConstraintsClient run = new ConstraintsClient(client, args[2]);
    try {
      run.step("create", run::create);
      run.step("primary keys", run::readPrimaryKeys);
      run.step("foreign keys", run::foreignKeys);
      run.step("drop constraint", run::dropConstraints);
      run.step("drop", () -> client.dropDatabase(run.database, true, true, true));
    } finally {
      client.close();
    }
    run.finish("ConstraintsClient");
  }
}
