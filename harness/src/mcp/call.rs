//! One `tools/call` of `conform mcp`: validation first, then the host policy, then what the reference executes, as an MCP result.

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use vvoc_reference::exec::web::{Host, execute_web};
use vvoc_reference::exec::{self, Outcome, Session};
use vvoc_reference::{JsString, Json, Object, Tool, Verdict, one_line, validate_json};

use super::exact::ExactTexts;
use super::policy::Policy;
use crate::json::bridge::to_serde_lossy;

/// What every call of one server shares: the editors' root and the web tools' host.
#[derive(Clone, Debug)]
pub struct Reference {
    pub policy: Policy,
    pub host: Host,
    /// How texts with lone surrogates go out: exact on stdio, lossy over HTTP.
    pub exact: ExactTexts,
}

impl Reference {
    /// Whether a call of `tool` uses the connection's editing session (the editors), and so
    /// must run after the calls of the session before it.
    pub fn uses_session(tool: Tool) -> bool {
        matches!(tool, Tool::HashlineEdit | Tool::StrReplaceEditor)
    }

    /// The first step of a `tools/call` (its `arguments` as `input`): the normalized input of a
    /// valid call, or the refusal's error result, whose text is the one-line form (behaviour.md
    /// §1.6). Validation is pure, so a server may answer a refusal without waiting for the calls
    /// before it.
    pub fn validated(&self, tool: Tool, input: &Json) -> Result<Object, Box<CallToolResult>> {
        match validate_json(tool, input) {
            Verdict::Accept(output) => Ok(output.into_object().unwrap_or_else(Object::new)),
            Verdict::Reject(issues) => Err(Box::new(self.error_text(&one_line(&issues)))),
        }
    }

    /// The rest of a valid call (`accepted` is its normalized input): an editor's path outside
    /// the root is an error result naming it, and nothing is touched; otherwise the tool runs
    /// as the reference runs it.
    pub fn run(
        &self,
        tool: Tool,
        input: &Json,
        accepted: &Object,
        session: &mut Session,
    ) -> CallToolResult {
        match tool {
            Tool::HashlineEdit | Tool::StrReplaceEditor => {
                if let Err(refusal) = self.policy.check(tool, accepted) {
                    return error(refusal.to_string());
                }
                match exec::execute(tool, input, session) {
                    Ok(Outcome::Output(text)) => {
                        CallToolResult::success(vec![ContentBlock::text(self.exact.text(&text))])
                    }
                    Ok(Outcome::Throws(text)) => self.error_text(&text),
                    Err(not_executed) => error(not_executed.to_string()),
                }
            }
            Tool::WebSearch | Tool::WebFetch => {
                let call = execute_web(tool, input, &self.host);
                match call.result {
                    Ok(result) => web_result(&result, accepted, &self.exact),
                    Err(text) => self.error_text(&text),
                }
            }
            Tool::WorkItemOpen
            | Tool::WorkItemList
            | Tool::WorkItemClose
            | Tool::WorkItemDecide
            | Tool::WorkCheckpoint => error(format!(
                "{0}: the input is valid, but the reference does not execute {0} yet: it only validates its input (the editors and the web tools run)",
                tool.id()
            )),
        }
    }

    /// An error result with a text of the reference.
    fn error_text(&self, text: &JsString) -> CallToolResult {
        error(self.exact.text(text))
    }
}

/// A web tool's result object as an MCP result: `output` as text content, each attachment
/// as image content (an image) or an embedded resource (a PDF, under the requested URL), and
/// `metadata` as structured content.
fn web_result(result: &Json, accepted: &Object, exact: &ExactTexts) -> CallToolResult {
    let member = |name: &str| result.as_object().and_then(|o| o.get(name));
    let mut content = Vec::new();
    if let Some(output) = member("output").and_then(Json::as_string) {
        content.push(ContentBlock::text(exact.text(output)));
    }
    let requested = accepted
        .get("url")
        .and_then(Json::as_string)
        .map(JsString::to_string_lossy)
        .unwrap_or_default();
    for attachment in member("attachments")
        .and_then(Json::as_array)
        .unwrap_or(&[])
    {
        if let Some(block) = attachment_block(attachment, &requested) {
            content.push(block);
        }
    }
    let mut result = CallToolResult::success(content);
    // The metadata is a few flat members, so serde_json's recursive drop is safe for it.
    result.structured_content = member("metadata").map(|m| to_serde_lossy(m).into_inner());
    result
}

/// An attachment `{type, mime, url: "data:<mime>;base64,<data>", filename}` (execution-web.md
/// §4.3) as content: its base64 data unchanged.
fn attachment_block(attachment: &Json, requested: &str) -> Option<ContentBlock> {
    let object = attachment.as_object()?;
    let text = |name: &str| {
        object
            .get(name)
            .and_then(Json::as_string)
            .map(JsString::to_string_lossy)
    };
    let mime = text("mime")?;
    let url = text("url")?;
    let (_, data) = url.split_once(";base64,")?;
    Some(if mime.starts_with("image/") {
        ContentBlock::image(data, mime)
    } else {
        ContentBlock::resource(ResourceContents::blob(data, requested).with_mime_type(mime))
    })
}

/// An error result with one text.
fn error(text: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}
