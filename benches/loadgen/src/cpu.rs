//! The CPU time of the calling thread, from Linux's `/proc/thread-self/schedstat` (in
//! nanoseconds): what the load generator itself spends on a sample (writing the request,
//! reading and decoding the reply), which tells a slow server from a busy client when both
//! share the machine. `None` where the file is missing or unreadable.

use std::time::Duration;

/// Where Linux keeps a thread's time on the CPU, first of three numbers.
const SCHEDSTAT_PATH: &str = "/proc/thread-self/schedstat";

/// The calling thread's CPU time so far.
pub fn thread_cpu_time() -> Option<Duration> {
    let text = std::fs::read_to_string(SCHEDSTAT_PATH).ok()?;
    let nanos: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_thread_uses_cpu_time() {
        let Some(before) = thread_cpu_time() else {
            return; // not Linux: nothing to measure
        };
        let mut sum = 0u64;
        for value in 0..5_000_000u64 {
            sum = sum.wrapping_add(value * value);
        }
        std::hint::black_box(sum);
        let after = thread_cpu_time().expect("still readable");
        assert!(after > before, "{before:?} then {after:?}");
    }
}
