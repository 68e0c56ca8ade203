//! Shared test helpers: locating ../shared and reading every message in the spec examples
//! and the captures as frames.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `../shared` (or `$MCPWIRE_SHARED`), when present.
pub fn shared_dir() -> Option<PathBuf> {
    let base = std::env::var("MCPWIRE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared")));
    base.is_dir().then_some(base)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Splits an SSE body into the `data` payloads of its events.
fn sse_payloads(body: &[u8], out: &mut Vec<Vec<u8>>) {
    let text = String::from_utf8_lossy(body)
        .replace("\r\n", "\n")
        .replace('\r', "\n");
    let mut data: Option<String> = None;
    for line in text.split('\n') {
        if line.is_empty() {
            if let Some(d) = data.take() {
                out.push(d.into_bytes());
            }
        } else if let Some(rest) = line.strip_prefix("data:") {
            let rest = rest.strip_prefix(' ').unwrap_or(rest);
            match &mut data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(rest);
                }
                None => data = Some(rest.to_owned()),
            }
        }
    }
}

/// Every message of spec-examples/ and captures/ (JSONL lines, HTTP bodies, SSE data), as
/// `(origin, frame)`. Empty when ../shared is absent.
pub fn corpus_frames() -> Vec<(String, Vec<u8>)> {
    let Some(base) = shared_dir() else {
        return Vec::new();
    };
    let mut files = Vec::new();
    walk(&base.join("spec-examples"), &mut files);
    walk(&base.join("captures"), &mut files);
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let name = f.display().to_string();
        let Ok(bytes) = std::fs::read(&f) else {
            continue;
        };
        if name.ends_with(".jsonl") {
            for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                if line.is_empty() {
                    continue;
                }
                out.push((format!("{name}:{}", n + 1), line.to_vec()));
                if name.ends_with("requests.jsonl")
                    && let Ok(v) = serde_json::from_slice::<serde_json::Value>(line)
                {
                    for b in [&v["body"], &v["response"]["body"]] {
                        if let Some(s) = b.as_str().filter(|s| !s.is_empty()) {
                            out.push((format!("{name}:{} body", n + 1), s.as_bytes().to_vec()));
                        }
                    }
                }
            }
        } else if name.ends_with(".sse") {
            let mut p = Vec::new();
            sse_payloads(&bytes, &mut p);
            for (i, d) in p.into_iter().enumerate() {
                out.push((format!("{name} event {i}"), d));
            }
        } else if name.ends_with(".json") {
            out.push((name, bytes));
        }
    }
    out
}
