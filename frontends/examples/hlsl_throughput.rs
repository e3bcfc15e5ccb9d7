//! Measures preprocessing + parsing throughput over a set of HLSL files:
//! `cargo run --release -p oneshader-frontends --example hlsl_throughput -- [-I DIR]... FILES...`
//! Prints bytes read (main files and includes), wall time and MB/s (best of 5 passes).

use std::path::PathBuf;
use std::time::Instant;

use oneshader_frontends::hlsl::{self, FsLoader, PreprocessOptions};
use oneshader_ir::diag::SourceMap;

fn main() {
    let mut options = PreprocessOptions::default();
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "-I" {
            if let Some(d) = args.next() {
                options.include_dirs.push(PathBuf::from(d));
            }
        } else {
            files.push(PathBuf::from(a));
        }
    }
    let mut best = f64::MAX;
    let mut bytes = 0usize;
    let mut parsed_ok = 0usize;
    for _ in 0..5 {
        bytes = 0;
        parsed_ok = 0;
        let start = Instant::now();
        for f in &files {
            let mut sources = SourceMap::new();
            let p = hlsl::parse_file(f, &options, &FsLoader, &mut sources);
            bytes += p
                .preprocessed
                .files
                .iter()
                .map(|(id, _)| sources.text(*id).len())
                .sum::<usize>();
            parsed_ok += usize::from(!p.has_errors());
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    println!(
        "{} files ({parsed_ok} without errors), {bytes} bytes in {best:.3} s: {:.1} MB/s",
        files.len(),
        bytes as f64 / best / 1e6
    );
}
