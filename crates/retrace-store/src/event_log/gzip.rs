//! Rotated parts kept gzipped: `events_N.jsonl` becomes
//! `events_N.jsonl.gz`, in steps that a crash can stop anywhere without a
//! reader seeing an event twice or losing one:
//!
//! 1. write `events_N.jsonl.gz.tmp` and sync it;
//! 2. rename it to `events_N.jsonl.gz` and sync the folder;
//! 3. remove `events_N.jsonl` and sync the folder.
//!
//! A `.gz` exists only complete, so when both files are found the plain
//! one is read (and repair removes it); a `.tmp` is a step 1 cut short and
//! repair removes it. The way back (pop into a gzipped part) writes the
//! plain part whole before removing the `.gz`.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;
use retrace_core::part_file_name;

use super::sync_dir;
use crate::error::{StoreError, StoreResult};

/// `events_N.jsonl.gz` beside `events_N.jsonl`.
pub(super) fn gz_path(plain: &Path) -> PathBuf {
    let mut s = plain.as_os_str().to_owned();
    s.push(".gz");
    PathBuf::from(s)
}

/// The temporary name a part is compressed or decompressed under.
fn tmp_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".tmp");
    PathBuf::from(s)
}

/// Whether `name` is a temporary file of this module.
pub(super) fn is_tmp(name: &str) -> bool {
    name.strip_suffix(".tmp")
        .and_then(|n| retrace_core::part_of_file_name(n.strip_suffix(".gz").unwrap_or(n)))
        .is_some()
}

/// Replaces part `n` of the log in `dir` by its gzipped copy.
pub(super) fn compress(dir: &Path, n: u32) -> StoreResult<()> {
    let plain = dir.join(part_file_name(n));
    let gz = gz_path(&plain);
    let tmp = tmp_path(&gz);
    let mut src = File::open(&plain).map_err(|e| StoreError::io("cannot open", &plain, e))?;
    let out = File::create(&tmp).map_err(|e| StoreError::io("cannot create", &tmp, e))?;
    let mut enc = GzEncoder::new(out, Compression::default());
    io::copy(&mut src, &mut enc).map_err(|e| StoreError::io("cannot compress into", &tmp, e))?;
    let out = enc
        .finish()
        .map_err(|e| StoreError::io("cannot compress into", &tmp, e))?;
    out.sync_all()
        .map_err(|e| StoreError::io("cannot sync", &tmp, e))?;
    fs::rename(&tmp, &gz).map_err(|e| StoreError::io("cannot rename into place", &gz, e))?;
    sync_dir(dir)?;
    fs::remove_file(&plain).map_err(|e| StoreError::io("cannot remove", &plain, e))?;
    sync_dir(dir)
}

/// Replaces the gzipped part `gz` by its plain copy (for a pop that
/// reaches into it).
pub(super) fn decompress(dir: &Path, gz: &Path, plain: &Path) -> StoreResult<()> {
    let bytes = read_gz(gz)?;
    let tmp = tmp_path(plain);
    let mut out = File::create(&tmp).map_err(|e| StoreError::io("cannot create", &tmp, e))?;
    out.write_all(&bytes)
        .and_then(|()| out.sync_all())
        .map_err(|e| StoreError::io("cannot write", &tmp, e))?;
    fs::rename(&tmp, plain).map_err(|e| StoreError::io("cannot rename into place", plain, e))?;
    sync_dir(dir)?;
    fs::remove_file(gz).map_err(|e| StoreError::io("cannot remove", gz, e))?;
    sync_dir(dir)
}

/// A gzipped part whole; an error if it cannot be decompressed.
fn read_gz(gz: &Path) -> StoreResult<Vec<u8>> {
    let mut bytes = Vec::new();
    match read_gz_partial(gz, &mut bytes)? {
        None => Ok(bytes),
        Some(e) => Err(StoreError::Corrupt {
            path: gz.display().to_string(),
            reason: format!("cannot decompress after {} bytes: {e}", bytes.len()),
        }),
    }
}

/// Decompresses `gz` into `out`; a decompression error comes back with
/// what was decompressed before it kept in `out`.
pub(super) fn read_gz_partial(gz: &Path, out: &mut Vec<u8>) -> StoreResult<Option<io::Error>> {
    let file = File::open(gz).map_err(|e| StoreError::io("cannot open", gz, e))?;
    match MultiGzDecoder::new(file).read_to_end(out) {
        Ok(_) => Ok(None),
        Err(e) => Ok(Some(e)),
    }
}
