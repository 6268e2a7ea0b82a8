//! The catalog's shapes as the generator walks them: each tool's members (with its selector
//! matrix), each node with the role its strings play (a URL, a workspace path, an anchor).

use vvoc_reference::Tool;
use vvoc_reference::catalog::{Count, Field, Node, PathKind, Range, StringKind};
use vvoc_reference::rule::Pattern;

/// One tool's input: its members and its selector matrix.
#[derive(Debug)]
pub(crate) struct ToolShape {
    pub(crate) tool: Tool,
    pub(crate) members: Vec<Member>,
    /// The selector field and, per value, the fields it consumes.
    pub(crate) matrix: Option<(&'static str, Vec<Row>)>,
}

impl ToolShape {
    /// The shape of `tool`'s input, from its catalog entry.
    pub(crate) fn of(tool: Tool) -> ToolShape {
        let spec = tool.spec();
        let roles: Vec<(&str, PathKind)> =
            spec.path_kinds.iter().map(|d| (d.field, d.kind)).collect();
        let members = spec
            .fields
            .iter()
            .map(|f| member(f, &Pattern::root(), &roles))
            .collect();
        let matrix = spec.matrix.as_ref().map(|m| {
            let rows = m.rows.iter().map(|r| (r.value, r.consumes)).collect();
            (m.selector, rows)
        });
        ToolShape {
            tool,
            members,
            matrix,
        }
    }
}

/// A selector value and the fields it consumes.
pub(crate) type Row = (&'static str, &'static [&'static str]);

/// A member of an object shape.
#[derive(Debug)]
pub(crate) struct Member {
    pub(crate) name: &'static str,
    pub(crate) required: bool,
    pub(crate) shape: Shape,
    /// Whether it is a list of workspace paths.
    pub(crate) paths: bool,
}

/// The catalog's node, with the role each string plays.
#[derive(Debug)]
pub(crate) enum Shape {
    Object(Vec<Member>),
    Array(Box<Shape>, Count),
    Text(StringKind, Role),
    Integer(Range),
    Number(Range),
    Boolean,
    Enum(&'static [&'static str]),
    Literal(&'static str),
    Null,
    Union(Vec<Shape>),
}

/// What a string stands for, which decides the hard cases it is drawn from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    Plain,
    Url,
    ExactFile,
    Directory,
    Absolute,
    Anchor,
}

/// The length bounds of a node, where it has any (0 and 2 otherwise, as starting points).
pub(crate) fn length_bounds(shape: &Shape) -> Vec<u32> {
    let (min, max) = match shape {
        Shape::Text(kind, _) => kind.length(),
        Shape::Array(_, count) => (count.min(), count.max()),
        Shape::Object(_)
        | Shape::Integer(_)
        | Shape::Number(_)
        | Shape::Boolean
        | Shape::Enum(_)
        | Shape::Literal(_)
        | Shape::Null
        | Shape::Union(_) => (None, None),
    };
    let found: Vec<u32> = min.into_iter().chain(max).collect();
    match found.is_empty() {
        true => vec![0, 2],
        false => found,
    }
}

/// The shape of a catalog field, its strings given the roles of the tool's path kinds.
fn member(field: &Field, base: &Pattern, roles: &[(&str, PathKind)]) -> Member {
    let pattern = base.field(field.name);
    let shape = shape(&field.node, &pattern, field.name, roles);
    let paths = matches!(&shape, Shape::Array(element, _)
        if matches!(**element, Shape::Text(_, Role::ExactFile | Role::Directory)));
    Member {
        name: field.name,
        required: field.required,
        shape,
        paths,
    }
}

fn shape(node: &Node, pattern: &Pattern, name: &str, roles: &[(&str, PathKind)]) -> Shape {
    match node {
        Node::Object(fields) => {
            Shape::Object(fields.iter().map(|f| member(f, pattern, roles)).collect())
        }
        Node::Array(element, count) => {
            let inner = pattern.element();
            Shape::Array(Box::new(shape(element, &inner, name, roles)), *count)
        }
        Node::String(kind) => Shape::Text(*kind, role(pattern, name, roles)),
        Node::Integer(range) => Shape::Integer(*range),
        Node::Number(range) => Shape::Number(*range),
        Node::Boolean => Shape::Boolean,
        Node::Enum(values) => Shape::Enum(values),
        Node::Literal(value) => Shape::Literal(value),
        Node::Null => Shape::Null,
        Node::Union(branches) => Shape::Union(
            branches
                .iter()
                .map(|b| shape(b, pattern, name, roles))
                .collect(),
        ),
    }
}

/// The role of the string at `pattern`: a declared path kind, an anchor, or a name that reads
/// as a workspace path.
fn role(pattern: &Pattern, name: &str, roles: &[(&str, PathKind)]) -> Role {
    let declared = roles.iter().find(|(field, _)| *field == pattern.as_str());
    match declared.map(|(_, kind)| *kind) {
        Some(PathKind::Url) => Role::Url,
        Some(PathKind::ExactFile) => Role::ExactFile,
        Some(PathKind::DirectorySubtree) => Role::Directory,
        Some(PathKind::AbsoluteFile) => Role::Absolute,
        None if matches!(name, "pos" | "end") => Role::Anchor,
        None if name.ends_with("Path")
            || matches!(name, "scope" | "fileBoundary" | "files" | "directories") =>
        {
            Role::ExactFile
        }
        None => Role::Plain,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_path_kinds_give_their_strings_a_role_below_arrays_too() {
        let open = ToolShape::of(Tool::WorkItemOpen);
        let items = open.members.iter().find(|m| m.name == "items");
        let item = match items.map(|m| &m.shape) {
            Some(Shape::Array(item, _)) => Some(&**item),
            _ => None,
        };
        let members = match item.expect("items is an array") {
            Shape::Object(members) => Some(members),
            _ => None,
        };
        let scope = members
            .expect("an item is an object")
            .iter()
            .find(|m| m.name == "writeScope");
        assert!(
            scope.is_some_and(|m| m.paths),
            "writeScope lists workspace paths"
        );
        let fetch = ToolShape::of(Tool::WebFetch);
        let url = fetch.members.iter().find(|m| m.name == "url");
        assert!(matches!(
            url.map(|m| &m.shape),
            Some(Shape::Text(_, Role::Url))
        ));
        assert!(fetch.matrix.is_none());
    }
}
