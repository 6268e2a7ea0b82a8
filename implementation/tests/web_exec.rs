//! `execute_web` end to end against a canned HTTP server on 127.0.0.1 (nothing leaves the machine).

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use proptest::prelude::*;
use vvoc_reference::catalog::Tool;
use vvoc_reference::exec::web::{Host, WebCall, execute_web, family_of};
use vvoc_reference::json::Json;

/// One canned answer: the raw bytes of the response, optionally split by a stall.
#[derive(Clone, Default)]
struct Canned {
    /// Sent after `delay_ms`.
    head: Vec<u8>,
    delay_ms: u64,
    /// Sent after a further `stall_ms`.
    tail: Vec<u8>,
    stall_ms: u64,
}

/// A request the server saw.
#[derive(Clone, Debug)]
struct Seen {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: String,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

struct Server {
    base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

fn response(status: &str, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {status}\r\n");
    for (k, v) in headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    if !headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("content-length"))
    {
        out.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    out.push_str("Connection: close\r\n\r\n");
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

fn canned(bytes: Vec<u8>) -> Canned {
    Canned {
        head: bytes,
        ..Canned::default()
    }
}

/// Starts a server answering each path with its canned response (404 otherwise).
fn serve(routes: Vec<(&str, Canned)>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let base = format!("http://{}", listener.local_addr().expect("address"));
    let routes: Arc<HashMap<String, Canned>> =
        Arc::new(routes.into_iter().map(|(p, c)| (p.to_owned(), c)).collect());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let routes = Arc::clone(&routes);
            let log = Arc::clone(&log);
            thread::spawn(move || answer(stream, &routes, &log));
        }
    });
    Server { base, seen }
}

fn answer(mut stream: TcpStream, routes: &HashMap<String, Canned>, log: &Mutex<Vec<Seen>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => data.extend_from_slice(&buf[..n]),
        }
    };
    let head = String::from_utf8_lossy(&data[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or("");
    let mut parts = request_line.split(' ');
    let method = parts.next().unwrap_or("").to_owned();
    let path = parts.next().unwrap_or("").to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    while data.len() < head_end + length {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => data.extend_from_slice(&buf[..n]),
        }
    }
    let body = String::from_utf8_lossy(&data[head_end.min(data.len())..]).into_owned();
    log.lock().expect("log").push(Seen {
        method,
        path: path.clone(),
        headers,
        body,
    });
    let reply = routes
        .get(&path)
        .cloned()
        .unwrap_or_else(|| canned(response("404 Not Found", &[], b"")));
    thread::sleep(Duration::from_millis(reply.delay_ms));
    let _ = stream.write_all(&reply.head);
    let _ = stream.flush();
    if reply.stall_ms > 0 || !reply.tail.is_empty() {
        thread::sleep(Duration::from_millis(reply.stall_ms));
        let _ = stream.write_all(&reply.tail);
    }
    let _ = stream.shutdown(std::net::Shutdown::Write);
    // Drain what the client still sends, so the close is not a reset.
    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
    while matches!(stream.read(&mut buf), Ok(n) if n > 0) {}
}

fn json(text: &str) -> Json {
    Json::parse(text).expect("test JSON")
}

fn host(text: &str) -> Host {
    Host::from_json(&json(text)).expect("host configuration")
}

fn fetch(input: String, host_text: &str) -> WebCall {
    execute_web(Tool::WebFetch, &json(&input), &host(host_text))
}

fn raised(call: &WebCall) -> String {
    match &call.result {
        Err(e) => e.to_string_lossy(),
        Ok(v) => format!("returned {}", v.to_compact()),
    }
}

fn result(call: &WebCall) -> String {
    match &call.result {
        Ok(v) => v.to_compact(),
        Err(e) => format!("raised {}", e.to_string_lossy()),
    }
}

#[test]
fn native_html_converts_and_bun_defaults_are_sent() {
    let s = serve(vec![(
        "/page",
        canned(response(
            "200 OK",
            &[("Content-Type", "text/html; charset=utf-8")],
            b"<h1>Hello</h1>",
        )),
    )]);
    let url = format!("{}/page", s.base);
    let call = fetch(format!(r#"{{"url":"{url}"}}"#), "{}");
    assert_eq!(
        result(&call),
        format!(
            r##"{{"title":"web_fetch: {url}","output":"# Hello","metadata":{{"provider":"native","format":"markdown","status":200}}}}"##
        )
    );
    assert_eq!(
        call.result
            .as_ref()
            .ok()
            .and_then(|r| family_of(Tool::WebFetch, r)),
        Some("web_fetch:text-native")
    );
    assert_eq!(
        call.asks.iter().map(Json::to_compact).collect::<Vec<_>>(),
        [format!(
            r#"{{"permission":"web_fetch","patterns":["{url}"],"always":[],"metadata":{{"provider":"native","format":"markdown"}}}}"#
        )]
    );
    let seen = s.seen.lock().expect("log").clone();
    assert_eq!(seen.len(), 1);
    assert_eq!(
        (seen[0].method.as_str(), seen[0].path.as_str()),
        ("GET", "/page")
    );
    assert_eq!(seen[0].header("user-agent"), Some("Bun/1.3.8"));
    assert_eq!(seen[0].header("accept"), Some("*/*"));
    assert_eq!(
        seen[0].header("accept-encoding"),
        Some("gzip, deflate, br, zstd")
    );

    let text = fetch(format!(r#"{{"url":"{url}","format":"text"}}"#), "{}");
    assert!(
        result(&text).contains(r#""output":"Hello""#),
        "{}",
        result(&text)
    );
    let raw = fetch(format!(r#"{{"url":"{url}","format":"html"}}"#), "{}");
    assert!(
        result(&raw).contains(r#""output":"<h1>Hello</h1>""#),
        "{}",
        result(&raw)
    );
}

#[test]
fn gzip_bodies_are_decoded() {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(b"{\"a\":1}").expect("gzip");
    let body = gz.finish().expect("gzip");
    let s = serve(vec![(
        "/j",
        canned(response(
            "200 OK",
            &[
                ("Content-Type", "application/json"),
                ("Content-Encoding", "gzip"),
            ],
            &body,
        )),
    )]);
    let call = fetch(format!(r#"{{"url":"{}/j"}}"#, s.base), "{}");
    assert!(
        result(&call).contains(r#""output":"{\"a\":1}""#),
        "{}",
        result(&call)
    );
}

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n0000";

#[test]
fn media_becomes_an_attachment_named_from_the_final_url() {
    let s = serve(vec![
        (
            "/img.png",
            canned(response(
                "200 OK",
                &[("Content-Type", "application/octet-stream")],
                PNG,
            )),
        ),
        (
            "/r",
            canned(response("302 Found", &[("Location", "/pics/photo")], b"")),
        ),
        ("/pics/photo", canned(response("200 OK", &[], PNG))),
    ]);
    let call = fetch(format!(r#"{{"url":"{}/img.png"}}"#, s.base), "{}");
    let text = result(&call);
    assert!(
        text.contains(r#""output":"Fetched `img.png` as a image/png attachment.""#),
        "{text}"
    );
    assert!(text.contains(r#""attachments":[{"type":"file","mime":"image/png","url":"data:image/png;base64,iVBORw0KGgowMDAw","filename":"img.png"}]"#), "{text}");
    assert_eq!(
        call.result
            .as_ref()
            .ok()
            .and_then(|r| family_of(Tool::WebFetch, r)),
        Some("web_fetch:media-native")
    );
    let url = format!("{}/r", s.base);
    let call = fetch(format!(r#"{{"url":"{url}"}}"#), "{}");
    let text = result(&call);
    assert!(
        text.starts_with(&format!(r#"{{"title":"web_fetch: {url}","#)),
        "{text}"
    );
    assert!(text.contains(r#""filename":"photo.png""#), "{text}");
}

#[test]
fn http_errors_name_the_requested_url() {
    let s = serve(vec![(
        "/gone",
        canned(response("404 Not Found", &[], b"nope")),
    )]);
    let url = format!("{}/gone", s.base);
    let call = fetch(format!(r#"{{"url":"{url}"}}"#), "{}");
    assert_eq!(raised(&call), format!("HTTP 404 for {url}"));
    let call = fetch(format!(r#"{{"url":"{}/missing"}}"#, s.base), "{}");
    assert_eq!(raised(&call), format!("HTTP 404 for {}/missing", s.base));
}

#[test]
fn unsupported_types_and_oversized_text() {
    let big = vec![b'a'; 5_242_881];
    let s = serve(vec![
        (
            "/zip",
            canned(response(
                "200 OK",
                &[("Content-Type", "application/zip")],
                b"PK",
            )),
        ),
        (
            "/big",
            canned(response("200 OK", &[("Content-Type", "text/plain")], &big)),
        ),
    ]);
    let call = fetch(format!(r#"{{"url":"{}/zip"}}"#, s.base), "{}");
    assert_eq!(raised(&call), "unsupported content type: application/zip");
    let call = fetch(format!(r#"{{"url":"{}/big"}}"#, s.base), "{}");
    assert_eq!(raised(&call), "text response exceeded 5242880 bytes");
}

#[test]
fn a_slow_answer_times_out() {
    let s = serve(vec![
        (
            "/slow",
            Canned {
                head: response("200 OK", &[], b"late"),
                delay_ms: 2500,
                ..Canned::default()
            },
        ),
        (
            "/stall",
            Canned {
                head: response("200 OK", &[("Content-Length", "8")], b"half"),
                tail: b"rest".to_vec(),
                stall_ms: 2500,
                ..Canned::default()
            },
        ),
    ]);
    for path in ["/slow", "/stall"] {
        let started = std::time::Instant::now();
        let call = fetch(format!(r#"{{"url":"{}{path}","timeout":1}}"#, s.base), "{}");
        assert_eq!(raised(&call), "request timed out after 1000ms", "{path}");
        assert!(started.elapsed() < Duration::from_millis(2400), "{path}");
    }
}

#[test]
fn a_refused_connection_is_buns_text() {
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("address").port()
    };
    let call = fetch(format!(r#"{{"url":"http://127.0.0.1:{port}/x"}}"#), "{}");
    assert_eq!(
        raised(&call),
        "network error: Unable to connect. Is the computer able to access the url?"
    );
}

#[test]
fn exa_search_against_the_server() {
    let answer = br#"{"results":[{"url":"https://www.rust-lang.org/","title":"Rust","highlights":["A language empowering everyone."],"publishedDate":"2024-05-01"},{"url":"https://example.test/x"}]}"#;
    let s = serve(vec![
        (
            "/exa",
            canned(response(
                "200 OK",
                &[("Content-Type", "application/json")],
                answer,
            )),
        ),
        (
            "/big",
            canned(response("200 OK", &[], &vec![b' '; 5_242_881])),
        ),
        (
            "/limited",
            canned(response("429 Too Many Requests", &[], b"")),
        ),
    ]);
    let config = |path: &str| {
        format!(
            r#"{{"env":{{"EXA_API_KEY":"k"}},"now":1767225600000,"endpoints":{{"exa":"{}{path}"}}}}"#,
            s.base
        )
    };
    let call = execute_web(
        Tool::WebSearch,
        &json(r#"{"query":"rust","freshness":"week"}"#),
        &host(&config("/exa")),
    );
    assert_eq!(
        result(&call),
        r#"{"title":"web_search: rust","output":"1. [Rust](https://www.rust-lang.org/)\n   A language empowering everyone.\n   _2024-05-01_\n2. [https://example.test/x](https://example.test/x)","metadata":{"provider":"exa","resultCount":2,"credentialSource":"env"}}"#
    );
    assert_eq!(
        call.result
            .as_ref()
            .ok()
            .and_then(|r| family_of(Tool::WebSearch, r)),
        Some("web_search:exa")
    );
    let seen = s.seen.lock().expect("log").clone();
    assert_eq!(
        (seen[0].method.as_str(), seen[0].path.as_str()),
        ("POST", "/exa")
    );
    assert_eq!(seen[0].header("x-api-key"), Some("k"));
    assert_eq!(seen[0].header("content-type"), Some("application/json"));
    assert_eq!(seen[0].header("accept"), Some("application/json"));
    assert_eq!(
        seen[0]
            .headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case("accept"))
            .count(),
        1,
        "an explicit accept replaces Bun's"
    );
    assert_eq!(seen[0].header("user-agent"), Some("Bun/1.3.8"));
    assert_eq!(
        seen[0].body,
        r#"{"query":"rust","type":"auto","numResults":8,"contents":{"highlights":{"query":"rust","numSentences":3}},"startPublishedDate":"2025-12-25T00:00:00.000Z"}"#
    );
    let call = execute_web(
        Tool::WebSearch,
        &json(r#"{"query":"q"}"#),
        &host(&config("/big")),
    );
    assert_eq!(raised(&call), "response body exceeded 5242880 bytes");
    let call = execute_web(
        Tool::WebSearch,
        &json(r#"{"query":"q"}"#),
        &host(&config("/limited")),
    );
    assert_eq!(raised(&call), "exa rate limit exceeded");
}

#[test]
fn spider_probe_then_scrape() {
    let s = serve(vec![
        (
            "/page",
            canned(response(
                "200 OK",
                &[("Content-Type", "text/html")],
                b"<p>x</p>",
            )),
        ),
        (
            "/spider",
            canned(response(
                "200 OK",
                &[],
                br##"[{"content":"# x","status":200,"duration":12}]"##,
            )),
        ),
        ("/pic", canned(response("200 OK", &[], b"GIF89a"))),
    ]);
    let config = format!(
        r#"{{"fetch":{{"provider":"spider","apiKey":"sk"}},"endpoints":{{"spider":"{}/spider"}}}}"#,
        s.base
    );
    let url = format!("{}/page", s.base);
    let call = fetch(format!(r#"{{"url":"{url}"}}"#), &config);
    assert_eq!(
        result(&call),
        format!(
            r##"{{"title":"web_fetch: {url}","output":"# x","metadata":{{"provider":"spider","format":"markdown","credentialSource":"config","status":200,"durationMs":12}}}}"##
        )
    );
    let seen = s.seen.lock().expect("log").clone();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[1].header("authorization"), Some("Bearer sk"));
    assert_eq!(
        seen[1].body,
        format!(r#"{{"url":"{url}","return_format":["markdown"]}}"#)
    );
    let call = fetch(format!(r#"{{"url":"{}/pic"}}"#, s.base), &config);
    assert!(
        result(&call).contains(
            r#""metadata":{"provider":"spider","format":"markdown","credentialSource":"config"}"#
        ),
        "{}",
        result(&call)
    );
    assert_eq!(
        s.seen.lock().expect("log").len(),
        3,
        "the scrape is skipped for media"
    );
}

/// One server that answers every request with the same raw bytes.
fn serve_raw(bytes: Vec<u8>) -> Server {
    serve(vec![("/r", canned(bytes))])
}

fn arbitrary_response() -> impl Strategy<Value = Vec<u8>> {
    let status = prop_oneof![
        (100u16..600).prop_map(|s| s.to_string()),
        "[0-9a-zA-Z ]{0,6}",
    ];
    let header = prop_oneof![
        Just(("Content-Length".to_owned(), "1000000000".to_owned())),
        Just(("Content-Length".to_owned(), "x".to_owned())),
        Just(("Transfer-Encoding".to_owned(), "chunked".to_owned())),
        Just(("Content-Encoding".to_owned(), "gzip".to_owned())),
        Just(("Content-Encoding".to_owned(), "br, zstd".to_owned())),
        Just(("Content-Encoding".to_owned(), "deflate".to_owned())),
        Just(("Content-Type".to_owned(), "image/png".to_owned())),
        Just(("Content-Type".to_owned(), "text/html".to_owned())),
        Just(("Location".to_owned(), "/r".to_owned())),
        Just(("Location".to_owned(), "http://[::1".to_owned())),
        ("[A-Za-z-]{1,12}", "[ -~]{0,20}"),
    ];
    let body = prop::collection::vec(any::<u8>(), 0..300);
    (
        status,
        prop::collection::vec(header, 0..5),
        body,
        any::<bool>(),
        0usize..400,
    )
        .prop_map(|(status, headers, body, crlf, cut)| {
            let eol = if crlf { "\r\n" } else { "\n" };
            let mut out = format!("HTTP/1.1 {status}{eol}").into_bytes();
            for (k, v) in headers {
                out.extend_from_slice(format!("{k}: {v}{eol}").as_bytes());
            }
            out.extend_from_slice(eol.as_bytes());
            out.extend_from_slice(&body);
            out.truncate(cut.max(1).min(out.len()));
            out
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Any bytes from the server give a result or a raised text, never a panic or a hang.
    #[test]
    fn arbitrary_responses_never_panic(bytes in arbitrary_response(), format in 0usize..3) {
        let s = serve_raw(bytes);
        let format = ["markdown", "text", "html"][format];
        let call = fetch(format!(r#"{{"url":"{}/r","format":"{format}","timeout":3}}"#, s.base), "{}");
        match &call.result {
            Ok(r) => prop_assert!(family_of(Tool::WebFetch, r).is_some()),
            Err(e) => prop_assert!(!e.is_empty()),
        }
        let config = format!(r#"{{"env":{{"BRAVE_API_KEY":"k"}},"search":{{"provider":"brave"}},"endpoints":{{"brave":"{}/r"}}}}"#, s.base);
        let call = execute_web(Tool::WebSearch, &json(r#"{"query":"q"}"#), &host(&config));
        match &call.result {
            Ok(r) => prop_assert_eq!(family_of(Tool::WebSearch, r), Some("web_search:brave")),
            Err(e) => prop_assert!(!e.is_empty()),
        }
    }
}

#[test]
fn a_gigabyte_content_length_with_a_short_body_fails_cleanly() {
    let s = serve_raw(
        b"HTTP/1.1 200 OK\r\nContent-Length: 1000000000\r\nContent-Type: text/plain\r\n\r\nshort"
            .to_vec(),
    );
    let call = fetch(format!(r#"{{"url":"{}/r","timeout":5}}"#, s.base), "{}");
    assert!(
        raised(&call).starts_with("network error: "),
        "{}",
        raised(&call)
    );
}

#[test]
fn redirects_follow_the_fetch_standard() {
    let mut routes = vec![
        ("/nowhere", canned(response("302 Found", &[], b""))),
        (
            "/loop",
            canned(response("302 Found", &[("Location", "/loop")], b"")),
        ),
        (
            "/see",
            canned(response("303 See Other", &[("Location", "/landing")], b"")),
        ),
        (
            "/keep",
            canned(response(
                "307 Temporary Redirect",
                &[("Location", "/landing")],
                b"",
            )),
        ),
        (
            "/landing",
            canned(response("200 OK", &[], b"[{\"content\":\"ok\"}]")),
        ),
    ];
    routes.push(("/page-not-media", canned(response("200 OK", &[], b"text"))));
    let s = serve(routes);
    let url = format!("{}/nowhere", s.base);
    assert_eq!(
        raised(&fetch(format!(r#"{{"url":"{url}"}}"#), "{}")),
        format!("HTTP 302 for {url}")
    );
    let call = fetch(format!(r#"{{"url":"{}/loop"}}"#, s.base), "{}");
    assert_eq!(raised(&call), "network error: too many redirects");
    assert_eq!(s.seen.lock().expect("log").len(), 1 + 21);
    // Spider's POST: a 303 continues as GET without a body, a 307 keeps both.
    for (path, method, body) in [("/see", "GET", ""), ("/keep", "POST", "{\"url\":")] {
        let config = format!(
            r#"{{"fetch":{{"provider":"spider","apiKey":"k"}},"endpoints":{{"spider":"{}{path}"}}}}"#,
            s.base
        );
        let before = s.seen.lock().expect("log").len();
        let call = fetch(format!(r#"{{"url":"{}/page-not-media"}}"#, s.base), &config);
        assert!(
            result(&call).contains(r#""output":"ok""#),
            "{path}: {}",
            result(&call)
        );
        let seen = s.seen.lock().expect("log").clone();
        let last = &seen[seen.len() - 1];
        assert_eq!(seen.len(), before + 3, "{path}: probe, provider, landing");
        assert_eq!(last.method, method, "{path}");
        assert!(last.body.starts_with(body), "{path}: {}", last.body);
        assert_eq!(
            last.header("authorization"),
            Some("Bearer k"),
            "{path}: same origin"
        );
    }
}

#[test]
fn urls_go_on_the_wire_as_the_whatwg_parser_serializes_them() {
    let s = serve(vec![]);
    let port = s.base.trim_start_matches("http://127.0.0.1:");
    let call = fetch(
        format!(r#"{{"url":"  HTTP://127.0.0.1:{port}/a b|c^d[e]'f?x={{y}}|^`q#frag"}}"#),
        "{}",
    );
    assert!(
        raised(&call).starts_with("HTTP 404 for   HTTP://"),
        "{}",
        raised(&call)
    );
    let seen = s.seen.lock().expect("log").clone();
    assert_eq!(seen.len(), 1, "{}", raised(&call));
    assert_eq!(seen[0].path, "/a%20b|c^d[e]'f?x={y}|^`q");
}

#[test]
fn brave_and_zai_against_the_server() {
    let brave = br#"{"web":{"results":[{"url":"u","title":"t","description":"d"}]}}"#;
    let reader = br#"{"request_id":"r","reader_result":{"content":"body","title":"T"}}"#;
    let s = serve(vec![
        (
            "/brave?q=a+b%26c&count=3&safesearch=moderate&freshness=py",
            canned(response("200 OK", &[], brave)),
        ),
        ("/reader", canned(response("200 OK", &[], reader))),
    ]);
    let config = format!(
        r#"{{"search":{{"provider":"brave","apiKey":"bk"}},"endpoints":{{"brave":"{}/brave"}}}}"#,
        s.base
    );
    let call = execute_web(
        Tool::WebSearch,
        &json(r#"{"query":"a b&c","count":3,"freshness":"year"}"#),
        &host(&config),
    );
    assert_eq!(
        result(&call),
        r#"{"title":"web_search: a b&c","output":"1. [t](u)\n   d","metadata":{"provider":"brave","resultCount":1,"credentialSource":"config"}}"#
    );
    assert_eq!(
        s.seen.lock().expect("log")[0].header("x-subscription-token"),
        Some("bk")
    );
    let config = format!(
        r#"{{"fetch":{{"provider":"zai","region":"international"}},"env":{{"ZAI_API_KEY":"zk"}},"endpoints":{{"zai-reader-international":"{}/reader"}}}}"#,
        s.base
    );
    let url = format!("{}/text", s.base);
    let call = fetch(
        format!(r#"{{"url":"{url}","timeout":0.5,"format":"text"}}"#),
        &config,
    );
    // The probe's 404 propagates unmapped, and the reader is not called.
    assert_eq!(raised(&call), format!("HTTP 404 for {url}"));
    let s2 = serve(vec![
        (
            "/text",
            canned(response(
                "200 OK",
                &[("Content-Type", "text/plain")],
                b"plain",
            )),
        ),
        ("/reader", canned(response("200 OK", &[], reader))),
    ]);
    let config = config.replace(&s.base, &s2.base);
    let url = format!("{}/text", s2.base);
    let call = fetch(
        format!(r#"{{"url":"{url}","timeout":0.5,"format":"text"}}"#),
        &config,
    );
    assert_eq!(
        result(&call),
        format!(
            r#"{{"title":"web_fetch: {url}","output":"body","metadata":{{"provider":"zai","region":"international","format":"text","credentialSource":"env","status":200,"requestId":"r","title":"T"}}}}"#
        )
    );
    let seen = s2.seen.lock().expect("log").clone();
    assert_eq!(
        seen[1].body,
        format!(r#"{{"url":"{url}","timeout":0.5,"return_format":"text"}}"#)
    );
    assert_eq!(
        seen[1]
            .headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case("content-type"))
            .count(),
        1
    );
}

#[test]
fn the_media_cap_is_twenty_mebibytes() {
    let mut big = PNG.to_vec();
    big.resize(20_971_521, 0);
    let mut exact = PNG.to_vec();
    exact.resize(20_971_520, 0);
    let s = serve(vec![
        ("/big.png", canned(response("200 OK", &[], &big))),
        ("/exact.png", canned(response("200 OK", &[], &exact))),
    ]);
    let call = fetch(format!(r#"{{"url":"{}/big.png"}}"#, s.base), "{}");
    assert_eq!(raised(&call), "response body exceeded 20971520 bytes");
    let call = fetch(format!(r#"{{"url":"{}/exact.png"}}"#, s.base), "{}");
    assert!(call.result.is_ok(), "{}", raised(&call));
}

#[test]
fn zai_search_reports_its_region() {
    let answer = br#"{"search_result":[{"link":"l","title":"t","content":"c","publish_date":"d"},{"link":""}]}"#;
    let s = serve(vec![("/zs", canned(response("200 OK", &[], answer)))]);
    let config = format!(
        r#"{{"search":{{"provider":"zai","region":"china"}},"env":{{"ZAI_API_KEY":"zk"}},"endpoints":{{"zai-search-china":"{}/zs"}}}}"#,
        s.base
    );
    let call = execute_web(
        Tool::WebSearch,
        &json(r#"{"query":"q","count":20,"freshness":"month"}"#),
        &host(&config),
    );
    assert_eq!(
        result(&call),
        r#"{"title":"web_search: q","output":"1. [t](l)\n   c\n   _d_","metadata":{"provider":"zai","region":"china","resultCount":1,"credentialSource":"env"}}"#
    );
    assert_eq!(
        call.result
            .as_ref()
            .ok()
            .and_then(|r| family_of(Tool::WebSearch, r)),
        Some("web_search:zai")
    );
    let seen = s.seen.lock().expect("log").clone();
    assert_eq!(seen[0].header("authorization"), Some("Bearer zk"));
    assert_eq!(
        seen[0].body,
        r#"{"search_engine":"search_pro","search_query":"q","count":20,"search_recency_filter":"oneMonth"}"#
    );
}
