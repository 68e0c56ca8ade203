// Loaders for the shared corpora used by the profile tests (spec examples and real captures).
// Plain std + serde_json so that it can be `include!`d by unit and integration tests alike.
#[allow(dead_code)]
mod corpus {
    use std::path::PathBuf;

    /// `../shared` (or `$MCPWIRE_SHARED`), when present.
    pub fn shared() -> Option<PathBuf> {
        let p = std::env::var_os("MCPWIRE_SHARED")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared")));
        if p.join("spec-examples/index.jsonl").exists() { Some(p) } else { None }
    }

    /// One spec example: its index record and its bytes.
    pub struct Example {
        pub file: String,
        pub line: usize,
        pub revision: String,
        pub shape: String,
        pub meta_omitted: bool,
        pub bytes: Vec<u8>,
    }

    /// Every whole-message example (not fragments, not the http wrapper records).
    pub fn spec_examples(shared: &std::path::Path) -> Vec<Example> {
        let idx = std::fs::read_to_string(shared.join("spec-examples/index.jsonl")).unwrap();
        let mut out = Vec::new();
        for rec in idx.lines() {
            let r: serde_json::Value = serde_json::from_str(rec).unwrap();
            let file = r["file"].as_str().unwrap().to_owned();
            let shape = r["shape"].as_str().unwrap().to_owned();
            if shape == "fragment" || shape == "http-request" {
                continue;
            }
            let line = r["line"].as_u64().unwrap() as usize;
            let text = std::fs::read_to_string(shared.join("spec-examples").join(&file)).unwrap();
            let bytes = text.lines().nth(line - 1).unwrap().as_bytes().to_vec();
            let flags: Vec<String> = r["flags"].as_array().unwrap().iter().map(|f| f.as_str().unwrap().to_owned()).collect();
            out.push(Example {
                file,
                line,
                revision: r["revision"].as_str().unwrap().to_owned(),
                shape,
                meta_omitted: flags.iter().any(|f| f == "meta-omitted"),
                bytes,
            });
        }
        out
    }

    /// One message of a capture.
    pub struct Frame {
        pub c2s: bool,
        pub bytes: Vec<u8>,
        pub origin: String,
    }

    /// One capture session: its negotiated revision (from captures/README.md) and messages
    /// in recorded order per direction.
    pub struct Session {
        pub name: String,
        pub revision: String,
        pub frames: Vec<Frame>,
    }

    fn sse_data(body: &[u8]) -> Vec<Vec<u8>> {
        // Minimal SSE event extractor (the framing layer has the real one): lines end in
        // CRLF, LF or CR; `data:` lines of one event are joined with LF; a blank line ends
        // the event; events with empty data are skipped.
        let text = String::from_utf8_lossy(body).replace("\r\n", "\n").replace('\r', "\n");
        let mut out = Vec::new();
        let mut data: Option<String> = None;
        for line in text.split('\n') {
            if line.is_empty() {
                if let Some(d) = data.take()
                    && !d.is_empty()
                {
                    out.push(d.into_bytes());
                }
                continue;
            }
            if let Some(rest) = line.strip_prefix("data:") {
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
        if let Some(d) = data
            && !d.is_empty()
        {
            out.push(d.into_bytes());
        }
        out
    }

    fn revisions(shared: &std::path::Path) -> Vec<(String, String)> {
        let readme = std::fs::read_to_string(shared.join("captures/README.md")).unwrap();
        readme
            .lines()
            .filter_map(|l| {
                let cells: Vec<&str> = l.split('|').map(str::trim).collect();
                if cells.len() > 4 && cells[1].starts_with('`') && cells[3].len() == 10 {
                    Some((cells[1].trim_matches('`').to_owned(), cells[3].to_owned()))
                } else {
                    None
                }
            })
            .collect()
    }

    pub fn captures(shared: &std::path::Path) -> Vec<Session> {
        let mut out = Vec::new();
        for (name, revision) in revisions(shared) {
            let dir = shared.join("captures").join(&name);
            let mut frames = Vec::new();
            if name.starts_with("stdio_") {
                for (file, c2s) in [("client-to-server.jsonl", true), ("server-to-client.jsonl", false)] {
                    let bytes = std::fs::read(dir.join(file)).unwrap();
                    for (i, l) in bytes.split(|b| *b == b'\n').enumerate() {
                        if !l.is_empty() {
                            frames.push(Frame { c2s, bytes: l.to_vec(), origin: format!("{name}/{file}:{}", i + 1) });
                        }
                    }
                }
            } else {
                let text = std::fs::read_to_string(dir.join("requests.jsonl")).unwrap();
                let mut recs: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
                recs.sort_by_key(|r| r["seq"].as_u64());
                for r in recs {
                    let seq = r["seq"].as_u64().unwrap();
                    if let Some(b) = r["body"].as_str().filter(|b| !b.is_empty()) {
                        frames.push(Frame { c2s: true, bytes: b.as_bytes().to_vec(), origin: format!("{name}#{seq} request body") });
                    }
                    let resp = &r["response"];
                    if let Some(f) = resp["sse_file"].as_str() {
                        for (i, d) in sse_data(&std::fs::read(dir.join(f)).unwrap()).into_iter().enumerate() {
                            frames.push(Frame { c2s: false, bytes: d, origin: format!("{name}/{f} event {}", i + 1) });
                        }
                    } else if let Some(b) = resp["body"].as_str().filter(|b| b.trim_start().starts_with('{')) {
                        frames.push(Frame { c2s: false, bytes: b.as_bytes().to_vec(), origin: format!("{name}#{seq} response body") });
                    }
                }
            }
            out.push(Session { name, revision, frames });
        }
        out
    }

    /// Ids (raw JSON text) of requests the peer answered with -32601, per direction of the
    /// request (true = client requests).
    pub fn answered_method_not_found(s: &Session) -> Vec<(bool, String)> {
        let mut out = Vec::new();
        for f in &s.frames {
            let Ok(v) = serde_json::from_slice::<serde_json::Value>(&f.bytes) else { continue };
            if v["error"]["code"].as_i64() == Some(-32601) {
                out.push((!f.c2s, v["id"].to_string()));
            }
        }
        out
    }

    /// The raw id text of a message (serde_json rendering), or None.
    pub fn id_of(bytes: &[u8]) -> Option<String> {
        let v: serde_json::Value = serde_json::from_slice(bytes).ok()?;
        v.get("id").map(|i| i.to_string())
    }
}
