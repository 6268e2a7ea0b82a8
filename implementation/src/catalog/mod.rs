//! The pure tool catalog: every fact of contract 1.6.0, one `ToolSpec` per tool, in document order.
//!
//! Validators, the published schemas and the reference document all derive from these values;
//! nothing here depends on how they are used. The catalog is built once at run time rather than
//! held in `const` items so that a mutation row can switch any of its expressions on and off
//! (see `xtask/src/mutants`).

// The catalog files, one per tool and named by its id; `tools!` below lists them again for the
// compiler, which refuses a listed tool without its file and warns of a file left unlisted (its
// `spec` unused). They are declared here, not by the macro, because rustfmt formats only the
// files of the modules it can see.
mod hashline_edit;
pub mod prose;
mod shapes;
mod str_replace_editor;
mod web_fetch;
mod web_search;
mod work_checkpoint;
mod work_item_close;
mod work_item_decide;
mod work_item_list;
mod work_item_open;

use std::fmt;
use std::str::FromStr;
use std::sync::LazyLock;

use crate::js_string::JsString;

/// The package whose contract this catalog describes.
pub const PACKAGE: &str = "@osovv/vv-opencode";
/// The contract version.
pub const CONTRACT_VERSION: &str = "1.6.0";
/// The tool contract revision.
pub const CONTRACT_REVISION: u32 = 1;
/// Where this project publishes the reference document, relative to the workspace root.
pub const REFERENCE_PATH: &str = "implementation/published/tool-contracts.md";

/// Declares the tools from one table, in document order: each row is a tool's variant and its
/// id, which also names its catalog file (`catalog/<id>.rs`, whose `spec` takes the id). From
/// the table come the `Tool` enum, `Tool::ALL`, `Tool::id` and the catalog entries, so that the
/// list of tools is written once; `Tool as usize` indexes the entries because both follow it.
macro_rules! tools {
    ($($variant:ident => $id:ident,)+) => {
        /// One of the nine tools.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Tool {
            $(
                #[doc = concat!("`", stringify!($id), "`.")]
                $variant,
            )+
        }

        impl Tool {
            /// The nine tools in document order.
            pub const ALL: [Tool; TOOL_COUNT] = [$(Tool::$variant,)+];

            /// The tool id, such as `web_search`.
            pub fn id(self) -> &'static str {
                match self {
                    $(Tool::$variant => stringify!($id),)+
                }
            }
        }

        /// How many tools the table declares.
        const TOOL_COUNT: usize = [$(stringify!($id),)+].len();

        /// The catalog entries, indexed by `Tool as usize`.
        static CATALOG: LazyLock<[ToolSpec; TOOL_COUNT]> =
            LazyLock::new(|| [$($id::spec(stringify!($id)),)+]);
    };
}

tools! {
    WorkItemOpen => work_item_open,
    WorkItemList => work_item_list,
    WorkItemClose => work_item_close,
    WorkItemDecide => work_item_decide,
    WorkCheckpoint => work_checkpoint,
    HashlineEdit => hashline_edit,
    StrReplaceEditor => str_replace_editor,
    WebSearch => web_search,
    WebFetch => web_fetch,
}

impl Tool {
    /// The tool's catalog entry.
    pub fn spec(self) -> &'static ToolSpec {
        &CATALOG[self as usize]
    }
}

impl fmt::Display for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// A tool name that is not one of the nine tools.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownTool(pub String);

impl fmt::Display for UnknownTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known: Vec<&str> = Tool::ALL.iter().map(|t| t.id()).collect();
        write!(
            f,
            "unknown tool {:?}: expected one of {}",
            self.0,
            known.join(", ")
        )
    }
}

impl std::error::Error for UnknownTool {}

impl FromStr for Tool {
    type Err = UnknownTool;

    fn from_str(s: &str) -> Result<Tool, UnknownTool> {
        Tool::ALL
            .into_iter()
            .find(|t| t.id() == s)
            .ok_or_else(|| UnknownTool(s.to_owned()))
    }
}

/// Everything the contract says about one tool.
#[derive(Clone, Debug)]
pub struct ToolSpec {
    /// The tool id (`Tool::id`).
    pub id: &'static str,
    /// The one-line summary of the reference document.
    pub summary: &'static str,
    /// The model-facing description (all of its lines).
    pub description: &'static str,
    /// The fields of the input object, in declared order.
    pub fields: Vec<Field>,
    /// Which fields each value of a selector field consumes, when the tool has such a matrix.
    pub matrix: Option<Matrix>,
    /// The fields whose vocabularies the document lists, as field patterns (`items[].mode`).
    pub vocabularies: &'static [&'static str],
    /// State and host prerequisites.
    pub prerequisites: &'static [&'static str],
    /// Conditional requirements, in words.
    pub conditional_requirements: &'static [&'static str],
    /// Declared path kinds.
    pub path_kinds: Vec<PathKindDecl>,
    /// Result families: an id (after `<tool>:`) and a label.
    pub result_families: &'static [(&'static str, &'static str)],
    /// Representative failures: a path and what happens there.
    pub representative_failures: &'static [(&'static str, &'static str)],
}

/// A member of a closed object.
#[derive(Clone, Debug)]
pub struct Field {
    /// The member name.
    pub name: &'static str,
    /// The member name in UTF-16, which normalized outputs share.
    pub key: JsString,
    /// Whether the member must be present.
    pub required: bool,
    /// The value's shape.
    pub node: Node,
    /// The published description.
    pub description: &'static str,
    /// The value an absent member takes in the output, with the document's note on it.
    pub default: Option<Default>,
}

/// Whether a member must be present.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Presence {
    /// The member must be present.
    Required,
    /// The member may be absent.
    Optional,
}

/// A required member.
pub const REQ: Presence = Presence::Required;
/// An optional member.
pub const OPT: Presence = Presence::Optional;

/// Starts declaring the member `name`: `field("count", OPT).of(node).describe("...")`.
///
/// Each fact sits in its own small expression (`OPT`, the node, a bound), so that a mutation
/// row can change one fact and nothing else.
pub fn field(name: &'static str, presence: Presence) -> Unshaped {
    Unshaped { name, presence }
}

/// A member whose shape is not declared yet.
#[derive(Clone, Copy, Debug)]
pub struct Unshaped {
    name: &'static str,
    presence: Presence,
}

impl Unshaped {
    /// The member with its shape.
    pub fn of(self, node: Node) -> Field {
        Field {
            name: self.name,
            key: JsString::from(self.name),
            required: self.presence == REQ,
            node,
            description: "",
            default: None,
        }
    }
}

impl Field {
    /// The same member with its published description.
    pub fn describe(self, description: &'static str) -> Field {
        Field {
            description,
            ..self
        }
    }

    /// The same member with an execute-time default.
    pub fn with_default(self, value: Scalar, note: &'static str) -> Field {
        Field {
            default: Some(Default { value, note }),
            ..self
        }
    }
}

/// An execute-time default.
#[derive(Clone, Debug)]
pub struct Default {
    /// The value.
    pub value: Scalar,
    /// The note the document prints beside it.
    pub note: &'static str,
}

/// A default value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// An integer.
    Integer(i64),
    /// A string.
    String(&'static str),
}

impl Scalar {
    /// The value as JSON.
    pub fn to_json(self) -> crate::json::Json {
        match self {
            Scalar::Integer(n) => crate::json::Json::Number(n as f64),
            Scalar::String(s) => crate::json::Json::str(s),
        }
    }
}

/// The shape of a value.
#[derive(Clone, Debug)]
pub enum Node {
    /// A closed object with these members, in declared order.
    Object(Vec<Field>),
    /// An array of elements of one shape, with bounds on its element count.
    Array(Box<Node>, Count),
    /// A string of a field kind (§4.0).
    String(StringKind),
    /// An integer within ±(2^53 − 1) and these bounds.
    Integer(Range),
    /// A finite number within these bounds.
    Number(Range),
    /// `true` or `false`.
    Boolean,
    /// One of these strings (at least two).
    Enum(&'static [&'static str]),
    /// Exactly this string.
    Literal(&'static str),
    /// `null`.
    Null,
    /// The first of these shapes that fits (§2.1.10).
    Union(Vec<Node>),
}

impl Node {
    /// An array of `element`s.
    pub fn array(element: Node, count: Count) -> Node {
        Node::Array(Box::new(element), count)
    }
}

/// Bounds on an array's element count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    /// Any count.
    Any,
    /// At least this many.
    AtLeast(u32),
    /// At most this many.
    AtMost(u32),
    /// Between these, inclusive.
    Between(u32, u32),
    /// Exactly this many (reported as a minimum and a maximum, but see §2.1.8).
    Exactly(u32),
}

impl Count {
    /// The lower bound, if any.
    pub const fn min(self) -> Option<u32> {
        match self {
            Count::AtLeast(n) | Count::Between(n, _) | Count::Exactly(n) => Some(n),
            Count::Any | Count::AtMost(_) => None,
        }
    }

    /// The upper bound, if any.
    pub const fn max(self) -> Option<u32> {
        match self {
            Count::AtMost(n) | Count::Between(_, n) | Count::Exactly(n) => Some(n),
            Count::Any | Count::AtLeast(_) => None,
        }
    }
}

/// The field kinds of strings (§4.0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StringKind {
    /// Trimmed identifier, 1 to 128 units.
    Id,
    /// Trimmed text, 1 to 2000 units.
    Text,
    /// Trimmed reference, 1 to 512 units.
    Ref,
    /// Trimmed, at least 1 unit.
    Nonblank,
    /// Trimmed, at most 2000 units, may be blank.
    Scope,
    /// Verbatim, at least 1 unit.
    Line,
    /// Verbatim, unbounded.
    Raw,
}

impl StringKind {
    /// Whether values are trimmed before their bounds and output trimmed.
    pub const fn trimmed(self) -> bool {
        match self {
            StringKind::Id
            | StringKind::Text
            | StringKind::Ref
            | StringKind::Nonblank
            | StringKind::Scope => true,
            StringKind::Line | StringKind::Raw => false,
        }
    }

    /// The length bounds in UTF-16 units: minimum and maximum.
    pub const fn length(self) -> (Option<u32>, Option<u32>) {
        match self {
            StringKind::Id => (Some(1), Some(128)),
            StringKind::Text => (Some(1), Some(2000)),
            StringKind::Ref => (Some(1), Some(512)),
            StringKind::Nonblank | StringKind::Line => (Some(1), None),
            StringKind::Scope => (None, Some(2000)),
            StringKind::Raw => (None, None),
        }
    }
}

/// Bounds of a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    /// The lower bound, if any (integers are always bounded by the safe range too).
    pub min: Option<Limit>,
    /// The upper bound, if any.
    pub max: Option<Limit>,
}

/// One bound of a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// The value may equal the bound.
    Inclusive(i64),
    /// The value must not equal the bound.
    Exclusive(i64),
}

/// The largest integer the contract accepts (2^53 − 1).
pub const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

/// Which fields each value of a selector field consumes.
#[derive(Clone, Debug)]
pub struct Matrix {
    /// The selector field (`decision`, `action`, `command`); it names the selector in messages.
    pub selector: &'static str,
    /// One row per selector value, in the enum's order.
    pub rows: Vec<MatrixRow>,
}

/// The fields one selector value consumes, in the order its `expected` string lists them.
#[derive(Clone, Debug)]
pub struct MatrixRow {
    /// The selector value.
    pub value: &'static str,
    /// The consumed fields.
    pub consumes: &'static [&'static str],
}

impl Matrix {
    /// The row of a selector value.
    pub fn row(&self, value: &str) -> Option<&MatrixRow> {
        self.rows.iter().find(|r| r.value == value)
    }
}

/// A declared path kind of a field.
#[derive(Clone, Debug)]
pub struct PathKindDecl {
    /// The field pattern (`items[].writeScope[]`).
    pub field: &'static str,
    /// The kind.
    pub kind: PathKind,
    /// The rules in words.
    pub rules: &'static str,
}

impl PathKindDecl {
    /// A declaration.
    pub const fn new(field: &'static str, kind: PathKind, rules: &'static str) -> PathKindDecl {
        PathKindDecl { field, kind, rules }
    }
}

/// The path kinds a field can declare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathKind {
    /// A workspace-relative exact file (§5.1).
    ExactFile,
    /// A workspace-relative directory subtree (§5.2).
    DirectorySubtree,
    /// An absolute file path (declared only; §5.4).
    AbsoluteFile,
    /// An absolute http(s) URL (§5.5).
    Url,
}

impl PathKind {
    /// The kind's name as the document writes it.
    pub const fn name(self) -> &'static str {
        match self {
            PathKind::ExactFile => "exact-file",
            PathKind::DirectorySubtree => "directory-subtree",
            PathKind::AbsoluteFile => "absolute-file",
            PathKind::Url => "url",
        }
    }
}

/// The node a field pattern such as `items[].mode` or `execution.source.kind` names, seen through
/// arrays (`[]`) and unions (every branch that has the member): each match with its field.
pub fn resolve<'a>(fields: &'a [Field], pattern: &str) -> Vec<&'a Field> {
    let mut found = Vec::new();
    let names: Vec<&str> = pattern.split('.').collect();
    resolve_in(fields, &names, &mut found);
    found
}

fn resolve_in<'a>(fields: &'a [Field], names: &[&str], found: &mut Vec<&'a Field>) {
    let Some((first, rest)) = names.split_first() else {
        return;
    };
    let (name, arrays) = strip_arrays(first);
    for field in fields.iter().filter(|f| f.name == name) {
        let mut node = &field.node;
        for _ in 0..arrays {
            match node {
                Node::Array(element, _) => node = element,
                _ => return,
            }
        }
        if rest.is_empty() {
            found.push(field);
        } else {
            for object in objects_of(node) {
                resolve_in(object, rest, found);
            }
        }
    }
}

fn strip_arrays(segment: &str) -> (&str, usize) {
    let mut name = segment;
    let mut count = 0;
    while let Some(stripped) = name.strip_suffix("[]") {
        name = stripped;
        count += 1;
    }
    (name, count)
}

fn objects_of(node: &Node) -> Vec<&[Field]> {
    match node {
        Node::Object(fields) => vec![fields],
        Node::Union(branches) => branches.iter().flat_map(objects_of).collect(),
        Node::Array(..)
        | Node::String(_)
        | Node::Integer(_)
        | Node::Number(_)
        | Node::Boolean
        | Node::Enum(_)
        | Node::Literal(_)
        | Node::Null => Vec::new(),
    }
}

/// The values of a vocabulary field: its enum, or the literals of its union branches.
pub fn vocabulary(spec: &ToolSpec, pattern: &str) -> Vec<&'static str> {
    let mut values = Vec::new();
    for field in resolve(&spec.fields, pattern) {
        collect_values(&field.node, &mut values);
    }
    values
}

fn collect_values(node: &Node, values: &mut Vec<&'static str>) {
    match node {
        Node::Enum(options) => values.extend(options.iter().copied()),
        Node::Literal(value) => values.push(value),
        Node::Array(element, _) => collect_values(element, values),
        Node::Union(branches) => branches.iter().for_each(|b| collect_values(b, values)),
        Node::Object(_)
        | Node::String(_)
        | Node::Integer(_)
        | Node::Number(_)
        | Node::Boolean
        | Node::Null => {}
    }
}

/// The note every 1.6.0 default carries in the document.
const REAPPLIED: &str = "re-applied at execute time";
