//! File-system access of the editors, with the runtime's error texts.
