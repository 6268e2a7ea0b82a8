//! Progress of a run: one updating line on a terminal, a plain line per mutant elsewhere (CI).

use std::io::IsTerminal as _;
use std::sync::Mutex;
use std::time::Instant;

use super::outcome::{RowOutcome, RowResult};

/// Rows done so far, of how many.
#[derive(Debug)]
pub struct Progress {
    total: usize,
    jobs: usize,
    started: Instant,
    counts: Mutex<Counts>,
    terminal: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    done: usize,
    caught: usize,
    problems: usize,
}

impl Progress {
    /// Progress over `total` rows run by `jobs` workers.
    pub fn new(total: usize, jobs: usize) -> Progress {
        Progress {
            total,
            jobs,
            started: Instant::now(),
            counts: Mutex::new(Counts::default()),
            terminal: std::io::stderr().is_terminal(),
        }
    }

    /// Records the rows of one mutant.
    pub fn record(&self, rows: &[RowResult]) {
        let Ok(mut counts) = self.counts.lock() else {
            return;
        };
        for row in rows {
            counts.done += 1;
            if row.outcome == RowOutcome::Caught {
                counts.caught += 1;
            } else if row.outcome.is_problem() {
                counts.problems += 1;
            }
        }
        let Counts {
            done,
            caught,
            problems,
        } = *counts;
        let elapsed = self.started.elapsed().as_secs_f64();
        let eta = elapsed / done.max(1) as f64 * (self.total - done.min(self.total)) as f64;
        if self.terminal {
            eprint!(
                "\r\x1b[2Krows {done}/{} · caught {caught} · problems {problems} · ETA {eta:.0} s ({} jobs)",
                self.total, self.jobs
            );
        } else if let Some(row) = rows.first() {
            eprintln!(
                "[{done}/{}] {:<9} {:>6.2} s  {}{}",
                self.total,
                row.outcome.as_str(),
                row.duration.as_secs_f64(),
                row.row.id,
                if rows.len() > 1 {
                    format!(" (+{} rows with the same change)", rows.len() - 1)
                } else {
                    String::new()
                }
            );
        }
    }

    /// Ends the updating line.
    pub fn finish(&self) {
        if self.terminal {
            eprintln!();
        }
    }
}
