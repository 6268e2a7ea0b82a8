//! The digest of a vector set: SHA-256 over its files in path order (also compiled into the build
//! script, which stamps the built-in set with it).

use sha2::{Digest as _, Sha256};

/// The digest of a set of files, each given by its path relative to the set's folder (`/`
/// separators) and its bytes, as 64 lowercase hex digits.
///
/// The files are taken in byte order of their paths; each contributes its path in UTF-8, a NUL
/// byte, its length in bytes as a little-endian 64-bit number, then its bytes. So any tool can
/// recompute it, and renaming, moving or editing any file changes it.
pub fn set_digest(files: &[(&str, &[u8])]) -> String {
    let mut order: Vec<&(&str, &[u8])> = files.iter().collect();
    order.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut hasher = Sha256::new();
    for (path, bytes) in order {
        hasher.update(path.as_bytes());
        hasher.update([0]);
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    }
    hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}
