//! The remote build cache against a real HTTP cache server: Debian's nginx with its WebDAV
//! module (`PUT`), started on a free port of 127.0.0.1 with a generated configuration (the
//! layout bazel-remote and Bazel's HTTP cache protocol use: `/cas/<sha256>`, `/ac/<sha256>`).
//! A second machine (another checkout, another cache folder) gets every output from the
//! server byte-identical, an edited header rebuilds exactly its includers, a damaged or forged
//! blob is detected and rebuilt, a server that is down, fails, or is killed mid-build leaves
//! a correct local build with one warning, and read-only mode writes nothing.

use std::collections::BTreeMap;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use oneshader::build::{self, BuildOptions, BuildReport, Progress, Status, VariantReport};

const COMMON: &str = "#define SCALE 2.0\nfloat scaled(float x) { return x * SCALE; }\n";

const A: &str = r#"#include "common.hlsli"
RWStructuredBuffer<float> data : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { data[id.x] = scaled(data[id.x]) + MODE; }
"#;

const B: &str = r#"#include "common.hlsli"
RWStructuredBuffer<float> data : register(u0);
[numthreads(32, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { data[id.x] = scaled(data[id.x] + 1.0); }
"#;

const C: &str = r#"RWStructuredBuffer<uint> data : register(u0);
[[vk::constant_id(3)]] const uint kStep = 1;
[numthreads(16, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { data[id.x] += kStep * EXTRA; }
"#;

/// Five variants: a (MODE 0, 1) and b include common.hlsli, c (kStep 1, 2) does not.
const MANIFEST: &str = r#"out_dir = "out"

[defaults]
targets = ["spirv", "osir"]

[[shader]]
file = "a.hlsl"
profile = "cs_6_0"
permutations = { MODE = [0, 1] }

[[shader]]
file = "b.hlsl"
profile = "cs_6_0"

[[shader]]
file = "c.hlsl"
profile = "cs_6_0"
defines = ["EXTRA=3"]
spec_constants = { kStep = [1, 2] }
targets = ["spirv", "spirv-asm", "glsl", "reflection"]
"#;

// ---- the server ---------------------------------------------------------------------------

/// An nginx serving a WebDAV folder on 127.0.0.1, stopped when dropped.
struct Nginx {
    child: Option<Child>,
    dir: tempfile::TempDir,
    port: u16,
}

/// The nginx binary, or a failure naming `cargo xtask setup`.
fn nginx_binary() -> PathBuf {
    let on_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default();
    on_path
        .into_iter()
        .chain([PathBuf::from("/usr/sbin")])
        .map(|d| d.join("nginx"))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!(
                "`nginx` is not installed: run `cargo xtask setup` (it installs nginx-light, the \
                 HTTP cache server the remote-cache tests run)"
            )
        })
}

/// The tests' server block: `/cache/` stores, `/auth/` wants `Bearer sekrit`, `/broken/`
/// answers 503. `{listen}` and `{root}` are filled in.
const SERVER: &str = r#"server {
    listen {listen};
    root {root};
    location /cache/ {
        dav_methods PUT;
        create_full_put_path on;
    }
    location /auth/ {
        if ($http_authorization != "Bearer sekrit") { return 401; }
        dav_methods PUT;
        create_full_put_path on;
    }
    location /broken/ {
        return 503;
    }
}"#;

/// The file under the server's root that tells the test's server from another one.
const TOKEN: &str = "whoami.txt";

impl Nginx {
    fn start() -> Nginx {
        Nginx::start_with(SERVER)
    }

    /// Starts nginx with `server` (a `server { ... }` block, `{listen}` and `{root}` filled
    /// in with a free port of 127.0.0.1 and a temporary folder). The port is chosen by binding
    /// and releasing it, so another test's server may take it first: the server is ours only
    /// when it serves this server's own token file; otherwise another port is tried.
    fn start_with(server: &str) -> Nginx {
        for _ in 0..20 {
            if let Some(n) = Nginx::try_start(server) {
                return n;
            }
        }
        panic!("nginx could not get a free port in 20 tries");
    }

    /// One try of [`Nginx::start_with`]: `None` when the port was not ours.
    fn try_start(server: &str) -> Option<Nginx> {
        let nginx = nginx_binary();
        let dir = tempfile::tempdir().expect("temp dir");
        for sub in ["store", "tmp"] {
            std::fs::create_dir_all(dir.path().join(sub)).expect("mkdir");
        }
        // What only this server serves.
        let token = format!("{}", dir.path().display());
        std::fs::write(dir.path().join("store").join(TOKEN), &token).expect("write the token");
        // A free port: bound by the system, released, then given to nginx.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let d = dir.path().display();
        let server = server
            .replace("{listen}", &format!("127.0.0.1:{port}"))
            .replace("{root}", &format!("{d}/store"));
        let conf = format!(
            r#"daemon off;
master_process off;
pid {d}/nginx.pid;
error_log {d}/error.log;
events {{ worker_connections 64; }}
http {{
    access_log {d}/access.log;
    client_body_temp_path {d}/tmp;
    proxy_temp_path {d}/tmp;
    fastcgi_temp_path {d}/tmp;
    uwsgi_temp_path {d}/tmp;
    scgi_temp_path {d}/tmp;
    client_max_body_size 0;
    {server}
}}
"#
        );
        let conf_path = dir.path().join("nginx.conf");
        std::fs::write(&conf_path, conf).expect("write nginx.conf");
        let child = Command::new(&nginx)
            .arg("-p")
            .arg(dir.path())
            .arg("-e")
            .arg(dir.path().join("error.log"))
            .arg("-c")
            .arg(&conf_path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", nginx.display()));
        let mut server = Nginx {
            child: Some(child),
            dir,
            port,
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(c) = server.child.as_mut()
                && let Ok(Some(status)) = c.try_wait()
            {
                let log = std::fs::read_to_string(server.dir.path().join("error.log"))
                    .unwrap_or_default();
                if log.contains("Address already in use") {
                    server.child = None;
                    return None;
                }
                panic!("nginx exited with {status}:\n{log}");
            }
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                let url = format!("http://127.0.0.1:{port}/{TOKEN}");
                // Another server on the port answers otherwise: ours then fails to bind
                // and exits.
                let body = ureq::get(&url)
                    .call()
                    .ok()
                    .and_then(|mut r| r.body_mut().read_to_string().ok());
                if body.as_deref() == Some(token.as_str()) {
                    return Some(server);
                }
            }
            assert!(Instant::now() < deadline, "nginx did not start listening");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The cache's base URL (`location` `/cache/`, or `/auth/`, `/broken/`).
    fn url(&self, location: &str) -> String {
        format!("http://127.0.0.1:{}/{location}", self.port)
    }

    /// Every file the server stores, relative to its root, sorted.
    fn files(&self) -> Vec<String> {
        let root = self.dir.path().join("store");
        let mut out = Vec::new();
        let mut stack = vec![root.clone()];
        while let Some(d) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&d) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    let rel = p.strip_prefix(&root).expect("under the root");
                    // The server's own token (`try_start`) is not the cache's.
                    if rel != Path::new(TOKEN) {
                        out.push(rel.display().to_string());
                    }
                }
            }
        }
        out.sort();
        out
    }

    /// A stored file's path.
    fn stored(&self, rel: &str) -> PathBuf {
        self.dir.path().join("store").join(rel)
    }

    /// The request lines the server logged (`GET /cache/ac/...`).
    fn requests(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.path().join("access.log"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.split('"').nth(1).map(str::to_string))
            .collect()
    }

    /// Kills the server; the port then refuses connections.
    fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        self.stop();
    }
}

// ---- the machines -------------------------------------------------------------------------

/// The project with its own cache folder: one machine. The machines of a test share the
/// checkout's folder (an `.osir` output names its source files by path, which no key covers:
/// see docs/build.md), each with its own cache folder.
struct Machine {
    dir: std::rc::Rc<tempfile::TempDir>,
    cache: &'static str,
}

impl Machine {
    fn new() -> Machine {
        let dir = std::rc::Rc::new(tempfile::tempdir().expect("temp dir"));
        let m = Machine {
            dir,
            cache: "cache",
        };
        m.write("common.hlsli", COMMON);
        m.write("a.hlsl", A);
        m.write("b.hlsl", B);
        m.write("c.hlsl", C);
        m.write("oneshader.toml", MANIFEST);
        m
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Another machine: the same checkout, the outputs removed, an empty cache folder.
    fn another(&self, cache: &'static str) -> Machine {
        let _ = std::fs::remove_dir_all(self.path("out"));
        Machine {
            dir: self.dir.clone(),
            cache,
        }
    }

    fn write(&self, rel: &str, text: &str) {
        std::fs::write(self.path(rel), text).expect("write");
    }

    fn options(&self, remote: &str, upload: bool) -> BuildOptions {
        BuildOptions {
            jobs: Some(2),
            identity: Some("test compiler 1".into()),
            cache_dir: Some(self.path(self.cache)),
            remote_cache: Some(remote.to_string()),
            remote_cache_upload: Some(upload),
            ..BuildOptions::new(self.path("oneshader.toml"))
        }
    }

    fn build(&self, remote: &str, upload: bool) -> BuildReport {
        build_ok(&self.options(remote, upload), &build::NoProgress)
    }

    /// Every output file's bytes, by path relative to the output folder.
    fn outputs(&self) -> BTreeMap<String, Vec<u8>> {
        let root = self.path("out");
        let mut out = BTreeMap::new();
        for e in std::fs::read_dir(&root).expect("outputs") {
            let p = e.expect("entry").path();
            let name = p
                .file_name()
                .expect("a name")
                .to_string_lossy()
                .into_owned();
            out.insert(name, std::fs::read(&p).expect("read"));
        }
        out
    }
}

fn build_ok(opts: &BuildOptions, progress: &dyn Progress) -> BuildReport {
    let r = build::build_with_progress(opts, progress).expect("the manifest is valid");
    assert!(r.success(), "{}", r.render_failures());
    r
}

/// The variants compiled (not from a cache).
fn rebuilt(r: &BuildReport) -> Vec<String> {
    r.variants
        .iter()
        .filter(|v| v.status == Status::Built)
        .map(|v| v.variant.clone())
        .collect()
}

/// The remote-cache warnings of a build.
fn remote_warnings(r: &BuildReport) -> Vec<&String> {
    r.warnings
        .iter()
        .filter(|w| w.contains("OSD0008"))
        .collect()
}

/// Machine A: a cold build against an empty server, uploading; its outputs.
fn machine_a(server: &Nginx) -> (Machine, BTreeMap<String, Vec<u8>>) {
    let a = Machine::new();
    let r = a.build(&server.url("cache"), true);
    assert_eq!((r.built, r.cached), (5, 0));
    let remote = r.remote.as_ref().expect("a remote cache was used");
    assert_eq!((remote.hits, remote.misses, remote.rejected), (0, 5, 0));
    assert!(remote.uploaded > 0);
    assert!(remote_warnings(&r).is_empty(), "{:?}", r.warnings);
    let outputs = a.outputs();
    (a, outputs)
}

// ---- the tests ----------------------------------------------------------------------------

#[test]
fn a_second_machine_gets_every_output_from_the_server_byte_identical() {
    let server = Nginx::start();
    let (a, a_out) = machine_a(&server);
    let files = server.files();
    // One action result per variant, blobs by SHA-256.
    assert_eq!(
        files.iter().filter(|f| f.starts_with("cache/ac/")).count(),
        5
    );
    assert!(files.iter().any(|f| f.starts_with("cache/cas/")));
    for f in files.iter().filter(|f| f.starts_with("cache/cas/")) {
        let bytes = std::fs::read(server.stored(f)).expect("read");
        let name = f.rsplit('/').next().expect("a name");
        assert_eq!(
            build::remote::sha256_hex(&bytes),
            name,
            "{f} is named by its digest"
        );
    }
    // Machine B: another checkout, an empty cache folder, reading only.
    let b = a.another("cache-b");
    let puts_before = server
        .requests()
        .iter()
        .filter(|r| r.starts_with("PUT"))
        .count();
    let r = b.build(&server.url("cache"), false);
    assert_eq!(rebuilt(&r), Vec::<String>::new(), "zero compiles");
    assert_eq!(r.cached, 5);
    assert!(r.variants.iter().all(|v| v.remote_hit));
    let remote = r.remote.as_ref().expect("remote used");
    assert_eq!(
        (remote.hits, remote.misses, remote.rejected, remote.uploaded),
        (5, 0, 0, 0)
    );
    assert!(
        r.summary().contains("5 cached (5 from the remote cache)"),
        "{}",
        r.summary()
    );
    assert_eq!(b.outputs(), a_out, "byte-identical outputs");
    let puts_after = server
        .requests()
        .iter()
        .filter(|r| r.starts_with("PUT"))
        .count();
    assert_eq!(puts_before, puts_after, "a reading machine uploads nothing");
    // The remote hits were written into B's local cache: with the server gone, B is warm.
    drop(server);
    let mut local = b.options("http://127.0.0.1:9/unused", false);
    local.remote_cache = None;
    let r = build_ok(&local, &build::NoProgress);
    assert_eq!((r.built, r.cached), (0, 5));
    assert!(r.remote.is_none());
}

#[test]
fn an_edited_header_recompiles_exactly_its_shaders_and_the_rest_comes_from_the_server() {
    let server = Nginx::start();
    let (a, a_out) = machine_a(&server);
    let b = a.another("cache-b");
    // At the end, so no position in the outputs moves.
    b.write("common.hlsli", &format!("{COMMON}// edited on machine B\n"));
    let r = b.build(&server.url("cache"), false);
    assert_eq!(
        rebuilt(&r),
        vec![
            "a.hlsl:main [MODE=0]",
            "a.hlsl:main [MODE=1]",
            "b.hlsl:main"
        ],
        "the includers of common.hlsli"
    );
    assert_eq!(r.remote.as_ref().map(|x| x.hits), Some(2));
    // A trailing comment changes no code: what B compiled equals what A uploaded, but for
    // the module key each `.osir` carries (the header's text is in it).
    let code = |o: BTreeMap<String, Vec<u8>>| -> BTreeMap<String, Vec<u8>> {
        o.into_iter()
            .filter(|(n, _)| !n.ends_with(".osir"))
            .collect()
    };
    let b_out = b.outputs();
    assert_eq!(code(b_out.clone()), code(a_out.clone()));
    for (name, bytes) in &b_out {
        let c_output = name.starts_with("c.");
        assert_eq!(
            &a_out[name] == bytes,
            c_output || !name.ends_with(".osir"),
            "{name}"
        );
    }
}

#[test]
fn a_forged_or_damaged_blob_on_the_server_is_detected_and_rebuilt() {
    let server = Nginx::start();
    let (a, a_out) = machine_a(&server);
    // Forge every blob: same name, other bytes (the first one cut short, as a truncated
    // upload would leave it).
    let cas: Vec<String> = server
        .files()
        .into_iter()
        .filter(|f| f.starts_with("cache/cas/"))
        .collect();
    for (i, f) in cas.iter().enumerate() {
        let path = server.stored(f);
        let mut bytes = std::fs::read(&path).expect("read");
        if i == 0 {
            bytes.truncate(bytes.len() / 2);
        } else {
            bytes.push(0);
            bytes[0] ^= 0xff;
        }
        std::fs::write(&path, bytes).expect("forge");
    }
    let b = a.another("cache-b");
    let r = b.build(&server.url("cache"), true);
    assert_eq!(r.built, 5, "nothing forged was used");
    let remote = r.remote.as_ref().expect("remote used");
    assert_eq!(remote.hits, 0);
    assert!(remote.rejected >= 5, "{remote:?}");
    let warnings = remote_warnings(&r);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("do not match its digest") && w.contains("/cas/")),
        "{warnings:?}"
    );
    assert_eq!(b.outputs(), a_out, "the rebuilt outputs are right");
    // B uploaded the right blobs again: machine C gets everything from the server.
    let c = a.another("cache-c");
    let r = c.build(&server.url("cache"), false);
    assert_eq!((r.built, r.cached), (0, 5));
    assert_eq!(c.outputs(), a_out);
}

#[test]
fn a_garbage_action_result_is_ignored_and_rebuilt() {
    let server = Nginx::start();
    let (a, a_out) = machine_a(&server);
    for f in server.files().iter().filter(|f| f.starts_with("cache/ac/")) {
        std::fs::write(server.stored(f), b"\xff\xff\xff not a protocol buffer").expect("write");
    }
    let b = a.another("cache-b");
    let r = b.build(&server.url("cache"), false);
    assert_eq!(r.built, 5);
    assert_eq!(r.remote.as_ref().map(|x| x.rejected), Some(5));
    assert!(
        remote_warnings(&r)
            .iter()
            .any(|w| w.contains("not an ActionResult")),
        "{:?}",
        r.warnings
    );
    assert_eq!(b.outputs(), a_out);
}

#[test]
fn a_server_that_is_down_gives_a_local_build_and_one_warning() {
    let mut server = Nginx::start();
    let url = server.url("cache");
    server.stop();
    let m = Machine::new();
    let r = m.build(&url, true);
    assert_eq!((r.built, r.cached), (5, 0));
    let warnings = remote_warnings(&r);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("failed") && warnings[0].contains(&url),
        "{warnings:?}"
    );
    assert!(r.remote.as_ref().is_some_and(|x| x.failed));
    // The local cache still works.
    let r = m.build(&url, true);
    assert_eq!(r.cached, 5);
}

#[test]
fn a_server_answering_503_gives_a_local_build_and_one_warning() {
    let server = Nginx::start();
    let m = Machine::new();
    let r = m.build(&server.url("broken"), true);
    assert_eq!(r.built, 5);
    let warnings = remote_warnings(&r);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("503"), "{warnings:?}");
}

/// Kills the server when the first variant is done.
struct KillAfterFirst<'a>(&'a std::sync::Mutex<Nginx>);

impl Progress for KillAfterFirst<'_> {
    fn variant_done(&self, _: &VariantReport) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).stop();
    }
}

#[test]
fn the_server_killed_mid_build_leaves_a_correct_local_build() {
    let server = Nginx::start();
    let (a, a_out) = machine_a(&server);
    let url = server.url("cache");
    let server = std::sync::Mutex::new(server);
    let b = a.another("cache-b");
    let mut opts = b.options(&url, false);
    opts.jobs = Some(1);
    let r = build_ok(&opts, &KillAfterFirst(&server));
    let remote = r.remote.as_ref().expect("remote used");
    assert!(
        remote.hits >= 1,
        "the first variant came from the server: {remote:?}"
    );
    assert!(r.built >= 1, "the rest was built locally");
    assert_eq!(r.built + r.cached, 5);
    assert_eq!(remote_warnings(&r).len(), 1, "{:?}", r.warnings);
    assert_eq!(b.outputs(), a_out);
}

#[test]
fn read_only_mode_writes_nothing_to_the_server() {
    let server = Nginx::start();
    let m = Machine::new();
    let r = m.build(&server.url("cache"), false);
    assert_eq!(r.built, 5);
    assert_eq!(server.files(), Vec::<String>::new());
    assert!(server.requests().iter().all(|q| q.starts_with("GET ")));
    assert_eq!(r.remote.as_ref().map(|x| x.uploaded), Some(0));
}

#[test]
fn a_manifest_cache_table_names_the_server() {
    let server = Nginx::start();
    let (a, a_out) = machine_a(&server);
    let b = a.another("cache-b");
    b.write(
        "oneshader.toml",
        &format!(
            "{MANIFEST}\n[cache]\nremote = \"{}\"\n",
            server.url("cache")
        ),
    );
    let opts = BuildOptions {
        remote_cache: None,
        remote_cache_upload: None,
        ..b.options("unused", false)
    };
    let r = build_ok(&opts, &build::NoProgress);
    assert_eq!((r.built, r.cached), (0, 5));
    assert_eq!(b.outputs(), a_out);
}

#[test]
fn bad_remote_settings_are_refused_with_their_place() {
    let m = Machine::new();
    m.write(
        "oneshader.toml",
        &format!("{MANIFEST}\n[cache]\nremote = \"ftp://cache\"\n"),
    );
    let e = build::manifest::load(&m.path("oneshader.toml")).expect_err("refused");
    let line = MANIFEST.lines().count() + 3;
    assert_eq!((e.line, e.column, e.code), (line, 10, "OSD0003"), "{e}");
    assert!(e.message.contains("http://"), "{e}");
    m.write(
        "oneshader.toml",
        &format!("{MANIFEST}\n[cache]\nremote = \"http://x\"\nuplod = true\n"),
    );
    let e = build::manifest::load(&m.path("oneshader.toml")).expect_err("refused");
    assert_eq!(e.code, "OSD0002", "{e}");
    let m = Machine::new();
    let e = build::build(&m.options("cache.example/x", false)).expect_err("refused");
    assert!(e.to_string().contains("OSD0008"), "{e}");
}

fn exe() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_oneshader"))
}

/// `oneshader build` with `args` in `m`'s folder, with `env` set; (exit code, stderr).
fn cli(m: &Machine, args: &[&str], env: &[(&str, &str)]) -> (i32, String) {
    let mut cmd = Command::new(exe());
    cmd.arg("build")
        .arg(m.path("oneshader.toml"))
        .arg("--cache-dir")
        .arg(m.path(m.cache))
        .args(args)
        .env_remove("ONESHADER_REMOTE_CACHE")
        .env_remove("ONESHADER_REMOTE_CACHE_UPLOAD")
        .env_remove("ONESHADER_REMOTE_CACHE_AUTH");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_command_line_and_the_environment_reach_the_server_with_authorization() {
    let server = Nginx::start();
    let url = server.url("auth");
    // Without the header the server answers 401: a local build and one warning.
    let a = Machine::new();
    let (code, err) = cli(&a, &["--remote-cache", &url, "--remote-cache-upload"], &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("OSD0008") && err.contains("401"), "{err}");
    assert!(server.files().is_empty());
    // With it, machine A uploads (flags) and machine B reads (environment).
    let a = a.another("cache-a2");
    let auth = [("ONESHADER_REMOTE_CACHE_AUTH", "Bearer sekrit")];
    let (code, err) = cli(
        &a,
        &["--remote-cache", &url, "--remote-cache-upload"],
        &auth,
    );
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("OSD0008"), "{err}");
    assert!(
        err.contains("5 built, 0 cached (0 from the remote cache)"),
        "{err}"
    );
    let a_out = a.outputs();
    let b = a.another("cache-b");
    let env = [
        ("ONESHADER_REMOTE_CACHE", url.as_str()),
        ("ONESHADER_REMOTE_CACHE_AUTH", "Bearer sekrit"),
    ];
    let (code, err) = cli(&b, &[], &env);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("0 built, 5 cached (5 from the remote cache)"),
        "{err}"
    );
    assert_eq!(b.outputs(), a_out);
    // A bad upload setting in the environment is refused, not guessed.
    let (code, err) = cli(
        &b,
        &[],
        &[
            ("ONESHADER_REMOTE_CACHE", url.as_str()),
            ("ONESHADER_REMOTE_CACHE_UPLOAD", "maybe"),
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("OSD0008") && err.contains("maybe"), "{err}");
    // --emit-ninja has no remote cache: refused.
    let (code, err) = cli(
        &b,
        &["--remote-cache", &url, "--emit-ninja", "x.ninja"],
        &[],
    );
    assert_eq!(code, 2, "{err}");
}

#[test]
fn the_nginx_configuration_in_docs_build_md_serves_the_cache() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/build.md"))
        .expect("docs/build.md");
    let block = doc
        .split("```nginx\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("docs/build.md has an nginx block");
    assert!(block.contains("listen 8080;") && block.contains("root /var/cache/oneshader-remote;"));
    let server = block
        .replace("listen 8080;", "listen {listen};")
        .replace("root /var/cache/oneshader-remote;", "root {root};");
    let server = Nginx::start_with(&server);
    let (a, a_out) = machine_a(&server);
    let b = a.another("cache-b");
    let r = b.build(&server.url("cache"), false);
    assert_eq!((r.built, r.cached), (0, 5));
    assert_eq!(b.outputs(), a_out);
}
