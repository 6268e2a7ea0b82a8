//! An implementation under test is hostile to its scratch directory: it swaps a folder for a
//! symbolic link to a folder outside (before a write step, or at any moment while the runner
//! writes or reads). The runner never writes, deletes or reads through a link (every name is
//! opened with `O_NOFOLLOW` relative to its folder's descriptor). Ordinary writes are unchanged:
//! nested folders made, bytes exact, modification times moved.

#![cfg(unix)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use vvoc_harness::load::suite::parse_suite_file;
use vvoc_harness::outcome::Failure;
use vvoc_harness::scenario::model::{Reply, Scenario};
use vvoc_harness::scenario::play::{Executor, ScenarioAnswer, play};
use vvoc_harness::scenario::tree::{Entry, read_tree, write_entry};
use vvoc_reference::{JsString, Json, Tool};

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

fn untouched() -> BTreeMap<String, String> {
    BTreeMap::from([("keep.txt".to_owned(), "SECRET".to_owned())])
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
        "l.txt: a scenario cannot create links or special files (they are only ever read back)"
    );
}
