//! Exports that reach every part of retrace-core: reading, the tree, bodies
//! (serde_json), normalization and the deep check.

use retrace_core::Session;

/// Allocates `len` bytes for the host to fill (leaked: a probe).
#[no_mangle]
pub extern "C" fn probe_alloc(len: usize) -> *mut u8 {
    Box::leak(vec![0u8; len].into_boxed_slice()).as_mut_ptr()
}

/// Reads the session in `ptr[..len]` and returns entries + messages on the
/// default branch + problems found by the deep check.
///
/// # Safety
/// `ptr` must point to `len` initialised bytes.
#[no_mangle]
pub unsafe extern "C" fn probe_open(ptr: *const u8, len: usize) -> u32 {
    // SAFETY: the caller passes memory it filled through `probe_alloc`.
    let bytes = unsafe { std::slice::from_raw_parts(ptr, len) };
    let session = Session::from_bytes("probe.jsonl", bytes);
    let mut source = bytes;
    let messages = session
        .tree()
        .default_leaf()
        .and_then(|leaf| session.context(leaf, &mut source).ok())
        .map_or(0, |m| m.len());
    let problems = session
        .check(&mut source)
        .map_or(0, |c| c.diagnostics.len());
    (session.entries().len() + messages + problems) as u32
}

/// Redacts the lines in `ptr[..len]` with the built-in rules plus the
/// configuration in `cfg[..cfg_len]` (TOML or JSON; custom regex rules),
/// returning the output length + findings (so redaction, its regex engine
/// and the TOML parser are linked into the import check).
///
/// # Safety
/// Both ranges must be initialised bytes from `probe_alloc`.
#[no_mangle]
pub unsafe extern "C" fn probe_redact(
    ptr: *const u8,
    len: usize,
    cfg: *const u8,
    cfg_len: usize,
) -> u32 {
    use retrace_core::redact::{Mode, Redactor, Rules};
    // SAFETY: the caller passes memory it filled through `probe_alloc`.
    let (bytes, config) = unsafe {
        (
            std::slice::from_raw_parts(ptr, len),
            std::slice::from_raw_parts(cfg, cfg_len),
        )
    };
    let rules = match Rules::with_config(config) {
        Ok(r) => std::sync::Arc::new(r),
        Err(_) => return u32::MAX,
    };
    let mut redactor = Redactor::new(rules, Mode::Pseudo);
    let mut out = Vec::new();
    redactor.push(bytes, &mut out);
    redactor.finish(&mut out);
    (out.len() + redactor.drain_findings().count()) as u32
}
