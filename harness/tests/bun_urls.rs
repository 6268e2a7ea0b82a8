//! The reference's `web_fetch` URL verdicts equal upstream's, run on Bun 1.3.8 (the one runtime
//! whose `URL` is the authority on URL edge cases, behaviour.md §5.5), for every URL of the
//! vectors and for generated hard cases. Bun is found through `VVOC_BUN`, else at
//! `target/bun-1.3.8/node_modules/@oven/bun-linux-x64/bin/bun` of the workspace (`npm install
//! --no-save --no-package-lock @oven/bun-linux-x64@1.3.8` in `target/bun-1.3.8`, as `.ci/run`
//! does), on `PATH`, or in `/tmp/bun`; it must say `1.3.8` to `--version`. Without it the test
//! prints that it skipped (naming the version found, if any), and passes; with `CI` set it fails.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use vvoc_harness::default_vectors_dir;
use vvoc_harness::fuzz::dictionary::{FORBIDDEN_HOST, IDNA_CONTROLS, IDNA_HOSTS, IDNA_RANGES};
use vvoc_reference::{JsString, Json, Object, Tool, Verdict};

/// The variable naming the `bun` to run; when set, it must run.
const BUN_VARIABLE: &str = "VVOC_BUN";

/// The one Bun version whose answers are the authority (upstream's pin).
const BUN_VERSION: &str = "1.3.8";

/// Where `.ci/run` installs Bun 1.3.8, from the workspace root.
const BUN_IN_TARGET: &str = "target/bun-1.3.8/node_modules/@oven/bun-linux-x64/bin/bun";

/// Where `npm install @oven/bun-linux-x64` in `/tmp/bun` puts the binary.
const BUN_IN_TMP: &str = "/tmp/bun/node_modules/@oven/bun-linux-x64/bin/bun";

/// The special schemes, each of which processes its host as a domain.
const SPECIAL: &[&str] = &["http", "https", "ws", "wss", "ftp", "file"];

/// Upstream's URL rule (`validateWebFetchToolInput`, after the structural phase): `new URL(url)`,
/// then the protocol, the scheme cut to 48 units as `truncateChars` cuts it. One line in (a JSON
/// string), one line out (`accept`, or `<code>: <message>`).
const UPSTREAM_URL_RULE: &str = r#"
const truncate = (s, max) => (s.length <= max ? s : `${s.slice(0, Math.max(0, max - 1))}…`);
const lines = (await Bun.file(process.argv[2]).text()).split("\n").filter((l) => l !== "");
const out = [];
for (const line of lines) {
  const url = JSON.parse(line);
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    out.push("invalid_format: url must be an absolute HTTP or HTTPS URL");
    continue;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    const scheme = truncate(parsed.protocol.replace(/:$/, ""), 48);
    out.push(`invalid_value: unsupported URL scheme "${scheme}"; only http and https are supported`);
  } else {
    out.push("accept");
  }
}
process.stdout.write(out.map((o) => JSON.stringify(o)).join("\n") + "\n");
"#;

#[test]
fn the_reference_judges_every_url_as_upstream_does_on_bun() {
    let bun = match find_bun() {
        Ok(bun) => bun,
        Err(why) => {
            let how = format!(
                "set {BUN_VARIABLE}, or run `npm install --no-save --no-package-lock \
                 @oven/bun-linux-x64@{BUN_VERSION}` in target/bun-{BUN_VERSION}"
            );
            assert!(
                std::env::var_os("CI").is_none(),
                "bun_urls: CI is set and {why}: {how}"
            );
            // Written past the test harness's capture, so that a skip is seen in every run.
            let _ = writeln!(std::io::stderr(), "bun_urls: skipped: {why} ({how})");
            return;
        }
    };
    let urls = every_url();
    assert!(urls.len() > 1000, "{} URLs", urls.len());
    let dir = tempfile::tempdir().expect("a temporary folder");
    let script = dir.path().join("upstream-url-rule.mjs");
    std::fs::write(&script, UPSTREAM_URL_RULE).expect("the script is written");
    let list = dir.path().join("urls.jsonl");
    let lines: Vec<String> = urls
        .iter()
        .map(|url| Json::String(url.clone()).to_compact())
        .collect();
    std::fs::write(&list, lines.join("\n") + "\n").expect("the URLs are written");
    let output = Command::new(&bun)
        .arg(&script)
        .arg(&list)
        .output()
        .expect("bun, which answered --version, runs the script");
    assert!(
        output.status.success(),
        "{} exited with {}: {}",
        bun.display(),
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let answers: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON string per line"))
        .collect();
    assert_eq!(answers.len(), urls.len(), "one answer per URL");
    let differences: Vec<String> = urls
        .iter()
        .zip(&answers)
        .filter_map(|(url, upstream)| {
            let reference = reference_answer(url);
            (reference != *upstream).then(|| {
                format!(
                    "{}\n    reference: {reference}\n    upstream:  {upstream}",
                    Json::String(url.clone()).to_compact()
                )
            })
        })
        .collect();
    let _ = writeln!(
        std::io::stderr(),
        "bun_urls: {} URLs judged by {}: {} differ",
        urls.len(),
        bun.display(),
        differences.len()
    );
    assert!(
        differences.is_empty(),
        "{} of {} URLs are judged differently:\n{}",
        differences.len(),
        urls.len(),
        differences
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn the_generated_hard_cases_cover_every_family() {
    let cases = generated();
    for needle in [
        "xn--xn---3ra",
        "[::ffff:1.2.3.4]",
        "0x7f.1",
        "%E2%98%83",
        "u:p@",
        ":65536",
        "http:\\\\",
        "\u{0}",
        "\u{200d}",
        "foo://",
        "a\u{180e}b",
        "a\u{17b4}b",
        "xn--\u{200b}xn---3ra",
        "a%E1%A0%8Eb",
        "a\u{10023}b",
        "xn--ab-v17n",
    ] {
        assert!(
            cases.iter().any(|c| c.contains(needle)),
            "a generated case holds {needle:?}"
        );
    }
    let unique: BTreeSet<&String> = cases.iter().collect();
    assert_eq!(unique.len(), cases.len(), "no case is generated twice");
}

/// `VVOC_BUN` (which must then run), else the first of the one in the workspace's `target/`,
/// `bun` on `PATH` and the one in `/tmp/bun` that runs; it must be Bun 1.3.8. The error says
/// which Bun was found instead, or that none was.
fn find_bun() -> Result<PathBuf, String> {
    let candidates = match std::env::var_os(BUN_VARIABLE) {
        Some(bun) => {
            let bun = PathBuf::from(bun);
            assert!(
                version(&bun).is_some(),
                "{BUN_VARIABLE}={} does not run (`--version` failed)",
                bun.display()
            );
            vec![bun]
        }
        None => vec![
            Path::new(env!("CARGO_MANIFEST_DIR")).parent().map_or_else(
                || PathBuf::from(BUN_IN_TARGET),
                |root| root.join(BUN_IN_TARGET),
            ),
            PathBuf::from("bun"),
            PathBuf::from(BUN_IN_TMP),
        ],
    };
    let mut found = Vec::new();
    for bun in candidates {
        match version(&bun) {
            Some(v) if v == BUN_VERSION => return Ok(bun),
            Some(v) => found.push(format!("{} is Bun {v}", bun.display())),
            None => {}
        }
    }
    if found.is_empty() {
        Err(format!("Bun {BUN_VERSION} not found (no bun found)"))
    } else {
        Err(format!(
            "Bun {BUN_VERSION} not found ({}; its answers are not the authority)",
            found.join(", ")
        ))
    }
}

/// What `bun --version` says, trimmed, or `None` when it does not run.
fn version(bun: &Path) -> Option<String> {
    let output = Command::new(bun).arg("--version").output().ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// The URL of every `web_fetch` vector whose `url` is a non-empty string (so the URL rule runs
/// on it when the rest is valid; upstream's answer is that of the URL alone), then the generated
/// cases, each once, in that order.
fn every_url() -> Vec<JsString> {
    let vectors = vvoc_harness::load::suite::load_vectors(&[default_vectors_dir()])
        .expect("the vectors load");
    let from_vectors = vectors
        .iter()
        .filter(|v| v.tool == Tool::WebFetch)
        .filter_map(|v| v.input.as_object()?.get("url")?.as_string().cloned());
    let generated = generated()
        .into_iter()
        .map(|url| JsString::from(url.as_str()));
    let mut seen = BTreeSet::new();
    from_vectors
        .chain(generated)
        .chain(lone_surrogates())
        .filter(|url| !url.is_empty() && seen.insert(url.clone()))
        .collect()
}

/// The reference's answer on `{"url": url}`, written as the upstream script writes its own.
fn reference_answer(url: &JsString) -> String {
    let mut input = Object::new();
    input.insert("url", Json::String(url.clone()));
    match vvoc_reference::validate_json(Tool::WebFetch, &Json::Object(input)) {
        Verdict::Accept(_) => "accept".to_owned(),
        Verdict::Reject(issues) => issues
            .iter()
            .map(|issue| format!("{}: {}", issue.code, issue.message.to_string_lossy()))
            .collect::<Vec<_>>()
            .join(" | "),
    }
}

/// Hard cases: hosts (IDNA and punycode labels, IPv4 and IPv6 forms, percent-encoding,
/// forbidden code points) under special and non-special schemes, userinfo and ports, slashes and
/// backslashes, control and space characters at every place, and whole URLs.
fn generated() -> Vec<String> {
    let mut cases = Vec::new();
    for scheme in ["http", "https", "HTTP", "foo", "file", "ws"] {
        for host in HOSTS.iter().copied().map(str::to_owned).chain(long_hosts()) {
            cases.push(format!("{scheme}://{host}/"));
        }
        for userinfo in USERINFO {
            cases.push(format!("{scheme}://{userinfo}h.test/"));
        }
        for port in PORTS {
            cases.push(format!("{scheme}://h.test{port}/"));
        }
        for c in CONTROLS {
            for template in [
                "{c}S://h.test/",
                "S://h.test/{c}",
                "S{c}://h.test/",
                "S:/{c}/h.test/",
                "S://h{c}.test/",
                "S://{c}h.test/",
                "S://h.test:8{c}0/",
                "S://u{c}@h.test/",
            ] {
                cases.push(template.replace("{c}", c).replace('S', scheme));
            }
        }
    }
    cases.extend(WHOLE.iter().map(|url| (*url).to_owned()));
    cases.push(format!("{}://h.test/", "a".repeat(60)));
    cases.extend(idna_cases());
    let mut seen = BTreeSet::new();
    cases.retain(|case| seen.insert(case.clone()));
    cases
}

/// Every code point of the IDNA sweep (the ranges Bun 1.3.8's table disallows and newer ones do
/// not, one code point past each end, and the controls both tables agree on) in a host, alone
/// and around `xn--` labels, under every special scheme, and percent-encoded; and the code points
/// above U+FFFF ending in a forbidden host code point in an opaque host, and in a domain.
fn idna_cases() -> Vec<String> {
    let mut code_points: Vec<char> = IDNA_RANGES
        .iter()
        .flat_map(|&(first, last)| first.saturating_sub(1)..=last + 1)
        .filter_map(char::from_u32)
        .chain(IDNA_CONTROLS.iter().copied())
        .collect();
    code_points.sort_unstable();
    code_points.dedup();
    let mut cases = Vec::new();
    for scheme in SPECIAL {
        for host in IDNA_HOSTS {
            for c in &code_points {
                cases.push(format!(
                    "{scheme}://{}/",
                    host.replace("{}", &c.to_string())
                ));
            }
        }
    }
    for c in &code_points {
        let encoded: String = c
            .to_string()
            .bytes()
            .map(|byte| format!("%{byte:02X}"))
            .collect();
        cases.push(format!("http://a{encoded}b/"));
        cases.push(format!("http:xn--{c}xn---3ra"));
    }
    for plane in 1..=16_u32 {
        for &forbidden in FORBIDDEN_HOST {
            if let Some(c) = char::from_u32(plane * 0x1_0000 + u32::from(forbidden)) {
                cases.push(format!("foo://a{c}b/"));
                cases.push(format!("foo://u@{c}:1/"));
                cases.push(format!("http://a{c}b/"));
            }
        }
    }
    cases
}

/// URLs holding a lone surrogate (the host reads them as U+FFFD), which no `&str` can hold.
fn lone_surrogates() -> Vec<JsString> {
    [
        ("http://", 0xd800, ".test/"),
        ("http://h.test/", 0xdc00, ""),
        ("foo://", 0xd800, "/"),
    ]
    .into_iter()
    .map(|(before, unit, after)| {
        let mut url = JsString::from(before);
        url.push_units(&[unit]);
        url.push_str(after);
        url
    })
    .collect()
}

/// Hosts longer than a label or a domain may be under UTS #46.
fn long_hosts() -> Vec<String> {
    let label = |n: usize| "a".repeat(n);
    vec![
        label(63),
        label(64),
        format!("{}.{}.{}.{}", label(63), label(63), label(63), label(61)),
        format!("{}.{}.{}.{}", label(63), label(63), label(63), label(62)),
        format!("{}.{}.{}.{}.", label(63), label(63), label(63), label(61)),
        format!("xn--{}", "a".repeat(70)),
        "é".repeat(70),
    ]
}

const HOSTS: &[&str] = &[
    // ACE (punycode) labels, valid and not
    "xn--",
    "xn--a",
    "xn--xn---3ra",
    "xn--xn---3ra.test",
    "xn--mnchen-3ya.xn--xn---3ra",
    "XN--NXASMQ6B",
    "xn--nxasmq6b.com",
    "xn--ls8h",
    "xn--zca",
    "xn---",
    "xn--abc-",
    "xn--55qx5d",
    "xn--mnchen-3ya",
    "xn--a.b",
    "a.xn--",
    "xn--1ch",
    "xn--kgbechtv",
    "xn--4gbrim",
    "xn--90a3ac",
    "xn--9n2bp8q",
    "xn--bcher-kva",
    "xn--ss-",
    "xn--tda",
    "xn--ab",
    "xn--0",
    "xn--99999999",
    "xn--ggaa",
    "xn--l8j",
    "xn--zn7c",
    "xn--ls8h.xn--ls8h",
    "xn--53h",
    "xn--e1afmkfd",
    "xn--80ak6aa92e",
    "xn--a-ecp",
    "xn--d-",
    "XN--xn---3ra",
    "xn--%6e",
    "%78n--xn---3ra",
    "ab--c",
    "a-.b",
    "-a.b",
    // Unicode labels: mapped, deviation, joiners, bidi, disallowed
    "münchen",
    "MÜNCHEN",
    "faß",
    "σς",
    "ﬁ",
    "ｅｘａｍｐｌｅ",
    "a\u{3002}b",
    "a\u{ff0e}b",
    "a\u{ff61}b",
    "a\u{200d}b",
    "a\u{200c}b",
    "\u{200d}",
    "a\u{ad}b",
    "\u{ad}",
    "a\u{180e}b",
    "a\u{17b4}b",
    "\u{180e}xn--xn---3ra",
    "xn--\u{200b}xn---3ra",
    "xn--xn---3r\u{ff21}",
    "xn--xn---3ra.a\u{301}",
    "xn--ab-v17n",
    "xn--ab-h0o",
    "xn--ab-50o",
    "xn--ab-v17n.xn--xn---3ra",
    "\u{5d0}1",
    "1\u{5d0}",
    "\u{5d0}\u{5d1}",
    "a\u{5d0}",
    "\u{627}1",
    "\u{627}\u{661}",
    "\u{2488}",
    "\u{2474}",
    "a\u{fe0f}",
    "\u{1f600}",
    "a\u{301}",
    "\u{301}a",
    "\u{1c5}",
    "\u{130}",
    "\u{216b}",
    "\u{e000}",
    "\u{fffd}",
    "\u{10ffff}",
    "a\u{2028}b",
    "a\u{2060}b",
    "a\u{34f}b",
    "\u{c0}.\u{30a}",
    "a\u{e0001}b",
    // IPv4 forms
    "1.2.3.4",
    "1.2.3.4.",
    "1.2.3.4..",
    "0x7f.1",
    "0177.0.0.1",
    "0x",
    "0x.0x.0",
    "256.0.0.0",
    "255.255.255.255",
    "4294967295",
    "4294967296",
    "0xffffffff",
    "0x100000000",
    "1.2.3.4.5",
    "09.1",
    "08",
    "1.2.3.09",
    "1.2.3.a",
    ".1.2.3",
    "1..2",
    "1.2.3.4x",
    "1e1",
    "0.0.0.0",
    "00000000000000000001",
    "0x0000000000000001",
    "1.256",
    "1.65536",
    "1.16777216",
    "01.02.03.04",
    "\u{661}.\u{662}.\u{663}.\u{664}",
    "\u{ff11}.\u{ff12}.\u{ff13}.\u{ff14}",
    "1.2.3.0x",
    "0X7F.1",
    "1.2.3.-1",
    "a.1.2.3",
    "1.2.3.4.a",
    "0x7f.0.0.1.",
    // IPv6 forms
    "[::1]",
    "[::]",
    "[1:2:3:4:5:6:7:8]",
    "[1:2:3:4:5:6:7:8:9]",
    "[::ffff:1.2.3.4]",
    "[::1.2.3.4.5]",
    "[::1.2.3]",
    "[::256.0.0.1]",
    "[fe80::1%25eth0]",
    "[fe80::1%eth0]",
    "[:::]",
    "[1::2::3]",
    "[v1.x]",
    "[0:0::0:0:0:0:0:0]",
    "[::1",
    "::1]",
    "[::1]x",
    "[1:2:3:4:5:6:7::]",
    "[1:2:3:4:5:6::7:8]",
    "[::FFFF:1.2.3.4]",
    "[::1.2.3.04]",
    "[12345::]",
    "[g::]",
    "[::%31]",
    "[ ::1]",
    "[::1 ]",
    "[]",
    "[::1.2.3.4]",
    "[1:2:3:4:5:6:1.2.3.4]",
    "[1:2:3:4:5:6:7:1.2.3.4]",
    "[::1]:80",
    "[::1]]",
    "[[::1]]",
    "[::0x1]",
    "[1:]",
    "[:1]",
    // percent-encoding
    "%41",
    "a%2eb",
    "a%2Eb",
    "%zz",
    "a%00b",
    "a%2Fb",
    "%25",
    "%E2%98%83",
    "%C3%A9",
    "%ff",
    "%",
    "a%",
    "%41%42",
    "x%2ey%2ez",
    "%31.%32.%33.%34",
    "%5B::1%5D",
    "a%20b",
    "a%09b",
    "%ef%bc%8e",
    "%e3%80%82",
    "%c0%ae",
    // forbidden and odd code points, dots
    "a b",
    "a<b",
    "a>b",
    "a^b",
    "a|b",
    "a\"b",
    "a`b",
    "a{b",
    "a}b",
    "a'b",
    "a*b",
    "a!b",
    "a$b",
    "a&b",
    "a(b",
    "a+b",
    "a,b",
    "a;b",
    "a=b",
    "a~b",
    "a_b",
    "a%b",
    "a\u{7f}b",
    "a\u{0}b",
    "a\u{1f}b",
    "a\u{80}b",
    "a\u{9f}b",
    "a-",
    "a..b",
    ".a",
    "a.",
    "..",
    ".",
    "a:b@c",
    "a@b@c",
];

const USERINFO: &[&str] = &[
    "u@", "u:p@", "@", "u@@", "a@b@", ":@", "%40@", "u\\@", "u:p:q@", "\u{fc}@", "u p@", "u%zz@",
    "u\u{0}@", "[::1]@", "u#@", "u?@",
];

const PORTS: &[&str] = &[
    ":0",
    ":65535",
    ":65536",
    ":",
    ":080",
    ":+1",
    ":-1",
    ":1a",
    ":99999999999",
    ": 1",
    ":1 ",
    ":\\",
    ":80\\x",
    ":\u{ff18}\u{ff10}",
    ":0x50",
    "::80",
    ":80:80",
    ":00000000000000000080",
    ":80@x",
];

const CONTROLS: &[&str] = &[
    "\t", "\n", "\r", "\u{0}", "\u{1}", "\u{1f}", "\u{7f}", " ", "\u{a0}", "\u{feff}", "\u{3000}",
    "\u{85}", "\u{2028}",
];

const WHOLE: &[&str] = &[
    "http:\\\\h.test\\x",
    "http:/\\h.test",
    "http:h.test",
    "http:/h.test",
    "http:///h.test",
    "http:\\h.test",
    "http:\\\\\\\\h.test",
    "foo:\\\\h.test",
    "foo://h.test\\x",
    "foo:/\\h.test",
    "file:\\\\h.test\\x",
    "\\\\h.test",
    "1http://h.test",
    "h ttp://h.test",
    "http+x://h.test",
    "a.b-c+d://h.test",
    "-x://h.test",
    "x://",
    "x:",
    ":",
    "http:",
    "https:",
    "http://",
    "http:///",
    "http://?",
    "http://#",
    "http://h.test?x",
    "http://h.test#x",
    "http://@/",
    "http://:80/",
    "foo://@",
    "foo://u@",
    "foo:///x",
    "foo:",
    "javascript:alert(1)",
    "data:,",
    "C:\\x",
    "c:/x",
    "blob:https://x",
    "mailto:a@b",
    "//h.test",
    "/h.test",
    "h.test",
    "HTTP://H.TEST/",
    "hTtP://h.test",
    "http://h.test/ path",
    "http://h.test/\u{0}",
    "https://exa mple.test",
    "http://[::1]:65536/",
    "http://user:pass@[::1]:8080/p?q#f",
    "ws://h.test/",
    "wss://h.test/",
    "ftp://h.test/",
    "file:///tmp/secret",
    "file://h.test:80/",
    "file://%zz/",
    "ftp:a\u{180e}",
    "ws:a\u{17b4}",
    "http:xn--\u{200b}xn---3ra",
    "http:\u{180e}xn--xn---3ra",
    "http:xn--xn---3r\u{ff21}",
    "http://xn--xn---3ra.a\u{301}/",
    "http://a%e1%a0%8eb/",
    "http://a%E1%A0%8E%E1%A0%8Eb/",
    "http://a%E1%A0b/",
    "http://h.test/\u{180e}?\u{180e}#\u{180e}",
    "http://u\u{180e}@h.test/%E1%A0%8E",
    "foo://a\u{180e}b/",
    "foo://a%F0%90%80%A3b/",
    "foo://h/\u{10023}",
    "foo://u\u{10023}@h/",
];
