//! The server's canonical host name, which Hadoop puts for `_HOST` in a principal.

use std::ffi::{CStr, CString};

/// Longest host name read from `gethostname` (POSIX `HOST_NAME_MAX` is 255).
const HOST_NAME_BYTES_MAX: usize = 256;

/// This machine's host name, canonicalised by the resolver (`AI_CANONNAME`), in lower case as
/// Hadoop writes it; the bare host name when the resolver does not know it.
pub fn canonical_host_name() -> Result<String, String> {
    let mut bytes = [0u8; HOST_NAME_BYTES_MAX + 1];
    // SAFETY: the buffer is writable for the length passed; one byte is kept for the NUL that
    // gethostname may leave out on truncation.
    let status = unsafe { libc::gethostname(bytes.as_mut_ptr().cast(), HOST_NAME_BYTES_MAX) };
    if status != 0 {
        return Err(format!(
            "gethostname failed: {}",
            std::io::Error::last_os_error()
        ));
    }
    let host = CStr::from_bytes_until_nul(&bytes)
        .map_err(|_| "gethostname gave no NUL-terminated name".to_string())?
        .to_str()
        .map_err(|_| "the host name is not UTF-8".to_string())?
        .to_string();
    Ok(canonicalize(&host).unwrap_or(host).to_ascii_lowercase())
}

fn canonicalize(host: &str) -> Option<String> {
    let node = CString::new(host).ok()?;
    // SAFETY: an all-zero addrinfo is a valid "no hints" value, then the flags are set.
    let mut hints: libc::addrinfo = unsafe { std::mem::zeroed() };
    hints.ai_flags = libc::AI_CANONNAME;
    hints.ai_family = libc::AF_UNSPEC;
    let mut result: *mut libc::addrinfo = std::ptr::null_mut();
    // SAFETY: `node` is NUL-terminated; the service may be null; `result` receives a list we
    // free below.
    let status = unsafe { libc::getaddrinfo(node.as_ptr(), std::ptr::null(), &hints, &mut result) };
    if status != 0 || result.is_null() {
        return None;
    }
    // SAFETY: `result` is the list getaddrinfo made; with AI_CANONNAME its first entry's
    // `ai_canonname` is null or a NUL-terminated string owned by the list.
    let name = unsafe {
        let canonical = (*result).ai_canonname;
        (!canonical.is_null()).then(|| CStr::from_ptr(canonical).to_string_lossy().into_owned())
    };
    // SAFETY: the list is freed once, after its strings were copied.
    unsafe { libc::freeaddrinfo(result) };
    name.filter(|name| !name.is_empty())
}
