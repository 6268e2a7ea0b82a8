//! The suite: every vector and scenario of its sources (the built-in set, vectors folders), read
//! file by file in sorted path order; a file holds vectors or scenarios, and ids are unique per
//! tool across both and across all sources.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use vvoc_reference::{Json, Tool};

use crate::load::builtin;
use crate::load::digest::set_digest;
use crate::load::error::{FileProblem, LoadError, VectorProblem};
use crate::load::scenario::parse_scenario;
use crate::load::sources::{Source, SuiteFile};
use crate::load::vector::{Vector, parse_vector};
use crate::load::web::parse_web_scenario;
use crate::load::workflow::parse_workflow_scenario;
use crate::parallel::map_in_order;
use crate::scenario::model::{Scenario, ScenarioProblem};
use crate::web::model::WebScenario;
use crate::workflow::model::WorkflowScenario;

/// Everything the vectors folders hold.
#[derive(Clone, Debug, Default)]
pub struct Suite {
    /// The vectors, in load order.
    pub vectors: Vec<Vector>,
    /// The scenarios, in load order.
    pub scenarios: Vec<Scenario>,
    /// The web scenarios, in load order.
    pub web: Vec<WebScenario>,
    /// The workflow scenarios, in load order.
    pub workflow: Vec<WorkflowScenario>,
    /// Every full name (`<tool>:<id>`) in load order, vectors and scenarios mixed as in the files.
    pub names: Vec<String>,
    /// How many files held vectors and how many held scenarios.
    pub files: (usize, usize),
    /// The digest of every file loaded, as `conform --version` gives the built-in set's: the
    /// built-in set alone has the built-in digest.
    pub digest: String,
}

/// Where an id was first used.
struct First {
    kind: &'static str,
    file: PathBuf,
    index: usize,
}

/// Loads every vector and scenario of every folder, in folder order then sorted path order.
pub fn load_suite(dirs: &[PathBuf]) -> Result<Suite, LoadError> {
    let sources: Vec<Source> = dirs.iter().cloned().map(Source::Folder).collect();
    load_sources(&sources)
}

/// Loads every vector and scenario of every source (the built-in set, folders), in source order
/// then sorted path order.
pub fn load_sources(sources: &[Source]) -> Result<Suite, LoadError> {
    let mut suite = Suite::default();
    let mut seen: HashMap<(Tool, String), First> = HashMap::new();
    // What the digest covers: a folder's `*.json` files, the built-in set's every file (as
    // `conform --version` digests it, so the built-in set alone has its digest).
    let mut digested: Vec<(String, Vec<u8>)> = Vec::new();
    for set in sources {
        let files = set.files()?;
        // Parsed on every core; taken in file order, so the first error in file order is the one
        // reported, as if the files were read one after another.
        let parts = map_in_order(&files, |f| parse_suite_file(&f.file, &f.text));
        for (SuiteFile { file, source, .. }, part) in files.iter().zip(parts) {
            let part = part?;
            suite.files.0 += part.files.0;
            suite.files.1 += part.files.1;
            // An id is taken once per tool, by a vector or a scenario of any kind.
            let mut admit = |tool: Tool, id: &str, kind: &'static str, at: &Path, index: usize| {
                let key = (tool, id.to_owned());
                if let Some(first) = seen.get(&key) {
                    return Err(duplicate(kind, at, index, id.to_owned(), first));
                }
                seen.insert(key, first(kind, file, index));
                Ok(())
            };
            for mut vector in part.vectors {
                vector.source.clone_from(source);
                admit(
                    vector.tool,
                    &vector.id,
                    "vector",
                    &vector.file,
                    vector.index,
                )?;
                suite.names.push(vector.name());
                suite.vectors.push(vector);
            }
            for mut scenario in part.scenarios {
                scenario.source.clone_from(source);
                admit(
                    scenario.tool,
                    &scenario.id,
                    "scenario",
                    &scenario.file,
                    scenario.index,
                )?;
                suite.names.push(scenario.name());
                suite.scenarios.push(scenario);
            }
            for mut scenario in part.web {
                scenario.source.clone_from(source);
                admit(
                    scenario.tool,
                    &scenario.id,
                    "scenario",
                    &scenario.file,
                    scenario.index,
                )?;
                suite.names.push(scenario.name());
                suite.web.push(scenario);
            }
            for mut scenario in part.workflow {
                scenario.source.clone_from(source);
                admit(
                    scenario.tool,
                    &scenario.id,
                    "scenario",
                    &scenario.file,
                    scenario.index,
                )?;
                suite.names.push(scenario.name());
                suite.workflow.push(scenario);
            }
        }
        match set {
            Source::Builtin => digested.extend(
                builtin::files()
                    .iter()
                    .map(|f| (f.path.to_owned(), f.bytes.to_vec())),
            ),
            Source::Folder(_) => {
                digested.extend(files.into_iter().map(|f| (f.source, f.text.into_bytes())));
            }
        }
    }
    let parts: Vec<(&str, &[u8])> = digested
        .iter()
        .map(|(path, bytes)| (path.as_str(), bytes.as_slice()))
        .collect();
    suite.digest = set_digest(&parts);
    Ok(suite)
}

fn first(kind: &'static str, file: &Path, index: usize) -> First {
    First {
        kind,
        file: file.to_owned(),
        index,
    }
}

/// An id used again: a vector's or a scenario's error, as `what` (`"vector"`) says.
fn duplicate(what: &str, file: &Path, index: usize, id: String, first: &First) -> LoadError {
    match what {
        "vector" => duplicate_vector(file, index, id, first),
        _ => duplicate_scenario(file, index, id, first),
    }
}

fn duplicate_vector(file: &Path, index: usize, id: String, first: &First) -> LoadError {
    LoadError::Vector {
        file: file.to_owned(),
        index,
        id: Some(id),
        problem: VectorProblem::DuplicateId {
            first_kind: first.kind,
            first_file: first.file.clone(),
            first_index: first.index,
        },
    }
}

fn duplicate_scenario(file: &Path, index: usize, id: String, first: &First) -> LoadError {
    LoadError::Scenario {
        file: file.to_owned(),
        index,
        id: Some(id),
        problem: Box::new(ScenarioProblem::DuplicateId {
            first_kind: first.kind,
            first_file: first.file.clone(),
            first_index: first.index,
        }),
    }
}

/// Parses the text of one file: a vector file or a scenario file.
pub fn parse_suite_file(file: &Path, text: &str) -> Result<Suite, LoadError> {
    let json = Json::parse(text).map_err(|error| LoadError::Json {
        file: file.to_owned(),
        error,
    })?;
    let file_error = |problem| LoadError::File {
        file: file.to_owned(),
        problem,
    };
    let top = json
        .as_object()
        .ok_or_else(|| file_error(FileProblem::NotObject))?;
    let scenario_file = top.contains("scenarios");
    if scenario_file && top.contains("vectors") {
        return Err(file_error(FileProblem::BothKinds));
    }
    let list = if scenario_file {
        "scenarios"
    } else {
        "vectors"
    };
    if let Some((name, _)) = top
        .iter()
        .find(|(k, _)| !(k.eq_str("tool") || k.eq_str(list)))
    {
        let name = name.to_string();
        return Err(file_error(if scenario_file {
            FileProblem::UnknownScenarioFileMember(name)
        } else {
            FileProblem::UnknownMember(name)
        }));
    }
    let tool_name = top
        .get("tool")
        .and_then(Json::as_string)
        .ok_or_else(|| file_error(FileProblem::MissingTool))?;
    let tool: Tool = tool_name
        .to_string()
        .parse()
        .map_err(|_| file_error(FileProblem::UnknownTool(tool_name.to_string())))?;
    let items = top.get(list).and_then(Json::as_array).ok_or_else(|| {
        file_error(if scenario_file {
            FileProblem::MissingScenarios
        } else {
            FileProblem::MissingVectors
        })
    })?;
    let kind = match scenario_file {
        false => Kind::Vectors,
        true if crate::web::is_web(tool) => Kind::Web,
        true if crate::workflow::is_workflow(tool) => Kind::Workflow,
        true => Kind::Scenarios,
    };
    let mut suite = parse_items(tool, file, items, kind)?;
    suite.files = (usize::from(!scenario_file), usize::from(scenario_file));
    Ok(suite)
}

/// What a file's items are.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Vectors,
    Scenarios,
    Web,
    Workflow,
}

/// The items of one file, each parsed as `kind` says, ids unique within the file.
fn parse_items(tool: Tool, file: &Path, items: &[Json], kind: Kind) -> Result<Suite, LoadError> {
    let mut suite = Suite::default();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (index, item) in items.iter().enumerate() {
        let (id, what) = match kind {
            Kind::Web => {
                let scenario = parse_web_scenario(tool, file, index, item)?;
                suite.names.push(scenario.name());
                let id = scenario.id.clone();
                suite.web.push(scenario);
                (id, "scenario")
            }
            Kind::Workflow => {
                let scenario = parse_workflow_scenario(tool, file, index, item)?;
                suite.names.push(scenario.name());
                let id = scenario.id.clone();
                suite.workflow.push(scenario);
                (id, "scenario")
            }
            Kind::Scenarios => {
                let scenario = parse_scenario(tool, file, index, item)?;
                suite.names.push(scenario.name());
                let id = scenario.id.clone();
                suite.scenarios.push(scenario);
                (id, "scenario")
            }
            Kind::Vectors => {
                let vector = parse_vector(tool, file, index, item)?;
                suite.names.push(vector.name());
                let id = vector.id.clone();
                suite.vectors.push(vector);
                (id, "vector")
            }
        };
        if let Some(&first_index) = seen.get(&id) {
            return Err(duplicate(
                what,
                file,
                index,
                id,
                &first(what, file, first_index),
            ));
        }
        seen.insert(id, index);
    }
    Ok(suite)
}

/// Loads every vector of every folder, in folder order then sorted path order (scenario files are
/// checked as well, and their ids count, but only the vectors are returned).
pub fn load_vectors(dirs: &[PathBuf]) -> Result<Vec<Vector>, LoadError> {
    load_suite(dirs).map(|suite| suite.vectors)
}

/// Parses the text of one vector file (a scenario file gives no vector).
pub fn parse_vector_file(file: &Path, text: &str) -> Result<Vec<Vector>, LoadError> {
    parse_suite_file(file, text).map(|suite| suite.vectors)
}
