//! Unit tests of the rule engine over the trusted walker (no core envelope needed): the
//! shared spec examples and real captures. The integration tests in `tests/profile_*.rs`
//! run the same corpora through the public API.

use super::msg::classify_trusted;
use super::tracker::Tracker;
use super::*;

include!("../../tests/support/profile_corpus.rs");

fn judge(v: &mut Validator, t: Option<(&mut Tracker, Direction)>, frame: &[u8]) -> Vec<Violation> {
    let mut out = Vec::new();
    validate::check(v, &classify_trusted(frame), t, &mut out);
    out
}

fn profile_for(rev: &str) -> Profile {
    rev.parse().unwrap_or(Profile::V2026_07_28)
}

#[test]
fn spec_examples_judged_as_indexed() {
    let Some(shared) = corpus::shared() else {
        println!("skipped: ../shared not found");
        return;
    };
    let mut failures = Vec::new();
    let mut n = 0;
    for ex in corpus::spec_examples(&shared) {
        n += 1;
        let profile = profile_for(&ex.revision);
        let dir = Direction::Unknown;
        let mut v = Validator::new(profile, dir);
        if ex.file.starts_with("extensions/") {
            v.enable_tasks_extension();
        }
        let got = judge(&mut v, None, &ex.bytes);
        let shape = classify_trusted(&ex.bytes).shape.name();
        if shape != ex.shape {
            failures.push(format!(
                "{}:{} shape {shape} != {}",
                ex.file, ex.line, ex.shape
            ));
        }
        if ex.meta_omitted {
            if !got.iter().any(|v| {
                matches!(
                    v.rule,
                    Rule::MissingProtocolVersion | Rule::MissingClientCapabilities
                )
            }) {
                failures.push(format!(
                    "{}:{} meta-omitted but not flagged: {got:?}",
                    ex.file, ex.line
                ));
            }
        } else if !got.is_empty() {
            failures.push(format!("{}:{} expected valid: {got:?}", ex.file, ex.line));
        }
    }
    assert!(n > 150, "only {n} examples");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn captures_have_no_violations_under_their_revision() {
    let Some(shared) = corpus::shared() else {
        println!("skipped: ../shared not found");
        return;
    };
    let mut failures = Vec::new();
    for s in corpus::captures(&shared) {
        let mnf = corpus::answered_method_not_found(&s);
        for profile in [profile_for(&s.revision), Profile::Auto] {
            let mut c2s = Validator::new(profile, Direction::ClientToServer);
            let mut s2c = Validator::new(profile, Direction::ServerToClient);
            let mut t = Tracker::new(1024);
            // Direction-ordered replay is not the real interleaving for stdio, so the tracker
            // only runs on HTTP sessions (recorded in exchange order).
            let track = s.name.starts_with("http_");
            for f in &s.frames {
                let (v, d) = if f.c2s {
                    (&mut c2s, Direction::ClientToServer)
                } else {
                    (&mut s2c, Direction::ServerToClient)
                };
                let got = judge(v, if track { Some((&mut t, d)) } else { None }, &f.bytes);
                let id = corpus::id_of(&f.bytes).unwrap_or_default();
                let agreed = mnf.contains(&(f.c2s, id));
                let bad: Vec<_> = got
                    .iter()
                    .filter(|v| {
                        !(agreed && matches!(v.rule, Rule::UnknownMethod | Rule::RemovedMethod))
                    })
                    .collect();
                if !bad.is_empty() {
                    failures.push(format!(
                        "[{profile}] {}: {bad:?}\n    {}",
                        f.origin,
                        String::from_utf8_lossy(&f.bytes[..f.bytes.len().min(300)])
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
