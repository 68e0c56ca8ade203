//! Method tables per revision and direction (spec digest §5.1-§5.3; \[TS\] `ClientRequest`,
//! `ServerRequest`, `ClientNotification`, `ServerNotification` unions of each schema).

use super::Revision;

/// What a revision says about a method name in one direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// Defined for this kind (request / notification) and direction.
    Known,
    /// Defined, but only in the other direction.
    WrongDirection,
    /// Defined as the other kind (a request name used as a notification or vice versa).
    WrongKind,
    /// Removed in 2026-07-28 (defined by an earlier revision).
    Removed,
    /// Not defined at all.
    Unknown,
}

const C: u8 = 1; // client → server
const S: u8 = 2; // server → client
const B: u8 = C | S;

type Table = &'static [(&'static str, u8)];

const REQ_1105: Table = &[
    ("initialize", C),
    ("ping", B),
    ("completion/complete", C),
    ("logging/setLevel", C),
    ("prompts/get", C),
    ("prompts/list", C),
    ("resources/list", C),
    ("resources/templates/list", C),
    ("resources/read", C),
    ("resources/subscribe", C),
    ("resources/unsubscribe", C),
    ("tools/call", C),
    ("tools/list", C),
    ("sampling/createMessage", S),
    ("roots/list", S),
];
const NOTE_1105: Table = &[
    ("notifications/cancelled", B),
    ("notifications/progress", B),
    ("notifications/initialized", C),
    ("notifications/roots/list_changed", C),
    ("notifications/message", S),
    ("notifications/resources/updated", S),
    ("notifications/resources/list_changed", S),
    ("notifications/tools/list_changed", S),
    ("notifications/prompts/list_changed", S),
];
const REQ_0618_EXTRA: Table = &[("elicitation/create", S)];
const REQ_1125_EXTRA: Table = &[
    ("tasks/get", B),
    ("tasks/result", B),
    ("tasks/list", B),
    ("tasks/cancel", B),
];
const NOTE_1125_EXTRA: Table = &[
    ("notifications/tasks/status", B),
    ("notifications/elicitation/complete", S),
];

const REQ_2026: Table = &[
    ("server/discover", C),
    ("tools/list", C),
    ("tools/call", C),
    ("prompts/list", C),
    ("prompts/get", C),
    ("resources/list", C),
    ("resources/templates/list", C),
    ("resources/read", C),
    ("subscriptions/listen", C),
    ("completion/complete", C),
];
const NOTE_2026: Table = &[
    ("notifications/cancelled", B),
    ("notifications/progress", S),
    ("notifications/message", S),
    ("notifications/subscriptions/acknowledged", S),
    ("notifications/tools/list_changed", S),
    ("notifications/prompts/list_changed", S),
    ("notifications/resources/list_changed", S),
    ("notifications/resources/updated", S),
];
/// Tasks extension (`io.modelcontextprotocol/tasks`, ext-tasks draft for 2026-07-28).
const REQ_TASKS_EXT: Table = &[("tasks/get", C), ("tasks/update", C), ("tasks/cancel", C)];
const NOTE_TASKS_EXT: Table = &[("notifications/tasks", S)];

fn find(t: Table, m: &str) -> Option<u8> {
    t.iter().find(|(n, _)| *n == m).map(|(_, d)| *d)
}

fn tables(rev: Option<Revision>, request: bool) -> [Table; 3] {
    use Revision::*;
    let empty: Table = &[];
    match (rev, request) {
        (Some(V2026_07_28), true) => [REQ_2026, empty, empty],
        (Some(V2026_07_28), false) => [NOTE_2026, empty, empty],
        (Some(V2024_11_05 | V2025_03_26), true) => [REQ_1105, empty, empty],
        (Some(V2024_11_05 | V2025_03_26), false) => [NOTE_1105, empty, empty],
        (Some(V2025_06_18), true) => [REQ_1105, REQ_0618_EXTRA, empty],
        (Some(V2025_06_18), false) => [NOTE_1105, empty, empty],
        // 2025-11-25 is a superset of every older revision: it is also the legacy union.
        (Some(V2025_11_25) | None, true) => [REQ_1105, REQ_0618_EXTRA, REQ_1125_EXTRA],
        (Some(V2025_11_25) | None, false) => [NOTE_1105, NOTE_1125_EXTRA, empty],
    }
}

fn dir_of(t: &[Table], m: &str) -> Option<u8> {
    t.iter().find_map(|t| find(t, m))
}

/// Looks up `method` used as a request (`request == true`) or notification sent by the client
/// (`from_client == Some(true)`), the server (`Some(false)`) or an unknown side (`None`).
/// `rev == None` is the legacy union; `tasks_ext` adds the Tasks extension (2026 only).
pub(crate) fn lookup(
    rev: Option<Revision>,
    method: &str,
    request: bool,
    from_client: Option<bool>,
    tasks_ext: bool,
) -> Lookup {
    let modern = rev == Some(Revision::V2026_07_28);
    // The revision's tables plus the Tasks extension's, on the stack (this runs once per
    // message: two `Vec`s here were 2 allocations per message).
    let with_ext = |request: bool| -> [Table; 4] {
        let [a, b, c] = tables(rev, request);
        let ext: Table = match (modern && tasks_ext, request) {
            (true, true) => REQ_TASKS_EXT,
            (true, false) => NOTE_TASKS_EXT,
            (false, _) => &[],
        };
        [a, b, c, ext]
    };
    let own = with_ext(request);
    let other = with_ext(!request);
    match dir_of(&own, method) {
        Some(d) => {
            let want = match from_client {
                None => return Lookup::Known,
                Some(true) => C,
                Some(false) => S,
            };
            if d & want != 0 {
                Lookup::Known
            } else {
                Lookup::WrongDirection
            }
        }
        None if dir_of(&other, method).is_some() => Lookup::WrongKind,
        None if modern && defined_before_2026(method) => Lookup::Removed,
        None => Lookup::Unknown,
    }
}

/// True when the legacy revision `rev` (`None`: any legacy revision) defines `method`, as a
/// request or a notification.
pub(crate) fn defined_by_legacy(rev: Option<Revision>, method: &str) -> bool {
    dir_of(&tables(rev, true), method).is_some() || dir_of(&tables(rev, false), method).is_some()
}

/// True when some legacy revision defines `method` (request or notification).
pub(crate) fn defined_before_2026(method: &str) -> bool {
    defined_by_legacy(None, method)
}

/// True when `method` is defined as a request (not a notification) by `rev` (or any legacy
/// revision when `None`), including the Tasks extension in 2026 when `tasks_ext`.
pub(crate) fn is_request_method(rev: Option<Revision>, method: &str, tasks_ext: bool) -> bool {
    dir_of(&tables(rev, true), method).is_some()
        || (tasks_ext
            && rev == Some(Revision::V2026_07_28)
            && find(REQ_TASKS_EXT, method).is_some())
}
