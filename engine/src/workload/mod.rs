//! Hive's workload management: resource plans (`plans.rs`), their pools, triggers and
//! mappings (`parts.rs`) and what `validate_resource_plan` reports (`validate.rs`), with the
//! rules of Hive 4's `ObjectStore`. A plan and everything in it is one stored value
//! (`model/workload.rs`), read and written whole; the limits below bound it.

pub(crate) mod parts;
pub(crate) mod plans;
pub(crate) mod validate;

use crate::error::{Error, Result};
use crate::model::names;
use crate::model::workload::ResourcePlan;
use crate::registry::check_len;

/// The most pools a plan may hold (hivestore's bound: a plan is read and written whole).
pub const WM_POOLS_PER_PLAN_MAX: usize = 1_000;
/// The most triggers a plan may hold.
pub const WM_TRIGGERS_PER_PLAN_MAX: usize = 1_000;
/// The most mappings a plan may hold.
pub const WM_MAPPINGS_PER_PLAN_MAX: usize = 10_000;
/// The most trigger-to-pool links a plan may hold, over all its pools.
pub const WM_POOL_TRIGGERS_PER_PLAN_MAX: usize = 10_000;
/// The most resource plans a namespace may hold.
pub const WM_PLANS_PER_NAMESPACE_MAX: usize = 1_000;
/// The longest plan, trigger or namespace name, mapping entity type or name, in bytes (Hive's
/// `varchar(128)` columns).
pub const WM_NAME_LEN_MAX: usize = 128;
/// The longest pool path, trigger or action expression, in bytes (`varchar(1024)`).
pub const WM_TEXT_LEN_MAX: usize = 1024;
/// The longest scheduling policy, in bytes (`WM_POOL.SCHEDULING_POLICY varchar(767)`).
pub const WM_POLICY_LEN_MAX: usize = 767;
/// The namespace of calls that name none (Hive's `getNsOrDefault`).
pub const WM_DEFAULT_NAMESPACE: &str = "default";

/// Hive's `getNsOrDefault`: the namespace normalised, `default` when none is given.
pub fn namespace_or_default(namespace: Option<&str>) -> String {
    names::normalize(namespace.unwrap_or(WM_DEFAULT_NAMESPACE))
}

/// Hive's `MetaStoreUtils.isValidSchedulingPolicy`: none, or `fair`, `fifo` or `default` in
/// any case, trimmed.
pub fn is_valid_scheduling_policy(policy: Option<&str>) -> bool {
    match policy {
        None => true,
        Some(policy) => {
            let policy = policy.trim().to_uppercase();
            matches!(policy.as_str(), "FAIR" | "FIFO" | "DEFAULT")
        }
    }
}

/// The parent path of pool `path` (what precedes its last `.`), if it has one.
pub(crate) fn parent_path(path: &str) -> Option<&str> {
    path.rfind('.').map(|index| &path[..index])
}

/// Refuses a plan grown past the limits above, naming the limit.
pub(crate) fn check_plan_size(plan: &ResourcePlan) -> Result<()> {
    let counts = [
        ("pools", plan.pools.len(), WM_POOLS_PER_PLAN_MAX),
        ("triggers", plan.triggers.len(), WM_TRIGGERS_PER_PLAN_MAX),
        ("mappings", plan.mappings.len(), WM_MAPPINGS_PER_PLAN_MAX),
        (
            "trigger-to-pool links",
            plan.pools.iter().map(|pool| pool.triggers.len()).sum(),
            WM_POOL_TRIGGERS_PER_PLAN_MAX,
        ),
    ];
    for (what, count, max) in counts {
        if count > max {
            return Err(Error::InvalidObject(format!(
                "Resource plan {} would hold {count} {what}, more than the {max} allowed",
                plan.name
            )));
        }
    }
    Ok(())
}

/// Refuses a name longer than [`WM_NAME_LEN_MAX`].
pub(crate) fn check_name(what: &str, name: &str) -> Result<()> {
    check_len(what, name, WM_NAME_LEN_MAX)
}

/// Java's `Double.toString`, as Hive's messages print fractions: `1.0`, `0.30000000000000004`,
/// `1.0E-5`.
pub fn java_double(value: f64) -> String {
    if !value.is_finite() {
        return if value.is_nan() {
            "NaN".to_string()
        } else if value > 0.0 {
            "Infinity".to_string()
        } else {
            "-Infinity".to_string()
        };
    }
    let magnitude = value.abs();
    if magnitude == 0.0 || (1e-3..1e7).contains(&magnitude) {
        let text = format!("{value}");
        return if text.contains('.') {
            text
        } else {
            format!("{text}.0")
        };
    }
    let text = format!("{value:e}");
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let mantissa = if mantissa.contains('.') {
        mantissa.to_string()
    } else {
        format!("{mantissa}.0")
    };
    format!("{mantissa}E{exponent}")
}

#[cfg(test)]
mod tests;
