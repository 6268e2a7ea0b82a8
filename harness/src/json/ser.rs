//! Serde into the contract's JSON model, so typed reports are written by the contract's writer:
//! numbers as the host writes them (`8`, not `8.0`), members in declaration order, and
//! [`Embedded`] contract values (which may hold lone surrogates) kept whole.

use std::fmt;

use serde::de::{Deserialize, Deserializer};
use serde::ser::{self, Impossible, Serialize};
use vvoc_reference::{JsString, Json, Object};

use crate::json::bridge::{dismantle, from_serde, to_serde_lossy};

/// The newtype name under which an [`Embedded`] value crosses serde, as its compact JSON text
/// (the way `serde_json`'s `RawValue` crosses it).
const EMBEDDED: &str = "$vvoc_harness::Embedded";

/// A value of the contract's JSON model inside a serde type: a verdict, a tool's text.
///
/// Through [`to_json`] it is kept exactly, lone surrogates included. Human-readable serializers
/// (`serde_json`) get it as `serde_json` can hold it, lone surrogates as U+FFFD; it is read back
/// the same way.
#[derive(Clone, Debug, PartialEq)]
pub struct Embedded(pub Json);

impl From<JsString> for Embedded {
    fn from(text: JsString) -> Embedded {
        Embedded(Json::String(text))
    }
}

impl Serialize for Embedded {
    fn serialize<S: ser::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match serializer.is_human_readable() {
            true => to_serde_lossy(&self.0).serialize(serializer),
            false => serializer.serialize_newtype_struct(EMBEDDED, &self.0.to_compact()),
        }
    }
}

impl<'de> Deserialize<'de> for Embedded {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Embedded, D::Error> {
        serde_json::Value::deserialize(deserializer).map(|mut value| {
            crate::json::deep::restore(&mut value);
            let json = from_serde(&value);
            dismantle(value);
            Embedded(json)
        })
    }
}

/// Reads one of the closed names `all` (outcomes, levels) as `name` writes them; their
/// `Serialize` writes `name`.
pub(crate) fn by_name<'de, D: Deserializer<'de>, T: Copy>(
    deserializer: D,
    all: &[T],
    name: fn(T) -> &'static str,
) -> Result<T, D::Error> {
    let text = String::deserialize(deserializer)?;
    all.iter()
        .copied()
        .find(|t| name(*t) == text)
        .ok_or_else(|| serde::de::Error::custom(format!("unknown name {text:?}")))
}

/// Why a value has no form in the contract's JSON model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(message: T) -> Error {
        Error(message.to_string())
    }
}

/// The value in the contract's JSON model. Only what reports use is supported: no tuple or
/// struct variants, map keys that are strings.
pub fn to_json<T: Serialize + ?Sized>(value: &T) -> Result<Json, Error> {
    value.serialize(Serializer)
}

/// Serializes into `Json`; not human-readable, so that an [`Embedded`] value comes whole.
struct Serializer;

fn unsupported(what: &str) -> Error {
    Error(format!("{what} has no form in a report"))
}

impl ser::Serializer for Serializer {
    type Ok = Json;
    type Error = Error;
    type SerializeSeq = Array;
    type SerializeTuple = Array;
    type SerializeTupleStruct = Array;
    type SerializeTupleVariant = Impossible<Json, Error>;
    type SerializeMap = Members;
    type SerializeStruct = Members;
    type SerializeStructVariant = Impossible<Json, Error>;

    fn is_human_readable(&self) -> bool {
        false
    }
    fn serialize_bool(self, v: bool) -> Result<Json, Error> {
        Ok(Json::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Json, Error> {
        Ok(Json::Number(f64::from(v)))
    }
    fn serialize_i16(self, v: i16) -> Result<Json, Error> {
        Ok(Json::Number(f64::from(v)))
    }
    fn serialize_i32(self, v: i32) -> Result<Json, Error> {
        Ok(Json::Number(f64::from(v)))
    }
    fn serialize_i64(self, v: i64) -> Result<Json, Error> {
        Ok(Json::Number(v as f64))
    }
    fn serialize_u8(self, v: u8) -> Result<Json, Error> {
        Ok(Json::Number(f64::from(v)))
    }
    fn serialize_u16(self, v: u16) -> Result<Json, Error> {
        Ok(Json::Number(f64::from(v)))
    }
    fn serialize_u32(self, v: u32) -> Result<Json, Error> {
        Ok(Json::Number(f64::from(v)))
    }
    fn serialize_u64(self, v: u64) -> Result<Json, Error> {
        Ok(Json::Number(v as f64))
    }
    fn serialize_f32(self, v: f32) -> Result<Json, Error> {
        Ok(Json::Number(f64::from(v)))
    }
    fn serialize_f64(self, v: f64) -> Result<Json, Error> {
        Ok(Json::Number(v))
    }
    fn serialize_char(self, v: char) -> Result<Json, Error> {
        Ok(Json::str(v.encode_utf8(&mut [0; 4])))
    }
    fn serialize_str(self, v: &str) -> Result<Json, Error> {
        Ok(Json::str(v))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Json, Error> {
        Ok(Json::Array(
            v.iter().map(|b| Json::Number(f64::from(*b))).collect(),
        ))
    }
    fn serialize_none(self) -> Result<Json, Error> {
        Ok(Json::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Json, Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Json, Error> {
        Ok(Json::Null)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Json, Error> {
        Ok(Json::Null)
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Json, Error> {
        Ok(Json::str(variant))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<Json, Error> {
        let inner = value.serialize(Serializer)?;
        match (name, &inner) {
            (EMBEDDED, Json::String(text)) => {
                let text = text.to_string_lossy();
                Json::parse(&text).map_err(|e| Error(format!("an embedded value: {e}")))
            }
            (EMBEDDED, _) => Err(unsupported("an embedded value that is not JSON text")),
            (_, _) => Ok(inner),
        }
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Json, Error> {
        let mut object = Object::new();
        object.insert(variant, value.serialize(Serializer)?);
        Ok(Json::Object(object))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Array, Error> {
        Ok(Array(Vec::with_capacity(len.unwrap_or(0))))
    }
    fn serialize_tuple(self, len: usize) -> Result<Array, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Array, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(unsupported("a tuple variant"))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Members, Error> {
        Ok(Members::default())
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Members, Error> {
        Ok(Members::default())
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(unsupported("a struct variant"))
    }
}

/// An array being serialized.
struct Array(Vec<Json>);

impl Array {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.0.push(value.serialize(Serializer)?);
        Ok(())
    }
}

/// The three array-like serializations, each element pushed in turn.
macro_rules! array {
    ($trait:ident, $element:ident) => {
        impl ser::$trait for Array {
            type Ok = Json;
            type Error = Error;
            fn $element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
                self.push(value)
            }
            fn end(self) -> Result<Json, Error> {
                Ok(Json::Array(self.0))
            }
        }
    };
}

array!(SerializeSeq, serialize_element);
array!(SerializeTuple, serialize_element);
array!(SerializeTupleStruct, serialize_field);

/// An object being serialized: members in the order they come.
#[derive(Default)]
struct Members {
    object: Object,
    key: Option<String>,
}

impl ser::SerializeMap for Members {
    type Ok = Json;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        match &key.serialize(Serializer)? {
            Json::String(name) => match name.to_str() {
                Some(name) => self.key = Some(name),
                None => return Err(unsupported("a member name with a lone surrogate")),
            },
            other => {
                return Err(unsupported(&format!(
                    "a member name of type {}",
                    other.type_name()
                )));
            }
        }
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self
            .key
            .take()
            .ok_or_else(|| unsupported("a member value without a name"))?;
        self.object.insert(&key, value.serialize(Serializer)?);
        Ok(())
    }
    fn end(self) -> Result<Json, Error> {
        Ok(Json::Object(self.object))
    }
}

impl ser::SerializeStruct for Members {
    type Ok = Json;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.object.insert(key, value.serialize(Serializer)?);
        Ok(())
    }
    fn end(self) -> Result<Json, Error> {
        Ok(Json::Object(self.object))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Serialize;
    use vvoc_reference::{JsString, Json};

    use super::{Embedded, to_json};

    #[derive(Serialize)]
    struct Sample {
        count: usize,
        ms: f64,
        name: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        absent: Option<u8>,
        text: Embedded,
        map: BTreeMap<String, bool>,
    }

    #[test]
    fn numbers_members_and_lone_surrogates_come_out_as_the_contract_writes_them() {
        let lone = JsString::from_units(vec![0x61, 0xd800]);
        let sample = Sample {
            count: 8,
            ms: 0.25,
            name: None,
            absent: None,
            text: Embedded::from(lone),
            map: BTreeMap::from([("b".to_owned(), true), ("10".to_owned(), false)]),
        };
        let json = to_json(&sample).expect("serializable");
        assert_eq!(
            json.to_compact(),
            r#"{"count":8,"ms":0.25,"name":null,"text":"a\ud800","map":{"10":false,"b":true}}"#
        );
        let lossy = serde_json::to_value(&sample.text).expect("serializable");
        assert_eq!(lossy, serde_json::json!("a\u{fffd}"));
        let back: Embedded = serde_json::from_value(lossy).expect("readable");
        assert_eq!(back, Embedded(Json::str("a\u{fffd}")));
    }
}
