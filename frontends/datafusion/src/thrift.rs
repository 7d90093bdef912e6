//! Any Hive Metastore over Thrift as a metadata source: binary protocol, buffered
//! transport, and only calls that Hive 2.3 and Hive 4 both answer.

use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use datafusion::error::{DataFusionError, Result};
use hivestore_idl::hive_metastore::{
    ColumnStatisticsData, ColumnStatisticsObj, FieldSchema, NoSuchObjectException, Partition,
    PartitionsStatsRequest, TThriftHiveMetastoreSyncClient, Table, TableStatsRequest,
    ThriftHiveMetastoreSyncClient,
};
use thrift::protocol::{TBinaryInputProtocol, TBinaryOutputProtocol};
use thrift::transport::{TBufferedReadTransport, TBufferedWriteTransport};

use crate::source::{
    ColumnSummary, HiveColumn, HivePartitionInfo, HiveTableInfo, MetadataSource, StatsBound,
};
use crate::statistics::unscaled_from_bytes;

/// How long connecting may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one call may take by default before the connection is given up
/// ([`ThriftSource::with_call_timeout`]): listing 100k partitions takes seconds.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(120);
/// `max_parts` of Hive's listings: every partition.
const ALL_PARTITIONS: i16 = -1;

type Client = ThriftHiveMetastoreSyncClient<
    TBinaryInputProtocol<TBufferedReadTransport<TcpStream>>,
    TBinaryOutputProtocol<TBufferedWriteTransport<TcpStream>>,
>;

/// A Hive Metastore at `host:port`, over one connection that calls take in turn; it is
/// opened on the first call and again after a call fails.
#[derive(Debug)]
pub struct ThriftSource {
    address: String,
    call_timeout: Duration,
    client: Mutex<Option<ClientSlot>>,
}

/// The connection, in a type that can say `Debug`.
struct ClientSlot(Client);

impl std::fmt::Debug for ClientSlot {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("connected")
    }
}

impl ThriftSource {
    /// The metastore listening at `address` (`host:port`, or `thrift://host:port` as Hive's
    /// `hive.metastore.uris` says it). Nothing is connected until the first call.
    pub fn new(address: &str) -> Self {
        let address = address.trim().trim_start_matches("thrift://");
        ThriftSource {
            address: address.trim_end_matches('/').to_string(),
            call_timeout: CALL_TIMEOUT,
            client: Mutex::new(None),
        }
    }

    /// The same source with calls allowed `call_timeout` instead of [`CALL_TIMEOUT`].
    pub fn with_call_timeout(self, call_timeout: Duration) -> Self {
        ThriftSource {
            call_timeout,
            ..self
        }
    }

    fn socket_address(&self) -> std::io::Result<SocketAddr> {
        self.address.to_socket_addrs()?.next().ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::NotFound, "resolves to no address")
        })
    }

    fn connect(&self) -> std::io::Result<Client> {
        let stream = TcpStream::connect_timeout(&self.socket_address()?, CONNECT_TIMEOUT)?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(self.call_timeout))?;
        stream.set_write_timeout(Some(self.call_timeout))?;
        let input =
            TBinaryInputProtocol::new(TBufferedReadTransport::new(stream.try_clone()?), true);
        let output = TBinaryOutputProtocol::new(TBufferedWriteTransport::new(stream), true);
        Ok(ThriftHiveMetastoreSyncClient::new(input, output))
    }

    /// Runs `call` on the connection, opening it first if needed; a failed call drops the
    /// connection, whose stream may hold half a reply.
    fn call<T>(
        &self,
        what: &str,
        call: impl FnOnce(&mut Client) -> thrift::Result<T>,
    ) -> Result<std::result::Result<T, thrift::Error>> {
        let mut slot = self.lock();
        if slot.is_none() {
            let client = self.connect().map_err(|error| {
                DataFusionError::External(
                    format!(
                        "cannot connect to the metastore at {}: {error}",
                        self.address
                    )
                    .into(),
                )
            })?;
            *slot = Some(ClientSlot(client));
        }
        let Some(ClientSlot(client)) = slot.as_mut() else {
            unreachable!("connected above");
        };
        let answer = call(client);
        if let Err(error) = &answer {
            if !matches!(error, thrift::Error::User(_)) {
                *slot = None;
                return Err(DataFusionError::External(
                    format!(
                        "{what} on the metastore at {} failed: {error}",
                        self.address
                    )
                    .into(),
                ));
            }
        }
        Ok(answer)
    }

    /// Like [`Self::call`], every error (Hive's exceptions too) an error.
    fn call_ok<T>(
        &self,
        what: &str,
        call: impl FnOnce(&mut Client) -> thrift::Result<T>,
    ) -> Result<T> {
        self.call(what, call)?
            .map_err(|error| DataFusionError::External(format!("{what} failed: {error}").into()))
    }

    fn lock(&self) -> MutexGuard<'_, Option<ClientSlot>> {
        // A panic while holding the lock leaves at worst a half-used connection: drop it.
        self.client.lock().unwrap_or_else(|poisoned| {
            let mut guard = poisoned.into_inner();
            *guard = None;
            guard
        })
    }
}

impl MetadataSource for ThriftSource {
    fn databases(&self) -> Result<Vec<String>> {
        self.call_ok("get_all_databases", |client| client.get_all_databases())
    }

    fn tables(&self, database: &str) -> Result<Vec<String>> {
        self.call_ok("get_all_tables", |client| {
            client.get_all_tables(database.to_string())
        })
    }

    fn table(&self, database: &str, name: &str) -> Result<Option<HiveTableInfo>> {
        let answer = self.call("get_table", |client| {
            client.get_table(database.to_string(), name.to_string())
        })?;
        match answer {
            Ok(table) => Ok(Some(table_info(table))),
            Err(thrift::Error::User(error)) if error.is::<NoSuchObjectException>() => Ok(None),
            Err(error) => Err(DataFusionError::External(
                format!("get_table({database}.{name}) failed: {error}").into(),
            )),
        }
    }

    fn partitions(
        &self,
        database: &str,
        name: &str,
        filter: Option<&str>,
    ) -> Result<Vec<HivePartitionInfo>> {
        let (database, name) = (database.to_string(), name.to_string());
        let partitions = match filter {
            Some(filter) => self.call_ok("get_partitions_by_filter", |client| {
                client.get_partitions_by_filter(database, name, filter.to_string(), ALL_PARTITIONS)
            })?,
            None => self.call_ok("get_partitions", |client| {
                client.get_partitions(database, name, ALL_PARTITIONS)
            })?,
        };
        Ok(partitions.into_iter().map(partition_info).collect())
    }

    fn statistics(
        &self,
        database: &str,
        name: &str,
        partitions: Option<&[String]>,
        columns: &[String],
    ) -> Result<Vec<ColumnSummary>> {
        let (database, name, columns) = (database.to_string(), name.to_string(), columns.to_vec());
        let found = match partitions {
            None => {
                let request = TableStatsRequest::new(
                    database,
                    name,
                    columns,
                    None::<String>,
                    None::<String>,
                    None::<String>,
                    None::<i64>,
                );
                self.call_ok("get_table_statistics_req", |client| {
                    client.get_table_statistics_req(request)
                })?
                .table_stats
            }
            Some(names) => {
                let request = PartitionsStatsRequest::new(
                    database,
                    name,
                    columns,
                    names.to_vec(),
                    None::<String>,
                    None::<String>,
                    None::<String>,
                );
                self.call_ok("get_aggr_stats_for", |client| {
                    client.get_aggr_stats_for(request)
                })?
                .col_stats
            }
        };
        Ok(found.iter().map(summary).collect())
    }
}

fn columns(fields: Option<Vec<FieldSchema>>) -> Vec<HiveColumn> {
    fields
        .unwrap_or_default()
        .into_iter()
        .map(|field| HiveColumn {
            name: field.name.unwrap_or_default().to_lowercase(),
            type_name: field.type_.unwrap_or_default(),
        })
        .collect()
}

fn table_info(table: Table) -> HiveTableInfo {
    let sd = table.sd.unwrap_or_default();
    HiveTableInfo {
        database: table.db_name.unwrap_or_default(),
        name: table.table_name.unwrap_or_default(),
        table_type: table.table_type.unwrap_or_default(),
        columns: columns(sd.cols),
        partition_keys: columns(table.partition_keys),
        location: sd.location,
        input_format: sd.input_format,
        serde: sd.serde_info.and_then(|serde| serde.serialization_lib),
        parameters: table.parameters.unwrap_or_default(),
    }
}

fn partition_info(partition: Partition) -> HivePartitionInfo {
    HivePartitionInfo {
        values: partition.values.unwrap_or_default(),
        location: partition.sd.and_then(|sd| sd.location),
        parameters: partition.parameters.unwrap_or_default(),
    }
}

fn count(value: i64) -> Option<u64> {
    u64::try_from(value).ok()
}

fn summary(statistics: &ColumnStatisticsObj) -> ColumnSummary {
    let mut summary = ColumnSummary {
        column: statistics.col_name.to_lowercase(),
        ..ColumnSummary::default()
    };
    let integer = |value: Option<i64>| value.map(StatsBound::Integer);
    match &statistics.stats_data {
        ColumnStatisticsData::BooleanStats(data) => summary.null_count = count(data.num_nulls),
        ColumnStatisticsData::BinaryStats(data) => summary.null_count = count(data.num_nulls),
        ColumnStatisticsData::StringStats(data) => {
            summary.null_count = count(data.num_nulls);
            summary.distinct_count = count(data.num_d_vs);
        }
        ColumnStatisticsData::LongStats(data) => {
            summary.null_count = count(data.num_nulls);
            summary.distinct_count = count(data.num_d_vs);
            summary.min = integer(data.low_value);
            summary.max = integer(data.high_value);
        }
        ColumnStatisticsData::DoubleStats(data) => {
            summary.null_count = count(data.num_nulls);
            summary.distinct_count = count(data.num_d_vs);
            summary.min = data.low_value.map(|value| StatsBound::Double(value.0));
            summary.max = data.high_value.map(|value| StatsBound::Double(value.0));
        }
        ColumnStatisticsData::DecimalStats(data) => {
            summary.null_count = count(data.num_nulls);
            summary.distinct_count = count(data.num_d_vs);
            let decimal = |value: &hivestore_idl::hive_metastore::Decimal| {
                Some(StatsBound::Decimal {
                    unscaled: unscaled_from_bytes(&value.unscaled)?,
                    scale: value.scale,
                })
            };
            summary.min = data.low_value.as_ref().and_then(decimal);
            summary.max = data.high_value.as_ref().and_then(decimal);
        }
        ColumnStatisticsData::DateStats(data) => {
            summary.null_count = count(data.num_nulls);
            summary.distinct_count = count(data.num_d_vs);
            summary.min = integer(data.low_value.as_ref().map(|date| date.days_since_epoch));
            summary.max = integer(data.high_value.as_ref().map(|date| date.days_since_epoch));
        }
        ColumnStatisticsData::TimestampStats(data) => {
            summary.null_count = count(data.num_nulls);
            summary.distinct_count = count(data.num_d_vs);
            let seconds = |value: Option<&hivestore_idl::hive_metastore::Timestamp>| {
                integer(value.map(|timestamp| timestamp.seconds_since_epoch))
            };
            summary.min = seconds(data.low_value.as_ref());
            summary.max = seconds(data.high_value.as_ref());
        }
    }
    summary
}
