//! The content-addressed build cache: entries stored by key in a folder, safe to share between
//! processes running at once.
//!
//! Layout: `<dir>/v1/<first two hex digits>/<32 hex digits>.entry`, where the key is a
//! [`CacheKey`] (docs: `crate::key`). The build driver keys an entry by a variant's module key
//! and stores in it the `.osir` after `-O`, the compilation's warnings, and each output it
//! produced under its output key (one file per variant: creating files is what a cold build
//! pays most for on a busy file system). Every entry file is
//!
//! ```text
//! magic "OSCACHE1" (8 bytes) | payload length, u64 LE | XXH3-64 of the payload, u64 LE | payload
//! ```
//!
//! - **Writes are atomic**: an entry is written to a temporary name in its final folder and
//!   renamed over the final name, so a reader sees the old file, the new one, or none, never a
//!   half-written one; two writers of one key write the same bytes (the key decides them).
//! - **Corruption is detected**: a length or checksum mismatch (a truncated or damaged file)
//!   makes the entry a miss; the caller rebuilds it and the next write replaces the file.
//! - **Least recently used eviction**: a hit sets the entry's modification time to now;
//!   [`Cache::evict`] removes the entries with the oldest times until the folder is at most
//!   90% of the cap. Temporary files left by killed writers are removed after an hour.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use crate::key::CacheKey;

const MAGIC: &[u8; 8] = b"OSCACHE1";
const HEADER: usize = 24;

/// The result of a lookup.
#[derive(Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The payload, checked.
    Hit(Vec<u8>),
    /// No entry.
    Miss,
    /// An entry whose length or checksum is wrong: treated as a miss and rebuilt.
    Corrupt,
}

/// What [`Cache::evict`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Eviction {
    /// Bytes in entries before eviction.
    pub bytes_before: u64,
    /// Bytes in entries after.
    pub bytes_after: u64,
    /// Entries removed.
    pub removed: usize,
}

/// A cache folder.
#[derive(Debug)]
pub struct Cache {
    root: PathBuf,
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl Cache {
    /// Opens (creating when needed) the cache in `dir`.
    pub fn open(dir: &Path) -> io::Result<Cache> {
        let root = dir.join("v1");
        fs::create_dir_all(&root)?;
        Ok(Cache { root })
    }

    /// The folder entries live in (`<dir>/v1`).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The file of an entry.
    pub fn entry_path(&self, key: CacheKey) -> PathBuf {
        let hex = key.to_hex();
        self.root.join(&hex[..2]).join(format!("{hex}.entry"))
    }

    /// Looks an entry up; a hit marks it used (for eviction).
    pub fn get(&self, key: CacheKey) -> Lookup {
        let path = self.entry_path(key);
        // Opened for writing too, to mark the use without opening it again (read-only when
        // the cache is not writable).
        let file = fs::File::options()
            .read(true)
            .write(true)
            .open(&path)
            .or_else(|_| fs::File::open(&path));
        let Ok(mut file) = file else {
            return Lookup::Miss;
        };
        let mut bytes = Vec::new();
        if io::Read::read_to_end(&mut file, &mut bytes).is_err() {
            return Lookup::Miss;
        }
        match decode(&bytes) {
            Some(payload) => {
                // Least recently used: a hit is a use. Failing to mark it only makes it
                // older than it is.
                let _ = file.set_modified(SystemTime::now());
                Lookup::Hit(payload.to_vec())
            }
            None => Lookup::Corrupt,
        }
    }

    /// Stores an entry (atomically: temporary file, then rename).
    pub fn put(&self, key: CacheKey, payload: &[u8]) -> io::Result<()> {
        let path = self.entry_path(key);
        let dir = path.parent().unwrap_or(&self.root);
        fs::create_dir_all(dir)?;
        write_atomic(&path, &encode(payload))
    }

    /// Evicts least recently used entries until the entries take at most 90% of `max_bytes`
    /// (nothing happens while they take at most `max_bytes`), and removes temporary files
    /// older than an hour.
    pub fn evict(&self, max_bytes: u64) -> io::Result<Eviction> {
        let mut entries: Vec<(SystemTime, u64, PathBuf)> = Vec::new();
        let now = SystemTime::now();
        for shard in fs::read_dir(&self.root)? {
            let shard = shard?.path();
            let Ok(files) = fs::read_dir(&shard) else {
                continue;
            };
            for f in files.flatten() {
                let Ok(meta) = f.metadata() else { continue };
                let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                let name = f.file_name();
                if name.to_string_lossy().starts_with(".tmp-") {
                    if now.duration_since(modified).unwrap_or_default() > Duration::from_secs(3600)
                    {
                        let _ = fs::remove_file(f.path());
                    }
                    continue;
                }
                entries.push((modified, meta.len(), f.path()));
            }
        }
        let total: u64 = entries.iter().map(|e| e.1).sum();
        let mut ev = Eviction {
            bytes_before: total,
            bytes_after: total,
            removed: 0,
        };
        if total <= max_bytes {
            return Ok(ev);
        }
        let target = max_bytes / 10 * 9;
        entries.sort();
        for (_, len, path) in entries {
            if ev.bytes_after <= target {
                break;
            }
            // Another build may have removed it first.
            if fs::remove_file(&path).is_ok() {
                ev.removed += 1;
            }
            ev.bytes_after -= len;
        }
        Ok(ev)
    }
}

fn encode(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(payload).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

fn decode(bytes: &[u8]) -> Option<&[u8]> {
    if bytes.len() < HEADER || &bytes[..8] != MAGIC {
        return None;
    }
    let len = u64::from_le_bytes(bytes[8..16].try_into().ok()?);
    let sum = u64::from_le_bytes(bytes[16..24].try_into().ok()?);
    let payload = &bytes[HEADER..];
    (payload.len() as u64 == len && xxhash_rust::xxh3::xxh3_64(payload) == sum).then_some(payload)
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename, so
/// that no reader ever sees part of the file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(
        ".tmp-{}-{}-{name}",
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        drop(f);
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: u8) -> CacheKey {
        CacheKey([n; 16])
    }

    #[test]
    fn entries_round_trip_and_damage_is_detected() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        assert_eq!(cache.get(key(1)), Lookup::Miss);
        cache.put(key(1), b"hello").unwrap();
        assert_eq!(cache.get(key(1)), Lookup::Hit(b"hello".to_vec()));
        assert_eq!(cache.get(key(2)), Lookup::Miss);
        let path = cache.entry_path(key(1));
        let mut bytes = fs::read(&path).unwrap();
        // A flipped payload byte, a truncated file, a wrong magic.
        *bytes.last_mut().unwrap() ^= 1;
        fs::write(&path, &bytes).unwrap();
        assert_eq!(cache.get(key(1)), Lookup::Corrupt);
        fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        assert_eq!(cache.get(key(1)), Lookup::Corrupt);
        fs::write(&path, b"OSCACHE").unwrap();
        assert_eq!(cache.get(key(1)), Lookup::Corrupt);
        // A new write replaces the damaged entry.
        cache.put(key(1), b"hello").unwrap();
        assert_eq!(cache.get(key(1)), Lookup::Hit(b"hello".to_vec()));
    }

    #[test]
    fn eviction_removes_the_least_recently_used_first() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        let payload = vec![7u8; 1000];
        let t0 = SystemTime::now() - Duration::from_secs(1000);
        for n in 0..10u8 {
            cache.put(key(n), &payload).unwrap();
            // Entry n was last used at t0 + n seconds.
            let f = fs::File::options()
                .write(true)
                .open(cache.entry_path(key(n)))
                .unwrap();
            f.set_modified(t0 + Duration::from_secs(n as u64)).unwrap();
        }
        // Using entry 0 makes it the most recent.
        assert!(matches!(cache.get(key(0)), Lookup::Hit(_)));
        let entry = (HEADER + 1000) as u64;
        // Under the cap: nothing happens.
        assert_eq!(cache.evict(10 * entry).unwrap().removed, 0);
        // A cap of 5 entries keeps 90% of it: 4 entries, the most recently used.
        let ev = cache.evict(5 * entry).unwrap();
        assert_eq!(ev.removed, 6);
        assert!(ev.bytes_after <= 5 * entry / 10 * 9);
        let kept: Vec<u8> = (0..10)
            .filter(|&n| cache.entry_path(key(n)).exists())
            .collect();
        assert_eq!(kept, vec![0, 7, 8, 9]);
    }

    #[test]
    fn concurrent_writers_and_readers_never_see_a_partial_entry() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        let payload: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..20 {
                        cache.put(key(9), &payload).unwrap();
                    }
                });
                s.spawn(|| {
                    for _ in 0..50 {
                        match cache.get(key(9)) {
                            Lookup::Hit(p) => assert!(p == payload),
                            Lookup::Miss => {}
                            Lookup::Corrupt => panic!("a reader saw a partial entry"),
                        }
                    }
                });
            }
        });
        // No temporary file is left behind.
        let leftovers = fs::read_dir(cache.entry_path(key(9)).parent().unwrap())
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .starts_with(".tmp-")
            })
            .count();
        assert_eq!(leftovers, 0);
    }
}
