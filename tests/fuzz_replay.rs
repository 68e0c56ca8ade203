//! Replays every fuzz corpus file and every saved crash through the fuzz targets' own oracle
//! functions (`mcpwire::oracle::targets`), on stable, without a fuzzer.
//!
//! * `fuzz/corpus/<target>/*`: seeds and coverage-increasing inputs kept by campaigns.
//! * `fuzz/regressions/<target>/*`: minimised crashes (each also a named case in
//!   `corpora/hostile/fuzz-*.json` and a named regression test).
//!
//! Nothing is skipped: an unknown folder name, an empty corpus for a known target, or an
//! unreadable file fails the test, and the count of files replayed per target is printed.
//! Saved crashes whose fix has not landed are listed in [`OPEN_FINDINGS`]: they must still
//! fail (printed as open), and the test fails once one passes, so the list is kept honest.

use std::fs;
use std::panic;
use std::path::{Path, PathBuf};

use mcpwire::oracle::targets::{self, TARGETS};

/// Saved crashes whose fix belongs to another layer and has not landed: (target, file name,
/// finding and owner). See FUZZING.md, "Findings".
const OPEN_FINDINGS: &[(&str, &str, &str)] = &[];

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

/// Runs one target over every file of `dir`; returns (files run, failures).
fn replay_dir(target: &str, dir: &Path) -> (usize, Vec<String>) {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    files.sort();
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let open = OPEN_FINDINGS
            .iter()
            .find(|(t, f, _)| *t == target && *f == name);
        assert!(path.is_file(), "{} is not a file", path.display());
        let data = fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let outcome = panic::catch_unwind(|| targets::run(target, &data));
        if let Some((_, _, finding)) = open {
            match outcome {
                Ok(Ok(())) => failures.push(format!(
                    "{}: open finding {finding} now passes: remove it from OPEN_FINDINGS and \
                     un-ignore its test in tests/fuzz_regressions.rs",
                    path.display()
                )),
                _ => println!(
                    "open finding {finding}: {} still fails (expected)",
                    path.display()
                ),
            }
            continue;
        }
        match outcome {
            Ok(Ok(())) => {}
            Ok(Err(finding)) => failures.push(format!("{}: {finding}", path.display())),
            Err(p) => {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "non-string panic".into());
                failures.push(format!("{}: PANIC {msg}", path.display()));
            }
        }
    }
    (files.len(), failures)
}

fn target_dirs(root: &Path) -> Vec<(String, PathBuf)> {
    if !root.exists() {
        return Vec::new();
    }
    let mut dirs: Vec<(String, PathBuf)> = fs::read_dir(root)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", root.display()))
        .map(|e| {
            let p = e.expect("directory entry").path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            assert!(p.is_dir(), "{} is not a target folder", p.display());
            assert!(
                TARGETS.contains(&name.as_str()),
                "{} names no fuzz target (known: {TARGETS:?})",
                p.display()
            );
            (name, p)
        })
        .collect();
    dirs.sort();
    dirs
}

fn replay(kind: &str, require_every_target: bool) {
    let root = fuzz_dir().join(kind);
    let dirs = target_dirs(&root);
    if require_every_target {
        for t in TARGETS {
            assert!(
                dirs.iter().any(|(n, _)| n == t),
                "fuzz/{kind}/{t} is missing: every target needs a corpus"
            );
        }
    }
    let mut all_failures = Vec::new();
    for (target, dir) in &dirs {
        let (n, failures) = replay_dir(target, dir);
        if require_every_target {
            assert!(n > 0, "fuzz/{kind}/{target} is empty");
        }
        println!(
            "replayed {n} files of fuzz/{kind}/{target}: {} failed",
            failures.len()
        );
        all_failures.extend(failures);
    }
    assert!(
        all_failures.is_empty(),
        "{} fuzz {kind} files fail their oracle:\n{}",
        all_failures.len(),
        all_failures.join("\n")
    );
}

#[test]
fn every_corpus_file_passes_its_oracle() {
    replay("corpus", true);
}

#[test]
fn every_saved_crash_passes_its_oracle() {
    replay("regressions", false);
}
