//! Property tests: every JSON value, however hostile, gets a well-formed verdict whose issues
//! name rules of the inventory, and accepting is idempotent.

use proptest::prelude::*;
use proptest::test_runner::Config;
use vvoc_reference::catalog::{Field, Node, StringKind};
use vvoc_reference::inventory::tool_inventory;
use vvoc_reference::issue::{MAX_ISSUES, MAX_MESSAGE, MAX_PATH};
use vvoc_reference::{
    Code, JsString, Json, Object, RuleId, Tool, Verdict, one_line, validate, validate_traced,
};

proptest! {
    #![proptest_config(Config { cases: 768, failure_persistence: None, ..Config::default() })]

    #[test]
    fn hostile_json_gets_a_well_formed_verdict(tool in tool(), input in hostile_json()) {
        check_verdict(tool, &input)?;
    }

    #[test]
    fn accepted_vectors_with_corruptions_get_a_well_formed_verdict(pick in any::<prop::sample::Index>(), seed in any::<u64>(), corruption in 0u32..30) {
        let (tool, input) = pick.get(accepted_inputs());
        let mut rng = Rng(seed | 1);
        check_verdict(*tool, &mutate(input, &mut rng, corruption))?;
    }

    #[test]
    fn catalog_shaped_json_with_corruptions_gets_a_well_formed_verdict(tool in tool(), seed in any::<u64>(), corruption in 0u32..40) {
        let mut rng = Rng(seed | 1);
        let input = Json::Object(generate_object(&tool.spec().fields, &mut rng, corruption));
        check_verdict(tool, &input)?;
    }
}

/// The invariants of every verdict (§1.2, §1.5, §1.6, §1.7).
fn check_verdict(tool: Tool, input: &Json) -> Result<(), TestCaseError> {
    let (verdict, traced) = validate_traced(tool, input);
    match &verdict {
        Verdict::Accept(output) => {
            prop_assert!(
                output.as_object().is_some(),
                "the output is an object: {output}"
            );
            let again = vvoc_reference::validate_json(tool, output);
            prop_assert_eq!(
                &again,
                &verdict,
                "validating the normalized output of {} accepts it unchanged",
                input
            );
        }
        Verdict::Reject(issues) => {
            prop_assert!(
                (1..=MAX_ISSUES).contains(&issues.len()),
                "1 to 8 issues, got {}",
                issues.len()
            );
            prop_assert_eq!(traced.len(), issues.len());
            let inventory = tool_inventory(tool);
            for traced in &traced {
                prop_assert!(
                    inventory.contains(&traced.rule),
                    "{} is a rule of the inventory",
                    traced.rule
                );
            }
            for (issue, traced) in issues.iter().zip(&traced) {
                prop_assert!(
                    issue.path.len() <= MAX_PATH,
                    "path of {} units",
                    issue.path.len()
                );
                prop_assert!(
                    issue.message.len() <= MAX_MESSAGE,
                    "message of {} units",
                    issue.message.len()
                );
                prop_assert!(
                    issue
                        .expected
                        .as_ref()
                        .is_none_or(|e| e.len() <= MAX_MESSAGE)
                );
                prop_assert!(
                    !matches!(issue.code, Code::InvalidUnion | Code::Custom),
                    "{:?} is never produced",
                    issue.code
                );
                prop_assert!(
                    issue
                        .received
                        .as_ref()
                        .is_none_or(|r| r.eq_str("Infinity") && issue.code == Code::InvalidType)
                );
                let structural_bound =
                    matches!(traced.rule, RuleId::Structural { .. }) && issue.code.is_bound();
                prop_assert_eq!(
                    issue.expected.is_none(),
                    structural_bound,
                    "expected is absent exactly on structural bounds: {:?}",
                    issue
                );
            }
            let line = one_line(issues);
            prop_assert!(
                line.len() <= 1800 && line.to_string_lossy().starts_with("INVALID_INPUT: ")
            );
        }
    }
    // The serde_json entry point agrees wherever serde_json can hold the input.
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(&input.to_compact()) {
        prop_assert_eq!(validate(tool, &value), verdict);
    }
    Ok(())
}

fn tool() -> impl Strategy<Value = Tool> {
    prop::sample::select(Tool::ALL.to_vec())
}

/// Names the validators look for, so random objects reach deep into the declared shapes.
const NAMES: &[&str] = &[
    "items",
    "execution",
    "runId",
    "amendmentId",
    "rationale",
    "key",
    "title",
    "mode",
    "requiredReviewers",
    "writeScope",
    "planRunId",
    "planTaskId",
    "taskId",
    "goal",
    "source",
    "kind",
    "reference",
    "boundary",
    "files",
    "directories",
    "checkpoints",
    "covers",
    "origin",
    "includeClosed",
    "workItemId",
    "attempt",
    "decision",
    "evidence",
    "action",
    "tasks",
    "stages",
    "stage",
    "filePath",
    "delete",
    "rename",
    "edits",
    "op",
    "pos",
    "end",
    "lines",
    "command",
    "path",
    "view_range",
    "insert_line",
    "old_str",
    "query",
    "count",
    "freshness",
    "url",
    "format",
    "timeout",
    "length",
    "0",
    "10",
    "",
    "__proto__",
];

/// Strings the validators treat specially: enum values, paths, anchors, URLs, blanks.
const TEXTS: &[&str] = &[
    "spec",
    "code",
    "delegated",
    "implementation",
    "review_only",
    "accept",
    "recover",
    "rework",
    "register",
    "amend",
    "authorize",
    "conversation-scoped",
    "provided-plan",
    "replace",
    "replace_range",
    "append",
    "view",
    "create",
    "insert",
    "str_replace",
    "day",
    "markdown",
    "a.ts",
    "/x",
    "src/lib/",
    "a//b",
    "./a",
    "C:x",
    "~",
    "*",
    "https://a.test",
    "ftp://x",
    "http://[::1",
    "javascript:1",
    " ",
    "\u{feff}",
    "\u{85}",
    "1#A#B",
    "",
    "\u{1F600}",
];

fn hostile_string() -> impl Strategy<Value = JsString> {
    prop_oneof![
        prop::sample::select(TEXTS).prop_map(JsString::from),
        prop::collection::vec(any::<u16>(), 0..200).prop_map(JsString::from_units),
        prop::collection::vec(
            prop::sample::select(vec![
                0x20u16, 0x09, 0xFEFF, 0x3000, 0x85, 0xD83D, 0xDE00, 0x61, 0x2F, 0x2E, 0x5C, 0x01
            ]),
            0..300
        )
        .prop_map(JsString::from_units),
        any_string().prop_map(JsString::from),
    ]
}

/// What `any::<String>()` generates (strings of non-control characters, the regex `\PC*`), with
/// the regex compiled once: `any::<String>()` compiles it anew for every value.
fn any_string() -> impl Strategy<Value = String> {
    proptest::string::string_regex("\\PC*").expect("a regex proptest can generate from")
}

fn hostile_number() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("JSON has no NaN", |n| !n.is_nan()),
        prop::sample::select(vec![
            f64::INFINITY,
            f64::NEG_INFINITY,
            -0.0,
            0.5,
            1.0,
            2.0,
            8.0,
            20.0,
            21.0,
            120.0,
            1e-9,
            1e300,
            -1e300,
            9007199254740991.0,
            9007199254740992.0,
            -9007199254740992.0,
            -1.0,
        ]),
        (-5i64..30).prop_map(|n| n as f64),
    ]
}

fn hostile_json() -> impl Strategy<Value = Json> {
    let leaf = prop_oneof![
        Just(Json::Null),
        any::<bool>().prop_map(Json::Bool),
        hostile_number().prop_map(Json::Number),
        hostile_string().prop_map(Json::String),
    ];
    // Built once and shared: the closure runs again for every value generated.
    let key = prop_oneof![
        prop::sample::select(NAMES).prop_map(JsString::from),
        hostile_string()
    ]
    .boxed();
    leaf.prop_recursive(10, 400, 12, move |inner| {
        let key = key.clone();
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..12).prop_map(Json::Array),
            prop::collection::vec((key, inner), 0..12)
                .prop_map(|m| Json::Object(Object::from_members(m))),
        ]
    })
}

/// A small deterministic generator (xorshift64), enough to steer catalog-shaped inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < u64::from(percent)
    }
}

/// A value fitting `node` most of the time, with `corruption` percent of values replaced.
fn generate(node: &Node, rng: &mut Rng, corruption: u32) -> Json {
    if rng.chance(corruption) {
        return corrupt(rng);
    }
    match node {
        Node::Object(fields) => Json::Object(generate_object(fields, rng, corruption)),
        Node::Array(element, count) => {
            let max = count.max().unwrap_or(4).min(70) as u64;
            let min = count.min().unwrap_or(0) as u64;
            let len = min + rng.below(max.saturating_sub(min) + 2);
            Json::Array(
                (0..len)
                    .map(|_| generate(element, rng, corruption))
                    .collect(),
            )
        }
        Node::String(kind) => Json::String(generate_string(*kind, rng)),
        Node::Integer(_) => Json::Number(rng.below(25) as f64 - 2.0),
        Node::Number(_) => Json::Number(rng.below(250) as f64 / 2.0 - 1.0),
        Node::Boolean => Json::Bool(rng.chance(50)),
        Node::Enum(values) => Json::str(values[rng.below(values.len() as u64) as usize]),
        Node::Literal(value) => Json::str(value),
        Node::Null => Json::Null,
        Node::Union(branches) => generate(
            &branches[rng.below(branches.len() as u64) as usize],
            rng,
            corruption,
        ),
    }
}

fn generate_object(fields: &[Field], rng: &mut Rng, corruption: u32) -> Object {
    let mut members = Vec::new();
    for field in fields {
        if field.required || rng.chance(12) {
            members.push((
                JsString::from(field.name),
                generate(&field.node, rng, corruption),
            ));
        }
    }
    if rng.chance(corruption / 2) {
        members.push((
            JsString::from(NAMES[rng.below(NAMES.len() as u64) as usize]),
            corrupt(rng),
        ));
    }
    // Shuffle so that the declared order is not the input order.
    for i in (1..members.len()).rev() {
        members.swap(i, rng.below(i as u64 + 1) as usize);
    }
    Object::from_members(members)
}

fn generate_string(kind: StringKind, rng: &mut Rng) -> JsString {
    let text = TEXTS[rng.below(TEXTS.len() as u64) as usize];
    match (kind, rng.below(6)) {
        (_, 0) => JsString::from(format!("  {text}\u{3000}")),
        (StringKind::Id, 1) => JsString::from("x".repeat(127 + rng.below(4) as usize)),
        (_, 2) => JsString::from(format!("src/{}.ts", rng.below(3))),
        _ => JsString::from(text),
    }
}

fn corrupt(rng: &mut Rng) -> Json {
    match rng.below(8) {
        0 => Json::Null,
        1 => Json::Bool(true),
        2 => Json::Number([f64::INFINITY, -0.0, 0.5, 1e300, -7.0][rng.below(5) as usize]),
        3 => Json::str(TEXTS[rng.below(TEXTS.len() as u64) as usize]),
        4 => Json::Array(vec![Json::Null, Json::str("x")]),
        5 => Json::Object(Object::from_members([(
            JsString::from("length"),
            Json::str("0x10"),
        )])),
        6 => Json::Object(Object::new()),
        _ => Json::Array(Vec::new()),
    }
}

/// The inputs of every accept vector under `vectors/`, with their tools.
fn accepted_inputs() -> &'static [(Tool, Json)] {
    static INPUTS: std::sync::OnceLock<Vec<(Tool, Json)>> = std::sync::OnceLock::new();
    INPUTS.get_or_init(|| {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors");
        let mut inputs = Vec::new();
        for tool in Tool::ALL {
            let dir = root.join(tool.id());
            let mut files: Vec<_> = std::fs::read_dir(&dir)
                .expect("a vectors folder per tool")
                .flatten()
                .map(|e| e.path())
                .collect();
            files.sort();
            for file in files {
                let text = std::fs::read_to_string(&file).expect("a readable vector file");
                let json = Json::parse(&text).expect("a valid vector file");
                let vectors = json
                    .as_object()
                    .and_then(|o| o.get("vectors"))
                    .and_then(Json::as_array)
                    .unwrap_or_default();
                for vector in vectors.iter().filter_map(Json::as_object) {
                    if let (Some(input), true) = (vector.get("input"), vector.contains("accept")) {
                        inputs.push((tool, input.clone()));
                    }
                }
            }
        }
        inputs
    })
}

/// `value` with `corruption` percent of its values replaced, members dropped or unknown members added.
fn mutate(value: &Json, rng: &mut Rng, corruption: u32) -> Json {
    if rng.chance(corruption) {
        return corrupt(rng);
    }
    match value {
        Json::Array(items) => Json::Array(
            items
                .iter()
                .map(|item| mutate(item, rng, corruption))
                .collect(),
        ),
        Json::Object(object) => {
            let mut members = Vec::new();
            for (name, item) in object.iter() {
                if !rng.chance(corruption / 2) {
                    members.push((name.clone(), mutate(item, rng, corruption)));
                }
            }
            if rng.chance(corruption / 2) {
                members.push((
                    JsString::from(NAMES[rng.below(NAMES.len() as u64) as usize]),
                    corrupt(rng),
                ));
            }
            Json::Object(Object::from_members(members))
        }
        Json::Null | Json::Bool(_) | Json::Number(_) | Json::String(_) => value.clone(),
    }
}

#[test]
fn corrupted_accepted_vectors_reach_accepts_and_rejects_of_every_tool() {
    // A property test that only ever sees refusals proves little about idempotence.
    for tool in Tool::ALL {
        let inputs: Vec<&Json> = accepted_inputs()
            .iter()
            .filter(|(t, _)| *t == tool)
            .map(|(_, i)| i)
            .collect();
        assert!(!inputs.is_empty(), "{tool} has accept vectors");
        let (mut accepts, mut rejects) = (0, 0);
        for seed in 1..400u64 {
            let mut rng = Rng(seed * 7919);
            let input = mutate(
                inputs[seed as usize % inputs.len()],
                &mut rng,
                (seed % 4) as u32 * 5,
            );
            match validate_traced(tool, &input).0 {
                Verdict::Accept(_) => accepts += 1,
                Verdict::Reject(_) => rejects += 1,
            }
        }
        assert!(
            accepts > 0 && rejects > 0,
            "{tool}: {accepts} accepts, {rejects} rejects"
        );
    }
}

#[test]
fn inputs_nested_a_million_deep_get_their_verdicts_on_a_small_stack() {
    // A 256 KiB stack: reading, validating or dropping one call per level would overflow it
    // within a few thousand levels. Upstream answers these verdicts at any depth (issue 9, A).
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(deep_inputs_get_their_verdicts)
        .expect("a thread")
        .join()
        .expect("the verdicts came on a small stack");
}

fn deep_inputs_get_their_verdicts() {
    let depth = 1_000_000;
    let nested = |inner: &str| format!("{}{inner}{}", "[".repeat(depth), "]".repeat(depth));
    let line = |tool: Tool, text: String| {
        let input = Json::parse(&text).expect("any depth is read");
        one_line(&refusal(tool, &input)).to_string_lossy()
    };
    // An unknown member holding a deep value: only its name is reported.
    assert_eq!(
        line(
            Tool::WebSearch,
            format!(r#"{{"query":"q","x":{}}}"#, nested("0"))
        ),
        r#"INVALID_INPUT: x: unrecognized key "x"; expected a known property of this request object"#
    );
    // A deep array where a string is expected: the type issue, and no length issue (one element).
    assert_eq!(
        line(
            Tool::WorkItemClose,
            format!(r#"{{"workItemId":{}}}"#, nested("7"))
        ),
        "INVALID_INPUT: workItemId: Invalid input: expected string, received array; expected string"
    );
    // A `length` member whose value is an array nested deep converts through its joined text.
    assert_eq!(
        line(
            Tool::WorkItemClose,
            format!(r#"{{"workItemId":{{"length":{}}}}}"#, nested(r#""200""#))
        ),
        "INVALID_INPUT: workItemId: Invalid input: expected string, received object; expected string \
         | workItemId: Too big: expected unknown to be <=128"
    );
    // Deep values under unknown names and in every tool's fields.
    let text = format!(
        r#"{{"deep": {}, "items": {}}}"#,
        nested("{}"),
        nested("null")
    );
    let input = Json::parse(&text).expect("any depth is read");
    for tool in Tool::ALL {
        check_verdict(tool, &input).expect("a well-formed verdict");
    }
}

/// The issues of a refusal (none for an acceptance, which the callers' assertions then catch).
fn refusal(tool: Tool, input: &Json) -> Vec<vvoc_reference::Issue> {
    match validate_traced(tool, input).0 {
        Verdict::Reject(issues) => issues,
        Verdict::Accept(_) => Vec::new(),
    }
}
