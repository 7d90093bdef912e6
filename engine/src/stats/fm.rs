//! Hive's Flajolet-Martin sketch, the `bitVectors` of column statistics that start with `FM`
//! (Hive's `FMSketch`, `FMSketchUtils`; written when `hive.stats.ndv.algo` is `fm`).
//!
//! Format: `'F' 'M'`, the number of bit vectors as a little-endian u16, then each vector as a
//! little-endian 32-bit word (bit i: position i seen). Hive writes the 31 low bits and reads
//! all 32. Merging ORs the vectors; the estimate is
//! `2^(mean index of each vector's lowest clear bit - log2(0.77351))`, truncated.

use super::hll::SketchError;

/// The first bytes of a serialized FM sketch.
pub(crate) const FM_MAGIC: &[u8; 2] = b"FM";
/// The positions Hive writes per vector.
const WRITTEN_BIT_COUNT: u32 = 31;
/// Flajolet and Martin's correction factor φ.
const PHI: f64 = 0.77351;

/// An FM sketch: its bit vectors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FmSketch {
    vectors: Vec<u32>,
}

impl FmSketch {
    /// Reads Hive's serialized form; a sketch of no vectors has no estimate and is refused.
    pub(crate) fn decode(bytes: &[u8]) -> Result<FmSketch, SketchError> {
        if bytes.len() < 4 || &bytes[..2] != FM_MAGIC {
            return Err(SketchError("no FM magic"));
        }
        let count = usize::from(u16::from_le_bytes([bytes[2], bytes[3]]));
        let body = &bytes[4..];
        if count == 0 || body.len() < count * 4 {
            return Err(SketchError("fewer FM vectors than announced"));
        }
        let vectors = body
            .chunks_exact(4)
            .take(count)
            .map(|word| u32::from_le_bytes([word[0], word[1], word[2], word[3]]))
            .collect();
        Ok(FmSketch { vectors })
    }

    /// Hive's serialized form.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut bytes = FM_MAGIC.to_vec();
        let count = self.vectors.len() as u16;
        bytes.extend_from_slice(&count.to_le_bytes());
        let written = (1u32 << WRITTEN_BIT_COUNT) - 1;
        for vector in &self.vectors {
            bytes.extend_from_slice(&(vector & written).to_le_bytes());
        }
        bytes
    }

    /// An empty sketch of as many vectors as `self` (Hive's fresh estimator for a merge).
    pub(crate) fn empty_like(&self) -> FmSketch {
        FmSketch {
            vectors: vec![0; self.vectors.len()],
        }
    }

    /// ORs `other` in; sketches of different vector counts do not merge.
    pub(crate) fn merge(&mut self, other: &FmSketch) -> Result<(), SketchError> {
        if other.vectors.len() != self.vectors.len() {
            return Err(SketchError("FM sketches of different vector counts"));
        }
        for (mine, theirs) in self.vectors.iter_mut().zip(&other.vectors) {
            *mine |= theirs;
        }
        Ok(())
    }

    /// Hive's `estimateNumDistinctValues`.
    pub(crate) fn estimate(&self) -> i64 {
        let lowest_clear: u32 = self
            .vectors
            .iter()
            .map(|vector| vector.trailing_ones())
            .sum();
        let mean = f64::from(lowest_clear) / (self.vectors.len() as f64 * 1.0);
        let exponent = mean - PHI.ln() / 2f64.ln();
        2f64.powf(exponent) as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fm_sketches_read_merge_and_estimate_as_hive() {
        // Goal: 16 vectors whose lowest clear bit is bit 3 estimate 2^(3 - log2 0.77351)
        // = 8 / 0.77351 = 10.34 → 10; OR-ing in vectors with bits 3 and 4 set moves it to 5:
        // 32 / 0.77351 = 41.37 → 41.
        let mut bytes = b"FM".to_vec();
        bytes.extend_from_slice(&16u16.to_le_bytes());
        for _ in 0..16 {
            bytes.extend_from_slice(&0b0111u32.to_le_bytes());
        }
        let mut sketch = FmSketch::decode(&bytes).unwrap();
        assert_eq!(sketch.estimate(), 10);
        assert_eq!(sketch.encode(), bytes);
        let mut other_bytes = bytes.clone();
        for vector in other_bytes[4..].chunks_exact_mut(4) {
            vector.copy_from_slice(&0b1_1000u32.to_le_bytes());
        }
        sketch
            .merge(&FmSketch::decode(&other_bytes).unwrap())
            .unwrap();
        assert_eq!(sketch.estimate(), 41);
        let mut fewer = b"FM".to_vec();
        fewer.extend_from_slice(&1u16.to_le_bytes());
        fewer.extend_from_slice(&[1, 0, 0, 0]);
        assert!(sketch.merge(&FmSketch::decode(&fewer).unwrap()).is_err());
        assert!(FmSketch::decode(b"FM\x02\x00\x01\x00\x00\x00").is_err());
    }
}
