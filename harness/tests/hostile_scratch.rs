//! An implementation under test is hostile to its scratch directory: it swaps a folder for a
//! symbolic link to a folder outside (before a write step, or at any moment while the runner
//! writes or reads), or leaves a 2 GiB sparse file behind. The runner never writes, deletes or
//! reads through a link (every name is opened with `O_NOFOLLOW` relative to its folder's
//! descriptor), and it never reads a file over `MAX_FILE_BYTES` (16 MiB): such a file differs as
//! too large, named with its size. Ordinary writes are unchanged: nested folders made, bytes
//! exact, modification times moved.

#![cfg(unix)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

use vvoc_harness::load::suite::parse_suite_file;
use vvoc_harness::outcome::Failure;
use vvoc_harness::scenario::compare::{ScenarioLevel, describe, explain, plain};
use vvoc_harness::scenario::model::{Reply, Scenario};
use vvoc_harness::scenario::play::{Executor, ScenarioAnswer, play};
use vvoc_harness::scenario::tree::{Entry, MAX_FILE_BYTES, read_tree, write_entry};
use vvoc_reference::{JsString, Json, Tool};

mod common;

/// 2 GiB, the size of the sparse file of issue 18.
const TWO_GIB: u64 = 2 << 30;

/// What the runner says when it meets the link `d` on the way to `key`.
fn link_on_the_way(key: &str) -> String {
    format!(
        "d, a folder on the way to {key}, is a symbolic link; the runner never writes through one (the implementation under test must leave the scenario's folders and files as folders and files)"
    )
}

/// A folder holding `root` (with a folder `d` in it) and `outside` (with `keep.txt`), and a link
/// `root/l` to `outside`.
struct Place {
    _base: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
}

fn place() -> Place {
    let base = tempfile::tempdir().expect("a temporary folder");
    let root = base.path().join("root");
    let outside = base.path().join("outside");
    std::fs::create_dir_all(root.join("d")).expect("root/d");
    std::fs::create_dir(&outside).expect("outside");
    std::fs::write(outside.join("keep.txt"), "SECRET").expect("outside/keep.txt");
    std::os::unix::fs::symlink(&outside, root.join("l")).expect("root/l");
    Place {
        _base: base,
        root,
        outside,
    }
}

/// Every file under `folder` and its text, by path (following nothing, listing everything).
fn contents(folder: &Path) -> BTreeMap<String, String> {
    walkdir::WalkDir::new(folder)
        .min_depth(1)
        .into_iter()
        .map(|e| e.expect("walkable"))
        .map(|e| {
            let text = match e.file_type().is_file() {
                true => std::fs::read_to_string(e.path()).expect("a text"),
                false => "(not a file)".to_owned(),
            };
            let name = e.path().strip_prefix(folder).expect("inside");
            (name.display().to_string(), text)
        })
        .collect()
}

/// An entry in a few words: a file by its size alone, so that a failing test never prints
/// gigabytes.
fn brief(entry: Option<&Entry>) -> String {
    match entry {
        Some(Entry::File(bytes)) => format!("a file of {} bytes", bytes.len()),
        Some(Entry::TooLarge(size)) => format!("too large, {size} bytes"),
        Some(other @ (Entry::EmptyDir | Entry::Symlink(_) | Entry::Special | Entry::Json(_))) => {
            format!("{other:?}")
        }
        None => "nothing".to_owned(),
    }
}

fn untouched() -> BTreeMap<String, String> {
    BTreeMap::from([("keep.txt".to_owned(), "SECRET".to_owned())])
}

/// Peak memory of this process so far, in KiB (Linux's `VmHWM`).
#[cfg(target_os = "linux")]
fn peak_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("a VmHWM line")
}

/// Swaps two names of a folder again and again (atomically: `renameat2` with `RENAME_EXCHANGE`),
/// so that `root/d` is a folder one moment and the link to `outside` the next, until stopped.
#[cfg(target_os = "linux")]
mod flip {
    use std::path::Path;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::thread::JoinHandle;

    use rustix::fs::{CWD, RenameFlags, renameat_with};

    pub struct Flipper {
        stop: Arc<AtomicBool>,
        thread: JoinHandle<u64>,
    }

    pub fn start(a: &Path, b: &Path) -> Flipper {
        let (a, b) = (a.to_owned(), b.to_owned());
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let mut flips = 0;
            while !flag.load(Ordering::Relaxed) {
                renameat_with(CWD, &a, CWD, &b, RenameFlags::EXCHANGE).expect("swapped");
                flips += 1;
            }
            flips
        });
        Flipper { stop, thread }
    }

    impl Flipper {
        /// Stops, and says how many swaps were made.
        pub fn stop(self) -> u64 {
            self.stop.store(true, Ordering::Relaxed);
            self.thread.join().expect("the flipper does not panic")
        }
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_folder_swapped_for_a_link_while_the_runner_writes_never_lets_a_write_or_delete_out() {
    let place = place();
    let flipper = flip::start(&place.root.join("d"), &place.root.join("l"));
    let started = Instant::now();
    let (mut tries, mut refused) = (0, 0);
    // The old check-then-write wrote outside within the first ten tries.
    while tries < 2000 && started.elapsed() < Duration::from_secs(5) {
        let file = Entry::File(b"written".to_vec());
        let steps = [
            ("d/f.txt", Some(&file), true),
            ("d/new/f.txt", Some(&file), false),
            ("d/e/", Some(&Entry::EmptyDir), false),
            ("d/keep.txt", None, false),
            ("d/new/", None, false),
        ];
        for (key, entry, move_mtime) in steps {
            if write_entry(&place.root, key, entry, move_mtime).is_err() {
                refused += 1;
            }
        }
        tries += 1;
        if contents(&place.outside) != untouched() {
            break;
        }
    }
    let flips = flipper.stop();
    assert_eq!(
        contents(&place.outside),
        untouched(),
        "the folder outside changed after {tries} rounds of writes ({flips} swaps)"
    );
    assert!(
        refused > 0,
        "the link was met and refused at least once in {tries} rounds ({flips} swaps)"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_folder_swapped_for_a_link_while_the_runner_reads_never_lets_a_read_out() {
    let place = place();
    std::fs::write(place.root.join("d/keep.txt"), "inside").expect("root/d/keep.txt");
    let flipper = flip::start(&place.root.join("d"), &place.root.join("l"));
    let started = Instant::now();
    let (mut tries, mut leaked) = (0, 0);
    // The old walk-then-read read the outside file within the first few hundred tries.
    while tries < 3000 && started.elapsed() < Duration::from_secs(5) && leaked == 0 {
        if let Ok(tree) = read_tree(&place.root) {
            let secret = Entry::File(b"SECRET".to_vec());
            leaked += tree.values().filter(|e| **e == secret).count();
        }
        tries += 1;
    }
    let flips = flipper.stop();
    assert_eq!(
        leaked, 0,
        "a file outside was read after {tries} reads ({flips} swaps)"
    );
}

#[test]
fn a_link_already_in_place_is_refused_for_every_kind_of_write_and_nothing_outside_changes() {
    let place = place();
    std::fs::remove_dir(place.root.join("d")).expect("d removed");
    std::os::unix::fs::symlink(&place.outside, place.root.join("d")).expect("d is a link");
    std::os::unix::fs::symlink(place.outside.join("keep.txt"), place.root.join("k.txt"))
        .expect("k.txt is a link");
    let file = Entry::File(b"written".to_vec());
    let said = |key: &str, entry: Option<&Entry>| {
        write_entry(&place.root, key, entry, true)
            .expect_err("refused")
            .to_string()
    };
    assert_eq!(said("d/f.txt", Some(&file)), link_on_the_way("d/f.txt"));
    assert_eq!(said("d/x/y.txt", Some(&file)), link_on_the_way("d/x/y.txt"));
    assert_eq!(
        said("d/e/", Some(&Entry::EmptyDir)),
        link_on_the_way("d/e/")
    );
    assert_eq!(said("d/keep.txt", None), link_on_the_way("d/keep.txt"));
    let link_itself = "k.txt is a symbolic link; the runner never writes through one (the implementation under test must leave the scenario's folders and files as folders and files)";
    assert_eq!(said("k.txt", Some(&file)), link_itself);
    assert_eq!(said("k.txt", None), link_itself);
    assert_eq!(contents(&place.outside), untouched());
}

/// An implementation that, at its first call, swaps the folder `d` of the scenario's directory
/// for a link to `outside`, and answers `ok`.
struct Swapper {
    outside: PathBuf,
}

impl Executor for Swapper {
    fn exec(&mut self, _tool: Tool, input: &Json) -> Result<Reply, Failure> {
        let path = input
            .as_object()
            .and_then(|o| o.get("path"))
            .and_then(Json::as_string)
            .map(|p| p.to_string())
            .unwrap_or_default();
        let root = Path::new(&path)
            .parent()
            .and_then(Path::parent)
            .expect("{root}/d/a.txt");
        std::fs::rename(root.join("d"), root.join("d.real")).expect("d moved away");
        std::os::unix::fs::symlink(&self.outside, root.join("d")).expect("d is a link");
        Ok(Reply::Output(JsString::from("ok")))
    }

    fn anchors(&mut self, _path: &JsString) -> Result<Reply, Failure> {
        Err(Failure::Error("no anchors here".to_owned()))
    }

    fn end(&mut self) {}
}

fn scenario(body: &str) -> Scenario {
    let text = format!(r#"{{"tool": "str_replace_editor", "scenarios": [{{"id": "s", {body}}}]}}"#);
    let mut suite = parse_suite_file(Path::new("t/exec-hostile.json"), &text).expect("valid");
    let mut scenario = suite.scenarios.remove(0);
    scenario.source = "t/exec-hostile.json".to_owned();
    scenario
}

#[test]
fn a_write_step_under_a_folder_the_implementation_made_a_link_fails_naming_it() {
    let place = place();
    let scenario = scenario(
        r#""files": {"d/a.txt": "a"},
        "steps": [
          {"call": {"command": "view", "path": "{root}/d/a.txt"}, "output": "ok"},
          {"write": {"d/b.txt": "b"}}
        ]"#,
    );
    let answer = play(
        &scenario,
        &place.root,
        &mut Swapper {
            outside: place.outside.clone(),
        },
    );
    assert_eq!(
        answer,
        ScenarioAnswer::Runner(format!(
            "step 2 (steps[1], write): cannot write \"d/b.txt\": {}",
            link_on_the_way("d/b.txt")
        ))
    );
    assert_eq!(contents(&place.outside), untouched());
}

#[test]
fn ordinary_writes_make_nested_folders_with_exact_bytes_and_read_back_the_same() {
    let place = place();
    let root = &place.root;
    let bytes: Vec<u8> = (0..=255).collect();
    let write = |key: &str, entry: Option<&Entry>| {
        let written = write_entry(root, key, entry, false).map_err(|e| e.to_string());
        assert_eq!(written, Ok(()), "{key}");
    };
    write("a/b/c.bin", Some(&Entry::File(bytes.clone())));
    write(
        "a/t.txt",
        Some(&Entry::File(b"a longer first text\r\n".to_vec())),
    );
    write("a/t.txt", Some(&Entry::File(b"short".to_vec())));
    write("e/f/", Some(&Entry::EmptyDir));
    write("e/f/", Some(&Entry::EmptyDir));
    write("gone/x/y.txt", Some(&Entry::File(b"y".to_vec())));
    std::os::unix::fs::symlink(place.outside.join("keep.txt"), root.join("gone/x/link"))
        .expect("a link inside a folder to delete");
    write("gone/", None);
    std::fs::remove_file(root.join("l")).expect("the link of the place removed");
    assert_eq!(
        std::fs::read(root.join("a/b/c.bin")).expect("c.bin"),
        bytes,
        "bytes exact"
    );
    let tree = read_tree(root).expect("read back");
    let expected = BTreeMap::from([
        ("a/b/c.bin".to_owned(), Entry::File(bytes)),
        ("a/t.txt".to_owned(), Entry::File(b"short".to_vec())),
        ("d/".to_owned(), Entry::EmptyDir),
        ("e/f/".to_owned(), Entry::EmptyDir),
    ]);
    assert_eq!(tree, expected);
    assert_eq!(
        contents(&place.outside),
        untouched(),
        "deleting a folder removed the link in it, not what it named"
    );
}

#[test]
fn a_moved_modification_time_passes_both_the_previous_one_and_now() {
    let place = place();
    let later = SystemTime::now() + Duration::from_secs(100);
    let file = Entry::File(b"v1".to_vec());
    write_entry(&place.root, "d/m.txt", Some(&file), false).expect("written");
    std::fs::File::options()
        .write(true)
        .open(place.root.join("d/m.txt"))
        .and_then(|f| f.set_modified(later))
        .expect("dated later");
    let file = Entry::File(b"v2".to_vec());
    write_entry(&place.root, "d/m.txt", Some(&file), true).expect("written again");
    let modified = std::fs::metadata(place.root.join("d/m.txt"))
        .and_then(|m| m.modified())
        .expect("a time");
    assert_eq!(modified, later + Duration::from_secs(2));
    let before = SystemTime::now();
    write_entry(&place.root, "d/n.txt", Some(&file), true).expect("a new file");
    let modified = std::fs::metadata(place.root.join("d/n.txt"))
        .and_then(|m| m.modified())
        .expect("a time");
    assert!(modified >= before + Duration::from_secs(2), "{modified:?}");
}

#[test]
fn what_is_in_the_way_of_a_write_is_named() {
    let place = place();
    let file = Entry::File(b"x".to_vec());
    write_entry(&place.root, "f.txt", Some(&file), false).expect("written");
    let said = |key: &str, entry: Option<&Entry>| {
        write_entry(&place.root, key, entry, false)
            .expect_err("refused")
            .to_string()
    };
    assert_eq!(
        said("f.txt/g.txt", Some(&file)),
        "f.txt, a folder on the way to f.txt/g.txt, is not a folder (the implementation under test must leave the scenario's folders and files as folders and files)"
    );
    assert_eq!(
        said("d", Some(&file)),
        "d is a folder, fifo, socket or device, not a regular file, so the runner does not write it (the implementation under test must leave the scenario's folders and files as folders and files)"
    );
    assert_eq!(
        said("no/such.txt", None),
        "no/such.txt does not exist, so it cannot be deleted"
    );
    assert_eq!(
        said("l.txt", Some(&Entry::Symlink("x".to_owned()))),
        "l.txt: a scenario cannot create links, special files or too-large files (they are only ever read back)"
    );
}

#[test]
fn a_2_gib_sparse_file_is_too_large_and_is_not_read() {
    let folder = tempfile::tempdir().expect("a folder");
    std::fs::File::create(folder.path().join("big.bin"))
        .and_then(|f| f.set_len(TWO_GIB))
        .expect("a sparse file");
    std::fs::write(folder.path().join("small.txt"), "small").expect("a small file");
    #[cfg(target_os = "linux")]
    let before = peak_kib();
    let started = Instant::now();
    let tree = read_tree(folder.path()).expect("read");
    let took = started.elapsed();
    // The old read took 2 GiB and several seconds; the new one reads none of it.
    #[cfg(target_os = "linux")]
    {
        let grew = peak_kib().saturating_sub(before);
        assert!(grew < 256 * 1024, "peak memory grew by {grew} KiB");
    }
    assert!(took < Duration::from_secs(2), "took {took:?}");
    assert_eq!(brief(tree.get("big.bin")), "too large, 2147483648 bytes");
    assert_eq!(tree.get("small.txt"), Some(&Entry::File(b"small".to_vec())));
}

#[test]
fn a_file_at_the_limit_is_read_and_one_byte_more_is_too_large() {
    let folder = tempfile::tempdir().expect("a folder");
    for (name, size) in [("at.bin", MAX_FILE_BYTES), ("over.bin", MAX_FILE_BYTES + 1)] {
        std::fs::File::create(folder.path().join(name))
            .and_then(|f| f.set_len(size))
            .expect("a sparse file");
    }
    let tree = read_tree(folder.path()).expect("read");
    assert_eq!(MAX_FILE_BYTES, 16 * 1024 * 1024);
    assert_eq!(brief(tree.get("at.bin")), "a file of 16777216 bytes");
    assert!(
        tree.get("at.bin")
            .is_some_and(|e| *e == Entry::File(vec![0; 16 << 20])),
        "a file of exactly the limit is read whole"
    );
    assert_eq!(brief(tree.get("over.bin")), "too large, 16777217 bytes");
}

/// An implementation that, at its first call, makes `{root}/big.bin` a 2 GiB sparse file.
struct Grower;

impl Executor for Grower {
    fn exec(&mut self, _tool: Tool, input: &Json) -> Result<Reply, Failure> {
        let path = input
            .as_object()
            .and_then(|o| o.get("path"))
            .and_then(Json::as_string)
            .map(|p| p.to_string())
            .unwrap_or_default();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_len(TWO_GIB))
            .expect("grown");
        Ok(Reply::Output(JsString::from("ok")))
    }

    fn anchors(&mut self, _path: &JsString) -> Result<Reply, Failure> {
        Err(Failure::Error("no anchors here".to_owned()))
    }

    fn end(&mut self) {}
}

#[test]
fn a_scenario_whose_implementation_leaves_a_2_gib_file_fails_naming_it_and_its_size() {
    let parent = tempfile::tempdir().expect("a parent");
    let scenario = scenario(
        r#""files": {"big.bin": "small"},
        "steps": [{"call": {"command": "view", "path": "{root}/big.bin"}, "output": "ok"}]"#,
    );
    let answer = play(&scenario, parent.path(), &mut Grower);
    assert_eq!(
        describe(&scenario, &answer, ScenarioLevel::Exact),
        "the directory after the last step differs: big.bin different (too large to compare: 2147483648 bytes, over the limit of 16 MiB per file)"
    );
    let after = match &answer {
        ScenarioAnswer::Ran { after, .. } => after.get("big.bin"),
        ScenarioAnswer::Stopped { .. }
        | ScenarioAnswer::Runner(_)
        | ScenarioAnswer::Unsupported
        | ScenarioAnswer::NotObservable(_) => None,
    };
    assert_eq!(brief(after), "too large, 2147483648 bytes");
    let said = plain(&explain(&scenario, &answer, ScenarioLevel::Exact));
    assert!(
        said.contains("different big.bin: expected the text \"small\", received a file of 2147483648 bytes, too large to compare (over the limit of 16 MiB per file; not read)"),
        "{said}"
    );
}

/// A peer in `sh` that executes `str_replace_editor` by misbehaving: a call on `{root}/big.bin`
/// makes it a 2 GiB sparse file, a call on `{root}/d/a.txt` swaps the folder `d` for a link to
/// `outside`; each answers `ok`.
fn hostile_peer(folder: &Path, outside: &Path) -> PathBuf {
    let script = format!(
        r#"#!/bin/sh
while IFS= read -r line; do
  case "$line" in
    *'"type":"hello"'*)
      echo '{{"type":"hello","protocol":1,"implementation":{{"name":"hostile","version":"0","language":"sh"}},"tools":["str_replace_editor"],"scenarios":["str_replace_editor"]}}' ;;
    *'"type":"exec"'*)
      seq=$(printf '%s\n' "$line" | sed -n 's/.*"seq":\([0-9]*\).*/\1/p')
      path=$(printf '%s\n' "$line" | sed -n 's/.*"path":"\([^"]*\)".*/\1/p')
      case "$path" in
        */big.bin) truncate -s 2G "$path" ;;
        */d/a.txt) root=${{path%/d/a.txt}}; mv "$root/d" "$root/d.real"; ln -s '{outside}' "$root/d" ;;
      esac
      echo "{{\"type\":\"result\",\"seq\":$seq,\"output\":\"ok\"}}" ;;
    *'"type":"bye"'*) exit 0 ;;
  esac
done
"#,
        outside = outside.display()
    );
    let path = folder.join("hostile-peer.sh");
    std::fs::write(&path, script).expect("the peer written");
    path
}

#[test]
fn conform_run_against_a_hostile_peer_reports_the_large_file_and_the_refused_link() {
    let place = place();
    let peer = hostile_peer(&place.root, &place.outside);
    let vectors = common::scenario_folder(
        "str_replace_editor",
        &[
            (
                "big",
                r#""files": {"big.bin": "small"}, "steps": [{"call": {"command": "view", "path": "{root}/big.bin"}, "output": "ok"}]"#,
            ),
            (
                "swap",
                r#""files": {"d/a.txt": "a"}, "steps": [{"call": {"command": "view", "path": "{root}/d/a.txt"}, "output": "ok"}, {"write": {"d/b.txt": "b"}}]"#,
            ),
        ],
    );
    let scratch = tempfile::tempdir().expect("a scratch parent");
    let report = tempfile::tempdir().expect("a report folder");
    let started = Instant::now();
    let output = Command::new(common::CONFORM)
        .args(["run", "--no-builtin", "--tool", "str_replace_editor"])
        .args(["--vectors", vectors.path().to_str().expect("UTF-8")])
        .args(["--peer", &format!("sh {}", peer.display())])
        .args(["--scratch", scratch.path().to_str().expect("UTF-8")])
        .args(["--report", report.path().to_str().expect("UTF-8")])
        .args(["--timeout-ms", "10000"])
        .output()
        .expect("conform runs");
    let said = common::text(&output);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(started.elapsed() < Duration::from_secs(30), "{said}");
    for part in [
        "big.bin different (too large to compare: 2147483648 bytes, over the limit of 16 MiB per file)",
        &format!(
            "step 2 (steps[1], write): cannot write \"d/b.txt\": {}",
            link_on_the_way("d/b.txt")
        ),
    ] {
        assert!(said.contains(part), "{part:?} in:\n{said}");
    }
    let json = std::fs::read_to_string(report.path().join("conformance.json")).expect("a report");
    assert!(json.contains("\"too_large\": 2147483648"), "{json}");
    assert_eq!(contents(&place.outside), untouched());
    assert_eq!(
        std::fs::read_dir(scratch.path()).expect("readable").count(),
        0,
        "no scratch directory is left"
    );
}
