//! Scenarios: what one is (`model`, `paths`, `tree`), how one plays in a scratch directory
//! (`scratch`, `play`), and how it is judged (`compare`).

pub mod compare;
pub mod model;
pub mod paths;
pub mod play;
pub mod scratch;
pub mod tree;
