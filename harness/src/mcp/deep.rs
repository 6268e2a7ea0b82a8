//! Arguments that `serde_json` cannot read but the contract can (nested past 128 levels, a number past a double, a lone surrogate): rmcp gets the call with a stand-in, and the handler takes the arguments the contract's parser read.
//!
//! A host of the contract hands a tool such inputs (behaviour.md §6, §9), and the vectors pin
//! them; rmcp reads every message into `serde_json` values and would refuse the request before
//! any tool saw it. The stand-in is one member whose name holds this process's token, so that no
//! argument a client sends can pass for one, and it is keyed by a number of its own, not by the
//! request's id, which two HTTP sessions may share.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::RequestId;
use vvoc_reference::Json;

/// The arguments kept for calls whose stand-in rmcp carries; shared by the reader (or the HTTP
/// layer) that puts them and the handlers that take them.
#[derive(Clone, Debug)]
pub struct DeepArguments(Arc<Kept>);

#[derive(Debug)]
struct Kept {
    /// The stand-in's member name.
    marker: String,
    next: AtomicU64,
    waiting: Mutex<Vec<(u64, Json)>>,
}

impl Default for DeepArguments {
    fn default() -> Self {
        let token = super::exact::token();
        DeepArguments(Arc::new(Kept {
            marker: format!("\u{FDD0}conform-arguments-{token:016x}"),
            next: AtomicU64::new(0),
            waiting: Mutex::new(Vec::new()),
        }))
    }
}

impl DeepArguments {
    /// The JSON-RPC message `value` (one request, which `serde_json` cannot read, as the
    /// contract's parser read it) as rmcp can read it, when it is a `tools/call` (JSON-RPC 2.0,
    /// an id, a string `name`, object `arguments`): its arguments kept and replaced by a
    /// stand-in; other members of its params are dropped. `None` for anything else.
    pub fn stand_in(&self, value: Json) -> Option<serde_json::Value> {
        let mut object = value.into_object()?;
        let string = |json: Option<&Json>| json.and_then(Json::as_string).and_then(|s| s.to_str());
        if string(object.get("jsonrpc")).as_deref() != Some("2.0")
            || string(object.get("method")).as_deref() != Some("tools/call")
        {
            return None;
        }
        let id = serde_json::to_value(request_id(object.get("id")?)?).ok()?;
        let mut params = object.remove("params")?.into_object()?;
        let name = string(params.get("name"))?;
        let arguments = params.remove("arguments")?;
        arguments.as_object()?;
        let n = self.0.next.fetch_add(1, Ordering::Relaxed);
        self.0
            .waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((n, arguments));
        Some(serde_json::json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": "tools/call",
            "params": {"name": name, "arguments": {self.0.marker.as_str(): n}},
        }))
    }

    /// The arguments kept for a call whose `arguments` are a stand-in; `None` for any other.
    pub fn take(
        &self,
        arguments: Option<&serde_json::Map<String, serde_json::Value>>,
    ) -> Option<Json> {
        let arguments = arguments?;
        let n = match (arguments.len(), arguments.get(&self.0.marker)) {
            (1, Some(n)) => n.as_u64()?,
            _ => return None,
        };
        let mut waiting = self
            .0
            .waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let at = waiting.iter().position(|(kept, _)| *kept == n)?;
        Some(waiting.swap_remove(at).1)
    }
}

/// A request id of the contract's JSON model as rmcp reads one: an integer or a string.
pub fn request_id(id: &Json) -> Option<RequestId> {
    match id {
        Json::String(text) => text.to_str().map(|t| RequestId::String(t.into())),
        #[expect(clippy::cast_possible_truncation, reason = "integral and within i64")]
        Json::Number(n) if n.fract() == 0.0 && n.abs() < 9.2e18 => {
            Some(RequestId::Number(*n as i64))
        }
        Json::Null | Json::Bool(_) | Json::Number(_) | Json::Array(_) | Json::Object(_) => None,
    }
}

/// The contract's reading of `text`, when it is JSON.
pub fn parsed(text: &[u8]) -> Option<Json> {
    Json::parse(std::str::from_utf8(text).ok()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_serde_json_cannot_read_goes_as_a_stand_in_and_its_arguments_come_back_once() {
        let deep = DeepArguments::default();
        let text = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"web_search","arguments":{"query":"a\ud800","count":1e400}}}"#;
        assert!(serde_json::from_slice::<serde_json::Value>(text).is_err());
        let message = deep
            .stand_in(parsed(text).expect("JSON"))
            .expect("a stand-in");
        assert_eq!(message["id"], 7);
        assert_eq!(message["params"]["name"], "web_search");
        let arguments = message["params"]["arguments"].as_object();
        let kept = deep.take(arguments).expect("the arguments");
        assert_eq!(
            kept.to_compact(),
            Json::parse(r#"{"query":"a\ud800","count":1e400}"#)
                .expect("JSON")
                .to_compact()
        );
        assert!(deep.take(arguments).is_none(), "taken once");
    }

    #[test]
    fn other_messages_and_ordinary_arguments_are_not_stand_ins() {
        let deep = DeepArguments::default();
        assert!(
            deep.stand_in(
                parsed(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#).expect("JSON")
            )
            .is_none()
        );
        assert!(parsed(b"not json").is_none());
        let ordinary = serde_json::json!({"query": "q"});
        assert!(deep.take(ordinary.as_object()).is_none());
        // A client's member that looks like a stand-in is not one: the marker holds a token.
        let forged = serde_json::json!({"\u{FDD0}conform-arguments-0000000000000000": 0});
        assert!(deep.take(forged.as_object()).is_none());
    }
}
