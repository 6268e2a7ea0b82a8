//! The published schemas against the validators, on every vector.
//!
//! A JSON Schema checks structure only, so the two disagree exactly where the contract says
//! something a schema cannot express. Each such class is named here with its reason; any other
//! disagreement fails the test.

use std::collections::BTreeMap;
use std::fmt;

use vvoc_harness::default_vectors_dir;
use vvoc_harness::json::bridge::to_serde;
use vvoc_harness::load::suite::load_vectors;
use vvoc_reference::catalog::{Node, Tool};
use vvoc_reference::schema::published_schema;
use vvoc_reference::text::trim;
use vvoc_reference::{Check, Json, RuleId, Verdict, validate_traced};

/// Why the schema and the validator may disagree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    /// Conflicts, requirements per action, path kinds and the URL rule exist only in validation (§7).
    BranchRule,
    /// Trimmed kinds are trimmed before their bounds (§2.1.5); a schema measures the raw string.
    TrimBeforeBounds,
    /// The contract counts UTF-16 units (§6.1); JSON Schema counts code points, so an astral
    /// character is one character to the schema and two units to the contract.
    Utf16Units,
    /// Lone surrogates and numbers beyond a double (§6.1, §6.5) have no `serde_json` form, so the
    /// schema validator cannot see these inputs at all.
    Unrepresentable,
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

#[test]
fn schemas_and_validators_disagree_only_where_a_schema_cannot_express_the_contract() {
    // The vectors load while the schemas compile.
    let (vectors, validators) = std::thread::scope(|scope| {
        let loading =
            scope.spawn(|| load_vectors(&[default_vectors_dir()]).expect("the vectors load"));
        let validators: BTreeMap<Tool, jsonschema::Validator> = Tool::ALL
            .into_iter()
            .map(|tool| {
                let schema = to_serde(&published_schema(tool)).expect("a schema is plain JSON");
                (
                    tool,
                    jsonschema::validator_for(&schema).expect("a valid draft 2020-12 schema"),
                )
            })
            .collect();
        (loading.join().expect("the vectors load"), validators)
    });
    let mut classes: BTreeMap<Class, Vec<String>> = BTreeMap::new();
    let mut unexplained = Vec::new();
    let mut agreements = 0;
    for vector in &vectors {
        let (verdict, traced) = validate_traced(vector.tool, &vector.input);
        let Some(instance) = to_serde(&vector.input) else {
            classes
                .entry(Class::Unrepresentable)
                .or_default()
                .push(vector.name());
            continue;
        };
        let validator = &validators[&vector.tool];
        let explained: Vec<Option<Class>> = match (&verdict, validator.is_valid(&instance)) {
            (Verdict::Accept(_), true) | (Verdict::Reject(_), false) => {
                agreements += 1;
                continue;
            }
            // The validator refuses what the schema accepts: every issue must be explained.
            (Verdict::Reject(_), true) => traced
                .iter()
                .map(|t| {
                    refusal_class(
                        vector.tool,
                        &vector.input,
                        &t.rule,
                        &t.issue.path.to_string(),
                    )
                })
                .collect(),
            // The validator accepts what the schema refuses: every schema error must be explained.
            (Verdict::Accept(_), false) => validator
                .iter_errors(&instance)
                .map(|e| acceptance_class(&vector.input, &e.instance_path.to_string()))
                .collect(),
        };
        match explained
            .iter()
            .copied()
            .collect::<Option<std::collections::BTreeSet<Class>>>()
        {
            Some(found) => {
                for class in found {
                    classes.entry(class).or_default().push(vector.name());
                }
            }
            None => unexplained.push(format!(
                "{} ({}): {:?}",
                vector.name(),
                if verdict.is_accept() {
                    "accepted"
                } else {
                    "refused"
                },
                vector.input.to_compact()
            )),
        }
    }
    let counts: Vec<String> = classes
        .iter()
        .map(|(c, v)| format!("{c}: {}", v.len()))
        .collect();
    println!(
        "{agreements} vectors agree; vectors per disagreement class: {}",
        counts.join(", ")
    );
    assert!(
        unexplained.is_empty(),
        "disagreements no named class explains:\n{}",
        unexplained.join("\n")
    );
    for class in [
        Class::BranchRule,
        Class::TrimBeforeBounds,
        Class::Utf16Units,
        Class::Unrepresentable,
    ] {
        assert!(
            classes.contains_key(&class),
            "no vector shows the class {class}: the classification is not exercised"
        );
    }
}

/// Why the validator refused with this issue although the schema accepts the input.
fn refusal_class(tool: Tool, input: &Json, rule: &RuleId, path: &str) -> Option<Class> {
    match rule {
        RuleId::Branch { .. } => Some(Class::BranchRule),
        // Validation never names a rule of execution.
        RuleId::Exec { .. } => None,
        RuleId::Structural {
            check: Check::MinLength | Check::MaxLength,
            pattern,
            ..
        } => {
            let value = navigate(input, path)?.as_string()?;
            let (min, max) = string_bounds(tool, pattern)?;
            let code_points = value.chars().count();
            let within = |n: usize| {
                min.is_none_or(|m| n >= m as usize) && max.is_none_or(|m| n <= m as usize)
            };
            match (within(code_points), within(value.len())) {
                (true, false) => Some(Class::Utf16Units),
                (true, true) => Some(Class::TrimBeforeBounds),
                (false, _) => None,
            }
        }
        RuleId::Structural { .. } => None,
    }
}

/// Why the schema refused the value at `pointer` although the validator accepts the input.
fn acceptance_class(input: &Json, pointer: &str) -> Option<Class> {
    let path =
        pointer
            .trim_start_matches('/')
            .split('/')
            .map(|segment| match segment.parse::<usize>() {
                Ok(i) => format!("[{i}]"),
                Err(_) => format!(".{segment}"),
            });
    let path: String = path.collect::<String>().trim_start_matches('.').to_owned();
    let value = navigate(input, &path)?.as_string()?;
    (trim(value.units()).len() != value.len()).then_some(Class::TrimBeforeBounds)
}

/// The value at a rendered issue path made of declared names and indexes (`items[0].title`).
fn navigate<'a>(input: &'a Json, path: &str) -> Option<&'a Json> {
    let mut value = input;
    for part in path.split('.') {
        let (name, indexes) = part
            .split_once('[')
            .map_or((part, ""), |(n, rest)| (n, rest));
        if !name.is_empty() {
            value = value.as_object()?.get(name)?;
        }
        for index in indexes.split('[').filter(|s| !s.is_empty()) {
            value = value
                .as_array()?
                .get(index.trim_end_matches(']').parse::<usize>().ok()?)?;
        }
    }
    Some(value)
}

/// The length bounds of the string node at a field pattern (`items[].title`).
fn string_bounds(tool: Tool, pattern: &str) -> Option<(Option<u32>, Option<u32>)> {
    let mut fields = &tool.spec().fields;
    let mut node: Option<&Node> = None;
    for part in pattern.split('.') {
        let (name, _) = part.split_once('#').unwrap_or((part, ""));
        let name = name.trim_end_matches("[]");
        let field = fields.iter().find(|f| f.name == name)?;
        let mut current = &field.node;
        while let Node::Array(element, _) = current {
            current = element;
        }
        if let Node::Union(branches) = current {
            let branch: usize = part
                .split_once('#')
                .and_then(|(_, b)| b.parse().ok())
                .unwrap_or(1);
            current = branches.get(branch - 1)?;
        }
        if let Node::Object(members) = current {
            fields = members;
        }
        node = Some(current);
    }
    match node? {
        Node::String(kind) => Some(kind.length()),
        _ => None,
    }
}
