//! Distinct values from sketches: Hive's dispatch of `bitVectors` by their magic
//! (`NumDistinctValueEstimatorFactory`) and the merge its aggregators do when every partition
//! has a sketch: into a fresh estimator (an HLL of [`MERGE_PRECISION`] bits, or an FM sketch
//! of as many vectors as the first), whose estimate is the NDV.
//!
//! Where Hive would throw (an HLL of fewer than 10 bits, FM sketches of different sizes, bytes
//! that are no sketch) the merge gives up and the aggregation falls back to Hive's estimate
//! without sketches, rather than failing the call.

use super::fm::{FmSketch, FM_MAGIC};
use super::hll::{Hll, SketchError, MERGE_PRECISION};

/// A partition's sketch, decoded.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum NdvSketch {
    Hll(Hll),
    Fm(FmSketch),
}

impl NdvSketch {
    /// Hive's dispatch: `FM` first, anything else must be an HLL.
    pub(crate) fn decode(bytes: &[u8]) -> Result<NdvSketch, SketchError> {
        if bytes.starts_with(FM_MAGIC) {
            FmSketch::decode(bytes).map(NdvSketch::Fm)
        } else {
            Hll::decode(bytes).map(NdvSketch::Hll)
        }
    }

    /// The estimate of this sketch, if this build can compute it.
    pub(crate) fn estimate(&self) -> Option<i64> {
        match self {
            NdvSketch::Hll(hll) => hll.estimate(),
            NdvSketch::Fm(fm) => Some(fm.estimate()),
        }
    }
}

/// Partitions' sketches merged as Hive's aggregators merge them.
#[derive(Debug, Default)]
pub(crate) struct SketchMerge {
    merged: Option<NdvSketch>,
    failed: bool,
}

impl SketchMerge {
    /// Merges one partition's sketch in.
    pub(crate) fn add(&mut self, bytes: &[u8]) {
        if self.failed {
            return;
        }
        let merged = NdvSketch::decode(bytes).and_then(|sketch| self.merge(sketch));
        if merged.is_err() {
            self.failed = true;
        }
    }

    fn merge(&mut self, sketch: NdvSketch) -> Result<(), SketchError> {
        let merged = self.merged.get_or_insert_with(|| match &sketch {
            NdvSketch::Hll(_) => NdvSketch::Hll(Hll::new(MERGE_PRECISION)),
            NdvSketch::Fm(fm) => NdvSketch::Fm(fm.empty_like()),
        });
        match (merged, &sketch) {
            (NdvSketch::Hll(merged), NdvSketch::Hll(hll)) => merged.merge(hll),
            (NdvSketch::Fm(merged), NdvSketch::Fm(fm)) => merged.merge(fm),
            _ => Err(SketchError("HLL and FM sketches do not merge")),
        }
    }

    /// The merged estimate; `None` when nothing was merged or a sketch would not merge.
    pub(crate) fn estimate(&self) -> Option<i64> {
        if self.failed {
            return None;
        }
        self.merged.as_ref()?.estimate()
    }
}
