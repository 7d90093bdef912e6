//! Replication: `add_replication_metrics` and `get_replication_metrics` as Hive 4's
//! `ObjectStore` keeps `REPLICATION_METRICS`, and `cm_recycle` as Hive 4 answers it with its
//! default `hive.repl.cm.enabled=false`: its change manager is off, so nothing is moved
//! (`ReplChangeManager.recycle` returns at once) and the answer is empty.

use hivestore_engine::{ReplicationMetricsQuery, ReplicationMetricsReport};
use hivestore_idl::hive_metastore as idl;
use thrift::{ApplicationError, ApplicationErrorKind};

use crate::access::{Need, Target};
use crate::errors::{to_thrift, Declared};
use crate::service::Session;

/// What the three calls declare.
const DECLARED: &[Declared] = &[Declared::Meta];

/// `add_replication_metrics`: creates or updates each execution's entry.
pub fn add_metrics(session: &Session, metrics: idl::ReplicationMetricList) -> thrift::Result<()> {
    session.authorize(Need::Admin, Target::Server)?;
    let reports = metrics
        .replication_metric_list
        .into_iter()
        .map(|metric| ReplicationMetricsReport {
            scheduled_execution_id: metric.scheduled_execution_id,
            policy: metric.policy,
            dump_execution_id: metric.dump_execution_id,
            metadata: metric.metadata,
            progress: metric.progress,
            message_format: metric.message_format,
        })
        .collect();
    session
        .store()
        .add_replication_metrics(reports)
        .map_err(|error| to_thrift(error, DECLARED))
}

/// `get_replication_metrics`: by `policy` when it is set, else by `scheduledExecutionId`,
/// highest execution id first. A request that sets neither gets no result from Hive (its
/// store answers null), which its clients raise as `MISSING_RESULT`; so does hivestore's.
pub fn get_metrics(
    session: &Session,
    request: idl::GetReplicationMetricsRequest,
) -> thrift::Result<idl::ReplicationMetricList> {
    session.authorize(Need::Anyone, Target::Server)?;
    let query = match (request.policy, request.scheduled_execution_id) {
        (Some(policy), _) => ReplicationMetricsQuery::Policy(policy),
        (None, Some(id)) => ReplicationMetricsQuery::Execution(id),
        (None, None) => {
            return Err(thrift::Error::Application(ApplicationError::new(
                ApplicationErrorKind::MissingResult,
                "get_replication_metrics failed: unknown result",
            )))
        }
    };
    let found = session
        .store()
        .replication_metrics(&query)
        .map_err(|error| to_thrift(error, DECLARED))?;
    Ok(idl::ReplicationMetricList {
        replication_metric_list: found
            .into_iter()
            .map(|metric| idl::ReplicationMetrics {
                scheduled_execution_id: metric.scheduled_execution_id,
                policy: metric.policy,
                dump_execution_id: metric.dump_execution_id,
                metadata: metric.metadata,
                progress: metric.progress,
                message_format: metric.message_format,
            })
            .collect(),
    })
}

/// `cm_recycle`: with the change manager off (Hive's default), nothing is recycled; a path
/// Hadoop's `Path` refuses (the empty string) fails as Hive's handler does, with an internal
/// error.
pub fn cm_recycle(
    session: &Session,
    request: idl::CmRecycleRequest,
) -> thrift::Result<idl::CmRecycleResponse> {
    session.authorize(Need::Admin, Target::Server)?;
    if request.data_path.is_empty() {
        return Err(thrift::Error::Application(ApplicationError::new(
            ApplicationErrorKind::InternalError,
            "Internal error processing cm_recycle: Can not create a Path from an empty string",
        )));
    }
    tracing::debug!(path = %request.data_path, purge = request.purge, "cm_recycle with the change manager off");
    Ok(idl::CmRecycleResponse {})
}
