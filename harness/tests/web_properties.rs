//! Generated fixture routes, however odd (any status, headers, invalid UTF-8, a declared length
//! far past the body, redirect loops, bodies just past the caps), played through the fixture
//! server against the reference: every call returns a result or raises a text, in time, and no
//! panic escapes.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use vvoc_harness::web::model::{Body, Route, WebExpect, WebReply, WebScenario};
use vvoc_harness::web::play::{WebReceived, play_reference};
use vvoc_reference::{JsString, Json, Tool};

/// A small deterministic generator (xorshift64*), so a failure names its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

const TYPES: &[&str] = &[
    "text/html",
    "text/plain; charset=latin1",
    "application/json",
    "application/octet-stream",
    "image/png",
    "application/pdf",
    "application/zip",
    "",
    "text/html; charset=\u{0}",
    "application/vnd.api+json",
];

fn body(rng: &mut Rng) -> Body {
    Body::Bytes(match rng.below(7) {
        0 => Vec::new(),
        1 => (0..rng.below(300)).map(|_| rng.below(256) as u8).collect(),
        2 => b"<html><body><h1>x</h1><p>&amp;&#0;&#xD800;<b><i></b></i><table><tr><td>".to_vec(),
        3 => [0x89, b'P', b'N', b'G', 0, 1, 2].to_vec(),
        4 => {
            return Body::Repeat {
                text: "a".to_owned(),
                count: 5 * 1024 * 1024 + 1,
            };
        }
        5 => b"{\"results\":[{\"url\":\"u\",\"title\":7,\"highlights\":[null]}]}".to_vec(),
        _ => vec![0xff, 0xfe, b'<', b'p', b'>', 0xc3],
    })
}

fn route(rng: &mut Rng, index: usize, routes: usize) -> Route {
    let status = *[
        200, 200, 200, 204, 301, 302, 303, 307, 308, 404, 429, 500, 999,
    ]
    .get(rng.below(13) as usize)
    .unwrap_or(&200);
    let mut headers = Vec::new();
    let kind = rng.pick(TYPES);
    if !kind.is_empty() {
        headers.push(("Content-Type".to_owned(), kind.to_owned()));
    }
    if (300..400).contains(&status) {
        // Redirects to another route, to itself (a loop), or nowhere useful.
        let target = match rng.below(4) {
            0 => format!("{{server}}/r{}", rng.below(routes as u64)),
            1 => format!("{{server}}/r{index}"),
            2 => "ftp://127.0.0.1/x".to_owned(),
            _ => "".to_owned(),
        };
        headers.push(("Location".to_owned(), target));
    }
    match rng.below(6) {
        0 => headers.push(("Content-Length".to_owned(), "1000000000".to_owned())),
        1 => headers.push((
            "Content-Encoding".to_owned(),
            rng.pick(&["gzip", "br", "zstd", "deflate", "x"]).to_owned(),
        )),
        2 => headers.push(("Transfer-Encoding".to_owned(), "chunked".to_owned())),
        _ => {}
    }
    Route {
        method: "GET".to_owned(),
        path: format!("/r{index}"),
        status,
        headers,
        body: body(rng),
        delay_ms: 0,
    }
}

fn scenario(rng: &mut Rng, seed: u64) -> WebScenario {
    let count = 1 + rng.below(4) as usize;
    let mut routes: Vec<Route> = (0..count).map(|i| route(rng, i, count)).collect();
    let search = rng.below(3) == 0;
    let (tool, host, call) = if search {
        // The provider's answer is one of the generated routes, posted to.
        routes[0].method = "POST".to_owned();
        let provider = rng.pick(&["exa", "brave", "zai"]);
        let endpoint = match provider {
            "zai" => "zai-search-international",
            other => other,
        };
        if provider == "brave" {
            routes[0].method = "GET".to_owned();
            routes[0].path = "/r0?q=q&count=8&safesearch=moderate".to_owned();
        }
        let host = format!(
            r#"{{"search": {{"provider": "{provider}", "region": "china", "apiKey": "k"}}, "endpoints": {{"{endpoint}": "{{server}}/r0"}}}}"#
        );
        (Tool::WebSearch, host, r#"{"query": "q"}"#.to_owned())
    } else {
        let format = rng.pick(&["markdown", "text", "html"]);
        let call = format!(r#"{{"url": "{{server}}/r0", "format": "{format}", "timeout": 5}}"#);
        (Tool::WebFetch, "{}".to_owned(), call)
    };
    WebScenario {
        tool,
        id: format!("generated-{seed}"),
        note: None,
        host: Json::parse(&host).expect("a host"),
        routes,
        call: Json::parse(&call).expect("a call"),
        expect: WebExpect {
            reply: WebReply::Throws(JsString::from("")),
            asks: Vec::new(),
            requests: Vec::new(),
        },
        file: PathBuf::from("generated.json"),
        source: "generated.json".to_owned(),
        index: 0,
    }
}

#[test]
fn any_generated_route_gets_a_result_or_a_raised_text_in_time_and_no_panic() {
    let mut outcomes = [0usize; 2];
    let mut broken = Vec::new();
    for seed in 1..=150u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let scenario = scenario(&mut rng, seed);
        let began = Instant::now();
        let answer = std::panic::catch_unwind(|| play_reference(&scenario));
        let Ok(answer) = answer else {
            broken.push(format!(
                "seed {seed}: the reference panicked on {:?}",
                scenario.routes
            ));
            continue;
        };
        if began.elapsed() > Duration::from_secs(20) {
            broken.push(format!("seed {seed}: took {:?}", began.elapsed()));
        }
        match answer.reply {
            WebReceived::Result(_) => outcomes[0] += 1,
            WebReceived::Throws(_) => outcomes[1] += 1,
            WebReceived::Failed(_)
            | WebReceived::Fault(_)
            | WebReceived::Unsupported
            | WebReceived::NotObservable(_) => {
                broken.push(format!(
                    "seed {seed}: no result and no raise: {:?}",
                    answer.reply
                ));
            }
        }
    }
    assert_eq!(broken, Vec::<String>::new());
    // Both kinds come out, so the generator reaches past the error paths.
    assert!(
        outcomes[0] > 10 && outcomes[1] > 10,
        "results and raises: {outcomes:?}"
    );
}
