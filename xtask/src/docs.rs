//! `cargo xtask docs`: the reference document and the published schemas, generated from the
//! catalog and the documented vectors, and checked against the files on disk.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use vvoc_harness::load::suite::load_vectors;
use vvoc_harness::load::vector::Vector;
use vvoc_harness::meta_schema;
use vvoc_harness::protocol::schemas;
use vvoc_reference::catalog::{Tool, ToolSpec};
use vvoc_reference::document::{Example, GENERATOR_COMMAND, render_catalog};
use vvoc_reference::schema::schema_of;

/// One generated file: where it goes and what it holds.
#[derive(Clone, Debug)]
pub struct Output {
    /// Its path relative to the workspace root.
    pub path: PathBuf,
    /// Its content.
    pub content: String,
}

/// What generating one output did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// The file already held the content.
    Unchanged,
    /// The file was written.
    Written,
    /// Check mode: the file differs from its sources (the text is the diff regenerating would apply).
    Stale(String),
}

/// The documented examples: the vectors marked `doc`, in order.
pub fn examples(vectors: &[Vector]) -> Vec<Example<'_>> {
    vectors
        .iter()
        .filter(|v| v.doc)
        .map(|v| Example {
            tool: v.tool,
            id: &v.id,
            input: &v.input,
        })
        .collect()
}

/// Every generated file of the catalog `specs` (one per tool, in document order) and the
/// documented vectors.
pub fn outputs(specs: &[&ToolSpec], vectors: &[Vector]) -> Vec<Output> {
    let examples = examples(vectors);
    let mut outputs = vec![Output {
        path: PathBuf::from(vvoc_reference::catalog::REFERENCE_PATH),
        content: render_catalog(specs, &examples),
    }];
    for spec in specs {
        outputs.push(Output {
            path: PathBuf::from(format!("implementation/published/schemas/{}.json", spec.id)),
            content: format!("{}\n", schema_of(spec).to_pretty()),
        });
    }
    for (family, schema) in vvoc_reference::exec::web::result_schemas() {
        outputs.push(Output {
            path: PathBuf::from(format!(
                "implementation/published/results/{}.json",
                result_file(family)
            )),
            content: format!("{}\n", schema.to_pretty()),
        });
    }
    outputs.push(Output {
        path: PathBuf::from("implementation/published/README.md"),
        content: readme(specs),
    });
    for (name, schema) in [
        ("vector-file", meta_schema::vector_file()),
        ("scenario-file", meta_schema::scenario_file()),
        (
            "web-scenario-file",
            vvoc_harness::meta_schema_web::web_scenario_file(),
        ),
        (
            "workflow-scenario-file",
            vvoc_harness::meta_schema_workflow::workflow_scenario_file(),
        ),
        ("mutation-rows", meta_schema::mutation_rows()),
    ] {
        outputs.push(Output {
            path: PathBuf::from(format!("harness/schemas/{name}.schema.json")),
            content: pretty(&schema),
        });
    }
    for (name, schema) in schemas::schemas() {
        let path = PathBuf::from(format!("harness/schemas/protocol/{name}.schema.json"));
        outputs.push(Output {
            path,
            content: pretty(&schema),
        });
    }
    outputs
}

impl Output {
    /// Writes the file (only when its content changes), or in check mode compares it.
    pub fn generate(&self, root: &Path, check: bool) -> Result<Change> {
        let path = root.join(&self.path);
        let current = match fs::read_to_string(&path) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => {
                return Err(e).with_context(|| format!("cannot read {}", self.path.display()));
            }
        };
        if current.as_deref() == Some(self.content.as_str()) {
            return Ok(Change::Unchanged);
        }
        if check {
            let current = current.unwrap_or_default();
            let diff = similar_asserts::SimpleDiff::from_str(
                &current,
                &self.content,
                "on disk",
                "generated",
            );
            return Ok(Change::Stale(diff.to_string()));
        }
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        // Write a sibling and rename it, so an interrupted run never leaves half a file.
        let temporary = path.with_extension("tmp");
        fs::write(&temporary, &self.content)
            .with_context(|| format!("cannot write {}", temporary.display()))?;
        fs::rename(&temporary, &path)
            .with_context(|| format!("cannot replace {}", self.path.display()))?;
        Ok(Change::Written)
    }
}

/// The outcome of `cargo xtask docs [--check]` over every output.
#[derive(Debug)]
pub struct Summary {
    /// Each output with what happened to it.
    pub changes: Vec<(PathBuf, Change)>,
}

impl Summary {
    /// The outputs that differ from their sources (check mode).
    pub fn stale(&self) -> impl Iterator<Item = (&PathBuf, &String)> {
        self.changes.iter().filter_map(|(p, c)| match c {
            Change::Stale(diff) => Some((p, diff)),
            Change::Unchanged | Change::Written => None,
        })
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let stale: Vec<_> = self.stale().collect();
        if stale.is_empty() {
            let written = self
                .changes
                .iter()
                .filter(|(_, c)| *c == Change::Written)
                .count();
            return write!(
                f,
                "PASS reference {} pages match their sources ({written} written)",
                self.changes.len()
            );
        }
        for (path, diff) in &stale {
            writeln!(
                f,
                "{} is out of date with its sources:\n{diff}",
                path.display()
            )?;
        }
        write!(
            f,
            "FAIL reference {} of {} pages differ from their sources; run `{GENERATOR_COMMAND}` to regenerate them",
            stale.len(),
            self.changes.len()
        )
    }
}

/// Generates (or checks) every output of the workspace at `root` from its catalog and vectors.
pub fn generate(root: &Path, check: bool) -> Result<Summary> {
    let vectors = load_vectors(&[root.join("vectors")])?;
    let specs: Vec<&ToolSpec> = Tool::ALL.iter().map(|t| t.spec()).collect();
    let mut outputs = outputs(&specs, &vectors);
    outputs.push(crate::rules_page::output(root, &vectors)?);
    generate_outputs(root, &outputs, check)
}

/// Generates (or checks) the given outputs under `root`.
pub fn generate_outputs(root: &Path, outputs: &[Output], check: bool) -> Result<Summary> {
    let mut changes = Vec::new();
    for output in outputs {
        changes.push((output.path.clone(), output.generate(root, check)?));
    }
    Ok(Summary { changes })
}

/// A JSON Schema of the project's own as the repository stores it: a do-not-edit `$comment`
/// after `$schema`, two-space indentation and a final newline.
fn pretty(schema: &serde_json::Value) -> String {
    let mut annotated = serde_json::Map::new();
    for (key, value) in schema.as_object().into_iter().flatten() {
        annotated.insert(key.clone(), value.clone());
        if key == "$schema" {
            let note = format!("Generated by `{GENERATOR_COMMAND}` from the catalog; do not edit.");
            annotated.insert("$comment".to_owned(), serde_json::Value::String(note));
        }
    }
    format!(
        "{}\n",
        serde_json::to_string_pretty(&serde_json::Value::Object(annotated)).unwrap_or_default()
    )
}

fn readme(specs: &[&ToolSpec]) -> String {
    let mut text = format!(
        "# Published files\n\nGenerated by `{GENERATOR_COMMAND}` from the tool catalog and the documented vectors; \
         do not edit by hand. `cargo test` fails when they differ from their sources.\n\n\
         - `tool-contracts.md`: the reference document of contract {}.\n",
        vvoc_reference::catalog::CONTRACT_VERSION
    );
    for spec in specs {
        text.push_str(&format!(
            "- `schemas/{}.json`: the published input schema of `{}`.\n",
            spec.id, spec.id
        ));
    }
    for (family, _) in vvoc_reference::exec::web::result_schemas() {
        text.push_str(&format!(
            "- `results/{}.json`: the closed result schema of the family `{family}` \
             (docs/execution-web.md §5).\n",
            result_file(family)
        ));
    }
    text
}

/// The file name of a result family's schema: `web_fetch:text-native` → `web_fetch.text-native`.
fn result_file(family: &str) -> String {
    family.replace(':', ".")
}
