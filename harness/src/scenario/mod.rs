//! Scenarios: what one is (`model`, `paths`, `tree`), how one plays in a scratch directory
//! (`scratch`, `play`), how it is judged (`compare`), and the records of a run's scenarios.

pub mod compare;
pub mod model;
pub mod paths;
pub mod play;
pub mod records;
pub mod scratch;
pub mod tree;
