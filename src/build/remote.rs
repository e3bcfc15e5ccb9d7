//! The remote build cache: build outputs shared between machines through an HTTP cache
//! server speaking Bazel's HTTP remote-cache protocol (bazel-remote, nginx with WebDAV, a
//! commercial service). docs/build.md describes it for users.
//!
//! Two kinds of objects, under a base URL:
//!
//! - `GET`/`PUT <base>/cas/<sha256>`: a blob (an output's bytes, a module, the warnings), named
//!   by the SHA-256 of its content;
//! - `GET`/`PUT <base>/ac/<sha256>`: an action result, Bazel's `ActionResult` protocol-buffer
//!   message, under the SHA-256 of a tag and the variant's module key ([`action_key`]): it lists
//!   the variant's files (`osir`, `warnings`, `out/<output key>`) with their digests.
//!
//! The module key covers everything the local cache's key covers (it *is* the local cache's
//! key), so a remote entry is never stale. Every blob is checked against its digest (SHA-256
//! and size) when it is read; one that does not match, or does not decode, is ignored and
//! reported, and the variant is built locally. A server that fails (refused, timeout, a
//! 5xx or an unexpected status, a body that cannot be read) is used no more in this build:
//! one warning, and the build goes on locally. Uploads happen only when asked for
//! ([`RemoteConfig::upload`]).

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use sha2::{Digest as _, Sha256};

use crate::key::CacheKey;

/// The largest blob or action result read from a server (1 GiB).
const MAX_BODY: u64 = 1 << 30;

/// The environment variable that holds the `Authorization` header's value, unless the
/// manifest's `[cache] auth_env` names another.
pub const DEFAULT_AUTH_ENV: &str = "ONESHADER_REMOTE_CACHE_AUTH";

/// How to reach a remote cache.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteConfig {
    /// The base URL (`http://` or `https://`), without a trailing `/`.
    pub url: String,
    /// Upload what this build compiles (off unless asked for: CI machines upload, developer
    /// machines read).
    pub upload: bool,
    /// The `Authorization` header's value sent with every request, if any.
    pub authorization: Option<String>,
    /// The timeout of each request (connecting, sending, receiving).
    pub timeout: Duration,
}

impl RemoteConfig {
    /// A configuration for `url` (checked: `http://` or `https://` and a host), reading
    /// nothing, uploading nothing, with a 30 s timeout per request.
    pub fn new(url: &str) -> Result<RemoteConfig, String> {
        let rest = url
            .strip_prefix("http://")
            .or_else(|| url.strip_prefix("https://"))
            .ok_or_else(|| {
                format!("remote cache URL `{url}` must start with http:// or https://")
            })?;
        if rest.is_empty() || rest.starts_with('/') {
            return Err(format!("remote cache URL `{url}` has no host"));
        }
        if url.contains(['?', '#']) {
            return Err(format!(
                "remote cache URL `{url}` must not have a query or a fragment"
            ));
        }
        Ok(RemoteConfig {
            url: url.trim_end_matches('/').to_string(),
            upload: false,
            authorization: None,
            timeout: Duration::from_secs(30),
        })
    }
}

/// A blob's name: the SHA-256 of its content (lowercase hex) and its size, as Bazel's
/// `Digest` message.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct Digest {
    /// Lowercase hex SHA-256.
    #[prost(string, tag = "1")]
    pub hash: String,
    /// Size in bytes.
    #[prost(int64, tag = "2")]
    pub size_bytes: i64,
}

impl Digest {
    /// The digest of `bytes`.
    pub fn of(bytes: &[u8]) -> Digest {
        Digest {
            hash: sha256_hex(bytes),
            size_bytes: bytes.len() as i64,
        }
    }

    /// Whether `bytes` are the blob this digest names.
    pub fn matches(&self, bytes: &[u8]) -> bool {
        bytes.len() as i64 == self.size_bytes && sha256_hex(bytes) == self.hash
    }

    /// A well-formed digest: 64 lowercase hex digits and a size that is not negative.
    fn well_formed(&self) -> bool {
        self.hash.len() == 64
            && self
                .hash
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            && self.size_bytes >= 0
    }
}

/// One file of an action result (Bazel's `OutputFile`: path and digest).
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct OutputFile {
    /// The file's name in the action result (`osir`, `warnings`, `out/<output key>`).
    #[prost(string, tag = "1")]
    pub path: String,
    /// Its content's digest.
    #[prost(message, optional, tag = "2")]
    pub digest: Option<Digest>,
}

/// An action result (the fields of Bazel's `ActionResult` this cache uses: the output files
/// and the exit code, always 0, so servers that check results accept it).
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct ActionResult {
    /// The variant's files.
    #[prost(message, repeated, tag = "2")]
    pub output_files: Vec<OutputFile>,
    /// The exit code (0).
    #[prost(int32, tag = "4")]
    pub exit_code: i32,
}

impl ActionResult {
    /// The digest of the file named `path`.
    pub fn file(&self, path: &str) -> Option<&Digest> {
        self.output_files
            .iter()
            .find(|f| f.path == path)
            .and_then(|f| f.digest.as_ref())
    }
}

/// The lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let d = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in d {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// The action-cache key of a variant: the SHA-256 of a tag naming this layout and the
/// variant's module key (which covers every input and setting, and the compiler's identity).
pub fn action_key(module: CacheKey) -> String {
    let mut bytes = b"oneshader remote cache v1\0".to_vec();
    bytes.extend_from_slice(&module.0);
    sha256_hex(&bytes)
}

/// The action result's name of the output under `key`.
pub fn output_path(key: CacheKey) -> String {
    format!("out/{}", key.to_hex())
}

/// What the remote cache did in one build.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct RemoteReport {
    /// The base URL.
    pub url: String,
    /// Variants whose every output came from the server.
    pub hits: usize,
    /// Variants looked up and not found (or found incomplete).
    pub misses: usize,
    /// Blobs ignored because they did not match their digest or did not decode.
    pub rejected: usize,
    /// Blobs and action results uploaded.
    pub uploaded: usize,
    /// Whether the server failed and was given up for the rest of the build.
    pub failed: bool,
}

/// The result of one `GET`.
enum Got {
    Found(Vec<u8>),
    Missing,
    Failed,
}

/// A remote cache for one build: an HTTP agent, the configuration, and what happened.
pub struct Remote {
    agent: ureq::Agent,
    config: RemoteConfig,
    /// A request failed: no more requests in this build.
    down: AtomicBool,
    /// An upload failed: no more uploads in this build.
    upload_down: AtomicBool,
    hits: AtomicUsize,
    misses: AtomicUsize,
    rejected: AtomicUsize,
    uploaded: AtomicUsize,
    warnings: Mutex<BTreeSet<String>>,
}

impl std::fmt::Debug for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remote")
            .field("url", &self.config.url)
            .field("upload", &self.config.upload)
            .finish_non_exhaustive()
    }
}

impl Remote {
    /// A client for `config` (no request is made yet).
    pub fn new(config: RemoteConfig) -> Remote {
        let tls = ureq::tls::TlsConfig::builder()
            .root_certs(ureq::tls::RootCerts::PlatformVerifier)
            .build();
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(config.timeout))
            .timeout_global(Some(config.timeout))
            .max_redirects(0)
            .tls_config(tls)
            .build()
            .into();
        Remote {
            agent,
            config,
            down: AtomicBool::new(false),
            upload_down: AtomicBool::new(false),
            hits: AtomicUsize::new(0),
            misses: AtomicUsize::new(0),
            rejected: AtomicUsize::new(0),
            uploaded: AtomicUsize::new(0),
            warnings: Mutex::new(BTreeSet::new()),
        }
    }

    /// Whether this build uploads.
    pub fn uploads(&self) -> bool {
        self.config.upload && !self.down.load(Ordering::Relaxed)
    }

    /// The action result of the variant with this module key, if the server has one that
    /// decodes.
    pub fn get_action(&self, module: CacheKey) -> Option<ActionResult> {
        let path = format!("ac/{}", action_key(module));
        match self.get(&path) {
            Got::Found(bytes) => match <ActionResult as prost::Message>::decode(bytes.as_slice()) {
                Ok(a)
                    if a.output_files
                        .iter()
                        .all(|f| f.digest.as_ref().is_some_and(Digest::well_formed)) =>
                {
                    Some(a)
                }
                Ok(_) => {
                    self.reject(&path, "an output file without a well-formed digest");
                    None
                }
                Err(e) => {
                    self.reject(&path, &format!("not an ActionResult: {e}"));
                    None
                }
            },
            Got::Missing | Got::Failed => None,
        }
    }

    /// The blob named `digest`, checked against it: `None` when the server has no such blob,
    /// fails, or sends other bytes (reported).
    pub fn get_blob(&self, digest: &Digest) -> Option<Vec<u8>> {
        if !digest.well_formed() {
            return None;
        }
        let path = format!("cas/{}", digest.hash);
        match self.get(&path) {
            Got::Found(bytes) if digest.matches(&bytes) => Some(bytes),
            Got::Found(bytes) => {
                self.reject(
                    &path,
                    &format!(
                        "{} bytes that do not match its digest (damaged or forged)",
                        bytes.len()
                    ),
                );
                None
            }
            Got::Missing | Got::Failed => None,
        }
    }

    /// Reports a blob or action result that was read but cannot be used.
    pub fn reject(&self, path: &str, why: &str) {
        self.rejected.fetch_add(1, Ordering::Relaxed);
        self.warn(format!(
            "warning[OSD0008]: the remote cache's {}/{path} was ignored: {why}; its variant is built locally",
            self.config.url
        ));
    }

    /// Uploads a blob (when uploading); its digest.
    pub fn put_blob(&self, bytes: &[u8]) -> Digest {
        let d = Digest::of(bytes);
        self.put(&format!("cas/{}", d.hash), bytes);
        d
    }

    /// Uploads an action result (when uploading).
    pub fn put_action(&self, module: CacheKey, result: &ActionResult) {
        let bytes = prost::Message::encode_to_vec(result);
        self.put(&format!("ac/{}", action_key(module)), &bytes);
    }

    /// Counts a variant whose every output came from the server.
    pub fn count_hit(&self) {
        self.hits.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a variant the server could not give whole.
    pub fn count_miss(&self) {
        self.misses.fetch_add(1, Ordering::Relaxed);
    }

    /// What happened, for the build report.
    pub fn report(&self) -> RemoteReport {
        RemoteReport {
            url: self.config.url.clone(),
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            rejected: self.rejected.load(Ordering::Relaxed),
            uploaded: self.uploaded.load(Ordering::Relaxed),
            failed: self.down.load(Ordering::Relaxed),
        }
    }

    /// The warnings so far, each once, sorted.
    pub fn warnings(&self) -> Vec<String> {
        self.warnings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .cloned()
            .collect()
    }

    fn warn(&self, w: String) {
        self.warnings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(w);
    }

    /// Gives the server up for this build, with one warning (the first failure's).
    fn fail(&self, what: &str) {
        if !self.down.swap(true, Ordering::Relaxed) {
            self.warn(format!(
                "warning[OSD0008]: the remote cache {} failed ({what}); building locally without it",
                self.config.url
            ));
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}/{path}", self.config.url)
    }

    fn get(&self, path: &str) -> Got {
        if self.down.load(Ordering::Relaxed) {
            return Got::Failed;
        }
        let url = self.url(path);
        let mut req = self.agent.get(&url);
        if let Some(a) = &self.config.authorization {
            req = req.header("Authorization", a);
        }
        match req.call() {
            Ok(mut resp) => match resp.status().as_u16() {
                200 => match resp.body_mut().with_config().limit(MAX_BODY).read_to_vec() {
                    Ok(b) => Got::Found(b),
                    Err(e) => {
                        self.fail(&format!("GET {url}: reading the body: {e}"));
                        Got::Failed
                    }
                },
                404 => Got::Missing,
                s => {
                    self.fail(&format!("GET {url}: HTTP status {s}"));
                    Got::Failed
                }
            },
            Err(e) => {
                self.fail(&format!("GET {url}: {e}"));
                Got::Failed
            }
        }
    }

    fn put(&self, path: &str, bytes: &[u8]) {
        if !self.config.upload
            || self.down.load(Ordering::Relaxed)
            || self.upload_down.load(Ordering::Relaxed)
        {
            return;
        }
        let url = self.url(path);
        let mut req = self.agent.put(&url);
        if let Some(a) = &self.config.authorization {
            req = req.header("Authorization", a);
        }
        let failure = match req.send(bytes) {
            Ok(resp) if resp.status().is_success() => {
                self.uploaded.fetch_add(1, Ordering::Relaxed);
                return;
            }
            Ok(resp) => format!("HTTP status {}", resp.status().as_u16()),
            Err(e) => e.to_string(),
        };
        if !self.upload_down.swap(true, Ordering::Relaxed) {
            self.warn(format!(
                "warning[OSD0008]: cannot upload to the remote cache (PUT {url}: {failure}); the build goes on without uploading"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_matches_the_standard_test_vectors() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn digests_check_size_and_hash() {
        let d = Digest::of(b"hello");
        assert!(d.matches(b"hello"));
        assert!(!d.matches(b"hellp"));
        assert!(!d.matches(b"hell"));
        assert!(d.well_formed());
        let bad = Digest {
            hash: "../etc".into(),
            size_bytes: 5,
        };
        assert!(!bad.well_formed());
    }

    #[test]
    fn action_results_are_bazels_wire_format() {
        // ActionResult { output_files: [OutputFile { path: "a", digest: { hash: "h", size: 3 } }] }
        // encoded by hand from remote_execution.proto's field numbers.
        let a = ActionResult {
            output_files: vec![OutputFile {
                path: "a".into(),
                digest: Some(Digest {
                    hash: "h".into(),
                    size_bytes: 3,
                }),
            }],
            exit_code: 0,
        };
        let bytes = prost::Message::encode_to_vec(&a);
        let expected = [
            0x12, 0x0a, // field 2 (output_files), 10 bytes
            0x0a, 0x01, b'a', // path = "a"
            0x12, 0x05, // digest, 5 bytes
            0x0a, 0x01, b'h', // hash = "h"
            0x10, 0x03, // size_bytes = 3
        ];
        assert_eq!(bytes, expected);
        let back = <ActionResult as prost::Message>::decode(bytes.as_slice()).unwrap();
        assert_eq!(back, a);
        assert_eq!(back.file("a").map(|d| d.size_bytes), Some(3));
    }

    #[test]
    fn urls_are_checked() {
        assert_eq!(
            RemoteConfig::new("http://127.0.0.1:9/cache/").unwrap().url,
            "http://127.0.0.1:9/cache"
        );
        assert!(RemoteConfig::new("https://cache.example").is_ok());
        assert!(RemoteConfig::new("ftp://x").is_err());
        assert!(RemoteConfig::new("http://").is_err());
        assert!(RemoteConfig::new("http://x/?a=1").is_err());
    }

    #[test]
    fn action_keys_differ_by_module_key() {
        let a = action_key(CacheKey([1; 16]));
        let b = action_key(CacheKey([2; 16]));
        assert_ne!(a, b);
        assert_eq!(a.len(), 64);
    }
}
