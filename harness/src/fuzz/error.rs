//! Why a fuzz run could not be carried out.

use crate::peer::options::Unusable;

/// Why a run could not be carried out.
#[derive(Debug)]
pub enum FuzzError {
    /// A peer could not be started or greeted.
    Unusable(Unusable),
    /// No selected tool is implemented by both sides.
    NoTools {
        /// What the peer implements.
        peer: Vec<String>,
    },
    /// The runner broke the protocol (`--validate-protocol`): a bug of this program.
    RunnerProtocol(Vec<String>),
}

impl std::fmt::Display for FuzzError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FuzzError::Unusable(reason) => write!(f, "the peer is unusable: {reason}"),
            FuzzError::NoTools { peer } => write!(
                f,
                "the peer implements none of the selected tools (its hello lists: {})",
                peer.join(", ")
            ),
            FuzzError::RunnerProtocol(violations) => write!(
                f,
                "this runner broke the protocol (a bug, please report it):\n{}",
                violations.join("\n")
            ),
        }
    }
}

impl std::error::Error for FuzzError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_without_tools_names_what_the_peer_implements() {
        let error = FuzzError::NoTools {
            peer: vec!["web_search".to_owned(), "web_fetch".to_owned()],
        };
        assert_eq!(
            error.to_string(),
            "the peer implements none of the selected tools (its hello lists: web_search, web_fetch)"
        );
    }
}
