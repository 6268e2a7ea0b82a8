//! The fixed prose of the reference document (§8.2): title, disclaimer, reading guide, baseline.

/// The document's title line.
pub const TITLE: &str = "# vvoc agent tool contracts";

/// The baseline line: its figures are constants of contract 1.6.0, not measurements.
pub const BASELINE: &str = "- Baseline (commit f4319f8, SDK @opencode-ai/plugin@1.18.2, source-extraction): descriptions 8796 bytes, projected input schemas 6815 bytes";

/// The four disclaimer lines.
pub const DISCLAIMER: [&str; 4] = [
    "> Schema acceptance is structural only. It is not authorization, not proof of evidence,",
    "> not reviewer acceptance, and not permission for a workflow transition. A declared",
    "> `writeScope` is an edit boundary, not a universal sandbox, and no tool here grants a",
    "> state transition on its own.",
];

/// The reading-guide paragraph, up to the list of tool sections.
pub const READING_GUIDE: &str = "This is an on-demand reference; load only the tool section you need rather than the whole manual. Each tool section lists a closed field table, closed vocabularies, execute-time defaults, state/host prerequisites, conditional requirements, declared path kinds, result families, representative failures, and checked accept/reject examples. Tool sections: ";
