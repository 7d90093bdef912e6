//! Distinct values from sketches: Hive's dispatch of `bitVectors` by their magic
//! (`NumDistinctValueEstimatorFactory`) and the merge its aggregators do when every partition
//! has a sketch: into a fresh estimator (an HLL of [`super::hll::MERGE_PRECISION`] bits, or an FM sketch
//! of as many vectors as the first), whose estimate is the NDV.
//!
//! Where Hive would throw (an HLL of fewer than 10 bits, FM sketches of different sizes, bytes
//! that are no sketch) the merge gives up and the aggregation falls back to Hive's estimate
//! without sketches, rather than failing the call.

use super::fm::{FmSketch, FM_MAGIC};
use super::hll::SketchError;
use super::hll_union::{HllUnion, UnionRef};

/// Partitions' sketches merged as Hive's aggregators merge them: HLL sketches into one array
/// of registers ([`HllUnion`]), FM sketches by OR.
#[derive(Default)]
pub(crate) struct SketchMerge {
    merged: Option<MergedSketch>,
    failed: bool,
}

enum MergedSketch {
    Hll(HllUnion),
    Fm(FmSketch),
}

impl SketchMerge {
    /// Merges one partition's sketch in.
    pub(crate) fn add(&mut self, bytes: &[u8]) {
        if self.failed {
            return;
        }
        if self.merge(bytes).is_err() {
            self.failed = true;
        }
    }

    fn merge(&mut self, bytes: &[u8]) -> Result<(), SketchError> {
        // Hive's dispatch: `FM` first, anything else must be an HLL.
        let is_fm = bytes.starts_with(FM_MAGIC);
        if self.merged.is_none() {
            self.merged = Some(if is_fm {
                MergedSketch::Fm(FmSketch::decode(bytes)?.empty_like())
            } else {
                MergedSketch::Hll(HllUnion::default())
            });
        }
        match (&mut self.merged, is_fm) {
            (Some(MergedSketch::Hll(union)), false) => union.add(bytes),
            (Some(MergedSketch::Fm(merged)), true) => merged.merge(&FmSketch::decode(bytes)?),
            _ => Err(SketchError("HLL and FM sketches do not merge")),
        }
    }

    /// Merges in `union`, the HLL sketches of several partitions already merged: as adding
    /// each of them would.
    pub(crate) fn add_hll_union(&mut self, union: UnionRef<'_>) {
        if self.failed {
            return;
        }
        match self
            .merged
            .get_or_insert_with(|| MergedSketch::Hll(HllUnion::default()))
        {
            MergedSketch::Hll(merged) => merged.merge_union(union),
            MergedSketch::Fm(_) => self.failed = true,
        }
    }

    /// Whether a sketch would not merge (the estimate is then `None`).
    pub(crate) fn has_failed(&self) -> bool {
        self.failed
    }

    /// The merged estimate; `None` when nothing was merged or a sketch would not merge.
    pub(crate) fn estimate(&self) -> Option<i64> {
        if self.failed {
            return None;
        }
        match self.merged.as_ref()? {
            MergedSketch::Hll(union) => Some(union.estimate()),
            MergedSketch::Fm(fm) => Some(fm.estimate()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::hll::Hll;

    #[test]
    fn hll_and_fm_sketches_do_not_merge() {
        let hll = Hll::new(10).encode().unwrap();
        let mut fm = b"FM".to_vec();
        fm.extend_from_slice(&1u16.to_le_bytes());
        fm.extend_from_slice(&0b111u32.to_le_bytes());
        let mut merge = SketchMerge::default();
        merge.add(&fm);
        assert!(merge.estimate().is_some());
        merge.add(&hll);
        assert_eq!(merge.estimate(), None);
    }
}
