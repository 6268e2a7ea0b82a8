//! The received side of `conform fuzz --mcp CMD`: an MCP server asked by `tools/call`, one
//! input at a time. Only the inputs the reference refuses and that are JSON objects are sent;
//! the others are not observable over MCP (an accepted call would execute the tool). A server
//! that timed out, crashed or broke the protocol is restarted within the run's budget.

use vvoc_reference::{Json, Tool, Verdict};

use crate::mcp_client::run::implementation;
use crate::mcp_client::servers::{Server, Servers};
use crate::mcp_client::vectors::{ACCEPT_NOT_OBSERVABLE, NOT_AN_OBJECT};
use crate::outcome::Answer;
use crate::peer::options::Unusable;
use crate::protocol::hello::Implementation;

/// One worker's MCP server.
#[derive(Debug)]
pub struct McpSide<'p, 'o> {
    servers: &'p Servers<'o>,
    /// The running server (none once it could not be restarted).
    server: Option<Server>,
}

impl<'p, 'o> McpSide<'p, 'o> {
    /// Starts and initializes a server of `servers`.
    pub fn start(servers: &'p Servers<'o>) -> Result<McpSide<'p, 'o>, Unusable> {
        let server = servers.start(None)?;
        Ok(McpSide {
            servers,
            server: Some(server),
        })
    }

    /// Who the server is and which tools of the suite it serves (by `tools/list`).
    pub fn hello(&mut self) -> Result<Implementation, Unusable> {
        let server = self.running()?;
        let listed = server.session.list_tools().map_err(Unusable)?;
        let served: Vec<String> = Tool::ALL
            .into_iter()
            .filter(|t| listed.iter().any(|l| l.name == t.id()))
            .map(|t| t.id().to_owned())
            .collect();
        Ok(implementation(&server.session.info, &served))
    }

    /// The server's answer to `input` of `tool`, on which the reference's verdict is
    /// `reference`: not observable when the reference accepts it or it is no JSON object, else
    /// the result of its `tools/call` or how the call failed. A server the call broke is
    /// restarted; an error when no restart is left or the restart failed.
    pub fn answer(
        &mut self,
        tool: Tool,
        input: &Json,
        reference: &Verdict,
    ) -> Result<Answer, Unusable> {
        if reference.is_accept() {
            return Ok(Answer::NotObservable(ACCEPT_NOT_OBSERVABLE.to_owned()));
        }
        match input {
            Json::Object(_) => {}
            Json::Null | Json::Bool(_) | Json::Number(_) | Json::String(_) | Json::Array(_) => {
                return Ok(Answer::NotObservable(NOT_AN_OBJECT.to_owned()));
            }
        }
        let server = self.running()?;
        let answer = match server.session.call_tool(tool.id(), input) {
            Ok(result) => Answer::Mcp(result),
            Err(failure) => Answer::Failed(failure),
        };
        if server.session.broken() {
            if let Some(server) = self.server.take() {
                self.servers.finish(server);
            }
            self.servers.take_restart()?;
            self.server = Some(self.servers.start(None)?);
        }
        Ok(answer)
    }

    /// Ends the server, keeping its stderr tail.
    pub fn finish(self) {
        if let Some(server) = self.server {
            self.servers.finish(server);
        }
    }

    fn running(&mut self) -> Result<&mut Server, Unusable> {
        self.server
            .as_mut()
            .ok_or_else(|| Unusable("the MCP server could not be restarted".to_owned()))
    }
}
