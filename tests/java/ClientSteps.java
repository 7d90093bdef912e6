import java.util.concurrent.TimeUnit;

import org.apache.hadoop.hive.conf.HiveConf;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;

/**
 * What the Java client programs share: named steps that each print one {@code PASS name} or
 * {@code FAIL name: why} line (tests/python/java_clients.py reads them), the checks the steps
 * make, and a Hive 2.3 client that fails fast instead of retrying.
 */
abstract class ClientSteps {
  /** A step's body. */
  interface Step {
    void run() throws Exception;
  }

  private int passes = 0;
  private int failures = 0;

  /** Runs one step and prints its verdict; a failed step does not stop the ones after it. */
  final void step(String name, Step body) {
    try {
      body.run();
      passes++;
      System.out.println("PASS " + name);
    } catch (Throwable error) {
      failures++;
      System.out.println("FAIL " + name + ": " + error);
      error.printStackTrace(System.out);
    }
  }

  /** Prints how many steps passed and failed, and exits 1 if any failed. */
  final void finish(String program) {
    System.out.println(program + " steps: " + passes + " PASS, " + failures + " FAIL");
    System.exit(failures == 0 ? 0 : 1);
  }

  static void require(boolean condition, String message) {
    if (!condition) {
      throw new AssertionError(message);
    }
  }

  static void requireEqual(Object expected, Object actual, String what) {
    require(expected.equals(actual), what + ": expected " + expected + ", got " + actual);
  }

  /**
   * Hive 2.3's client of the metastore at {@code host:port}: one connection attempt, no
   * retries, and at most {@code socketTimeoutMs} for each reply.
   */
  static HiveMetaStoreClient open(String host, int port, int socketTimeoutMs) throws Exception {
    HiveConf conf = new HiveConf();
    conf.setVar(HiveConf.ConfVars.METASTOREURIS, "thrift://" + host + ":" + port);
    conf.setIntVar(HiveConf.ConfVars.METASTORETHRIFTCONNECTIONRETRIES, 1);
    conf.setIntVar(HiveConf.ConfVars.METASTORETHRIFTFAILURERETRIES, 0);
    conf.setTimeVar(HiveConf.ConfVars.METASTORE_CLIENT_SOCKET_TIMEOUT, socketTimeoutMs,
        TimeUnit.MILLISECONDS);
    return new HiveMetaStoreClient(conf);
  }
}
