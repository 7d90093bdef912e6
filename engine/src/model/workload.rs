//! Hive's workload management objects as plain data: a resource plan holds its pools,
//! triggers and mappings, and is stored as one value, so that every change to a plan is one
//! write of it. Pools are referred to by an id of their plan (a pool's path changes when it or
//! a parent is renamed); triggers by name (they cannot be renamed).

use rkyv::{Archive, Deserialize, Serialize};

use crate::storage::values::{stored_value, ValueKind};

/// Hive's `WMResourcePlanStatus`, numbered as its Thrift enumeration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub enum PlanStatus {
    /// The plan workload management runs (one per namespace at most).
    Active = 1,
    /// Valid and ready to be activated; not editable.
    Enabled = 2,
    /// Editable, not validated.
    Disabled = 3,
}

impl PlanStatus {
    /// The status Thrift numbers `number`, if any.
    pub fn from_number(number: i32) -> Option<PlanStatus> {
        match number {
            1 => Some(PlanStatus::Active),
            2 => Some(PlanStatus::Enabled),
            3 => Some(PlanStatus::Disabled),
            _ => None,
        }
    }

    /// Hive's name of the status.
    pub fn name(self) -> &'static str {
        match self {
            PlanStatus::Active => "ACTIVE",
            PlanStatus::Enabled => "ENABLED",
            PlanStatus::Disabled => "DISABLED",
        }
    }
}

/// Hive's `WMResourcePlan` with everything in it (`WMFullResourcePlan`).
#[derive(Debug, Clone, PartialEq, Archive, Serialize, Deserialize)]
pub struct ResourcePlan {
    /// The name, normalised.
    pub name: String,
    /// The namespace, normalised (`default` when a call names none).
    pub namespace: String,
    /// The status.
    pub status: PlanStatus,
    /// The plan's query parallelism, when set.
    pub query_parallelism: Option<i32>,
    /// The id of the default pool, when set.
    pub default_pool: Option<u32>,
    /// The pools, in the order made.
    pub pools: Vec<Pool>,
    /// The triggers, in the order made.
    pub triggers: Vec<Trigger>,
    /// The mappings, in the order made.
    pub mappings: Vec<Mapping>,
    /// The id the next pool gets.
    pub next_pool_id: u32,
}

stored_value!(ResourcePlan, ValueKind::ResourcePlan);

/// Hive's `WMPool`: a pool of a plan, named by its dotted path.
#[derive(Debug, Clone, PartialEq, Archive, Serialize, Deserialize)]
pub struct Pool {
    /// The id within its plan.
    pub id: u32,
    /// The path, as given (Hive stores it so and looks paths up lowercased).
    pub path: String,
    /// The fraction of its parent's resources.
    pub alloc_fraction: f64,
    /// How many queries it runs at once.
    pub query_parallelism: i32,
    /// The scheduling policy as given (`fair`, `fifo`, `default`, any case), if any.
    pub scheduling_policy: Option<String>,
    /// The names of the triggers applied to the pool.
    pub triggers: Vec<String>,
}

/// Hive's `WMTrigger`.
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub struct Trigger {
    /// The name, normalised.
    pub name: String,
    /// The condition, as given.
    pub trigger_expression: Option<String>,
    /// The action, as given.
    pub action_expression: Option<String>,
    /// Whether it also applies to unmanaged queries.
    pub in_unmanaged: bool,
}

/// Hive's `WMMapping`: a user, group or application sent to a pool (or to none: unmanaged).
#[derive(Debug, Clone, PartialEq, Eq, Archive, Serialize, Deserialize)]
pub struct Mapping {
    /// `USER`, `GROUP` or `APPLICATION`.
    pub entity_type: String,
    /// The entity's name, normalised.
    pub entity_name: String,
    /// The id of its pool, if any.
    pub pool: Option<u32>,
    /// Its order among mappings.
    pub ordering: i32,
}

impl ResourcePlan {
    /// The pool with id `id`.
    pub fn pool_by_id(&self, id: u32) -> Option<&Pool> {
        self.pools.iter().find(|pool| pool.id == id)
    }

    /// The path of the default pool, if the plan has one.
    pub fn default_pool_path(&self) -> Option<&str> {
        let id = self.default_pool?;
        self.pool_by_id(id).map(|pool| pool.path.as_str())
    }
}
