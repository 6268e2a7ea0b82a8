//! The URL rule of `web_fetch` (§5.5): an absolute http(s) URL by the WHATWG URL Standard.

use super::declare::Rules;
use super::input::Input;
use crate::collector::Collector;
use crate::issue::Code;
use crate::path::Path;
use crate::text::truncate;

rules! {
    /// The rules of `web_fetch`, in inventory order.
    fn names {
        URL_PARSES = "url-parses";
        URL_SCHEME = "url-scheme";
    }
}

/// The branch rules of `web_fetch`.
pub(super) const RULES: Rules = Rules { run, names };

fn run(input: Input<'_>, out: &mut Collector) {
    let Some(url) = input.string("url") else {
        return;
    };
    // The host reads the URL as a string of scalar values, so lone surrogates become U+FFFD.
    let path = Path::ROOT.field("url");
    match crate::whatwg_url::scheme(&url.to_string_lossy()) {
        None => out.branch(
            URL_PARSES,
            Code::InvalidFormat,
            &path,
            "url must be an absolute HTTP or HTTPS URL",
            "an absolute http(s) URL",
        ),
        Some(scheme) if !matches!(scheme.as_str(), "http" | "https") => {
            let scheme: Vec<u16> = scheme.encode_utf16().collect();
            let mut message = crate::js_string::JsString::from("unsupported URL scheme \"");
            message.push_units(truncate(&scheme, 48).units());
            message.push_str("\"; only http and https are supported");
            out.branch(
                URL_SCHEME,
                Code::InvalidValue,
                &path,
                message,
                "http or https",
            );
        }
        Some(_) => {}
    }
}
