//! A bounded table of in-flight request ids per sender (spec digest §2.3): flags a request id
//! the same sender still has in flight, a legacy request id the sender already used in this
//! session, and a response whose id matches no in-flight request of the peer.
//!
//! Ids are compared as JSON values: strings after unescaping, integers by their text, and a
//! string never equals an integer (`1` and `"1"` are different ids).

use std::collections::{HashMap, HashSet, VecDeque};

use super::{Direction, Revision};

#[derive(Clone, Debug)]
struct Entry {
    method: String,
    revision: Option<Revision>,
    tasks_declared: bool,
    cancelled: bool,
    /// Late responses that may still come for earlier, cancelled requests whose id this
    /// request reused (each reuse after a cancel adds one): the next responses with this id
    /// may answer any of them.
    late_possible: u32,
    /// A response with this id already came while `late_possible` was set: the one left
    /// may answer either request (or never come), so it is not judged.
    unsure: bool,
    /// Sent before the last [`Tracker::reset`] (an earlier session): its id is free again.
    earlier_session: bool,
    /// When it was recorded (the side's request count then): its place in `Side::order`.
    seq: u64,
}

#[derive(Clone, Debug, Default)]
struct Side {
    map: HashMap<String, Entry>,
    /// Keys in the order their requests were recorded, each with the entry's `seq`; an item
    /// whose entry is gone or was recorded again later (an answered id used again, a
    /// cancelled id reused) is stale and skipped, so the oldest request is evicted first
    /// (fuzz finding: a stale place of a reused id evicted the newest request).
    order: VecDeque<(String, u64)>,
    /// Requests recorded so far (the next entry's `seq`).
    recorded: u64,
    /// Completed legacy request ids of this session (bounded, oldest forgotten first).
    used: HashSet<String>,
    used_order: VecDeque<String>,
}

impl Side {
    fn remember_used(&mut self, key: String, max: usize) {
        if self.used.insert(key.clone()) {
            self.used_order.push_back(key);
            while self.used.len() > max {
                match self.used_order.pop_front() {
                    Some(k) => {
                        self.used.remove(&k);
                    }
                    None => break,
                }
            }
        }
    }
}

/// Verdict on a request id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RequestId {
    /// Not in flight and (legacy) not used before in this session.
    Fresh,
    /// The same sender still has a request with this id in flight.
    InFlight,
    /// Legacy: the same sender already used this id in this session.
    Reused,
}

/// True when `rev` forbids id reuse within a session (every revision before 2026-07-28;
/// `None` is the legacy union).
pub(crate) fn legacy(rev: Option<Revision>) -> bool {
    rev.is_none_or(|r| !r.is_modern())
}

/// Outcome of matching a response id.
pub(crate) enum Response {
    /// The request was in flight; its method and revision.
    Matched {
        method: String,
        revision: Option<Revision>,
        /// The request's `_meta` client capabilities declared the Tasks extension.
        tasks_declared: bool,
    },
    /// No such request in flight (and nothing was evicted or unseen, so the verdict is
    /// sure).
    Unknown,
    /// A request with this id is in flight, but the response may also answer an earlier,
    /// cancelled request whose id it reused: not judged.
    Ambiguous,
    /// Not judged (the table has evicted entries, or requests of that sender may pass
    /// unseen: the request may have been dropped or never seen).
    NotTracked,
}

/// In-flight requests of both senders of one connection, at most `max` per sender.
///
/// When a sender has `max` requests in flight, its oldest is evicted; from then on a
/// response with an unknown id is no longer reported (the request may have been evicted),
/// so the tracker never reports a false [`UnknownResponseId`](super::Rule::UnknownResponseId).
/// For legacy requests it also remembers up to `max` completed ids per sender, to flag
/// [`ReusedRequestId`](super::Rule::ReusedRequestId); a forgotten id is never reported.
/// Memory is O(`max`) per sender.
#[derive(Clone, Debug)]
pub struct Tracker {
    max: usize,
    client: Side,
    server: Side,
    evicted: u64,
    /// Set by [`Tracker::set_partial`]: requests the client / the server sent may not all
    /// pass this tracker.
    partial_client: bool,
    partial_server: bool,
}

impl Tracker {
    /// A tracker holding at most `max` in-flight requests per sender (`max` is raised to 1).
    pub fn new(max: usize) -> Self {
        Self {
            max: max.max(1),
            client: Side::default(),
            server: Side::default(),
            evicted: 0,
            partial_client: false,
            partial_server: false,
        }
    }
    /// Declares that requests flowing in `requests` may not all pass this tracker (e.g. on
    /// Streamable HTTP a proxy that does not validate `GET` streams never sees the server's
    /// requests sent on them): a response to such a request whose id matches no tracked
    /// request is then not reported, as after an eviction. Kept across [`Tracker::reset`]
    /// (it describes what the observer sees, not the session).
    pub fn set_partial(&mut self, requests: Direction) {
        match requests {
            Direction::ClientToServer => self.partial_client = true,
            Direction::ServerToClient => self.partial_server = true,
            Direction::Unknown => {}
        }
    }
    /// True after [`Tracker::set_partial`] for `requests`.
    pub fn is_partial(&self, requests: Direction) -> bool {
        match requests {
            Direction::ClientToServer => self.partial_client,
            Direction::ServerToClient => self.partial_server,
            Direction::Unknown => false,
        }
    }
    /// Requests the sender on `dir`'s side has in flight (`0` for `Unknown`).
    pub fn in_flight(&self, dir: Direction) -> usize {
        match dir {
            Direction::ClientToServer => self.client.map.len(),
            Direction::ServerToClient => self.server.map.len(),
            Direction::Unknown => 0,
        }
    }
    /// How many in-flight entries were evicted because the table was full.
    pub fn evicted(&self) -> u64 {
        self.evicted
    }

    fn side(&mut self, sender: Direction) -> Option<&mut Side> {
        match sender {
            Direction::ClientToServer => Some(&mut self.client),
            Direction::ServerToClient => Some(&mut self.server),
            Direction::Unknown => None,
        }
    }

    /// Starts a new session (a legacy `initialize`): forgets the completed request ids that
    /// legacy revisions forbid reusing within a session, and treats the requests in flight as
    /// cancelled: their responses are still accepted (a client falls back to `initialize`
    /// after a `server/discover` probe that failed or timed out, and the probe's answer can
    /// arrive later), they may stay unanswered, and their ids may be used again.
    pub fn reset(&mut self) {
        for side in [&mut self.client, &mut self.server] {
            side.used.clear();
            side.used_order.clear();
            for e in side.map.values_mut() {
                e.cancelled = true;
                e.earlier_session = true;
            }
        }
    }

    /// Records a request sent on `dir` under revision `revision` (`None` = legacy union);
    /// says whether its id is fresh, in flight, or (legacy) already used in this session.
    pub(crate) fn on_request(
        &mut self,
        dir: Direction,
        key: String,
        method: &str,
        revision: Option<Revision>,
        tasks_declared: bool,
    ) -> RequestId {
        let max = self.max;
        let mut evicted = 0;
        let Some(side) = self.side(dir) else {
            return RequestId::Fresh;
        };
        let verdict = match side.map.get(&key) {
            Some(e) if !e.cancelled => RequestId::InFlight,
            Some(e) if legacy(revision) && !e.earlier_session => RequestId::Reused,
            _ if legacy(revision) && side.used.contains(&key) => RequestId::Reused,
            _ => RequestId::Fresh,
        };
        if verdict != RequestId::InFlight {
            if !side.map.contains_key(&key) {
                while side.map.len() >= max {
                    let Some((k, seq)) = side.order.pop_front() else {
                        break;
                    };
                    if side.map.get(&k).is_some_and(|e| e.seq == seq) {
                        side.map.remove(&k);
                        evicted += 1;
                    }
                }
            }
            // Reusing the id of a cancelled request: its late response may still come.
            let late_possible = side
                .map
                .get(&key)
                .filter(|e| e.cancelled)
                .map_or(0, |e| e.late_possible.saturating_add(1));
            let seq = side.recorded;
            side.recorded += 1;
            side.order.push_back((key.clone(), seq));
            side.map.insert(
                key,
                Entry {
                    method: method.to_owned(),
                    revision,
                    tasks_declared,
                    cancelled: false,
                    late_possible,
                    unsure: false,
                    earlier_session: false,
                    seq,
                },
            );
        }
        if side.order.len() > 2 * max + 16 {
            let map = &side.map;
            side.order
                .retain(|(k, seq)| map.get(k).is_some_and(|e| e.seq == *seq));
        }
        self.evicted += evicted;
        verdict
    }

    /// Matches a response sent on `dir` against the peer's in-flight requests.
    pub(crate) fn on_response(&mut self, dir: Direction, key: &str) -> Response {
        let sure = self.evicted == 0 && !self.is_partial(dir.reverse());
        let max = self.max;
        let Some(side) = self.side(dir.reverse()) else {
            return Response::NotTracked;
        };
        if let Some(e) = side.map.get_mut(key)
            && e.late_possible > 0
        {
            // The late response to the cancelled request or the answer to this one: keep the
            // entry for the other, which may never come (so the id may be reused), and judge
            // neither (regression: a cancel, the id reused, the late answer settled the new
            // request and the real answer was reported unknown and dropped by the proxy).
            e.late_possible -= 1;
            e.cancelled = true;
            e.unsure = true;
            return Response::Ambiguous;
        }
        match side.map.remove(key) {
            Some(e) => {
                // An earlier session's id is free in this one (review: the late answer to a
                // request sent before a legacy `initialize` made the new session's reuse of
                // its id a `reused-request-id`).
                if legacy(e.revision) && !e.earlier_session {
                    side.remember_used(key.to_owned(), max);
                }
                if e.unsure {
                    return Response::Ambiguous;
                }
                Response::Matched {
                    method: e.method,
                    revision: e.revision,
                    tasks_declared: e.tasks_declared,
                }
            }
            None if sure => Response::Unknown,
            None => Response::NotTracked,
        }
    }

    /// `notifications/cancelled` sent on `dir` for `key`: the sender's own request (or, for
    /// a 2026 server ending a listen stream, the peer's) may now stay unanswered; a late
    /// response is still accepted and the id may be reused.
    pub(crate) fn on_cancel(&mut self, dir: Direction, key: &str) {
        for d in [dir, dir.reverse()] {
            if let Some(side) = self.side(d)
                && let Some(e) = side.map.get_mut(key)
            {
                e.cancelled = true;
                return;
            }
        }
    }
}
