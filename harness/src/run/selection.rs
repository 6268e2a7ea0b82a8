//! Which vectors and scenarios a run takes: tools, a name filter, exact names, one kind or both.

use vvoc_reference::Tool;

use crate::load::vector::Vector;
use crate::scenario::model::Scenario;

/// Which vectors and scenarios a run takes.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// Only these tools (all when empty).
    pub tools: Vec<Tool>,
    /// Only vectors and scenarios whose full name contains this text.
    pub filter: Option<String>,
    /// Only vectors and scenarios of exactly these full names (all when empty).
    pub names: Vec<String>,
    /// Only vectors, or only scenarios (both when `None`).
    pub only: Option<Kind>,
}

/// The two kinds of test a suite holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// Accept and reject vectors: what a tool accepts.
    Vectors,
    /// Scenarios: what a valid call of an editor or a web tool does.
    Scenarios,
}

impl Selection {
    /// Whether the vector is selected.
    pub fn keeps(&self, vector: &Vector) -> bool {
        self.only != Some(Kind::Scenarios) && self.keeps_name(vector.tool, &vector.name())
    }

    /// Whether the scenario is selected.
    pub fn keeps_scenario(&self, scenario: &Scenario) -> bool {
        self.keeps_scenario_named(scenario.tool, &scenario.name())
    }

    /// Whether a scenario of `tool` named `name` is selected (a web scenario, say).
    pub fn keeps_scenario_named(&self, tool: Tool, name: &str) -> bool {
        self.only != Some(Kind::Vectors) && self.keeps_name(tool, name)
    }

    fn keeps_name(&self, tool: Tool, name: &str) -> bool {
        (self.tools.is_empty() || self.tools.contains(&tool))
            && self
                .filter
                .as_ref()
                .is_none_or(|f| name.contains(f.as_str()))
            && (self.names.is_empty() || self.names.iter().any(|n| n == name))
    }
}
