//! Required `result` members per answered method (spec digest §5; the `…Result` types of the
//! TS schemas, 2024-11-05 … 2025-11-25, and 2026 `schema.json` `required` lists).
//!
//! A result is judged only when the tracker matched it to its request, so that the answered
//! method is known ([`super::Session`]): a result alone does not say what it answers. The
//! official SDK clients validate a result against the type of the request they sent (the
//! Python SDK's pydantic models, the TypeScript SDK's zod schemas) and fail the call when a
//! required member is missing or of the wrong type, so a gateway that passes such a result
//! breaks its client (differential trial, session 23: `{"tools":"x"}` answering `tools/list`
//! passed every profile).
//!
//! Off the envelope hot path: one pass over the `result` members the message caches.

use super::msg::Msg;
use super::params::{self, IMPLEMENTATION, ROLES, Shape, Want, members_by_era};
use super::shapes::{
    ANNOTATIONS, CONTENT_BLOCK, ICONS, LIST_CHANGED_CAPABILITY, META, RESOURCE_CONTENTS,
    SAMPLING_CONTENT, SAMPLING_CONTENT_LEGACY,
};
use super::{Revision, Rule, Violation};

/// `Tool` under 2026-07-28: `outputSchema` may be any JSON Schema object (spec digest §12).
pub(super) const TOOL: Shape = Shape {
    what: "a Tool object (name string, inputSchema object with type \"object\", and typed \
           optional members)",
    required: &[
        ("name", Want::String),
        ("inputSchema", Want::Shaped(&INPUT_SCHEMA)),
    ],
    optional: &[
        META,
        ("title", Want::String),
        ("description", Want::String),
        ("annotations", Want::Shaped(&TOOL_ANNOTATIONS)),
        ("outputSchema", Want::Shaped(&OUTPUT_SCHEMA)),
        ("icons", ICONS),
    ],
};
/// `Tool` in the legacy revisions: `outputSchema` is an object schema like `inputSchema`
/// (`type` `"object"`), and 2025-11-25 adds `execution`.
const TOOL_LEGACY: Shape = Shape {
    what: "a Tool object (name string, inputSchema and outputSchema objects with type \
           \"object\", and typed optional members)",
    required: &[
        ("name", Want::String),
        ("inputSchema", Want::Shaped(&INPUT_SCHEMA_LEGACY)),
    ],
    optional: &[
        META,
        ("title", Want::String),
        ("description", Want::String),
        ("annotations", Want::Shaped(&TOOL_ANNOTATIONS)),
        ("outputSchema", Want::Shaped(&INPUT_SCHEMA_LEGACY)),
        ("icons", ICONS),
        ("execution", Want::Shaped(&TOOL_EXECUTION)),
    ],
};
/// `Tool.inputSchema`: a JSON Schema whose `type` is `"object"` (every revision; the SDKs'
/// models require the member).
const INPUT_SCHEMA: Shape = Shape {
    what: "an input schema object with type \"object\" ($schema a string)",
    required: &[("type", Want::OneOf(&["object"]))],
    optional: &[SCHEMA_DIALECT],
};
/// `Tool.outputSchema` under 2026-07-28: any JSON Schema object, its `$schema` a string.
const OUTPUT_SCHEMA: Shape = Shape {
    what: "an output schema object ($schema a string)",
    required: &[],
    optional: &[SCHEMA_DIALECT],
};
/// A schema's `$schema` dialect URI: a string (the SDKs' models of 2025-11-25 and
/// 2026-07-28 refuse any other value).
const SCHEMA_DIALECT: (&str, Want) = ("$schema", Want::String);
/// The legacy revisions' `inputSchema` / `outputSchema`: `properties` an object of objects,
/// `required` an array of strings, `$schema` a string (2025-11-25 `schema.ts`; the SDK reads
/// every legacy revision with those models).
const INPUT_SCHEMA_LEGACY: Shape = Shape {
    what: "a schema object with type \"object\" (properties an object of objects, required \
           strings, $schema a string)",
    required: &[("type", Want::OneOf(&["object"]))],
    optional: &[
        ("properties", Want::MapOf(&Want::Object)),
        ("required", Want::StringArray),
        SCHEMA_DIALECT,
    ],
};
/// `ToolAnnotations`.
const TOOL_ANNOTATIONS: Shape = Shape {
    what: "a ToolAnnotations object (title a string, the hints booleans)",
    required: &[],
    optional: &[
        ("title", Want::String),
        ("readOnlyHint", Want::Bool),
        ("destructiveHint", Want::Bool),
        ("idempotentHint", Want::Bool),
        ("openWorldHint", Want::Bool),
    ],
};
/// 2025-11-25 `ToolExecution`.
const TOOL_EXECUTION: Shape = Shape {
    what: "a ToolExecution object (taskSupport \"forbidden\", \"optional\" or \"required\")",
    required: &[],
    optional: &[(
        "taskSupport",
        Want::OneOf(&["forbidden", "optional", "required"]),
    )],
};
/// `Prompt`.
const PROMPT: Shape = Shape {
    what: "a Prompt object (name string, and typed optional members)",
    required: &[("name", Want::String)],
    optional: &[
        META,
        ("title", Want::String),
        ("description", Want::String),
        ("arguments", Want::ShapedArray(&PROMPT_ARGUMENT)),
        ("icons", ICONS),
    ],
};
/// `PromptArgument`.
const PROMPT_ARGUMENT: Shape = Shape {
    what: "a PromptArgument object (name string, required a boolean)",
    required: &[("name", Want::String)],
    optional: &[
        ("title", Want::String),
        ("description", Want::String),
        ("required", Want::Bool),
    ],
};
/// `Resource`.
const RESOURCE: Shape = Shape {
    what: "a Resource object (uri and name strings, and typed optional members)",
    required: &[("uri", Want::String), ("name", Want::String)],
    optional: &[
        META,
        ("title", Want::String),
        ("description", Want::String),
        ("mimeType", Want::String),
        ("size", Want::Integer),
        ("annotations", Want::Shaped(&ANNOTATIONS)),
        ("icons", ICONS),
    ],
};
/// `ResourceTemplate`.
const RESOURCE_TEMPLATE: Shape = Shape {
    what: "a ResourceTemplate object (uriTemplate and name strings, and typed optional members)",
    required: &[("uriTemplate", Want::String), ("name", Want::String)],
    optional: &[
        META,
        ("title", Want::String),
        ("description", Want::String),
        ("mimeType", Want::String),
        ("annotations", Want::Shaped(&ANNOTATIONS)),
        ("icons", ICONS),
    ],
};
/// `PromptMessage`.
const PROMPT_MESSAGE: Shape = Shape {
    what: "a PromptMessage object (role \"user\" or \"assistant\", content a content block)",
    required: &[
        ("role", Want::OneOf(ROLES)),
        ("content", Want::Union(&CONTENT_BLOCK)),
    ],
    optional: &[],
};
/// `Root`: its `uri` "must start with file://" (every revision's schema; the Python SDK
/// client refuses another scheme).
const ROOT: Shape = Shape {
    what: "a Root object (uri a file:// URI string)",
    required: &[("uri", Want::FileUri)],
    optional: &[META, ("name", Want::String)],
};
/// `CompleteResult.completion`.
const COMPLETION: Shape = Shape {
    what: "a completion object (values: strings; total an integer, hasMore a boolean)",
    required: &[("values", Want::StringArray)],
    optional: &[("total", Want::Integer), ("hasMore", Want::Bool)],
};
/// `ServerCapabilities`: the capabilities it names are objects (`extensions` is judged with
/// its identifiers, by the caller).
const SERVER_CAPABILITIES: Shape = Shape {
    what: "a ServerCapabilities object (the capabilities it names are objects)",
    required: &[],
    optional: &[
        ("completions", Want::Object),
        ("experimental", Want::MapOf(&Want::Object)),
        ("logging", Want::Object),
        ("prompts", Want::Shaped(&LIST_CHANGED_CAPABILITY)),
        ("resources", Want::Shaped(&RESOURCES_CAPABILITY)),
        ("tools", Want::Shaped(&LIST_CHANGED_CAPABILITY)),
        ("tasks", Want::Shaped(&params::TASKS_CAPABILITY)),
    ],
};
/// The server's `resources` capability.
const RESOURCES_CAPABILITY: Shape = Shape {
    what: "a resources capability object (subscribe and listChanged booleans)",
    required: &[],
    optional: &[("subscribe", Want::Bool), ("listChanged", Want::Bool)],
};

/// A 2026-07-28 `InputResponse`: what a client hands back, in a retried request's
/// `inputResponses`, for each `inputRequests` entry of an `input_required` result
/// (`CreateMessageResult | ListRootsResult | ElicitResult`; `schema.json`, and the Python
/// SDK's `InputResponses`). The union has no `type` member: a value holds it when it has
/// the members of one of the three.
pub(super) const INPUT_RESPONSE: params::Union = params::Union {
    what: "an input response (a CreateMessageResult, ListRootsResult or ElicitResult object)",
    shapes: &[&CREATE_MESSAGE_RESULT, &LIST_ROOTS_RESULT, &ELICIT_RESULT],
};
const CREATE_MESSAGE_RESULT: Shape = Shape {
    what: "a CreateMessageResult object (role, content, model)",
    required: &[
        ("role", Want::OneOf(ROLES)),
        ("content", Want::OneOrArray(&Want::Union(&SAMPLING_CONTENT))),
        ("model", Want::String),
    ],
    optional: &[META, ("stopReason", Want::String)],
};
const LIST_ROOTS_RESULT: Shape = Shape {
    what: "a ListRootsResult object (roots: Root objects)",
    required: &[("roots", Want::ShapedArray(&ROOT))],
    optional: &[META],
};
const ELICIT_RESULT: Shape = Shape {
    what: "an ElicitResult object (action \"accept\", \"decline\" or \"cancel\")",
    required: &[("action", Want::OneOf(&["accept", "decline", "cancel"]))],
    optional: &[META, ("content", Want::MapOf(&Want::ElicitedValue))],
};

/// Members every revision that has the method requires in its result.
const EVERY_REVISION: &[(&str, &[(&str, Want)])] = &[
    ("prompts/list", &[("prompts", Want::ShapedArray(&PROMPT))]),
    (
        "resources/list",
        &[("resources", Want::ShapedArray(&RESOURCE))],
    ),
    (
        "resources/templates/list",
        &[("resourceTemplates", Want::ShapedArray(&RESOURCE_TEMPLATE))],
    ),
    (
        "tools/call",
        &[("content", Want::ArrayOf(&Want::Union(&CONTENT_BLOCK)))],
    ),
    (
        "prompts/get",
        &[("messages", Want::ShapedArray(&PROMPT_MESSAGE))],
    ),
    (
        "resources/read",
        &[("contents", Want::ArrayOf(&Want::Union(&RESOURCE_CONTENTS)))],
    ),
    (
        "completion/complete",
        &[("completion", Want::Shaped(&COMPLETION))],
    ),
    ("roots/list", &[("roots", Want::ShapedArray(&ROOT))]),
];

/// Legacy-only results (2024-11-05 … 2025-11-25; `tasks/*` are 2025-11-25's core tasks).
const LEGACY_ONLY: &[(&str, &[(&str, Want)])] = &[
    ("tools/list", &[("tools", Want::ShapedArray(&TOOL_LEGACY))]),
    (
        "initialize",
        &[
            ("protocolVersion", Want::String),
            ("capabilities", Want::Shaped(&SERVER_CAPABILITIES)),
            ("serverInfo", Want::Shaped(&IMPLEMENTATION)),
        ],
    ),
    (
        "sampling/createMessage",
        &[
            ("role", Want::OneOf(ROLES)),
            (
                "content",
                Want::OneOrArray(&Want::Union(&SAMPLING_CONTENT_LEGACY)),
            ),
            ("model", Want::String),
        ],
    ),
    (
        "elicitation/create",
        &[("action", Want::OneOf(&["accept", "decline", "cancel"]))],
    ),
    ("tasks/list", &[("tasks", Want::ObjectArray)]),
    ("tasks/get", TASK),
    ("tasks/cancel", TASK),
];

/// A 2025-11-25 `Task` as `tasks/get` and `tasks/cancel` return it (`ttl` is required but may
/// be `null`).
const TASK: &[(&str, Want)] = &[
    ("taskId", Want::String),
    ("status", Want::String),
    ("createdAt", Want::String),
    ("lastUpdatedAt", Want::String),
    ("ttl", Want::Any),
];

/// 2026-07-28 only.
const V2026_ONLY: &[(&str, &[(&str, Want)])] = &[
    ("tools/list", &[("tools", Want::ShapedArray(&TOOL))]),
    (
        "server/discover",
        &[
            ("supportedVersions", Want::StringArray),
            ("capabilities", Want::Shaped(&SERVER_CAPABILITIES)),
        ],
    ),
];

/// Optional members type-checked when present, every revision that has the method.
const OPTIONAL: &[(&str, &[(&str, Want)])] = &[
    ("tools/list", &[("nextCursor", Want::String)]),
    ("prompts/list", &[("nextCursor", Want::String)]),
    ("resources/list", &[("nextCursor", Want::String)]),
    ("resources/templates/list", &[("nextCursor", Want::String)]),
    ("tools/call", &[("isError", Want::Bool)]),
    ("prompts/get", &[("description", Want::String)]),
    ("sampling/createMessage", &[("stopReason", Want::String)]),
    (
        "elicitation/create",
        &[("content", Want::MapOf(&Want::ElicitedValue))],
    ),
    ("initialize", &[("instructions", Want::String)]),
    ("server/discover", &[("instructions", Want::String)]),
];

/// Optional members typed in the legacy revisions only: `structuredContent` is an object
/// there, while 2026-07-28 allows any JSON value (re-trial, session 23: `[1,2,3]` from the
/// Python SDK server was replaced by an error).
const LEGACY_OPTIONAL: &[(&str, &[(&str, Want)])] =
    &[("tools/call", &[("structuredContent", Want::Object)])];

/// A 2025-11-25 task-augmented request is answered with a `CreateTaskResult` (`{task}`)
/// instead of the method's own result.
const CREATE_TASK: &[(&str, Want)] = &[("task", Want::Object)];

/// The required members of the result of `method` under `rev` (`None`: the legacy union), or
/// `None` when none are checked.
fn required(rev: Option<Revision>, method: &str) -> Option<&'static [(&'static str, Want)]> {
    members_by_era(rev, method, EVERY_REVISION, LEGACY_ONLY, V2026_ONLY)
}

/// Checks the members of a result answering `method` (the method of the request the tracker
/// matched it to) under `rev`. `complete` is false for a 2026-07-28 result whose `resultType`
/// is not `"complete"` (an `input_required` or `task` result carries other members, judged
/// elsewhere); such a result is not held to the method's members.
///
/// A missing member is [`Rule::MissingResultMember`] (at the `result` object), a member of the
/// wrong JSON type [`Rule::ResultMemberType`] (at its value); both -32600. A legacy result
/// with a `task` member is read as a 2025-11-25 `CreateTaskResult` (`task` an object).
pub(super) fn check(
    m: &Msg<'_>,
    rev: Option<Revision>,
    method: &str,
    complete: bool,
    out: &mut Vec<Violation>,
) {
    let Some(result) = m.result else { return };
    if !complete {
        return;
    }
    let legacy = rev != Some(Revision::V2026_07_28);
    let Some(mut wanted) = required(rev, method) else {
        return;
    };
    if matches!(rev, None | Some(Revision::V2025_11_25)) && m.result_member("task").is_some() {
        wanted = CREATE_TASK;
    }
    for &(key, want) in wanted {
        match m.result_member(key) {
            None => out.push(Violation::new(
                Rule::MissingResultMember,
                result.start(),
                format!("{method:?} result lacks the required member {key:?}"),
            )),
            Some(v) => type_check(m, method, key, want, v, out),
        }
    }
    if wanted == CREATE_TASK {
        return;
    }
    let era_optional = if legacy { LEGACY_OPTIONAL } else { &[] };
    for (_, optional) in OPTIONAL
        .iter()
        .chain(era_optional)
        .filter(|(n, _)| *n == method)
    {
        for &(key, want) in *optional {
            if let Some(v) = m.result_member(key) {
                type_check(m, method, key, want, v, out);
            }
        }
    }
}

fn type_check(
    m: &Msg<'_>,
    method: &str,
    key: &str,
    want: Want,
    v: crate::Span,
    out: &mut Vec<Violation>,
) {
    params::type_check(m, Rule::ResultMemberType, method, key, want, v, out);
}
