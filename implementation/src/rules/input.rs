//! Read access to the normalized output the branch rules check.

use crate::js_string::JsString;
use crate::json::{Json, Object};

/// Read access to a normalized object, where "present" means "in the output".
#[derive(Clone, Copy, Debug)]
pub(crate) struct Input<'a>(&'a Object);

impl<'a> Input<'a> {
    pub(crate) fn new(object: &'a Object) -> Input<'a> {
        Input(object)
    }

    pub(crate) fn has(self, name: &str) -> bool {
        self.0.contains(name)
    }

    /// The names of the members, in order.
    pub(crate) fn names(self) -> impl Iterator<Item = &'a JsString> {
        self.0.iter().map(|(name, _)| name)
    }

    pub(crate) fn string(self, name: &str) -> Option<&'a JsString> {
        self.0.get(name).and_then(Json::as_string)
    }

    pub(crate) fn list(self, name: &str) -> Option<&'a [Json]> {
        self.0.get(name).and_then(Json::as_array)
    }

    pub(crate) fn is_true(self, name: &str) -> bool {
        matches!(self.0.get(name), Some(Json::Bool(true)))
    }

    /// Whether the member is absent or an empty array.
    pub(crate) fn absent_or_empty(self, name: &str) -> bool {
        self.list(name).is_none_or(<[Json]>::is_empty)
    }

    /// The objects of an array member, each with its index.
    pub(crate) fn objects(self, name: &str) -> impl Iterator<Item = (usize, Input<'a>)> {
        self.list(name)
            .unwrap_or_default()
            .iter()
            .enumerate()
            .filter_map(|(i, item)| item.as_object().map(|o| (i, Input(o))))
    }

    pub(crate) fn object(self, name: &str) -> Option<Input<'a>> {
        self.0.get(name).and_then(Json::as_object).map(Input)
    }
}
