//! `SledBackend` checked against the `MemoryBackend` model: random sequences
//! of batches, point reads, bounded scans, paged scans and reopens must give
//! the same answers on both.

use std::ops::Bound;
use std::path::Path;

use hivestore_engine::kv::{
    self, KeyRange, KvBackend, MemoryBackend, SledBackend, WriteBatch, PAGE_CACHE_BYTES_DEFAULT,
};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Batch(Vec<(Vec<u8>, Option<Vec<u8>>)>),
    Get(Vec<u8>),
    Scan {
        start: Bound<Vec<u8>>,
        end: Bound<Vec<u8>>,
        limit: usize,
    },
    PagedPrefix {
        prefix: Vec<u8>,
        page: usize,
    },
    Reopen,
}

fn key() -> impl Strategy<Value = Vec<u8>> {
    // A small alphabet so that keys collide, share prefixes and hit 0x00/0xFF.
    proptest::collection::vec(
        prop_oneof![Just(0u8), Just(1u8), Just(0xFFu8), Just(b'a')],
        0..4,
    )
}

fn bound() -> impl Strategy<Value = Bound<Vec<u8>>> {
    prop_oneof![
        key().prop_map(Bound::Included),
        key().prop_map(Bound::Excluded),
        Just(Bound::Unbounded)
    ]
}

fn op() -> impl Strategy<Value = Op> {
    let write = (
        key(),
        proptest::option::of(proptest::collection::vec(any::<u8>(), 0..40)),
    );
    prop_oneof![
        4 => proptest::collection::vec(write, 1..6).prop_map(Op::Batch),
        2 => key().prop_map(Op::Get),
        2 => (bound(), bound(), 1usize..6).prop_map(|(start, end, limit)| Op::Scan { start, end, limit }),
        1 => (key(), 1usize..4).prop_map(|(prefix, page)| Op::PagedPrefix { prefix, page }),
        1 => Just(Op::Reopen),
    ]
}

fn to_vecs(entries: Vec<(kv::KvBytes, kv::KvBytes)>) -> Vec<(Vec<u8>, Vec<u8>)> {
    entries
        .into_iter()
        .map(|(key, value)| (key.to_vec(), value.to_vec()))
        .collect()
}

fn paged(backend: &dyn KvBackend, prefix: &[u8], page: usize) -> Vec<(Vec<u8>, Vec<u8>)> {
    kv::scan(backend, KeyRange::prefix(prefix), page)
        .map(|entry| entry.map(|(key, value)| (key.to_vec(), value.to_vec())))
        .collect::<Result<_, _>>()
        .unwrap()
}

fn run(ops: Vec<Op>, dir: &Path) -> Result<(), TestCaseError> {
    let model = MemoryBackend::new();
    let mut sled = SledBackend::open(dir, PAGE_CACHE_BYTES_DEFAULT).unwrap();
    for op in ops {
        match op {
            Op::Batch(writes) => {
                let mut batch = WriteBatch::new();
                for (key, value) in writes {
                    match value {
                        Some(value) => batch.put(key, value),
                        None => batch.delete(key),
                    }
                }
                model.apply(batch.clone()).unwrap();
                sled.apply(batch).unwrap();
            }
            Op::Get(key) => {
                let expected = model.get(&key).unwrap().map(|value| value.to_vec());
                prop_assert_eq!(
                    sled.get(&key).unwrap().map(|value| value.to_vec()),
                    expected
                );
            }
            Op::Scan { start, end, limit } => {
                let range = KeyRange { start, end };
                let expected = to_vecs(model.scan(&range, limit).unwrap());
                prop_assert_eq!(to_vecs(sled.scan(&range, limit).unwrap()), expected);
            }
            Op::PagedPrefix { prefix, page } => {
                prop_assert_eq!(paged(&sled, &prefix, page), paged(&model, &prefix, page));
            }
            Op::Reopen => {
                sled.flush().unwrap();
                drop(sled);
                sled = SledBackend::open(dir, PAGE_CACHE_BYTES_DEFAULT).unwrap();
            }
        }
    }
    let everything = KeyRange::all();
    prop_assert_eq!(paged(&sled, &[], 7), paged(&model, &[], 7));
    prop_assert_eq!(
        sled.scan(&everything, 1).unwrap().len(),
        model.scan(&everything, 1).unwrap().len()
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn sled_backend_agrees_with_the_model(ops in proptest::collection::vec(op(), 1..40)) {
        let dir = tempfile::tempdir().unwrap();
        run(ops, dir.path())?;
    }
}
