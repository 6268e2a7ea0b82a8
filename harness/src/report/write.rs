//! Writing a run's three reports into a folder.

use std::path::Path;

use crate::report::build::conformance;
use crate::report::junit::junit;
use crate::report::markdown::render_markdown;
use crate::run::result::RunResult;

/// Writes the three reports into `dir`, creating it.
pub fn write_reports(dir: &Path, run: &RunResult) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let report = conformance(run);
    std::fs::write(
        dir.join("conformance.json"),
        format!("{}\n", report.to_json().to_pretty()),
    )?;
    std::fs::write(dir.join("conformance.md"), render_markdown(&report, run))?;
    std::fs::write(dir.join("junit.xml"), junit(run))?;
    Ok(())
}
