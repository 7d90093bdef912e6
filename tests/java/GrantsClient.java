import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.GetPrincipalsInRoleRequest;
import org.apache.hadoop.hive.metastore.api.GetRoleGrantsForPrincipalRequest;
import org.apache.hadoop.hive.metastore.api.HiveObjectPrivilege;
import org.apache.hadoop.hive.metastore.api.HiveObjectRef;
import org.apache.hadoop.hive.metastore.api.HiveObjectType;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.PrincipalPrivilegeSet;
import org.apache.hadoop.hive.metastore.api.PrincipalType;
import org.apache.hadoop.hive.metastore.api.PrivilegeBag;
import org.apache.hadoop.hive.metastore.api.PrivilegeGrantInfo;
import org.apache.hadoop.hive.metastore.api.Role;
import org.apache.hadoop.hive.metastore.api.RolePrincipalGrant;
import org.apache.hadoop.hive.metastore.api.SerDeInfo;
import org.apache.hadoop.hive.metastore.api.StorageDescriptor;
import org.apache.hadoop.hive.metastore.api.Table;

/**
 * Hive 2.3's {@code HiveMetaStoreClient} through roles and privileges, printing every answer
 * normalised (lists sorted, create times masked, the run's name prefix written {@code P}) so
 * that two servers' outputs compare line by line (tests/python/test_java_grants.py compares
 * them with what the Java reference HMS 2.3.10 printed, tests/java/GrantsClient.expected).
 *
 * <p>Roles are created, granted to a user, a group and a role, listed from every side; privileges
 * are granted on the server, a database, a table, a partition and columns of both, listed and
 * read as privilege sets; grant options and grants are revoked; a role and the table are
 * dropped, and what remains is listed. Refusals whose message Hive 4 changed from Hive 2.3's
 * (2.3 answers them with an internal error) print only that they were refused.
 *
 * <p>usage: java GrantsClient HOST PORT PREFIX. Prints {@code ANSWER step: text} lines and one
 * PASS or FAIL line per step; exits 1 if any step failed.
 */
public final class GrantsClient extends ClientSteps {
  private static final int SOCKET_TIMEOUT_MS = 60_000;

  /** A call whose answer (or refusal) is printed. */
  interface Call {
    Object run() throws Exception;
  }

  /** The run's name prefix, written {@code P} in every answer before answers are sorted. */
  private static String prefix = "";

  private final HiveMetaStoreClient client;
  private final String database;

  private GrantsClient(HiveMetaStoreClient client) {
    this.client = client;
    this.database = prefix + "_db";
  }

  private String name(String suffix) {
    return prefix + "_" + suffix;
  }

  private void answer(String step, String text) {
    System.out.println("ANSWER " + step + ": " + masked(text));
  }

  /** Prints the call's answer, or its refusal: exactly, or only that it was refused. */
  private void attempt(String step, boolean exactRefusal, Call call) {
    try {
      answer(step, show(call.run()));
    } catch (Exception error) {
      answer(step, exactRefusal
          ? "refused " + error.getClass().getSimpleName() + ": " + error.getMessage()
          : "refused");
    }
  }

  private static String masked(String text) {
    return text.replace(prefix, "P");
  }

  private static String time(int seconds) {
    return seconds == 0 ? "0" : "T";
  }

  private static String show(Object value) {
    if (value instanceof List) {
      List<String> lines = new ArrayList<>();
      for (Object item : (List<?>) value) {
        lines.add(masked(show(item)));
      }
      Collections.sort(lines);
      return lines.toString();
    }
    if (value instanceof Role) {
      Role role = (Role) value;
      return role.getRoleName() + "(owner " + role.getOwnerName() + ", " + time(role.getCreateTime())
          + ")";
    }
    if (value instanceof RolePrincipalGrant) {
      RolePrincipalGrant grant = (RolePrincipalGrant) value;
      return grant.getRoleName() + "<-" + grant.getPrincipalName() + ":" + grant.getPrincipalType()
          + " by " + grant.getGrantorName() + ":" + grant.getGrantorPrincipalType() + " option "
          + grant.isGrantOption() + " " + time(grant.getGrantTime());
    }
    if (value instanceof HiveObjectPrivilege) {
      HiveObjectPrivilege privilege = (HiveObjectPrivilege) value;
      return object(privilege.getHiveObject()) + " " + privilege.getPrincipalName() + ":"
          + privilege.getPrincipalType() + " " + show(privilege.getGrantInfo());
    }
    if (value instanceof PrivilegeGrantInfo) {
      PrivilegeGrantInfo info = (PrivilegeGrantInfo) value;
      return info.getPrivilege() + " by " + info.getGrantor() + ":" + info.getGrantorType()
          + " option " + info.isGrantOption() + " " + time(info.getCreateTime());
    }
    if (value instanceof PrincipalPrivilegeSet) {
      PrincipalPrivilegeSet set = (PrincipalPrivilegeSet) value;
      return "users " + grants(set.getUserPrivileges()) + " groups "
          + grants(set.getGroupPrivileges()) + " roles " + grants(set.getRolePrivileges());
    }
    return String.valueOf(value);
  }

  private static String grants(Map<String, List<PrivilegeGrantInfo>> grants) {
    if (grants == null) {
      return "null";
    }
    Map<String, String> sorted = new TreeMap<>();
    for (Map.Entry<String, List<PrivilegeGrantInfo>> entry : grants.entrySet()) {
      sorted.put(masked(entry.getKey()), show(new ArrayList<Object>(entry.getValue())));
    }
    return sorted.toString();
  }

  private static String object(HiveObjectRef ref) {
    return ref.getObjectType() + " " + ref.getDbName() + "." + ref.getObjectName()
        + (ref.getPartValues() == null ? "" : ref.getPartValues().toString())
        + (ref.getColumnName() == null ? "" : "." + ref.getColumnName());
  }

  private HiveObjectRef ref(HiveObjectType type, String table, List<String> values, String column) {
    return new HiveObjectRef(type, type == HiveObjectType.GLOBAL ? null : database, table, values,
        column);
  }

  private PrivilegeBag bag(HiveObjectRef ref, String principal, PrincipalType type,
      String privilege, boolean option) {
    PrivilegeGrantInfo info = new PrivilegeGrantInfo(privilege, 0, name("grantor"),
        PrincipalType.USER, option);
    return new PrivilegeBag(
        Collections.singletonList(new HiveObjectPrivilege(ref, principal, type, info)));
  }

  private Table table() {
    StorageDescriptor sd = new StorageDescriptor();
    sd.setCols(Arrays.asList(new FieldSchema("id", "int", null), new FieldSchema("name", "string",
        null)));
    sd.setInputFormat("org.apache.hadoop.mapred.TextInputFormat");
    sd.setOutputFormat("org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat");
    sd.setNumBuckets(-1);
    sd.setSerdeInfo(new SerDeInfo(null, "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
        Collections.singletonMap("serialization.format", "1")));
    sd.setParameters(new HashMap<>());
    Table table = new Table();
    table.setDbName(database);
    table.setTableName("t");
    table.setOwner(name("owner"));
    table.setSd(sd);
    table.setPartitionKeys(Collections.singletonList(new FieldSchema("ds", "string", null)));
    table.setParameters(new HashMap<>(Collections.singletonMap("PARTITION_LEVEL_PRIVILEGE",
        "TRUE")));
    table.setTableType("MANAGED_TABLE");
    return table;
  }

  private List<String> ourRoles() throws Exception {
    List<String> roles = new ArrayList<>();
    for (String role : client.listRoleNames()) {
      if (role.startsWith(prefix) || role.equals("admin") || role.equals("public")) {
        roles.add(role);
      }
    }
    return roles;
  }

  private void run() {
    String r1 = name("r1");
    String r2 = name("r2");
    String u1 = name("u1");
    String g1 = name("g1");
    String grantor = name("grantor");
    List<String> ds1 = Collections.singletonList("1");
    step("setup", () -> {
      client.createDatabase(new Database(database, null, null, new HashMap<>()));
      client.createTable(table());
      Partition partition = new Partition(ds1, database, "t", 0, 0, table().getSd(),
          new HashMap<>());
      client.add_partition(partition);
    });
    step("roles", () -> {
      attempt("create r1", true, () -> client.create_role(new Role(r1, 0, name("owner"))));
      attempt("create r2", true, () -> client.create_role(new Role(r2, 0, name("owner"))));
      attempt("role names", true, this::ourRoles);
      attempt("create r1 again", false, () -> client.create_role(new Role(r1, 0, "x")));
      attempt("drop admin", true, () -> client.drop_role("admin"));
      attempt("drop public", true, () -> client.drop_role("public"));
      attempt("drop missing", true, () -> client.drop_role(name("missing")));
    });
    step("role grants", () -> {
      attempt("grant r1 to u1", true, () -> client.grant_role(r1, u1, PrincipalType.USER,
          grantor, PrincipalType.USER, true));
      attempt("grant r2 to r1", true, () -> client.grant_role(r2, r1, PrincipalType.ROLE,
          grantor, PrincipalType.USER, false));
      attempt("grant r1 to g1", true, () -> client.grant_role(r1, g1, PrincipalType.GROUP,
          grantor, PrincipalType.USER, false));
      attempt("grant r1 to u1 again", false, () -> client.grant_role(r1, u1, PrincipalType.USER,
          grantor, PrincipalType.USER, false));
      attempt("grant missing role", false, () -> client.grant_role(name("missing"), u1,
          PrincipalType.USER, grantor, PrincipalType.USER, false));
      attempt("grant r1 to r2 (cycle)", true, () -> client.grant_role(r1, r2,
          PrincipalType.ROLE, grantor, PrincipalType.USER, false));
      attempt("grant r1 to r1 (cycle)", true, () -> client.grant_role(r1, r1,
          PrincipalType.ROLE, grantor, PrincipalType.USER, false));
      attempt("list roles u1", true, () -> client.list_roles(u1, PrincipalType.USER));
      attempt("list roles r1", true, () -> client.list_roles(r1, PrincipalType.ROLE));
      attempt("list roles g1", true, () -> client.list_roles(g1, PrincipalType.GROUP));
      attempt("principals in r1", true, () -> client.get_principals_in_role(
          new GetPrincipalsInRoleRequest(r1)).getPrincipalGrants());
      attempt("principals in r2", true, () -> client.get_principals_in_role(
          new GetPrincipalsInRoleRequest(r2)).getPrincipalGrants());
      attempt("principals in admin", true, () -> client.get_principals_in_role(
          new GetPrincipalsInRoleRequest("admin")).getPrincipalGrants());
      attempt("role grants of u1", true, () -> client.get_role_grants_for_principal(
          new GetRoleGrantsForPrincipalRequest(u1, PrincipalType.USER)).getPrincipalGrants());
      attempt("role grants of r1", true, () -> client.get_role_grants_for_principal(
          new GetRoleGrantsForPrincipalRequest(r1, PrincipalType.ROLE)).getPrincipalGrants());
    });
    HiveObjectRef global = ref(HiveObjectType.GLOBAL, null, null, null);
    HiveObjectRef db = ref(HiveObjectType.DATABASE, null, null, null);
    HiveObjectRef table = ref(HiveObjectType.TABLE, "t", null, null);
    HiveObjectRef partition = ref(HiveObjectType.PARTITION, "t", ds1, null);
    HiveObjectRef column = ref(HiveObjectType.COLUMN, "t", null, "id");
    HiveObjectRef partitionColumn = ref(HiveObjectType.COLUMN, "t", ds1, "id");
    HiveObjectRef every = new HiveObjectRef();
    step("privilege grants", () -> {
      attempt("grant global", true, () -> client.grant_privileges(
          bag(global, u1, PrincipalType.USER, "CREATE", false)));
      attempt("grant database", true, () -> client.grant_privileges(
          bag(db, u1, PrincipalType.USER, "SELECT", false)));
      attempt("grant table", true, () -> client.grant_privileges(
          bag(table, r1, PrincipalType.ROLE, "SELECT,INSERT", true)));
      attempt("grant partition", true, () -> client.grant_privileges(
          bag(partition, g1, PrincipalType.GROUP, "SELECT", false)));
      attempt("grant column", true, () -> client.grant_privileges(
          bag(column, u1, PrincipalType.USER, "SELECT", false)));
      attempt("grant partition column", true, () -> client.grant_privileges(
          bag(partitionColumn, u1, PrincipalType.USER, "UPDATE", false)));
      attempt("grant table again", false, () -> client.grant_privileges(
          bag(table, r1, PrincipalType.ROLE, "SELECT", false)));
      attempt("grant to missing role", false, () -> client.grant_privileges(
          bag(table, name("missing"), PrincipalType.ROLE, "SELECT", false)));
      attempt("grant on missing table", true, () -> client.grant_privileges(
          bag(ref(HiveObjectType.TABLE, "missing", null, null), u1, PrincipalType.USER,
              "SELECT", false)));
    });
    step("privilege reads", () -> {
      attempt("list u1 everything", true, () -> client.list_privileges(u1, PrincipalType.USER,
          every));
      attempt("list r1 on table", true, () -> client.list_privileges(r1, PrincipalType.ROLE,
          table));
      attempt("list all on table", true, () -> client.list_privileges(null, null, table));
      attempt("list all on partition", true, () -> client.list_privileges(null, null,
          partition));
      attempt("list all on column", true, () -> client.list_privileges(null, null, column));
      attempt("list all on partition column", true, () -> client.list_privileges(null, null,
          partitionColumn));
      attempt("list u1 global", true, () -> client.list_privileges(u1, PrincipalType.USER,
          global));
      attempt("list u1 database", true, () -> client.list_privileges(u1, PrincipalType.USER, db));
      List<String> groups = Collections.singletonList(g1);
      attempt("set global", true, () -> client.get_privilege_set(global, u1, groups));
      attempt("set database", true, () -> client.get_privilege_set(db, u1, groups));
      attempt("set table", true, () -> client.get_privilege_set(table, u1, groups));
      attempt("set partition", true, () -> client.get_privilege_set(partition, u1, groups));
      attempt("set column", true, () -> client.get_privilege_set(column, u1, groups));
      attempt("set partition column", true, () -> client.get_privilege_set(partitionColumn, u1,
          groups));
      attempt("partition with auth", true, () -> client.getPartitionWithAuthInfo(database, "t",
          ds1, u1, groups).getPrivileges());
    });
    step("revokes", () -> {
      attempt("revoke insert option", true, () -> client.revoke_privileges(
          bag(table, r1, PrincipalType.ROLE, "INSERT", false), true));
      attempt("revoke insert option again", true, () -> client.revoke_privileges(
          bag(table, r1, PrincipalType.ROLE, "INSERT", false), true));
      attempt("revoke select", true, () -> client.revoke_privileges(
          bag(table, r1, PrincipalType.ROLE, "SELECT", false), false));
      attempt("revoke select again", false, () -> client.revoke_privileges(
          bag(table, r1, PrincipalType.ROLE, "SELECT", false), false));
      attempt("list r1 on table after", true, () -> client.list_privileges(r1,
          PrincipalType.ROLE, table));
      attempt("revoke r1 admin option", true, () -> client.revoke_role(r1, u1,
          PrincipalType.USER, true));
      attempt("revoke r1 admin option again", true, () -> client.revoke_role(r1, u1,
          PrincipalType.USER, true));
      attempt("role grants of u1 after", true, () -> client.get_role_grants_for_principal(
          new GetRoleGrantsForPrincipalRequest(u1, PrincipalType.USER)).getPrincipalGrants());
      attempt("revoke r1 from u1", true, () -> client.revoke_role(r1, u1, PrincipalType.USER,
          false));
    });
    step("drops", () -> {
      attempt("drop r1", true, () -> client.drop_role(r1));
      attempt("role names after", true, this::ourRoles);
      attempt("principals in r2 after", true, () -> client.get_principals_in_role(
          new GetPrincipalsInRoleRequest(r2)).getPrincipalGrants());
      attempt("list r1 everything", true, () -> client.list_privileges(r1, PrincipalType.ROLE,
          every));
      client.dropPartition(database, "t", ds1, false);
      attempt("list u1 after partition drop", true, () -> client.list_privileges(u1,
          PrincipalType.USER, every));
      client.dropTable(database, "t");
      attempt("list u1 after table drop", true, () -> client.list_privileges(u1,
          PrincipalType.USER, every));
      client.dropDatabase(database, false, true, true);
      attempt("list u1 after database drop", true, () -> client.list_privileges(u1,
          PrincipalType.USER, every));
      attempt("revoke global", true, () -> client.revoke_privileges(
          bag(global, u1, PrincipalType.USER, "CREATE", false), false));
      attempt("drop r2", true, () -> client.drop_role(r2));
    });
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: java GrantsClient HOST PORT PREFIX");
      System.exit(2);
    }
    HiveMetaStoreClient client = open(args[0], Integer.parseInt(args[1]), SOCKET_TIMEOUT_MS);
    prefix = args[2];
    GrantsClient program = new GrantsClient(client);
    program.run();
    client.close();
    program.finish("GrantsClient");
  }
}
