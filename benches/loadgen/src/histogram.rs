//! A latency histogram of fixed size: log-linear buckets with 1/128 relative precision over
//! the whole `u64` nanosecond range, allocated once, so recording a call costs a few
//! instructions and no allocation however long a run lasts.

use std::time::Duration;

/// Sub-buckets per power of two; a value is known to within `1 / SUB_BUCKET_COUNT` of itself.
const SUB_BUCKET_COUNT: u64 = 128;
/// `log2(SUB_BUCKET_COUNT)`.
const SUB_BUCKET_BITS: u32 = SUB_BUCKET_COUNT.trailing_zeros();
/// Values below this are their own bucket.
const LINEAR_LIMIT: u64 = SUB_BUCKET_COUNT;
/// Powers of two above the linear range, up to `u64::MAX`.
const EXPONENT_COUNT: u64 = (u64::BITS - SUB_BUCKET_BITS) as u64;
/// Buckets in all.
const BUCKET_COUNT: usize = (LINEAR_LIMIT + EXPONENT_COUNT * SUB_BUCKET_COUNT) as usize;

const _: () = assert!(SUB_BUCKET_COUNT.is_power_of_two());
const _: () = assert!(BUCKET_COUNT == 128 + 57 * 128);

/// Call latencies in nanoseconds.
#[derive(Clone)]
pub struct Histogram {
    counts: Box<[u64]>,
    count: u64,
    sum_ns: u128,
    min_ns: u64,
    max_ns: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            counts: vec![0; BUCKET_COUNT].into_boxed_slice(),
            count: 0,
            sum_ns: 0,
            min_ns: u64::MAX,
            max_ns: 0,
        }
    }
}

fn bucket_of(value_ns: u64) -> usize {
    if value_ns < LINEAR_LIMIT {
        return value_ns as usize;
    }
    let exponent = u64::from(u64::BITS - 1 - value_ns.leading_zeros());
    let shift = exponent - u64::from(SUB_BUCKET_BITS);
    let sub_bucket = (value_ns >> shift) & (SUB_BUCKET_COUNT - 1);
    (LINEAR_LIMIT + shift * SUB_BUCKET_COUNT + sub_bucket) as usize
}

/// The middle of a bucket: the value reported for every sample in it.
fn bucket_value_ns(bucket: usize) -> u64 {
    let bucket = bucket as u64;
    if bucket < LINEAR_LIMIT {
        return bucket;
    }
    let shift = (bucket - LINEAR_LIMIT) / SUB_BUCKET_COUNT;
    let sub_bucket = (bucket - LINEAR_LIMIT) % SUB_BUCKET_COUNT;
    let low = (SUB_BUCKET_COUNT + sub_bucket) << shift;
    let width = 1u64 << shift;
    low + width / 2
}

impl Histogram {
    /// Records one call's latency.
    pub fn record(&mut self, latency: Duration) {
        let value_ns = u64::try_from(latency.as_nanos()).unwrap_or(u64::MAX);
        self.counts[bucket_of(value_ns)] += 1;
        self.count += 1;
        self.sum_ns += u128::from(value_ns);
        self.min_ns = self.min_ns.min(value_ns);
        self.max_ns = self.max_ns.max(value_ns);
    }

    /// Adds every sample of `other`.
    pub fn merge(&mut self, other: &Histogram) {
        for (mine, theirs) in self.counts.iter_mut().zip(other.counts.iter()) {
            *mine += theirs;
        }
        self.count += other.count;
        self.sum_ns += other.sum_ns;
        self.min_ns = self.min_ns.min(other.min_ns);
        self.max_ns = self.max_ns.max(other.max_ns);
    }

    /// How many calls were recorded.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The latency below which `quantile` (0..=1) of the calls fall; zero when empty.
    /// Exact at the ends (the minimum and maximum), within 1/128 elsewhere.
    pub fn quantile(&self, quantile: f64) -> Duration {
        assert!((0.0..=1.0).contains(&quantile), "quantile {quantile}");
        if self.count == 0 {
            return Duration::ZERO;
        }
        let rank = ((quantile * self.count as f64).ceil() as u64).clamp(1, self.count);
        if rank == self.count {
            return Duration::from_nanos(self.max_ns);
        }
        let mut seen = 0;
        for (bucket, count) in self.counts.iter().enumerate() {
            seen += count;
            if seen >= rank {
                let value_ns = bucket_value_ns(bucket).clamp(self.min_ns, self.max_ns);
                return Duration::from_nanos(value_ns);
            }
        }
        Duration::from_nanos(self.max_ns)
    }

    /// The slowest call; zero when empty.
    pub fn max(&self) -> Duration {
        Duration::from_nanos(if self.count == 0 { 0 } else { self.max_ns })
    }

    /// The mean latency; zero when empty.
    pub fn mean(&self) -> Duration {
        if self.count == 0 {
            return Duration::ZERO;
        }
        let mean_ns = self.sum_ns / u128::from(self.count);
        Duration::from_nanos(u64::try_from(mean_ns).unwrap_or(u64::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_ordered_and_hold_their_values_within_one_percent() {
        let mut previous = 0;
        for value_ns in (0..20_000u64).chain([1 << 40, u64::MAX / 3, u64::MAX]) {
            let bucket = bucket_of(value_ns);
            assert!(bucket >= previous && bucket < BUCKET_COUNT);
            previous = bucket;
            let reported = bucket_value_ns(bucket) as f64;
            assert!((reported - value_ns as f64).abs() <= value_ns as f64 / 128.0 + 1.0);
        }
    }

    #[test]
    fn quantiles_of_a_uniform_run_match_a_sorted_vector() {
        let mut histogram = Histogram::default();
        let mut sorted: Vec<u64> = (1..=10_000u64).map(|i| i * 997 % 10_007 + 1000).collect();
        for value in &sorted {
            histogram.record(Duration::from_nanos(*value));
        }
        sorted.sort_unstable();
        for quantile in [0.5, 0.9, 0.99] {
            let exact = sorted[(quantile * sorted.len() as f64) as usize - 1] as f64;
            let estimate = histogram.quantile(quantile).as_nanos() as f64;
            assert!((estimate - exact).abs() / exact < 0.01, "{quantile}");
        }
        assert_eq!(histogram.quantile(1.0), histogram.max());
        assert_eq!(
            histogram.max(),
            Duration::from_nanos(*sorted.last().unwrap())
        );
        let mut merged = Histogram::default();
        merged.merge(&histogram);
        merged.merge(&histogram);
        assert_eq!(merged.count(), 20_000);
        assert_eq!(merged.quantile(0.5), histogram.quantile(0.5));
    }
}
