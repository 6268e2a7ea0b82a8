//! The generated files are fresh, equal the published 1.6.0 artifacts where they must, and the
//! freshness check fails, naming `cargo xtask docs`, when any source changes.

use std::path::Path;
use std::sync::OnceLock;

use vvoc_harness::load::suite::load_vectors;
use vvoc_harness::load::vector::Vector;
use vvoc_reference::catalog::{Field, Node, REFERENCE_PATH, Tool, ToolSpec};
use vvoc_reference::document::render;
use vvoc_reference::{Json, Verdict};
use xtask::docs::{Change, examples, generate, generate_outputs, outputs};
use xtask::workspace_root;

const UPSTREAM_DOCUMENT: &str =
    include_str!("../../implementation/tests/upstream/tool-contracts-1.6.0.md");

/// The workspace's vectors, loaded once for every test.
fn vectors() -> &'static [Vector] {
    static VECTORS: OnceLock<Vec<Vector>> = OnceLock::new();
    VECTORS.get_or_init(|| {
        load_vectors(&[workspace_root().join("vectors")]).expect("the vectors load")
    })
}

fn specs() -> Vec<ToolSpec> {
    Tool::ALL.iter().map(|t| t.spec().clone()).collect()
}

/// The catalog entry of `tool` among `specs`.
fn spec_mut(specs: &mut [ToolSpec], tool: Tool) -> &mut ToolSpec {
    specs
        .iter_mut()
        .find(|s| s.id == tool.id())
        .expect("every tool has an entry")
}

/// The field `name` of a catalog entry.
fn field_mut<'a>(spec: &'a mut ToolSpec, name: &str) -> &'a mut Field {
    spec.fields
        .iter_mut()
        .find(|f| f.name == name)
        .expect("the field is declared")
}

/// Checks the outputs of a (possibly changed) catalog and vector set against the files on disk.
fn check(specs: &[ToolSpec], vectors: &[Vector]) -> String {
    let specs: Vec<&ToolSpec> = specs.iter().collect();
    generate_outputs(&workspace_root(), &outputs(&specs, vectors), true)
        .expect("the check runs")
        .to_string()
}

#[test]
fn generated_files_match_their_sources() {
    let summary = generate(&workspace_root(), true).expect("the check runs");
    assert!(summary.stale().next().is_none(), "{summary}");
    let specs: Vec<&ToolSpec> = Tool::ALL.iter().map(|t| t.spec()).collect();
    for output in outputs(&specs, vectors()) {
        assert!(
            summary.changes.iter().any(|(path, _)| *path == output.path),
            "{} is one of the pages checked",
            output.path.display()
        );
    }
    let pages = summary.changes.len();
    assert!(
        summary
            .to_string()
            .starts_with(&format!("PASS reference {pages} pages match their sources")),
        "{summary}"
    );
}

#[test]
fn the_document_body_is_byte_identical_to_the_published_one() {
    let generated = std::fs::read_to_string(
        workspace_root().join("implementation/published/tool-contracts.md"),
    )
    .expect("generated");
    let marker = "> Schema acceptance is structural only.";
    let body = |text: &str| text[text.find(marker).expect("the disclaimer")..].to_owned();
    similar_asserts::assert_eq!(published: body(UPSTREAM_DOCUMENT), generated: body(&generated));
    let differing: Vec<usize> = generated
        .lines()
        .zip(UPSTREAM_DOCUMENT.lines())
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .map(|(i, _)| i + 1)
        .collect();
    // The generator notice and the reference path name this project; every other line, the
    // size line with its 8794 description bytes included, is 1.6.0's.
    assert_eq!(differing, [3, 7]);
}

#[test]
fn the_librarys_render_of_its_own_catalog_is_the_generated_document() {
    let generated = std::fs::read_to_string(workspace_root().join(REFERENCE_PATH))
        .expect("the generated document");
    similar_asserts::assert_eq!(generated: generated, rendered: render(&examples(vectors())));
}

#[test]
fn a_changed_field_description_fails_the_check_with_a_diff_naming_the_command() {
    let mut specs = specs();
    field_mut(spec_mut(&mut specs, Tool::WebSearch), "query").description =
        "The search query, reworded.";
    let report = check(&specs, vectors());
    assert!(
        report.contains("implementation/published/tool-contracts.md is out of date"),
        "{report}"
    );
    assert!(
        report.contains("implementation/published/schemas/web_search.json is out of date"),
        "{report}"
    );
    assert!(report.contains("The search query, reworded."), "{report}");
    assert!(
        report.ends_with("run `cargo xtask docs` to regenerate them"),
        "{report}"
    );
}

#[test]
fn a_changed_tool_description_fails_the_check() {
    let mut specs = specs();
    spec_mut(&mut specs, Tool::WorkItemClose).description = "Close a workflow work item.";
    let report = check(&specs, vectors());
    assert!(
        report.contains(
            "-- Description: Close a workflow work item by id when it is ready_to_close."
        ),
        "{report}"
    );
    assert!(
        report.contains("+- Description: Close a workflow work item.\n"),
        "{report}"
    );
    assert!(report.contains("cargo xtask docs"), "{report}");
}

#[test]
fn a_changed_vocabulary_value_fails_the_check() {
    let mut specs = specs();
    field_mut(spec_mut(&mut specs, Tool::WebFetch), "format").node =
        Node::Enum(&["markdown", "text", "html", "pdf"]);
    let report = check(&specs, vectors());
    assert!(report.contains("markdown | text | html | pdf"), "{report}");
    assert!(
        report.contains("implementation/published/schemas/web_fetch.json is out of date"),
        "{report}"
    );
}

#[test]
fn a_changed_doc_vector_fails_the_check() {
    let mut vectors = vectors().to_vec();
    let example = vectors
        .iter_mut()
        .find(|v| v.name() == "web_search:default-count")
        .expect("a doc vector");
    example.input = Json::parse(r#"{"query": "changed"}"#).expect("JSON");
    let report = check(&specs(), &vectors);
    assert!(report.contains("\"query\": \"changed\""), "{report}");
    assert!(report.contains("cargo xtask docs"), "{report}");
}

#[test]
fn example_labels_come_from_the_validator_not_from_the_vector() {
    // A doc vector that wrongly expects acceptance still renders as the rejection it is.
    let mut vectors = vectors().to_vec();
    let example = vectors
        .iter_mut()
        .find(|v| v.name() == "web_search:reject-count-low")
        .expect("a doc vector");
    example.expected = Verdict::Accept(Json::Object(Default::default()));
    let report = check(&specs(), &vectors);
    assert!(
        report.starts_with("PASS"),
        "a wrong expectation must not change the document: {report}"
    );
}

#[test]
fn writing_replaces_a_stale_file_and_then_reports_nothing_to_do() {
    let root = tempfile::tempdir().expect("a temporary folder");
    let specs: Vec<&ToolSpec> = Tool::ALL.iter().map(|t| t.spec()).collect();
    let all = outputs(&specs, vectors());
    let schema = all
        .iter()
        .find(|o| o.path.ends_with("schemas/work_item_open.json"))
        .expect("the schema of work_item_open is an output");
    let stale = root.path().join(&schema.path);
    std::fs::create_dir_all(stale.parent().expect("a parent")).expect("folders");
    std::fs::write(&stale, "{}\n").expect("a stale file");
    let first = generate_outputs(root.path(), &all, false).expect("written");
    assert!(first.changes.iter().all(|(_, c)| *c == Change::Written));
    let second = generate_outputs(root.path(), &all, true).expect("checked");
    assert!(second.changes.iter().all(|(_, c)| *c == Change::Unchanged));
    assert!(
        !Path::new(&stale.with_extension("tmp")).exists(),
        "no temporary file is left behind"
    );
}

/// The names in the rows of `heading`'s table in `doc` (the first column, between backticks or
/// bare), in order, up to the next heading.
fn table_names(doc: &str, heading: &str) -> Vec<String> {
    let Some(start) = doc.find(heading) else {
        return Vec::new();
    };
    doc[start + heading.len()..]
        .lines()
        .skip(1)
        .take_while(|line| !line.starts_with('#'))
        .filter_map(|line| line.strip_prefix("| "))
        .filter_map(|row| row.split(" |").next())
        .map(|name| name.trim_matches('`').to_owned())
        .filter(|name| name != "name" && !name.starts_with("---"))
        .collect()
}

#[test]
fn the_rules_tables_of_execution_web_md_name_the_web_tools_rules_of_execution_in_order() {
    let doc = std::fs::read_to_string(workspace_root().join("docs/execution-web.md"))
        .expect("docs/execution-web.md reads");
    for (heading, tool) in [
        ("### 6.1 `web_search`", Tool::WebSearch),
        ("### 6.2 `web_fetch`", Tool::WebFetch),
    ] {
        let documented = table_names(&doc, heading);
        let built: Vec<String> = vvoc_reference::exec::exec_rules()
            .into_iter()
            .filter(|rule| rule.tool == tool)
            .map(|rule| rule.name.to_owned())
            .collect();
        assert!(!built.is_empty(), "{tool:?} has rules of execution");
        assert_eq!(
            documented, built,
            "docs/execution-web.md `{heading}` lists other rules than implementation/src/exec/rules.rs"
        );
    }
}

#[test]
fn the_rules_tables_of_execution_workflow_md_name_the_workflow_tools_rules_of_execution_in_order() {
    let doc = std::fs::read_to_string(workspace_root().join("docs/execution-workflow.md"))
        .expect("docs/execution-workflow.md reads");
    for tool in [
        Tool::WorkItemOpen,
        Tool::WorkItemList,
        Tool::WorkItemClose,
        Tool::WorkItemDecide,
        Tool::WorkCheckpoint,
    ] {
        let heading = format!("### `{}`", tool.id());
        let documented = table_names(&doc, &heading);
        let built: Vec<String> = vvoc_reference::exec::exec_rules()
            .into_iter()
            .filter(|rule| rule.tool == tool)
            .map(|rule| rule.name.to_owned())
            .collect();
        assert!(!built.is_empty(), "{tool:?} has rules of execution");
        assert_eq!(
            documented, built,
            "docs/execution-workflow.md `{heading}` lists other rules than implementation/src/exec/rules.rs"
        );
    }
}
