//! The scenario runner: scratch directories of 40 characters that never outlive a scenario, `{root}`
//! both ways, write steps that move modification times, a directory read back without following
//! links, and failure messages that show the step, its input, both texts and each file's diff.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use vvoc_harness::Outcome;
use vvoc_harness::load::suite::parse_suite_file;
use vvoc_harness::outcome::Failure;
use vvoc_harness::scenario::compare::{ScenarioLevel, classify, describe, explain, passes, plain};
use vvoc_harness::scenario::model::{Reply, Scenario};
use vvoc_harness::scenario::play::{Executor, ScenarioAnswer, play, play_reference};
use vvoc_harness::scenario::scratch::{PATH_LEN, Scratch};
use vvoc_harness::scenario::tree::Entry;
use vvoc_reference::{JsString, Json, Tool};

fn scenario(tool: &str, body: &str) -> Scenario {
    let text = format!(r#"{{"tool": "{tool}", "scenarios": [{{"id": "s", {body}}}]}}"#);
    let mut suite =
        parse_suite_file(Path::new("t/exec-test.json"), &text).expect("a valid scenario");
    let mut scenario = suite.scenarios.remove(0);
    scenario.source = "t/exec-test.json".to_owned();
    scenario
}

/// An executor that looks around the directory and answers with what it saw.
#[derive(Default)]
struct Spy {
    roots: Vec<String>,
    inputs: Vec<String>,
    mtimes: Vec<SystemTime>,
    ended: bool,
}

impl Executor for Spy {
    fn exec(&mut self, _tool: Tool, input: &Json) -> Result<Reply, Failure> {
        let path = input
            .as_object()
            .and_then(|o| o.get("path"))
            .and_then(Json::as_string)
            .map(|p| p.to_string())
            .unwrap_or_default();
        let root = path.trim_end_matches("/a.txt").to_owned();
        self.inputs.push(input.to_compact());
        self.mtimes.push(
            std::fs::metadata(&path)
                .and_then(|m| m.modified())
                .unwrap_or(SystemTime::UNIX_EPOCH),
        );
        std::fs::write(format!("{root}/made.txt"), "made").expect("written");
        let _ = std::os::unix::fs::symlink("/etc", format!("{root}/link"));
        self.roots.push(root.clone());
        Ok(Reply::Output(JsString::from(format!(
            "done in {root}/made.txt"
        ))))
    }

    fn anchors(&mut self, _path: &JsString) -> Result<Reply, Failure> {
        Err(Failure::Error("no anchors here".to_owned()))
    }

    fn end(&mut self) {
        self.ended = true;
    }
}

const SPIED: &str = r#""files": {"a.txt": "one", "d/": null},
  "steps": [
    {"call": {"command": "view", "path": "{root}/a.txt"}, "output": "done in {root}/made.txt"},
    {"write": {"a.txt": "two", "gone/": null}},
    {"call": {"command": "view", "path": "{root}/a.txt"}, "output": "done in {root}/made.txt"}
  ],
  "after": {"a.txt": "two", "d/": null, "gone/": null, "link": "x", "made.txt": "made"}"#;

#[test]
fn the_directory_is_40_characters_private_substituted_and_gone_afterwards() {
    let parent = tempfile::tempdir().expect("a parent");
    let scenario = scenario("str_replace_editor", SPIED);
    let mut spy = Spy::default();
    let answer = play(&scenario, parent.path(), &mut spy);
    let root = spy.roots[0].clone();
    assert_eq!(root.len(), PATH_LEN, "{root}");
    assert!(root.starts_with(&format!(
        "{}/vvoc-",
        parent.path().canonicalize().expect("real").display()
    )));
    assert_eq!(spy.roots[1], root, "one directory for the whole scenario");
    assert!(
        spy.inputs[0].contains(&format!("\"{root}/a.txt\"")),
        "{{root}} is substituted: {}",
        spy.inputs[0]
    );
    assert!(!Path::new(&root).exists(), "the directory is removed");
    assert!(spy.ended, "the executor hears the end");
    assert_eq!(
        std::fs::read_dir(parent.path()).expect("readable").count(),
        0
    );
    let (replies, after) = match &answer {
        ScenarioAnswer::Ran { replies, after } => (replies, after),
        other => return assert_eq!(format!("{other:?}"), "a scenario that ran"),
    };
    assert_eq!(
        replies[0],
        Some(Reply::Output(JsString::from("done in {root}/made.txt"))),
        "the root is replaced back"
    );
    assert_eq!(replies[1], None);
    assert_eq!(
        after.get("link"),
        Some(&Entry::Symlink("/etc".to_owned())),
        "never followed"
    );
    assert_eq!(after.get("gone/"), Some(&Entry::EmptyDir));
    assert_eq!(after.get("a.txt"), Some(&Entry::File(b"two".to_vec())));
    // The link is not the text "x": the directory differs there and only there.
    assert!(!passes(&scenario, &answer, ScenarioLevel::Effect));
    assert_eq!(
        describe(&scenario, &answer, ScenarioLevel::Exact),
        "the directory after the last step differs: link different"
    );
}

#[test]
fn a_write_step_moves_the_modification_time_past_the_last_one_and_now() {
    let parent = tempfile::tempdir().expect("a parent");
    let mut spy = Spy::default();
    let before = SystemTime::now();
    play(
        &scenario("str_replace_editor", SPIED),
        parent.path(),
        &mut spy,
    );
    let (first, second) = (spy.mtimes[0], spy.mtimes[1]);
    assert!(
        second >= first + Duration::from_secs(2),
        "{first:?} then {second:?}"
    );
    assert!(
        second >= before + Duration::from_secs(2),
        "{before:?} then {second:?}"
    );
}

#[test]
fn the_modes_of_the_directory_and_a_too_long_parent() {
    use std::os::unix::fs::PermissionsExt as _;
    let scratch = Scratch::create(Path::new("/tmp")).expect("a scratch directory");
    let path: PathBuf = scratch.path().to_owned();
    assert_eq!(scratch.root().len(), PATH_LEN);
    let mode = std::fs::metadata(&path)
        .expect("exists")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700);
    std::fs::create_dir(path.join("ro")).expect("a subfolder");
    std::fs::write(path.join("ro/f"), "x").expect("a file");
    std::fs::set_permissions(path.join("ro"), std::fs::Permissions::from_mode(0o500))
        .expect("read-only");
    drop(scratch);
    assert!(!path.exists(), "even a read-only tree goes");
    let deep = tempfile::tempdir().expect("a parent");
    let long = deep.path().join("a-parent-far-too-long-for-forty");
    std::fs::create_dir(&long).expect("made");
    let error = Scratch::create(&long).expect_err("too long").to_string();
    assert!(error.contains("is too long"), "{error}");
}

#[test]
fn a_failure_shows_the_step_its_input_both_texts_and_each_files_diff() {
    let scenario = scenario(
        "str_replace_editor",
        r#""files": {"a.txt": "one\ntwo\n"},
        "steps": [
          {"call": {"command": "view", "path": "{root}/a.txt"}, "output": "fine"},
          {"call": {"command": "view", "path": "{root}/a.txt"}, "output": "Error: no"}
        ],
        "after": {"a.txt": "one\nTWO\n", "b.txt": "b"}"#,
    );
    let mut after = scenario.files.clone();
    after.insert("c.txt".to_owned(), Entry::File(vec![0xff]));
    let answer = ScenarioAnswer::Ran {
        replies: vec![
            Some(Reply::Output(JsString::from("fine"))),
            Some(Reply::Output(JsString::from("Error: yes"))),
        ],
        after,
    };
    assert!(!passes(&scenario, &answer, ScenarioLevel::Exact));
    let said = plain(&explain(&scenario, &answer, ScenarioLevel::Exact));
    for part in [
        "str_replace_editor:s (vectors/t/exec-test.json, scenario 0): step 2 of 2 (steps[1], call): expected output \"Error: no\", received output \"Error: yes\"; the directory differs too: a.txt different, b.txt missing, c.txt extra",
        "\"command\": \"view\"",
        "expected output:\n\"Error: no\"",
        "received output:\n\"Error: yes\"",
        "missing b.txt: expected the text \"b\"",
        "extra c.txt: 1 bytes, not UTF-8, base64 /w==",
        "different a.txt:",
        "-TWO",
        "+two",
    ] {
        assert!(said.contains(part), "{part:?} is not in:\n{said}");
    }
    // At effect both outputs are errors, so only the directory fails the scenario.
    let said = describe(&scenario, &answer, ScenarioLevel::Effect);
    assert!(
        said.starts_with("the directory after the last step differs"),
        "{said}"
    );
}

#[test]
fn effect_compares_kinds_and_error_texts_exact_compares_every_unit() {
    let scenario = scenario(
        "str_replace_editor",
        r#""files": {}, "steps": [{"call": {"command": "view", "path": "{root}/x"}, "output": "Error: a"}, {"call": {"command": "view", "path": "{root}/y"}, "throws": "E1"}]"#,
    );
    let ran = |first: Reply, second: Reply| ScenarioAnswer::Ran {
        replies: vec![Some(first), Some(second)],
        after: scenario.files.clone(),
    };
    let out = |t: &str| Reply::Output(JsString::from(t));
    let throws = |t: &str| Reply::Throws(JsString::from(t));
    let cases = [
        (ran(out("Error: a"), throws("E1")), true, true),
        (ran(out("Error: b"), throws("E2")), true, false),
        (ran(out("Fine"), throws("E1")), false, false),
        (ran(out("Error: a"), out("E1")), false, false),
    ];
    for (answer, effect, exact) in cases {
        assert_eq!(
            passes(&scenario, &answer, ScenarioLevel::Effect),
            effect,
            "{answer:?}"
        );
        assert_eq!(
            passes(&scenario, &answer, ScenarioLevel::Exact),
            exact,
            "{answer:?}"
        );
    }
    let stopped = ScenarioAnswer::Stopped {
        replies: vec![],
        step: 0,
        fault: Failure::Timeout,
    };
    assert_eq!(
        classify(&scenario, &stopped, ScenarioLevel::Exact, false),
        Outcome::Timeout
    );
    assert_eq!(
        classify(&scenario, &stopped, ScenarioLevel::Exact, true),
        Outcome::KnownFail
    );
    assert_eq!(
        describe(&scenario, &stopped, ScenarioLevel::Exact),
        "step 1 of 2 (steps[0], call): no answer within the timeout"
    );
}

#[test]
fn the_reference_runs_a_scenario_in_process() {
    let parent = tempfile::tempdir().expect("a parent");
    let scenario = scenario(
        "str_replace_editor",
        r#""files": {"a.txt": "v1\n"},
        "steps": [
          {"call": {"command": "view", "path": "{root}/a.txt"}, "output": "Here's the content of {root}/a.txt with line numbers (which has a total of 2 lines):\n     1  v1\n     2  \n"},
          {"write": {"a.txt": "v2\n"}},
          {"call": {"command": "str_replace", "path": "{root}/a.txt", "old_str": "v2", "new_str": "v3"}, "output": "Error: The file {root}/a.txt has changed since it was last viewed. Run the view command again before editing."},
          {"call": {"command": "create", "path": "{root}/b.txt", "file_text": "b"}, "output": "New file created successfully at: {root}/b.txt"}
        ],
        "after": {"a.txt": "v2\n", "b.txt": "b"}"#,
    );
    let answer = play_reference(&scenario, parent.path());
    assert!(
        passes(&scenario, &answer, ScenarioLevel::Exact),
        "{}",
        explain(&scenario, &answer, ScenarioLevel::Exact)
    );
    assert_eq!(
        std::fs::read_dir(parent.path()).expect("readable").count(),
        0
    );
}
