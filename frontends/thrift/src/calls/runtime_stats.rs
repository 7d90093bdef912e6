//! Runtime statistics: `add_runtime_stats` stores an entry stamped with the server's time
//! (Hive's `MRuntimeStat.fromThrift` ignores the client's `createTime`), `get_runtime_stats`
//! answers the newest entries up to the weight asked, as Hive 4's `ObjectStore` does.

use hivestore_idl::hive_metastore as idl;

use crate::access::{Need, Target};
use crate::errors::{to_thrift, Declared};
use crate::service::Session;

/// What both calls declare.
const DECLARED: &[Declared] = &[Declared::Meta];

/// `add_runtime_stats`.
pub fn add(session: &Session, stat: idl::RuntimeStat) -> thrift::Result<()> {
    session.authorize(Need::Anyone, Target::Server)?;
    session
        .store()
        .add_runtime_stat(stat.weight, stat.payload)
        .map_err(|error| to_thrift(error, DECLARED))
}

/// `get_runtime_stats`: newest first, created before `maxCreateTime` when it is positive,
/// until the weights reach `maxWeight` (all when negative).
pub fn get(
    session: &Session,
    request: idl::GetRuntimeStatsRequest,
) -> thrift::Result<Vec<idl::RuntimeStat>> {
    session.authorize(Need::Anyone, Target::Server)?;
    let stats = session
        .store()
        .runtime_stats(request.max_weight, request.max_create_time)
        .map_err(|error| to_thrift(error, DECLARED))?;
    Ok(stats
        .into_iter()
        .map(|stat| idl::RuntimeStat {
            create_time: Some(stat.create_time),
            weight: stat.weight,
            payload: stat.payload,
        })
        .collect())
}
