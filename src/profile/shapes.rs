//! Object shapes that `params` and `result` members share: content blocks, resource contents,
//! annotations and icons (the TS schemas' `ContentBlock`, `SamplingMessageContentBlock`,
//! `ResourceContents`, `Annotations`, `Icon`; the Python SDK's models of the same names in
//! mcp 2.3.0, `mcp_types._v2025_11_25`, which its client uses for every legacy revision, and
//! `mcp_types._v2026_07_28`).
//!
//! A content block is told by its `type`, and each type needs its own members: a `"text"`
//! block without `text`, an `"image"` block without `data` or `mimeType`, a block of a type no
//! revision defines — each fails the SDK clients' validation of the whole result (re-trial,
//! session 23: such blocks passed every profile because only `type` was checked). The union
//! of the types every revision defines is accepted in each revision: the Python SDK client
//! reads `audio` and `resource_link` blocks under 2024-11-05 too, and refusing them there
//! would break traffic the SDK takes.

use super::params::{ROLES, Shape, Union, Want};

/// `Annotations` (content blocks, resources, resource templates).
pub(super) const ANNOTATIONS: Shape = Shape {
    what: "an Annotations object (audience: \"user\"/\"assistant\" strings, priority a \
           number from 0 to 1, lastModified a string)",
    required: &[],
    optional: &[
        ("audience", Want::ArrayOf(&Want::OneOf(ROLES))),
        ("priority", Want::UnitInterval),
        ("lastModified", Want::String),
    ],
};

/// `Icon` (2025-11-25 and 2026-07-28 tools, prompts, resources, implementations).
const ICON: Shape = Shape {
    what: "an Icon object (src string)",
    required: &[("src", Want::String)],
    optional: &[
        ("mimeType", Want::String),
        ("sizes", Want::StringArray),
        ("theme", Want::OneOf(&["light", "dark"])),
    ],
};

/// The `_meta` member of the objects the schemas give one (content blocks, resource
/// contents, tools, prompts, resources, templates, sampling messages, roots): an object.
pub(super) const META: (&str, Want) = ("_meta", Want::Object);

/// An `icons` member: an array of [`ICON`]s.
pub(super) const ICONS: Want = Want::ShapedArray(&ICON);

const TEXT_CONTENT: Shape = Shape {
    what: "a TextContent object",
    required: &[("type", Want::OneOf(&["text"])), ("text", Want::String)],
    optional: &[META, ("annotations", Want::Shaped(&ANNOTATIONS))],
};
const IMAGE_CONTENT: Shape = Shape {
    what: "an ImageContent object",
    required: &[
        ("type", Want::OneOf(&["image"])),
        ("data", Want::String),
        ("mimeType", Want::String),
    ],
    optional: &[META, ("annotations", Want::Shaped(&ANNOTATIONS))],
};
const AUDIO_CONTENT: Shape = Shape {
    what: "an AudioContent object",
    required: &[
        ("type", Want::OneOf(&["audio"])),
        ("data", Want::String),
        ("mimeType", Want::String),
    ],
    optional: &[META, ("annotations", Want::Shaped(&ANNOTATIONS))],
};
const RESOURCE_LINK: Shape = Shape {
    what: "a ResourceLink object",
    required: &[
        ("type", Want::OneOf(&["resource_link"])),
        ("uri", Want::String),
        ("name", Want::String),
    ],
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
const EMBEDDED_RESOURCE: Shape = Shape {
    what: "an EmbeddedResource object",
    required: &[
        ("type", Want::OneOf(&["resource"])),
        ("resource", Want::Union(&RESOURCE_CONTENTS)),
    ],
    optional: &[META, ("annotations", Want::Shaped(&ANNOTATIONS))],
};
/// 2025-11-25 and 2026-07-28 sampling: the model asks for a tool call.
const TOOL_USE_CONTENT: Shape = Shape {
    what: "a ToolUseContent object",
    required: &[
        ("type", Want::OneOf(&["tool_use"])),
        ("id", Want::String),
        ("name", Want::String),
        ("input", Want::Object),
    ],
    optional: &[META],
};
/// 2025-11-25 and 2026-07-28 sampling: a tool call's outcome handed back to the model
/// (2026-07-28: `structuredContent` may be any JSON value).
const TOOL_RESULT_CONTENT: Shape = Shape {
    what: "a ToolResultContent object",
    required: TOOL_RESULT_REQUIRED,
    optional: &[META, ("isError", Want::Bool)],
};
/// [`TOOL_RESULT_CONTENT`] in the legacy revisions: `structuredContent` is an object
/// (2025-11-25 `schema.ts`; the Python SDK refuses another value).
const TOOL_RESULT_CONTENT_LEGACY: Shape = Shape {
    what: "a ToolResultContent object (structuredContent an object)",
    required: TOOL_RESULT_REQUIRED,
    optional: &[
        META,
        ("isError", Want::Bool),
        ("structuredContent", Want::Object),
    ],
};
const TOOL_RESULT_REQUIRED: &[(&str, Want)] = &[
    ("type", Want::OneOf(&["tool_result"])),
    ("toolUseId", Want::String),
    ("content", Want::ArrayOf(&Want::Union(&CONTENT_BLOCK))),
];

/// `ContentBlock`: what `tools/call` results and prompt messages carry.
pub(super) const CONTENT_BLOCK: Union = Union {
    what: "a content block (type \"text\", \"image\", \"audio\", \"resource_link\" or \
           \"resource\", with the members of its type)",
    shapes: &[
        &TEXT_CONTENT,
        &IMAGE_CONTENT,
        &AUDIO_CONTENT,
        &RESOURCE_LINK,
        &EMBEDDED_RESOURCE,
    ],
};

/// `SamplingMessageContentBlock`: what sampling messages and results carry (2026-07-28).
pub(super) const SAMPLING_CONTENT: Union = Union {
    what: SAMPLING_CONTENT_WHAT,
    shapes: &[
        &TEXT_CONTENT,
        &IMAGE_CONTENT,
        &AUDIO_CONTENT,
        &TOOL_USE_CONTENT,
        &TOOL_RESULT_CONTENT,
    ],
};
/// [`SAMPLING_CONTENT`] in the legacy revisions ([`TOOL_RESULT_CONTENT_LEGACY`]).
pub(super) const SAMPLING_CONTENT_LEGACY: Union = Union {
    what: SAMPLING_CONTENT_WHAT,
    shapes: &[
        &TEXT_CONTENT,
        &IMAGE_CONTENT,
        &AUDIO_CONTENT,
        &TOOL_USE_CONTENT,
        &TOOL_RESULT_CONTENT_LEGACY,
    ],
};
const SAMPLING_CONTENT_WHAT: &str = "a sampling content block (type \"text\", \"image\", \
                                     \"audio\", \"tool_use\" or \"tool_result\", with the \
                                     members of its type)";

const TEXT_RESOURCE_CONTENTS: Shape = Shape {
    what: "a TextResourceContents object",
    required: &[("uri", Want::String), ("text", Want::String)],
    optional: &[META, ("mimeType", Want::String)],
};
const BLOB_RESOURCE_CONTENTS: Shape = Shape {
    what: "a BlobResourceContents object",
    required: &[("uri", Want::String), ("blob", Want::String)],
    optional: &[META, ("mimeType", Want::String)],
};

/// `TextResourceContents | BlobResourceContents` (`resources/read` results, embedded
/// resources).
pub(super) const RESOURCE_CONTENTS: Union = Union {
    what: "a resource contents object (uri string, and a text or blob string)",
    shapes: &[&TEXT_RESOURCE_CONTENTS, &BLOB_RESOURCE_CONTENTS],
};

/// A `{listChanged?: boolean}` capability (server `prompts` and `tools`, legacy client
/// `roots`).
pub(super) const LIST_CHANGED_CAPABILITY: Shape = Shape {
    what: "a capability object (listChanged a boolean)",
    required: &[],
    optional: &[("listChanged", Want::Bool)],
};
