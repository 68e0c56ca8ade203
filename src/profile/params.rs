//! Required `params` members per method (spec digest §5; 2026-07-28 `schema.json` `required`
//! lists of the `…Params` definitions; the legacy TS schemas for the members every revision
//! since 2024-11-05 requires).
//!
//! Off the envelope hot path: runs in the profile layer, over the `params` object the core
//! already validated, one pass over its members per checked request or notification.

use super::msg::{Kind, Msg};
use super::shapes::{
    ICONS, LIST_CHANGED_CAPABILITY, META, SAMPLING_CONTENT, SAMPLING_CONTENT_LEGACY,
};
use super::{Revision, Rule, Violation};

/// The members an object must have: each `required` member present (its first copy holding
/// its [`Want`]), each `optional` member that is present holding its [`Want`]. Other members
/// are free (the schemas set no `additionalProperties: false`).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Shape {
    /// What the object is, for messages (`"an Implementation object (name and version
    /// strings)"`).
    pub what: &'static str,
    pub required: &'static [(&'static str, Want)],
    pub optional: &'static [(&'static str, Want)],
}

/// Objects of several shapes, told apart by their members (`TextContent | ImageContent |
/// …`: each shape requires its own `type` value). A value holds the union when it is an object
/// with the members of at least one of the shapes.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Union {
    /// What the union is, for messages.
    pub what: &'static str,
    pub shapes: &'static [&'static Shape],
}

/// What a checked member must hold (of `params` here, of `result` in `profile::results`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Want {
    /// A JSON string.
    String,
    /// A JSON object.
    Object,
    /// A JSON array whose elements are all objects (`tools`, `content`, `messages` …).
    ObjectArray,
    /// `true` or `false`.
    Bool,
    /// A plain integer token (no fraction, no exponent: the strictness policy's integer
    /// form, as for ids).
    Integer,
    /// One of these strings.
    OneOf(&'static [&'static str]),
    /// An array of strings.
    StringArray,
    /// An object with the members of the shape.
    Shaped(&'static Shape),
    /// An array of objects, each with the members of the shape.
    ShapedArray(&'static Shape),
    /// An object with the members of one of the union's shapes (a content block: its `type`
    /// picks the members it needs).
    Union(&'static Union),
    /// An array whose elements all hold the inner want.
    ArrayOf(&'static Want),
    /// A value holding the inner want, or an array of such values (sampling content: one
    /// block, or since 2025-11-25 an array of blocks).
    OneOrArray(&'static Want),
    /// An object whose member values all hold the inner want (`experimental` capabilities:
    /// objects).
    MapOf(&'static Want),
    /// A number from 0 to 1 inclusive (`Annotations.priority`).
    UnitInterval,
    /// A string that starts with `file://` (`Root.uri`).
    FileUri,
    /// What an accepted elicitation returns per field: a string, number, boolean, `null`, or
    /// an array of strings (`ElicitResult.content` values).
    ElicitedValue,
    /// Any JSON number.
    Number,
    /// A string or a plain integer (`RequestId`, `ProgressToken`).
    StringOrInteger,
    /// An object whose member values are all strings (`prompts/get` `arguments`:
    /// `{ [key: string]: string }`).
    StringMap,
    /// A `LoggingLevel`: one of the eight RFC 5424 severity names.
    Level,
    /// Any value (present is enough).
    Any,
}

impl Want {
    pub(super) fn describe(self) -> std::borrow::Cow<'static, str> {
        let plain = match self {
            Want::OneOf(set) => return format!("one of {set:?}").into(),
            Want::Shaped(shape) => shape.what,
            Want::ShapedArray(shape) => {
                return format!("an array, each element {}", shape.what).into();
            }
            Want::Union(union) => union.what,
            Want::ArrayOf(inner) => {
                return format!("an array, each element {}", inner.describe()).into();
            }
            Want::OneOrArray(inner) => {
                return format!("{}, or an array of them", inner.describe()).into();
            }
            Want::MapOf(inner) => {
                return format!("an object, each member {}", inner.describe()).into();
            }
            Want::UnitInterval => "a number from 0 to 1",
            Want::FileUri => "a file:// URI string",
            Want::ElicitedValue => "a string, number, boolean, null or array of strings",
            Want::String => "a string",
            Want::Object => "an object",
            Want::ObjectArray => "an array of objects",
            Want::Bool => "a boolean",
            Want::Integer => "an integer",
            Want::StringArray => "an array of strings",
            Want::Number => "a number",
            Want::StringOrInteger => "a string or an integer",
            Want::StringMap => "an object of strings",
            Want::Level => "a logging level (\"debug\" … \"emergency\")",
            Want::Any => "a value",
        };
        plain.into()
    }
}

/// `LoggingLevel` ([TS] every revision; 2026 `schema.json` `LoggingLevel.enum`).
pub(super) const LEVELS: &[&str] = &[
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// Required members of methods whose requirement is the same in every revision since
/// 2024-11-05 that has the method ([TS-1105] … [TS-1125]; 2026 `schema.json`).
const EVERY_REVISION: &[(&str, &[(&str, Want)])] = &[
    ("tools/call", &[("name", Want::String)]),
    ("prompts/get", &[("name", Want::String)]),
    ("resources/read", &[("uri", Want::String)]),
    (
        "completion/complete",
        &[
            ("ref", Want::Union(&REFERENCE)),
            ("argument", Want::Shaped(&COMPLETE_ARGUMENT)),
        ],
    ),
    (
        "notifications/message",
        &[("level", Want::Level), ("data", Want::Any)],
    ),
    ("notifications/resources/updated", &[("uri", Want::String)]),
    // Tasks: core in 2025-11-25, the `io.modelcontextprotocol/tasks` extension in 2026-07-28.
    ("tasks/get", &[("taskId", Want::String)]),
    ("tasks/result", &[("taskId", Want::String)]),
    ("tasks/cancel", &[("taskId", Want::String)]),
];

/// `sampling/createMessage`: a legacy server request, and in 2026-07-28 an `inputRequests`
/// value ([TS] `CreateMessageRequestParams.required`, every revision that has it).
const SAMPLING: (&str, &[(&str, Want)]) = (
    "sampling/createMessage",
    &[
        ("messages", Want::ShapedArray(&SAMPLING_MESSAGE)),
        ("maxTokens", Want::Integer),
    ],
);
/// [`SAMPLING`] as a legacy server request: its messages hold legacy sampling content
/// ([`SAMPLING_CONTENT_LEGACY`]).
const SAMPLING_LEGACY: (&str, &[(&str, Want)]) = (
    "sampling/createMessage",
    &[
        ("messages", Want::ShapedArray(&SAMPLING_MESSAGE_LEGACY)),
        ("maxTokens", Want::Integer),
    ],
);

/// `Implementation` (`clientInfo`, `serverInfo`; every revision).
pub(super) const IMPLEMENTATION: Shape = Shape {
    what: "an Implementation object (name and version strings)",
    required: &[("name", Want::String), ("version", Want::String)],
    optional: &[
        ("title", Want::String),
        ("description", Want::String),
        ("websiteUrl", Want::String),
        ("icons", ICONS),
    ],
};
/// `ClientCapabilities` of a legacy `initialize` (2024-11-05 … 2025-11-25): the capabilities
/// it names are objects.
const CLIENT_CAPABILITIES: Shape = Shape {
    what: "a ClientCapabilities object (roots, sampling, elicitation, experimental, tasks: objects)",
    required: &[],
    optional: &[
        ("roots", Want::Shaped(&LIST_CHANGED_CAPABILITY)),
        ("sampling", Want::Shaped(&SAMPLING_CAPABILITY)),
        ("elicitation", Want::Shaped(&ELICITATION_CAPABILITY)),
        ("experimental", Want::MapOf(&Want::Object)),
        ("tasks", Want::Shaped(&TASKS_CAPABILITY)),
    ],
};
/// The client's `sampling` capability (2025-11-25 on: `context` and `tools` objects).
const SAMPLING_CAPABILITY: Shape = Shape {
    what: "a sampling capability object (context and tools: objects)",
    required: &[],
    optional: &[("context", Want::Object), ("tools", Want::Object)],
};
/// The client's `elicitation` capability (2025-11-25 on: `form` and `url` objects).
const ELICITATION_CAPABILITY: Shape = Shape {
    what: "an elicitation capability object (form and url: objects)",
    required: &[],
    optional: &[("form", Want::Object), ("url", Want::Object)],
};
/// A 2025-11-25 `tasks` capability (client or server): `list`, `cancel` and `requests`
/// objects.
pub(super) const TASKS_CAPABILITY: Shape = Shape {
    what: "a tasks capability object (list, cancel and requests: objects)",
    required: &[],
    optional: &[
        ("list", Want::Object),
        ("cancel", Want::Object),
        ("requests", Want::Object),
    ],
};
/// 2026-07-28 `ClientCapabilities` (`_meta["io.modelcontextprotocol/clientCapabilities"]`
/// of every request; `extensions` is judged with its identifiers, by the caller).
pub(super) const CLIENT_CAPABILITIES_2026: Shape = Shape {
    what: "a ClientCapabilities object (roots, sampling, elicitation: objects; experimental: \
           objects)",
    required: &[],
    optional: &[
        ("roots", Want::Object),
        ("sampling", Want::Shaped(&SAMPLING_CAPABILITY)),
        ("elicitation", Want::Shaped(&ELICITATION_CAPABILITY)),
        ("experimental", Want::MapOf(&Want::Object)),
    ],
};
/// `SamplingMessage`: a role and content (a sampling content block, or since 2025-11-25 an
/// array of them; the Python SDK client reads arrays in every legacy revision).
const SAMPLING_MESSAGE: Shape = Shape {
    what: SAMPLING_MESSAGE_WHAT,
    required: &[
        ("role", Want::OneOf(ROLES)),
        ("content", Want::OneOrArray(&Want::Union(&SAMPLING_CONTENT))),
    ],
    optional: &[META],
};
/// [`SAMPLING_MESSAGE`] in the legacy revisions.
const SAMPLING_MESSAGE_LEGACY: Shape = Shape {
    what: SAMPLING_MESSAGE_WHAT,
    required: &[
        ("role", Want::OneOf(ROLES)),
        (
            "content",
            Want::OneOrArray(&Want::Union(&SAMPLING_CONTENT_LEGACY)),
        ),
    ],
    optional: &[META],
};
const SAMPLING_MESSAGE_WHAT: &str = "a SamplingMessage object (role \"user\" or \"assistant\", \
                                     content a sampling content block or an array of them)";
/// `Role`.
pub(super) const ROLES: &[&str] = &["user", "assistant"];
/// `PromptReference | ResourceTemplateReference` (`ResourceReference` in 2024-11-05): a
/// prompt is named, a resource template has its URI.
const REFERENCE: Union = Union {
    what: "a reference object (type \"ref/prompt\" with a name string, or \"ref/resource\" \
           with a uri string)",
    shapes: &[&PROMPT_REFERENCE, &RESOURCE_REFERENCE],
};
const PROMPT_REFERENCE: Shape = Shape {
    what: "a PromptReference object",
    required: &[
        ("type", Want::OneOf(&["ref/prompt"])),
        ("name", Want::String),
    ],
    optional: &[("title", Want::String)],
};
const RESOURCE_REFERENCE: Shape = Shape {
    what: "a ResourceTemplateReference object",
    required: &[
        ("type", Want::OneOf(&["ref/resource"])),
        ("uri", Want::String),
    ],
    optional: &[],
};
/// `CompleteRequestParams.argument`.
const COMPLETE_ARGUMENT: Shape = Shape {
    what: "an argument object (name and value strings)",
    required: &[("name", Want::String), ("value", Want::String)],
    optional: &[],
};
/// 2026-07-28 `SubscriptionFilter` (`subscriptions/listen` `notifications`, and the
/// acknowledgement's).
const SUBSCRIPTION_FILTER: Shape = Shape {
    what: "a SubscriptionFilter object (toolsListChanged, promptsListChanged, \
           resourcesListChanged: booleans; resourceSubscriptions: strings)",
    required: &[],
    optional: &[
        ("toolsListChanged", Want::Bool),
        ("promptsListChanged", Want::Bool),
        ("resourcesListChanged", Want::Bool),
        ("resourceSubscriptions", Want::StringArray),
    ],
};
/// A form-mode elicitation's `requestedSchema`: an object schema with its `properties`
/// (flat primitive property schemas, spec digest §12; their insides are not checked here).
const REQUESTED_SCHEMA: Shape = Shape {
    what: "a requested schema object (type \"object\", properties an object, required strings)",
    required: &[
        ("type", Want::OneOf(&["object"])),
        ("properties", Want::Object),
    ],
    optional: &[("required", Want::StringArray)],
};
/// `elicitation/create`: a server request in 2025-06-18 and 2025-11-25, and in 2026-07-28 an
/// `inputRequests` value (form and URL modes alike need the message).
const ELICITATION: (&str, &[(&str, Want)]) = ("elicitation/create", &[("message", Want::String)]);

/// Legacy-only methods and members (2024-11-05 … 2025-11-25 TS schemas).
const LEGACY_ONLY: &[(&str, &[(&str, Want)])] = &[
    (
        "initialize",
        &[
            ("protocolVersion", Want::String),
            ("capabilities", Want::Shaped(&CLIENT_CAPABILITIES)),
            ("clientInfo", Want::Shaped(&IMPLEMENTATION)),
        ],
    ),
    ("resources/subscribe", &[("uri", Want::String)]),
    ("resources/unsubscribe", &[("uri", Want::String)]),
    ("logging/setLevel", &[("level", Want::Level)]),
    // `progressToken` is `string | number` in the legacy schemas, but the Python SDK types it
    // `str | int` in every revision and refuses `1.5` (mcp 2.3.0, checked in session 22), and
    // a request's `_meta.progressToken` is held to string or integer already: the
    // notification echoing it is held to the same (spec trial, session 22: `1.5` was refused
    // in the request and passed in the notification).
    (
        "notifications/progress",
        &[
            ("progressToken", Want::StringOrInteger),
            ("progress", Want::Number),
        ],
    ),
    SAMPLING_LEGACY,
    ELICITATION,
    (
        "notifications/elicitation/complete",
        &[("elicitationId", Want::String)],
    ),
];

/// The requests a 2026-07-28 `InputRequiredResult` embeds in `inputRequests` ([MRTR]; [TS]
/// `InputRequest`): the same params requirements as the legacy top-level requests of those
/// names. `roots/list` params are optional and require nothing.
const INPUT_REQUESTS: &[(&str, &[(&str, Want)])] = &[SAMPLING, ELICITATION];

/// 2026-07-28 only (`schema.json`: `ProgressToken` and `RequestId` are `string | integer`;
/// `notifications/cancelled` `requestId` is required again; subscriptions are new).
const V2026_ONLY: &[(&str, &[(&str, Want)])] = &[
    (
        "notifications/progress",
        &[
            ("progressToken", Want::StringOrInteger),
            ("progress", Want::Number),
        ],
    ),
    (
        "notifications/cancelled",
        &[("requestId", Want::StringOrInteger)],
    ),
    (
        "subscriptions/listen",
        &[("notifications", Want::Shaped(&SUBSCRIPTION_FILTER))],
    ),
    (
        "notifications/subscriptions/acknowledged",
        &[("notifications", Want::Shaped(&SUBSCRIPTION_FILTER))],
    ),
];

/// Optional members type-checked when present, in every revision ([TS-1105] … 2026
/// `schema.json`: `PaginatedRequestParams.cursor`, `CallToolRequestParams.arguments`,
/// `GetPromptRequestParams.arguments`, `ProgressNotificationParams.total` and `message`; the
/// last is new in 2025-03-26, and the Python SDK refuses a non-string one whatever the
/// revision). Spec trial, session 22: `"arguments":[1]`, `"cursor":5` and `"total":"x"` passed.
const OPTIONAL: &[(&str, &[(&str, Want)])] = &[
    ("tools/call", &[("arguments", Want::Object)]),
    ("prompts/get", &[("arguments", Want::StringMap)]),
    ("tools/list", &[("cursor", Want::String)]),
    ("prompts/list", &[("cursor", Want::String)]),
    ("resources/list", &[("cursor", Want::String)]),
    ("resources/templates/list", &[("cursor", Want::String)]),
    (
        "notifications/progress",
        &[("total", Want::Number), ("message", Want::String)],
    ),
    ("notifications/cancelled", &[("reason", Want::String)]),
    ("notifications/message", &[("logger", Want::String)]),
    (
        "completion/complete",
        &[("context", Want::Shaped(&COMPLETE_CONTEXT))],
    ),
    SAMPLING_OPTIONAL,
];

/// The optional `sampling/createMessage` members the SDK models type (every revision that
/// has sampling; also inside 2026-07-28 `inputRequests`).
const SAMPLING_OPTIONAL: (&str, &[(&str, Want)]) = (
    "sampling/createMessage",
    &[
        ("systemPrompt", Want::String),
        (
            "includeContext",
            Want::OneOf(&["none", "thisServer", "allServers"]),
        ),
        ("temperature", Want::Number),
        ("stopSequences", Want::StringArray),
        ("metadata", Want::Object),
        ("modelPreferences", Want::Shaped(&MODEL_PREFERENCES)),
        ("tools", Want::ShapedArray(&super::results::TOOL)),
        ("toolChoice", Want::Shaped(&TOOL_CHOICE)),
    ],
);
/// `ModelPreferences`: priorities from 0 to 1, hints with optional names.
const MODEL_PREFERENCES: Shape = Shape {
    what: "a ModelPreferences object (priorities numbers from 0 to 1, hints objects)",
    required: &[],
    optional: &[
        ("hints", Want::ShapedArray(&MODEL_HINT)),
        ("costPriority", Want::UnitInterval),
        ("speedPriority", Want::UnitInterval),
        ("intelligencePriority", Want::UnitInterval),
    ],
};
const MODEL_HINT: Shape = Shape {
    what: "a ModelHint object (name a string)",
    required: &[],
    optional: &[("name", Want::String)],
};
/// 2025-11-25 and 2026-07-28 `ToolChoice`.
const TOOL_CHOICE: Shape = Shape {
    what: "a ToolChoice object (mode \"auto\", \"required\" or \"none\")",
    required: &[],
    optional: &[("mode", Want::OneOf(&["auto", "required", "none"]))],
};
/// `CompleteRequestParams.context`: the prompt or template arguments already resolved.
const COMPLETE_CONTEXT: Shape = Shape {
    what: "a completion context object (arguments an object of strings)",
    required: &[],
    optional: &[("arguments", Want::StringMap)],
};

/// Optional in the legacy revisions, required in 2026-07-28 (and checked there by
/// [`V2026_ONLY`]): `notifications/cancelled` `requestId` (2025-11-25 made it optional for
/// task cancellation; the Python SDK reads every legacy revision so).
const LEGACY_OPTIONAL: &[(&str, &[(&str, Want)])] = &[(
    "notifications/cancelled",
    &[("requestId", Want::StringOrInteger)],
)];

/// The MRTR retry members of `InputResponseRequestParams`, which `CallToolRequestParams`,
/// `GetPromptRequestParams` and `ReadResourceRequestParams` extend (spec digest §3.1; 2026
/// `schema.json`: `requestState` a string, `inputResponses` an `InputResponses` object, each
/// value an [`InputResponse`](super::results::INPUT_RESPONSE)).
/// Optional: checked only when present, 2026-07-28 only.
const V2026_OPTIONAL: &[(&str, &[(&str, Want)])] = &[
    ("tools/call", MRTR_RETRY),
    ("prompts/get", MRTR_RETRY),
    ("resources/read", MRTR_RETRY),
];
const MRTR_RETRY: &[(&str, Want)] = &[
    ("requestState", Want::String),
    (
        "inputResponses",
        Want::MapOf(&Want::Union(&super::results::INPUT_RESPONSE)),
    ),
];

/// The required members of `method` under `rev` (`None`: the legacy union, or an era not yet
/// known), or `None` when the method has none that are checked here. A legacy revision
/// requires nothing of a method it does not define (spec trial, session 22: `tasks/get`
/// without `taskId` was `missing-param` under 2024-11-05, whose method set is open and has
/// no tasks, and `elicitation/create` likewise before 2025-06-18).
fn required(rev: Option<Revision>, method: &str) -> Option<&'static [(&'static str, Want)]> {
    members_by_era(rev, method, EVERY_REVISION, LEGACY_ONLY, V2026_ONLY)
}

/// A method's table entry for `rev` (`None`: the legacy union): from `every` or, by era,
/// `legacy_only` or `v2026_only`; `None` for a method a legacy revision does not define
/// (its method set is open: the name may be a custom method's). Shared by the `params` and
/// `result` tables (`profile::results`).
pub(super) fn members_by_era(
    rev: Option<Revision>,
    method: &str,
    every: &'static [(&'static str, &'static [(&'static str, Want)])],
    legacy_only: &'static [(&'static str, &'static [(&'static str, Want)])],
    v2026_only: &'static [(&'static str, &'static [(&'static str, Want)])],
) -> Option<&'static [(&'static str, Want)]> {
    let era = if rev == Some(Revision::V2026_07_28) {
        v2026_only
    } else {
        if rev.is_some() && !super::methods::defined_by_legacy(rev, method) {
            return None;
        }
        legacy_only
    };
    every
        .iter()
        .chain(era)
        .find(|(m, _)| *m == method)
        .map(|(_, members)| *members)
}

/// Longest list of required members of one method above.
const MAX_REQUIRED: usize = 3;

/// True when no method of `table` lists more than [`MAX_REQUIRED`] members.
const fn fits(table: &[(&str, &[(&str, Want)])]) -> bool {
    let mut i = 0;
    while i < table.len() {
        if table[i].1.len() > MAX_REQUIRED {
            return false;
        }
        i += 1;
    }
    true
}

// `check` keeps its findings in arrays of `MAX_REQUIRED`: a longer entry fails the build
// instead of indexing out of bounds at run time.
const _: () =
    assert!(fits(EVERY_REVISION) && fits(LEGACY_ONLY) && fits(V2026_ONLY) && fits(INPUT_REQUESTS));

/// Checks the required `params` members of a request or notification (`m.method` set) under
/// `rev`: a missing member is [`Rule::MissingParam`] (at `params`, or at the method when
/// `params` is absent), a member of the wrong JSON type [`Rule::ParamType`] (at its value),
/// and a checked member written twice (keys compared after unescaping) the core's
/// `duplicate-params-key` (at the second key's opening quote): a strict backend rejects the
/// message, a lenient one keeps either copy. A key equal to a checked member only under case
/// folding (`"Progress"`, `"progreſſ"`) is `case-variant-param` (at its opening quote). All
/// are -32602 (Invalid params).
///
/// The optional members of [`OPTIONAL`] (and under 2026-07-28 of [`V2026_OPTIONAL`]) are
/// type-checked when present (same rule, same offset; their absence is not judged). A legacy
/// `notifications/cancelled` without `params` is [`Rule::MissingParam`] at its method.
pub(super) fn check(m: &Msg<'_>, rev: Option<Revision>, out: &mut Vec<Violation>) {
    let Some(method) = m.method.as_deref() else {
        return;
    };
    if let Some(wanted) = required(rev, method) {
        let at = m.params.or(m.method_span).map_or(0, |s| s.start());
        check_members(m, method, wanted, m.params, at, out);
        if method == "elicitation/create" {
            check_elicitation_mode(m, rev, m.params, at, out);
        }
    }
    let Some(params) = m.params else {
        // The legacy revisions require no member of `notifications/cancelled` params (the
        // Python SDK reads `requestId` as optional in each, after 2025-11-25), but they do
        // require the object: the SDKs refuse the notification without it (re-trial, session
        // 23). Under 2026-07-28 the missing `requestId` is reported above.
        if method == "notifications/cancelled" && rev != Some(Revision::V2026_07_28) {
            out.push(Violation::new(
                Rule::MissingParam,
                m.method_span.map_or(0, |s| s.start()),
                "\"notifications/cancelled\" lacks its params object",
            ));
        }
        return;
    };
    let modern: &[(&str, &[(&str, Want)])] = if rev == Some(Revision::V2026_07_28) {
        V2026_OPTIONAL
    } else {
        LEGACY_OPTIONAL
    };
    check_optional(m, method, OPTIONAL.iter().chain(modern), params, out);
}

/// Type-checks the optional members `tables` list for `method` that the object `params`
/// holds ([`Rule::ParamType`] at the value; absence is not judged). Shared by [`check`] and
/// [`check_input_request`].
fn check_optional<'t>(
    m: &Msg<'_>,
    method: &str,
    tables: impl Iterator<Item = &'t (&'static str, &'static [(&'static str, Want)])>,
    params: crate::Span,
    out: &mut Vec<Violation>,
) {
    for (_, optional) in tables.filter(|(n, _)| *n == method) {
        for &(key, want) in *optional {
            if let Some(v) = m.member(params, key) {
                check_type(m, method, key, want, v, out);
            }
        }
    }
}

/// Checks the `params` of a request embedded in a 2026-07-28 `inputRequests` value (`{method,
/// params}`, no `jsonrpc`/`id`) as [`check`] checks a top-level request of that method:
/// `params` is the embedded `params` object (`None` when absent), `method_at` the offset of
/// the embedded `method` value, where a member of absent `params` is reported missing. A
/// method with no requirements (`roots/list`) or outside [`INPUT_REQUESTS`] checks nothing.
pub(super) fn check_input_request(
    m: &Msg<'_>,
    method: &str,
    params: Option<crate::Span>,
    method_at: usize,
    out: &mut Vec<Violation>,
) {
    let Some(&(_, wanted)) = INPUT_REQUESTS.iter().find(|(n, _)| *n == method) else {
        return;
    };
    let at = params.map_or(method_at, |s| s.start());
    check_members(m, method, wanted, params, at, out);
    if method == "elicitation/create" {
        check_elicitation_mode(m, Some(Revision::V2026_07_28), params, at, out);
    }
    if let Some(params) = params {
        check_optional(m, method, OPTIONAL.iter(), params, out);
    }
}

/// The members `elicitation/create` needs besides `message`, by `mode`: `"form"` (the
/// default, and the only kind 2025-06-18 defines) needs `requestedSchema`, `"url"` needs
/// `url`, and before 2026-07-28 `elicitationId`. A `mode` of
/// another value is [`Rule::ParamType`] at the value; missing members as in [`check`].
fn check_elicitation_mode(
    m: &Msg<'_>,
    rev: Option<Revision>,
    params: Option<crate::Span>,
    at: usize,
    out: &mut Vec<Violation>,
) {
    const FORM: &[(&str, Want)] = &[("requestedSchema", Want::Shaped(&REQUESTED_SCHEMA))];
    const URL_2025: &[(&str, Want)] = &[("url", Want::String), ("elicitationId", Want::String)];
    const URL_2026: &[(&str, Want)] = &[("url", Want::String)];
    // 2025-06-18 defines no `mode`, but its peers send the 2025-11-25 URL mode in such
    // sessions (the everything server's capture, which the Python SDK client accepts), so
    // `mode` is read in every revision.
    let mode = params.and_then(|p| m.member(p, "mode"));
    let wanted = match mode.map(|s| (s, m.str_at(s))) {
        None => FORM,
        Some((_, Some(v))) if v == "form" => FORM,
        Some((_, Some(v))) if v == "url" && rev == Some(Revision::V2026_07_28) => URL_2026,
        Some((_, Some(v))) if v == "url" => URL_2025,
        Some((s, _)) => {
            out.push(Violation::new(
                Rule::ParamType,
                s.start(),
                "\"elicitation/create\" params member \"mode\" is not \"form\" or \"url\"",
            ));
            return;
        }
    };
    check_members(m, "elicitation/create", wanted, params, at, out);
}

/// The shared body of [`check`] and [`check_input_request`]: the `wanted` members of the
/// object `params` (the message's own `params` members come from the message's cache),
/// missing ones reported at `at`.
fn check_members(
    m: &Msg<'_>,
    method: &str,
    wanted: &[(&str, Want)],
    params: Option<crate::Span>,
    at: usize,
    out: &mut Vec<Violation>,
) {
    let mut found: [Option<crate::Span>; MAX_REQUIRED] = [None; MAX_REQUIRED];
    let mut repeated = [false; MAX_REQUIRED];
    let mut see = |member: &crate::envelope::Member<'_>| {
        let Some(i) = wanted.iter().position(|(k, _)| *k == member.key) else {
            // `"Progress"` beside (or instead of) `progress`: a case-insensitive backend
            // reads it as the member (session-15 trial).
            if wanted
                .iter()
                .any(|(k, _)| super::msg::is_case_variant(&member.key, k))
            {
                m.note_case_variant(member.key_span);
            }
            return;
        };
        if found[i].is_some() {
            // One finding per repeated member, however often it repeats.
            if !repeated[i] {
                repeated[i] = true;
                m.note_repeated(member.key_span);
            }
        } else {
            found[i] = Some(member.value);
        }
    };
    if let Some(params) = params {
        // The message's own `params` from its cache; an embedded object is walked here.
        match m.cached_members(params) {
            Some(all) => all.iter().for_each(&mut see),
            None => crate::envelope::members(m.frame, params).for_each(|mb| see(&mb)),
        }
    }
    for (&(key, want), value) in wanted.iter().zip(found) {
        let Some(v) = value else {
            out.push(Violation::new(
                Rule::MissingParam,
                at,
                format!("{method:?} params lack the required member {key:?}"),
            ));
            continue;
        };
        check_type(m, method, key, want, v, out);
    }
}

/// True when the value at `v` holds `want`. Repeated and case-variant keys of the checked
/// objects inside are noted on `m` ([`has_shape`]).
pub(super) fn holds(m: &Msg<'_>, want: Want, v: crate::Span) -> bool {
    holds_noting(m, want, v, true)
}

/// [`holds`], noting repeated and case-variant keys only when `note` is set: a union's
/// shapes are first tried quietly, so that only the shape the object has speaks (`"Data"`
/// in a text block is no variant of an image block's `data`).
fn holds_noting(m: &Msg<'_>, want: Want, v: crate::Span, note: bool) -> bool {
    let holds = |want, v| holds_noting(m, want, v, note);
    let has_shape = |shape, v| has_shape(m, shape, v, note);
    let kind = m.kind_at(v);
    match want {
        Want::String => kind == Some(Kind::String),
        Want::Object => kind == Some(Kind::Object),
        Want::ObjectArray => {
            kind == Some(Kind::Array)
                && crate::envelope::Elements::new(m.frame, v)
                    .all(|e| m.kind_at(e) == Some(Kind::Object))
        }
        Want::Bool => kind == Some(Kind::Bool),
        Want::Integer => m.is_integer(v),
        Want::OneOf(set) => m.str_at(v).is_some_and(|s| set.contains(&s.as_ref())),
        Want::StringArray => {
            kind == Some(Kind::Array)
                && crate::envelope::Elements::new(m.frame, v)
                    .all(|e| m.kind_at(e) == Some(Kind::String))
        }
        Want::Shaped(shape) => kind == Some(Kind::Object) && has_shape(shape, v),
        Want::ShapedArray(shape) => {
            kind == Some(Kind::Array)
                && crate::envelope::Elements::new(m.frame, v)
                    .all(|e| m.kind_at(e) == Some(Kind::Object) && has_shape(shape, e))
        }
        Want::Union(union) => {
            kind == Some(Kind::Object)
                && union
                    .shapes
                    .iter()
                    .find(|s| self::has_shape(m, s, v, false))
                    .is_some_and(|s| has_shape(s, v))
        }
        Want::ArrayOf(inner) => {
            kind == Some(Kind::Array)
                && crate::envelope::Elements::new(m.frame, v).all(|e| holds(*inner, e))
        }
        Want::OneOrArray(inner) => {
            if kind == Some(Kind::Array) {
                crate::envelope::Elements::new(m.frame, v).all(|e| holds(*inner, e))
            } else {
                holds(*inner, v)
            }
        }
        Want::MapOf(inner) => {
            kind == Some(Kind::Object)
                && crate::envelope::members(m.frame, v).all(|mb| holds(*inner, mb.value))
        }
        Want::UnitInterval => {
            kind == Some(Kind::Number)
                && std::str::from_utf8(v.slice(m.frame))
                    .ok()
                    .and_then(|t| t.parse::<f64>().ok())
                    .is_some_and(|x| (0.0..=1.0).contains(&x))
        }
        Want::FileUri => m.str_at(v).is_some_and(|s| s.starts_with("file://")),
        Want::ElicitedValue => match kind {
            Some(Kind::String | Kind::Number | Kind::Bool | Kind::Null) => true,
            _ => holds(Want::StringArray, v),
        },
        Want::Number => kind == Some(Kind::Number),
        Want::StringOrInteger => kind == Some(Kind::String) || m.is_integer(v),
        Want::StringMap => {
            kind == Some(Kind::Object)
                && crate::envelope::members(m.frame, v)
                    .all(|mb| m.kind_at(mb.value) == Some(Kind::String))
        }
        Want::Level => m.str_at(v).is_some_and(|l| LEVELS.contains(&l.as_ref())),
        Want::Any => true,
    }
}

/// True when the object at `obj` has the members of `shape` (one pass over its members; the
/// tables nest a few levels at most, so the recursion through [`holds`] is bounded by them,
/// not by the data).
///
/// A checked member written twice (keys compared after unescaping: `"n\u0061me"` is `name`)
/// is noted as repeated ([`Msg::note_repeated`]: `duplicate-params-key` inside `params`,
/// `duplicate-key` elsewhere): a first-wins and a last-wins reader see different values
/// (re-trial, session 23: `{"name":"a","name":1,…}` tools passed). A key equal to a checked
/// member only under case folding is noted as a case variant ([`Msg::note_case_variant`]).
/// Nothing is noted unless `note` is set.
fn has_shape(m: &Msg<'_>, shape: &Shape, obj: crate::Span, note: bool) -> bool {
    debug_assert!(shape.required.len() <= 32 && shape.optional.len() <= 32);
    let (mut found, mut seen_optional) = (0u32, 0u32);
    let mut ok = true;
    for mb in crate::envelope::members(m.frame, obj) {
        if let Some(i) = shape.required.iter().position(|(k, _)| *k == mb.key) {
            if found & (1 << i) != 0 {
                if note {
                    m.note_repeated(mb.key_span);
                }
            } else {
                found |= 1 << i;
                ok &= holds_noting(m, shape.required[i].1, mb.value, note);
            }
        } else if let Some(i) = shape.optional.iter().position(|(k, _)| *k == mb.key) {
            if seen_optional & (1 << i) != 0 && note {
                m.note_repeated(mb.key_span);
            }
            seen_optional |= 1 << i;
            ok &= holds_noting(m, shape.optional[i].1, mb.value, note);
        } else if note
            && shape
                .required
                .iter()
                .chain(shape.optional)
                .any(|(k, _)| super::msg::is_case_variant(&mb.key, k))
        {
            // `"Name"` in a Tool: a case-insensitive reader takes it for the member, as at
            // the first level (trial, session 24).
            m.note_case_variant(mb.key_span);
        }
    }
    ok && found.count_ones() as usize == shape.required.len()
}

/// Pushes [`Rule::ParamType`] (at the value) when the `params` member `key` of `method` at
/// `v` does not hold `want`.
fn check_type(
    m: &Msg<'_>,
    method: &str,
    key: &str,
    want: Want,
    v: crate::Span,
    out: &mut Vec<Violation>,
) {
    type_check(m, Rule::ParamType, method, key, want, v, out);
}

/// Pushes `rule` (at the value) when the member `key` of `method`'s `params` (`rule`
/// [`Rule::ParamType`]) or `result` ([`Rule::ResultMemberType`]) at `v` does not hold `want`.
pub(super) fn type_check(
    m: &Msg<'_>,
    rule: Rule,
    method: &str,
    key: &str,
    want: Want,
    v: crate::Span,
    out: &mut Vec<Violation>,
) {
    if holds(m, want, v) {
        return;
    }
    let part = if rule == Rule::ParamType {
        "params"
    } else {
        "result"
    };
    let mut path = format!("{key:?}");
    let fault = locate(m, want, v, &mut path);
    out.push(Violation::new(
        rule,
        fault.at,
        format!("{method:?} {part} member {path} {}", fault.what),
    ));
}

/// Where a value that does not hold its [`Want`] goes wrong, found by [`locate`]: the byte
/// offset of the innermost value (or object) at fault, and what is wrong there.
struct Fault {
    at: usize,
    what: String,
}

/// Finds the innermost fault of the value at `v`, which does not hold `want` (checked by the
/// caller): descends into the members and elements the tables check, extending `path` with
/// `.key` and `[i]` on the way (`"content"[2].mimeType`). A missing member is reported at
/// the object that lacks it; a union object whose `type` names none of its shapes at that
/// value. Runs only on a value already refused, so its extra walk costs nothing on valid
/// traffic; notes nothing (the checks that refused the value have noted what they saw).
fn locate(m: &Msg<'_>, want: Want, v: crate::Span, path: &mut String) -> Fault {
    let quiet = |want, v| holds_noting(m, want, v, false);
    let leaf = || Fault {
        at: v.start(),
        what: format!("is not {}", want.describe()),
    };
    let kind = m.kind_at(v);
    // The first element that does not hold `inner`, with its index.
    let bad_element = |inner: Want| {
        crate::envelope::Elements::new(m.frame, v)
            .enumerate()
            .find(|&(_, e)| !quiet(inner, e))
    };
    match want {
        Want::Shaped(shape) if kind == Some(Kind::Object) => {
            locate_in_shape(m, shape, v, path).unwrap_or_else(leaf)
        }
        Want::ShapedArray(shape) if kind == Some(Kind::Array) => {
            match bad_element(Want::Shaped(shape)) {
                Some((i, e)) => {
                    path.push_str(&format!("[{i}]"));
                    locate(m, Want::Shaped(shape), e, path)
                }
                None => leaf(),
            }
        }
        Want::ArrayOf(inner) | Want::OneOrArray(inner) if kind == Some(Kind::Array) => {
            match bad_element(*inner) {
                Some((i, e)) => {
                    path.push_str(&format!("[{i}]"));
                    locate(m, *inner, e, path)
                }
                None => leaf(),
            }
        }
        Want::OneOrArray(inner) => locate(m, *inner, v, path),
        Want::MapOf(inner) if kind == Some(Kind::Object) => {
            match crate::envelope::members(m.frame, v).find(|mb| !quiet(*inner, mb.value)) {
                Some(mb) => {
                    // The key is the sender's text: cut, as every echoed token is.
                    path.push_str(&format!(".{}", super::validate::cut(mb.key.as_bytes())));
                    locate(m, *inner, mb.value, path)
                }
                None => leaf(),
            }
        }
        Want::Union(union) if kind == Some(Kind::Object) => {
            // The shape whose `type` the object names (a content block's shapes each require
            // their own `type` value first), else (resource contents have no `type`) the
            // first whose required members are all there: the fault is inside it.
            let tag = m.member_quietly(v, "type");
            let named = tag.and_then(|t| m.str_at(t)).and_then(|t| {
                union.shapes.iter().find(|s| {
                    matches!(s.required.first(), Some(("type", Want::OneOf(set))) if set.contains(&t.as_ref()))
                })
            });
            let tagged = union
                .shapes
                .iter()
                .any(|s| matches!(s.required.first(), Some(("type", _))));
            let named = named.or_else(|| {
                (!tagged)
                    .then(|| {
                        union.shapes.iter().find(|s| {
                            s.required
                                .iter()
                                .all(|(k, _)| m.member_quietly(v, k).is_some())
                        })
                    })
                    .flatten()
            });
            match (named, tag.filter(|_| tagged)) {
                (Some(shape), _) => locate_in_shape(m, shape, v, path).unwrap_or_else(leaf),
                (None, Some(t)) => {
                    path.push_str(".type");
                    Fault {
                        at: t.start(),
                        what: format!("names no member of the union: {}", union.what),
                    }
                }
                (None, None) => leaf(),
            }
        }
        _ => leaf(),
    }
}

/// [`locate`] inside an object that should have `shape`: the first missing required member
/// (at the object) or the first member whose value does not hold its want (inside it);
/// `None` when neither is found (the object has the shape).
fn locate_in_shape(
    m: &Msg<'_>,
    shape: &Shape,
    obj: crate::Span,
    path: &mut String,
) -> Option<Fault> {
    let mut found = 0u32;
    for mb in crate::envelope::members(m.frame, obj) {
        let checked = match shape.required.iter().position(|(k, _)| *k == mb.key) {
            Some(i) if found & (1 << i) != 0 => continue,
            Some(i) => {
                found |= 1 << i;
                shape.required[i].1
            }
            None => match shape.optional.iter().find(|(k, _)| *k == mb.key) {
                Some(&(_, want)) => want,
                None => continue,
            },
        };
        if !holds_noting(m, checked, mb.value, false) {
            path.push_str(&format!(".{}", super::validate::cut(mb.key.as_bytes())));
            return Some(locate(m, checked, mb.value, path));
        }
    }
    let (missing, _) = shape
        .required
        .iter()
        .enumerate()
        .find(|&(i, _)| found & (1 << i) == 0)
        .map(|(_, kv)| *kv)?;
    Some(Fault {
        at: obj.start(),
        what: format!("lacks {missing:?} ({})", shape.what),
    })
}
