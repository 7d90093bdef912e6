import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import com.facebook.fb303.fb_status;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.ThriftHiveMetastore;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TField;
import org.apache.thrift.protocol.TList;
import org.apache.thrift.protocol.TMap;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TSet;
import org.apache.thrift.protocol.TStruct;
import org.apache.thrift.protocol.TType;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.layered.TFramedTransport;

/**
 * Drives a metastore with Hive 2.3's Java client, the one Spark embeds.
 *
 * <p>Part (a): the generated {@code ThriftHiveMetastore.Client} over libthrift (the version
 * pyspark ships) with TSocket, buffered and framed, binary and compact: fb303 calls, set_ugi,
 * an unimplemented method (it must fail with TApplicationException UNKNOWN_METHOD naming it),
 * then further calls on the same connection, a one-way shutdown, and one more call.
 *
 * <p>Part (b): the real {@code HiveMetaStoreClient}: opening it sends set_ugi, the
 * unimplemented method sent over its own connection fails cleanly, closing it sends the one-way
 * shutdown; then a second client opens and is served.
 *
 * <p>usage: java WireClients HOST PORT METHOD ARGUMENTS EXPECTED_NAME|- [COMBO,...]
 * where METHOD is the unimplemented method, ARGUMENTS its arguments as "ID:TTYPE,..." (TTYPE
 * the Thrift type number; each is sent with a default value: empty struct, "", 0, empty list)
 * where COMBO is buffered-binary, buffered-compact, framed-binary, framed-compact or hmsclient.
 * Prints one PASS or FAIL line per check; exits 1 if any check failed.
 */
public final class WireClients extends ClientSteps {
  private static final int SOCKET_TIMEOUT_MS = 10_000;
  private static final List<String> GROUPS = Arrays.asList("analysts", "engineers");

  private final String host;
  private final int port;
  private final String unimplementedMethod;
  private final String argumentShape;
  private final String expectedName;

  private WireClients(
      String host, int port, String unimplementedMethod, String argumentShape,
      String expectedName) {
    this.host = host;
    this.port = port;
    this.unimplementedMethod = unimplementedMethod;
    this.argumentShape = argumentShape;
    this.expectedName = expectedName;
  }

  /**
   * A generated client that can also send a call its (Hive 2.3) IDL does not know, by name,
   * with arguments described as "ID:TTYPE,...": each is written with a default value.
   */
  static final class ProbeClient extends ThriftHiveMetastore.Client {
    ProbeClient(TProtocol in, TProtocol out) {
      super(in, out);
    }

    void callByName(String method, String argumentShape) throws TException {
      oprot_.writeMessageBegin(new TMessage(method, TMessageType.CALL, ++seqid_));
      oprot_.writeStructBegin(new TStruct("args"));
      for (String argument : argumentShape.split(",")) {
        if (argument.isEmpty()) {
          continue;
        }
        String[] idAndType = argument.split(":");
        byte type = Byte.parseByte(idAndType[1]);
        oprot_.writeFieldBegin(new TField("arg", type, Short.parseShort(idAndType[0])));
        writeDefault(type);
        oprot_.writeFieldEnd();
      }
      oprot_.writeFieldStop();
      oprot_.writeStructEnd();
      oprot_.writeMessageEnd();
      oprot_.getTransport().flush();
      // Reads an EXCEPTION reply as TApplicationException; a REPLY's fields are skipped.
      receiveBase(new ThriftHiveMetastore.get_all_databases_result(), method);
    }

    private void writeDefault(byte type) throws TException {
      switch (type) {
        case TType.STRUCT:
          oprot_.writeStructBegin(new TStruct("arg"));
          oprot_.writeFieldStop();
          oprot_.writeStructEnd();
          break;
        case TType.STRING:
          oprot_.writeString("");
          break;
        case TType.BOOL:
          oprot_.writeBool(false);
          break;
        case TType.BYTE:
          oprot_.writeByte((byte) 0);
          break;
        case TType.I16:
          oprot_.writeI16((short) 0);
          break;
        case TType.I32:
          oprot_.writeI32(0);
          break;
        case TType.I64:
          oprot_.writeI64(0L);
          break;
        case TType.DOUBLE:
          oprot_.writeDouble(0.0);
          break;
        case TType.LIST:
          oprot_.writeListBegin(new TList(TType.STRING, 0));
          oprot_.writeListEnd();
          break;
        case TType.SET:
          oprot_.writeSetBegin(new TSet(TType.STRING, 0));
          oprot_.writeSetEnd();
          break;
        case TType.MAP:
          oprot_.writeMapBegin(new TMap(TType.STRING, TType.STRING, 0));
          oprot_.writeMapEnd();
          break;
        default:
          throw new IllegalArgumentException("no default value for thrift type " + type);
      }
    }
  }

  /** The unimplemented call must fail with UNKNOWN_METHOD naming the method. */
  private void expectUnknownMethod(ProbeClient client) throws TException {
    try {
      client.callByName(unimplementedMethod, argumentShape);
    } catch (TApplicationException error) {
      require(error.getType() == TApplicationException.UNKNOWN_METHOD,
          "expected UNKNOWN_METHOD (1), got type " + error.getType() + ": " + error.getMessage());
      String message = String.valueOf(error.getMessage());
      require(message.contains(unimplementedMethod),
          "message '" + message + "' does not name " + unimplementedMethod);
      return;
    }
    throw new AssertionError(unimplementedMethod + " answered normally");
  }

  private void fb303Sequence(ProbeClient client) throws TException {
    String name = client.getName();
    require(name != null && !name.isEmpty(), "getName returned '" + name + "'");
    require(expectedName == null || expectedName.equals(name),
        "getName returned '" + name + "', expected '" + expectedName + "'");
    String version = client.getVersion();
    require(version != null && !version.isEmpty(), "getVersion returned '" + version + "'");
    require(client.getStatus() == fb_status.ALIVE, "getStatus is not ALIVE");
    require(client.getStatusDetails() != null, "getStatusDetails returned null");
    long aliveSince = client.aliveSince();
    long nowSeconds = System.currentTimeMillis() / 1000;
    require(aliveSince > 0 && aliveSince <= nowSeconds + 5, "aliveSince=" + aliveSince);
    List<String> groups = client.set_ugi("alice", new ArrayList<>(GROUPS));
    require(GROUPS.equals(groups), "set_ugi returned " + groups);
    Map<String, Long> counters = client.getCounters();
    require(counters != null, "getCounters returned null");
    expectUnknownMethod(client);
    require(client.getStatus() == fb_status.ALIVE, "getStatus after UNKNOWN_METHOD");
    require(name.equals(client.getName()), "getName changed after UNKNOWN_METHOD");
    expectUnknownMethod(client);
    client.shutdown();
    require(client.getStatus() == fb_status.ALIVE, "getStatus after one-way shutdown");
  }

  private void generatedClient(String combo) {
    step("generated-client " + combo, () -> {
      String[] parts = combo.split("-", 2);
      TTransport socket = new TSocket(host, port, SOCKET_TIMEOUT_MS);
      TTransport transport = parts[0].equals("framed") ? new TFramedTransport(socket) : socket;
      TProtocol protocol = parts[1].equals("compact")
          ? new TCompactProtocol(transport) : new TBinaryProtocol(transport);
      transport.open();
      try {
        fb303Sequence(new ProbeClient(protocol, protocol));
      } finally {
        transport.close();
      }
    });
  }


  /** The generated client inside HiveMetaStoreClient: its own connection, reached by reflection. */
  private static ProbeClient underlying(HiveMetaStoreClient metastore) throws Exception {
    Field field = HiveMetaStoreClient.class.getDeclaredField("client");
    field.setAccessible(true);
    ThriftHiveMetastore.Client inner = (ThriftHiveMetastore.Client) field.get(metastore);
    return new ProbeClient(inner.getInputProtocol(), inner.getOutputProtocol());
  }

  private void hiveMetaStoreClient() {
    step("HiveMetaStoreClient open, unimplemented call, close", () -> {
      HiveMetaStoreClient metastore = open(host, port, SOCKET_TIMEOUT_MS);  // sends set_ugi
      try {
        require(!metastore.isLocalMetaStore(), "client is not remote");
        ProbeClient client = underlying(metastore);
        expectUnknownMethod(client);
        require(client.getStatus() == fb_status.ALIVE, "getStatus after UNKNOWN_METHOD");
        String name = client.getName();
        require(expectedName == null || expectedName.equals(name), "getName returned " + name);
      } finally {
        metastore.close();  // sends the one-way shutdown, then closes the socket
      }
    });
    step("HiveMetaStoreClient reopens after close", () -> {
      HiveMetaStoreClient metastore = open(host, port, SOCKET_TIMEOUT_MS);
      try {
        require(underlying(metastore).getStatus() == fb_status.ALIVE, "getStatus");
      } finally {
        metastore.close();
      }
    });
  }

  public static void main(String[] args) {
    if (args.length < 5) {
      System.err.println(
          "usage: WireClients HOST PORT METHOD ARGUMENTS EXPECTED_NAME|- [COMBO,...]");
      System.exit(2);
    }
    String expected = args[4].equals("-") ? null : args[4];
    WireClients run =
        new WireClients(args[0], Integer.parseInt(args[1]), args[2], args[3], expected);
    String combos = args.length > 5
        ? args[5] : "buffered-binary,buffered-compact,framed-binary,framed-compact,hmsclient";
    for (String combo : combos.split(",")) {
      if (combo.equals("hmsclient")) {
        run.hiveMetaStoreClient();
      } else {
        run.generatedClient(combo);
      }
    }
    run.finish("WireClients");
  }
}
