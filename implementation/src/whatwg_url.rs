//! Parsing a URL as the WHATWG basic URL parser does: the `url` crate, corrected where it departs
//! from the URL Standard.
//!
//! The `url` crate follows the standard closely. Where it does not, and the difference changes a
//! verdict, a check here restores the standard's answer; each has a vector in
//! `vectors/web_fetch/edge-hunt.json` and a unit test below.

/// The scheme of `input` parsed as an absolute URL (lowercase, without `:`), or `None` when the
/// standard's parser returns failure.
pub fn scheme(input: &str) -> Option<String> {
    let url = url::Url::parse(input).ok()?;
    let special = matches!(
        url.scheme(),
        "http" | "https" | "ws" | "wss" | "ftp" | "file"
    );
    if !special && non_special_authority_fails(input) {
        return None;
    }
    // No check of the labels themselves: the host's `URL` (Bun's) accepts an ACE label that
    // decodes to another `xn--` label (`xn--xn---3ra`), which UTS #46 would refuse, and a
    // non-special scheme's host is opaque, never processed as a domain (§5.5, as built).
    Some(url.scheme().to_owned())
}

/// For a URL of a non-special scheme: whether its authority fails as the standard parses it.
///
/// Outside special schemes `\` neither ends the authority nor the port, so a `\` after the last
/// `@` (in the host, where it is a forbidden host code point, or in the port) is a failure; and
/// an authority that ends right after an `@` has no host, also a failure. The `url` crate treats
/// `\` as a delimiter for every scheme and accepts `sc://@` at the end of the input.
fn non_special_authority_fails(input: &str) -> bool {
    // The standard first strips leading and trailing C0 controls and spaces, then every tab and
    // newline.
    let trimmed = input.trim_matches(|c: char| c <= ' ');
    let cleaned: String = trimmed
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let Some((_, rest)) = cleaned.split_once(':') else {
        return false;
    };
    let Some(after) = rest.strip_prefix("//") else {
        return false;
    };
    let authority = after.split(['/', '?', '#']).next().unwrap_or_default();
    match authority.rsplit_once('@') {
        Some((_, host_and_port)) => host_and_port.is_empty() || host_and_port.contains('\\'),
        None => authority.contains('\\'),
    }
}

#[cfg(test)]
mod tests {
    use super::scheme;

    #[test]
    fn ordinary_urls_parse_with_their_scheme() {
        assert_eq!(scheme("HTTPS://EXAMPLE.test").as_deref(), Some("https"));
        assert_eq!(scheme("foo://user@x:80/y").as_deref(), Some("foo"));
        assert_eq!(
            scheme("foo://a\\b@x/").as_deref(),
            Some("foo"),
            "a backslash in the userinfo is percent-encoded"
        );
        assert_eq!(
            scheme("foo://").as_deref(),
            Some("foo"),
            "a non-special URL may have an empty host"
        );
        assert_eq!(
            scheme("https:\\\\a.test\\b").as_deref(),
            Some("https"),
            "special schemes take backslashes as slashes"
        );
        assert_eq!(scheme("http://xn--nxasmq6b.com").as_deref(), Some("http"));
    }

    #[test]
    fn a_backslash_in_a_non_special_host_or_port_fails() {
        assert_eq!(scheme("foo://x:80\\y"), None);
        assert_eq!(scheme("foo://x:\\"), None);
        assert_eq!(scheme("foo://a\\b/"), None);
        assert_eq!(scheme("foo://u@a\\b/"), None);
    }

    #[test]
    fn an_authority_ending_after_an_at_sign_fails() {
        assert_eq!(scheme("foo://@"), None);
        assert_eq!(scheme("foo://u@"), None);
        assert_eq!(scheme("foo://user@").as_deref(), None);
    }

    #[test]
    fn a_label_decoding_to_an_ace_prefix_parses_as_the_host_parses_it() {
        assert_eq!(scheme("http://xn--xn---3ra.test/").as_deref(), Some("http"));
        assert_eq!(
            scheme("foo://xn--xn---3ra/").as_deref(),
            Some("foo"),
            "a non-special host is opaque: its labels are not decoded"
        );
    }
}
