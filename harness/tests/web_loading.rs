//! Bad web scenario files are refused at load with the file, the scenario and the fix; no
//! scenario can send a tool past loopback.

use vvoc_harness::load::suite::load_suite;

mod common;

use common::files_folder;

/// The load error of one web scenario of `tool` made of `members` (JSON text after the id).
fn web_error(tool: &str, members: &str) -> String {
    let text = format!(r#"{{"tool": "{tool}", "scenarios": [{{"id": "w", {members}}}]}}"#);
    let dir = files_folder(&[("exec-w.json", &text)]);
    let error = load_suite(&[dir.path().to_owned()]).expect_err("the folder must be refused");
    error
        .to_string()
        .replace(&format!("{}/", dir.path().display()), "")
}

const ENDS: &str = r#""asks": [], "requests": [], "throws": "t""#;

#[test]
fn a_good_web_scenario_loads_with_its_routes_and_expectations() {
    let text = r#"{"tool": "web_fetch", "scenarios": [{"id": "ok", "host": {"fetch": {"provider": "native"}},
      "routes": [{"path": "/a?x=1", "status": 302, "headers": [["Location", "{server}/b"]]},
                 {"path": "/b", "body": {"repeat": "ab", "count": 3}}, {"method": "POST", "path": "/b", "body": {"base64": "/w=="}, "delay_ms": 5}],
      "call": {"url": "{server}/a?x=1"}, "family": "web_fetch:text-native", "result": {"title": "t"},
      "asks": [{"permission": "web_fetch"}], "requests": [{"method": "GET", "path": "/a?x=1", "headers": {"User-Agent": "Bun/1.3.8"}, "body": {"k": 1}}]}]}"#;
    let dir = files_folder(&[("exec-ok.json", text)]);
    let suite = load_suite(&[dir.path().to_owned()]).expect("loads");
    assert_eq!(suite.web.len(), 1);
    assert_eq!(suite.names, vec!["web_fetch:ok".to_owned()]);
    let web = &suite.web[0];
    assert_eq!(web.routes.len(), 3);
    assert_eq!(web.routes[0].status, 302);
    assert_eq!(
        web.routes[0].headers,
        vec![("Location".to_owned(), "{server}/b".to_owned())]
    );
    assert_eq!(web.routes[1].body.bytes(), b"ababab");
    assert_eq!(web.routes[2].body.bytes(), vec![0xff]);
    assert_eq!(
        (web.routes[2].method.as_str(), web.routes[2].delay_ms),
        ("POST", 5)
    );
    assert_eq!(
        web.expect.requests[0].headers,
        vec![("user-agent".to_owned(), "Bun/1.3.8".to_owned())],
        "header names are compared in lower case"
    );
}

#[test]
fn a_malformed_route_is_refused_naming_the_route_and_the_fix() {
    let cases = [
        (
            r#""routes": [{"path": "page"}]"#,
            "routes[0].path must start with \"/\"",
        ),
        (
            r#""routes": [{"path": "/a"}, {"path": "/a"}]"#,
            "routes[1] answers the same method and path as routes[0]",
        ),
        (
            r#""routes": [{"path": "/a", "status": 99}]"#,
            "routes[0].status must be an integer from 100 to 999",
        ),
        (
            r#""routes": [{"path": "/a", "headers": [["X", "a\nb"]]}]"#,
            "routes[0].headers must be an array of [name, value]",
        ),
        (
            r#""routes": [{"path": "/a", "headers": [["bad name", "v"]]}]"#,
            "routes[0].headers must be",
        ),
        (
            r#""routes": [{"path": "/a", "body": {"base64": "%%"}}]"#,
            "routes[0].body must be a string",
        ),
        (
            r#""routes": [{"path": "/a", "body": {"repeat": "a", "count": 1e9}}]"#,
            "at most 64 MiB",
        ),
        (
            r#""routes": [{"path": "/a", "delay_ms": -1}]"#,
            "routes[0].delay_ms must be an integer from 0 to 120000",
        ),
        (
            r#""routes": [{"path": "/a", "wait": 1}]"#,
            "unknown member \"routes[0].wait\"",
        ),
    ];
    for (routes, says) in cases {
        let error = web_error(
            "web_fetch",
            &format!(r#"{routes}, "call": {{"url": "{{server}}/a"}}, {ENDS}"#),
        );
        assert!(
            error.starts_with("exec-w.json: web scenario 0 (\"w\"): ") && error.contains(says),
            "{routes}: {error}"
        );
    }
}

#[test]
fn a_url_or_endpoint_off_loopback_is_refused_so_no_scenario_leaves_the_machine() {
    let off = web_error(
        "web_fetch",
        &format!(r#""call": {{"url": "https://example.com/"}}, {ENDS}"#),
    );
    assert!(
        off.contains("call.url is \"https://example.com/\", which would leave the machine"),
        "{off}"
    );
    let endpoint = web_error(
        "web_search",
        &format!(
            r#""host": {{"endpoints": {{"exa": "https://api.exa.ai/search"}}}}, "call": {{"query": "q"}}, {ENDS}"#
        ),
    );
    assert!(endpoint.contains("host.endpoints.exa is"), "{endpoint}");
    let credential = web_error(
        "web_search",
        &format!(
            r#""host": {{"search": {{"provider": "brave", "apiKey": "k"}}}}, "call": {{"query": "q"}}, {ENDS}"#
        ),
    );
    assert!(
        credential.contains(
            "the call would send its provider request to https://api.search.brave.com/res/v1/web/search, off the machine: point host.endpoints.brave at {server}/"
        ),
        "{credential}"
    );
    let zai = web_error(
        "web_fetch",
        &format!(
            r#""host": {{"fetch": {{"provider": "zai", "region": "china"}}, "env": {{"ZAI_API_KEY": "k"}}, "endpoints": {{"zai-reader-international": "{{server}}/r"}}}}, "call": {{"url": "{{server}}/a"}}, {ENDS}"#
        ),
    );
    assert!(
        zai.contains("point host.endpoints.zai-reader-china at"),
        "the region picks the endpoint: {zai}"
    );
    let bad = web_error(
        "web_search",
        &format!(
            r#""host": {{"search": {{"provider": "bing"}}}}, "call": {{"query": "q"}}, {ENDS}"#
        ),
    );
    assert!(
        bad.contains("the host configuration is refused: host.search"),
        "{bad}"
    );
    // Loopback forms and a URL the tool would refuse anyway are fine.
    for url in [
        "http://127.0.0.1:9/x",
        "http://localhost/x",
        "http://[::1]/",
        "ftp://example.com/",
        "/page",
    ] {
        let text = format!(
            r#"{{"tool": "web_fetch", "scenarios": [{{"id": "w", "call": {{"url": "{url}"}}, {ENDS}}}]}}"#
        );
        let dir = files_folder(&[("exec-w.json", &text)]);
        assert!(
            load_suite(&[dir.path().to_owned()]).is_ok(),
            "{url} is refused"
        );
    }
}

#[test]
fn the_expectations_must_be_complete_and_of_one_kind() {
    let cases = [
        (
            r#""call": {}, "asks": [], "requests": []"#,
            "give exactly one of \"result\" (with \"family\") and \"throws\"",
        ),
        (
            r#""call": {}, "asks": [], "requests": [], "result": {}"#,
            "\"result\" and \"family\" go together",
        ),
        (
            r#""call": {}, "asks": [], "requests": [], "throws": "t", "family": "f""#,
            "\"result\" and \"family\" go together",
        ),
        (
            r#""call": {}, "requests": [], "throws": "t""#,
            "asks must be an array of permission requests",
        ),
        (
            r#""call": {}, "asks": [], "throws": "t""#,
            "requests must be an array of requests",
        ),
        (
            r#""asks": [], "requests": [], "throws": "t""#,
            "call must be the tool's input",
        ),
        (
            r#""call": {}, "asks": [], "requests": [{"path": "/"}], "throws": "t""#,
            "requests[0].method must be a string",
        ),
        (
            r#""call": {}, "asks": [], "requests": [], "throws": "t", "files": {}"#,
            "unknown member \"files\"",
        ),
        (
            r#""call": {}, "asks": [], "requests": [], "throws": "t", "host": []"#,
            "host must be an object",
        ),
    ];
    for (members, says) in cases {
        let error = web_error("web_search", members);
        assert!(error.contains(says), "{members}: {error}");
    }
}

#[test]
fn every_expected_result_is_valid_against_its_familys_published_schema() {
    let suite = load_suite(&[vvoc_harness::default_vectors_dir()]).expect("the suite loads");
    let schemas: Vec<(&str, jsonschema::Validator)> = vvoc_reference::exec::web::result_schemas()
        .into_iter()
        .map(|(family, schema)| {
            let schema = vvoc_harness::json::bridge::to_serde_lossy(&schema);
            (
                family,
                jsonschema::validator_for(&schema).expect("a valid schema"),
            )
        })
        .collect();
    assert_eq!(
        schemas.len(),
        9,
        "three search families and six fetch families"
    );
    let mut checked = 0;
    let mut broken = Vec::new();
    for scenario in &suite.web {
        let vvoc_harness::web::model::WebReply::Result { family, value } = &scenario.expect.reply
        else {
            continue;
        };
        let Some((_, validator)) = schemas.iter().find(|(f, _)| f == family) else {
            broken.push(format!("{}: no result family {family:?}", scenario.name()));
            continue;
        };
        let instance = vvoc_harness::json::bridge::to_serde_lossy(value);
        if let Some(error) = validator.iter_errors(&instance).next() {
            broken.push(format!(
                "{}: the expected result breaks {family}'s schema: {error}",
                scenario.name()
            ));
        }
        // The family is the one the reference classifies the result as, too.
        let classified = vvoc_reference::exec::web::family_of(scenario.tool, value);
        if classified != Some(family.as_str()) {
            broken.push(format!(
                "{}: the result is of family {classified:?}, not {family}",
                scenario.name()
            ));
        }
        checked += 1;
    }
    assert_eq!(broken, Vec::<String>::new());
    assert!(checked >= 300, "only {checked} expected results");
}
