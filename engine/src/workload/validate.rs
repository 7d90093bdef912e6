//! Hive's `getResourcePlanErrors`: what `validate_resource_plan` reports and what keeps a
//! disabled plan from being enabled. Hive walks hash maps; the messages here come in pool
//! path order, the root's first.

use std::collections::BTreeMap;

use crate::model::workload::ResourcePlan;
use crate::workload::{is_valid_scheduling_policy, java_double, parent_path};

/// How far a sum of fractions may be from its bound (Hive's `0.00001`).
const FRACTION_TOLERANCE: f64 = 0.00001;

#[derive(Default)]
struct PoolData {
    children_fraction: f64,
    found: bool,
    has_children: bool,
}

/// The errors and warnings of `plan`, with Hive's texts.
pub(crate) fn plan_report(plan: &ResourcePlan) -> (Vec<String>, Vec<String>) {
    let (mut errors, mut warnings) = (Vec::new(), Vec::new());
    if let Some(parallelism) = plan
        .query_parallelism
        .filter(|parallelism| *parallelism < 1)
    {
        errors.push(format!(
            "Query parallelism should for resource plan be positive. Got: {parallelism}"
        ));
    }
    let mut total_parallelism: i64 = 0;
    let mut pools: BTreeMap<&str, PoolData> = BTreeMap::new();
    let mut sorted: Vec<_> = plan.pools.iter().collect();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    for pool in sorted {
        pools.entry(&pool.path).or_default().found = true;
        let parent = pools
            .entry(parent_path(&pool.path).unwrap_or(""))
            .or_default();
        parent.has_children = true;
        parent.children_fraction += pool.alloc_fraction;
        if pool.query_parallelism < 1 {
            errors.push(format!("Invalid query parallelism for pool: {}", pool.path));
        } else {
            total_parallelism += i64::from(pool.query_parallelism);
        }
        if !is_valid_scheduling_policy(pool.scheduling_policy.as_deref()) {
            errors.push(format!(
                "Invalid scheduling policy {} for pool: {}",
                pool.scheduling_policy.as_deref().unwrap_or("null"),
                pool.path
            ));
        }
    }
    if let Some(parallelism) = plan.query_parallelism {
        let parallelism = i64::from(parallelism);
        if parallelism < total_parallelism {
            errors.push(format!(
                "Sum of all pools' query parallelism: {total_parallelism} exceeds resource plan \
                 query parallelism: {parallelism}"
            ));
        } else if parallelism != total_parallelism {
            warnings.push(format!(
                "Sum of all pools' query parallelism: {total_parallelism} is less than resource \
                 plan query parallelism: {parallelism}"
            ));
        }
    }
    // As in Hive, the root ("") is only there as the parent of a top-level pool.
    for (path, data) in &mut pools {
        let is_root = path.is_empty();
        if is_root {
            data.found = true;
            if !data.has_children {
                errors.push("Root has no children".to_string());
            } else if (1.0 - data.children_fraction).abs() > FRACTION_TOLERANCE {
                errors.push(format!(
                    "Sum of root children pools' alloc fraction should be 1.0 got: {} for pool: ",
                    java_double(data.children_fraction)
                ));
            }
        }
        if !data.found {
            errors.push(format!("Pool does not exists but has children: {path}"));
        }
        if data.has_children && !is_root && data.children_fraction - 1.0 > FRACTION_TOLERANCE {
            errors.push(format!(
                "Sum of children pools' alloc fraction should be less than 1 got: {} for pool: \
                 {path}",
                java_double(data.children_fraction)
            ));
        }
    }
    (errors, warnings)
}
