//! Big reply buffers kept between calls, for all connections together.
//!
//! A connection keeps at most [`IDLE_BUFFER_BYTES_MAX`] of reply buffer between calls, so a
//! reply of many megabytes (10,000 partitions are 11 MB, a million names 22 MB) is written
//! into fresh memory, which the kernel zeroes page by page as it is first touched (with
//! transparent huge pages, 2 MiB at a time): perf of the server at a million partitions put
//! half of `get_partitions_by_names`' samples there. So a connection gives a big buffer back
//! here rather than to the allocator, and a big reply of any connection takes one, at most
//! [`REPLY_BUFFER_BYTES_MAX`] kept in all.

use std::sync::{Mutex, PoisonError};

use crate::message::IDLE_BUFFER_BYTES_MAX;

/// Bytes of buffers kept here, at most, in all.
pub const REPLY_BUFFER_BYTES_MAX: usize = 64 << 20;

/// Buffers kept, by capacity as they came.
static KEPT: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());

/// Keeps `buffer` (emptied) for a later big reply if it is big and fits under
/// [`REPLY_BUFFER_BYTES_MAX`]; else it is freed.
pub(crate) fn give_back(mut buffer: Vec<u8>) {
    if buffer.capacity() <= IDLE_BUFFER_BYTES_MAX {
        return;
    }
    buffer.clear();
    let mut kept = KEPT.lock().unwrap_or_else(PoisonError::into_inner);
    let taken: usize = kept.iter().map(Vec::capacity).sum();
    if taken + buffer.capacity() <= REPLY_BUFFER_BYTES_MAX {
        kept.push(buffer);
    }
}

/// Makes room in `out` for `additional` more bytes, from a kept buffer when `out` has to grow
/// past [`IDLE_BUFFER_BYTES_MAX`] and one is big enough (the smallest such); `out`'s bytes
/// are moved into it.
pub(crate) fn reserve(out: &mut Vec<u8>, additional: usize) {
    let needed = out.len().saturating_add(additional);
    if needed <= out.capacity() || needed <= IDLE_BUFFER_BYTES_MAX {
        out.reserve(additional);
        return;
    }
    let found = {
        let mut kept = KEPT.lock().unwrap_or_else(PoisonError::into_inner);
        let smallest = (0..kept.len())
            .filter(|index| kept[*index].capacity() >= needed)
            .min_by_key(|index| kept[*index].capacity());
        smallest.map(|index| kept.swap_remove(index))
    };
    match found {
        Some(mut buffer) => {
            buffer.extend_from_slice(out);
            *out = buffer;
        }
        None => out.reserve(additional),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The goal: a big buffer given back is the one the next big reservation gets, with the
    /// bytes written so far moved into it; small buffers and reservations stay apart.
    #[test]
    fn a_big_buffer_given_back_serves_the_next_big_reply() {
        let big = Vec::<u8>::with_capacity(IDLE_BUFFER_BYTES_MAX * 3);
        let pointer = big.as_ptr();
        give_back(big);
        let mut out = b"header".to_vec();
        reserve(&mut out, IDLE_BUFFER_BYTES_MAX * 2);
        assert_eq!(out.as_ptr(), pointer, "the kept buffer");
        assert_eq!(&out[..], b"header");
        let mut small = Vec::new();
        reserve(&mut small, 100);
        assert!(small.capacity() >= 100 && small.capacity() <= IDLE_BUFFER_BYTES_MAX);
        give_back(out);
        give_back(Vec::with_capacity(REPLY_BUFFER_BYTES_MAX + 1));
        let kept = KEPT.lock().unwrap();
        let total: usize = kept.iter().map(Vec::capacity).sum();
        assert!(
            total <= REPLY_BUFFER_BYTES_MAX,
            "a buffer past the bound is freed"
        );
    }
}
