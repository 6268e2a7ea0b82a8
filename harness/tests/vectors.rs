//! Every vector and scenario under `vectors/`, one libtest-mimic trial each (`<tool>:<id>`), run
//! against the reference implementation and compared exactly; scenarios run in scratch
//! directories under `/tmp` (a workflow scenario's data directory too), web scenarios against a
//! fixture server on 127.0.0.1.

use std::process::ExitCode;

use libtest_mimic::{Arguments, Failed, Trial};
use vvoc_harness::load::suite::load_suite;
use vvoc_harness::load::vector::Vector;
use vvoc_harness::scenario::compare::{ScenarioLevel, explain, passes};
use vvoc_harness::scenario::model::Scenario;
use vvoc_harness::scenario::play::play_reference;
use vvoc_harness::scenario::scratch::default_parent;
use vvoc_harness::web::{self, model::WebScenario};
use vvoc_harness::workflow::{self, model::WorkflowScenario};
use vvoc_harness::{Level, compare, default_vectors_dir};
use vvoc_reference::{Verdict, validate_json};

/// Vectors and scenarios the reference is known to fail, with the reason. A listed one that passes
/// fails its trial, so this list cannot go stale. It is empty: the reference passes everything.
const KNOWN_FAILURES: &[(&str, &str)] = &[];

fn main() -> ExitCode {
    // An interrupted run removes the scenarios' scratch directories.
    vvoc_harness::peer::child::kill_children_on_interrupt();
    let args = Arguments::from_args();
    let suite = match load_suite(&[default_vectors_dir()]) {
        Ok(suite) => suite,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    for (name, _) in KNOWN_FAILURES {
        if !suite.names.iter().any(|n| n == name) {
            eprintln!(
                "error: KNOWN_FAILURES lists {name}, which is no vector or scenario; remove the entry"
            );
            return ExitCode::FAILURE;
        }
    }
    let known = |name: &str| {
        KNOWN_FAILURES
            .iter()
            .find(|(listed, _)| *listed == name)
            .map(|(_, why)| *why)
    };
    let mut trials: Vec<Trial> = suite
        .vectors
        .into_iter()
        .map(|vector| {
            let (name, kind) = (vector.name(), vector.kind());
            let known = known(&name);
            Trial::test(name, move || check(&vector, known)).with_kind(kind)
        })
        .collect();
    trials.extend(suite.scenarios.into_iter().map(|scenario| {
        let name = scenario.name();
        let known = known(&name);
        Trial::test(name, move || check_scenario(&scenario, known)).with_kind("scenario")
    }));
    trials.extend(suite.web.into_iter().map(|scenario| {
        let name = scenario.name();
        let known = known(&name);
        Trial::test(name, move || check_web(&scenario, known)).with_kind("web scenario")
    }));
    trials.extend(suite.workflow.into_iter().map(|scenario| {
        let name = scenario.name();
        let known = known(&name);
        Trial::test(name, move || check_workflow(&scenario, known)).with_kind("workflow scenario")
    }));
    // An interrupt's handler, not the end of the run, ends the program (with 130).
    vvoc_harness::peer::child::unless_interrupted(libtest_mimic::run(&args, trials).exit_code())
}

/// Plays one scenario and explains any difference: the step, its input, both texts with a diff,
/// and the directory file by file.
fn check_scenario(scenario: &Scenario, known_failure: Option<&str>) -> Result<(), Failed> {
    let answer = play_reference(scenario, &default_parent());
    let passed = passes(scenario, &answer, ScenarioLevel::Exact);
    judged(&scenario.name(), passed, known_failure, || {
        explain(scenario, &answer, ScenarioLevel::Exact)
    })
}

/// Plays one web scenario against its fixture server on 127.0.0.1 and explains any difference:
/// the call, the expected and received result, asks and requests, with a diff.
fn check_web(scenario: &WebScenario, known_failure: Option<&str>) -> Result<(), Failed> {
    let answer = web::play::play_reference(scenario);
    let passed = web::compare::passes(scenario, &answer, ScenarioLevel::Exact);
    judged(&scenario.name(), passed, known_failure, || {
        web::compare::explain(scenario, &answer, ScenarioLevel::Exact)
    })
}

/// Plays one workflow scenario in a scratch data directory and explains any difference: the
/// step, what it did, the expected and received outcome with a diff, the data directory.
fn check_workflow(scenario: &WorkflowScenario, known_failure: Option<&str>) -> Result<(), Failed> {
    let answer = workflow::play::play_reference(scenario, &default_parent());
    let passed = workflow::compare::passes(scenario, &answer, ScenarioLevel::Exact);
    judged(&scenario.name(), passed, known_failure, || {
        workflow::compare::explain(scenario, &answer, ScenarioLevel::Exact)
    })
}

/// Runs one vector and explains any difference: input, expected, received and a diff.
fn check(vector: &Vector, known_failure: Option<&str>) -> Result<(), Failed> {
    let received = validate_json(vector.tool, &vector.input);
    let passed = compare::matches(&vector.expected, &received, Level::Exact);
    judged(&vector.name(), passed, known_failure, || {
        failure_message(vector, &received)
    })
}

/// A trial's verdict: a pass, or a listed known failure that still fails, is fine; a listed one
/// that passes must leave the list; any other failure is explained.
fn judged(
    name: &str,
    passed: bool,
    known_failure: Option<&str>,
    explain: impl FnOnce() -> String,
) -> Result<(), Failed> {
    match (passed, known_failure) {
        (true, None) | (false, Some(_)) => Ok(()),
        (true, Some(why)) => Err(format!(
            "{name} now passes but is listed in KNOWN_FAILURES ({why}); remove it from the list in harness/tests/vectors.rs"
        )
        .into()),
        (false, None) => Err(explain().into()),
    }
}

fn failure_message(vector: &Vector, received: &Verdict) -> String {
    let expected = vector.expected.to_json().to_pretty();
    let got = received.to_json().to_pretty();
    format!(
        "{name} (vectors/{file}, vector {index}): {summary}\n\ninput:\n{input}\n\nexpected:\n{expected}\n\nreceived:\n{got}\n\n{diff}",
        name = vector.name(),
        file = vector.source,
        index = vector.index,
        summary = compare::describe(&vector.expected, received),
        input = vector.input.to_pretty(),
        diff = similar_asserts::SimpleDiff::from_str(&expected, &got, "expected", "received"),
    )
}
