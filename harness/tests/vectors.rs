//! Every vector under `vectors/`, one libtest-mimic trial each (`<tool>:<id>`), run against the
//! reference implementation and compared exactly.

use std::process::ExitCode;

use libtest_mimic::{Arguments, Failed, Trial};
use vvoc_harness::vectors::{Vector, load};
use vvoc_harness::{Level, compare, default_vectors_dir};
use vvoc_reference::{Verdict, validate_json};

/// Vectors the reference is known to fail, with the reason. A listed vector that passes fails
/// its trial, so this list cannot go stale. It is empty: the reference passes every vector.
const KNOWN_FAILURES: &[(&str, &str)] = &[];

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let vectors = match load(&[default_vectors_dir()]) {
        Ok(vectors) => vectors,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    for (name, _) in KNOWN_FAILURES {
        if !vectors.iter().any(|v| v.name() == *name) {
            eprintln!("error: KNOWN_FAILURES lists {name}, which is no vector; remove the entry");
            return ExitCode::FAILURE;
        }
    }
    let trials = vectors
        .into_iter()
        .map(|vector| {
            let known = KNOWN_FAILURES
                .iter()
                .find(|(name, _)| *name == vector.name())
                .map(|(_, why)| *why);
            let (name, kind) = (vector.name(), vector.kind());
            Trial::test(name, move || check(&vector, known)).with_kind(kind)
        })
        .collect();
    libtest_mimic::run(&args, trials).exit_code()
}

/// Runs one vector and explains any difference: input, expected, received and a diff.
fn check(vector: &Vector, known_failure: Option<&str>) -> Result<(), Failed> {
    let received = validate_json(vector.tool, &vector.input);
    let passed = compare::matches(&vector.expected, &received, Level::Exact);
    match (passed, known_failure) {
        (true, None) => Ok(()),
        (false, Some(_)) => Ok(()),
        (true, Some(why)) => Err(format!(
            "{} now passes but is listed in KNOWN_FAILURES ({why}); remove it from the list in harness/tests/vectors.rs",
            vector.name()
        )
        .into()),
        (false, None) => Err(failure_message(vector, &received).into()),
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
