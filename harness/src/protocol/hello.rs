//! The peer's hello (interfaces.md §4, §9.2): the implementation it is, the tools it implements
//! and those it executes; written by peers, read by the runner.

use vvoc_reference::{Json, Object, Tool};

use crate::protocol::wire::{PROTOCOL, expect_type, message};

/// The implementation a run talked to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Implementation {
    /// Its name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// Its language.
    pub language: String,
    /// The tools it implements.
    pub tools: Vec<String>,
    /// The tools it executes (its hello's optional `scenarios`).
    pub scenarios: Vec<String>,
}

impl Implementation {
    /// The schema of the hello (`--validate-protocol`).
    pub(crate) const SCHEMA: &str = "peer-hello";

    /// The in-process reference implementation (also `conform peer`).
    pub fn reference() -> Implementation {
        Implementation {
            name: "vvoc-reference".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            language: "rust".to_owned(),
            tools: Tool::ALL.iter().map(|t| t.id().to_owned()).collect(),
            scenarios: Tool::ALL
                .iter()
                .filter(|t| crate::has_scenarios(**t))
                .map(|t| t.id().to_owned())
                .collect(),
        }
    }

    /// The hello as one line of JSON, without the newline; `scenarios` only when it executes any.
    pub fn hello_line(&self) -> String {
        let ids = |ids: &[String]| Json::Array(ids.iter().map(|t| Json::str(t)).collect());
        let mut implementation = Object::new();
        implementation.insert("name", Json::str(&self.name));
        implementation.insert("version", Json::str(&self.version));
        implementation.insert("language", Json::str(&self.language));
        let mut hello = Object::new();
        hello.insert("type", Json::str("hello"));
        hello.insert("protocol", Json::Number(f64::from(PROTOCOL)));
        hello.insert("implementation", Json::Object(implementation));
        hello.insert("tools", ids(&self.tools));
        if !self.scenarios.is_empty() {
            hello.insert("scenarios", ids(&self.scenarios));
        }
        Json::Object(hello).to_compact()
    }

    /// Reads a peer's hello.
    pub(crate) fn read_hello(line: &str) -> Result<Implementation, String> {
        let message = message(line)?;
        expect_type(&message, "hello")?;
        match message.get("protocol").and_then(Json::as_f64) {
            Some(p) if p == f64::from(PROTOCOL) => {}
            Some(p) => {
                return Err(format!(
                    "the peer speaks protocol {p}, this runner speaks {PROTOCOL}"
                ));
            }
            None => return Err("the hello has no numeric \"protocol\"".to_owned()),
        }
        let implementation = message
            .get("implementation")
            .and_then(Json::as_object)
            .ok_or("the hello has no \"implementation\" object")?;
        let text = |name: &str| {
            implementation
                .get(name)
                .and_then(Json::as_string)
                .map(|s| s.to_string())
                .ok_or_else(|| format!("the hello's implementation has no string {name:?}"))
        };
        let tools = message
            .get("tools")
            .and_then(Json::as_array)
            .ok_or("the hello has no \"tools\" array")?;
        let tools = tool_ids("tools", tools)?;
        let scenarios = match message.get("scenarios") {
            None => Vec::new(),
            Some(Json::Array(ids)) => tool_ids("scenarios", ids)?,
            Some(_) => {
                return Err("the hello's \"scenarios\" must be an array of tool ids".to_owned());
            }
        };
        Ok(Implementation {
            name: text("name")?,
            version: text("version")?,
            language: text("language")?,
            tools,
            scenarios,
        })
    }
}

/// The tool ids of the hello's member `member`.
fn tool_ids(member: &str, ids: &[Json]) -> Result<Vec<String>, String> {
    ids.iter()
        .map(|t| {
            let id = t
                .as_string()
                .map(|s| s.to_string())
                .ok_or_else(|| format!("{member:?} must hold tool ids"))?;
            id.parse::<Tool>()
                .map(|_| id)
                .map_err(|unknown| format!("{member:?} names an {unknown}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::Implementation;

    #[test]
    fn a_hello_reads_back_and_names_scenarios_only_when_there_are_some() {
        let reference = Implementation::reference();
        assert_eq!(
            Implementation::read_hello(&reference.hello_line()),
            Ok(reference.clone())
        );
        let checks_only = Implementation {
            scenarios: Vec::new(),
            ..reference
        };
        let line = checks_only.hello_line();
        assert!(!line.contains("scenarios"), "{line}");
        assert_eq!(Implementation::read_hello(&line), Ok(checks_only));
        let bad = Implementation::read_hello(r#"{"type":"hello","protocol":2}"#);
        assert_eq!(
            bad,
            Err("the peer speaks protocol 2, this runner speaks 1".to_owned())
        );
    }
}
