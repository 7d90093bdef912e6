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
        // The kernel brings a thread's figure up to date when the thread is switched out: a
        // fresh thread that never slept reads 0. The bench's threads block on every reply.
        std::thread::sleep(std::time::Duration::from_millis(1));
        let Some(before) = thread_cpu_time() else {
            return; // not Linux: nothing to measure
        };
        let mut sum = 0u64;
        for value in 0..5_000_000u64 {
            sum = sum.wrapping_add(std::hint::black_box(value) * value);
        }
        std::hint::black_box(sum);
        std::thread::sleep(std::time::Duration::from_millis(1));
        let after = thread_cpu_time().expect("still readable");
        assert!(after > before, "{before:?} then {after:?}");
    }
}
