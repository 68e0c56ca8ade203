//! HTTP body framer: limit at the boundary and one byte either side, Content-Length checks,
//! the recorded POST and JSON response bodies of the HTTP captures in random reads.

mod framing_common;

use framing_common::*;
use mcpwire::framing::body::BodyFramer;
use mcpwire::framing::{FrameErrorKind, Status};

/// Feeds `body` in reads; returns the frame length or the first error kind.
fn feed(framer: &mut BodyFramer, body: &[u8], reads: &[usize]) -> Result<usize, FrameErrorKind> {
    let mut buf = Vec::new();
    let mut pos = 0;
    for &n in reads {
        buf.extend_from_slice(&body[pos..pos + n]);
        pos += n;
        let d = framer.decode(&buf);
        match d.status {
            Status::Partial => assert_eq!(d.consumed, 0),
            Status::Complete(Err(e)) => {
                assert!(e.kind().is_fatal());
                return Err(e.kind());
            }
            Status::Complete(Ok(_)) => panic!("a body is complete only at its end"),
        }
    }
    let d = framer.finish(&buf);
    let r = match d.status {
        Status::Complete(Ok(b)) => {
            assert_eq!(d.consumed, buf.len());
            Ok(b.len())
        }
        Status::Complete(Err(e)) => Err(e.kind()),
        Status::Partial => panic!("finish must report"),
    };
    assert_eq!(
        framer.finish(&[]).status,
        Status::Partial,
        "drained after one body"
    );
    r
}

#[test]
fn limit_at_boundary_and_one_byte_either_side() {
    let max = 32;
    for len in [max - 1, max, max + 1] {
        let body = vec![b' '; len];
        for k in 0..=len {
            let mut f = BodyFramer::with_max_body_len(max);
            let got = feed(&mut f, &body, &split_at(len, k));
            if len <= max {
                assert_eq!(got, Ok(len));
            } else {
                assert_eq!(got, Err(FrameErrorKind::BodyTooLarge), "k {k}");
            }
        }
    }
}

#[test]
fn content_length_over_limit_is_rejected_before_reading() {
    let mut f = BodyFramer::with_max_body_len(32);
    assert!(f.set_content_length(32).is_ok());
    let mut f2 = BodyFramer::with_max_body_len(32);
    let e = f2.set_content_length(33).unwrap_err();
    assert_eq!(
        (e.kind(), e.kind().http_status()),
        (FrameErrorKind::BodyTooLarge, Some(413))
    );
    // The refused length is not kept (library trial: an empty stream then ended in
    // `truncated-body`).
    let d = f2.finish(b"");
    assert!(
        matches!(d.status, Status::Complete(Ok(ref b)) if b.is_empty()),
        "{d:?}"
    );
    // Body longer than its Content-Length.
    let mut f3 = BodyFramer::with_max_body_len(32);
    f3.set_content_length(4).unwrap();
    assert_eq!(
        feed(&mut f3, b"12345", &[5]),
        Err(FrameErrorKind::BodyTooLarge)
    );
    // Shorter: truncated.
    let mut f4 = BodyFramer::with_max_body_len(32);
    f4.set_content_length(4).unwrap();
    assert_eq!(
        feed(&mut f4, b"123", &[3]),
        Err(FrameErrorKind::TruncatedBody)
    );
    let mut f5 = BodyFramer::new();
    f5.set_content_length(4).unwrap();
    assert_eq!(feed(&mut f5, b"1234", &[1, 3]), Ok(4));
}

#[test]
fn empty_body_is_one_empty_frame() {
    let mut f = BodyFramer::new();
    assert_eq!(feed(&mut f, b"", &[]), Ok(0));
}

#[test]
fn capture_bodies_in_random_reads() {
    let Some(shared) = shared_dir() else { return };
    let mut n = 0;
    for dir in std::fs::read_dir(shared.join("captures")).unwrap() {
        let dir = dir.unwrap().path();
        let Ok(requests) = std::fs::read_to_string(dir.join("requests.jsonl")) else {
            continue;
        };
        for (i, line) in requests.lines().enumerate() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            for body in [&v["body"], &v["response"]["body"]] {
                let Some(body) = body.as_str() else { continue };
                let body = body.as_bytes();
                for seed in 0..3 {
                    let mut f = BodyFramer::new();
                    let reads = random_reads(body.len(), 100, seed + i as u64);
                    assert_eq!(feed(&mut f, body, &reads), Ok(body.len()));
                }
                n += 1;
            }
        }
    }
    assert!(n > 100, "{n} bodies");
}
