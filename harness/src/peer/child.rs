//! Child processes in their own process groups, so that killing one also kills what it started
//! (`sh -c`, `cargo` and its `rustc`), and so that an interrupted run leaves nothing behind (no
//! child, no scenario scratch directory).
//!
//! Process groups are Unix's. Elsewhere a child is killed alone (`Child::kill`): what it started
//! may outlive it, and an interrupt kills no child (scratch directories are still removed).

use std::collections::BTreeSet;
use std::process::{Child, Command};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// The process groups of the children alive now.
static GROUPS: Mutex<BTreeSet<u32>> = Mutex::new(BTreeSet::new());

/// Set once an interrupt is being handled: from then on the handler, not the program, ends it.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Starts `command` as the leader of a new process group, remembered until [`kill`] or [`reap`].
pub fn spawn(command: &mut Command) -> std::io::Result<Child> {
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(command, 0);
    let child = command.spawn()?;
    if let Ok(mut groups) = GROUPS.lock() {
        groups.insert(child.id());
    }
    Ok(child)
}

/// Kills the child's whole process group (off Unix, the child alone) and waits for the child.
pub fn kill(child: &mut Child) {
    kill_group(child.id());
    let _ = child.kill();
    let _ = child.wait();
    forget(child.id());
}

/// Kills whatever is left of the group of a child that has exited, and forgets it.
pub fn reap(child: &Child) {
    kill_group(child.id());
    forget(child.id());
}

/// How long an interrupted run may take to stop by itself and write its reports before the
/// handler ends the program anyway.
const GRACE: std::time::Duration = std::time::Duration::from_secs(10);

/// Kills every remembered group; a run under way (`progress`) then stops by itself and writes
/// its reports, within [`GRACE`]; otherwise removes every scenario scratch directory, says how
/// far a run had got, and exits with 130
/// on SIGINT or SIGTERM (as a shell reports an interrupted command). Call once, at the start of a
/// program that starts children or runs scenarios.
pub fn kill_children_on_interrupt() {
    let _ = ctrlc::set_handler(|| {
        // First: the program, seeing its children die below, must not end by itself meanwhile
        // (see `unless_interrupted`).
        INTERRUPTED.store(true, Ordering::SeqCst);
        let groups: Vec<u32> = GROUPS
            .lock()
            .map(|g| g.iter().copied().collect())
            .unwrap_or_default();
        // A run under way stops at its next step, says what ran and writes its reports; the
        // peers are killed first, so no step waits for one.
        let graceful = crate::progress::running();
        crate::progress::stop();
        for group in groups {
            kill_group(group);
        }
        if graceful {
            let started = std::time::Instant::now();
            while !crate::progress::ended() && started.elapsed() < GRACE {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            if crate::progress::ended() {
                return;
            }
        }
        // With the peers gone, nothing writes into the scenarios' directories any more.
        crate::scenario::scratch::remove_registered();
        if let Some(line) = crate::progress::interrupted_line() {
            eprintln!("\n{line}; no report was written");
        }
        std::process::exit(130);
    });
}

/// `code`, unless an interrupt is being handled: then this waits for the handler, which ends the
/// program with 130 once the children are killed and the scratch directories removed. Without it
/// a run whose peer the interrupt killed could end first, with the run's own exit code and maybe
/// before the directories are gone. Call it on the code a program's `main` returns.
pub fn unless_interrupted<T>(code: T) -> T {
    if INTERRUPTED.load(Ordering::SeqCst) && !crate::progress::ended() {
        loop {
            std::thread::park();
        }
    }
    code
}

fn forget(id: u32) {
    if let Ok(mut groups) = GROUPS.lock() {
        groups.remove(&id);
    }
}

/// Kills the process group led by `leader` (a no-op off Unix: see the module's note).
#[cfg(unix)]
fn kill_group(leader: u32) {
    if let Ok(pid) = i32::try_from(leader) {
        // Nothing left in the group (ESRCH) is the usual, harmless answer.
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

/// Off Unix there is no process group to kill: [`kill`] kills the child alone.
#[cfg(not(unix))]
fn kill_group(_leader: u32) {}
