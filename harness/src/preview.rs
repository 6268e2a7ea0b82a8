//! Cutting what a one-line reason quotes (a value, a path, a peer's text), so a 100 MB input
//! makes a line of a few hundred characters, not 100 MB in every report and known-failure file.

/// The most characters of one quoted piece of a one-line reason.
pub const QUOTED_CHARS: usize = 120;

/// `text` cut to [`QUOTED_CHARS`] characters, with `…` and how many were left out when longer.
pub fn quoted(text: &str) -> String {
    cut(text, QUOTED_CHARS)
}

/// `text` cut to `max` characters, with `…` and how many were left out when longer.
pub fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some((at, _)) => format!(
            "{}… ({} more characters)",
            &text[..at],
            text[at..].chars().count()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_text_is_cut_at_a_character_boundary_saying_how_much_was_left_out() {
        assert_eq!(cut("abc", 3), "abc");
        assert_eq!(cut("abcd", 3), "abc… (1 more characters)");
        assert_eq!(cut("ééé€€", 3), "ééé… (2 more characters)");
        assert_eq!(
            quoted(&"x".repeat(1_000)),
            format!("{}… (880 more characters)", "x".repeat(QUOTED_CHARS))
        );
    }
}
