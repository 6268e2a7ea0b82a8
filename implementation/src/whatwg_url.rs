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
    if let Some(url::Host::Domain(domain)) = url.host() {
        if domain.split('.').any(decodes_to_a_prefixed_label) {
            return None;
        }
    }
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

/// Whether an ACE label (`xn--…`) decodes to a label that itself begins with `xn--`: refused by
/// UTS #46's validity criteria when CheckHyphens is off, as the URL Standard runs it; the `idna`
/// crate leaves this criterion out.
fn decodes_to_a_prefixed_label(label: &str) -> bool {
    let Some(encoded) = label.strip_prefix("xn--") else {
        return false;
    };
    idna::punycode::decode_to_string(encoded).is_some_and(|decoded| decoded.starts_with("xn--"))
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
    fn a_label_decoding_to_an_ace_prefix_fails() {
        assert_eq!(scheme("http://xn--xn---3ra.test/"), None);
    }
}
