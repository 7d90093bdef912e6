//! A `BTreeMap` backend: for tests, and the model the other backends are
//! checked against.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use super::{KeyRange, KvBackend, KvBytes, WriteBatch, WriteOp, SCAN_PAGE_ENTRY_COUNT_MAX};
use crate::error::{Error, Result};

/// An in-memory ordered map. `flush` does nothing: nothing is durable.
#[derive(Debug, Default)]
pub struct MemoryBackend {
    map: RwLock<BTreeMap<Vec<u8>, Arc<[u8]>>>,
}

impl MemoryBackend {
    /// An empty store.
    pub fn new() -> Self {
        MemoryBackend::default()
    }

    /// Makes this store hold exactly what `other` holds.
    pub(crate) fn copy_from(&self, other: &MemoryBackend) -> Result<()> {
        let copied = other.map.read().map_err(|_| Self::poisoned())?.clone();
        *self.map.write().map_err(|_| Self::poisoned())? = copied;
        Ok(())
    }

    fn poisoned() -> Error {
        Error::Internal("the memory backend's lock is poisoned".to_string())
    }
}

impl KvBackend for MemoryBackend {
    fn get(&self, key: &[u8]) -> Result<Option<KvBytes>> {
        let map = self.map.read().map_err(|_| Self::poisoned())?;
        Ok(map
            .get(key)
            .map(|value| KvBytes::from_shared(value.clone())))
    }

    fn scan(&self, range: &KeyRange, entry_count_max: usize) -> Result<Vec<(KvBytes, KvBytes)>> {
        assert!(entry_count_max <= SCAN_PAGE_ENTRY_COUNT_MAX);
        let map = self.map.read().map_err(|_| Self::poisoned())?;
        let bounds = (range.start.clone(), range.end.clone());
        if range.is_empty() {
            return Ok(Vec::new());
        }
        Ok(map
            .range(bounds)
            .take(entry_count_max)
            .map(|(key, value)| {
                let key = KvBytes::from_shared(Arc::from(key.as_slice()));
                (key, KvBytes::from_shared(value.clone()))
            })
            .collect())
    }

    fn apply(&self, batch: WriteBatch) -> Result<()> {
        let mut map = self.map.write().map_err(|_| Self::poisoned())?;
        for op in batch.into_ops() {
            match op {
                WriteOp::Put { key, value } => {
                    map.insert(key, Arc::from(value));
                }
                WriteOp::Delete { key } => {
                    map.remove(&key);
                }
            }
        }
        Ok(())
    }

    fn flush(&self) -> Result<()> {
        Ok(())
    }
}
