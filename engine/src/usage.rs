//! How often the store used what it keeps, and what its removal sweeps did: plain counts for a
//! frontend to serve to operators (the engine does not know how they are served).
//!
//! Each count is one relaxed atomic add where the store decides between a kept structure and a
//! read of the backend, so counting costs no lock and no shared cache line beyond the count's.

use std::sync::atomic::{AtomicU64, Ordering};

/// How often one kind of kept structure answered a read (hits) and how often it did not, so the
/// read went to the backend (misses).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct HitsAndMisses {
    /// Reads answered from what was kept.
    pub hits: u64,
    /// Reads that found nothing kept for them.
    pub misses: u64,
}

/// The store's counts since it opened.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct StoreUsage {
    /// Kept full partition name listings (`partitions/name_listing.rs`), per listing.
    pub kept_name_listings: HitsAndMisses,
    /// Kept partition encodings (`partitions/kept_encodings.rs`), per partition written.
    pub kept_encodings: HitsAndMisses,
    /// Kept column statistics chunks (`stats/kept_chunks.rs`), per column read.
    pub kept_statistics_chunks: HitsAndMisses,
    /// Kept sketch chunks (`stats/kept_chunks.rs`), per column read.
    pub kept_sketch_chunks: HitsAndMisses,
    /// Keys of dropped tables deleted by removal sweeps.
    pub removal_keys_deleted: u64,
    /// Removal sweeps that failed (their markers stay for the next sweep).
    pub removal_failures: u64,
}

/// One pair of counts, added to as reads happen.
#[derive(Default)]
pub(crate) struct UseCount {
    hits: AtomicU64,
    misses: AtomicU64,
}

impl UseCount {
    /// Counts one read, answered from what was kept (`hit`) or not.
    pub(crate) fn record(&self, hit: bool) {
        self.record_many(u64::from(hit), u64::from(!hit));
    }

    /// Counts `hits` and `misses` reads at once (a listing's partitions).
    pub(crate) fn record_many(&self, hits: u64, misses: u64) {
        if hits > 0 {
            self.hits.fetch_add(hits, Ordering::Relaxed);
        }
        if misses > 0 {
            self.misses.fetch_add(misses, Ordering::Relaxed);
        }
    }

    fn load(&self) -> HitsAndMisses {
        HitsAndMisses {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
        }
    }
}

/// The counts a store adds to.
#[derive(Default)]
pub(crate) struct UsageCounts {
    pub(crate) kept_name_listings: UseCount,
    pub(crate) kept_encodings: UseCount,
    pub(crate) kept_statistics_chunks: UseCount,
    pub(crate) kept_sketch_chunks: UseCount,
    pub(crate) removal_keys_deleted: AtomicU64,
    pub(crate) removal_failures: AtomicU64,
}

impl UsageCounts {
    /// The counts now; each is read on its own, so two may be a read apart.
    pub(crate) fn snapshot(&self) -> StoreUsage {
        StoreUsage {
            kept_name_listings: self.kept_name_listings.load(),
            kept_encodings: self.kept_encodings.load(),
            kept_statistics_chunks: self.kept_statistics_chunks.load(),
            kept_sketch_chunks: self.kept_sketch_chunks.load(),
            removal_keys_deleted: self.removal_keys_deleted.load(Ordering::Relaxed),
            removal_failures: self.removal_failures.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_up_by_kind() {
        let counts = UsageCounts::default();
        counts.kept_name_listings.record(true);
        counts.kept_name_listings.record(false);
        counts.kept_name_listings.record(true);
        counts.kept_encodings.record_many(5, 2);
        let usage = counts.snapshot();
        assert_eq!(
            usage.kept_name_listings,
            HitsAndMisses { hits: 2, misses: 1 }
        );
        assert_eq!(usage.kept_encodings, HitsAndMisses { hits: 5, misses: 2 });
        assert_eq!(usage.kept_statistics_chunks, HitsAndMisses::default());
    }
}
