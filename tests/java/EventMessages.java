import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;

import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.messaging.AddPartitionMessage;
import org.apache.hadoop.hive.metastore.messaging.AlterPartitionMessage;
import org.apache.hadoop.hive.metastore.messaging.AlterTableMessage;
import org.apache.hadoop.hive.metastore.messaging.CreateDatabaseMessage;
import org.apache.hadoop.hive.metastore.messaging.CreateTableMessage;
import org.apache.hadoop.hive.metastore.messaging.DropDatabaseMessage;
import org.apache.hadoop.hive.metastore.messaging.DropPartitionMessage;
import org.apache.hadoop.hive.metastore.messaging.DropTableMessage;
import org.apache.hadoop.hive.metastore.messaging.InsertMessage;
import org.apache.hadoop.hive.metastore.messaging.MessageDeserializer;
import org.apache.hadoop.hive.metastore.messaging.json.JSONMessageDeserializer;

/**
 * Reads notification messages with Hive 2.3's own JSON message deserializer, the one Hive's
 * replication and HCatalog consumers use, and the Thrift objects inside them.
 *
 * Input: a file of lines "EVENT_TYPE<TAB>message". Output: one line per event,
 * "PASS <n> <type>: <what was read>" or "FAIL <n> <type>: <error>".
 */
public class EventMessages {
  public static void main(String[] args) throws Exception {
    MessageDeserializer deserializer = new JSONMessageDeserializer();
    List<String> lines = Files.readAllLines(Paths.get(args[0]), StandardCharsets.UTF_8);
    int index = 0;
    for (String line : lines) {
      index++;
      int tab = line.indexOf('\t');
      String type = line.substring(0, tab);
      String message = line.substring(tab + 1);
      try {
        System.out.println("PASS " + index + " " + type + ": " + read(deserializer, type, message));
      } catch (Throwable error) {
        System.out.println("FAIL " + index + " " + type + ": " + error);
      }
    }
  }

  private static String read(MessageDeserializer deserializer, String type, String message)
      throws Exception {
    switch (type) {
      case "CREATE_DATABASE": {
        CreateDatabaseMessage read = deserializer.getCreateDatabaseMessage(message);
        return read.getDB();
      }
      case "DROP_DATABASE": {
        DropDatabaseMessage read = deserializer.getDropDatabaseMessage(message);
        return read.getDB();
      }
      case "CREATE_TABLE": {
        CreateTableMessage read = deserializer.getCreateTableMessage(message);
        Table table = read.getTableObj();
        return read.getDB() + "." + read.getTable() + " " + table.getTableName() + " "
            + table.getSd().getCols();
      }
      case "ALTER_TABLE": {
        AlterTableMessage read = deserializer.getAlterTableMessage(message);
        return read.getTableObjBefore().getTableName() + " -> " + read.getTableObjAfter().getParameters();
      }
      case "DROP_TABLE": {
        DropTableMessage read = deserializer.getDropTableMessage(message);
        return read.getDB() + "." + read.getTable();
      }
      case "ADD_PARTITION": {
        AddPartitionMessage read = deserializer.getAddPartitionMessage(message);
        StringBuilder values = new StringBuilder(read.getTableObj().getTableName());
        for (Partition partition : read.getPartitionObjs()) {
          values.append(" ").append(partition.getValues()).append(partition.getSd().getLocation());
        }
        return values + " " + read.getPartitions();
      }
      case "ALTER_PARTITION": {
        AlterPartitionMessage read = deserializer.getAlterPartitionMessage(message);
        return read.getKeyValues() + " " + read.getPtnObjBefore().getValues() + " -> "
            + read.getPtnObjAfter().getParameters();
      }
      case "DROP_PARTITION": {
        DropPartitionMessage read = deserializer.getDropPartitionMessage(message);
        return read.getTableObj().getTableName() + " " + read.getPartitions();
      }
      case "INSERT": {
        InsertMessage read = deserializer.getInsertMessage(message);
        return read.getTable() + " " + read.getPartitionKeyValues() + " " + read.getFiles();
      }
      default:
        return "not read: Hive 2.3 has no message class for it";
    }
  }
}
