//! What Hive keeps beside the catalog and acts on only when asked: its old type registry
//! (`types.rs`), the schema registry with its versions (`schemas.rs`) and SerDes registered by
//! name (`serdes.rs`). Hive's `DbNotificationListener` logs none of their changes, so neither
//! does the engine. The values themselves are plain data in `model/registry.rs`.

pub(crate) mod schemas;
pub(crate) mod serdes;
pub(crate) mod types;

use crate::error::{Error, Result};

/// Refuses `value` when longer than `max` bytes, naming `what` (Hive's column widths).
pub(crate) fn check_len(what: &str, value: &str, max: usize) -> Result<()> {
    if value.len() > max {
        return Err(Error::InvalidObject(format!(
            "{what} is {} bytes, longer than the {max} bytes allowed",
            value.len()
        )));
    }
    Ok(())
}
