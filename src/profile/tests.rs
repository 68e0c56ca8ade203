//! Unit tests of the rule engine over the core envelope walk: a table test per rule, the
//! tracker, the auto profile and the header check. The shared spec examples and real
//! captures run through the public API in `tests/profile_corpus.rs` and `tests/headers.rs`.

use super::msg::Msg;
use super::tracker::Tracker;
use super::*;
use crate::error::INTERNAL_ERROR;

include!("../../tests/support/profile_corpus.rs");

/// The profile's view of a frame the core parses (test messages are well-formed JSON).
fn msg_of(frame: &[u8]) -> Msg<'_> {
    let env = crate::envelope::parse(frame)
        .unwrap_or_else(|e| panic!("core rejects {:?}: {e}", String::from_utf8_lossy(frame)));
    Msg::from_envelope(&env)
}

fn judge(v: &mut Validator, t: Option<(&mut Tracker, Direction)>, frame: &[u8]) -> Vec<Violation> {
    let mut out = Vec::new();
    match crate::envelope::parse(frame) {
        Ok(env) => {
            validate::check(v, &Msg::from_envelope(&env), t, &mut out);
        }
        Err(e) => out.push(Violation::from_error(&e)),
    }
    out
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn req(method: &str, extra: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{{extra}{META}}}}}"#)
}

/// One row: rule, profile, direction, a message that passes, a message that breaks the rule.
struct Row {
    rule: Rule,
    profile: Profile,
    dir: Direction,
    pass: String,
    fail: String,
}

fn rows() -> Vec<Row> {
    use Direction::*;
    use Profile::*;
    let r = |rule, profile, dir, pass: &str, fail: &str| Row {
        rule,
        profile,
        dir,
        pass: pass.into(),
        fail: fail.into(),
    };
    vec![
        r(
            Rule::MissingProtocolVersion,
            V2026_07_28,
            ClientToServer,
            &req("tools/list", ""),
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        ),
        r(
            Rule::MissingClientCapabilities,
            V2026_07_28,
            ClientToServer,
            &req("tools/list", ""),
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
        ),
        r(
            Rule::ReservedMetaValue,
            V2026_07_28,
            ClientToServer,
            &req("tools/list", "").replace(r#""_meta":{"#, r#""_meta":{"progressToken":"t-1","#),
            &req("tools/list", "").replace(r#""_meta":{"#, r#""_meta":{"progressToken":1.5,"#),
        ),
        r(
            Rule::UnsupportedProtocolVersion,
            V2026_07_28,
            ClientToServer,
            &req("tools/list", ""),
            &req("tools/list", "").replace("\"2026-07-28\"", "\"2099-01-01\""),
        ),
        r(
            Rule::MetaKeyGrammar,
            V2026_07_28,
            ClientToServer,
            &req("tools/list", "")
                .replace(r#""_meta":{"#, r#""_meta":{"com.example/trace-id":"x","#),
            &req("tools/list", "").replace(r#""_meta":{"#, r#""_meta":{"com.example/-bad":"x","#),
        ),
        r(
            Rule::ReservedMetaKey,
            V2026_07_28,
            ClientToServer,
            &req("tools/list", "").replace(r#""_meta":{"#, r#""_meta":{"com.example.mcp/x":"x","#),
            &req("tools/list", "").replace(
                r#""_meta":{"#,
                r#""_meta":{"io.modelcontextprotocol/madeUp":"x","#,
            ),
        ),
        r(
            Rule::ReservedMetaKey,
            V2025_11_25,
            ClientToServer,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t"},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"com.example.mcp/x":1,"mcp.dev/x":1}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"io.modelcontextprotocol/madeUp":1}}}"#,
        ),
        r(
            Rule::ReservedMetaKey,
            V2025_06_18,
            ServerToClient,
            r#"{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t"},"dev.mcp/x":1}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"_meta":{"mcp.dev/x":1}}}"#,
        ),
        r(
            Rule::MissingResultType,
            V2026_07_28,
            ServerToClient,
            r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        ),
        r(
            Rule::UnknownResultType,
            V2026_07_28,
            ServerToClient,
            r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"task"}}"#,
        ),
        r(
            Rule::InputRequiredShape,
            V2026_07_28,
            ServerToClient,
            r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list","params":{}}}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required"}}"#,
        ),
        r(
            Rule::InputRequestMethod,
            V2026_07_28,
            ServerToClient,
            r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"tools/call","params":{}}}}}"#,
        ),
        r(
            Rule::ReservedErrorCode,
            V2026_07_28,
            ServerToClient,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32042,"message":"m"}}"#,
        ),
        r(
            Rule::ReservedErrorCode,
            V2025_11_25,
            ServerToClient,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32042,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32500,"message":"m"}}"#,
        ),
        r(
            Rule::ErrorDataShape,
            V2026_07_28,
            ServerToClient,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"m","data":{"supported":["2026-07-28"],"requested":"1900-01-01"}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"m"}}"#,
        ),
        r(
            Rule::NullErrorId,
            V2026_07_28,
            ServerToClient,
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}"#,
        ),
        // Hostile trial (session 9): legacy error responses without `id` passed.
        r(
            Rule::MissingErrorId,
            V2025_06_18,
            ServerToClient,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"m"}}"#,
        ),
        r(
            Rule::UnknownMethod,
            V2026_07_28,
            ClientToServer,
            &req("tools/list", ""),
            &req("tools/lst", ""),
        ),
        r(
            Rule::RemovedMethod,
            V2026_07_28,
            ClientToServer,
            &req("server/discover", ""),
            &req("ping", ""),
        ),
        r(
            Rule::RemovedMethod,
            V2026_07_28,
            ClientToServer,
            &req("tools/list", ""),
            &req("logging/setLevel", r#""level":"info","#),
        ),
        r(
            Rule::WrongDirection,
            V2025_11_25,
            ServerToClient,
            r#"{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":10}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#,
        ),
        r(
            Rule::ServerRequest,
            V2026_07_28,
            ServerToClient,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#,
            &req("tools/list", ""),
        ),
        r(
            Rule::ClientResponse,
            V2026_07_28,
            ClientToServer,
            &req("tools/list", ""),
            r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}"#,
        ),
        r(
            Rule::NotificationWithId,
            V2026_07_28,
            ServerToClient,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#,
        ),
        r(
            Rule::RequestWithoutId,
            V2025_11_25,
            ClientToServer,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","method":"ping"}"#,
        ),
        r(
            Rule::CaseVariantKey,
            V2026_07_28,
            ClientToServer,
            &req("tools/list", ""),
            &req("tools/list", "").replace(r#""id":1,"#, r#""id":1,"Method":"tools/call","#),
        ),
        // Also under a legacy profile (the revision a message claims must not switch it off).
        r(
            Rule::CaseVariantKey,
            V2025_06_18,
            ClientToServer,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","ID":2}"#,
        ),
        r(
            Rule::CaseVariantKey,
            V2025_06_18,
            ClientToServer,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","param\u017f":{}}"#,
        ),
        r(
            Rule::CaseVariantParam,
            V2026_07_28,
            ClientToServer,
            &req("tools/call", r#""name":"greet","arguments":{},"#),
            &req(
                "tools/call",
                r#""name":"greet","Name":"secretTool","arguments":{},"#,
            ),
        ),
        r(
            Rule::CaseVariantParam,
            V2025_06_18,
            ClientToServer,
            r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///a"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///a","URI":"file:///etc/passwd"}}"#,
        ),
        r(
            Rule::CaseVariantKey,
            V2025_06_18,
            ServerToClient,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"m","Code":1}}"#,
        ),
        r(
            Rule::MissingParam,
            V2026_07_28,
            ClientToServer,
            &req("tools/call", r#""name":"greet","#),
            &req("tools/call", r#""arguments":{},"#),
        ),
        r(
            Rule::ParamType,
            V2025_06_18,
            ServerToClient,
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":null}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"verbose","data":null}}"#,
        ),
        r(
            Rule::CacheField,
            V2026_07_28,
            ServerToClient,
            r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"private"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":-1,"cacheScope":"private"}}"#,
        ),
        r(
            Rule::MissingSubscriptionId,
            V2026_07_28,
            ServerToClient,
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{},"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{}}}"#,
        ),
    ]
}

#[test]
fn every_rule_has_a_passing_and_a_failing_message() {
    let rows = rows();
    for row in &rows {
        for (msg, should_fire) in [(&row.pass, false), (&row.fail, true)] {
            assert!(
                serde_json::from_str::<serde_json::Value>(msg).is_ok(),
                "test message is not JSON: {msg}"
            );
            let got = judge(
                &mut Validator::new(row.profile, row.dir),
                None,
                msg.as_bytes(),
            );
            let fired = got.iter().any(|v| v.rule == row.rule);
            assert_eq!(fired, should_fire, "{} on {msg}: {got:?}", row.rule);
            if !should_fire {
                assert!(
                    got.is_empty(),
                    "passing message has violations: {msg}: {got:?}"
                );
            }
            for v in &got {
                assert!(
                    v.offset < msg.len(),
                    "offset {} out of range in {msg}",
                    v.offset
                );
            }
        }
    }
    // Tracker and header rules are covered by their own tests; every other rule has a row.
    let covered: std::collections::HashSet<_> = rows.iter().map(|r| r.rule).collect();
    let tested_elsewhere = [
        Rule::InputRequiredNotAllowed,
        Rule::DuplicateRequestId,
        Rule::UnknownResponseId,
        Rule::ReusedRequestId,
        Rule::TaskResultNotAllowed,
        Rule::MissingResultMember,
        Rule::ResultMemberType,
        Rule::DuplicateProgressToken,
        Rule::UnknownProgressToken,
        Rule::ProgressNotIncreasing,
        Rule::BatchTooLarge,
        Rule::HeaderMissing,
        Rule::HeaderMismatch,
        Rule::HeaderInvalid,
    ];
    for r in Rule::ALL {
        assert!(
            covered.contains(r) || tested_elsewhere.contains(r),
            "no table row for {r}"
        );
    }
}

#[test]
fn rule_names_are_unique_kebab_case_and_round_trip() {
    let mut seen = std::collections::HashSet::new();
    for r in Rule::ALL
        .iter()
        .copied()
        .chain(crate::error::ErrorKind::ALL.iter().map(|k| Rule::Core(*k)))
    {
        assert!(seen.insert(r.name()), "duplicate name {}", r.name());
        assert!(
            r.name()
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
            "{}",
            r.name()
        );
        assert_eq!(Rule::from_name(r.name()), Some(r));
        assert!(!r.section().is_empty());
    }
}

#[test]
fn tracker_rules() {
    let mut t = Tracker::new(4);
    let p = Profile::V2026_07_28;
    let mut c = Validator::new(p, Direction::ClientToServer);
    let mut s = Validator::new(p, Direction::ServerToClient);
    let c2s = Direction::ClientToServer;
    let s2c = Direction::ServerToClient;
    let call = req("tools/list", "");
    assert!(judge(&mut c, Some((&mut t, c2s)), call.as_bytes()).is_empty());
    let dup = judge(&mut c, Some((&mut t, c2s)), call.as_bytes());
    assert_eq!(
        dup.iter().map(|v| v.rule).collect::<Vec<_>>(),
        [Rule::DuplicateRequestId]
    );
    let ok = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"public"}}"#;
    assert!(judge(&mut s, Some((&mut t, s2c)), ok).is_empty());
    // The id is free again: 2026-07-28 allows reuse after completion.
    assert!(judge(&mut c, Some((&mut t, c2s)), call.as_bytes()).is_empty());
    // "1" (string) is not 1 (integer).
    let unknown = br#"{"jsonrpc":"2.0","id":"1","result":{"resultType":"complete"}}"#;
    let got = judge(&mut s, Some((&mut t, s2c)), unknown);
    assert_eq!(
        got.iter().map(|v| v.rule).collect::<Vec<_>>(),
        [Rule::UnknownResponseId]
    );
    // input_required answering tools/list is not allowed.
    let ir =
        br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"x"}}"#;
    let got = judge(&mut s, Some((&mut t, s2c)), ir);
    assert_eq!(
        got.iter().map(|v| v.rule).collect::<Vec<_>>(),
        [Rule::InputRequiredNotAllowed]
    );
    // A listen result needs its subscriptionId.
    let listen =
        req("subscriptions/listen", r#""notifications":{},"#).replace(r#""id":1"#, r#""id":"l-1""#);
    assert!(judge(&mut c, Some((&mut t, c2s)), listen.as_bytes()).is_empty());
    let end = br#"{"jsonrpc":"2.0","id":"l-1","result":{"resultType":"complete"}}"#;
    let got = judge(&mut s, Some((&mut t, s2c)), end);
    assert_eq!(
        got.iter().map(|v| v.rule).collect::<Vec<_>>(),
        [Rule::MissingSubscriptionId]
    );
}

/// `set_partial(ServerToClient)` (proxy http: server requests on unvalidated GET streams):
/// a client response to an unseen request is not reported; a server response still is, and
/// the mark survives a legacy `initialize` (reset).
#[test]
fn partial_tracker_does_not_report_responses_to_unseen_requests() {
    let mut t = Tracker::new(4);
    t.set_partial(Direction::ServerToClient);
    let p = Profile::Legacy;
    let mut c = Validator::new(p, Direction::ClientToServer);
    let mut s = Validator::new(p, Direction::ServerToClient);
    let (c2s, s2c) = (Direction::ClientToServer, Direction::ServerToClient);
    let init = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    assert!(judge(&mut c, Some((&mut t, c2s)), init).is_empty());
    assert!(t.is_partial(s2c) && !t.is_partial(c2s));
    let answer = br#"{"jsonrpc":"2.0","id":9,"result":{}}"#;
    assert!(judge(&mut c, Some((&mut t, c2s)), answer).is_empty());
    assert_eq!(
        rules_of(&judge(&mut s, Some((&mut t, s2c)), answer)),
        [Rule::UnknownResponseId]
    );
    let mut whole = Tracker::new(4);
    assert_eq!(
        rules_of(&judge(&mut c, Some((&mut whole, c2s)), answer)),
        [Rule::UnknownResponseId]
    );
}

fn rules_of(v: &[Violation]) -> Vec<Rule> {
    v.iter().map(|v| v.rule).collect()
}

#[test]
fn legacy_ids_are_never_reused_within_a_session() {
    let c2s = Direction::ClientToServer;
    let s2c = Direction::ServerToClient;
    let init = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    let init_ok = br#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#;
    let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let pong = br#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
    for profile in [
        Profile::V2025_11_25,
        Profile::V2024_11_05,
        Profile::Legacy,
        Profile::Auto,
    ] {
        let mut t = Tracker::new(8);
        let mut c = Validator::new(profile, c2s);
        let mut s = Validator::new(profile, s2c);
        assert!(judge(&mut c, Some((&mut t, c2s)), init).is_empty());
        assert!(judge(&mut s, Some((&mut t, s2c)), init_ok).is_empty());
        // Passing: a fresh id; the server may use the same id for its own request.
        assert!(
            judge(&mut c, Some((&mut t, c2s)), ping).is_empty(),
            "{profile}"
        );
        assert!(judge(&mut s, Some((&mut t, s2c)), pong).is_empty());
        assert!(judge(&mut s, Some((&mut t, s2c)), ping).is_empty());
        // Failing: the client reuses its completed id 1.
        assert_eq!(
            rules_of(&judge(&mut c, Some((&mut t, c2s)), ping)),
            [Rule::ReusedRequestId],
            "{profile}"
        );
        // A new session (initialize) starts the id space over.
        assert!(judge(&mut c, Some((&mut t, c2s)), init).is_empty());
        assert!(
            judge(&mut c, Some((&mut t, c2s)), ping).is_empty(),
            "{profile}"
        );
    }
    // A cancelled legacy request's id is not free either.
    let mut t = Tracker::new(8);
    let mut c = Validator::new(Profile::V2025_06_18, c2s);
    assert!(judge(&mut c, Some((&mut t, c2s)), ping).is_empty());
    let cancel =
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#;
    assert!(judge(&mut c, Some((&mut t, c2s)), cancel).is_empty());
    assert_eq!(
        rules_of(&judge(&mut c, Some((&mut t, c2s)), ping)),
        [Rule::ReusedRequestId]
    );
    // 2026-07-28 allows reuse after completion (see `tracker_rules`); the memory is bounded.
    let mut t = Tracker::new(2);
    let mut c = Validator::new(Profile::V2025_11_25, c2s);
    let mut s = Validator::new(Profile::V2025_11_25, s2c);
    for i in 0..5 {
        let q = format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"ping"}}"#);
        let a = format!(r#"{{"jsonrpc":"2.0","id":{i},"result":{{}}}}"#);
        assert!(judge(&mut c, Some((&mut t, c2s)), q.as_bytes()).is_empty());
        assert!(judge(&mut s, Some((&mut t, s2c)), a.as_bytes()).is_empty());
    }
    // Ids 0..2 were forgotten (never a false report); 3 and 4 are remembered.
    let q0 = br#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#;
    assert!(judge(&mut c, Some((&mut t, c2s)), q0).is_empty());
    let q4 = br#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#;
    assert_eq!(
        rules_of(&judge(&mut c, Some((&mut t, c2s)), q4)),
        [Rule::ReusedRequestId]
    );
}

#[test]
fn task_result_only_on_declared_tools_call() {
    let c2s = Direction::ClientToServer;
    let s2c = Direction::ServerToClient;
    let task = |id: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"task","taskId":"t-1","status":"working","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":60000}}}}"#
        )
    };
    let declared = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}"#;
    let call_declared = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"x","arguments":{{}},{declared}}}}}"#
    );
    let call_undeclared =
        req("tools/call", r#""name":"x","arguments":{},"#).replace(r#""id":1"#, r#""id":2"#);
    let prompt_declared = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{{"name":"p",{declared}}}}}"#
    );
    let mut t = Tracker::new(8);
    let mut c = Validator::new(Profile::V2026_07_28, c2s);
    let mut s = Validator::new(Profile::V2026_07_28, s2c);
    c.enable_tasks_extension();
    s.enable_tasks_extension();
    for q in [&call_declared, &call_undeclared, &prompt_declared] {
        assert!(
            judge(&mut c, Some((&mut t, c2s)), q.as_bytes()).is_empty(),
            "{q}"
        );
    }
    // Passing: a task answering the tools/call that declared the extension.
    let got = judge(&mut s, Some((&mut t, s2c)), task("1").as_bytes());
    assert!(got.is_empty(), "{got:?}");
    // Failing: a tools/call that did not declare it, and a prompts/get.
    for id in ["2", "3"] {
        assert_eq!(
            rules_of(&judge(&mut s, Some((&mut t, s2c)), task(id).as_bytes())),
            [Rule::TaskResultNotAllowed],
            "id {id}"
        );
    }
}

#[test]
fn tracker_is_bounded_and_never_guesses_after_eviction() {
    let mut t = Tracker::new(3);
    for i in 0..10 {
        assert_eq!(
            t.on_request(
                Direction::ClientToServer,
                format!("n:{i}"),
                "tools/list",
                None,
                false
            ),
            tracker::RequestId::Fresh
        );
        assert!(t.in_flight(Direction::ClientToServer) <= 3);
    }
    assert_eq!(t.evicted(), 7);
    assert!(matches!(
        t.on_response(Direction::ServerToClient, "n:0"),
        tracker::Response::NotTracked
    ));
    assert!(matches!(
        t.on_response(Direction::ServerToClient, "n:9"),
        tracker::Response::Matched { .. }
    ));
}

/// `Validator::revision` and `Session::revision` give the same type and value (review: one
/// gave `&str` with `"legacy"`, the other `Revision`); the name, `"legacy"` included, is
/// `Validator::revision_name`.
#[test]
fn validator_and_session_revisions_agree() {
    for &p in Profile::ALL {
        let mut s = Session::new(p, 4);
        for d in [Direction::ClientToServer, Direction::ServerToClient] {
            let v: Option<Revision> = s.validator_mut(d).revision();
            assert_eq!(v, s.revision(d), "{p}");
            assert_eq!(v, p.revision(), "{p}");
            let name = s.validator_mut(d).revision_name();
            let want = match p {
                Profile::Legacy => Some("legacy"),
                Profile::Auto => None,
                p => Some(p.as_str()),
            };
            assert_eq!(name, want, "{p}");
        }
    }
}

#[test]
fn auto_profile_follows_the_stream() {
    let mut c = Validator::new(Profile::Auto, Direction::ClientToServer);
    assert_eq!(c.revision(), None);
    assert_eq!(c.revision_name(), None);
    assert!(judge(&mut c, None, req("server/discover", "").as_bytes()).is_empty());
    assert_eq!(c.revision(), Some(Revision::V2026_07_28));
    assert_eq!(c.revision_name(), Some("2026-07-28"));
    let init = br#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    assert!(judge(&mut c, None, init).is_empty());
    assert_eq!(c.revision(), Some(Revision::V2025_06_18));
    assert_eq!(c.revision_name(), Some("2025-06-18"));
    assert!(judge(&mut c, None, br#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#).is_empty());
    // A modern request switches back and is judged by 2026 rules.
    let bad = req("ping", "");
    let got = judge(&mut c, None, bad.as_bytes());
    assert_eq!(
        got.iter().map(|v| v.rule).collect::<Vec<_>>(),
        [Rule::RemovedMethod]
    );
    let mut s = Validator::new(Profile::Auto, Direction::ServerToClient);
    assert!(
        judge(
            &mut s,
            None,
            br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}"#
        )
        .is_empty()
    );
    let got = judge(&mut s, None, br#"{"jsonrpc":"2.0","id":2,"result":{}}"#);
    assert_eq!(
        got.iter().map(|v| v.rule).collect::<Vec<_>>(),
        [Rule::MissingResultType]
    );
}

#[test]
fn header_check_on_spec_http_examples() {
    let Some(shared) = corpus::shared() else {
        println!("skipped: ../shared not found");
        return;
    };
    let text = std::fs::read_to_string(
        shared.join("spec-examples/http/streamable-http-post-2026-07-28.jsonl"),
    )
    .unwrap();
    let mut n = 0;
    for line in text.lines() {
        let rec = HeaderRecord::parse(line.as_bytes()).unwrap();
        let m = msg_of(&rec.body);
        let mut out = Vec::new();
        let bindings = [ParamBinding {
            header: "Region".into(),
            path: vec!["region".into()],
        }];
        headers::check_msg(&rec.header_pairs(), &m, &bindings, &mut out);
        assert!(out.is_empty(), "{line}: {out:?}");
        n += 1;
    }
    assert_eq!(n, 3);
}

include!("../../tests/support/header_cases.rs");

#[test]
fn header_cases_case_base64_and_number_spelling() {
    for c in header_cases::cases() {
        let m = msg_of(c.body.as_bytes());
        let bindings: Vec<ParamBinding> = c
            .params
            .iter()
            .map(|(h, p)| ParamBinding {
                header: (*h).into(),
                path: vec![(*p).into()],
            })
            .collect();
        let mut out = Vec::new();
        headers::check_msg(&c.headers, &m, &bindings, &mut out);
        let got: Vec<&str> = out.iter().map(|v| v.rule.name()).collect();
        assert_eq!(got, c.expect, "{}: {out:?}", c.what);
        assert!(out.iter().all(|v| v.rule.code() == -32020), "{}", c.what);
    }
}

#[test]
fn multibyte_header_names_do_not_panic() {
    let m = msg_of(header_cases::BODY_CALL.as_bytes());
    let mut out = Vec::new();
    let h = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "get_weather"),
        ("mcp-paraé-x", "1"),
        ("é", "x"),
    ];
    headers::check_msg(&h, &m, &[], &mut out);
    assert!(out.is_empty(), "{out:?}");
}

/// Hostile trial (session 9): each `Mcp-Param-*` header was looked for among the headers
/// before it, so N distinct names cost O(N²) (80,000 headers, 2 MB: 32 s). Grouped in one
/// pass now: 200,000 distinct names, plus one name given twice with different values (case
/// differs) and one that does not decode, are judged at once with the same verdicts.
#[test]
fn many_param_headers_are_judged_in_one_pass() {
    let m = msg_of(header_cases::BODY_CALL.as_bytes());
    let names: Vec<String> = (0..200_000).map(|i| format!("Mcp-Param-p{i}")).collect();
    let mut h: Vec<(&str, &str)> = vec![
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "get_weather"),
    ];
    h.extend(names.iter().map(|n| (n.as_str(), "1")));
    h.push(("mcp-param-P7", "2"));
    h.push(("Mcp-Param-bad", "=?base64?%%%?="));
    let mut out = Vec::new();
    headers::check_msg(&h, &m, &[], &mut out);
    let got: Vec<(Rule, &str)> = out.iter().map(|v| (v.rule, v.message.as_str())).collect();
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0].0, Rule::HeaderMismatch);
    assert!(
        got[0].1.starts_with("Mcp-Param-p7 header given twice"),
        "{got:?}"
    );
    assert_eq!(got[1].0, Rule::HeaderInvalid);
    assert!(got[1].1.starts_with("Mcp-Param-bad: "), "{got:?}");
}

/// Wrong-direction messages spell the directions out (a fresh user read `c2s` as jargon).
#[test]
fn wrong_direction_message_names_both_directions() {
    let mut v = Validator::new(Profile::V2025_11_25, Direction::ServerToClient);
    let out = judge(
        &mut v,
        None,
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#,
    );
    let w = out
        .iter()
        .find(|x| x.rule == Rule::WrongDirection)
        .expect("wrong-direction");
    // Spec trial, session 22: -32601 (the method is not available on this side), as
    // `removed-method` and `unknown-method`; it was -32600.
    assert_eq!(w.rule.code(), -32601);
    let reply = crate::profile::error_reply(None, w);
    assert_eq!(reply.http_status, 404);
    // Re-trial, session 22: 404 only for 2026-07-28; a legacy Streamable HTTP client reads
    // 404 as "session expired", so every other revision (and none known) gets 400.
    assert_eq!(
        reply
            .clone()
            .for_revision(Some(Revision::V2026_07_28))
            .http_status,
        404
    );
    for rev in [
        None,
        Some(Revision::V2025_11_25),
        Some(Revision::V2025_03_26),
    ] {
        assert_eq!(reply.clone().for_revision(rev).http_status, 400, "{rev:?}");
    }
    assert_eq!(
        w.message,
        "request \"tools/call\" is not sent server-to-client in 2025-11-25 (only client-to-server)"
    );
}

/// Adversarial trial (session 3): the tracker held every in-flight and used id verbatim, so
/// 4 MiB string ids made its memory grow with the bytes sent. Ids over `ID_KEY_MAX` bytes
/// are now kept as a 128-bit digest: bounded, distinct ids stay distinct, equal ids equal.
#[test]
fn long_string_ids_are_digested_in_the_tracker_key() {
    let frame = |id: &str| format!(r#"{{"jsonrpc":"2.0","id":"{id}","method":"ping"}}"#);
    let key = |id: &str| msg_of(frame(id).as_bytes()).id_key().unwrap();
    let at_limit = "a".repeat(super::msg::ID_KEY_MAX);
    assert_eq!(key(&at_limit), format!("s:{at_limit}"));
    let over = "a".repeat(super::msg::ID_KEY_MAX + 1);
    let k = key(&over);
    assert!(k.starts_with("h:") && k.len() == 34, "{k}");
    assert_eq!(key(&over), k);
    let big_a = format!("{}x", "b".repeat(200_000));
    let big_b = format!("{}y", "b".repeat(200_000));
    assert_ne!(key(&big_a), key(&big_b));
    assert_eq!(key(&big_a).len(), 34);
    // Integer ids and short string ids are unchanged.
    assert_eq!(
        msg_of(br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#)
            .id_key()
            .as_deref(),
        Some("n:7")
    );
}

/// `IdKey` (public, re-exported at the crate root): equal exactly where the tracker treats ids
/// as equal: strings after unescaping, integers by text, never a string and an integer; no key
/// for `null`, floats, exponents, booleans, objects, arrays and non-tokens. Its keys agree
/// with the tracker's (a response keyed equal settles the request).
#[test]
fn id_key_is_the_trackers_key() {
    use crate::IdKey;
    let k = |raw: &str| IdKey::from_raw(raw);
    assert!(k("1").is_some() && k(r#""1""#).is_some());
    assert_ne!(k("1"), k(r#""1""#));
    assert_eq!(k(r#""a""#), k(r#""\u0061""#));
    assert_eq!(k(r#""J""#), k(r#""\u004A""#));
    assert_eq!(k(r#""J""#), k(r#""\u004a""#));
    assert_eq!(k(r#""/""#), k(r#""\/""#));
    assert_eq!(k(r#""😀""#), k(r#""\ud83d\ude00""#));
    assert_ne!(k(r#""a""#), k(r#""A""#));
    assert_ne!(k("1"), k("2"));
    // Long ids (digested) still compare by value.
    let long = "x".repeat(200);
    let escaped = format!(r#""{}\u0078""#, "x".repeat(199));
    assert_eq!(k(&format!(r#""{long}""#)), k(&escaped));
    assert_ne!(k(&format!(r#""{long}""#)), k(&format!(r#""{long}y""#)));
    for none in [
        "null",
        "1.0",
        "1e3",
        "-0",
        "true",
        "{}",
        "[1]",
        r#"{"a":1}"#,
        " 1",
        "1,2",
        r#""a"#,
        r#""\ud800""#,
        "9007199254740992",
        "",
    ] {
        assert_eq!(k(none), None, "{none}");
    }
    // `IdKey::of` reads an envelope's id the same way, for any shape.
    let env = crate::parse(br#"{"jsonrpc":"2.0","id":"\u0061","result":{}}"#).unwrap();
    assert_eq!(IdKey::of(&env), k(r#""a""#));
    let env = crate::parse(br#"{"jsonrpc":"2.0","method":"x"}"#).unwrap();
    assert_eq!(IdKey::of(&env), None);
    // The tracker's own matching agrees: `"\u0061"` answers request `"a"`, `"1"` not `1`.
    let mut s = Session::new(Profile::Legacy, 16);
    for f in [
        r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
    ] {
        assert_eq!(
            session_check(&mut s, Direction::ClientToServer, f).0,
            Tracked::Request
        );
    }
    let s2c = Direction::ServerToClient;
    let (t, _) = session_check(&mut s, s2c, r#"{"jsonrpc":"2.0","id":"1","result":{}}"#);
    assert_eq!(t, Tracked::UnknownId);
    let (t, _) = session_check(
        &mut s,
        s2c,
        r#"{"jsonrpc":"2.0","id":"\u0061","result":{}}"#,
    );
    assert!(matches!(t, Tracked::Answered { .. }), "{t:?}");
}

/// `Session::settle_rejected_response` settles exactly the request in flight with that id
/// (string ids compared decoded, as for well-formed responses), once.
#[test]
fn settle_rejected_response_matches_in_flight_ids() {
    let mut s = Session::new(Profile::Legacy, 16);
    let mut out = Vec::new();
    for f in [
        &br#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#[..],
        br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#,
    ] {
        s.check(
            Direction::ClientToServer,
            &crate::parse(f).unwrap(),
            &mut out,
        );
    }
    assert!(out.is_empty(), "{out:?}");
    let d = Direction::ServerToClient;
    assert!(!s.settle_rejected_response(d, "8"));
    assert!(!s.settle_rejected_response(d, "null"));
    assert!(!s.settle_rejected_response(d, "\"a"));
    assert!(!s.settle_rejected_response(d, r#"7,"x":1"#));
    assert!(s.settle_rejected_response(d, r#""\u0061""#));
    assert!(!s.settle_rejected_response(d, r#""a""#));
    assert!(s.settle_rejected_response(d, "7"));
    assert!(!s.settle_rejected_response(d, "7"));
    assert_eq!(s.tracker().in_flight(Direction::ClientToServer), 0);
}

/// A 2026-07-28 `notifications/cancelled` for `request_id` (its JSON text).
fn cancel_of(request_id: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{request_id},{META}}}}}"#
    )
}

/// Runs one frame through a [`Session`]: its tracker outcome and the rules it broke.
fn session_check(s: &mut Session, dir: Direction, frame: &str) -> (Tracked, Vec<Rule>) {
    let env = crate::parse(frame.as_bytes()).unwrap();
    let mut out = Vec::new();
    let t = s.check(dir, &env, &mut out);
    (t, rules_of(&out))
}

/// Gateway trial (session 9): an `initialize` request emptied the whole tracker, even under
/// 2026-07-28 where `initialize` is itself a removed method, so the answer to a request in
/// flight before it was `unknown-response-id` (and the proxy dropped it).
#[test]
fn initialize_does_not_forget_requests_in_flight() {
    let (c2s, s2c) = (Direction::ClientToServer, Direction::ServerToClient);
    for profile in [Profile::V2026_07_28, Profile::Auto] {
        let mut s = Session::new(profile, 16);
        let list =
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{META}}}}}"#);
        assert_eq!(
            session_check(&mut s, c2s, &list),
            (Tracked::Request, vec![])
        );
        let init =
            format!(r#"{{"jsonrpc":"2.0","id":2,"method":"initialize","params":{{{META}}}}}"#);
        let (t, rules) = session_check(&mut s, c2s, &init);
        assert_eq!(t, Tracked::Request, "{profile}");
        assert!(rules.contains(&Rule::RemovedMethod), "{profile}: {rules:?}");
        let answer = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[]}}"#;
        let (t, rules) = session_check(&mut s, s2c, answer);
        assert_eq!(
            t,
            Tracked::Answered {
                method: "tools/list".into()
            },
            "{profile}"
        );
        assert!(
            !rules.contains(&Rule::UnknownResponseId),
            "{profile}: {rules:?}"
        );
    }
}

/// Hostile trial (session 9): a client probing with `server/discover` falls back to
/// `initialize` after an error or a timeout (spec digest §7.1); the probe's late answer was
/// `unknown-response-id` because the legacy `initialize` emptied the tracker. Now the
/// session start only frees the ids (requests in flight count as cancelled).
#[test]
fn late_discover_answer_after_initialize_fallback() {
    let (c2s, s2c) = (Direction::ClientToServer, Direction::ServerToClient);
    let mut s = Session::new(Profile::Auto, 16);
    let discover =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{META}}}}}"#);
    assert_eq!(session_check(&mut s, c2s, &discover).0, Tracked::Request);
    let init = r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    assert_eq!(session_check(&mut s, c2s, init), (Tracked::Request, vec![]));
    let late = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#;
    let (t, rules) = session_check(&mut s, s2c, late);
    assert_eq!(
        t,
        Tracked::Answered {
            method: "server/discover".into()
        }
    );
    assert!(!rules.contains(&Rule::UnknownResponseId), "{rules:?}");
    // The new session may use id 1 again, with no late answer pending.
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    assert_eq!(session_check(&mut s, c2s, ping), (Tracked::Request, vec![]));
}

/// Hostile trial (session 9): request 7 cancelled, id 7 reused (allowed in 2026), then the
/// cancelled request's late answer and the real one. The late answer settled the new
/// request and the real answer was `unknown-response-id` (the proxy dropped it: the client
/// never got its reply). Either answer may come first, or the late one never: neither is
/// judged, and the id is free again afterwards.
#[test]
fn cancelled_id_reused_then_late_and_real_answers() {
    let (c2s, s2c) = (Direction::ClientToServer, Direction::ServerToClient);
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"a",{META}}}}}"#
    );
    let cancel = cancel_of("7");
    let answer = r#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[]}}"#;
    let mut s = Session::new(Profile::V2026_07_28, 16);
    assert_eq!(
        session_check(&mut s, c2s, &call),
        (Tracked::Request, vec![])
    );
    assert_eq!(session_check(&mut s, c2s, &cancel).1, vec![]);
    assert_eq!(
        session_check(&mut s, c2s, &call),
        (Tracked::Request, vec![])
    );
    assert_eq!(
        session_check(&mut s, s2c, answer),
        (Tracked::NotJudged, vec![])
    );
    assert_eq!(
        session_check(&mut s, s2c, answer),
        (Tracked::NotJudged, vec![])
    );
    assert_eq!(s.tracker().in_flight(c2s), 0);
    // The late answer never came: the entry left is free for reuse, not a duplicate.
    let mut s = Session::new(Profile::V2026_07_28, 16);
    session_check(&mut s, c2s, &call);
    session_check(&mut s, c2s, &cancel);
    session_check(&mut s, c2s, &call);
    assert_eq!(
        session_check(&mut s, s2c, answer),
        (Tracked::NotJudged, vec![])
    );
    assert_eq!(
        session_check(&mut s, c2s, &call),
        (Tracked::Request, vec![])
    );
    // Without a cancel, a second answer is still unknown.
    let mut s = Session::new(Profile::V2026_07_28, 16);
    session_check(&mut s, c2s, &call);
    assert_eq!(
        session_check(&mut s, s2c, answer).0,
        Tracked::Answered {
            method: "tools/call".into()
        }
    );
    assert_eq!(
        session_check(&mut s, s2c, answer),
        (Tracked::UnknownId, vec![Rule::UnknownResponseId])
    );
}

/// Hostile trial (session 9): string ids over `ID_KEY_MAX` bytes are keyed by a digest, but
/// `notifications/cancelled` keyed its `requestId` by the text, so the cancel missed and the
/// reused id was a `duplicate-request-id` (129 bytes; 128 worked).
#[test]
fn cancel_of_a_long_string_id() {
    let (c2s, s2c) = (Direction::ClientToServer, Direction::ServerToClient);
    for n in [super::msg::ID_KEY_MAX, super::msg::ID_KEY_MAX + 1] {
        let id = "i".repeat(n);
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":"{id}","method":"tools/call","params":{{"name":"a",{META}}}}}"#
        );
        let cancel = cancel_of(&format!("{id:?}"));
        let mut s = Session::new(Profile::V2026_07_28, 16);
        session_check(&mut s, c2s, &call);
        session_check(&mut s, c2s, &cancel);
        assert_eq!(
            session_check(&mut s, c2s, &call),
            (Tracked::Request, vec![]),
            "{n}"
        );
        let answer = format!(
            r#"{{"jsonrpc":"2.0","id":"{id}","result":{{"resultType":"complete","content":[]}}}}"#
        );
        assert_eq!(session_check(&mut s, s2c, &answer).1, vec![], "{n}");
    }
}

/// Gateway trial (session 9): a request `check` rejects stays in flight; a gateway that
/// answers it itself settles it with `settle_request` (before, only an undocumented replay of
/// its own reply through `check` did), and a duplicate is reported as such so that the
/// earlier request's entry is left alone. A rejected response says it answered a request
/// (`Tracked::Answered`), which `settle_rejected_response` cannot say afterwards.
#[test]
fn gateway_settles_what_it_answers() {
    let (c2s, s2c) = (Direction::ClientToServer, Direction::ServerToClient);
    let mut s = Session::new(Profile::V2026_07_28, 16);
    let bad = r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}"#;
    let (t, rules) = session_check(&mut s, c2s, bad);
    assert_eq!(t, Tracked::Request);
    assert!(!rules.is_empty());
    let (t, rules) = session_check(&mut s, c2s, bad);
    assert_eq!(t, Tracked::DuplicateRequest);
    assert!(rules.contains(&Rule::DuplicateRequestId), "{rules:?}");
    assert!(s.settle_request(c2s, "3"));
    assert!(!s.settle_request(c2s, "3"));
    assert_eq!(s.tracker().in_flight(c2s), 0);
    let good = format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{{{META}}}}}"#);
    assert_eq!(
        session_check(&mut s, c2s, &good),
        (Tracked::Request, vec![])
    );
    let no_type = r#"{"jsonrpc":"2.0","id":3,"result":{}}"#;
    let (t, rules) = session_check(&mut s, s2c, no_type);
    assert_eq!(
        t,
        Tracked::Answered {
            method: "tools/list".into()
        }
    );
    assert!(rules.contains(&Rule::MissingResultType), "{rules:?}");
    assert!(!s.settle_rejected_response(s2c, "3"));
    let v = Violation::new(Rule::MissingResultType, 0, "no resultType");
    let r = replacement_reply("3", &v);
    let body: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(body["id"], 3);
    assert_eq!(body["error"]["code"], -32603);
    assert_eq!(
        body["error"]["message"],
        "response rejected (missing-result-type: no resultType)"
    );
    assert_eq!(r.http_status, 500);
}

/// `Violation::from_frame_error`: the size limits are answered (-32600, 413), a bare CR too
/// (-32700, 400), the kinds no peer can be answered for are not.
#[test]
fn frame_errors_that_get_a_reply() {
    use crate::framing::{FrameError, FrameErrorKind};
    for kind in FrameErrorKind::ALL {
        let e = FrameError::new(*kind, 100, 3, 5_000_000);
        let v = Violation::from_frame_error(&e);
        assert_eq!(v.is_some(), kind.jsonrpc_code().is_some(), "{kind:?}");
        if let Some(v) = v {
            if *kind == FrameErrorKind::BareCr {
                // Not a size limit: a line readers split differently, a parse error.
                assert_eq!(v.rule, Rule::Core(crate::ErrorKind::BareCr));
                assert_eq!((v.offset, v.rule.code()), (0, -32700));
                assert_eq!(http_status(v.rule), 400);
                assert_eq!(kind.http_status(), Some(400));
            } else {
                assert_eq!(v.rule, Rule::Core(crate::ErrorKind::FrameTooLarge));
                assert_eq!((v.offset, v.rule.code()), (0, -32600));
                assert_eq!(http_status(v.rule), 413);
                assert_eq!(kind.http_status(), Some(413));
            }
            assert_eq!(Some(v.rule.code()), kind.jsonrpc_code());
            assert_eq!(v.message, kind.message());
        }
    }
    let e = FrameError::new(FrameErrorKind::UnterminatedLine, 0, 1, 3);
    assert!(Violation::from_frame_error(&e).is_none());
}

/// Hostile trial (session 9), three false accepts: under `auto` a batch of one 2026-07-28
/// request at stream start, and a first request whose `_meta` protocolVersion is not a
/// string (judged legacy); with the Tasks extension, any `io.modelcontextprotocol/*` `_meta`
/// key (the extension defines none).
#[test]
fn auto_era_and_tasks_extension_false_accepts() {
    let c2s = Direction::ClientToServer;
    let modern = format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{{META}}}}}"#);
    let mut v = Validator::new(Profile::Auto, c2s);
    let got = rules_of(&judge(&mut v, None, format!("[{modern}]").as_bytes()));
    assert_eq!(got, [Rule::Core(crate::ErrorKind::Batch)]);
    // A legacy batch still passes under `auto` (2025-03-26 allows batches).
    let mut v = Validator::new(Profile::Auto, c2s);
    let legacy = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]"#;
    assert_eq!(judge(&mut v, None, legacy), vec![]);

    let pv5 = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":5}}}"#;
    let mut v = Validator::new(Profile::Auto, c2s);
    let got = rules_of(&judge(&mut v, None, pv5));
    assert!(got.contains(&Rule::ReservedMetaValue), "{got:?}");
    assert!(got.contains(&Rule::MissingClientCapabilities), "{got:?}");
    assert_eq!(v.revision(), Some(Revision::V2026_07_28));

    let keys = br#"{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/anything":1,"io.modelcontextprotocol/related-task":{}}}}"#;
    for tasks in [false, true] {
        let mut v = Validator::new(Profile::V2026_07_28, c2s);
        if tasks {
            v.enable_tasks_extension();
        }
        let got = rules_of(&judge(&mut v, None, keys));
        assert_eq!(
            got,
            [Rule::ReservedMetaKey, Rule::ReservedMetaKey],
            "tasks {tasks}"
        );
    }
}

/// Review re-trial (session 9) of the tracker changes, three sequences:
/// 1. legacy: request 5, `initialize` (a new session), the late answer to 5, then request 5
///    in the new session: was `reused-request-id` (the late answer wrote the old session's id
///    into the new session's used ids);
/// 2. 2026: a request cancelled and its id reused twice, then three answers: the third was
///    `unknown-response-id` (one late answer allowed, not one per reuse);
/// 3. 2026: cancel and reuse, then a malformed answer (`result` and `error`): it answers a
///    request in flight, so `settle_rejected_response` is true (the proxy replaces it).
#[test]
fn tracker_reuse_sequences_from_the_re_trial() {
    let (c2s, s2c) = (Direction::ClientToServer, Direction::ServerToClient);
    let list = |id: u32| format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#);
    let mut s = Session::new(Profile::V2025_06_18, 16);
    assert_eq!(
        session_check(&mut s, c2s, &list(5)),
        (Tracked::Request, vec![])
    );
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    assert_eq!(session_check(&mut s, c2s, init), (Tracked::Request, vec![]));
    let late = r#"{"jsonrpc":"2.0","id":5,"result":{"tools":[]}}"#;
    assert_eq!(session_check(&mut s, s2c, late).1, vec![]);
    assert_eq!(
        session_check(&mut s, c2s, &list(5)),
        (Tracked::Request, vec![])
    );

    let modern = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{META}}}}}"#);
    let cancel = cancel_of("1");
    let answer = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[]}}"#;
    let mut s = Session::new(Profile::V2026_07_28, 16);
    for _ in 0..2 {
        assert_eq!(
            session_check(&mut s, c2s, &modern),
            (Tracked::Request, vec![])
        );
        assert_eq!(session_check(&mut s, c2s, &cancel).1, vec![]);
    }
    assert_eq!(
        session_check(&mut s, c2s, &modern),
        (Tracked::Request, vec![])
    );
    for n in 0..3 {
        assert_eq!(
            session_check(&mut s, s2c, answer),
            (Tracked::NotJudged, vec![]),
            "{n}"
        );
    }

    let mut s = Session::new(Profile::V2026_07_28, 16);
    session_check(&mut s, c2s, &modern);
    session_check(&mut s, c2s, &cancel);
    session_check(&mut s, c2s, &modern);
    let both = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"},"error":{"code":-32603,"message":"x"}}"#;
    assert_eq!(session_check(&mut s, s2c, both).0, Tracked::Untracked);
    assert!(s.settle_rejected_response(s2c, "1"));
}

/// Fuzz finding (target `session`, session 10): an id answered and then used again kept its
/// first place in the eviction order as well as its new one, so the full table evicted the
/// newest request (the reused id) instead of the oldest, and the answer to the newest was not
/// judged (`Tracked::NotJudged`) while the oldest stayed.
#[test]
fn eviction_takes_the_oldest_request_after_an_id_is_reused() {
    let (c2s, s2c) = (Direction::ClientToServer, Direction::ServerToClient);
    let call = |id: u32| {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"t"}}}}"#)
    };
    let answer = |id: u32| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#);
    let answered = Tracked::Answered {
        method: "tools/call".into(),
    };
    let mut s = Session::new(Profile::V2026_07_28, 2);
    for (dir, frame) in [(c2s, call(1)), (s2c, answer(1)), (c2s, call(2))] {
        session_check(&mut s, dir, &frame);
    }
    // Id 1 used again: ids 2 and 1 are in flight, id 2 the older.
    assert_eq!(session_check(&mut s, c2s, &call(1)).0, Tracked::Request);
    // A third request evicts the oldest (2), never the newest (1).
    assert_eq!(session_check(&mut s, c2s, &call(3)).0, Tracked::Request);
    assert_eq!(s.tracker().evicted(), 1);
    assert_eq!(session_check(&mut s, s2c, &answer(1)).0, answered);
    assert_eq!(session_check(&mut s, s2c, &answer(3)).0, answered);
    assert_eq!(session_check(&mut s, s2c, &answer(2)).0, Tracked::NotJudged);

    // The fuzz input's shape: an answered id used again, then one more request.
    let mut s = Session::new(Profile::Legacy, 2);
    let steps = [
        (c2s, call(7)),
        (c2s, call(2)),
        (c2s, call(1)), // evicts 7
        (s2c, answer(1)),
        (s2c, answer(2)),
        (c2s, call(7)),
        (c2s, call(2)), // 7 and 2 in flight
        (c2s, call(1)), // evicts 7, the oldest
    ];
    for (dir, frame) in &steps {
        session_check(&mut s, *dir, frame);
    }
    assert_eq!(session_check(&mut s, s2c, &answer(2)).0, answered);
    assert_eq!(session_check(&mut s, s2c, &answer(1)).0, answered);
}

/// Session 9's open item: cancelled requests whose late answer never comes filled the table,
/// and once one was evicted, unknown response ids were never reported again for the rest of
/// the session. A full table now evicts the earliest cancelled request first, remembers its
/// id for a late answer (not judged), and keeps reporting unknown ids.
#[test]
fn full_table_evicts_cancelled_requests_first() {
    let (c2s, s2c) = (Direction::ClientToServer, Direction::ServerToClient);
    let call = |id: u32| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"t",{META}}}}}"#
        )
    };
    let answer = |id: u32| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"complete","content":[]}}}}"#
        )
    };
    let answered = Tracked::Answered {
        method: "tools/call".into(),
    };
    let mut s = Session::new(Profile::V2026_07_28, 2);
    session_check(&mut s, c2s, &call(1));
    session_check(&mut s, c2s, &call(2));
    session_check(&mut s, c2s, &cancel_of("2"));
    // Full: the cancelled 2 goes, not the older live 1.
    assert_eq!(session_check(&mut s, c2s, &call(3)).0, Tracked::Request);
    assert_eq!(s.tracker().evicted(), 1);
    assert_eq!(session_check(&mut s, s2c, &answer(1)).0, answered);
    // Unknown ids are still reported ...
    let (t, rules) = session_check(&mut s, s2c, &answer(99));
    assert_eq!(
        (t, rules),
        (Tracked::UnknownId, vec![Rule::UnknownResponseId])
    );
    // ... the evicted cancelled request's late answer is not judged, once.
    assert_eq!(session_check(&mut s, s2c, &answer(2)).0, Tracked::NotJudged);
    assert_eq!(session_check(&mut s, s2c, &answer(2)).0, Tracked::UnknownId);
    assert_eq!(session_check(&mut s, s2c, &answer(3)).0, answered);

    // The id of an evicted cancelled request reused: its late answer may come first, so
    // neither answer is judged (as for a cancelled request still in the table).
    let mut s = Session::new(Profile::V2026_07_28, 1);
    session_check(&mut s, c2s, &call(5));
    session_check(&mut s, c2s, &cancel_of("5"));
    assert_eq!(session_check(&mut s, c2s, &call(6)).0, Tracked::Request);
    assert_eq!(session_check(&mut s, s2c, &answer(6)).0, answered);
    assert_eq!(session_check(&mut s, c2s, &call(5)).0, Tracked::Request);
    assert_eq!(session_check(&mut s, s2c, &answer(5)).0, Tracked::NotJudged);
    assert_eq!(session_check(&mut s, s2c, &answer(5)).0, Tracked::NotJudged);
    assert_eq!(session_check(&mut s, s2c, &answer(5)).0, Tracked::UnknownId);

    // Live requests evicted: unknown ids are no longer judged (one may answer the evicted).
    let mut s = Session::new(Profile::V2026_07_28, 1);
    session_check(&mut s, c2s, &call(7));
    session_check(&mut s, c2s, &call(8));
    assert_eq!(
        session_check(&mut s, s2c, &answer(99)).0,
        Tracked::NotJudged
    );
}

/// -32021 / -32022 `data` members by the 2026-07-28 schema: each way to break them is
/// reported once at the offending value; other codes and legacy profiles are not checked.
#[test]
fn error_data_of_mcp_errors() {
    let err = |code: i32, data: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":{code},"message":"m"{data}}}}}"#)
    };
    let cases: &[(i32, &str, Option<&str>)] = &[
        (
            -32022,
            r#","data":{"supported":["2026-07-28","2025-11-25"],"requested":"x"}"#,
            None,
        ),
        (-32022, r#","data":{"supported":[],"requested":"x"}"#, None),
        (-32022, "", Some("-32022")),
        (-32022, r#","data":null"#, Some("null")),
        (-32022, r#","data":{"requested":"x"}"#, Some("{")),
        (
            -32022,
            r#","data":{"supported":"2026-07-28","requested":"x"}"#,
            Some(r#""2026-07-28""#),
        ),
        (
            -32022,
            r#","data":{"supported":["a",5],"requested":"x"}"#,
            Some("5]"),
        ),
        (-32022, r#","data":{"supported":["a"]}"#, Some("{")),
        (
            -32022,
            r#","data":{"supported":["a"],"requested":1}"#,
            Some("1}"),
        ),
        (
            -32021,
            r#","data":{"requiredCapabilities":{"elicitation":{}}}"#,
            None,
        ),
        (-32021, r#","data":{}"#, Some("{}")),
        (
            -32021,
            r#","data":{"requiredCapabilities":"elicitation"}"#,
            Some(r#""elicitation""#),
        ),
        (-32020, "", None),
        (-32602, "", None),
    ];
    for &(code, data, at) in cases {
        let frame = err(code, data);
        let got = judge(
            &mut Validator::new(Profile::V2026_07_28, Direction::ServerToClient),
            None,
            frame.as_bytes(),
        );
        let found: Vec<_> = got
            .iter()
            .filter(|v| v.rule == Rule::ErrorDataShape)
            .collect();
        match at {
            None => assert!(got.is_empty(), "{frame}: {got:?}"),
            Some(at) => {
                assert_eq!(found.len(), 1, "{frame}: {got:?}");
                let want = frame.rfind(at).unwrap();
                assert_eq!(found[0].offset, want, "{frame}: {got:?}");
            }
        }
        for legacy in [Profile::Legacy, Profile::V2025_11_25] {
            let got = judge(
                &mut Validator::new(legacy, Direction::ServerToClient),
                None,
                frame.as_bytes(),
            );
            assert!(
                got.iter().all(|v| v.rule != Rule::ErrorDataShape),
                "{legacy} {frame}"
            );
        }
    }
}

/// A `Tracked::Batch` of these outcomes and ids.
fn batch_of(els: &[(Tracked, Option<&str>)]) -> Tracked {
    Tracked::Batch(
        els.iter()
            .map(|(t, id)| BatchElement::new(t.clone(), id.map(str::to_owned)))
            .collect(),
    )
}

/// Review: callers (`check`'s sender tracking, the proxy's batch rejection) parsed each batch
/// element again only to read its id. Each element's id comes with its outcome, as written
/// (escapes kept), for requests, responses and refused elements alike; none for a `null`,
/// float or missing id, or an element the core rejects. It is the id `settle_request` and
/// `replacement_reply` take.
#[test]
fn batch_elements_carry_their_ids() {
    let (c2s, s2c) = (Direction::ClientToServer, Direction::ServerToClient);
    let mut s = Session::new(Profile::V2025_03_26, 16);
    let (t, _) = session_check(
        &mut s,
        s2c,
        r#"{"jsonrpc":"2.0","id":"s\u0031","method":"ping"}"#,
    );
    assert_eq!(t, Tracked::Request);
    let batch = r#"[{"jsonrpc":"2.0","id":"\u0061","method":"ping"},{"jsonrpc":"2.0","id":"s1","result":{}},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"m"}},{"jsonrpc":"2.0","id":1.5,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"initialize","params":{}},{"jsonrpc":"2.0","id":4,"result":{}},[1],{"jsonrpc":"2.0","id":5,"method":"a","method":"b"}]"#;
    let (t, _) = session_check(&mut s, c2s, batch);
    let Tracked::Batch(els) = t else {
        panic!("{t:?}")
    };
    let got: Vec<(&Tracked, Option<&str>)> =
        els.iter().map(|e| (&e.tracked, e.id.as_deref())).collect();
    let answered = Tracked::Answered {
        method: "ping".into(),
    };
    assert_eq!(
        got,
        [
            (&Tracked::Request, Some(r#""\u0061""#)),
            (&answered, Some(r#""s1""#)),
            (&Tracked::Untracked, None),
            (&Tracked::Untracked, None),
            (&Tracked::Untracked, Some("3")),
            (&Tracked::UnknownId, Some("4")),
            (&Tracked::Untracked, None),
            (&Tracked::Untracked, None),
        ]
    );
    // The id settles the element's request, as the request's own id would.
    assert!(s.settle_request(c2s, els[0].id.as_deref().unwrap()));
    assert_eq!(s.tracker().in_flight(c2s), 0);
}

/// Proxy trial (session 10), a rejected legacy batch left its good requests in flight and
/// unanswered: the session reports each element's outcome, so a gateway can settle and
/// answer them one by one.
#[test]
fn batch_reports_each_element_outcome() {
    let c2s = Direction::ClientToServer;
    let s2c = Direction::ServerToClient;
    let mut s = Session::new(Profile::V2025_03_26, 16);
    let (t, rules) = session_check(&mut s, s2c, r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#);
    assert_eq!((t, rules), (Tracked::Request, vec![]));
    let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":9,"result":{}},1,{"jsonrpc":"2.0","id":1,"method":"ping"},[]]"#;
    let (t, rules) = session_check(&mut s, c2s, batch);
    assert_eq!(
        t,
        batch_of(&[
            (Tracked::Request, Some("1")),
            (Tracked::Untracked, None),
            (
                Tracked::Answered {
                    method: "ping".into()
                },
                Some("9")
            ),
            (Tracked::Untracked, None),
            (Tracked::DuplicateRequest, Some("1")),
            (Tracked::Untracked, None),
        ])
    );
    assert!(rules.contains(&Rule::DuplicateRequestId), "{rules:?}");
    // Not allowed by the profile: nothing is recorded, every element is untracked.
    let mut s = Session::new(Profile::V2025_06_18, 16);
    let (t, rules) = session_check(&mut s, c2s, r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#);
    assert_eq!(t, batch_of(&[(Tracked::Untracked, None)]));
    assert_eq!(rules, [Rule::Core(crate::ErrorKind::Batch)]);
    assert_eq!(
        session_check(&mut s, c2s, r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
        (Tracked::Request, vec![])
    );
    // An empty batch has no elements.
    let (t, _) = session_check(&mut Session::new(Profile::Legacy, 16), c2s, "[]");
    assert_eq!(t, Tracked::Batch(vec![]));
}

/// Hostile trial (session 11): a batch of two million `1`s in 4 MiB was checked element by
/// element and answered with an error each. A batch over `MAX_BATCH_ELEMENTS` is one
/// `batch-too-large`, its elements unchecked and untracked; at the limit and one below, every
/// element is checked.
#[test]
fn batch_size_limit_at_the_boundary() {
    let c2s = Direction::ClientToServer;
    let batch = |n: usize| {
        let els: Vec<String> = (0..n)
            .map(|i| format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"ping"}}"#))
            .collect();
        format!("[{}]", els.join(","))
    };
    for (n, too_large) in [
        (MAX_BATCH_ELEMENTS - 1, false),
        (MAX_BATCH_ELEMENTS, false),
        (MAX_BATCH_ELEMENTS + 1, true),
    ] {
        let mut s = Session::new(Profile::V2025_03_26, 4096);
        let (t, rules) = session_check(&mut s, c2s, &batch(n));
        let Tracked::Batch(els) = t else {
            panic!("{t:?}")
        };
        if too_large {
            assert_eq!(rules, [Rule::BatchTooLarge]);
            assert!(els.is_empty());
            assert_eq!(s.tracker().in_flight(c2s), 0);
        } else {
            assert_eq!(rules, []);
            assert_eq!(els.len(), n);
            assert_eq!(s.tracker().in_flight(c2s), n);
        }
    }
}

/// Review: `case-variant-param` fired for `"Name"` in the params of a method whose params have
/// no `name` (`notifications/message`, an unknown method): it shadows nothing there. It still
/// fires for a variant of a member the method defines, also after such a key.
#[test]
fn case_variant_param_only_for_members_the_method_defines() {
    use Direction::*;
    let rules = |profile, dir, frame: &str| {
        let mut v = Validator::new(profile, dir);
        rules_of(&judge(&mut v, None, frame.as_bytes()))
    };
    let cvp = Rule::CaseVariantParam;
    // The inputs that fired before.
    for (profile, dir, frame) in [
        (
            Profile::V2025_06_18,
            ServerToClient,
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":null,"Name":"x"}}"#,
        ),
        (
            Profile::V2025_06_18,
            ClientToServer,
            r#"{"jsonrpc":"2.0","method":"notifications/x-custom","params":{"Name":"x","URI":"y"}}"#,
        ),
        (
            Profile::V2025_06_18,
            ClientToServer,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"Name":"x"}}"#,
        ),
    ] {
        assert_eq!(rules(profile, dir, frame), [], "{frame}");
    }
    // Unknown request methods (open under the legacy revisions, closed under 2026-07-28):
    // the method's own rules only.
    assert_eq!(
        rules(
            Profile::V2025_06_18,
            ClientToServer,
            r#"{"jsonrpc":"2.0","id":1,"method":"x/unknown","params":{"Name":"x"}}"#,
        ),
        []
    );
    assert_eq!(
        rules(
            Profile::V2026_07_28,
            ClientToServer,
            &req("tools/unknown", r#""Name":"x","#),
        ),
        [Rule::UnknownMethod]
    );
    // Members the method defines: still flagged (at the variant's opening quote), also when
    // a variant of a member it lacks comes first.
    for (profile, dir, frame, key) in [
        (
            Profile::V2025_06_18,
            ServerToClient,
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":null,"Name":"x","_Meta":{}}}"#,
            "\"_Meta\"",
        ),
        (
            Profile::V2025_06_18,
            ClientToServer,
            r#"{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"a","Uri":"b"}}"#,
            "\"Uri\"",
        ),
        (
            Profile::V2025_06_18,
            ClientToServer,
            r#"{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"a","N\u0061ME":"b"}}"#,
            "\"N\\u0061ME\"",
        ),
    ] {
        let mut v = Validator::new(profile, dir);
        let out = judge(&mut v, None, frame.as_bytes());
        assert_eq!(rules_of(&out), [cvp], "{frame}");
        assert_eq!(out[0].offset, frame.find(key).unwrap(), "{frame}");
    }
}

/// Review: under 2025-06-18 (no batches), a batch over `MAX_BATCH_ELEMENTS` was reported
/// `batch-too-large`; it is refused as any batch there (`batch`), still without per-element
/// outcomes. Under 2025-03-26 (batches allowed) the size limit applies as before; under
/// `auto` after a 2025-06-18 handshake as under 2025-06-18.
#[test]
fn oversized_batch_where_batches_are_not_allowed_is_a_batch() {
    let (c2s, s2c) = (Direction::ClientToServer, Direction::ServerToClient);
    let batch = |n: usize| {
        let els: Vec<String> = (0..n)
            .map(|i| format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"ping"}}"#))
            .collect();
        format!("[{}]", els.join(","))
    };
    let batch_rule = Rule::Core(crate::ErrorKind::Batch);
    let handshake = |s: &mut Session| {
        let init = r#"{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        let ok = r#"{"jsonrpc":"2.0","id":"i","result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#;
        assert_eq!(session_check(s, c2s, init).1, []);
        assert_eq!(session_check(s, s2c, ok).1, []);
    };
    for auto in [false, true] {
        for n in [MAX_BATCH_ELEMENTS, MAX_BATCH_ELEMENTS + 1] {
            let mut s = if auto {
                let mut s = Session::new(Profile::Auto, 4096);
                handshake(&mut s);
                s
            } else {
                Session::new(Profile::V2025_06_18, 4096)
            };
            let (t, rules) = session_check(&mut s, c2s, &batch(n));
            assert_eq!(rules, [batch_rule], "auto {auto}, {n} elements");
            let Tracked::Batch(els) = t else {
                panic!("{t:?}")
            };
            let want = if n > MAX_BATCH_ELEMENTS { 0 } else { n };
            assert_eq!(els.len(), want, "auto {auto}, {n} elements");
            assert_eq!(s.tracker().in_flight(c2s), 0);
        }
    }
    for (n, want) in [
        (MAX_BATCH_ELEMENTS, vec![]),
        (MAX_BATCH_ELEMENTS + 1, vec![Rule::BatchTooLarge]),
    ] {
        let mut s = Session::new(Profile::V2025_03_26, 4096);
        assert_eq!(
            session_check(&mut s, c2s, &batch(n)).1,
            want,
            "{n} elements"
        );
    }
}

/// Hostile trial (session 11): under `auto`, a batch after a 2025-06-18 handshake passed
/// (only the 2026-07-28 era refused batches), and `initialize` inside a batch passed under
/// 2025-03-26, which forbids it there.
#[test]
fn batches_after_a_2025_06_18_handshake_and_initialize_in_a_batch() {
    let (c2s, s2c) = (Direction::ClientToServer, Direction::ServerToClient);
    let init = |v: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"{v}","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
        )
    };
    let answer = |v: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"protocolVersion":"{v}","capabilities":{{}},"serverInfo":{{"name":"s","version":"1"}}}}}}"#
        )
    };
    let ping = r#"[{"jsonrpc":"2.0","id":2,"method":"ping"}]"#;
    let pong = r#"[{"jsonrpc":"2.0","id":7,"result":{}}]"#;
    // (version the client asks for, version the server answers, batches allowed). Re-trial
    // finding: the client's side kept the version it asked for, and the server's side was
    // never decided, so a server batch passed after a 2025-06-18 handshake.
    for (asked, agreed, allowed) in [
        ("2025-03-26", "2025-03-26", true),
        ("2025-06-18", "2025-06-18", false),
        ("2025-11-25", "2025-11-25", false),
        ("2025-06-18", "2025-03-26", true),
        ("2025-03-26", "2025-06-18", false),
    ] {
        let mut s = Session::new(Profile::Auto, 16);
        assert_eq!(session_check(&mut s, c2s, &init(asked)).1, []);
        assert_eq!(
            session_check(&mut s, s2c, &answer(agreed)).1,
            [],
            "{agreed}"
        );
        let (_, rules) = session_check(&mut s, c2s, ping);
        assert_eq!(rules.is_empty(), allowed, "{asked}/{agreed}: {rules:?}");
        // The server's batch, and the client's batch answering a server request.
        let (_, rules) = session_check(&mut s, s2c, ping);
        assert_eq!(
            rules.is_empty(),
            allowed,
            "{asked}/{agreed} server batch: {rules:?}"
        );
        let ask = r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#;
        assert_eq!(session_check(&mut s, s2c, ask).1, []);
        let (_, rules) = session_check(&mut s, c2s, pong);
        assert_eq!(
            rules.is_empty(),
            allowed,
            "{asked}/{agreed} client batch: {rules:?}"
        );
    }
    let mut s = Session::new(Profile::V2025_03_26, 16);
    let batched = format!(
        r#"[{},{{"jsonrpc":"2.0","id":2,"method":"ping"}}]"#,
        init("2025-03-26")
    );
    let (t, rules) = session_check(&mut s, c2s, &batched);
    assert_eq!(rules, [Rule::Core(crate::ErrorKind::Batch)]);
    assert_eq!(
        t,
        batch_of(&[
            (Tracked::Untracked, Some("1")),
            (Tracked::Request, Some("2"))
        ])
    );
}

/// Required `params` members (`profile::params`): every method of both tables, missing and
/// of the wrong type, duplicates behind escapes, offsets, and the revision differences.
#[test]
fn required_params_per_method_and_revision() {
    use Direction::*;
    fn rules_of(profile: Profile, dir: Direction, frame: &str) -> Vec<(Rule, usize)> {
        let keep = [
            Rule::MissingParam,
            Rule::ParamType,
            Rule::Core(crate::error::ErrorKind::DuplicateParamsKey),
        ];
        findings_of(profile, dir, frame, &keep)
    }
    let legacy = |method: &str, params: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{{params}}}}}"#)
    };
    let note = |method: &str, params: &str| {
        format!(r#"{{"jsonrpc":"2.0","method":"{method}","params":{{{params}}}}}"#)
    };
    // (profile, direction, message that passes, the same without one member, the same with
    // that member of a wrong type)
    let cases: Vec<(Profile, Direction, String, String, String)> = vec![
        (
            Profile::V2025_11_25,
            ClientToServer,
            legacy("tools/call", r#""name":"t""#),
            legacy("tools/call", r#""arguments":{}"#),
            legacy("tools/call", r#""name":7"#),
        ),
        (
            Profile::V2026_07_28,
            ClientToServer,
            req("prompts/get", r#""name":"p","#),
            req("prompts/get", ""),
            req("prompts/get", r#""name":null,"#),
        ),
        (
            Profile::V2024_11_05,
            ClientToServer,
            legacy("resources/read", r#""uri":"file:///a""#),
            legacy("resources/read", r#""url":"file:///a""#),
            legacy("resources/read", r#""uri":["file:///a"]"#),
        ),
        (
            Profile::V2026_07_28,
            ClientToServer,
            req(
                "completion/complete",
                r#""ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"v"},"#,
            ),
            req(
                "completion/complete",
                r#""ref":{"type":"ref/prompt","name":"p"},"#,
            ),
            req(
                "completion/complete",
                r#""ref":"ref/prompt","argument":{"name":"a","value":"v"},"#,
            ),
        ),
        (
            Profile::V2025_03_26,
            ClientToServer,
            legacy(
                "initialize",
                r#""protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}"#,
            ),
            legacy(
                "initialize",
                r#""protocolVersion":"2025-03-26","capabilities":{}"#,
            ),
            legacy(
                "initialize",
                r#""protocolVersion":20250326,"capabilities":{},"clientInfo":{"name":"c","version":"1"}"#,
            ),
        ),
        (
            Profile::V2025_06_18,
            ClientToServer,
            legacy("resources/subscribe", r#""uri":"file:///a""#),
            legacy("resources/subscribe", ""),
            legacy("resources/subscribe", r#""uri":{}"#),
        ),
        (
            Profile::V2025_06_18,
            ClientToServer,
            legacy("logging/setLevel", r#""level":"warning""#),
            legacy("logging/setLevel", ""),
            legacy("logging/setLevel", r#""level":"WARNING""#),
        ),
        (
            Profile::V2025_06_18,
            ServerToClient,
            legacy("sampling/createMessage", r#""messages":[],"maxTokens":100"#),
            legacy("sampling/createMessage", r#""messages":[]"#),
            legacy(
                "sampling/createMessage",
                r#""messages":[],"maxTokens":"100""#,
            ),
        ),
        (
            Profile::V2025_06_18,
            ServerToClient,
            note(
                "notifications/progress",
                r#""progressToken":7,"progress":2.5"#,
            ),
            note("notifications/progress", r#""progressToken":"t""#),
            // Spec trial, session 22: `1.5` passed here while the request's
            // `_meta.progressToken` refused it; string or integer in both now.
            note(
                "notifications/progress",
                r#""progressToken":1.5,"progress":1"#,
            ),
        ),
        (
            Profile::V2026_07_28,
            ServerToClient,
            note(
                "notifications/progress",
                r#""progressToken":"t","progress":0.5"#,
            ),
            note("notifications/progress", r#""progress":0.5"#),
            note(
                "notifications/progress",
                r#""progressToken":1.5,"progress":0.5"#,
            ),
        ),
        (
            Profile::V2025_11_25,
            ServerToClient,
            note("notifications/resources/updated", r#""uri":"file:///a""#),
            note("notifications/resources/updated", r#""title":"a""#),
            note("notifications/resources/updated", r#""uri":1"#),
        ),
        (
            Profile::V2026_07_28,
            ClientToServer,
            note("notifications/cancelled", r#""requestId":"r-1""#),
            note("notifications/cancelled", r#""reason":"gone""#),
            note("notifications/cancelled", r#""requestId":1e3"#),
        ),
        (
            Profile::V2026_07_28,
            ClientToServer,
            req("subscriptions/listen", r#""notifications":{},"#),
            req("subscriptions/listen", ""),
            req("subscriptions/listen", r#""notifications":[],"#),
        ),
    ];
    for (profile, dir, pass, missing, wrong) in &cases {
        assert_eq!(rules_of(*profile, *dir, pass), [], "{profile:?} {pass}");
        let params_at = missing.find(r#""params""#).unwrap() + r#""params":"#.len();
        assert_eq!(
            rules_of(*profile, *dir, missing),
            [(Rule::MissingParam, params_at)],
            "{profile:?} {missing}"
        );
        let got = rules_of(*profile, *dir, wrong);
        assert_eq!(got.len(), 1, "{profile:?} {wrong}: {got:?}");
        assert_eq!(got[0].0, Rule::ParamType, "{profile:?} {wrong}");
        // At the value: the byte after the member's `":`.
        assert!(
            matches!(wrong.as_bytes()[got[0].1 - 1], b':'),
            "{wrong}: offset {}",
            got[0].1
        );
    }

    // `notifications/message` needs `level` (a logging level) and `data` (any value).
    let message = |p: &str| note("notifications/message", p);
    for level in [
        "debug",
        "info",
        "notice",
        "warning",
        "error",
        "critical",
        "alert",
        "emergency",
    ] {
        let m = message(&format!(r#""level":"{level}","data":[1]"#));
        assert_eq!(rules_of(Profile::Legacy, ServerToClient, &m), []);
    }
    let no_data = message(r#""level":"info""#);
    assert_eq!(
        rules_of(Profile::Legacy, ServerToClient, &no_data),
        [(Rule::MissingParam, no_data.find('{').map(|_| 59).unwrap())]
    );
    assert_eq!(&no_data[59..60], "{");

    // `params` absent: reported at the method.
    let bare = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#;
    assert_eq!(
        rules_of(Profile::V2025_06_18, ClientToServer, bare),
        [(Rule::MissingParam, bare.find("\"tools/call\"").unwrap())]
    );
    // Two members missing: two violations.
    let none = note("notifications/progress", r#""total":1"#);
    assert_eq!(
        rules_of(Profile::V2025_06_18, ServerToClient, &none)
            .iter()
            .map(|r| r.0)
            .collect::<Vec<_>>(),
        [Rule::MissingParam, Rule::MissingParam]
    );

    // A checked member written twice, the second behind an escape: a strict backend rejects
    // the message; reported at the second key's opening quote (the first copy is judged).
    let twice = note(
        "notifications/progress",
        r#""progressToken":"t","progress":1,"pr\u006fgress":2"#,
    );
    assert_eq!(
        rules_of(Profile::V2025_06_18, ServerToClient, &twice),
        [(
            Rule::Core(crate::error::ErrorKind::DuplicateParamsKey),
            twice.find("\"pr\\u006fgress").unwrap()
        )]
    );
    // An escaped key counts as the member.
    let escaped = note(
        "notifications/progress",
        r#""progressT\u006fken":"t","progress":1"#,
    );
    assert_eq!(rules_of(Profile::V2025_06_18, ServerToClient, &escaped), []);

    // Revision differences: `notifications/cancelled` needs `requestId` only in 2026-07-28
    // (2025-11-25 made it optional for tasks); `initialize` is checked only in legacy
    // revisions (it is a removed method in 2026-07-28, reported as such).
    let cancel = note("notifications/cancelled", r#""reason":"gone""#);
    assert_eq!(rules_of(Profile::V2025_11_25, ClientToServer, &cancel), []);
    let init = req("initialize", "");
    assert_eq!(rules_of(Profile::V2026_07_28, ClientToServer, &init), []);
    // Methods without a table entry (and unknown ones) are not checked here.
    assert_eq!(
        rules_of(Profile::Legacy, ClientToServer, &legacy("some_method", "")),
        []
    );
}

/// Hostile trial (session 12), D1: members the rules read below depth 1 were taken first-wins,
/// while serde_json's `Value`, Python and JavaScript keep the last copy. A repeated member a
/// rule reads is now reported (`duplicate-params-key` inside `params`, `duplicate-key`
/// elsewhere) and its value is not trusted. Exact inputs of the trial.
#[test]
fn repeated_members_the_rules_read_are_reported() {
    const M26: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let dup = crate::error::ErrorKind::DuplicateParamsKey;
    // a) `Mcp-Name` of `tasks/get` against a repeated `params.taskId`, plain and escaped.
    for second in [r#""taskId""#, r#""t\u0061skId""#] {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{{{M26},"taskId":"mine",{second}:"victim"}}}}"#
        );
        let m = msg_of(body.as_bytes());
        let h = [
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tasks/get"),
            ("Mcp-Name", "mine"),
        ];
        let mut out = Vec::new();
        headers::check_msg(&h, &m, &[], &mut out);
        let at = body.rfind(second).unwrap();
        assert!(
            out.iter()
                .any(|v| v.rule == Rule::Core(dup) && v.offset == at),
            "{body}: {out:?}"
        );
    }
    // b) `Mcp-Param-Region` against repeated argument keys, and two `arguments` objects.
    let region = [ParamBinding {
        header: "Region".into(),
        path: vec!["region".into()],
    }];
    let h = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "w"),
        ("Mcp-Param-Region", "us"),
    ];
    for args in [
        r#""arguments":{"region":"us","region":"eu"}"#,
        r#""arguments":{"region":"us"},"arguments":{"region":"eu"}"#,
    ] {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{{M26},"name":"w",{args}}}}}"#
        );
        let m = msg_of(body.as_bytes());
        let mut out = Vec::new();
        headers::check_msg(&h, &m, &region, &mut out);
        assert!(
            out.iter().any(|v| v.rule == Rule::Core(dup)),
            "{body}: {out:?}"
        );
        // The unrepeated form passes.
        let one = body
            .replace(r#","region":"eu""#, "")
            .replace(r#","arguments":{"region":"eu"}"#, "");
        let m = msg_of(one.as_bytes());
        let mut out = Vec::new();
        headers::check_msg(&h, &m, &region, &mut out);
        assert!(out.is_empty(), "{one}: {out:?}");
    }
    // c) Under `auto`, an `initialize` answer with `protocolVersion` twice (a last-wins
    // client negotiated 2025-06-18, which has no batches) is reported.
    let answer = br#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26","protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#;
    let mut v = Validator::new(Profile::Auto, Direction::ServerToClient);
    let got = judge(&mut v, None, answer);
    assert_eq!(
        got.iter().map(|x| (x.rule, x.offset)).collect::<Vec<_>>(),
        [(Rule::Core(crate::error::ErrorKind::DuplicateKey), 65)]
    );
    assert_eq!(&answer[65..82], br#""protocolVersion""#);
    // The same in a client `initialize`: -32602.
    let init = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    let mut v = Validator::new(Profile::Auto, Direction::ClientToServer);
    let got = judge(&mut v, None, init);
    assert_eq!(
        got.iter().map(|x| x.rule).collect::<Vec<_>>(),
        [Rule::Core(dup)],
        "{got:?}"
    );
    // d) `inputRequests`: a repeated `method` inside one input request, and a repeated key.
    for (result, at_key) in [
        (
            r#"{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","method":"tools/call","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}}}"#,
            r#""method":"tools/call""#,
        ),
        (
            r#"{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}},"a":{"method":"roots/list"}}}"#,
            r#""a":{"method":"roots"#,
        ),
    ] {
        let mut t = Tracker::new(16);
        let mut c = Validator::new(Profile::V2026_07_28, Direction::ClientToServer);
        let call = req("tools/call", r#""name":"t","#);
        assert!(
            judge(
                &mut c,
                Some((&mut t, Direction::ClientToServer)),
                call.as_bytes()
            )
            .is_empty()
        );
        let frame = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{result}}}"#);
        let mut s = Validator::new(Profile::V2026_07_28, Direction::ServerToClient);
        let got = judge(
            &mut s,
            Some((&mut t, Direction::ServerToClient)),
            frame.as_bytes(),
        );
        assert_eq!(
            got.iter().map(|x| (x.rule, x.offset)).collect::<Vec<_>>(),
            [(
                Rule::Core(crate::error::ErrorKind::DuplicateKey),
                frame.find(at_key).unwrap()
            )],
            "{frame}"
        );
    }
    // A member read by two rules (the required-params table and the tracker's
    // `notifications/cancelled` `requestId`) is reported once.
    let cancel = br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"requestId":2}}"#;
    let mut t = Tracker::new(16);
    let mut c = Validator::new(Profile::V2026_07_28, Direction::ClientToServer);
    let got = judge(&mut c, Some((&mut t, Direction::ClientToServer)), cancel);
    assert_eq!(
        got.iter().map(|x| (x.rule, x.offset)).collect::<Vec<_>>(),
        [(Rule::Core(dup), 76)]
    );
    assert_eq!(&cancel[76..87], br#""requestId""#);
}

/// Hostile trial (session 12), D6: reserved `_meta` values and result fields that passed
/// under 2026-07-28 whatever they held.
#[test]
fn reserved_meta_values_request_state_and_cache_fields() {
    let rules = |dir: Direction, frame: &str| -> Vec<(Rule, usize)> {
        let mut v = Validator::new(Profile::V2026_07_28, dir);
        judge(&mut v, None, frame.as_bytes())
            .iter()
            .map(|x| (x.rule, x.offset))
            .collect()
    };
    let base = r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}"#;
    let with_meta = |extra: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{{{base},{extra}}}}}}}"#
        )
    };
    let c2s = Direction::ClientToServer;
    // logLevel: one of the eight levels.
    for (extra, ok) in [
        (r#""io.modelcontextprotocol/logLevel":"debug""#, true),
        (r#""io.modelcontextprotocol/logLevel":"emergency""#, true),
        (r#""io.modelcontextprotocol/logLevel":"verbose""#, false),
        (r#""io.modelcontextprotocol/logLevel":"Debug""#, false),
        (r#""io.modelcontextprotocol/logLevel":3"#, false),
        // clientInfo: an Implementation (string name and version; more members allowed).
        (
            r#""io.modelcontextprotocol/clientInfo":{"name":"c","version":"1","title":"C"}"#,
            true,
        ),
        (
            r#""io.modelcontextprotocol/clientInfo":{"name":"c"}"#,
            false,
        ),
        (
            r#""io.modelcontextprotocol/clientInfo":{"name":"c","version":1}"#,
            false,
        ),
        (r#""io.modelcontextprotocol/clientInfo":"c 1.0""#, false),
    ] {
        let frame = with_meta(extra);
        let got = rules(c2s, &frame);
        if ok {
            assert_eq!(got, [], "{frame}");
        } else {
            let value_at = frame.find(extra).unwrap() + extra.find(':').unwrap() + 1;
            assert_eq!(got, [(Rule::ReservedMetaValue, value_at)], "{frame}");
        }
    }
    // serverInfo on a result's `_meta`.
    let s2c = Direction::ServerToClient;
    let result = |meta: &str, rest: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"complete"{rest},"_meta":{{{meta}}}}}}}"#
        )
    };
    let good = result(
        r#""io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}"#,
        "",
    );
    assert_eq!(rules(s2c, &good), []);
    let bad = result(
        r#""io.modelcontextprotocol/serverInfo":{"version":"1"}"#,
        "",
    );
    assert_eq!(
        rules(s2c, &bad).iter().map(|r| r.0).collect::<Vec<_>>(),
        [Rule::ReservedMetaValue]
    );
    // requestState: a string.
    let ir = |state: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"input_required","requestState":{state}}}}}"#
        )
    };
    assert_eq!(rules(s2c, &ir(r#""opaque""#)), []);
    let frame = ir("5");
    assert_eq!(
        rules(s2c, &frame),
        [(Rule::InputRequiredShape, frame.find(":5").unwrap() + 1)]
    );
    // ttlMs: a non-negative integer; cacheScope: "public" or "private". At the boundary: 0
    // passes, -1 does not; forms serde reads as floats (1.0, 1e3, -0) do not.
    for (ttl, ok) in [
        ("0", true),
        ("1", true),
        ("3600000", true),
        ("-1", false),
        ("-0", false),
        ("1.0", false),
        ("1e3", false),
        (r#""60""#, false),
        ("null", false),
    ] {
        let frame = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"complete","ttlMs":{ttl},"cacheScope":"public"}}}}"#
        );
        let got = rules(s2c, &frame);
        if ok {
            assert_eq!(got, [], "{frame}");
        } else {
            let at = frame.find(r#""ttlMs":"#).unwrap() + 8;
            assert_eq!(got, [(Rule::CacheField, at)], "{frame}");
        }
    }
    for (scope, ok) in [
        (r#""public""#, true),
        (r#""private""#, true),
        (r#""Public""#, false),
        (r#""everyone""#, false),
        ("true", false),
    ] {
        let frame = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"complete","ttlMs":0,"cacheScope":{scope}}}}}"#
        );
        let got = rules(s2c, &frame);
        assert_eq!(got.is_empty(), ok, "{frame}: {got:?}");
    }
    // Legacy revisions define none of these: not judged there.
    let mut v = Validator::new(Profile::V2025_11_25, s2c);
    let legacy = br#"{"jsonrpc":"2.0","id":1,"result":{"ttlMs":-1,"cacheScope":"everyone"}}"#;
    assert!(judge(&mut v, None, legacy).is_empty());
}

/// Re-trial (session 12): repeated required members and repeated `inputRequests` keys were
/// noted once per repeat with a quadratic dedupe (300,000 repeats of `"progress"` in one
/// 3.6 MB frame: 31 s and 299,999 reports). One report per repeated member now, at most
/// `MAX_REPEATED_NOTES` per message. Also: a task's own `ttlMs` (`null` = unlimited) is not
/// the caching field; `tasks/*` need `taskId`; legacy `elicitation/create` needs `message`.
#[test]
fn repeats_are_reported_once_and_task_fields_are_not_cache_fields() {
    let dup = Rule::Core(crate::error::ErrorKind::DuplicateParamsKey);
    let many = vec![r#""progress":1"#; 50_000].join(",");
    let frame = format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":1,{many}}}}}"#
    );
    let mut v = Validator::new(Profile::Legacy, Direction::ServerToClient);
    let got = judge(&mut v, None, frame.as_bytes());
    assert_eq!(
        got.iter().map(|x| (x.rule, x.offset)).collect::<Vec<_>>(),
        [(dup, frame.find(r#","progress""#).unwrap() + 14)]
    );
    // Many distinct repeated `inputRequests` keys: at most MAX_REPEATED_NOTES reports.
    let entries: Vec<String> = (0..20_000)
        .map(|i| format!(r#""k{}":{{"method":"roots/list"}}"#, i % 10_000))
        .collect();
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"input_required","inputRequests":{{{}}}}}}}"#,
        entries.join(",")
    );
    let mut v = Validator::new(Profile::V2026_07_28, Direction::ServerToClient);
    let got = judge(&mut v, None, frame.as_bytes());
    assert_eq!(got.len(), super::msg::MAX_REPEATED_NOTES, "{:?}", &got[..2]);
    assert!(
        got.iter()
            .all(|x| x.rule == Rule::Core(crate::error::ErrorKind::DuplicateKey))
    );

    // Task results: `ttlMs` null (or any value) is the task's retention, not a cache hint.
    let mut v = Validator::new(Profile::V2026_07_28, Direction::ServerToClient);
    v.enable_tasks_extension();
    v.declare_result_type("task");
    for f in [
        r#"{"jsonrpc":"2.0","id":8,"result":{"resultType":"complete","taskId":"t","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:50:00Z","ttlMs":null,"pollIntervalMs":5000}}"#,
        r#"{"jsonrpc":"2.0","id":9,"result":{"resultType":"task","taskId":"t","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:50:00Z","ttlMs":null}}"#,
    ] {
        let got = judge(&mut v, None, f.as_bytes());
        assert!(
            got.iter().all(|x| x.rule != Rule::CacheField),
            "{f}: {got:?}"
        );
    }

    // `tasks/get` without `taskId`; legacy `elicitation/create` without `message`.
    let mut v = Validator::new(Profile::V2025_11_25, Direction::ClientToServer);
    let got = judge(
        &mut v,
        None,
        br#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{}}"#,
    );
    assert_eq!(
        got.iter().map(|x| x.rule).collect::<Vec<_>>(),
        [Rule::MissingParam]
    );
    let mut v = Validator::new(Profile::V2025_06_18, Direction::ServerToClient);
    let got = judge(
        &mut v,
        None,
        br#"{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"requestedSchema":{"type":"object","properties":{}}}}"#,
    );
    assert_eq!(
        got.iter().map(|x| x.rule).collect::<Vec<_>>(),
        [Rule::MissingParam]
    );
}

/// Re-trial (session 13): `IdKey::from_raw` re-read the id under the default 4 MiB frame
/// limit, so a 5 MiB string id accepted by a parser with raised limits had a key from
/// `IdKey::of` but none from its text, and `settle_request` with that text found nothing.
#[test]
fn id_key_from_raw_fits_ids_over_the_default_frame_limit() {
    let big = "a".repeat(5 << 20);
    let frame = format!(r#"{{"jsonrpc":"2.0","id":"{big}","method":"ping"}}"#);
    let parser = crate::Parser::with_limits(crate::Limits {
        max_frame_len: 16 << 20,
        ..crate::Limits::DEFAULT
    });
    let env = parser.parse(frame.as_bytes()).unwrap();
    let raw = env.id_raw().unwrap();
    assert!(IdKey::of(&env).is_some());
    assert_eq!(IdKey::from_raw(raw), IdKey::of(&env));
    let mut s = Session::new(Profile::V2025_06_18, 4);
    let mut out = Vec::new();
    assert_eq!(
        s.check(Direction::ClientToServer, &env, &mut out),
        Tracked::Request
    );
    assert!(s.settle_request(Direction::ClientToServer, raw));
}

/// `request_error_reply` (session 14, for a gateway's own failures such as an unreachable
/// upstream): the id is written as given when it is one string or integer token, escapes
/// kept; anything else gives no id, which `for_revision` turns into `"id":null` where the
/// revision requires one.
#[test]
fn request_error_reply_writes_only_id_tokens() {
    let r = request_error_reply(
        Some(r#""a\u0062""#),
        INTERNAL_ERROR,
        "upstream \"down\"",
        502,
    );
    assert_eq!(r.http_status, 502);
    assert_eq!(
        String::from_utf8(r.body).unwrap(),
        r#"{"jsonrpc":"2.0","id":"a\u0062","error":{"code":-32603,"message":"upstream \"down\""}}"#
    );
    for bad in [
        None,
        Some("null"),
        Some("1.5"),
        Some("1 2"),
        Some("not json"),
        Some("{}"),
    ] {
        let r = request_error_reply(bad, INTERNAL_ERROR, "m", 502);
        assert_eq!(
            String::from_utf8(r.body.clone()).unwrap(),
            r#"{"jsonrpc":"2.0","error":{"code":-32603,"message":"m"}}"#,
            "{bad:?}"
        );
        let legacy = r.for_revision(Some(Revision::V2025_03_26));
        assert!(
            legacy.body.starts_with(br#"{"jsonrpc":"2.0","id":null,"#),
            "{bad:?}"
        );
    }
}

/// Hostile trial (session 14): a repeated `params.arguments` of `tools/call` passed `check` and
/// the proxy (a first-wins policy reads `/ok`, a last-wins backend runs `/etc/passwd`), and so
/// did `"Arguments"` next to `"arguments"`. `arguments` of `tools/call` and `prompts/get` is
/// now an inspected member: repeated (also behind an escape, or as `null`) it is
/// `duplicate-params-key` at the second key, a case variant is `case-variant-param`; other
/// methods' `arguments` are not inspected. Exact inputs of the trial, under every profile.
#[test]
fn repeated_or_case_variant_arguments_are_rejected() {
    const M26: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let call = |method: &str, body: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{"name":"t",{body},{M26}}}}}"#
        )
    };
    let dup = Rule::Core(crate::error::ErrorKind::DuplicateParamsKey);
    // The two rules at stake (a 2026 `_meta` may bring others under a legacy profile).
    let rules_of = |profile: Profile, frame: &str| -> Vec<(Rule, usize)> {
        let mut v = Validator::new(profile, Direction::ClientToServer);
        judge(&mut v, None, frame.as_bytes())
            .iter()
            .filter(|x| x.rule == dup || x.rule == Rule::CaseVariantParam)
            .map(|x| (x.rule, x.offset))
            .collect()
    };
    for method in ["tools/call", "prompts/get"] {
        let ok = call(method, r#""arguments":{"path":"/ok"}"#);
        assert_eq!(rules_of(Profile::V2026_07_28, &ok), [], "{ok}");
        for second in [
            r#""arguments":{"path":"/etc/passwd"}"#,
            r#""arguments":null"#,
            r#""\u0061rguments":{"path":"/etc/passwd"}"#,
        ] {
            let f = call(method, &format!(r#""arguments":{{"path":"/ok"}},{second}"#));
            let at = f.rfind(&second[..second.find(':').unwrap()]).unwrap();
            for p in [Profile::V2026_07_28, Profile::V2025_06_18, Profile::Auto] {
                assert_eq!(rules_of(p, &f), [(dup, at)], "{p:?} {f}");
            }
        }
        // Three copies: one finding.
        let three = call(
            method,
            r#""arguments":{},"arguments":{},"arguments":{"path":"/etc/passwd"}"#,
        );
        assert_eq!(rules_of(Profile::V2026_07_28, &three).len(), 1);
        for variant in [r#""Arguments""#, r#""ARGUMENTS""#, r#""argumentſ""#] {
            let f = call(
                method,
                &format!(r#""arguments":{{"path":"/ok"}},{variant}:{{"path":"/etc/passwd"}}"#),
            );
            let at = f.find(variant).unwrap();
            assert_eq!(
                rules_of(Profile::V2026_07_28, &f),
                [(Rule::CaseVariantParam, at)],
                "{f}"
            );
        }
    }
    // Not an inspected member of other methods (`arguments` means nothing there).
    let other = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{{"ref":{{"type":"ref/prompt","name":"p"}},"argument":{{"name":"a","value":"v"}},"arguments":1,"arguments":2,{M26}}}}}"#
    );
    assert!(
        !rules_of(Profile::V2026_07_28, &other)
            .iter()
            .any(|(r, _)| *r == dup),
        "{other}"
    );
}

/// Sends a request of `method` (id 1, with the members its params require) through a
/// tracker under `profile`, then the answer `{"jsonrpc":"2.0","id":1,"result":RESULT}`; the
/// answer's (rule, offset)s. The result object starts at byte 33.
fn answered_rules(profile: Profile, method: &str, result: &str) -> Vec<(Rule, usize)> {
    answered(profile, method, result)
        .iter()
        .map(|v| (v.rule, v.offset))
        .collect()
}

/// The messages of [`answered_rules`]'s violations.
fn answered_messages(profile: Profile, method: &str, result: &str) -> Vec<String> {
    answered(profile, method, result)
        .iter()
        .map(|v| v.message.to_string())
        .collect()
}

/// The violations of a `result` answering a `method` request (with the params the method
/// needs) under `profile`, the request judged clean first.
fn answered(profile: Profile, method: &str, result: &str) -> Vec<Violation> {
    let (c2s, s2c) = (Direction::ClientToServer, Direction::ServerToClient);
    let mut t = Tracker::new(4);
    let (mut c, mut s) = match method {
        // Requests the server sends (legacy).
        "sampling/createMessage" | "elicitation/create" | "roots/list" => {
            (Validator::new(profile, s2c), Validator::new(profile, c2s))
        }
        _ => (Validator::new(profile, c2s), Validator::new(profile, s2c)),
    };
    let (qdir, adir) = (c.direction, s.direction);
    let extra = match method {
        "resources/read" => r#""uri":"file:///a","#,
        "tools/call" | "prompts/get" => r#""name":"x","#,
        "sampling/createMessage" => r#""messages":[],"maxTokens":1,"#,
        "elicitation/create" => {
            r#""message":"m","requestedSchema":{"type":"object","properties":{}},"#
        }
        "completion/complete" => {
            r#""ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":""},"#
        }
        "tasks/get" => r#""taskId":"t","#,
        "initialize" => {
            r#""protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"},"#
        }
        _ => "",
    };
    let q = if profile == Profile::V2026_07_28 {
        req(method, extra)
    } else {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{{}}}}}"#,
            extra.trim_end_matches(',')
        )
    };
    assert_eq!(judge(&mut c, Some((&mut t, qdir)), q.as_bytes()), [], "{q}");
    let frame = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{result}}}"#);
    judge(&mut s, Some((&mut t, adir)), frame.as_bytes())
}

/// Session 23 (differential trial against the SDKs' result types): a matched result is held
/// to the members its method's result type requires, per revision, and its typed optional
/// members; missing at the result object (byte 33), wrong type at the value.
#[test]
fn result_members_required_per_answered_method() {
    const AT: usize = 33;
    let (v0618, v1125, v1105, v26) = (
        Profile::V2025_06_18,
        Profile::V2025_11_25,
        Profile::V2024_11_05,
        Profile::V2026_07_28,
    );
    let (missing, typed) = (Rule::MissingResultMember, Rule::ResultMemberType);
    // Legacy: each method with its members passes; without them, missing; wrong type, at
    // the value.
    for (method, ok, bad, bad_at) in [
        ("tools/list", r#"{"tools":[]}"#, r#"{"tools":"x"}"#, 9),
        (
            "tools/list",
            r#"{"tools":[{"name":"t","inputSchema":{"type":"object"}}],"nextCursor":"c"}"#,
            r#"{"tools":[1]}"#,
            10,
        ),
        (
            "tools/list",
            r#"{"tools":[]}"#,
            r#"{"tools":[],"nextCursor":5}"#,
            25,
        ),
        ("prompts/list", r#"{"prompts":[]}"#, r#"{"prompts":{}}"#, 11),
        (
            "resources/list",
            r#"{"resources":[]}"#,
            r#"{"resources":null}"#,
            13,
        ),
        (
            "resources/templates/list",
            r#"{"resourceTemplates":[]}"#,
            r#"{"resourceTemplates":1}"#,
            21,
        ),
        (
            "tools/call",
            r#"{"content":[{"type":"text","text":"t"}],"isError":false}"#,
            r#"{"content":[],"isError":"no"}"#,
            24,
        ),
        (
            "prompts/get",
            r#"{"messages":[]}"#,
            r#"{"messages":"m"}"#,
            12,
        ),
        (
            "resources/read",
            r#"{"contents":[]}"#,
            r#"{"contents":[[]]}"#,
            13,
        ),
        (
            "completion/complete",
            r#"{"completion":{"values":[]}}"#,
            r#"{"completion":[]}"#,
            14,
        ),
        (
            "initialize",
            r#"{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}"#,
            r#"{"protocolVersion":20250618,"capabilities":{},"serverInfo":{"name":"s","version":"1"}}"#,
            19,
        ),
        (
            "sampling/createMessage",
            r#"{"role":"assistant","content":{"type":"text","text":"t"},"model":"m"}"#,
            r#"{"role":"assistant","content":{"type":"text","text":"t"},"model":1}"#,
            65,
        ),
        (
            "elicitation/create",
            r#"{"action":"accept"}"#,
            r#"{"action":true}"#,
            10,
        ),
    ] {
        assert_eq!(answered_rules(v0618, method, ok), [], "{method}: {ok}");
        assert_eq!(
            answered_rules(v0618, method, bad),
            [(typed, AT + bad_at)],
            "{method}: {bad}"
        );
        assert_eq!(
            answered_rules(v0618, method, "{}").first(),
            Some(&(missing, AT)),
            "{method}"
        );
    }
    // Inside the members: the element or object shapes the SDK models require, reported at
    // the innermost value at fault (session 24; before, at the top-level member's value), a
    // missing member at the object that lacks it.
    for (method, bad, at, path) in [
        (
            "tools/list",
            r#"{"tools":[{"name":"t"}]}"#,
            "{\"name",
            r#""tools"[0] lacks "inputSchema""#,
        ),
        (
            "resources/list",
            r#"{"resources":[{"uri":"u"}]}"#,
            "{\"uri",
            r#""resources"[0] lacks "name""#,
        ),
        (
            "prompts/get",
            r#"{"messages":[{"role":"system","content":{"type":"text","text":"t"}}]}"#,
            "\"system",
            r#""messages"[0].role is not one of"#,
        ),
        (
            "completion/complete",
            r#"{"completion":{"values":[1]}}"#,
            "[1]",
            r#""completion".values is not an array of strings"#,
        ),
        (
            "completion/complete",
            r#"{"completion":{"values":[],"total":5.0}}"#,
            "5.0",
            r#""completion".total is not an integer"#,
        ),
        (
            "initialize",
            r#"{"protocolVersion":"2025-06-18","capabilities":{"tools":true},"serverInfo":{"name":"s","version":"1"}}"#,
            "true",
            r#""capabilities".tools is not a capability object"#,
        ),
        (
            "sampling/createMessage",
            r#"{"role":"system","content":{"type":"text","text":"t"},"model":"m"}"#,
            "\"system",
            r#""role" is not one of"#,
        ),
        (
            "elicitation/create",
            r#"{"action":"maybe"}"#,
            "\"maybe",
            r#""action" is not one of"#,
        ),
        (
            "tools/call",
            r#"{"content":[{"type":"text","text":"a"},{"type":"image","data":"AA=="}]}"#,
            "{\"type\":\"image",
            r#""content"[1] lacks "mimeType" (an ImageContent object)"#,
        ),
        (
            "tools/call",
            r#"{"content":[{"type":"video","data":"AA=="}]}"#,
            "\"video",
            r#""content"[0].type names no member of the union"#,
        ),
        (
            "resources/read",
            r#"{"contents":[{"uri":"u","text":"t"},{"uri":"u","blob":5}]}"#,
            "5}",
            r#""contents"[1].blob is not a string"#,
        ),
    ] {
        let at = bad.find(at).unwrap();
        assert_eq!(
            answered_rules(v0618, method, bad),
            [(typed, AT + at)],
            "{method}: {bad}"
        );
        let message = answered_messages(v0618, method, bad);
        assert!(
            message.len() == 1 && message[0].contains(path),
            "{method}: {bad}: {message:?}"
        );
    }
    // A map key in the path is the sender's text: cut to 200 bytes like every echoed token
    // (session 24 review: a 100 KB key went into the message whole).
    let key = "k".repeat(100_000);
    let bad = format!(
        r#"{{"protocolVersion":"2025-06-18","capabilities":{{"experimental":{{"{key}":1}}}},"serverInfo":{{"name":"s","version":"1"}}}}"#
    );
    let message = answered_messages(v0618, "initialize", &bad);
    let want = format!(r#""capabilities".experimental.{}…"#, &key[..200]);
    assert!(
        message.len() == 1 && message[0].contains(&want) && message[0].len() < 600,
        "{:?}",
        message.iter().map(|m| m.len()).collect::<Vec<_>>()
    );
    // One finding per missing member.
    assert_eq!(
        answered_rules(v0618, "initialize", r#"{"capabilities":{}}"#),
        [(missing, AT), (missing, AT)]
    );
    // A method the revision does not define (custom, or newer) is not judged; `ping` has no
    // members.
    assert_eq!(answered_rules(v0618, "x/custom", "{}"), []);
    assert_eq!(answered_rules(v1105, "elicitation/create", "{}"), []);
    assert_eq!(answered_rules(v0618, "ping", "{}"), []);
    // 2025-11-25 task-augmented answer (`CreateTaskResult`): `task` instead of `content`.
    assert_eq!(
        answered_rules(
            v1125,
            "tools/call",
            r#"{"task":{"taskId":"t","status":"working"}}"#
        ),
        []
    );
    assert_eq!(
        answered_rules(v1125, "tools/call", r#"{"task":1}"#),
        [(typed, AT + 8)]
    );
    // Before 2025-11-25 there are no tasks: `task` does not replace `content`.
    assert_eq!(
        answered_rules(v0618, "tools/call", r#"{"task":{}}"#),
        [(missing, AT)]
    );
    // 2025-11-25 tasks/get answers a `Task` (ttl required, null allowed).
    assert_eq!(
        answered_rules(
            v1125,
            "tasks/get",
            r#"{"taskId":"t","status":"working","createdAt":"x","lastUpdatedAt":"y","ttl":null}"#
        ),
        []
    );
    assert_eq!(
        answered_rules(
            v1125,
            "tasks/get",
            r#"{"taskId":"t","status":"working","createdAt":"x","lastUpdatedAt":"y"}"#
        ),
        [(missing, AT)]
    );
    // 2026-07-28: complete results hold the members; input_required ones do not.
    let c = |body: &str| {
        format!(r#"{{"resultType":"complete","ttlMs":0,"cacheScope":"public",{body}}}"#)
    };
    assert_eq!(
        answered_rules(
            v26,
            "server/discover",
            &c(r#""supportedVersions":["2026-07-28"],"capabilities":{}"#)
        ),
        []
    );
    assert_eq!(
        answered_rules(v26, "server/discover", &c(r#""capabilities":{}"#)),
        [(missing, AT)]
    );
    // An extension's settings are an object (trial, session 24), at the value.
    let ext = c(
        r#""supportedVersions":["2026-07-28"],"capabilities":{"extensions":{"com.example/a":{},"com.example/b":1}}"#,
    );
    assert_eq!(
        answered_rules(v26, "server/discover", &ext),
        [(Rule::ReservedMetaValue, AT + ext.find(":1}").unwrap() + 1)]
    );
    assert_eq!(
        answered_rules(v26, "tools/call", r#"{"resultType":"complete"}"#),
        [(missing, AT)]
    );
    assert_eq!(
        answered_rules(
            v26,
            "tools/call",
            r#"{"resultType":"input_required","requestState":"s"}"#
        ),
        []
    );
    // Not matched to a request (no tracker): not judged.
    let mut s = Validator::new(v0618, Direction::ServerToClient);
    assert_eq!(
        judge(
            &mut s,
            None,
            br#"{"jsonrpc":"2.0","id":1,"result":{"tools":"x"}}"#
        ),
        []
    );
}

/// Caching fields are required on complete results of the cacheable methods (spec digest
/// §11; 2026 `schema.json` `required` of `DiscoverResult`, `ListToolsResult`, …), judged
/// only when the tracker knows the answered method.
#[test]
fn cache_fields_required_on_complete_cacheable_results() {
    let (c2s, s2c) = (Direction::ClientToServer, Direction::ServerToClient);
    // The methods' own members (`tools`, `contents` …) are
    // `result_members_required_per_answered_method`'s subject, not this test's.
    let answered = |profile: Profile, method: &str, result: &str| -> Vec<(Rule, usize)> {
        answered_rules(profile, method, result)
            .into_iter()
            .filter(|(r, _)| !matches!(r, Rule::MissingResultMember | Rule::ResultMemberType))
            .collect()
    };
    // The result object starts at byte 33, after `{"jsonrpc":"2.0","id":1,"result":`.
    const AT: usize = 33;
    let v26 = Profile::V2026_07_28;
    for method in [
        "server/discover",
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        "resources/read",
    ] {
        // Both present: valid (other members of the result are not judged here).
        for ok in [
            r#"{"resultType":"complete","ttlMs":0,"cacheScope":"private"}"#,
            r#"{"resultType":"complete","cacheScope":"public","ttlMs":3600000}"#,
        ] {
            assert_eq!(answered(v26, method, ok), [], "{method}: {ok}");
        }
        // Each one missing, both missing.
        assert_eq!(
            answered(
                v26,
                method,
                r#"{"resultType":"complete","cacheScope":"public"}"#
            ),
            [(Rule::CacheField, AT)],
            "{method}"
        );
        assert_eq!(
            answered(v26, method, r#"{"resultType":"complete","ttlMs":0}"#),
            [(Rule::CacheField, AT)],
            "{method}"
        );
        assert_eq!(
            answered(v26, method, r#"{"resultType":"complete"}"#),
            [(Rule::CacheField, AT), (Rule::CacheField, AT)],
            "{method}"
        );
        // No resultType reads as complete: missing-result-type and the caching fields.
        assert_eq!(
            answered(v26, method, r#"{}"#),
            [
                (Rule::MissingResultType, AT),
                (Rule::CacheField, AT),
                (Rule::CacheField, AT)
            ],
            "{method}"
        );
        // Present but malformed: reported at the value, once (not also as missing).
        assert_eq!(
            answered(
                v26,
                method,
                r#"{"resultType":"complete","ttlMs":-1,"cacheScope":"public"}"#
            ),
            [(Rule::CacheField, AT + 33)],
            "{method}"
        );
        // A complete result is no task, whatever members it adds.
        assert_eq!(
            answered(v26, method, r#"{"resultType":"complete","taskId":"t"}"#),
            [(Rule::CacheField, AT), (Rule::CacheField, AT)],
            "{method}"
        );
        // Legacy revisions define no caching fields.
        assert_eq!(
            answered(Profile::V2025_11_25, method, r#"{}"#),
            [],
            "{method}"
        );
    }
    // Boundary: an input_required answer to resources/read carries no cache hints.
    assert_eq!(
        answered(
            v26,
            "resources/read",
            r#"{"resultType":"input_required","requestState":"s"}"#
        ),
        []
    );
    // Results of other methods need no caching fields.
    for method in ["tools/call", "prompts/get"] {
        let r = r#"{"resultType":"complete","content":[]}"#;
        assert_eq!(answered(v26, method, r), [], "{method}");
    }
    // The answered method unknown (no tracker): absence is not judged.
    let mut s = Validator::new(v26, s2c);
    let bare = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[]}}"#;
    assert_eq!(judge(&mut s, None, bare), []);
    // Through a Session (proxy, record): same verdict, same offset.
    let mut session = Session::new(v26, 16);
    let list = req("tools/list", "");
    assert_eq!(
        session_check(&mut session, c2s, &list),
        (Tracked::Request, vec![])
    );
    let (t, rules) = session_check(&mut session, s2c, std::str::from_utf8(bare).unwrap());
    assert_eq!(
        t,
        Tracked::Answered {
            method: "tools/list".into()
        }
    );
    assert_eq!(rules, [Rule::CacheField, Rule::CacheField]);
}

/// The params of requests embedded in `inputRequests` are judged as the top-level requests
/// of those names (`profile::params` tables): `missing-param` at the embedded `params` (at the
/// embedded `method` value when `params` is absent), `param-type` at the value.
#[test]
fn input_request_params_judged_as_their_requests() {
    let rules = |profile: Profile, result: &str| -> (String, Vec<(Rule, usize)>) {
        let frame = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{result}}}"#);
        let mut v = Validator::new(profile, Direction::ServerToClient);
        let got = judge(&mut v, None, frame.as_bytes())
            .iter()
            .map(|x| (x.rule, x.offset))
            .collect();
        (frame, got)
    };
    let ir = |entry: &str| {
        format!(r#"{{"resultType":"input_required","inputRequests":{{"k":{entry}}}}}"#)
    };
    let v26 = Profile::V2026_07_28;
    // Valid: each method with its required members (more members allowed), roots/list with
    // empty or absent params; the spec's own MRTR example shape.
    for entry in [
        r#"{"method":"elicitation/create","params":{"message":"Name?","requestedSchema":{"type":"object","properties":{}}}}"#,
        r#"{"method":"elicitation/create","params":{"mode":"form","message":"Name?","requestedSchema":{"type":"object","properties":{}}}}"#,
        r#"{"method":"elicitation/create","params":{"mode":"url","message":"Log in","url":"https://x.example/"}}"#,
        r#"{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":100}}"#,
        r#"{"method":"roots/list","params":{}}"#,
        r#"{"method":"roots/list"}"#,
    ] {
        let (frame, got) = rules(v26, &ir(entry));
        assert_eq!(got, [], "{frame}");
    }
    // Missing members: reported at the embedded params object, once per member.
    for (entry, missing) in [
        // `message`, and (no `mode`: a form) `requestedSchema`.
        (r#"{"method":"elicitation/create","params":{}}"#, 2),
        (
            r#"{"method":"elicitation/create","params":{"url":"https://x.example/"}}"#,
            2,
        ),
        (
            r#"{"method":"elicitation/create","params":{"mode":"url","message":"m"}}"#,
            1,
        ),
        (
            r#"{"method":"sampling/createMessage","params":{"messages":[]}}"#,
            1,
        ),
        (
            r#"{"method":"sampling/createMessage","params":{"maxTokens":1}}"#,
            1,
        ),
        (r#"{"method":"sampling/createMessage","params":{}}"#, 2),
    ] {
        let (frame, got) = rules(v26, &ir(entry));
        let at = frame.find(r#""params":"#).unwrap() + 9;
        assert_eq!(got, vec![(Rule::MissingParam, at); missing], "{frame}");
    }
    // No params at all: reported at the embedded method value.
    for (entry, missing) in [
        (r#"{"method":"elicitation/create"}"#, 2),
        (r#"{"method":"sampling/createMessage"}"#, 2),
    ] {
        let (frame, got) = rules(v26, &ir(entry));
        let at = frame.find(r#""method":"#).unwrap() + 9;
        assert_eq!(got, vec![(Rule::MissingParam, at); missing], "{frame}");
    }
    // Wrong types: at the value.
    for (entry, value) in [
        (
            r#"{"method":"elicitation/create","params":{"message":7,"requestedSchema":{"type":"object","properties":{}}}}"#,
            "7,",
        ),
        (
            r#"{"method":"sampling/createMessage","params":{"messages":{},"maxTokens":1}}"#,
            "{},",
        ),
        (
            r#"{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":"1"}}"#,
            r#""1"}"#,
        ),
    ] {
        let (frame, got) = rules(v26, &ir(entry));
        assert_eq!(
            got,
            [(Rule::ParamType, frame.find(value).unwrap())],
            "{frame}"
        );
    }
    // params present but not an object: the entry's shape, not its members.
    for entry in [
        r#"{"method":"sampling/createMessage","params":[]}"#,
        r#"{"method":"roots/list","params":null}"#,
    ] {
        let (frame, got) = rules(v26, &ir(entry));
        let at = frame.find(r#""params":"#).unwrap() + 9;
        assert_eq!(got, [(Rule::InputRequiredShape, at)], "{frame}");
    }
    // A repeated required member inside embedded params: reported once (first copy judged).
    let (frame, got) = rules(
        v26,
        &ir(
            r#"{"method":"elicitation/create","params":{"message":"a","message":"b","requestedSchema":{"type":"object","properties":{}}}}"#,
        ),
    );
    assert_eq!(
        got,
        [(
            Rule::Core(crate::error::ErrorKind::DuplicateKey),
            frame.find(r#""message":"b""#).unwrap()
        )],
        "{frame}"
    );
    // Boundary: an entry whose method is not an input request is reported for its method
    // only, its params not judged; every entry of the map is judged.
    let (frame, got) = rules(v26, &ir(r#"{"method":"tools/call","params":{}}"#));
    assert_eq!(
        got,
        [(
            Rule::InputRequestMethod,
            frame.find(r#""tools/call""#).unwrap()
        )]
    );
    let two = r#"{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"},"b":{"method":"elicitation/create","params":{}}}}"#;
    assert_eq!(rules(v26, two).1.len(), 2);
    // Legacy revisions have no inputRequests: not judged there.
    let (_, got) = rules(
        Profile::V2025_11_25,
        &ir(r#"{"method":"sampling/createMessage","params":{}}"#),
    );
    assert_eq!(got, []);
}

/// The MRTR retry members of a request (`InputResponseRequestParams`, spec digest §3.1):
/// `requestState` a string and `inputResponses` an object when present, in `tools/call`,
/// `prompts/get` and `resources/read` under 2026-07-28; `param-type` at the value.
#[test]
fn request_state_and_input_responses_in_retried_requests() {
    let judge_req = |profile: Profile, frame: &str| -> Vec<(Rule, usize)> {
        let mut v = Validator::new(profile, Direction::ClientToServer);
        judge(&mut v, None, frame.as_bytes())
            .iter()
            .map(|x| (x.rule, x.offset))
            .collect()
    };
    let v26 = Profile::V2026_07_28;
    for (method, required) in [
        ("tools/call", r#""name":"t","#),
        ("prompts/get", r#""name":"p","#),
        ("resources/read", r#""uri":"file:///a","#),
    ] {
        // Valid: absent (a first try), a string state and an object of responses, either alone.
        for extra in [
            "",
            r#""requestState":"opaque","#,
            r#""requestState":"","#,
            r#""inputResponses":{},"#,
            r#""inputResponses":{"k":{"action":"accept","content":{"name":"x"}}},"requestState":"s","#,
        ] {
            let frame = req(method, &format!("{required}{extra}"));
            assert_eq!(judge_req(v26, &frame), [], "{frame}");
        }
        // Invalid: each at its value.
        for (extra, value) in [
            (r#""requestState":5,"#, "5,"),
            (r#""requestState":null,"#, "null,"),
            (r#""requestState":{"s":1},"#, r#"{"s":1},"#),
            (r#""inputResponses":[],"#, "[],"),
            (r#""inputResponses":"k","#, r#""k","#),
        ] {
            let frame = req(method, &format!("{required}{extra}"));
            let at = frame.find(extra).unwrap() + extra.find(value).unwrap();
            assert_eq!(judge_req(v26, &frame), [(Rule::ParamType, at)], "{frame}");
        }
        // Both wrong: two findings, in member order of the table.
        let frame = req(
            method,
            &format!(r#"{required}"inputResponses":1,"requestState":2,"#),
        );
        assert_eq!(
            judge_req(v26, &frame),
            [
                (
                    Rule::ParamType,
                    frame.find(r#""requestState":2"#).unwrap() + 15
                ),
                (
                    Rule::ParamType,
                    frame.find(r#""inputResponses":1"#).unwrap() + 17
                )
            ],
            "{frame}"
        );
        // Repeated: reported once as a repeated params key, the first copy judged.
        let frame = req(
            method,
            &format!(r#"{required}"requestState":"a","requestState":5,"#),
        );
        assert_eq!(
            judge_req(v26, &frame),
            [(
                Rule::Core(crate::error::ErrorKind::DuplicateParamsKey),
                frame.find(r#""requestState":5"#).unwrap()
            )],
            "{frame}"
        );
        // Legacy revisions define no retry members: not judged there.
        let legacy = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{{required}"requestState":5,"inputResponses":[]}}}}"#
        );
        assert_eq!(judge_req(Profile::V2025_11_25, &legacy), [], "{legacy}");
    }
    // Boundary: other methods do not define them (not judged here).
    let frame = req("tools/list", r#""requestState":5,"inputResponses":[],"#);
    assert_eq!(judge_req(v26, &frame), [], "{frame}");
}

/// The optional members of an `Implementation` (`clientInfo` on requests, `serverInfo` on
/// results; 2026 `schema.json`): `title`, `description`, `websiteUrl` strings and `icons` an
/// array when present, `reserved-meta-value` at the member's value.
#[test]
fn implementation_optional_members_in_client_and_server_info() {
    let got = |profile: Profile, dir: Direction, frame: &str| -> Vec<(Rule, usize)> {
        let mut v = Validator::new(profile, dir);
        judge(&mut v, None, frame.as_bytes())
            .iter()
            .map(|x| (x.rule, x.offset))
            .collect()
    };
    let request = |info: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/clientInfo":{info}}}}}}}"#
        )
    };
    let result = |info: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"complete","_meta":{{"io.modelcontextprotocol/serverInfo":{info}}}}}}}"#
        )
    };
    let v26 = Profile::V2026_07_28;
    for dir in [Direction::ClientToServer, Direction::ServerToClient] {
        let frame_of = |info: &str| {
            if dir == Direction::ClientToServer {
                request(info)
            } else {
                result(info)
            }
        };
        // Valid: none, each, all of them (icons empty or with entries); unknown members free.
        for info in [
            r#"{"name":"n","version":"1"}"#,
            r#"{"name":"n","version":"1","title":"N"}"#,
            r#"{"name":"n","version":"1","description":""}"#,
            r#"{"name":"n","version":"1","websiteUrl":"https://n.example/"}"#,
            r#"{"name":"n","version":"1","icons":[]}"#,
            r#"{"name":"n","version":"1","title":"N","description":"d","websiteUrl":"https://n.example/","icons":[{"src":"https://n.example/i.png","sizes":["48x48"]}],"x-other":5}"#,
        ] {
            let frame = frame_of(info);
            assert_eq!(got(v26, dir, &frame), [], "{frame}");
        }
        // Each wrong type, at its value.
        for (member, bad) in [
            ("title", "5"),
            ("title", "null"),
            ("description", "[\"d\"]"),
            ("websiteUrl", "{\"href\":\"https://n.example/\"}"),
            ("icons", "\"https://n.example/i.png\""),
            ("icons", "{}"),
        ] {
            let info = format!(r#"{{"name":"n","version":"1","{member}":{bad}}}"#);
            let frame = frame_of(&info);
            let at = frame.find(&format!(r#""{member}":{bad}"#)).unwrap() + member.len() + 3;
            assert_eq!(
                got(v26, dir, &frame),
                [(Rule::ReservedMetaValue, at)],
                "{frame}"
            );
        }
        // A wrong required member and a wrong optional one: two findings, each at its place.
        let info = r#"{"name":"n","title":1}"#;
        let frame = frame_of(info);
        let value_at = frame.find(info).unwrap();
        assert_eq!(
            got(v26, dir, &frame),
            [
                (Rule::ReservedMetaValue, value_at),
                (Rule::ReservedMetaValue, value_at + 20)
            ],
            "{frame}"
        );
        // Not an object: one finding, no member read.
        let frame = frame_of(r#""n 1""#);
        assert_eq!(got(v26, dir, &frame).len(), 1, "{frame}");
    }
    // Legacy revisions reserve no such keys with these shapes: not judged there.
    let legacy = r#"{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"n","version":"1","title":5,"icons":{}}}}}"#;
    assert_eq!(
        got(Profile::V2025_11_25, Direction::ServerToClient, legacy),
        []
    );
}

/// The findings (rule, offset) of a fresh validator on `frame` whose rule is in `keep`, in
/// order.
fn findings_of(profile: Profile, dir: Direction, frame: &str, keep: &[Rule]) -> Vec<(Rule, usize)> {
    let mut v = Validator::new(profile, dir);
    judge(&mut v, None, frame.as_bytes())
        .iter()
        .filter(|x| keep.contains(&x.rule))
        .map(|x| (x.rule, x.offset))
        .collect()
}

/// The case-variant findings of `out` (rule, offset), in order.
fn case_variants(out: &[Violation]) -> Vec<(Rule, usize)> {
    out.iter()
        .filter(|x| matches!(x.rule, Rule::CaseVariantParam | Rule::CaseVariantKey))
        .map(|x| (x.rule, x.offset))
        .collect()
}

/// Session-15 trial: a key equal only under case folding to a params or result member the
/// rules read (`progress`, `progressToken`, `level`, `protocolVersion`) passed, although a
/// case-insensitive backend reads it as that member. Exact trial inputs; `case-variant-param`
/// inside params, `case-variant-key` in a result, at the variant's opening quote, under every
/// profile that judges the message.
#[test]
fn case_variants_of_members_the_rules_read_are_rejected() {
    use Direction::*;
    let progress = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5,"total":1,"Progress":2}}"#;
    let long_s = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5,"progreſſ":2}}"#;
    let token = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"ProgressToken":2,"progress":0.5}}"#;
    let level = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","Level":"emergency","data":"x"}}"#;
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","ProtocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    for (frame, variant, dir) in [
        (progress, r#""Progress""#, ServerToClient),
        (long_s, r#""progreſſ""#, ServerToClient),
        (token, r#""ProgressToken""#, ServerToClient),
        (level, r#""Level""#, ServerToClient),
        (init, r#""ProtocolVersion""#, ClientToServer),
    ] {
        let at = frame.find(variant).unwrap();
        for profile in [Profile::V2025_06_18, Profile::Legacy, Profile::Auto] {
            let mut v = Validator::new(profile, dir);
            let got = judge(&mut v, None, frame.as_bytes());
            assert_eq!(
                case_variants(&got),
                [(Rule::CaseVariantParam, at)],
                "{profile:?} {frame}"
            );
            // The same frame with the variant's key spelled as an unrelated key passes that
            // rule (the finding is the variant, not the frame).
            let plain = frame.replacen(variant, r#""unrelated""#, 1);
            let mut v = Validator::new(profile, dir);
            assert!(
                !judge(&mut v, None, plain.as_bytes())
                    .iter()
                    .any(|x| matches!(x.rule, Rule::CaseVariantParam | Rule::CaseVariantKey)),
                "{profile:?} {plain}"
            );
        }
    }
    // In an initialize result (read through the session, which tracks the request).
    let init_ok = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","PROTOCOLVERSION":"2024-11-05","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#;
    let at = init_ok.find(r#""PROTOCOLVERSION""#).unwrap();
    for profile in [Profile::V2025_06_18, Profile::Auto] {
        let mut s = Session::new(profile, 4);
        let mut out = Vec::new();
        let plain_init = init.replacen(r#""ProtocolVersion""#, r#""unrelated""#, 1);
        s.check(
            ClientToServer,
            &crate::envelope::parse(plain_init.as_bytes()).unwrap(),
            &mut out,
        );
        assert_eq!(out, [], "{profile:?}");
        s.check(
            ServerToClient,
            &crate::envelope::parse(init_ok.as_bytes()).unwrap(),
            &mut out,
        );
        assert_eq!(
            case_variants(&out),
            [(Rule::CaseVariantKey, at)],
            "{profile:?}"
        );
    }
}

/// A key repeated inside `params.arguments` (any depth) passed `check`: a policy reading the
/// first `path` and a backend running the last one disagree (open since session 14). It is
/// `duplicate-params-key` at the repeated key's opening quote; distinct keys, the same key
/// in two sibling objects, and other methods' free-form params pass.
#[test]
fn keys_repeated_inside_arguments_are_rejected() {
    let dup = Rule::Core(crate::error::ErrorKind::DuplicateParamsKey);
    let call = |method: &str, args: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{"name":"t","arguments":{args}}}}}"#
        )
    };
    let rules_at = |profile: Profile, frame: &str| -> Vec<(Rule, usize)> {
        let mut v = Validator::new(profile, Direction::ClientToServer);
        judge(&mut v, None, frame.as_bytes())
            .iter()
            .filter(|x| x.rule == dup)
            .map(|x| (x.rule, x.offset))
            .collect()
    };
    for method in ["tools/call", "prompts/get"] {
        for (args, second) in [
            (r#"{"path":"/ok","path":"/etc/passwd"}"#, r#""path":"/etc"#),
            (
                r#"{"path":"/ok","p\u0061th":"/etc/passwd"}"#,
                r#""p\u0061th""#,
            ),
            (r#"{"a":{"b":[{"c":1,"d":2,"c":3}]}}"#, r#""c":3"#),
            (r#"{"x":1, "y" : 2 , "x" :3}"#, r#""x" :3"#),
            // An array `arguments` (re-trial, session 16: not inspected).
            (r#"[{"x":1,"x":2}]"#, r#""x":2"#),
        ] {
            let f = call(method, args);
            let at = f.rfind(second).unwrap();
            for p in [Profile::V2025_06_18, Profile::Legacy, Profile::Auto] {
                assert_eq!(rules_at(p, &f), [(dup, at)], "{p:?} {f}");
            }
        }
        for args in [
            r#"{"path":"/ok","Path":"/x"}"#,
            r#"{"a":{"k":1},"b":{"k":2}}"#,
            r#"[{"k":1},{"k":1}]"#,
            r#"{"s":"\"k\":1,\"k\":2"}"#,
            "{}",
        ] {
            let f = call(method, args);
            assert_eq!(rules_at(Profile::V2025_06_18, &f), [], "{f}");
        }
    }
    // Free-form params of other methods are not inspected here.
    let other =
        r#"{"jsonrpc":"2.0","id":1,"method":"x/custom","params":{"arguments":{"k":1,"k":2}}}"#;
    assert_eq!(rules_at(Profile::V2025_06_18, other), []);
}

/// Re-trial of session 16's case-variant notes: one key is one finding however many reads
/// meet it (`"Name"` was reported twice in `tools/call`), a result's `protocolVersion` read
/// only to guess the revision flags nothing (`"ProtocolVersion"` in a `tools/call` result
/// was `case-variant-key` under `auto`), and variants of the `_meta` keys MCP defines are
/// flagged once (`"ProgressToken"` passed; `"io.modelcontextprotocol/ProtocolVersion"` got
/// a second, reserved-prefix finding). Exact re-trial inputs.
#[test]
fn case_variant_notes_are_one_per_key_and_only_for_members_read_as_such() {
    use Direction::*;
    let variants = |profile, dir, frame: &str| {
        let keep = [
            Rule::CaseVariantParam,
            Rule::CaseVariantKey,
            Rule::ReservedMetaKey,
            Rule::MetaKeyGrammar,
        ];
        findings_of(profile, dir, frame, &keep)
    };
    let cvp = Rule::CaseVariantParam;
    for frame in [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","Uri":"u","Name":"evil"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"a","Name":"x","Uri":"evil"}}"#,
    ] {
        let at = frame.rfind("\"Name\"").max(frame.rfind("\"Uri\"")).unwrap();
        for p in [Profile::V2026_07_28, Profile::Legacy, Profile::Auto] {
            assert_eq!(
                variants(p, ClientToServer, frame),
                [(cvp, at)],
                "{p:?} {frame}"
            );
        }
    }
    let result = r#"{"jsonrpc":"2.0","id":7,"result":{"content":[],"structuredContent":{},"ProtocolVersion":"1.2"}}"#;
    for p in [Profile::Auto, Profile::Legacy, Profile::V2025_06_18] {
        assert_eq!(variants(p, ServerToClient, result), [], "{p:?}");
    }
    for (frame, key) in [
        (
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":"p","ProgressToken":{}}}}"#,
            r#""ProgressToken""#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","_meta":{"TraceParent":"x"}}}"#,
            r#""TraceParent""#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","_meta":{"io.modelcontextprotocol/ProtocolVersion":"2026-07-28"}}}"#,
            r#""io.modelcontextprotocol/ProtocolVersion""#,
        ),
    ] {
        let at = frame.find(key).unwrap();
        for p in [
            Profile::V2026_07_28,
            Profile::V2025_06_18,
            Profile::Legacy,
            Profile::Auto,
        ] {
            assert_eq!(
                variants(p, ClientToServer, frame),
                [(cvp, at)],
                "{p:?} {frame}"
            );
        }
    }
    // The exact keys stay quiet.
    let exact = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":"p","traceparent":"x"}}}"#;
    assert_eq!(variants(Profile::V2025_06_18, ClientToServer, exact), []);
}

/// Spec trial, session 22: a request to a `rpc.` method passed every legacy profile (their
/// method sets are open), though JSON-RPC 2.0 §4 reserves those names in every revision.
/// Other unknown names stay open there.
#[test]
fn rpc_prefixed_requests_are_unknown_methods_in_every_profile() {
    for profile in [
        Profile::V2024_11_05,
        Profile::V2025_03_26,
        Profile::V2025_06_18,
        Profile::V2025_11_25,
        Profile::Legacy,
        Profile::V2026_07_28,
    ] {
        let mut v = Validator::new(profile, Direction::ClientToServer);
        let out = judge(
            &mut v,
            None,
            br#"{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}"#,
        );
        let w = out
            .iter()
            .find(|x| x.rule == Rule::UnknownMethod)
            .unwrap_or_else(|| panic!("{profile:?}: {out:?}"));
        assert_eq!((w.offset, w.rule.code()), (33, -32601), "{profile:?}");
        if profile != Profile::V2026_07_28 {
            let mut v = Validator::new(profile, Direction::ClientToServer);
            for f in [
                &br#"{"jsonrpc":"2.0","id":1,"method":"rpcx.discover"}"#[..],
                br#"{"jsonrpc":"2.0","id":1,"method":"some_method"}"#,
            ] {
                assert!(judge(&mut v, None, f).is_empty(), "{profile:?}");
            }
        }
    }
}

/// Session 23: a notification named `rpc.on` passed every profile (unknown notifications are
/// not judged by name), though JSON-RPC 2.0 §4 reserves `rpc.` names in every revision and
/// some JSON-RPC stacks act on such notifications themselves. Other unknown notification
/// names, and `rpcx.` or `notifications/rpc.x`, stay quiet; both directions.
#[test]
fn rpc_prefixed_notifications_are_unknown_methods_in_every_profile() {
    for profile in [
        Profile::V2024_11_05,
        Profile::V2025_03_26,
        Profile::V2025_06_18,
        Profile::V2025_11_25,
        Profile::Legacy,
        Profile::Auto,
        Profile::V2026_07_28,
    ] {
        for dir in [Direction::ClientToServer, Direction::ServerToClient] {
            let mut v = Validator::new(profile, dir);
            let out = judge(
                &mut v,
                None,
                br#"{"jsonrpc":"2.0","method":"rpc.on","params":{}}"#,
            );
            let w = out
                .iter()
                .find(|x| x.rule == Rule::UnknownMethod)
                .unwrap_or_else(|| panic!("{profile:?} {dir:?}: {out:?}"));
            assert_eq!((w.offset, w.rule.code()), (26, -32601), "{profile:?}");
            let mut v = Validator::new(profile, dir);
            for f in [
                &br#"{"jsonrpc":"2.0","method":"rpcx.on","params":{}}"#[..],
                br#"{"jsonrpc":"2.0","method":"notifications/rpc.on","params":{}}"#,
                br#"{"jsonrpc":"2.0","method":"notifications/custom"}"#,
            ] {
                let out = judge(&mut v, None, f);
                assert!(
                    out.iter().all(|x| x.rule != Rule::UnknownMethod),
                    "{profile:?} {dir:?}: {out:?}"
                );
            }
        }
    }
}

/// Spec trial, session 22: a legacy profile required the `params` members of methods its
/// revision does not define (`tasks/get` under 2024-11-05 to 2025-06-18, `elicitation/create`
/// before 2025-06-18), though its method set is open and such a name may be a custom method.
#[test]
fn legacy_profiles_require_params_only_of_their_own_methods() {
    let elicit = br#"{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{}}"#;
    let task = br#"{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{}}"#;
    for (profile, elicit_checked, task_checked) in [
        (Profile::V2024_11_05, false, false),
        (Profile::V2025_03_26, false, false),
        (Profile::V2025_06_18, true, false),
        (Profile::V2025_11_25, true, true),
        // The legacy union (revision not known): every legacy method's table.
        (Profile::Legacy, true, true),
    ] {
        for (frame, checked) in [(&elicit[..], elicit_checked), (&task[..], task_checked)] {
            let mut v = Validator::new(profile, Direction::ServerToClient);
            let out = judge(&mut v, None, frame);
            assert_eq!(
                out.iter().any(|x| x.rule == Rule::MissingParam),
                checked,
                "{profile:?} {}: {out:?}",
                String::from_utf8_lossy(frame)
            );
        }
    }
}

/// Spec trial, session 22: a 2025-03-26 batch holding both a request and a response passed,
/// though the revision has a batch of requests and notifications and a batch of responses,
/// no mixed one. The first element of the other side is reported, at its start.
#[test]
fn a_batch_mixing_requests_and_responses_is_refused() {
    let cases: [(&[u8], Option<usize>); 5] = [
        // The re-trial's batch: an invalid element, a response, two requests: once.
        (
            br#"[{"jsonrpc":"2.0","id":5},{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]"#,
            Some(63),
        ),
        (
            br#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":"s1","result":{}}]"#,
            Some(48),
        ),
        (
            br#"[{"jsonrpc":"2.0","id":"s2","result":{}},{"jsonrpc":"2.0","method":"notifications/initialized"}]"#,
            Some(41),
        ),
        (
            br#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/initialized"}]"#,
            None,
        ),
        (
            br#"[{"jsonrpc":"2.0","id":"s2","result":{}},{"jsonrpc":"2.0","id":"s3","error":{"code":1,"message":"x"}}]"#,
            None,
        ),
    ];
    for (frame, at) in cases {
        let mut v = Validator::new(Profile::V2025_03_26, Direction::ClientToServer);
        let out = judge(&mut v, None, frame);
        let mixed: Vec<usize> = out
            .iter()
            .filter(|x| x.rule == Rule::Core(crate::error::ErrorKind::Batch))
            .map(|x| x.offset)
            .collect();
        assert_eq!(
            mixed,
            at.into_iter().collect::<Vec<_>>(),
            "{}: {out:?}",
            String::from_utf8_lossy(frame)
        );
    }
}

/// Spec trial, session 22: a 2026-07-28 server request, and a notification name written
/// with an id, also drew the client's per-request `_meta` rules (two -32602 records each),
/// though each is already reported as what it is. Only that record is left.
#[test]
fn server_requests_and_notifications_with_ids_skip_the_clients_meta_rules() {
    for (dir, frame, rule) in [
        (
            Direction::ServerToClient,
            &br#"{"jsonrpc":"2.0","id":"s1","method":"ping"}"#[..],
            Rule::ServerRequest,
        ),
        (
            Direction::ServerToClient,
            br#"{"jsonrpc":"2.0","id":"s1","method":"tools/list","params":{}}"#,
            Rule::ServerRequest,
        ),
        (
            Direction::ClientToServer,
            br#"{"jsonrpc":"2.0","id":3,"method":"notifications/cancelled","params":{"requestId":1}}"#,
            Rule::NotificationWithId,
        ),
    ] {
        let mut v = Validator::new(Profile::V2026_07_28, dir);
        let rules: Vec<Rule> = judge(&mut v, None, frame).iter().map(|x| x.rule).collect();
        assert_eq!(rules, [rule], "{}", String::from_utf8_lossy(frame));
    }
    // A client request still needs both fields.
    let mut v = Validator::new(Profile::V2026_07_28, Direction::ClientToServer);
    let rules: Vec<Rule> = judge(
        &mut v,
        None,
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
    )
    .iter()
    .map(|x| x.rule)
    .collect();
    assert_eq!(
        rules,
        [
            Rule::MissingProtocolVersion,
            Rule::MissingClientCapabilities
        ]
    );
}

/// Spec trial, session 22: optional `params` members of the wrong type passed every profile:
/// `tools/call` `arguments` not an object, `prompts/get` `arguments` not a string map, a
/// list request's `cursor` not a string, `notifications/progress` `total` not a number and
/// `message` not a string. Each is `param-type` at its value, under every profile; the
/// right types (and absence) pass.
#[test]
fn optional_params_members_of_the_wrong_type_are_param_type() {
    let m = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let cases: [(Direction, String, Option<&str>); 10] = [
        (Direction::ClientToServer, format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"x","arguments":[1],{m}}}}}"#), Some("[1]")),
        (Direction::ClientToServer, format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"x","arguments":{{"a":[1]}},{m}}}}}"#), None),
        (Direction::ClientToServer, format!(r#"{{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{{"name":"x","arguments":{{"a":"1","b":2}},{m}}}}}"#), Some(r#"{"a":"1","b":2}"#)),
        (Direction::ClientToServer, format!(r#"{{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{{"name":"x","arguments":{{"a":"1"}},{m}}}}}"#), None),
        (Direction::ClientToServer, format!(r#"{{"jsonrpc":"2.0","id":1,"method":"resources/templates/list","params":{{"cursor":5,{m}}}}}"#), Some("5")),
        (Direction::ClientToServer, format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"cursor":"c2",{m}}}}}"#), None),
        (Direction::ServerToClient, r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"total":"9"}}"#.to_owned(), Some(r#""9""#)),
        (Direction::ServerToClient, r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"message":7}}"#.to_owned(), Some("7")),
        (Direction::ServerToClient, r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"total":9.5,"message":"m"}}"#.to_owned(), None),
        (Direction::ServerToClient, r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}"#.to_owned(), None),
    ];
    for profile in [
        Profile::V2024_11_05,
        Profile::V2025_06_18,
        Profile::Legacy,
        Profile::V2026_07_28,
    ] {
        for (dir, frame, bad) in &cases {
            let mut v = Validator::new(profile, *dir);
            let at: Vec<usize> = judge(&mut v, None, frame.as_bytes())
                .iter()
                .filter(|x| x.rule == Rule::ParamType)
                .map(|x| x.offset)
                .collect();
            let want: Vec<usize> = bad.map(|b| frame.rfind(b).unwrap()).into_iter().collect();
            assert_eq!(at, want, "{profile:?} {frame}");
        }
    }
}

/// Spec trial, session 22: extension identifiers (keys of the client capabilities'
/// `extensions`) were not checked, though they follow the `_meta` key grammar with a
/// mandatory prefix (spec digest §4.1): `"tasks"` and `"bad key!"` passed, and so did
/// `"extensions":[]`.
#[test]
fn extension_identifiers_need_a_prefix_and_the_key_grammar() {
    let req = |ext: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{"extensions":{ext}}}}}}}}}"#
        )
    };
    for (ext, want) in [
        (
            r#"{"io.modelcontextprotocol/tasks":{},"com.example/ui":{"x":1}}"#,
            vec![],
        ),
        (
            r#"{"tasks":{}}"#,
            vec![(Rule::MetaKeyGrammar, r#""tasks""#)],
        ),
        (
            r#"{"com.example/":{},"bad key!":{}}"#,
            vec![(Rule::MetaKeyGrammar, r#""bad key!""#)],
        ),
        (
            r#"{"a..b/x":{}}"#,
            vec![(Rule::MetaKeyGrammar, r#""a..b/x""#)],
        ),
        ("[]", vec![(Rule::ReservedMetaValue, "[]")]),
    ] {
        let frame = req(ext);
        let mut v = Validator::new(Profile::V2026_07_28, Direction::ClientToServer);
        let got: Vec<(Rule, usize)> = judge(&mut v, None, frame.as_bytes())
            .iter()
            .map(|x| (x.rule, x.offset))
            .collect();
        let want: Vec<(Rule, usize)> = want
            .into_iter()
            .map(|(r, at)| (r, frame.find(at).unwrap()))
            .collect();
        assert_eq!(got, want, "{frame}");
    }
}

/// Session 23: a `server/discover` result's server capabilities hold extension identifiers
/// under the same grammar as the client's (they passed unchecked); judged when the result is
/// matched to its request.
#[test]
fn server_extension_identifiers_need_a_prefix_and_the_key_grammar() {
    let result = |ext: &str| {
        format!(
            r#"{{"resultType":"complete","ttlMs":0,"cacheScope":"public","supportedVersions":["2026-07-28"],"capabilities":{{"tools":{{}},"extensions":{ext}}}}}"#
        )
    };
    for (ext, want) in [
        (r#"{"io.modelcontextprotocol/tasks":{}}"#, vec![]),
        (
            r#"{"tasks":{}}"#,
            vec![(Rule::MetaKeyGrammar, r#""tasks""#)],
        ),
        ("[]", vec![(Rule::ReservedMetaValue, "[]")]),
    ] {
        let body = result(ext);
        let frame = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{body}}}"#);
        let want: Vec<(Rule, usize)> = want
            .into_iter()
            .map(|(r, at)| (r, frame.find(at).unwrap()))
            .collect();
        assert_eq!(
            answered_rules(Profile::V2026_07_28, "server/discover", &body),
            want,
            "{frame}"
        );
    }
}

/// Session 23: progress tokens (spec digest §10). A server's `notifications/progress` is
/// judged against the tokens of the client's requests in flight: unknown tokens (never
/// sent, or after the request completed), values that do not increase, and a token two
/// requests in flight share; a request answered with a task keeps its token.
#[test]
fn progress_tokens_follow_their_requests() {
    let (c2s, s2c) = (Direction::ClientToServer, Direction::ServerToClient);
    let call = |id: u32, token: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"t","_meta":{{"progressToken":{token}}}}}}}"#
        )
    };
    let progress = |token: &str, value: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{token},"progress":{value}}}}}"#
        )
    };
    let done = |id: u32| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[]}}}}"#);
    let (ok, none) = (Tracked::Untracked, vec![]);
    for profile in [Profile::V2025_06_18, Profile::V2025_11_25, Profile::Legacy] {
        let mut s = Session::new(profile, 16);
        assert_eq!(session_check(&mut s, c2s, &call(1, r#""p""#)).1, none);
        for v in ["0", "0.5", "1", "2e0", "3"] {
            assert_eq!(
                session_check(&mut s, s2c, &progress(r#""p""#, v)),
                (ok.clone(), vec![]),
                "{v}"
            );
        }
        // Equal, then smaller: not increasing; the last value stays 3.
        for v in ["3", "3.0", "2.5"] {
            assert_eq!(
                session_check(&mut s, s2c, &progress(r#""p""#, v)).1,
                [Rule::ProgressNotIncreasing],
                "{v}"
            );
        }
        assert_eq!(session_check(&mut s, s2c, &progress(r#""p""#, "4")).1, none);
        // A token never sent; the integer 1 is not the string "1".
        assert_eq!(session_check(&mut s, c2s, &call(2, "1")).1, none);
        assert_eq!(
            session_check(&mut s, s2c, &progress(r#""q""#, "1")).1,
            [Rule::UnknownProgressToken]
        );
        assert_eq!(
            session_check(&mut s, s2c, &progress(r#""1""#, "1")).1,
            [Rule::UnknownProgressToken]
        );
        assert_eq!(session_check(&mut s, s2c, &progress("1", "1")).1, none);
        // After the answer the token is unknown (progress stops after completion).
        assert_eq!(session_check(&mut s, s2c, &done(1)).1, none);
        assert_eq!(
            session_check(&mut s, s2c, &progress(r#""p""#, "5")).1,
            [Rule::UnknownProgressToken]
        );
        // A new request may use the token again, and its progress starts over.
        assert_eq!(session_check(&mut s, c2s, &call(3, r#""p""#)).1, none);
        assert_eq!(session_check(&mut s, s2c, &progress(r#""p""#, "0")).1, none);
        // Two requests in flight with one token: the second is reported, and the shared
        // token's progress is not judged.
        assert_eq!(
            session_check(&mut s, c2s, &call(4, r#""p""#)).1,
            [Rule::DuplicateProgressToken]
        );
        assert_eq!(session_check(&mut s, s2c, &progress(r#""p""#, "0")).1, none);
        // A cancelled request's progress is still its own (the cancel may cross it).
        let cancel =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#;
        assert_eq!(session_check(&mut s, c2s, cancel).1, none);
        assert_eq!(session_check(&mut s, s2c, &progress("1", "2")).1, none);
    }
    // 2025-11-25: a request answered with a task keeps its token for the task's progress.
    let mut s = Session::new(Profile::V2025_11_25, 16);
    assert_eq!(session_check(&mut s, c2s, &call(1, r#""t""#)).1, vec![]);
    let task = r#"{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"x","status":"working"}}}"#;
    assert_eq!(session_check(&mut s, s2c, task).1, vec![]);
    assert_eq!(
        session_check(&mut s, s2c, &progress(r#""t""#, "1")).1,
        vec![]
    );
    // The other way: a legacy server's sampling request, the client's progress.
    let mut s = Session::new(Profile::V2025_06_18, 16);
    let sample = r#"{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1,"_meta":{"progressToken":"s"}}}"#;
    assert_eq!(session_check(&mut s, s2c, sample).1, vec![]);
    assert_eq!(
        session_check(&mut s, c2s, &progress(r#""s""#, "1")).1,
        vec![]
    );
    assert_eq!(
        session_check(&mut s, c2s, &progress(r#""s""#, "1")).1,
        [Rule::ProgressNotIncreasing]
    );
    assert_eq!(
        session_check(&mut s, c2s, &progress(r#""z""#, "1")).1,
        [Rule::UnknownProgressToken]
    );
    // Not sure of the peer's requests (some pass unseen, or were evicted): unknown tokens are
    // not judged, known ones still are.
    let mut s = Session::new(Profile::V2025_06_18, 16);
    s.tracker_mut().set_partial(c2s);
    assert_eq!(
        session_check(&mut s, s2c, &progress(r#""z""#, "1")).1,
        vec![]
    );
    let mut s = Session::new(Profile::V2025_06_18, 1);
    assert_eq!(session_check(&mut s, c2s, &call(1, r#""a""#)).1, vec![]);
    assert_eq!(session_check(&mut s, c2s, &call(2, r#""b""#)).1, vec![]);
    assert_eq!(
        session_check(&mut s, s2c, &progress(r#""a""#, "1")).1,
        vec![]
    );
    assert_eq!(
        session_check(&mut s, s2c, &progress(r#""b""#, "1")).1,
        vec![]
    );
    assert_eq!(
        session_check(&mut s, s2c, &progress(r#""b""#, "1")).1,
        [Rule::ProgressNotIncreasing]
    );
    // One direction's validator alone (no tracker, as `check` without the peer) judges no
    // token.
    let mut v = Validator::new(Profile::V2025_06_18, s2c);
    assert_eq!(judge(&mut v, None, progress(r#""z""#, "1").as_bytes()), []);
}

/// Session 23, differential trial against the Python SDK's models (mcp 2.3.0): each message
/// passed every profile while the SDK refused it. Exact inputs; (profile, direction,
/// message, expected rules).
#[test]
fn sdk_differential_trial_params_findings() {
    let (c2s, s2c) = (Direction::ClientToServer, Direction::ServerToClient);
    let (v0618, v1125, v26) = (
        Profile::V2025_06_18,
        Profile::V2025_11_25,
        Profile::V2026_07_28,
    );
    let (pt, mp) = (Rule::ParamType, Rule::MissingParam);
    let listen = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{{{META},"notifications":{{"toolsListChanged":"yes","resourceSubscriptions":5}}}}}}"#,
        META = META.trim_start_matches(',')
    );
    let complete26 = req(
        "completion/complete",
        r#""ref":{"type":"bogus","name":"p"},"argument":{"name":"a","value":"v"},"#,
    );
    let cases: Vec<(Profile, Direction, String, Vec<Rule>)> = vec![
        (v0618, s2c, r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.5}}"#.into(), vec![pt]),
        (v0618, s2c, r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"a":1}}}"#.into(), vec![pt]),
        (v26, c2s, r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":5}}"#.into(), vec![pt]),
        (v0618, s2c, r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":5,"data":"x"}}"#.into(), vec![pt]),
        (v26, s2c, r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":5,"data":"x"}}"#.into(), vec![pt]),
        (v0618, s2c, r#"{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":1.5}}"#.into(), vec![pt]),
        (v0618, s2c, r#"{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[1],"maxTokens":1}}"#.into(), vec![pt]),
        (v0618, s2c, r#"{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[{"role":"system","content":{"type":"text","text":"hi"}}],"maxTokens":1}}"#.into(), vec![pt]),
        (v0618, c2s, r#"{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{},"argument":{}}}"#.into(), vec![pt, pt]),
        (v26, c2s, complete26, vec![pt]),
        (v0618, c2s, r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":"yes"},"clientInfo":{}}}"#.into(), vec![pt, pt]),
        (v0618, s2c, r#"{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m"}}"#.into(), vec![mp]),
        (v1125, s2c, r#"{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m","mode":"bogus"}}"#.into(), vec![pt]),
        (v1125, s2c, r#"{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m","mode":"url","url":"https://x.example/"}}"#.into(), vec![mp]),
        (v1125, s2c, r#"{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{}}"#.into(), vec![mp]),
        (v26, c2s, listen, vec![pt]),
    ];
    for (profile, dir, frame, want) in cases {
        let mut v = Validator::new(profile, dir);
        let got = judge(&mut v, None, frame.as_bytes());
        assert_eq!(rules_of(&got), want, "{profile:?} {frame}");
    }
    // The valid forms of the same messages pass.
    for (profile, dir, frame) in [
        (
            v0618,
            s2c,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r","reason":"x"}}"#,
        ),
        (
            v1125,
            s2c,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"task"}}"#,
        ),
        (
            v0618,
            s2c,
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"l","data":"x"}}"#,
        ),
        (
            v0618,
            s2c,
            r#"{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[{"role":"assistant","content":{"type":"text","text":"hi"}}],"maxTokens":1}}"#,
        ),
        (
            v0618,
            c2s,
            r#"{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"u"},"argument":{"name":"a","value":""}}}"#,
        ),
        (
            v0618,
            c2s,
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true},"sampling":{}},"clientInfo":{"name":"c","version":"1"}}}"#,
        ),
        (
            v0618,
            s2c,
            r#"{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}"#,
        ),
        (
            v1125,
            s2c,
            r#"{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m","mode":"url","url":"https://x.example/","elicitationId":"e"}}"#,
        ),
        (
            v1125,
            s2c,
            r#"{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"e"}}"#,
        ),
        // The everything server's URL-mode elicitation in a 2025-06-18 session (capture
        // `stdio_py-client_everything_2025-06-18`, frame 45), which the Python SDK client
        // accepts: `mode` is read in every revision.
        (
            v0618,
            s2c,
            r#"{"method":"elicitation/create","params":{"mode":"url","url":"https://example.com/authorize?state=capture","message":"Please open the link to complete this action.","elicitationId":"ea3fcd0a-f30a-49ac-b8a7-963b54412e58"},"jsonrpc":"2.0","id":2}"#,
        ),
    ] {
        let mut v = Validator::new(profile, dir);
        assert_eq!(
            judge(&mut v, None, frame.as_bytes()),
            [],
            "{profile:?} {frame}"
        );
    }
}

/// Session 23 re-trial of the new checks: exact inputs.
#[test]
fn retrial_of_the_result_shape_and_progress_checks() {
    let (c2s, s2c) = (Direction::ClientToServer, Direction::ServerToClient);
    let (v0618, v26) = (Profile::V2025_06_18, Profile::V2026_07_28);
    let typed = Rule::ResultMemberType;
    // 1. 2026-07-28 `structuredContent` is any JSON value; legacy ones hold an object.
    for sc in ["[1,2,3]", r#""text""#, "42", "null", "{}"] {
        let r = format!(
            r#"{{"resultType":"complete","content":[{{"type":"text","text":"[1,2,3]"}}],"structuredContent":{sc}}}"#
        );
        assert_eq!(answered_rules(v26, "tools/call", &r), [], "{r}");
    }
    assert_eq!(
        answered_rules(
            v0618,
            "tools/call",
            r#"{"content":[],"structuredContent":[1,2,3]}"#
        ),
        [(typed, 33 + 34)]
    );
    // A tool's inputSchema needs `type: "object"`.
    assert_eq!(
        answered_rules(
            v0618,
            "tools/list",
            r#"{"tools":[{"name":"t","inputSchema":{}}]}"#
        ),
        [(typed, 33 + 36)]
    );
    // 2. A checked member written twice inside a checked object: a repeat (first-wins and
    // last-wins readers differ), at the second key.
    for (profile, dir, frame, at) in [
        (
            v0618,
            c2s,
            r#"{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p","type":"bogus"},"argument":{"name":"a","value":"b"}}}"#,
            r#""type":"bogus""#,
        ),
        (
            v0618,
            s2c,
            r#"{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[{"role":"user","role":"system","content":{"type":"text","text":"x"}}],"maxTokens":5}}"#,
            r#""role":"system""#,
        ),
    ] {
        let mut v = Validator::new(profile, dir);
        let got: Vec<(Rule, usize)> = judge(&mut v, None, frame.as_bytes())
            .iter()
            .map(|x| (x.rule, x.offset))
            .collect();
        assert!(
            got.contains(&(
                Rule::Core(crate::error::ErrorKind::DuplicateParamsKey),
                frame.find(at).unwrap()
            )),
            "{frame}: {got:?}"
        );
    }
    for tools in [
        r#"{"tools":[{"name":"a","name":"b","inputSchema":{"type":"object"}}]}"#,
        r#"{"tools":[{"name":"a","n\u0061me":"b","inputSchema":{"type":"object"}}]}"#,
        r#"{"tools":[{"name":"a","inputSchema":{"type":"object"},"inputSchema":{"type":"object"}}]}"#,
    ] {
        let got = answered_rules(v0618, "tools/list", tools);
        assert_eq!(
            got.iter().map(|(r, _)| *r).collect::<Vec<_>>(),
            [Rule::Core(crate::error::ErrorKind::DuplicateKey)],
            "{tools}"
        );
    }
    // 5. A token reused after its request was cancelled: the cancelled request's late
    // progress may still come, so the token's values are not judged (no false
    // `progress-not-increasing`), and the reuse is no duplicate.
    let call = |id: u32| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"t","_meta":{{"progressToken":"a"}}}}}}"#
        )
    };
    let progress = |v: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"a","progress":{v}}}}}"#
        )
    };
    let mut s = Session::new(v0618, 16);
    assert_eq!(session_check(&mut s, c2s, &call(1)).1, vec![]);
    let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#;
    assert_eq!(session_check(&mut s, c2s, cancel).1, vec![]);
    assert_eq!(session_check(&mut s, c2s, &call(2)).1, vec![]);
    for v in ["5", "1"] {
        assert_eq!(session_check(&mut s, s2c, &progress(v)).1, vec![], "{v}");
    }
    // 6. Integers compare exactly: 2^53 + 1 follows 2^53.
    let mut s = Session::new(v0618, 16);
    assert_eq!(session_check(&mut s, c2s, &call(1)).1, vec![]);
    for v in ["9007199254740992", "9007199254740993", "9007199254740993.5"] {
        assert_eq!(session_check(&mut s, s2c, &progress(v)).1, vec![], "{v}");
    }
    assert_eq!(
        session_check(&mut s, s2c, &progress("9007199254740993")).1,
        [Rule::ProgressNotIncreasing]
    );
    // 7. A huge token is cut in the message.
    let mut s = Session::new(v0618, 16);
    let big = "x".repeat(1 << 20);
    let frame = format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"{big}","progress":1}}}}"#
    );
    let env = crate::parse(frame.as_bytes()).unwrap();
    let mut out = Vec::new();
    s.check(s2c, &env, &mut out);
    assert_eq!(rules_of(&out), [Rule::UnknownProgressToken]);
    assert!(out[0].message.len() < 300, "{}", out[0].message.len());
}

/// Re-trial finding 4 (session 23), session 24: the members inside content blocks, resource
/// contents, tools, prompts, resources, capabilities, sampling content, completion refs and
/// elicitation schemas follow the SDK models. Each case of `tests/sdk_shapes/cases.json`
/// (written by `cases.py` there) says whether the Python SDK's model accepts it, read
/// strictly; `verify.py` checks those verdicts against the SDK itself (in `.ci/interop.sh`),
/// and this test holds mcpwire to them: a result matched to its request, a request's
/// params, or a whole message.
#[test]
fn sdk_shape_cases_agree_with_the_sdk_models() {
    let cases: Vec<serde_json::Value> =
        serde_json::from_str(include_str!("../../tests/sdk_shapes/cases.json")).unwrap();
    assert!(cases.len() >= 100, "{}", cases.len());
    let (mut valid, mut invalid) = (0, 0);
    for case in &cases {
        let profile: Profile = case["profile"].as_str().unwrap().parse().unwrap();
        let method = case["method"].as_str().unwrap();
        let json = serde_json::to_string(&case["json"]).unwrap();
        let rules: Vec<Rule> = match case["kind"].as_str().unwrap() {
            "result" => answered_rules(profile, method, &json)
                .into_iter()
                .map(|(r, _)| r)
                .collect(),
            kind => {
                let frame = if kind == "params" {
                    format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{json}}}"#)
                } else {
                    json.clone()
                };
                let dir = match method {
                    "sampling/createMessage" | "elicitation/create" => Direction::ServerToClient,
                    _ => Direction::ClientToServer,
                };
                let mut v = Validator::new(profile, dir);
                judge(&mut v, None, frame.as_bytes())
                    .iter()
                    .map(|x| x.rule)
                    .collect()
            }
        };
        let want_valid = case["valid"].as_bool().unwrap();
        if want_valid {
            valid += 1;
            assert_eq!(rules, [], "valid per the SDK, refused: {case}");
        } else {
            invalid += 1;
            // One finding, of the shape rule the part's kind calls for (a whole message: its
            // `rule`).
            let want = match case["kind"].as_str().unwrap() {
                "result" => Rule::ResultMemberType.name(),
                "params" => Rule::ParamType.name(),
                _ => case["rule"].as_str().unwrap(),
            };
            let got: Vec<&str> = rules.iter().map(|r| r.name()).collect();
            assert_eq!(got, [want], "invalid per the SDK: {case}");
        }
    }
    assert!(valid >= 20 && invalid >= 50, "{valid} {invalid}");
}

/// Trial, session 24 (F7): a case variant of a checked member inside a checked object (`Name`
/// beside `name` in a Tool) is reported as at the first level, at its opening quote.
#[test]
fn case_variants_inside_checked_objects() {
    const AT: usize = 33;
    let result = r#"{"tools":[{"name":"a","Name":"b","inputSchema":{"type":"object"}}]}"#;
    assert_eq!(
        answered_rules(Profile::V2025_06_18, "tools/list", result),
        [(Rule::CaseVariantKey, AT + result.find("\"Name").unwrap())]
    );
    // Inside a request's params (a completion ref): `case-variant-param`.
    let mut v = Validator::new(Profile::V2025_06_18, Direction::ClientToServer);
    let frame = r#"{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p","NAME":"q"},"argument":{"name":"a","value":"v"}}}"#;
    let got: Vec<(Rule, usize)> = judge(&mut v, None, frame.as_bytes())
        .iter()
        .map(|x| (x.rule, x.offset))
        .collect();
    assert_eq!(
        got,
        [(Rule::CaseVariantParam, frame.find("\"NAME").unwrap())]
    );
    // Only the members of the block's own type count: `Data` is no variant of a text block's
    // members (an image block's `data` is not read).
    let ok = r#"{"content":[{"type":"text","text":"a","Data":1,"Text2":2}]}"#;
    assert_eq!(answered_rules(Profile::V2025_06_18, "tools/call", ok), []);
    let variant = r#"{"content":[{"type":"text","text":"a","TEXT":"b"}]}"#;
    assert_eq!(
        answered_rules(Profile::V2025_06_18, "tools/call", variant),
        [(Rule::CaseVariantKey, AT + variant.find("\"TEXT").unwrap())]
    );
}

/// Trial, session 24 (reverse findings): the optional members of an embedded 2026
/// `sampling/createMessage` (and `completion/complete` context, nested `_meta`) are typed as
/// in a legacy top-level request, reported at the innermost value at fault.
#[test]
fn input_request_optional_members_typed() {
    let v26 = Profile::V2026_07_28;
    for (params, at) in [
        (
            r#"{"messages":[],"maxTokens":10,"includeContext":"bogus"}"#,
            "\"bogus",
        ),
        (
            r#"{"messages":[],"maxTokens":10,"modelPreferences":{"speedPriority":1.5}}"#,
            "1.5",
        ),
        (
            r#"{"messages":[{"role":"user","content":{"type":"text","text":"a","_meta":[]}}],"maxTokens":10}"#,
            "[]}",
        ),
    ] {
        let frame = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"input_required","inputRequests":{{"k":{{"method":"sampling/createMessage","params":{params}}}}}}}}}"#
        );
        let mut v = Validator::new(v26, Direction::ServerToClient);
        let got: Vec<(Rule, usize)> = judge(&mut v, None, frame.as_bytes())
            .iter()
            .map(|x| (x.rule, x.offset))
            .collect();
        assert_eq!(got, [(Rule::ParamType, frame.find(at).unwrap())], "{frame}");
    }
    let ok = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":10,"includeContext":"none","tools":[{"name":"t","inputSchema":{"type":"object"}}],"toolChoice":{"mode":"required"}}}}}}"#;
    let mut v = Validator::new(v26, Direction::ServerToClient);
    assert_eq!(judge(&mut v, None, ok.as_bytes()), []);
}
