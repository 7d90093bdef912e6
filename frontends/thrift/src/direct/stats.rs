//! `get_partitions_statistics_req` written from the engine's statistics: no IDL struct per
//! statistic. The engine part is `calls::stats::partitions_statistics`, shared with the
//! generic path (`calls::stats::get_partitions_req`): its errors are answered here as that
//! path answers them, and the generic path answers what this declines.

use hivestore_idl::hive_metastore::ThriftHiveMetastoreGetPartitionsStatisticsReqArgs as Args;
use thrift::protocol::{TInputProtocol, TType};

use super::wire::Encoder;
use super::{stats_encode, write_failure, write_success, Answer};
use crate::calls::stats::{partitions_statistics, PartitionsStatistics};
use crate::service::Session;

/// `get_partitions_statistics_req(PartitionsStatsRequest)`: a `PartitionsStatsResult`.
pub(super) fn get_partitions_statistics_req(
    sequence: i32,
    input: &mut dyn TInputProtocol,
    output: &mut Encoder<'_>,
    session: &Session,
) -> thrift::Result<Answer> {
    let Ok(Args { request }) = Args::read_from_in_protocol(input) else {
        return Ok(Answer::Declined);
    };
    let method = "get_partitions_statistics_req";
    let found = match partitions_statistics(session, &request) {
        Ok(found) => found,
        Err(error) => return write_failure(output, method, sequence, &error),
    };
    output.reserve(size_hint(&found));
    write_success(output, method, sequence, |o| result(o, &found))?;
    Ok(Answer::Written)
}

/// A `PartitionsStatsResult`: partStats (1), then isStatsCompliant (2) when set.
fn result(o: &mut Encoder<'_>, found: &PartitionsStatistics) -> thrift::Result<()> {
    o.struct_begin();
    o.field(TType::Map, 1);
    o.map_begin(TType::String, TType::List, found.by_partition.len())?;
    for (name, stats) in &found.by_partition {
        o.string(name);
        o.list_begin(TType::Struct, stats.len())?;
        for column in stats {
            stats_encode::column_statistics(o, column);
        }
    }
    if let Some(compliant) = found.is_stats_compliant {
        o.bool_field(2, compliant);
    }
    o.struct_end();
    Ok(())
}

/// About the bytes of the reply, message header aside.
fn size_hint(found: &PartitionsStatistics) -> usize {
    let partitions = found.by_partition.iter().map(|(name, stats)| {
        let columns: usize = stats.iter().map(stats_encode::size_hint).sum();
        name.len() + 16 + columns
    });
    64 + partitions.sum::<usize>()
}
