//! `conform exec`: one call of a tool, and `conform check`'s and `exec`'s input text.

use std::io::Read as _;

use anyhow::{Context as _, Result, bail};
use vvoc_reference::exec::{self, Outcome, Session};
use vvoc_reference::{Json, Tool};

use super::{FAILED, OK, write_out};

/// `conform exec`: one call, an editor's in the current directory or a web tool's over the
/// network.
pub(crate) fn exec_once(tool: &str, input: Option<String>, host: Option<String>) -> Result<u8> {
    let tool: Tool = tool.parse()?;
    let input = Json::parse(&input_text(input)?).context("the input is not valid JSON")?;
    if vvoc_harness::web::is_web(tool) {
        let host =
            Json::parse(host.as_deref().unwrap_or("{}")).context("--host is not valid JSON")?;
        let host = exec::web::Host::from_json(&host).map_err(|e| anyhow::anyhow!("--host: {e}"))?;
        let call = exec::web::execute_web(tool, &input, &host);
        for ask in &call.asks {
            eprintln!("asked: {}", ask.to_compact());
        }
        return match call.result {
            Ok(result) => {
                say!("{}", result.to_pretty());
                Ok(OK)
            }
            Err(text) => {
                eprintln!("raised: {text}");
                Ok(FAILED)
            }
        };
    }
    if host.is_some() {
        bail!("--host goes only with web_fetch and web_search");
    }
    match exec::execute(tool, &input, &mut Session::new())? {
        Outcome::Output(text) => {
            say!("{text}");
            let error = text
                .units()
                .starts_with(&"Error: ".encode_utf16().collect::<Vec<_>>());
            Ok(if error { FAILED } else { OK })
        }
        Outcome::Throws(text) => {
            eprintln!("raised: {text}");
            Ok(FAILED)
        }
    }
}

pub(crate) fn input_text(input: Option<String>) -> Result<String> {
    Ok(match input {
        Some(text) => text,
        None => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .context("cannot read the input from standard input")?;
            text
        }
    })
}
