//! The `session` fuzz target's oracle: a sequence of MCP messages on both directions of one
//! connection through [`Session`], against ground truth kept here (spec digest §2.3).
//!
//! Input layout: byte 0 picks the profile ([`Profile::ALL`]`[b % 7]`) and the tracker size
//! (`1 + (b >> 3) % 4` requests per sender, so eviction is reached); byte 1 declares partial
//! views ([`Tracker::set_partial`](crate::profile::Tracker::set_partial)) when its low bits are
//! `0b11` (client's requests) or `0b111` (both). Then each 3-byte step `[a, b, c]` is one
//! operation: `a % 8` the kind (0–1 request, 2 result, 3 error, 4 cancel, 5 settle a request,
//! 6 settle a rejected response, 7 one of `c % 3`: `initialize`, batch, notification), `a & 8`
//! the direction (server to client when set), `b % 10` the id, `c % 6` the method and
//! `c & 0x80` a 2026-07-28 `_meta` protocol version. So: a request, a result or error response, a
//! `notifications/cancelled`, a gateway settling a request or a rejected response, a legacy
//! `initialize`, a batch of two requests, or a plain notification; ids come from a small pool
//! with equal values spelled differently (`"a"` and `"\u0061"`, a 130-byte id and its
//! escaped spelling) so that collisions are common.
//!
//! Checked on every step:
//! * no panic, and at most `max` requests in flight per sender;
//! * the outcome fits the message: only requests are [`Tracked::Request`] or
//!   [`Tracked::DuplicateRequest`], only responses are [`Tracked::Answered`],
//!   [`Tracked::UnknownId`] or [`Tracked::NotJudged`], and a batch is [`Tracked::Batch`] with
//!   one request outcome per element; a duplicate or unknown id comes with its violation;
//! * never a false unknown: a response reported [`Tracked::UnknownId`] while nothing was
//!   evicted and no view is partial has no request of the peer with its id still
//!   unanswered (requests counted from the outcomes, batch elements included, answers from
//!   responses and settles);
//! * an answer names the method of a request with its id the peer sent;
//! * never a false duplicate: [`Tracked::DuplicateRequest`] only while the sender has a
//!   request with that id unanswered.
//!
//! Until the first cancel, `initialize` or batch, the outcome is predicted exactly by a
//! reference table (per sender, in-flight ids in arrival order, oldest evicted first):
//! duplicate or fresh request, answered with the request's method, unknown, or not judged
//! after an eviction or under a partial view; and what each settle returns.

use std::collections::HashMap;

use crate::Shape;
use crate::profile::{Direction, Profile, Rule, Session, Tracked, Violation};

/// Ids of the pool: the JSON text and the key two equal ids share.
const IDS: &[(&str, &str)] = &[
    ("1", "n:1"),
    ("2", "n:2"),
    ("-3", "n:-3"),
    (r#""a""#, "s:a"),
    (r#""\u0061""#, "s:a"),
    (r#""1""#, "s:1"),
    (r#""b\"c""#, "s:b\"c"),
    (LONG_ID, "long"),
    (LONG_ID_ESCAPED, "long"),
    ("null", ""),
];

/// A 130-byte string id (over the tracker's 128-byte key limit, so keyed by digest).
const LONG_ID: &str = "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxy\"";
/// [`LONG_ID`] with its first byte escaped: the same id.
const LONG_ID_ESCAPED: &str = "\"\\u0078xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxy\"";

const METHODS: &[&str] = &[
    "tools/call",
    "ping",
    "tools/list",
    "server/discover",
    "resources/read",
    "sampling/createMessage",
];

/// One step of the input.
#[derive(Clone, Copy, Debug)]
enum Op {
    Request {
        id: usize,
        method: usize,
        modern: bool,
    },
    Result {
        id: usize,
    },
    Error {
        id: usize,
    },
    Cancel {
        id: usize,
    },
    SettleRequest {
        id: usize,
    },
    SettleRejected {
        id: usize,
    },
    Initialize {
        id: usize,
    },
    Batch {
        id: usize,
        other: usize,
    },
    Notification,
}

impl Op {
    /// Decodes one step `[a, b, c]` (layout in the module docs).
    fn decode([a, b, c]: [u8; 3]) -> (Direction, Op) {
        let dir = if a & 8 != 0 {
            Direction::ServerToClient
        } else {
            Direction::ClientToServer
        };
        let id = usize::from(b) % IDS.len();
        let op = match a % 8 {
            0 | 1 => Op::Request {
                id,
                method: usize::from(c) % METHODS.len(),
                modern: c & 0x80 != 0,
            },
            2 => Op::Result { id },
            3 => Op::Error { id },
            4 => Op::Cancel { id },
            5 => Op::SettleRequest { id },
            6 => Op::SettleRejected { id },
            _ => match c % 3 {
                0 => Op::Initialize { id },
                1 => Op::Batch {
                    id,
                    other: usize::from(c >> 2) % IDS.len(),
                },
                _ => Op::Notification,
            },
        };
        (dir, op)
    }

    fn frame(self) -> Option<String> {
        let meta = r#","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#;
        Some(match self {
            Op::Request { id, method, modern } => format!(
                r#"{{"jsonrpc":"2.0","id":{},"method":"{}","params":{{"name":"t"{}}}}}"#,
                IDS[id].0,
                METHODS[method],
                if modern { meta } else { "" }
            ),
            Op::Result { id } => format!(
                r#"{{"jsonrpc":"2.0","id":{},"result":{{"resultType":"complete"}}}}"#,
                IDS[id].0
            ),
            Op::Error { id } => format!(
                r#"{{"jsonrpc":"2.0","id":{},"error":{{"code":-32601,"message":"no"}}}}"#,
                IDS[id].0
            ),
            Op::Cancel { id } => format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{}}}}}"#,
                IDS[id].0
            ),
            Op::Initialize { id } => format!(
                r#"{{"jsonrpc":"2.0","id":{},"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"f","version":"1"}}}}}}"#,
                IDS[id].0
            ),
            Op::Batch { id, other } => format!(
                r#"[{{"jsonrpc":"2.0","id":{},"method":"ping"}},{{"jsonrpc":"2.0","id":{},"method":"ping"}}]"#,
                IDS[id].0, IDS[other].0
            ),
            Op::Notification => {
                r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#.to_owned()
            }
            Op::SettleRequest { .. } | Op::SettleRejected { .. } => return None,
        })
    }
}

/// Ground truth and the exact reference table.
struct Truth {
    max: usize,
    partial: [bool; 2],
    /// Unanswered recorded requests per (sender, key) (batch elements included).
    open: HashMap<(usize, &'static str), u32>,
    /// Every (sender, key, method) recorded as a request.
    sent: std::collections::HashSet<(usize, &'static str, String)>,
    /// The reference table: per sender, (key, method) in arrival order, while `exact`.
    table: [Vec<(&'static str, &'static str)>; 2],
    evicted: bool,
    exact: bool,
}

fn side(dir: Direction) -> usize {
    usize::from(dir == Direction::ServerToClient)
}

impl Truth {
    fn open(&self, sender: Direction, key: &'static str) -> u32 {
        self.open.get(&(side(sender), key)).copied().unwrap_or(0)
    }
    fn answer(&mut self, sender: Direction, key: &'static str) {
        if let Some(n) = self.open.get_mut(&(side(sender), key)) {
            *n = n.saturating_sub(1);
        }
    }
    /// The table's verdict on a response to `sender`'s request `key`: `Some(method)` when it
    /// answers one (removed), `None` otherwise.
    fn table_answer(&mut self, sender: Direction, key: &str) -> Option<&'static str> {
        let t = &mut self.table[side(sender)];
        let at = t.iter().position(|(k, _)| *k == key)?;
        Some(t.remove(at).1)
    }
}

/// Runs the input (layout in the module docs).
///
/// # Errors
/// The first step whose outcome breaks an invariant or the reference table, with the steps
/// so far.
pub fn check(data: &[u8]) -> Result<(), String> {
    let (&[h0, h1], rest) = data.split_first_chunk::<2>().unwrap_or((&[0, 0], &[]));
    let profile = Profile::ALL[usize::from(h0) % Profile::ALL.len()];
    let max = 1 + usize::from(h0 >> 3) % 4;
    let mut session = Session::new(profile, max);
    let mut truth = Truth {
        max,
        partial: [false; 2],
        open: HashMap::new(),
        sent: Default::default(),
        table: [Vec::new(), Vec::new()],
        evicted: false,
        exact: true,
    };
    if h1 & 0b11 == 0b11 {
        session.tracker_mut().set_partial(Direction::ClientToServer);
        truth.partial[0] = true;
    }
    if h1 & 0b111 == 0b111 {
        session.tracker_mut().set_partial(Direction::ServerToClient);
        truth.partial[1] = true;
    }
    let mut log = format!(
        "profile {profile}, max {max}, partial {:?}\n",
        truth.partial
    );
    for step in rest.chunks_exact(3) {
        let (dir, op) = Op::decode([step[0], step[1], step[2]]);
        log.push_str(&format!("{dir:?} {op:?}"));
        let result = run_step(&mut session, &mut truth, dir, op, &mut log);
        log.push('\n');
        result.map_err(|e| format!("{e}\nsteps:\n{log}"))?;
        for d in [Direction::ClientToServer, Direction::ServerToClient] {
            let n = session.tracker().in_flight(d);
            if n > truth.max {
                return Err(format!("{n} requests of {d:?} in flight, max {max}\n{log}"));
            }
            if truth.exact && n != truth.table[side(d)].len() {
                return Err(format!(
                    "{d:?} has {n} requests in flight, the reference table {:?}\nsteps:\n{log}",
                    truth.table[side(d)]
                ));
            }
        }
    }
    Ok(())
}

/// Ground truth for a request (`raw`, key `key`, `method`) `dir`'s sender sent, reported
/// `tracked`: a recorded request is unanswered from now on; a duplicate is reported only
/// while the sender has a request with that id unanswered.
fn request_truth(
    truth: &mut Truth,
    dir: Direction,
    key: &'static str,
    raw: &str,
    method: &str,
    tracked: &Tracked,
) -> Result<(), String> {
    match tracked {
        Tracked::Request => {
            *truth.open.entry((side(dir), key)).or_default() += 1;
            truth.sent.insert((side(dir), key, method.to_owned()));
        }
        Tracked::DuplicateRequest if truth.open(dir, key) == 0 => {
            return Err(format!(
                "duplicate request, but no request {raw} of {dir:?} is unanswered"
            ));
        }
        _ => {}
    }
    Ok(())
}

/// A gateway settles `sender`'s request `IDS[id]` through a message flowing in `dir`: its own
/// answer to a request ([`Session::settle_request`], `sender == dir`) or a rejected response
/// ([`Session::settle_rejected_response`]).
fn settle(
    session: &mut Session,
    truth: &mut Truth,
    dir: Direction,
    id: usize,
    sender: Direction,
    log: &mut String,
) -> Result<(), String> {
    let (raw, key) = IDS[id];
    let got = if sender == dir {
        session.settle_request(dir, raw)
    } else {
        session.settle_rejected_response(dir, raw)
    };
    log.push_str(&format!(" -> {got}"));
    if key.is_empty() {
        return if got {
            Err("a null id settled a request".to_owned())
        } else {
            Ok(())
        };
    }
    if got {
        truth.answer(sender, key);
    }
    if truth.exact {
        let want = truth.table_answer(sender, key).is_some();
        if got != want {
            return Err(format!(
                "settle of {raw} for {sender:?}'s request: {got}, reference {want}"
            ));
        }
    }
    Ok(())
}

fn run_step(
    session: &mut Session,
    truth: &mut Truth,
    dir: Direction,
    op: Op,
    log: &mut String,
) -> Result<(), String> {
    let frame = match op {
        Op::SettleRequest { id } => return settle(session, truth, dir, id, dir, log),
        Op::SettleRejected { id } => return settle(session, truth, dir, id, dir.reverse(), log),
        _ => op.frame().expect("a frame for every other op"),
    };
    if matches!(
        op,
        Op::Cancel { .. } | Op::Initialize { .. } | Op::Batch { .. }
    ) {
        truth.exact = false;
    }
    let env = crate::parse(frame.as_bytes())
        .map_err(|e| format!("generated frame rejected: {e}: {frame}"))?;
    let mut out: Vec<Violation> = Vec::new();
    let tracked = session.check(dir, &env, &mut out);
    log.push_str(&format!(" -> {tracked:?}"));
    let has = |rule: Rule| out.iter().any(|v| v.rule == rule);
    if let Op::Batch { id, other } = op {
        // Each element (a `ping` request) has its own outcome (`Tracked::Batch`, in order).
        let Tracked::Batch(els) = &tracked else {
            return Err(format!("{tracked:?} for a batch: {frame}"));
        };
        if els.len() != 2 {
            return Err(format!("{} outcomes for a batch of 2: {frame}", els.len()));
        }
        for (el, idx) in els.iter().zip([id, other]) {
            let (raw, key) = IDS[idx];
            // The id that comes with the outcome is the element's, as written (none for a
            // `null` id, nor where the batch was refused unread).
            if el
                .id
                .as_deref()
                .is_some_and(|got| got != raw || key.is_empty())
            {
                return Err(format!("{el:?} for batch element {raw}: {frame}"));
            }
            let el = &el.tracked;
            if !matches!(
                el,
                Tracked::Untracked | Tracked::Request | Tracked::DuplicateRequest
            ) || (key.is_empty() && *el != Tracked::Untracked)
            {
                return Err(format!(
                    "{el:?} for batch element {raw} (a request): {frame}"
                ));
            }
            if *el == Tracked::DuplicateRequest && !has(Rule::DuplicateRequestId) {
                return Err(format!(
                    "duplicate batch element without its violation: {out:?}"
                ));
            }
            request_truth(truth, dir, key, raw, "ping", el)?;
        }
        return Ok(());
    }
    let (raw, key) = match op {
        Op::Request { id, .. }
        | Op::Result { id }
        | Op::Error { id }
        | Op::Cancel { id }
        | Op::Initialize { id } => IDS[id],
        _ => ("", ""),
    };

    // The outcome fits the message.
    let fits = match (&tracked, env.shape()) {
        (Tracked::Untracked, _) => true,
        (Tracked::Request | Tracked::DuplicateRequest, Shape::Request) => true,
        (Tracked::Answered { .. } | Tracked::UnknownId | Tracked::NotJudged, s) => {
            matches!(s, Shape::Result | Shape::Error)
        }
        _ => false,
    };
    if !fits {
        return Err(format!("{tracked:?} for a {:?}: {frame}", env.shape()));
    }
    if tracked == Tracked::DuplicateRequest && !has(Rule::DuplicateRequestId) {
        return Err(format!("duplicate request without its violation: {out:?}"));
    }
    if tracked == Tracked::UnknownId && !has(Rule::UnknownResponseId) {
        return Err(format!("unknown id without its violation: {out:?}"));
    }
    let is_request = matches!(op, Op::Request { .. } | Op::Initialize { .. });
    let is_response = matches!(op, Op::Result { .. } | Op::Error { .. });
    if key.is_empty() && tracked != Tracked::Untracked {
        return Err(format!("{tracked:?} for the null id: {frame}"));
    }
    if !key.is_empty() && is_request && tracked == Tracked::Untracked {
        return Err(format!("request with id {raw} not tracked: {frame}"));
    }
    if !key.is_empty() && is_response && tracked == Tracked::Untracked {
        return Err(format!("response with id {raw} not tracked: {frame}"));
    }

    // Ground truth.
    let sure = |truth: &Truth, sender: Direction| {
        session.tracker().evicted() == 0 && !truth.partial[side(sender)]
    };
    match &tracked {
        Tracked::Request | Tracked::DuplicateRequest => {
            let method = env.method().map(|m| m.decode().into_owned());
            request_truth(
                truth,
                dir,
                key,
                raw,
                method.as_deref().unwrap_or(""),
                &tracked,
            )?;
        }
        Tracked::Answered { method }
            if !truth
                .sent
                .contains(&(side(dir.reverse()), key, method.clone())) =>
        {
            return Err(format!(
                "answered a {method} request {raw} that {:?} never sent",
                dir.reverse()
            ));
        }
        Tracked::Answered { .. } | Tracked::NotJudged => truth.answer(dir.reverse(), key),
        Tracked::UnknownId if sure(truth, dir.reverse()) && truth.open(dir.reverse(), key) > 0 => {
            return Err(format!(
                "false unknown id: {} request(s) {raw} of {:?} unanswered",
                truth.open(dir.reverse(), key),
                dir.reverse()
            ));
        }
        _ => {}
    }

    // The reference table, exact until the first cancel, initialize or batch.
    if !truth.exact || key.is_empty() {
        return Ok(());
    }
    let want = match op {
        Op::Request { method, .. } => {
            let t = &mut truth.table[side(dir)];
            if t.iter().any(|(k, _)| *k == key) {
                Tracked::DuplicateRequest
            } else {
                t.push((key, METHODS[method]));
                if t.len() > truth.max {
                    t.remove(0);
                    truth.evicted = true;
                }
                Tracked::Request
            }
        }
        Op::Result { .. } | Op::Error { .. } => match truth.table_answer(dir.reverse(), key) {
            Some(m) => Tracked::Answered {
                method: m.to_owned(),
            },
            None if truth.evicted || truth.partial[side(dir.reverse())] => Tracked::NotJudged,
            None => Tracked::UnknownId,
        },
        _ => Tracked::Untracked,
    };
    if tracked != want {
        return Err(format!("{tracked:?}, reference table {want:?}"));
    }
    Ok(())
}
