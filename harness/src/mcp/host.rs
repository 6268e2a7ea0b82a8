//! The web tools' host configuration for `conform mcp`: `--host` JSON, with the provider credentials of the environment.

use std::fmt;

use vvoc_reference::Json;
use vvoc_reference::exec::web::{Host, HostError};

/// The variables upstream reads a provider's credential from (execution-web.md §1.2), in the
/// table's order: Exa, Brave, Spider, Z.AI.
pub const CREDENTIAL_VARIABLES: [&str; 4] = [
    "EXA_API_KEY",
    "BRAVE_API_KEY",
    "SPIDER_API_KEY",
    "ZAI_API_KEY",
];

/// Why the host configuration was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WebHostError {
    /// `--host` is not JSON text.
    NotJson(String),
    /// `--host` is JSON but not a host configuration.
    Host(HostError),
}

impl fmt::Display for WebHostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WebHostError::NotJson(error) => write!(f, "--host is not valid JSON: {error}"),
            WebHostError::Host(error) => write!(f, "--host: {error}"),
        }
    }
}

impl std::error::Error for WebHostError {}

/// The host configuration of the web tools: `host` (the `--host` JSON text, `{}` when absent),
/// and, when it gives no `env` member, the credential variables `var` finds (the process
/// environment, as upstream reads it). A `host` with `env` is taken as the whole environment.
///
/// # Errors
///
/// `host` is not JSON, or not a host configuration (the member and the fix named).
pub fn web_host(
    host: Option<&str>,
    var: impl Fn(&str) -> Option<String>,
) -> Result<Host, WebHostError> {
    let value = Json::parse(host.unwrap_or("{}"))
        .map_err(|error| WebHostError::NotJson(error.to_string()))?;
    let mut config = Host::from_json(&value).map_err(WebHostError::Host)?;
    let gives_env = value.as_object().is_some_and(|o| o.contains("env"));
    if !gives_env {
        for name in CREDENTIAL_VARIABLES {
            if let Some(value) = var(name) {
                config.env.push((name.to_owned(), value));
            }
        }
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    use vvoc_reference::Tool;
    use vvoc_reference::exec::web::execute_web;

    use super::*;

    /// Every provider that needs a credential names, in its missing-credential text, a
    /// variable of the list (so the list cannot drift from the reference's).
    #[test]
    fn every_credential_variable_the_reference_asks_for_is_read_from_the_environment() {
        let cases = [
            (
                Tool::WebSearch,
                r#"{"query":"q"}"#,
                r#"{"search":{"provider":"exa"}}"#,
            ),
            (
                Tool::WebSearch,
                r#"{"query":"q"}"#,
                r#"{"search":{"provider":"brave"}}"#,
            ),
            (
                Tool::WebSearch,
                r#"{"query":"q"}"#,
                r#"{"search":{"provider":"zai","region":"china"}}"#,
            ),
            (
                Tool::WebFetch,
                r#"{"url":"http://127.0.0.1:9/"}"#,
                r#"{"fetch":{"provider":"spider"}}"#,
            ),
            (
                Tool::WebFetch,
                r#"{"url":"http://127.0.0.1:9/"}"#,
                r#"{"fetch":{"provider":"zai","region":"international"}}"#,
            ),
        ];
        let mut asked = Vec::new();
        for (tool, input, host) in cases {
            let host = web_host(Some(host), |_| None).expect("a host configuration");
            let input = Json::parse(input).expect("JSON");
            let raised = execute_web(tool, &input, &host)
                .result
                .err()
                .map(|t| t.to_string_lossy())
                .unwrap_or_default();
            let variable = raised
                .split("set ")
                .nth(1)
                .and_then(|rest| rest.split(' ').next())
                .unwrap_or_default()
                .to_owned();
            asked.push(variable);
        }
        asked.sort();
        asked.dedup();
        let mut listed = CREDENTIAL_VARIABLES.to_vec();
        listed.sort_unstable();
        assert_eq!(asked, listed);
    }

    #[test]
    fn the_environment_fills_env_only_when_host_gives_none() {
        let env = |name: &str| (name == "BRAVE_API_KEY").then(|| "k".to_owned());
        let filled = web_host(None, env).map(|h| h.env);
        assert_eq!(
            filled,
            Ok(vec![("BRAVE_API_KEY".to_owned(), "k".to_owned())])
        );
        let given = web_host(Some(r#"{"env":{}}"#), env).map(|h| h.env);
        assert_eq!(given, Ok(Vec::new()));
        assert!(matches!(
            web_host(Some("{"), env),
            Err(WebHostError::NotJson(_))
        ));
        assert!(matches!(
            web_host(Some("[]"), env),
            Err(WebHostError::Host(_))
        ));
    }
}
