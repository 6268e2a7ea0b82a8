//! Parsing a URL as the WHATWG basic URL parser does: the `url` crate, corrected where it departs
//! from the URL Standard.
//!
//! The `url` crate follows the standard closely. Where it does not, and the difference changes a
//! verdict, a check here restores the standard's answer; each has a vector in
//! `vectors/web_fetch/edge-hunt.json` and a unit test below.
//!
//! Where the standard's text and the runtimes differ, the authority is one pinned runtime, Bun
//! 1.3.8 (behaviour.md §5.5, as built), and two more checks give its answer: a domain holding a
//! code point its IDNA table (UTS #46 for Unicode 15.1) disallows and the `url` crate's newer one
//! does not is a failure ([`refused_by_bun_1_3_8`], with vectors in
//! `vectors/web_fetch/url-bun-1.3.8.json`), and so is an opaque host holding a code point above
//! U+FFFF whose low 16 bits are a forbidden host code point (ada's check of a non-special host
//! reads each code point cut to 16 bits).

mod refused_by_bun_1_3_8;

use refused_by_bun_1_3_8::REFUSED;

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
    if special && domain_refused_by_bun_1_3_8(input, &url) {
        return None;
    }
    // No other check of the labels: the host's `URL` (Bun 1.3.8's) accepts an ACE label that
    // decodes to another `xn--` label (`xn--xn---3ra`), which UTS #46 would refuse, and a
    // non-special scheme's host is opaque, never processed as a domain (§5.5, as built).
    Some(url.scheme().to_owned())
}

/// For a URL of a non-special scheme: whether its authority fails as the standard parses it.
///
/// Outside special schemes `\` neither ends the authority nor the port, so a `\` after the last
/// `@` (in the host, where it is a forbidden host code point, or in the port) is a failure; and
/// an authority that ends right after an `@` has no host, also a failure. The `url` crate treats
/// `\` as a delimiter for every scheme and accepts `sc://@` at the end of the input. Bun 1.3.8
/// also fails a host holding a code point above U+FFFF cut to a forbidden one
/// ([`cut_to_a_forbidden_host_code_point`]).
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
    let host_and_port = match authority.rsplit_once('@') {
        Some((_, "")) => return true,
        Some((_, host_and_port)) => host_and_port,
        None => authority,
    };
    host_and_port.contains('\\')
        || host_and_port
            .chars()
            .any(cut_to_a_forbidden_host_code_point)
}

/// Whether `c`, above U+FFFF, has low 16 bits that are a forbidden host code point.
///
/// Bun 1.3.8 (ada) checks an opaque host for forbidden host code points with each code point cut
/// to 16 bits, so `foo://a\u{10023}b/` (U+10023 ends in 0x0023, `#`) fails there, while the
/// standard percent-encodes the code point. The port, where such a code point also fails, needs
/// no telling apart from the host.
fn cut_to_a_forbidden_host_code_point(c: char) -> bool {
    let code = u32::from(c);
    code > 0xffff
        && char::from_u32(code & 0xffff).is_some_and(|cut| {
            matches!(
                cut,
                '\0' | '\t'
                    | '\n'
                    | '\r'
                    | ' '
                    | '#'
                    | '/'
                    | ':'
                    | '<'
                    | '>'
                    | '?'
                    | '@'
                    | '['
                    | '\\'
                    | ']'
                    | '^'
                    | '|'
            )
        })
}

/// Whether the host of `url`, of a special scheme, holds a code point that Bun 1.3.8's IDNA
/// table (UTS #46 15.1) disallows and the `url` crate's (UTS #46 16.0) does not.
///
/// The code point may be in `input` as it is or percent-encoded (the host is percent-decoded
/// before IDNA), which [`REFUSED`] code points the `url` crate drops or maps away; so `input` is
/// parsed once more with each of them replaced by U+FFFF, a noncharacter that every IDNA table
/// disallows and that is percent-encoded like any other code point everywhere outside a host: if
/// that parse fails, one was in the host. Or the code point comes from an ASCII `xn--` label of
/// the input: the labels of the parsed host are decoded and looked at.
fn domain_refused_by_bun_1_3_8(input: &str, url: &url::Url) -> bool {
    if let Some(marked) = refused_replaced(input)
        && url::Url::parse(&marked).is_err()
    {
        return true;
    }
    let Some(url::Host::Domain(domain)) = url.host() else {
        return false;
    };
    domain.split('.').any(|label| {
        label
            .strip_prefix("xn--")
            .and_then(punycode_decode)
            .is_some_and(|decoded| decoded.into_iter().any(refused))
    })
}

/// Whether Bun 1.3.8 refuses `c` in a domain where the `url` crate does not.
fn refused(c: char) -> bool {
    let code = u32::from(c);
    REFUSED
        .binary_search_by(|&(first, last)| {
            if last < code {
                std::cmp::Ordering::Less
            } else if first > code {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// `input` with every [`REFUSED`] code point, as it is or percent-encoded in UTF-8, replaced by
/// U+FFFF (`%EF%BF%BF` where it was encoded); `None` when there is none.
fn refused_replaced(input: &str) -> Option<String> {
    let mut out = String::with_capacity(input.len());
    let mut replaced = false;
    let mut rest = input;
    while let Some(c) = rest.chars().next() {
        let run = percent_run(rest);
        if run.is_empty() {
            if refused(c) {
                out.push('\u{ffff}');
                replaced = true;
            } else {
                out.push(c);
            }
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let bytes: Vec<u8> = run
            .as_bytes()
            .chunks(3)
            .filter_map(|triple| {
                u8::from_str_radix(std::str::from_utf8(&triple[1..]).ok()?, 16).ok()
            })
            .collect();
        let mut encoded = Vec::with_capacity(bytes.len());
        for chunk in bytes.utf8_chunks() {
            for c in chunk.valid().chars() {
                if refused(c) {
                    encoded.extend_from_slice("\u{ffff}".as_bytes());
                    replaced = true;
                } else {
                    let mut buffer = [0; 4];
                    encoded.extend_from_slice(c.encode_utf8(&mut buffer).as_bytes());
                }
            }
            encoded.extend_from_slice(chunk.invalid());
        }
        for byte in encoded {
            out.push_str(&format!("%{byte:02X}"));
        }
        rest = &rest[run.len()..];
    }
    replaced.then_some(out)
}

/// The longest prefix of `text` made of `%` and two hex digits, repeated.
fn percent_run(text: &str) -> &str {
    let bytes = text.as_bytes();
    let mut end = 0;
    while bytes.get(end) == Some(&b'%')
        && bytes.get(end + 1).is_some_and(u8::is_ascii_hexdigit)
        && bytes.get(end + 2).is_some_and(u8::is_ascii_hexdigit)
    {
        end += 3;
    }
    &text[..end]
}

/// The code points of a Punycode label without its `xn--` (RFC 3492 §6.2), or `None` when it does
/// not decode.
fn punycode_decode(label: &str) -> Option<Vec<char>> {
    const BASE: u32 = 36;
    const T_MIN: u32 = 1;
    const T_MAX: u32 = 26;
    let (basic, extended) = label.rsplit_once('-').unwrap_or(("", label));
    let mut output: Vec<char> = basic.chars().collect();
    let (mut n, mut i, mut bias) = (128_u32, 0_u32, 72_u32);
    let mut digits = extended.bytes().peekable();
    let mut first = true;
    while digits.peek().is_some() {
        let old_i = i;
        let mut weight = 1_u32;
        let mut k = BASE;
        loop {
            let digit = match digits.next()? {
                byte @ b'a'..=b'z' => u32::from(byte - b'a'),
                byte @ b'A'..=b'Z' => u32::from(byte - b'A'),
                byte @ b'0'..=b'9' => u32::from(byte - b'0') + 26,
                _ => return None,
            };
            i = i.checked_add(digit.checked_mul(weight)?)?;
            let t = k.saturating_sub(bias).clamp(T_MIN, T_MAX);
            if digit < t {
                break;
            }
            weight = weight.checked_mul(BASE - t)?;
            k += BASE;
        }
        let length = u32::try_from(output.len()).ok()? + 1;
        bias = adapt(i - old_i, length, first);
        first = false;
        n = n.checked_add(i / length)?;
        i %= length;
        output.insert(usize::try_from(i).ok()?, char::from_u32(n)?);
        i += 1;
    }
    Some(output)
}

/// Punycode's bias adaptation (RFC 3492 §6.1).
fn adapt(delta: u32, length: u32, first: bool) -> u32 {
    let mut delta = if first { delta / 700 } else { delta / 2 };
    delta += delta / length;
    let mut k = 0;
    while delta > ((36 - 1) * 26) / 2 {
        delta /= 36 - 1;
        k += 36;
    }
    k + (36 * delta) / (delta + 38)
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

    #[test]
    fn a_domain_holding_a_code_point_bun_1_3_8_disallows_fails() {
        for url in [
            "http://a\u{180e}b/",
            "https://a\u{17b4}b/",
            "ftp:a\u{180e}",
            "ws://x.a\u{2061}b/",
            "file://a\u{10a0}b/",
            "http://a%E1%A0%8Eb/",
            "http://a%e1%a0%8eb/",
            "http://xn--ab-v17n/",
            "http://xn--ab-h0o/",
            "http://a\u{1fae9}/",
        ] {
            assert_eq!(scheme(url), None, "{url:?}");
        }
    }

    #[test]
    fn a_code_point_bun_1_3_8_disallows_outside_a_domain_is_harmless() {
        assert_eq!(
            scheme("http://h.test/\u{180e}?\u{180e}#\u{180e}").as_deref(),
            Some("http")
        );
        assert_eq!(
            scheme("http://u\u{180e}@h.test/%E1%A0%8E").as_deref(),
            Some("http")
        );
        assert_eq!(scheme("foo://a\u{180e}b/").as_deref(), Some("foo"));
        assert_eq!(scheme("http://a\u{200b}b/").as_deref(), Some("http"));
        assert_eq!(
            scheme("http://a\u{2ebf0}b/").as_deref(),
            Some("http"),
            "new in 15.1"
        );
        assert_eq!(scheme("http:xn--\u{200b}xn---3ra").as_deref(), Some("http"));
    }

    #[test]
    fn an_opaque_host_holding_a_code_point_cut_to_a_forbidden_one_fails() {
        assert_eq!(scheme("foo://a\u{10023}b/"), None);
        assert_eq!(scheme("foo://u@a\u{10040}b:1/"), None);
        assert_eq!(scheme("foo://a\u{10123}b/").as_deref(), Some("foo"));
        assert_eq!(scheme("foo://h/\u{10023}").as_deref(), Some("foo"));
        assert_eq!(scheme("foo://u\u{10023}@h/").as_deref(), Some("foo"));
        assert_eq!(scheme("http://a\u{10023}b/").as_deref(), Some("http"));
    }

    #[test]
    fn punycode_decodes_as_rfc_3492_says() {
        use super::punycode_decode;
        let decode = |label| punycode_decode(label).map(|c| c.into_iter().collect::<String>());
        assert_eq!(decode("mnchen-3ya").as_deref(), Some("m\u{fc}nchen"));
        assert_eq!(decode("xn---3ra").as_deref(), Some("xn--\u{fc}"));
        assert_eq!(decode("ls8h").as_deref(), Some("\u{1f4a9}"));
        assert_eq!(decode("ab-50o").as_deref(), Some("a\u{180e}b"));
        assert_eq!(decode("99999999"), None);
        assert_eq!(decode("a!"), None);
    }

    #[test]
    fn the_table_is_ascending_and_disjoint() {
        for pair in super::REFUSED.windows(2) {
            assert!(pair[0].0 <= pair[0].1 && pair[0].1 < pair[1].0, "{pair:x?}");
        }
    }
}
