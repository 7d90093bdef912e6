//! `hivestore serve` settings: command-line flags, then environment variables, then a TOML
//! config file, then defaults — the first that gives a value wins.
//!
//! ```toml
//! # hivestore.toml
//! listen = "0.0.0.0:9083"
//! data_dir = "/var/lib/hivestore"
//! store = "sled"                      # or "postgres://hive:secret@db:5432/metastore"
//! postgres_connections = 8
//! standby = false                     # with postgres: wait, and take over when the server stops
//! reader = false                      # with postgres: serve reads beside the server that writes
//! warehouse = "/warehouse"
//! external_roots = ["/data/external", "/mnt/lake"]
//! max_connections = 2000
//! max_message_bytes = 104857600
//! max_string_bytes = 104857600
//! max_container_elements = 1000000
//! idle_timeout_secs = 600
//! message_timeout_secs = 120
//! max_inflight_bytes = 1073741824
//! worker_threads = 16
//! txn_timeout_ms = 300000
//! event_ttl_secs = 86400
//! event_clean_interval_secs = 60
//! size_count_interval_secs = 3600
//! backup_dir = "/var/backups/hivestore"
//! backup_interval_secs = 86400
//! backup_keep = 7
//! backup_image_mb = 256
//! delegation_token_renew_interval_secs = 86400
//! delegation_token_max_lifetime_secs = 604800
//! delegation_key_update_interval_secs = 86400
//! delegation_token_gc_interval_secs = 900
//! limit_partition_request = -1
//! cache_mb = 256
//! prewarm_mb = 128
//! disk_reserve_mb = 64
//! stats_recent_slots = 0
//! stats_fetch_sketches = false
//! follow_write_wait_ms = 10000
//! max_param_value_bytes = 32672
//! max_params_bytes = 4194304
//! max_stats_sketch_bytes = 1048576
//! max_comment_bytes = 4000
//! max_type_name_bytes = 1048576
//! handshake_timeout_secs = 10
//! tls_cert = "/etc/hivestore/server.pem"
//! tls_key = "/etc/hivestore/server.key"
//! tls_client_ca = "/etc/hivestore/clients-ca.pem"
//! tls_allow_plain = false
//! authentication = "NOSASL"
//! http_path = "metastore"
//! jwks_file = "/etc/hivestore/jwks.json"
//! jwt_issuer = "https://idp.example.com"
//! jwt_audience = "hivestore"
//! password_file = "/etc/hivestore/passwords"
//! ldap_url = "ldaps://ldap.example.com"
//! ldap_base_dn = "ou=people,dc=example,dc=com"
//! ldap_user_dn_pattern = "uid=%s,ou=people,dc=example,dc=com:uid=%s,ou=svc,dc=example,dc=com"
//! ldap_ca = "/etc/ssl/certs/ca-certificates.crt"
//! kerberos_principal = "hive/_HOST@EXAMPLE.COM"
//! kerberos_keytab = "/etc/hivestore/hive.keytab"
//! kerberos_host = "db1.example.com"
//! sasl_qop = "auth-conf,auth"
//! auth_to_local = "DEFAULT"
//! audit_log = "/var/log/hivestore/audit.log"
//! audit_format = "text"
//! metrics_listen = "127.0.0.1:9090"
//! log_format = "json"
//! ```

use std::path::{Path, PathBuf};

use clap::Args;
use hivestore_engine::ValueLimits;
use serde::Deserialize;

use std::time::Duration;

use crate::access::groups::{GroupMapping, GROUPS_CACHE_SECS_DEFAULT};
use crate::access::proxy::ProxyList;
use crate::access::AccessSettings;
use crate::audit::{AuditDestination, AuditFormat, AuditSettings};
use crate::auth::delegation::{self, TokenSettings};
use crate::auth::gssapi::{KerberosSettings, Qop};
use crate::auth::jwt::JwtSettings;
use crate::auth::ldap::LdapSettings;
use crate::auth::plain::PlainSettings;
use crate::auth::principal_rules::AUTH_TO_LOCAL_DEFAULT;
use crate::auth::Authentication;
use crate::following::{FOLLOW_WRITE_WAIT_MS_DEFAULT, FOLLOW_WRITE_WAIT_MS_MAX};
use crate::http::HTTP_PATH_DEFAULT;
use crate::limits::{
    Limits, HANDSHAKE_TIMEOUT_SECS_DEFAULT, IDLE_TIMEOUT_SECS_DEFAULT, MESSAGE_TIMEOUT_SECS_DEFAULT,
};
use crate::tls::TlsSettings;

/// The address served when nothing says otherwise (Hive's port).
pub const LISTEN_DEFAULT: &str = "127.0.0.1:9083";
/// The data directory when nothing says otherwise.
pub const DATA_DIR_DEFAULT: &str = "./data";
/// The warehouse root when nothing says otherwise.
pub const WAREHOUSE_DEFAULT: &str = "./warehouse";

/// Flags of `hivestore serve`; each may also come from the environment or the config file.
#[derive(Args, Debug, Default, Clone)]
pub struct ServeArgs {
    /// TOML config file with any of the settings below.
    #[arg(long, env = "HIVESTORE_CONFIG")]
    pub config: Option<PathBuf>,
    /// Address to listen on [default: 127.0.0.1:9083].
    #[arg(long, env = "HIVESTORE_LISTEN")]
    pub listen: Option<String>,
    /// Directory of the embedded store [default: ./data].
    #[arg(long, env = "HIVESTORE_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// Where the catalog is stored: `sled`, the embedded store in --data-dir, or a PostgreSQL
    /// database, `postgres://user:password@host:port/database` (one server serves it)
    /// [default: sled].
    #[arg(long, env = "HIVESTORE_STORE")]
    pub store: Option<String>,
    /// Connections to PostgreSQL for reads and writes, with --store postgres://
    /// [default: 8].
    #[arg(long, env = "HIVESTORE_POSTGRES_CONNECTIONS")]
    pub postgres_connections: Option<usize>,
    /// With --store postgres://: while another server serves the database, wait (not
    /// listening) and take the database over when that server stops or dies, instead of
    /// refusing to start.
    #[arg(long, env = "HIVESTORE_STANDBY")]
    pub standby: bool,
    /// With --store postgres://: serve reads beside the server that writes the database,
    /// each call seeing every write that server acknowledged before it began; writes, locks
    /// and transactions are refused (send them to the writing server).
    #[arg(long, env = "HIVESTORE_READER", conflicts_with = "standby")]
    pub reader: bool,
    /// Warehouse root: default location of databases and managed tables [default: ./warehouse].
    #[arg(long, env = "HIVESTORE_WAREHOUSE")]
    pub warehouse: Option<String>,
    /// A local directory besides the warehouse where the server may make, move and delete
    /// data (tables and partitions at locations there); anywhere else it refuses to. Repeat
    /// it, or separate roots by commas [default: none, the warehouse alone].
    #[arg(
        long = "external-root",
        value_name = "PATH",
        env = "HIVESTORE_EXTERNAL_ROOTS",
        value_delimiter = ','
    )]
    pub external_roots: Vec<String>,
    /// Most connections served at once [default: 1000].
    #[arg(long, env = "HIVESTORE_MAX_CONNECTIONS")]
    pub max_connections: Option<usize>,
    /// Largest request message, in bytes [default: 104857600].
    #[arg(long, env = "HIVESTORE_MAX_MESSAGE_BYTES")]
    pub max_message_bytes: Option<usize>,
    /// Largest string or binary value in a request, in bytes [default: 104857600].
    #[arg(long, env = "HIVESTORE_MAX_STRING_BYTES")]
    pub max_string_bytes: Option<usize>,
    /// Largest list, set or map in a request, in elements [default: 1000000].
    #[arg(long, env = "HIVESTORE_MAX_CONTAINER_ELEMENTS")]
    pub max_container_elements: Option<usize>,
    /// Silence allowed between two calls before the connection is closed, in seconds
    /// [default: 600].
    #[arg(long, env = "HIVESTORE_IDLE_TIMEOUT_SECS")]
    pub idle_timeout_secs: Option<u64>,
    /// Time a request may take to arrive, from its first byte to its last, in seconds
    /// [default: 120].
    #[arg(long, env = "HIVESTORE_MESSAGE_TIMEOUT_SECS")]
    pub message_timeout_secs: Option<u64>,
    /// Bytes of unfinished requests held at once across all connections [default: 1073741824].
    #[arg(long, env = "HIVESTORE_MAX_INFLIGHT_BYTES")]
    pub max_inflight_bytes: Option<usize>,
    /// Threads that answer requests, for all connections [default: 16].
    #[arg(long, env = "HIVESTORE_WORKER_THREADS")]
    pub worker_threads: Option<usize>,
    /// Hive's `metastore.txn.timeout`: locks not heartbeated for this long are released and
    /// transactions aborted, in milliseconds [default: 300000].
    #[arg(long, env = "HIVESTORE_TXN_TIMEOUT_MS")]
    pub txn_timeout_ms: Option<u64>,
    /// Hive's `hive.metastore.event.db.listener.timetolive`: notification events older than
    /// this are deleted, in seconds [default: 86400].
    #[arg(long, env = "HIVESTORE_EVENT_TTL_SECS")]
    pub event_ttl_secs: Option<u64>,
    /// How often the cleaner looks for expired notification events, in seconds [default: 60].
    #[arg(long, env = "HIVESTORE_EVENT_CLEAN_INTERVAL_SECS")]
    pub event_clean_interval_secs: Option<u64>,
    /// How often the store's live data is counted for the fb303 counters `store.live_*`, in
    /// seconds (a count reads every key) [default: 3600].
    #[arg(long, env = "HIVESTORE_SIZE_COUNT_INTERVAL_SECS")]
    pub size_count_interval_secs: Option<u64>,
    /// Where the server writes online backups: a consistent dump of the store while it serves,
    /// on SIGUSR1 and every --backup-interval-secs (`hivestore-<UTC time>.dump`, written under a
    /// temporary name and renamed once complete and synced) [default: none, no backups].
    #[arg(long, env = "HIVESTORE_BACKUP_DIR")]
    pub backup_dir: Option<PathBuf>,
    /// How often the server writes a backup into --backup-dir, in seconds; 0: only on SIGUSR1
    /// [default: 0].
    #[arg(long, env = "HIVESTORE_BACKUP_INTERVAL_SECS")]
    pub backup_interval_secs: Option<u64>,
    /// How many backups --backup-dir keeps: the oldest beyond are deleted after each new one
    /// [default: 7].
    #[arg(long, env = "HIVESTORE_BACKUP_KEEP")]
    pub backup_keep: Option<usize>,
    /// The most memory an online backup may hold for the old values of keys written while it
    /// runs, in MiB; past it the backup fails (writers never wait) [default: 256].
    #[arg(long, env = "HIVESTORE_BACKUP_IMAGE_MB")]
    pub backup_image_mb: Option<u64>,
    /// Hive's `metastore.cluster.delegation.token.renew-interval`: a delegation token expires
    /// this long after its issue or last renewal, in seconds [default: 86400].
    #[arg(long, env = "HIVESTORE_DELEGATION_TOKEN_RENEW_INTERVAL_SECS")]
    pub delegation_token_renew_interval_secs: Option<u64>,
    /// Hive's `metastore.cluster.delegation.token.max-lifetime`: no delegation token lives
    /// longer than this after its issue, in seconds [default: 604800].
    #[arg(long, env = "HIVESTORE_DELEGATION_TOKEN_MAX_LIFETIME_SECS")]
    pub delegation_token_max_lifetime_secs: Option<u64>,
    /// Hive's `metastore.cluster.delegation.key.update-interval`: how long a master key signs
    /// new delegation tokens before the next replaces it, in seconds [default: 86400].
    #[arg(long, env = "HIVESTORE_DELEGATION_KEY_UPDATE_INTERVAL_SECS")]
    pub delegation_key_update_interval_secs: Option<u64>,
    /// Hive's `metastore.cluster.delegation.token.gc-interval`: expired delegation tokens are
    /// swept at most this often, in seconds [default: 900].
    #[arg(long, env = "HIVESTORE_DELEGATION_TOKEN_GC_INTERVAL_SECS")]
    pub delegation_token_gc_interval_secs: Option<u64>,
    /// Hive's `metastore.limit.partition.request`: the most partitions one call may fetch
    /// whole; a call that would fetch more is refused. -1: no limit [default: -1].
    #[arg(
        long,
        env = "HIVESTORE_LIMIT_PARTITION_REQUEST",
        allow_hyphen_values = true
    )]
    pub limit_partition_request: Option<i64>,
    /// The embedded store's page cache, in MiB; on PostgreSQL, the point reads kept in
    /// memory [default: 128].
    #[arg(long, env = "HIVESTORE_CACHE_MB")]
    pub cache_mb: Option<u64>,
    /// Column statistics read into memory (kept) at start, so that planners' first reads after a
    /// restart cost what later ones do, in MiB; 0 turns it off [default: 128, the most].
    #[arg(long, env = "HIVESTORE_PREWARM_MB")]
    pub prewarm_mb: Option<u64>,
    /// Room kept free on the data directory's disk, as a file there, in MiB: given up when the
    /// disk runs full so that the store can go back to its durable state and keep serving
    /// reads; writes resume once the disk has room for it twice over [default: 64].
    #[arg(long, env = "HIVESTORE_DISK_RESERVE_MB")]
    pub disk_reserve_mb: Option<u64>,
    /// Partitions' statistics a chunk of 128 partitions keeps as recent slots in its delta,
    /// one value beside it, before a write rewrites it with them; 0 rewrites the chunk at
    /// every write. Off: they cost a write more CPU than the rewrite
    /// (docs/benchmarks/storage-size.md); 16 is the bound measured [default: 0, at most 128].
    #[arg(long, env = "HIVESTORE_STATS_RECENT_SLOTS")]
    pub stats_recent_slots: Option<usize>,
    /// Statistics reads return the NDV sketches (`bitVectors`) and KLL histograms they hold,
    /// as Hive does with `metastore.stats.fetch.bitvector` and `.kll` [default: off, as
    /// Hive].
    #[arg(long, env = "HIVESTORE_STATS_FETCH_SKETCHES")]
    pub stats_fetch_sketches: bool,
    /// With `--follow-from`: how long the reply to a write forwarded to the source waits for
    /// the follower to apply it, in milliseconds; past it the source's reply goes out anyway
    /// (counted) [default: 10000, at most 600000; 0: no wait].
    #[arg(long, env = "HIVESTORE_FOLLOW_WRITE_WAIT_MS")]
    pub follow_write_wait_ms: Option<u64>,
    /// Longest parameter value of a database, table, partition, storage descriptor or serde,
    /// in bytes [default: 32672].
    #[arg(long, env = "HIVESTORE_MAX_PARAM_VALUE_BYTES")]
    pub max_param_value_bytes: Option<usize>,
    /// Longest column or partition key comment, database or catalog description, in bytes
    /// [default: 4000].
    #[arg(long, env = "HIVESTORE_MAX_COMMENT_BYTES")]
    pub max_comment_bytes: Option<usize>,
    /// Longest column or partition key type name, in bytes [default: 1048576].
    #[arg(long, env = "HIVESTORE_MAX_TYPE_NAME_BYTES")]
    pub max_type_name_bytes: Option<usize>,
    /// Most bytes of keys and values in one object's parameters [default: 4194304].
    #[arg(long, env = "HIVESTORE_MAX_PARAMS_BYTES")]
    pub max_params_bytes: Option<usize>,
    /// Longest NDV sketch (bit vector) or histogram of a column's statistics, in bytes
    /// [default: 1048576].
    #[arg(long, env = "HIVESTORE_MAX_STATS_SKETCH_BYTES")]
    pub max_stats_sketch_bytes: Option<usize>,
    /// Time a connection's TLS handshake may take, from its first byte, in seconds
    /// [default: 10].
    #[arg(long, env = "HIVESTORE_HANDSHAKE_TIMEOUT_SECS")]
    pub handshake_timeout_secs: Option<u64>,
    /// Serve TLS (Hive's `metastore.use.SSL`) with this certificate chain, PEM, the server's
    /// certificate first; with --tls-key. Reloaded on SIGHUP.
    #[arg(long, env = "HIVESTORE_TLS_CERT")]
    pub tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert, PEM. Reloaded on SIGHUP.
    #[arg(long, env = "HIVESTORE_TLS_KEY")]
    pub tls_key: Option<PathBuf>,
    /// Ask TLS clients for a certificate that chains to one of these CA certificates, PEM
    /// (mutual TLS).
    #[arg(long, env = "HIVESTORE_TLS_CLIENT_CA")]
    pub tls_client_ca: Option<PathBuf>,
    /// With TLS, serve plain connections too (Hive serves TLS only).
    #[arg(long, env = "HIVESTORE_TLS_ALLOW_PLAIN")]
    pub tls_allow_plain: bool,
    /// How clients prove who they are (Hive's `metastore.authentication`): NOSASL, NONE, LDAP,
    /// KERBEROS, CUSTOM or JWT [default: NOSASL].
    #[arg(long, env = "HIVESTORE_AUTHENTICATION")]
    pub authentication: Option<String>,
    /// The path HTTP clients post Thrift calls to (Hive's
    /// `metastore.server.thrift.http.path`) [default: metastore].
    #[arg(long, env = "HIVESTORE_HTTP_PATH")]
    pub http_path: Option<String>,
    /// HTTP requests must carry a JWT bearer token signed by a key of this JWKS file (Hive's
    /// `metastore.authentication=JWT`). Reloaded on SIGHUP.
    #[arg(long, env = "HIVESTORE_JWKS_FILE")]
    pub jwks_file: Option<PathBuf>,
    /// The issuer (`iss`) JWT bearer tokens must name.
    #[arg(long, env = "HIVESTORE_JWT_ISSUER")]
    pub jwt_issuer: Option<String>,
    /// An audience (`aud`) JWT bearer tokens must include.
    #[arg(long, env = "HIVESTORE_JWT_AUDIENCE")]
    pub jwt_audience: Option<String>,
    /// Authentication CUSTOM: the file of `user:hash` lines (argon2id or bcrypt hashes; see
    /// `hivestore passwd`). Reloaded on SIGHUP.
    #[arg(long, env = "HIVESTORE_PASSWORD_FILE")]
    pub password_file: Option<PathBuf>,
    /// Authentication LDAP: the server to bind to, `ldap://host[:port]` or `ldaps://host[:port]`
    /// (Hive's `hive.metastore.authentication.ldap.url`).
    #[arg(long, env = "HIVESTORE_LDAP_URL")]
    pub ldap_url: Option<String>,
    /// Authentication LDAP: users bind as `uid=USER,BASE_DN` (Hive's `...ldap.baseDN`).
    #[arg(long, env = "HIVESTORE_LDAP_BASE_DN")]
    pub ldap_base_dn: Option<String>,
    /// Authentication LDAP: users bind as these DNs, %s the user name, separated by `:` and
    /// tried in turn (Hive's `...ldap.userDNPattern`).
    #[arg(long, env = "HIVESTORE_LDAP_USER_DN_PATTERN")]
    pub ldap_user_dn_pattern: Option<String>,
    /// Authentication LDAP over ldaps://: the CA certificates, PEM, the server's certificate
    /// chains to.
    #[arg(long, env = "HIVESTORE_LDAP_CA")]
    pub ldap_ca: Option<PathBuf>,
    /// Accept Kerberos (SASL GSSAPI) as this service principal, `hive/_HOST@REALM`; `_HOST`
    /// becomes --kerberos-host or the canonical host name. With --kerberos-keytab.
    #[arg(long, env = "HIVESTORE_KERBEROS_PRINCIPAL")]
    pub kerberos_principal: Option<String>,
    /// The keytab holding --kerberos-principal's key; checked at start.
    #[arg(long, env = "HIVESTORE_KERBEROS_KEYTAB")]
    pub kerberos_keytab: Option<PathBuf>,
    /// The host name put for `_HOST` in --kerberos-principal [default: the canonical host name].
    #[arg(long, env = "HIVESTORE_KERBEROS_HOST")]
    pub kerberos_host: Option<String>,
    /// SASL GSSAPI protections offered, a comma list of auth, auth-int, auth-conf (or Hadoop's
    /// authentication, integrity, privacy) [default: auth].
    #[arg(long, env = "HIVESTORE_SASL_QOP")]
    pub sasl_qop: Option<String>,
    /// Hadoop's `hadoop.security.auth_to_local` rules mapping principals to short user names
    /// [default: DEFAULT].
    #[arg(long, env = "HIVESTORE_AUTH_TO_LOCAL")]
    pub auth_to_local: Option<String>,
    /// Whether each call is checked against the caller's ownership and grants: none or enforce
    /// [default: none, as in Hive].
    #[arg(long, env = "HIVESTORE_AUTHORIZATION")]
    pub authorization: Option<String>,
    /// Users that may do anything, a comma list (Hive's `hive.users.in.admin.role`).
    #[arg(long, env = "HIVESTORE_ADMIN_USERS")]
    pub admin_users: Option<String>,
    /// Groups whose members may do anything, a comma list.
    #[arg(long, env = "HIVESTORE_ADMIN_GROUPS")]
    pub admin_groups: Option<String>,
    /// A superuser that may act as these users through set_ugi, `SUPERUSER=USER,USER` or
    /// `SUPERUSER=*` (Hadoop's `hadoop.proxyuser.SUPERUSER.users`); repeatable.
    #[arg(long, env = "HIVESTORE_PROXY_USER_USERS", value_delimiter = ';')]
    pub proxy_user_users: Vec<String>,
    /// A superuser that may act as the members of these groups, `SUPERUSER=GROUP,GROUP`
    /// (Hadoop's `hadoop.proxyuser.SUPERUSER.groups`); repeatable.
    #[arg(long, env = "HIVESTORE_PROXY_USER_GROUPS", value_delimiter = ';')]
    pub proxy_user_groups: Vec<String>,
    /// The addresses a superuser may act from, `SUPERUSER=ADDRESS,NETWORK/BITS,HOST` or
    /// `SUPERUSER=*` (Hadoop's `hadoop.proxyuser.SUPERUSER.hosts`; none: it may act as
    /// nobody); repeatable.
    #[arg(long, env = "HIVESTORE_PROXY_USER_HOSTS", value_delimiter = ';')]
    pub proxy_user_hosts: Vec<String>,
    /// Users' groups given rather than asked of the system, `USER=GROUP,GROUP;USER2=`
    /// (Hadoop's `hadoop.user.group.static.mapping.overrides`).
    #[arg(long, env = "HIVESTORE_GROUP_MAPPING_OVERRIDES")]
    pub group_mapping_overrides: Option<String>,
    /// How long a user's groups, as the system names them (`id -Gn`), are kept, in seconds
    /// [default: 300].
    #[arg(long, env = "HIVESTORE_GROUPS_CACHE_SECS")]
    pub groups_cache_secs: Option<u64>,
    /// Where the audit log goes, one line per call: off, stderr or a file (appended to,
    /// created 0600, reopened on SIGHUP) [default: off].
    #[arg(long, env = "HIVESTORE_AUDIT_LOG")]
    pub audit_log: Option<String>,
    /// How audit lines are written: text (Hive's tab-separated fields) or json
    /// [default: text].
    #[arg(long, env = "HIVESTORE_AUDIT_FORMAT")]
    pub audit_format: Option<String>,
    /// Address of an HTTP listener serving GET /metrics (Prometheus text format), /health and
    /// /ready, e.g. 127.0.0.1:9090 [default: none, not served].
    #[arg(long, value_name = "ADDR:PORT", env = "HIVESTORE_METRICS_LISTEN")]
    pub metrics_listen: Option<String>,
    /// Format of the log on standard error: `text`, or `json` (one object a line: timestamp,
    /// level, target, fields); colours only in text on a terminal [default: text].
    #[arg(long, value_name = "FORMAT", env = "HIVESTORE_LOG_FORMAT")]
    pub log_format: Option<String>,
}

/// The config file's settings; all optional.
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct FileSettings {
    listen: Option<String>,
    data_dir: Option<PathBuf>,
    store: Option<String>,
    postgres_connections: Option<usize>,
    standby: Option<bool>,
    reader: Option<bool>,
    warehouse: Option<String>,
    external_roots: Option<Vec<String>>,
    max_connections: Option<usize>,
    max_message_bytes: Option<usize>,
    max_string_bytes: Option<usize>,
    max_container_elements: Option<usize>,
    idle_timeout_secs: Option<u64>,
    message_timeout_secs: Option<u64>,
    max_inflight_bytes: Option<usize>,
    worker_threads: Option<usize>,
    txn_timeout_ms: Option<u64>,
    event_ttl_secs: Option<u64>,
    event_clean_interval_secs: Option<u64>,
    size_count_interval_secs: Option<u64>,
    backup_dir: Option<PathBuf>,
    backup_interval_secs: Option<u64>,
    backup_keep: Option<usize>,
    backup_image_mb: Option<u64>,
    delegation_token_renew_interval_secs: Option<u64>,
    delegation_token_max_lifetime_secs: Option<u64>,
    delegation_key_update_interval_secs: Option<u64>,
    delegation_token_gc_interval_secs: Option<u64>,
    limit_partition_request: Option<i64>,
    cache_mb: Option<u64>,
    prewarm_mb: Option<u64>,
    disk_reserve_mb: Option<u64>,
    stats_recent_slots: Option<usize>,
    stats_fetch_sketches: Option<bool>,
    follow_write_wait_ms: Option<u64>,
    max_param_value_bytes: Option<usize>,
    max_comment_bytes: Option<usize>,
    max_type_name_bytes: Option<usize>,
    max_params_bytes: Option<usize>,
    max_stats_sketch_bytes: Option<usize>,
    handshake_timeout_secs: Option<u64>,
    tls_cert: Option<PathBuf>,
    tls_key: Option<PathBuf>,
    tls_client_ca: Option<PathBuf>,
    tls_allow_plain: Option<bool>,
    authentication: Option<String>,
    http_path: Option<String>,
    jwks_file: Option<PathBuf>,
    jwt_issuer: Option<String>,
    jwt_audience: Option<String>,
    password_file: Option<PathBuf>,
    ldap_url: Option<String>,
    ldap_base_dn: Option<String>,
    ldap_user_dn_pattern: Option<String>,
    ldap_ca: Option<PathBuf>,
    kerberos_principal: Option<String>,
    kerberos_keytab: Option<PathBuf>,
    kerberos_host: Option<String>,
    sasl_qop: Option<String>,
    auth_to_local: Option<String>,
    authorization: Option<String>,
    admin_users: Option<String>,
    admin_groups: Option<String>,
    proxy_user_users: Option<Vec<String>>,
    proxy_user_groups: Option<Vec<String>>,
    proxy_user_hosts: Option<Vec<String>>,
    group_mapping_overrides: Option<String>,
    groups_cache_secs: Option<u64>,
    audit_log: Option<String>,
    audit_format: Option<String>,
    metrics_listen: Option<String>,
    log_format: Option<String>,
}

/// The settings a server runs with, all resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct ServeConfig {
    /// Address to listen on.
    pub listen: String,
    /// Directory of the embedded store.
    pub data_dir: PathBuf,
    /// Where the catalog is stored.
    pub store: StoreLocation,
    /// Warehouse root.
    pub warehouse: String,
    /// Local directories besides the warehouse where data may be made, moved and deleted.
    pub external_roots: Vec<String>,
    /// Wire and connection limits.
    pub limits: Limits,
    /// How long a lock lives without a heartbeat.
    pub txn_timeout: std::time::Duration,
    /// How long notification events are kept.
    pub event_ttl: std::time::Duration,
    /// How often expired notification events are looked for.
    pub event_clean_interval: std::time::Duration,
    /// How often the store's live data is counted.
    pub size_count_interval: std::time::Duration,
    /// Online backups, when a directory is given.
    pub backups: Option<crate::backups::BackupSettings>,
    /// How long delegation tokens and their master keys live.
    pub delegation_tokens: TokenSettings,
    /// The most partitions one call may fetch whole (`None`: no limit).
    pub limit_partition_request: Option<u32>,
    /// The embedded store's page cache, in bytes.
    pub page_cache_bytes: u64,
    /// Column statistics read and kept at start, in bytes (0: none).
    pub prewarm_bytes: usize,
    /// Room kept free on the store's disk, in bytes (0: none).
    pub disk_reserve_bytes: u64,
    /// Recent slots a statistics chunk keeps before a write merges them into it.
    pub stats_recent_slots: usize,
    /// Whether statistics reads return sketches and histograms.
    pub stats_fetch_sketches: bool,
    /// How long a write forwarded to a followed source waits for the follower.
    pub follow_write_wait: std::time::Duration,
    /// How long stored parameter values, comments and type names may be.
    pub value_limits: ValueLimits,
    /// TLS, when served.
    pub tls: Option<TlsSettings>,
    /// How clients prove who they are.
    pub authentication: Authentication,
    /// The path of the HTTP transport, without its leading `/`.
    pub http_path: String,
    /// JWT bearer tokens on the HTTP transport, when required.
    pub jwt: Option<JwtSettings>,
    /// Where SASL PLAIN's password checks find passwords.
    pub plain: PlainSettings,
    /// Kerberos, when accepted.
    pub kerberos: Option<KerberosSettings>,
    /// Authorization: enforcement, admins, proxy users, groups.
    pub access: AccessSettings,
    /// The audit log.
    pub audit: AuditSettings,
    /// Where metrics and health are served over HTTP, when they are.
    pub metrics_listen: Option<String>,
    /// The log's format.
    pub log_format: LogFormat,
}

/// The format of the log on standard error.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LogFormat {
    /// Lines for people; coloured only on a terminal.
    #[default]
    Text,
    /// One JSON object a line, for collectors.
    Json,
}

impl LogFormat {
    /// Reads `text` or `json`.
    pub fn parse(text: &str) -> Result<LogFormat, String> {
        match text {
            "text" => Ok(LogFormat::Text),
            "json" => Ok(LogFormat::Json),
            other => Err(format!("log_format must be text or json, not {other:?}")),
        }
    }
}

impl ServeArgs {
    /// Resolves flags and environment over the config file over defaults.
    pub fn resolve(&self) -> Result<ServeConfig, String> {
        let file = match &self.config {
            Some(path) => read_file(path)?,
            None => FileSettings::default(),
        };
        let access = self.access_settings(&file)?;
        let defaults = Limits::default();
        let limits = Limits {
            message_bytes_max: pick(
                self.max_message_bytes,
                file.max_message_bytes,
                defaults.message_bytes_max,
            ),
            string_bytes_max: pick(
                self.max_string_bytes,
                file.max_string_bytes,
                defaults.string_bytes_max,
            ),
            container_elements_max: pick(
                self.max_container_elements,
                file.max_container_elements,
                defaults.container_elements_max,
            ),
            connections_max: pick(
                self.max_connections,
                file.max_connections,
                defaults.connections_max,
            ),
            idle_timeout: Duration::from_secs(pick(
                self.idle_timeout_secs,
                file.idle_timeout_secs,
                IDLE_TIMEOUT_SECS_DEFAULT,
            )),
            message_timeout: Duration::from_secs(pick(
                self.message_timeout_secs,
                file.message_timeout_secs,
                MESSAGE_TIMEOUT_SECS_DEFAULT,
            )),
            handshake_timeout: Duration::from_secs(pick(
                self.handshake_timeout_secs,
                file.handshake_timeout_secs,
                HANDSHAKE_TIMEOUT_SECS_DEFAULT,
            )),
            inflight_bytes_max: pick(
                self.max_inflight_bytes,
                file.max_inflight_bytes,
                defaults.inflight_bytes_max,
            ),
            worker_threads: pick(
                self.worker_threads,
                file.worker_threads,
                defaults.worker_threads,
            ),
        };
        limits.validate()?;
        let value_defaults = ValueLimits::default();
        let value_limits = ValueLimits {
            parameter_value_bytes_max: value_limit(
                "max_param_value_bytes",
                pick(
                    self.max_param_value_bytes,
                    file.max_param_value_bytes,
                    value_defaults.parameter_value_bytes_max,
                ),
                limits.string_bytes_max,
            )?,
            comment_bytes_max: value_limit(
                "max_comment_bytes",
                pick(
                    self.max_comment_bytes,
                    file.max_comment_bytes,
                    value_defaults.comment_bytes_max,
                ),
                limits.string_bytes_max,
            )?,
            type_name_bytes_max: value_limit(
                "max_type_name_bytes",
                pick(
                    self.max_type_name_bytes,
                    file.max_type_name_bytes,
                    value_defaults.type_name_bytes_max,
                ),
                limits.string_bytes_max,
            )?,
            parameters_bytes_max: match pick(
                self.max_params_bytes,
                file.max_params_bytes,
                value_defaults.parameters_bytes_max,
            ) {
                0 => return Err("max_params_bytes must be at least 1".to_string()),
                bytes => bytes,
            },
            stats_sketch_bytes_max: value_limit(
                "max_stats_sketch_bytes",
                pick(
                    self.max_stats_sketch_bytes,
                    file.max_stats_sketch_bytes,
                    value_defaults.stats_sketch_bytes_max,
                ),
                limits.string_bytes_max,
            )?,
        };
        let tls = tls_settings(
            self.tls_cert.clone().or(file.tls_cert),
            self.tls_key.clone().or(file.tls_key),
            self.tls_client_ca.clone().or(file.tls_client_ca),
            self.tls_allow_plain || file.tls_allow_plain.unwrap_or(false),
        )?;
        let plain = PlainSettings {
            password_file: self.password_file.clone().or(file.password_file),
            ldap: ldap_settings(
                self.ldap_url.clone().or(file.ldap_url),
                self.ldap_base_dn.clone().or(file.ldap_base_dn),
                self.ldap_user_dn_pattern
                    .clone()
                    .or(file.ldap_user_dn_pattern),
                self.ldap_ca.clone().or(file.ldap_ca),
            )?,
        };
        let kerberos = kerberos_settings(
            self.kerberos_principal.clone().or(file.kerberos_principal),
            self.kerberos_keytab.clone().or(file.kerberos_keytab),
            self.kerberos_host.clone().or(file.kerberos_host),
            self.sasl_qop.clone().or(file.sasl_qop),
            pick(
                self.auth_to_local.clone(),
                file.auth_to_local,
                AUTH_TO_LOCAL_DEFAULT.to_string(),
            ),
        )?;
        Ok(ServeConfig {
            listen: pick(self.listen.clone(), file.listen, LISTEN_DEFAULT.to_string()),
            data_dir: pick(
                self.data_dir.clone(),
                file.data_dir,
                PathBuf::from(DATA_DIR_DEFAULT),
            ),
            store: store_location(
                self.store.clone().or(file.store),
                pick(
                    self.postgres_connections,
                    file.postgres_connections,
                    POSTGRES_CONNECTIONS_DEFAULT,
                ),
                PostgresRole::of(
                    self.standby || file.standby.unwrap_or(false),
                    self.reader || file.reader.unwrap_or(false),
                )?,
            )?,
            warehouse: pick(
                self.warehouse.clone(),
                file.warehouse,
                WAREHOUSE_DEFAULT.to_string(),
            ),
            external_roots: external_roots(self.external_roots.clone(), file.external_roots)?,
            limits,
            txn_timeout: txn_timeout(pick(
                self.txn_timeout_ms,
                file.txn_timeout_ms,
                TXN_TIMEOUT_MS_DEFAULT,
            ))?,
            event_ttl: at_least_a_second(
                "event_ttl_secs",
                pick(
                    self.event_ttl_secs,
                    file.event_ttl_secs,
                    EVENT_TTL_SECS_DEFAULT,
                ),
            )?,
            event_clean_interval: at_least_a_second(
                "event_clean_interval_secs",
                pick(
                    self.event_clean_interval_secs,
                    file.event_clean_interval_secs,
                    EVENT_CLEAN_INTERVAL_SECS_DEFAULT,
                ),
            )?,
            size_count_interval: at_least_a_second(
                "size_count_interval_secs",
                pick(
                    self.size_count_interval_secs,
                    file.size_count_interval_secs,
                    crate::store_size::SIZE_COUNT_INTERVAL_SECS_DEFAULT,
                ),
            )?,
            backups: crate::backups::BackupSettings::resolve(
                self.backup_dir.clone().or(file.backup_dir),
                pick(self.backup_interval_secs, file.backup_interval_secs, 0),
                pick(
                    self.backup_keep,
                    file.backup_keep,
                    crate::backups::BACKUP_KEEP_DEFAULT,
                ),
                pick(
                    self.backup_image_mb,
                    file.backup_image_mb,
                    crate::backups::BACKUP_IMAGE_MB_DEFAULT,
                ),
            )?,
            delegation_tokens: TokenSettings {
                renew_interval: at_least_a_second(
                    "delegation_token_renew_interval_secs",
                    pick(
                        self.delegation_token_renew_interval_secs,
                        file.delegation_token_renew_interval_secs,
                        delegation::RENEW_INTERVAL_SECS_DEFAULT,
                    ),
                )?,
                max_lifetime: at_least_a_second(
                    "delegation_token_max_lifetime_secs",
                    pick(
                        self.delegation_token_max_lifetime_secs,
                        file.delegation_token_max_lifetime_secs,
                        delegation::MAX_LIFETIME_SECS_DEFAULT,
                    ),
                )?,
                key_update_interval: at_least_a_second(
                    "delegation_key_update_interval_secs",
                    pick(
                        self.delegation_key_update_interval_secs,
                        file.delegation_key_update_interval_secs,
                        delegation::KEY_UPDATE_INTERVAL_SECS_DEFAULT,
                    ),
                )?,
                gc_interval: at_least_a_second(
                    "delegation_token_gc_interval_secs",
                    pick(
                        self.delegation_token_gc_interval_secs,
                        file.delegation_token_gc_interval_secs,
                        delegation::GC_INTERVAL_SECS_DEFAULT,
                    ),
                )?,
            },
            limit_partition_request: limit_partition_request(pick(
                self.limit_partition_request,
                file.limit_partition_request,
                LIMIT_PARTITION_REQUEST_DEFAULT,
            ))?,
            page_cache_bytes: page_cache_bytes(pick(
                self.cache_mb,
                file.cache_mb,
                CACHE_MB_DEFAULT,
            ))?,
            prewarm_bytes: prewarm_bytes(pick(self.prewarm_mb, file.prewarm_mb, PREWARM_MB_MAX))?,
            disk_reserve_bytes: disk_reserve_bytes(pick(
                self.disk_reserve_mb,
                file.disk_reserve_mb,
                DISK_RESERVE_MB_DEFAULT,
            ))?,
            stats_recent_slots: stats_recent_slots(pick(
                self.stats_recent_slots,
                file.stats_recent_slots,
                STATS_RECENT_SLOTS_DEFAULT,
            ))?,
            stats_fetch_sketches: self.stats_fetch_sketches
                || file.stats_fetch_sketches.unwrap_or(false),
            follow_write_wait: follow_write_wait(pick(
                self.follow_write_wait_ms,
                file.follow_write_wait_ms,
                FOLLOW_WRITE_WAIT_MS_DEFAULT,
            ))?,
            value_limits,
            tls,
            authentication: match self.authentication.clone().or(file.authentication) {
                Some(text) => Authentication::parse(&text)?,
                None => Authentication::default(),
            },
            http_path: http_path(pick(
                self.http_path.clone(),
                file.http_path,
                HTTP_PATH_DEFAULT.to_string(),
            ))?,
            jwt: jwt_settings(
                self.jwks_file.clone().or(file.jwks_file),
                self.jwt_issuer.clone().or(file.jwt_issuer),
                self.jwt_audience.clone().or(file.jwt_audience),
            )?,
            plain,
            kerberos,
            access,
            audit: AuditSettings {
                destination: match self.audit_log.clone().or(file.audit_log) {
                    Some(text) => AuditDestination::parse(&text)?,
                    None => AuditDestination::Off,
                },
                format: match self.audit_format.clone().or(file.audit_format) {
                    Some(text) => AuditFormat::parse(&text)?,
                    None => AuditFormat::Text,
                },
            },
            metrics_listen: metrics_listen(self.metrics_listen.clone().or(file.metrics_listen))?,
            log_format: match self.log_format.clone().or(file.log_format) {
                Some(text) => LogFormat::parse(&text)?,
                None => LogFormat::Text,
            },
        })
    }

    /// The authorization settings of flags over the file's.
    fn access_settings(&self, file: &FileSettings) -> Result<AccessSettings, String> {
        let or_file = |flags: &Vec<String>, file: &Option<Vec<String>>| {
            if flags.is_empty() {
                file.clone().unwrap_or_default()
            } else {
                flags.clone()
            }
        };
        let mut settings = AccessSettings {
            enforce: match self.authorization.clone().or(file.authorization.clone()) {
                Some(text) => AccessSettings::parse_mode(&text)?,
                None => false,
            },
            admin_users: AccessSettings::parse_names(
                &self
                    .admin_users
                    .clone()
                    .or(file.admin_users.clone())
                    .unwrap_or_default(),
            ),
            admin_groups: AccessSettings::parse_names(
                &self
                    .admin_groups
                    .clone()
                    .or(file.admin_groups.clone())
                    .unwrap_or_default(),
            ),
            group_overrides: GroupMapping::parse_overrides(
                &self
                    .group_mapping_overrides
                    .clone()
                    .or(file.group_mapping_overrides.clone())
                    .unwrap_or_default(),
            )?,
            groups_cache: at_least_a_second(
                "groups cache",
                pick(
                    self.groups_cache_secs,
                    file.groups_cache_secs,
                    GROUPS_CACHE_SECS_DEFAULT,
                ),
            )?,
            ..AccessSettings::default()
        };
        let lists = [
            (
                ProxyList::Users,
                or_file(&self.proxy_user_users, &file.proxy_user_users),
            ),
            (
                ProxyList::Groups,
                or_file(&self.proxy_user_groups, &file.proxy_user_groups),
            ),
            (
                ProxyList::Hosts,
                or_file(&self.proxy_user_hosts, &file.proxy_user_hosts),
            ),
        ];
        for (list, items) in lists {
            settings.add_proxy_settings(list, &items)?;
        }
        Ok(settings)
    }
}

/// The external roots of the flags (or environment), else the file's; none is empty.
fn external_roots(flags: Vec<String>, file: Option<Vec<String>>) -> Result<Vec<String>, String> {
    let roots = if flags.is_empty() {
        file.unwrap_or_default()
    } else {
        flags
    };
    if roots.iter().any(|root| root.trim().is_empty()) {
        return Err("external_roots: a root is empty".to_string());
    }
    Ok(roots)
}

/// The HTTP path, with or without its leading `/`: one segment or more of URL path characters.
/// The metrics listener's address, if one is given: an address to bind, never empty.
fn metrics_listen(listen: Option<String>) -> Result<Option<String>, String> {
    match listen {
        Some(listen) if listen.trim().is_empty() => Err(
            "metrics_listen must be an ADDR:PORT to serve metrics on, e.g. 127.0.0.1:9090; \
             leave it out to serve none"
                .to_string(),
        ),
        listen => Ok(listen),
    }
}

fn http_path(path: String) -> Result<String, String> {
    let trimmed = path.strip_prefix('/').unwrap_or(&path);
    let allowed = |c: char| c.is_ascii_alphanumeric() || "-._~/".contains(c);
    if trimmed.is_empty() || !trimmed.chars().all(allowed) {
        return Err(format!(
            "http_path {path:?} is not a URL path (letters, digits, - . _ ~ /)"
        ));
    }
    Ok(trimmed.to_string())
}

/// JWT needs its keys; the issuer and audience only mean something with them.
fn jwt_settings(
    jwks: Option<PathBuf>,
    issuer: Option<String>,
    audience: Option<String>,
) -> Result<Option<JwtSettings>, String> {
    match jwks {
        Some(jwks) => Ok(Some(JwtSettings {
            jwks,
            issuer,
            audience,
        })),
        None if issuer.is_some() || audience.is_some() => Err(
            "jwt_issuer and jwt_audience need jwks_file, the keys tokens are signed with".into(),
        ),
        None => Ok(None),
    }
}

/// TLS is served with a certificate and its key, both or neither; the client CA and plain
/// connections only mean something with them.
fn tls_settings(
    cert: Option<PathBuf>,
    key: Option<PathBuf>,
    client_ca: Option<PathBuf>,
    allow_plain: bool,
) -> Result<Option<TlsSettings>, String> {
    match (cert, key) {
        (Some(cert), Some(key)) => Ok(Some(TlsSettings {
            cert,
            key,
            client_ca,
            allow_plain,
        })),
        (None, None) if client_ca.is_some() || allow_plain => Err(
            "tls_client_ca and tls_allow_plain need TLS: give tls_cert and tls_key too".to_string(),
        ),
        (None, None) => Ok(None),
        (Some(_), None) => Err("tls_cert needs tls_key, the certificate's private key".to_string()),
        (None, Some(_)) => Err("tls_key needs tls_cert, the key's certificate".to_string()),
    }
}

/// LDAP is served with a URL; the DN settings and the CA only mean something with one.
fn ldap_settings(
    url: Option<String>,
    base_dn: Option<String>,
    patterns: Option<String>,
    ca: Option<PathBuf>,
) -> Result<Option<LdapSettings>, String> {
    match url {
        Some(url) => LdapSettings::new(url, base_dn, patterns.as_deref(), ca).map(Some),
        None if base_dn.is_some() || patterns.is_some() || ca.is_some() => Err(
            "--ldap-base-dn, --ldap-user-dn-pattern and --ldap-ca need --ldap-url, the LDAP server"
                .to_string(),
        ),
        None => Ok(None),
    }
}

/// Kerberos is accepted with a principal and its keytab, both or neither; the host and the
/// QOP only mean something with them. The keytab and the key are checked when the server starts.
fn kerberos_settings(
    principal: Option<String>,
    keytab: Option<PathBuf>,
    host: Option<String>,
    qop: Option<String>,
    auth_to_local: String,
) -> Result<Option<KerberosSettings>, String> {
    match (principal, keytab) {
        (Some(principal), Some(keytab)) => Ok(Some(KerberosSettings {
            principal,
            host,
            keytab,
            qop: Qop::parse_list(qop.as_deref().unwrap_or("auth"))?,
            auth_to_local,
        })),
        (None, None) if host.is_some() || qop.is_some() => Err(
            "kerberos_host and sasl_qop need Kerberos: give kerberos_principal and kerberos_keytab"
                .to_string(),
        ),
        (None, None) => Ok(None),
        (Some(_), None) => {
            Err("kerberos_principal needs kerberos_keytab, the keytab with its key".to_string())
        }
        (None, Some(_)) => {
            Err("kerberos_keytab needs kerberos_principal, the service principal".to_string())
        }
    }
}

/// A value limit of 0 would refuse every value, and one over the string limit could never be
/// reached; refuse both.
fn value_limit(name: &str, bytes: usize, string_bytes_max: usize) -> Result<usize, String> {
    if !(1..=string_bytes_max).contains(&bytes) {
        return Err(format!(
            "{name} must be between 1 and max_string_bytes ({string_bytes_max}), not {bytes}"
        ));
    }
    Ok(bytes)
}

/// Hive's default `metastore.limit.partition.request`: no limit.
pub const LIMIT_PARTITION_REQUEST_DEFAULT: i64 = -1;

/// Hive takes any negative limit for none; a limit must fit a partition count.
fn limit_partition_request(limit: i64) -> Result<Option<u32>, String> {
    if limit < 0 {
        return Ok(None);
    }
    u32::try_from(limit)
        .map(Some)
        .map_err(|_| format!("limit_partition_request must be -1 or at most {}", u32::MAX))
}

/// Hive's default `metastore.txn.timeout`, 300 s.
pub const TXN_TIMEOUT_MS_DEFAULT: u64 = 300_000;

/// A zero timeout would release every lock at once; refuse it.
fn txn_timeout(milliseconds: u64) -> Result<std::time::Duration, String> {
    if milliseconds == 0 {
        return Err("txn_timeout_ms must be at least 1".to_string());
    }
    Ok(std::time::Duration::from_millis(milliseconds))
}

/// The wait of a forwarded write, within its bound.
fn follow_write_wait(milliseconds: u64) -> Result<std::time::Duration, String> {
    if milliseconds > FOLLOW_WRITE_WAIT_MS_MAX {
        return Err(format!(
            "follow_write_wait_ms {milliseconds} is out of range: at most \
             {FOLLOW_WRITE_WAIT_MS_MAX} (the 600 s Hive's clients wait for a reply)"
        ));
    }
    Ok(std::time::Duration::from_millis(milliseconds))
}

/// Hive's default `hive.metastore.event.db.listener.timetolive`, a day.
pub const EVENT_TTL_SECS_DEFAULT: u64 = 86_400;
/// How often the event cleaner runs by default. Hive's default is 7200 s; a minute keeps the
/// log closer to its time-to-live at the cost of one range read.
pub const EVENT_CLEAN_INTERVAL_SECS_DEFAULT: u64 = 60;

/// A zero duration would clean constantly or keep nothing; refuse it.
fn at_least_a_second(name: &str, seconds: u64) -> Result<std::time::Duration, String> {
    if seconds == 0 {
        return Err(format!("{name} must be at least 1"));
    }
    Ok(std::time::Duration::from_secs(seconds))
}

/// The page cache in MiB by default: the engine's default.
pub const CACHE_MB_DEFAULT: u64 = hivestore_engine::kv::PAGE_CACHE_BYTES_DEFAULT >> 20;
/// The most the page cache may be given, in MiB (1 TiB): beyond it the byte count could overflow.
const CACHE_MB_MAX: u64 = 1 << 20;

/// The most a prewarm may be given, in MiB: half of what the statistics keep, which it must
/// not overflow (the kept statistics empty themselves when they do).
pub const PREWARM_MB_MAX: u64 = (hivestore_engine::PREWARM_BYTES_MAX >> 20) as u64;

/// The prewarm budget in bytes.
fn prewarm_bytes(mebibytes: u64) -> Result<usize, String> {
    if mebibytes > PREWARM_MB_MAX {
        return Err(format!(
            "prewarm_mb must be between 0 and {PREWARM_MB_MAX} (half of the statistics kept in memory), not {mebibytes}"
        ));
    }
    Ok((mebibytes as usize) << 20)
}

/// The page cache in bytes; none at all would make every read go to the files.
fn page_cache_bytes(mebibytes: u64) -> Result<u64, String> {
    if !(1..=CACHE_MB_MAX).contains(&mebibytes) {
        return Err(format!(
            "cache_mb must be between 1 and {CACHE_MB_MAX}, not {mebibytes}"
        ));
    }
    Ok(mebibytes << 20)
}

/// The disk reserve in MiB by default: the engine's default.
pub const DISK_RESERVE_MB_DEFAULT: u64 = hivestore_engine::kv::DISK_RESERVE_BYTES_DEFAULT >> 20;
/// The most room a reserve may hold, in MiB (64 GiB): more is a typo, not a reserve.
const DISK_RESERVE_MB_MAX: u64 = 64 << 10;

/// The disk reserve in bytes; 0 keeps none.
fn disk_reserve_bytes(mebibytes: u64) -> Result<u64, String> {
    if mebibytes > DISK_RESERVE_MB_MAX {
        return Err(format!(
            "disk_reserve_mb must be between 0 and {DISK_RESERVE_MB_MAX}, not {mebibytes}"
        ));
    }
    Ok(mebibytes << 20)
}

/// Where the catalog is stored (`--store`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreLocation {
    /// The embedded store (sled) in the data directory.
    Sled,
    /// A PostgreSQL database.
    Postgres {
        /// Its URL, password included.
        url: String,
        /// Connections for reads and writes.
        connections: usize,
        /// What this server does with the database.
        role: PostgresRole,
    },
}

/// What a server does with a PostgreSQL database (`--standby`, `--reader`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PostgresRole {
    /// Serves it, the one server that writes it; refuses to start while another does.
    Serve,
    /// Waits while another server serves it, then takes it over.
    Standby,
    /// Serves reads beside the server that writes it.
    Reader,
}

impl PostgresRole {
    fn of(standby: bool, reader: bool) -> Result<PostgresRole, String> {
        match (standby, reader) {
            (false, false) => Ok(PostgresRole::Serve),
            (true, false) => Ok(PostgresRole::Standby),
            (false, true) => Ok(PostgresRole::Reader),
            (true, true) => Err(
                "standby and reader cannot be combined: a reader does not take the database \
                 over; run a standby beside the writing server for that"
                    .to_string(),
            ),
        }
    }
}

/// Connections to PostgreSQL by default (`--postgres-connections`).
pub const POSTGRES_CONNECTIONS_DEFAULT: usize = 8;
/// At most this many connections to PostgreSQL: each is a PostgreSQL backend process.
pub const POSTGRES_CONNECTIONS_MAX: usize = 256;

fn store_location(
    store: Option<String>,
    connections: usize,
    role: PostgresRole,
) -> Result<StoreLocation, String> {
    let store = store.unwrap_or_else(|| "sled".to_string());
    if store == "sled" {
        let asked = match role {
            PostgresRole::Serve => None,
            PostgresRole::Standby => Some("standby"),
            PostgresRole::Reader => Some("reader"),
        };
        if let Some(asked) = asked {
            return Err(format!(
                "{asked} needs a store on PostgreSQL (--store postgres://...): a sled store is \
                 one process's"
            ));
        }
        return Ok(StoreLocation::Sled);
    }
    if !(store.starts_with("postgres://") || store.starts_with("postgresql://")) {
        return Err(format!(
            "store must be sled or a postgres:// URL, not {}",
            store.split("://").next().unwrap_or_default()
        ));
    }
    if !(1..=POSTGRES_CONNECTIONS_MAX).contains(&connections) {
        return Err(format!(
            "postgres_connections must be between 1 and {POSTGRES_CONNECTIONS_MAX}, not {connections}"
        ));
    }
    Ok(StoreLocation::Postgres {
        url: store,
        connections,
        role,
    })
}

/// Recent slots per statistics chunk by default (`--stats-recent-slots`): none, so a write
/// rewrites its chunks as before. With 16 (the engine's `RECENT_SLOT_COUNT_MAX`) a
/// one-partition write replaces its chunks' deltas, a sixth of the bytes on average, but
/// costs 1.9 times the instructions, spent by sled logging and rewriting the leaves of
/// deltas (docs/benchmarks/storage-size.md).
pub const STATS_RECENT_SLOTS_DEFAULT: usize = 0;

/// Recent slots per statistics chunk: a chunk holds 128 partitions, so more is a typo.
fn stats_recent_slots(count: usize) -> Result<usize, String> {
    let most = hivestore_engine::stats::CHUNK_SLOT_COUNT as usize;
    if count > most {
        return Err(format!(
            "stats_recent_slots must be between 0 and {most}, not {count}"
        ));
    }
    Ok(count)
}

fn pick<T>(flag: Option<T>, file: Option<T>, default: T) -> T {
    flag.or(file).unwrap_or(default)
}

fn read_file(path: &Path) -> Result<FileSettings, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("cannot read config file {}: {error}", path.display()))?;
    toml::from_str(&text)
        .map_err(|error| format!("config file {} is not valid: {error}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_apply_when_nothing_is_given() {
        let config = ServeArgs::default().resolve().unwrap();
        assert_eq!(config.listen, LISTEN_DEFAULT);
        assert_eq!(config.data_dir, PathBuf::from(DATA_DIR_DEFAULT));
        assert_eq!(config.warehouse, WAREHOUSE_DEFAULT);
        assert_eq!(config.limits, Limits::default());
    }

    #[test]
    fn flags_win_over_the_config_file_which_wins_over_defaults() {
        let dir = std::env::temp_dir().join(format!("hivestore-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("hivestore.toml");
        std::fs::write(
            &path,
            "listen = \"127.0.0.1:1\"\nwarehouse = \"/w\"\nmax_connections = 7\n",
        )
        .unwrap();
        let args = ServeArgs {
            config: Some(path),
            listen: Some("127.0.0.1:2".into()),
            ..ServeArgs::default()
        };
        let config = args.resolve().unwrap();
        assert_eq!(config.listen, "127.0.0.1:2");
        assert_eq!(config.warehouse, "/w");
        assert_eq!(config.limits.connections_max, 7);
        assert_eq!(config.data_dir, PathBuf::from(DATA_DIR_DEFAULT));
    }

    #[test]
    fn a_forwarded_writes_wait_comes_from_flag_or_file_within_its_bound() {
        let dir = std::env::temp_dir().join(format!("hivestore-wait-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("wait.toml");
        std::fs::write(&path, "follow_write_wait_ms = 250\n").unwrap();
        let default = ServeArgs::default().resolve().unwrap();
        assert_eq!(
            default.follow_write_wait,
            std::time::Duration::from_millis(FOLLOW_WRITE_WAIT_MS_DEFAULT)
        );
        let from_file = ServeArgs {
            config: Some(path.clone()),
            ..ServeArgs::default()
        };
        let from_file = from_file.resolve().unwrap();
        assert_eq!(
            from_file.follow_write_wait,
            std::time::Duration::from_millis(250)
        );
        let at_most = ServeArgs {
            config: Some(path),
            follow_write_wait_ms: Some(FOLLOW_WRITE_WAIT_MS_MAX),
            ..ServeArgs::default()
        };
        assert_eq!(
            at_most.resolve().unwrap().follow_write_wait,
            std::time::Duration::from_secs(600)
        );
        let over = ServeArgs {
            follow_write_wait_ms: Some(FOLLOW_WRITE_WAIT_MS_MAX + 1),
            ..ServeArgs::default()
        };
        let error = over.resolve().unwrap_err();
        assert!(
            error.contains("follow_write_wait_ms 600001 is out of range"),
            "{error}"
        );
    }

    #[test]
    fn external_roots_repeat_split_at_commas_and_come_from_the_file_as_a_list() {
        #[derive(clap::Parser)]
        struct Command {
            #[command(flatten)]
            serve: ServeArgs,
        }
        let parse = |arguments: &[&str]| {
            let command = <Command as clap::Parser>::try_parse_from(
                std::iter::once("serve").chain(arguments.iter().copied()),
            );
            command.unwrap().serve.resolve()
        };
        assert!(parse(&[]).unwrap().external_roots.is_empty());
        let repeated = parse(&["--external-root", "/a", "--external-root", "/b,/c"]).unwrap();
        assert_eq!(repeated.external_roots, ["/a", "/b", "/c"]);
        let dir = std::env::temp_dir().join(format!("hivestore-roots-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("roots.toml");
        std::fs::write(&path, "external_roots = [\"/x\", \"/y,z\"]\n").unwrap();
        let config = path.display().to_string();
        let from_file = parse(&["--config", &config]).unwrap();
        assert_eq!(from_file.external_roots, ["/x", "/y,z"]);
        let flags_win = parse(&["--config", &config, "--external-root", "/f"]).unwrap();
        assert_eq!(flags_win.external_roots, ["/f"]);
        let error = parse(&["--external-root", "/a,,/b"]).unwrap_err();
        assert!(error.contains("external_roots"), "{error}");
    }

    #[test]
    fn the_store_is_sled_or_a_postgres_url_with_bounded_connections() {
        let resolve = |store: Option<&str>, connections: Option<usize>| {
            ServeArgs {
                store: store.map(str::to_string),
                postgres_connections: connections,
                ..ServeArgs::default()
            }
            .resolve()
        };
        assert_eq!(resolve(None, None).unwrap().store, StoreLocation::Sled);
        assert_eq!(
            resolve(Some("sled"), None).unwrap().store,
            StoreLocation::Sled
        );
        let url = "postgres://hive:secret@db:5432/metastore";
        assert_eq!(
            resolve(Some(url), None).unwrap().store,
            StoreLocation::Postgres {
                url: url.to_string(),
                connections: POSTGRES_CONNECTIONS_DEFAULT,
                role: PostgresRole::Serve,
            }
        );
        let standby = ServeArgs {
            store: Some(url.to_string()),
            standby: true,
            ..ServeArgs::default()
        };
        assert!(matches!(
            standby.resolve().unwrap().store,
            StoreLocation::Postgres {
                role: PostgresRole::Standby,
                ..
            }
        ));
        let error = ServeArgs {
            standby: true,
            ..ServeArgs::default()
        }
        .resolve()
        .unwrap_err();
        assert!(
            error.contains("standby needs a store on PostgreSQL"),
            "{error}"
        );
        let reader = ServeArgs {
            store: Some(url.to_string()),
            reader: true,
            ..ServeArgs::default()
        };
        assert!(matches!(
            reader.resolve().unwrap().store,
            StoreLocation::Postgres {
                role: PostgresRole::Reader,
                ..
            }
        ));
        let error = ServeArgs {
            reader: true,
            ..ServeArgs::default()
        }
        .resolve()
        .unwrap_err();
        assert!(
            error.contains("reader needs a store on PostgreSQL"),
            "{error}"
        );
        let error = ServeArgs {
            store: Some(url.to_string()),
            reader: true,
            standby: true,
            ..ServeArgs::default()
        }
        .resolve()
        .unwrap_err();
        assert!(error.contains("cannot be combined"), "{error}");
        let error = resolve(Some("mysql://hive:secret@db/metastore"), None).unwrap_err();
        assert_eq!(error, "store must be sled or a postgres:// URL, not mysql");
        assert!(!error.contains("secret"));
        let error = resolve(Some(url), Some(0)).unwrap_err();
        assert!(error.contains("postgres_connections"), "{error}");
        let too_many = POSTGRES_CONNECTIONS_MAX + 1;
        assert!(resolve(Some(url), Some(too_many)).is_err());
    }

    #[test]
    fn an_unknown_key_in_the_config_file_is_an_error_naming_it() {
        let dir = std::env::temp_dir().join(format!("hivestore-config-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.toml");
        std::fs::write(&path, "lisen = \"x\"\n").unwrap();
        let args = ServeArgs {
            config: Some(path),
            ..ServeArgs::default()
        };
        let error = args.resolve().unwrap_err();
        assert!(error.contains("lisen"), "{error}");
    }

    #[test]
    fn the_page_cache_is_given_in_mebibytes_and_never_zero() {
        let config = ServeArgs::default().resolve().unwrap();
        assert_eq!(
            config.page_cache_bytes,
            hivestore_engine::kv::PAGE_CACHE_BYTES_DEFAULT
        );
        let args = |cache_mb| ServeArgs {
            cache_mb: Some(cache_mb),
            ..ServeArgs::default()
        };
        assert_eq!(args(128).resolve().unwrap().page_cache_bytes, 128 << 20);
        assert!(args(0).resolve().unwrap_err().contains("cache_mb"));
        let reserve = |disk_reserve_mb| ServeArgs {
            disk_reserve_mb: Some(disk_reserve_mb),
            ..ServeArgs::default()
        };
        assert_eq!(reserve(0).resolve().unwrap().disk_reserve_bytes, 0);
        assert_eq!(reserve(3).resolve().unwrap().disk_reserve_bytes, 3 << 20);
        assert!(reserve(u64::MAX)
            .resolve()
            .unwrap_err()
            .contains("disk_reserve_mb"));
        assert!(args(u64::MAX).resolve().unwrap_err().contains("cache_mb"));
        let recent = |stats_recent_slots| ServeArgs {
            stats_recent_slots: Some(stats_recent_slots),
            ..ServeArgs::default()
        };
        assert_eq!(config.stats_recent_slots, STATS_RECENT_SLOTS_DEFAULT);
        assert_eq!(recent(0).resolve().unwrap().stats_recent_slots, 0);
        assert_eq!(recent(128).resolve().unwrap().stats_recent_slots, 128);
        assert!(recent(129)
            .resolve()
            .unwrap_err()
            .contains("stats_recent_slots"));
    }

    #[test]
    fn the_http_path_and_jwt_settings_come_from_flags_or_the_file() {
        let none = ServeArgs::default().resolve().unwrap();
        assert_eq!((none.http_path.as_str(), none.jwt), ("metastore", None));
        let path = |path: &str| {
            ServeArgs {
                http_path: Some(path.into()),
                ..ServeArgs::default()
            }
            .resolve()
            .map(|config| config.http_path)
        };
        assert_eq!(path("/hms/v1"), Ok("hms/v1".to_string()));
        assert!(path("/").unwrap_err().contains("http_path"));
        assert!(path("a b?").unwrap_err().contains("http_path"));
        let issuer_alone = ServeArgs {
            jwt_issuer: Some("https://idp".into()),
            ..ServeArgs::default()
        };
        assert!(issuer_alone.resolve().unwrap_err().contains("jwks_file"));
        let dir = std::env::temp_dir().join(format!("hivestore-config-jwt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("jwt.toml");
        std::fs::write(
            &file,
            "jwks_file = \"/k.json\"\njwt_audience = \"hms\"\nhttp_path = \"thrift\"\n",
        )
        .unwrap();
        let config = ServeArgs {
            config: Some(file),
            jwt_issuer: Some("https://idp".into()),
            ..ServeArgs::default()
        }
        .resolve()
        .unwrap();
        assert_eq!(config.http_path, "thrift");
        assert_eq!(
            config.jwt,
            Some(JwtSettings {
                jwks: "/k.json".into(),
                issuer: Some("https://idp".into()),
                audience: Some("hms".into()),
            })
        );
    }

    #[test]
    fn the_audit_log_is_off_unless_named_and_comes_from_flags_or_the_file() {
        assert_eq!(
            ServeArgs::default().resolve().unwrap().audit,
            AuditSettings::default()
        );
        let dir =
            std::env::temp_dir().join(format!("hivestore-config-audit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("audit.toml");
        std::fs::write(
            &path,
            "audit_log = \"/var/log/a.log\"\naudit_format = \"json\"\n",
        )
        .unwrap();
        let from_file = ServeArgs {
            config: Some(path.clone()),
            ..ServeArgs::default()
        };
        assert_eq!(
            from_file.resolve().unwrap().audit,
            AuditSettings {
                destination: AuditDestination::File("/var/log/a.log".into()),
                format: AuditFormat::Json,
            }
        );
        let flags_win = ServeArgs {
            config: Some(path),
            audit_log: Some("stderr".to_string()),
            audit_format: Some("text".to_string()),
            ..ServeArgs::default()
        };
        assert_eq!(
            flags_win.resolve().unwrap().audit,
            AuditSettings {
                destination: AuditDestination::Stderr,
                format: AuditFormat::Text,
            }
        );
        let bad_format = ServeArgs {
            audit_format: Some("xml".to_string()),
            ..ServeArgs::default()
        };
        assert!(bad_format.resolve().unwrap_err().contains("audit_format"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn kerberos_needs_a_principal_and_its_keytab_and_reads_both_from_the_file() {
        assert_eq!(ServeArgs::default().resolve().unwrap().kerberos, None);
        let principal_only = ServeArgs {
            kerberos_principal: Some("hive/_HOST@R".to_string()),
            ..ServeArgs::default()
        };
        assert!(principal_only
            .resolve()
            .unwrap_err()
            .contains("needs kerberos_keytab"));
        let qop_alone = ServeArgs {
            sasl_qop: Some("auth-conf".to_string()),
            ..ServeArgs::default()
        };
        assert!(qop_alone.resolve().unwrap_err().contains("need Kerberos"));
        let bad_qop = ServeArgs {
            kerberos_principal: Some("hive/_HOST@R".to_string()),
            kerberos_keytab: Some("hive.keytab".into()),
            sasl_qop: Some("auth,secret".to_string()),
            ..ServeArgs::default()
        };
        assert!(bad_qop
            .resolve()
            .unwrap_err()
            .contains("\"secret\" is not auth"));
        let dir = std::env::temp_dir().join(format!("hivestore-config-krb-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("krb.toml");
        std::fs::write(
            &path,
            "kerberos_principal = \"hive/_HOST@R\"\nkerberos_keytab = \"a.keytab\"\n\
             sasl_qop = \"privacy,authentication\"\nauth_to_local = \"RULE:[1:$1]\"\n",
        )
        .unwrap();
        let from_file = ServeArgs {
            config: Some(path),
            kerberos_host: Some("db1".to_string()),
            ..ServeArgs::default()
        };
        assert_eq!(
            from_file.resolve().unwrap().kerberos,
            Some(KerberosSettings {
                principal: "hive/_HOST@R".to_string(),
                host: Some("db1".to_string()),
                keytab: "a.keytab".into(),
                qop: vec![Qop::AuthConf, Qop::Auth],
                auth_to_local: "RULE:[1:$1]".to_string(),
            })
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn tls_needs_a_certificate_and_its_key_and_reads_both_from_the_file() {
        let none = ServeArgs::default().resolve().unwrap();
        assert_eq!(none.tls, None);
        assert_eq!(none.limits.handshake_timeout, Duration::from_secs(10));
        let cert_only = ServeArgs {
            tls_cert: Some("server.pem".into()),
            ..ServeArgs::default()
        };
        assert!(cert_only.resolve().unwrap_err().contains("tls_key"));
        let plain_without_tls = ServeArgs {
            tls_allow_plain: true,
            ..ServeArgs::default()
        };
        assert!(plain_without_tls
            .resolve()
            .unwrap_err()
            .contains("need TLS"));
        let dir = std::env::temp_dir().join(format!("hivestore-config-tls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("tls.toml");
        std::fs::write(
            &path,
            "tls_cert = \"a.pem\"\ntls_key = \"a.key\"\ntls_allow_plain = true\nhandshake_timeout_secs = 3\n",
        )
        .unwrap();
        let from_file = ServeArgs {
            config: Some(path),
            tls_key: Some("b.key".into()),
            ..ServeArgs::default()
        }
        .resolve()
        .unwrap();
        assert_eq!(
            from_file.tls,
            Some(TlsSettings {
                cert: "a.pem".into(),
                key: "b.key".into(),
                client_ca: None,
                allow_plain: true,
            })
        );
        assert_eq!(from_file.limits.handshake_timeout, Duration::from_secs(3));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn authorization_settings_come_from_flags_or_the_file() {
        let defaults = ServeArgs::default().resolve().unwrap().access;
        assert!(!defaults.enforce);
        assert!(defaults.admin_users.is_empty());
        assert_eq!(
            defaults.groups_cache,
            Duration::from_secs(GROUPS_CACHE_SECS_DEFAULT)
        );
        let dir =
            std::env::temp_dir().join(format!("hivestore-config-access-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("access.toml");
        std::fs::write(
            &path,
            "authorization = \"enforce\"\nadmin_users = \"root,hive\"\n\
             proxy_user_users = [\"hive=*\"]\nproxy_user_hosts = [\"hive=127.0.0.1\"]\n\
             group_mapping_overrides = \"alice=etl\"\ngroups_cache_secs = 60\n",
        )
        .unwrap();
        let access = ServeArgs {
            config: Some(path.clone()),
            admin_groups: Some("wheel".into()),
            proxy_user_hosts: vec!["hive=10.0.0.0/8".into()],
            ..ServeArgs::default()
        }
        .resolve()
        .unwrap()
        .access;
        assert!(access.enforce);
        assert_eq!(access.admin_users.len(), 2);
        assert!(access.admin_groups.contains("wheel"));
        assert_eq!(access.group_overrides["alice"], ["etl"]);
        assert_eq!(access.groups_cache, Duration::from_secs(60));
        let loopback = "127.0.0.1".parse().unwrap();
        let inside = "10.2.3.4".parse().unwrap();
        // The flag's hosts replace the file's.
        assert!(access
            .proxy_users
            .authorize("hive", loopback, "bob", &[])
            .is_err());
        assert_eq!(
            access.proxy_users.authorize("hive", inside, "bob", &[]),
            Ok(())
        );
        let bad = ServeArgs {
            authorization: Some("strict".into()),
            ..ServeArgs::default()
        };
        assert!(bad.resolve().unwrap_err().contains("none, enforce"));
        let bad = ServeArgs {
            proxy_user_users: vec!["hive".into()],
            ..ServeArgs::default()
        };
        assert!(bad.resolve().unwrap_err().contains("SUPERUSER=ITEM"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn password_settings_come_from_flags_or_the_file_and_ldap_ones_need_a_url() {
        assert_eq!(
            ServeArgs::default().resolve().unwrap().plain,
            PlainSettings::default()
        );
        let dir =
            std::env::temp_dir().join(format!("hivestore-config-plain-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("plain.toml");
        std::fs::write(
            &path,
            "password_file = \"users.txt\"\nldap_url = \"ldap://127.0.0.1:1389\"\n\
             ldap_user_dn_pattern = \"uid=%s,ou=a:uid=%s,ou=b\"\n",
        )
        .unwrap();
        let plain = ServeArgs {
            config: Some(path),
            ldap_base_dn: Some("dc=example".into()),
            ..ServeArgs::default()
        }
        .resolve()
        .unwrap()
        .plain;
        assert_eq!(plain.password_file, Some(PathBuf::from("users.txt")));
        let ldap = plain.ldap.unwrap();
        assert_eq!(ldap.url, "ldap://127.0.0.1:1389");
        assert_eq!(ldap.base_dn.as_deref(), Some("dc=example"));
        assert_eq!(ldap.user_dn_patterns, ["uid=%s,ou=a", "uid=%s,ou=b"]);
        let without_url = ServeArgs {
            ldap_base_dn: Some("dc=example".into()),
            ..ServeArgs::default()
        };
        assert!(without_url
            .resolve()
            .unwrap_err()
            .contains("need --ldap-url"));
        let without_dn = ServeArgs {
            ldap_url: Some("ldap://127.0.0.1".into()),
            ..ServeArgs::default()
        };
        assert!(without_dn
            .resolve()
            .unwrap_err()
            .contains("--ldap-base-dn or --ldap-user-dn-pattern"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_prewarm_is_given_in_mebibytes_up_to_half_the_kept_statistics() {
        let config = ServeArgs::default().resolve().unwrap();
        assert_eq!(config.prewarm_bytes, hivestore_engine::PREWARM_BYTES_MAX);
        let args = |prewarm_mb| ServeArgs {
            prewarm_mb: Some(prewarm_mb),
            ..ServeArgs::default()
        };
        assert_eq!(args(0).resolve().unwrap().prewarm_bytes, 0);
        assert_eq!(args(16).resolve().unwrap().prewarm_bytes, 16 << 20);
        let error = args(PREWARM_MB_MAX + 1).resolve().unwrap_err();
        assert!(error.contains("prewarm_mb"), "{error}");
    }

    #[test]
    fn timeouts_and_the_inflight_budget_come_from_flags_or_the_file() {
        let dir =
            std::env::temp_dir().join(format!("hivestore-config-conns-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("conns.toml");
        std::fs::write(
            &path,
            "idle_timeout_secs = 30\nmessage_timeout_secs = 5\nmax_inflight_bytes = 209715200\n\
             worker_threads = 3\n",
        )
        .unwrap();
        let from_file = ServeArgs {
            config: Some(path.clone()),
            ..ServeArgs::default()
        };
        let limits = from_file.resolve().unwrap().limits;
        assert_eq!(limits.idle_timeout, Duration::from_secs(30));
        assert_eq!(limits.message_timeout, Duration::from_secs(5));
        assert_eq!(limits.inflight_bytes_max, 200 << 20);
        assert_eq!(limits.worker_threads, 3);
        let flags = ServeArgs {
            config: Some(path),
            idle_timeout_secs: Some(2),
            message_timeout_secs: Some(1),
            ..ServeArgs::default()
        };
        let limits = flags.resolve().unwrap().limits;
        assert_eq!(limits.idle_timeout, Duration::from_secs(2));
        assert_eq!(limits.message_timeout, Duration::from_secs(1));
        let defaults = ServeArgs::default().resolve().unwrap().limits;
        assert_eq!(defaults.idle_timeout, Duration::from_secs(600));
        assert_eq!(defaults.message_timeout, Duration::from_secs(120));
        assert_eq!(defaults.inflight_bytes_max, 1 << 30);
        assert_eq!(defaults.worker_threads, 16);
        let zero = ServeArgs {
            idle_timeout_secs: Some(0),
            ..ServeArgs::default()
        };
        assert!(zero.resolve().unwrap_err().contains("timeout"));
        let no_workers = ServeArgs {
            worker_threads: Some(0),
            ..ServeArgs::default()
        };
        assert!(no_workers.resolve().unwrap_err().contains("worker"));
    }

    #[test]
    fn value_limits_come_from_flags_environment_or_file() {
        let config = ServeArgs::default().resolve().unwrap();
        assert_eq!(config.value_limits, ValueLimits::default());
        assert_eq!(config.value_limits.parameter_value_bytes_max, 32_672);
        let dir = std::env::temp_dir().join(format!("hivestore-config-v-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("values.toml");
        std::fs::write(
            &path,
            "max_param_value_bytes = 100\nmax_comment_bytes = 7\n",
        )
        .unwrap();
        let args = ServeArgs {
            config: Some(path),
            max_comment_bytes: Some(9),
            max_type_name_bytes: Some(11),
            max_params_bytes: Some(13),
            max_stats_sketch_bytes: Some(17),
            ..ServeArgs::default()
        };
        let limits = args.resolve().unwrap().value_limits;
        assert_eq!(limits.parameters_bytes_max, 13);
        assert_eq!(limits.stats_sketch_bytes_max, 17);
        assert_eq!(limits.parameter_value_bytes_max, 100);
        assert_eq!(limits.comment_bytes_max, 9);
        assert_eq!(limits.type_name_bytes_max, 11);
        let zero = ServeArgs {
            max_param_value_bytes: Some(0),
            ..ServeArgs::default()
        };
        assert!(zero
            .resolve()
            .unwrap_err()
            .contains("max_param_value_bytes"));
        let zero_total = ServeArgs {
            max_params_bytes: Some(0),
            ..ServeArgs::default()
        };
        assert!(zero_total
            .resolve()
            .unwrap_err()
            .contains("max_params_bytes"));
        let zero_sketch = ServeArgs {
            max_stats_sketch_bytes: Some(0),
            ..ServeArgs::default()
        };
        assert!(zero_sketch
            .resolve()
            .unwrap_err()
            .contains("max_stats_sketch_bytes"));
    }

    #[test]
    fn a_negative_partition_request_limit_is_none() {
        let limit = |value| {
            let args = ServeArgs {
                limit_partition_request: value,
                ..ServeArgs::default()
            };
            args.resolve().map(|config| config.limit_partition_request)
        };
        assert_eq!(limit(None), Ok(None));
        assert_eq!(limit(Some(-1)), Ok(None));
        assert_eq!(limit(Some(-7)), Ok(None));
        assert_eq!(limit(Some(0)), Ok(Some(0)));
        assert_eq!(limit(Some(1000)), Ok(Some(1000)));
        assert!(limit(Some(i64::MAX))
            .unwrap_err()
            .contains("limit_partition_request"));
    }

    #[test]
    fn a_zero_connection_cap_is_refused() {
        let args = ServeArgs {
            max_connections: Some(0),
            ..ServeArgs::default()
        };
        assert!(args.resolve().unwrap_err().contains("connections"));
    }

    #[test]
    fn metrics_and_the_log_format_come_from_flags_or_the_file() {
        let defaults = ServeArgs::default().resolve().unwrap();
        assert_eq!(defaults.metrics_listen, None);
        assert_eq!(defaults.log_format, LogFormat::Text);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hivestore.toml");
        std::fs::write(
            &path,
            "metrics_listen = \"127.0.0.1:9\"\nlog_format = \"json\"\n",
        )
        .unwrap();
        let from_file = ServeArgs {
            config: Some(path.clone()),
            ..ServeArgs::default()
        };
        let config = from_file.resolve().unwrap();
        assert_eq!(config.metrics_listen.as_deref(), Some("127.0.0.1:9"));
        assert_eq!(config.log_format, LogFormat::Json);
        let flags = ServeArgs {
            config: Some(path),
            metrics_listen: Some("127.0.0.1:10".into()),
            log_format: Some("text".into()),
            ..ServeArgs::default()
        };
        let config = flags.resolve().unwrap();
        assert_eq!(config.metrics_listen.as_deref(), Some("127.0.0.1:10"));
        assert_eq!(config.log_format, LogFormat::Text);
        for (args, named) in [
            (
                ServeArgs {
                    log_format: Some("xml".into()),
                    ..ServeArgs::default()
                },
                "log_format",
            ),
            (
                ServeArgs {
                    metrics_listen: Some(" ".into()),
                    ..ServeArgs::default()
                },
                "metrics_listen",
            ),
        ] {
            let error = args.resolve().unwrap_err();
            assert!(error.contains(named), "{error}");
        }
    }
}
