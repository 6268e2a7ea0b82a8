//! Text conventions of execution: decoding, encoding, splitting, whitespace (`execution.md` §0.2).
