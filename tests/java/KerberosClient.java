import java.security.PrivilegedExceptionAction;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.conf.HiveConf;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.security.token.TokenIdentifier;

/**
 * Hive 2.3's Java client over SASL GSSAPI (Kerberos), logged in from a keytab as a Hadoop
 * deployment does it: {@code hadoop.security.authentication=kerberos}, a UGI keytab login,
 * {@code hive.metastore.sasl.enabled=true} and the service's principal.
 *
 * <p>usage: java -Djava.security.krb5.conf=KRB5_CONF KerberosClient HOST PORT
 * SERVICE_PRINCIPAL USER_PRINCIPAL KEYTAB PROTECTION DATABASE, where SERVICE_PRINCIPAL may hold
 * {@code _HOST} (the client puts HOST for it) and PROTECTION is {@code hadoop.rpc.protection}
 * (authentication, integrity or privacy). Prints one PASS or FAIL line per check and
 * {@code OWNER name}, the owner the server gave a database created without one.
 *
 * <p>Then the delegation-token round trip Spark and Oozie make: a token for the user, renewed,
 * put in a second UGI that has no Kerberos credentials, which connects with it (SASL
 * DIGEST-MD5, selected by {@code hive.metastore.token.signature}), and cancelled at the end.
 */
public final class KerberosClient extends ClientSteps {
  private static final int SOCKET_TIMEOUT_MS = 20_000;

  public static void main(String[] args) throws Exception {
    String host = args[0];
    int port = Integer.parseInt(args[1]);
    String servicePrincipal = args[2];
    String userPrincipal = args[3];
    String keytab = args[4];
    String protection = args[5];
    String database = args[6];
    KerberosClient program = new KerberosClient();

    Configuration hadoop = new Configuration();
    hadoop.set("hadoop.security.authentication", "kerberos");
    hadoop.set("hadoop.rpc.protection", protection);
    program.step("login", () -> {
      UserGroupInformation.setConfiguration(hadoop);
      UserGroupInformation.loginUserFromKeytab(userPrincipal, keytab);
      UserGroupInformation user = UserGroupInformation.getLoginUser();
      require(user.hasKerberosCredentials(), "no Kerberos credentials after the keytab login");
      requireEqual(userPrincipal, user.getUserName(), "login user");
    });

    HiveConf conf = new HiveConf();
    conf.setVar(HiveConf.ConfVars.METASTOREURIS, "thrift://" + host + ":" + port);
    conf.setIntVar(HiveConf.ConfVars.METASTORETHRIFTCONNECTIONRETRIES, 1);
    conf.setIntVar(HiveConf.ConfVars.METASTORETHRIFTFAILURERETRIES, 0);
    conf.setTimeVar(HiveConf.ConfVars.METASTORE_CLIENT_SOCKET_TIMEOUT, SOCKET_TIMEOUT_MS,
        TimeUnit.MILLISECONDS);
    conf.setBoolVar(HiveConf.ConfVars.METASTORE_USE_THRIFT_SASL, true);
    conf.setVar(HiveConf.ConfVars.METASTORE_KERBEROS_PRINCIPAL, servicePrincipal);
    conf.set("hadoop.security.authentication", "kerberos");
    conf.set("hadoop.rpc.protection", protection);

    HiveMetaStoreClient[] client = new HiveMetaStoreClient[1];
    program.step("connect", () -> {
      client[0] = new HiveMetaStoreClient(conf);
      List<String> names = client[0].getAllDatabases();
      require(names.contains("default"), "databases without default: " + names);
    });
    program.step("create_database", () -> {
      Database created = new Database(database, "made over Kerberos", null, null);
      client[0].createDatabase(created);
      Database read = client[0].getDatabase(database);
      requireEqual(database, read.getName(), "database name");
      System.out.println("OWNER " + read.getOwnerName());
      require(client[0].getAllDatabases().contains(database), "the new database is not listed");
    });
    program.step("drop_database", () -> {
      client[0].dropDatabase(database, true, false, false);
      require(!client[0].getAllDatabases().contains(database), "the database is still listed");
    });
    String shortUser = userPrincipal.split("[/@]")[0];
    String[] token = new String[1];
    program.step("get_delegation_token", () -> {
      token[0] = client[0].getDelegationToken(shortUser, userPrincipal);
      require(token[0] != null && !token[0].isEmpty(), "no token");
    });
    program.step("renew_delegation_token", () -> {
      long expiry = client[0].renewDelegationToken(token[0]);
      require(expiry > System.currentTimeMillis(), "renewed until " + expiry);
    });
    program.step("token_login", () -> {
      String signature = "hivestore-test-token";
      Token<TokenIdentifier> held = new Token<>();
      held.decodeFromUrlString(token[0]);
      held.setService(new Text(signature));
      UserGroupInformation holder = UserGroupInformation.createRemoteUser(shortUser);
      holder.addToken(held);
      HiveConf tokenConf = new HiveConf(conf);
      tokenConf.setVar(HiveConf.ConfVars.METASTORE_TOKEN_SIGNATURE, signature);
      List<String> names = holder.doAs((PrivilegedExceptionAction<List<String>>) () -> {
        HiveMetaStoreClient byToken = new HiveMetaStoreClient(tokenConf);
        try {
          return byToken.getAllDatabases();
        } finally {
          byToken.close();
        }
      });
      require(names.contains("default"), "databases over the token: " + names);
    });
    program.step("cancel_delegation_token", () -> client[0].cancelDelegationToken(token[0]));
    program.step("close", () -> client[0].close());
    program.finish("KerberosClient");
  }
}
