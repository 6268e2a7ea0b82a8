//! Scenarios: what one is (`model`, `paths`, `tree`, `json_content`), how one plays in a scratch
//! directory (`scratch`, `play`), and how it is judged (`compare`).

pub mod compare;
pub mod json_content;
pub mod model;
pub mod paths;
pub mod play;
pub mod scratch;
pub mod tree;
