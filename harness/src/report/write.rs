//! Writing a report's three files into a folder, each whole or not at all.

use std::path::Path;

use crate::report::conformance::Conformance;
use crate::report::junit::junit;
use crate::report::markdown::markdown;

/// Writes `conformance.json`, `conformance.md` (at most `md_limit` characters, as far as its
/// summary allows) and `junit.xml` into `dir`, creating it. Each file is written beside its
/// place and renamed into it, so a failed write leaves the previous file, never half of one.
pub fn write_reports(dir: &Path, report: &Conformance, md_limit: usize) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (name, text) in [
        ("conformance.json", report.to_text()),
        ("conformance.md", markdown(report, md_limit)),
        ("junit.xml", junit(report)),
    ] {
        let partial = dir.join(format!(".{name}.partial"));
        std::fs::write(&partial, text)?;
        std::fs::rename(&partial, dir.join(name))?;
    }
    Ok(())
}
