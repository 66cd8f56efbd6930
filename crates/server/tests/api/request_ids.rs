//! Request ids through the real binary: a sane incoming `X-Request-Id` is
//! echoed, another one replaced by a made one; the id is on the request's log
//! line, in text and with `--log-format json`, where every log line is one
//! JSON object and the request's facts are its fields. (5xx bodies carry the
//! id too, and so do the lines a store call logs on the blocking pool:
//! `unwritable.rs`; what the JSON lines never hold: `log_lines.rs`.)
use crate::support::process::{request, Serve};
use equip_persistence::test_support::TestDatabase;
use serde_json::Value;

fn id_of(server: &Serve, sent: Option<&str>) -> String {
    let headers: Vec<(&str, &str)> = sent.map(|id| ("X-Request-Id", id)).into_iter().collect();
    let resp = request(&server.addr, "GET", "/api/v1/inventory", &headers, b"").unwrap();
    assert_eq!(resp.status, 401, "{}", resp.text());
    resp.header("x-request-id")
        .unwrap_or_else(|| panic!("no X-Request-Id in {:?}", resp.headers))
        .to_owned()
}

/// Waits until `server`'s log has a line containing `needle`.
fn logged(server: &Serve, needle: &str) -> String {
    for _ in 0..100 {
        if let Some(line) = server.log().lines().find(|l| l.contains(needle)) {
            return line.to_owned();
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("no log line with {needle:?} in:\n{}", server.log());
}

#[test]
fn ids_are_kept_or_made_and_written_on_text_log_lines() {
    let db = TestDatabase::sqlite();
    let server = Serve::start(db.url(), &["--no-dispatcher"]);
    assert_eq!(id_of(&server, Some("lb-7f3a.01")), "lb-7f3a.01");
    let made = id_of(&server, None);
    assert_eq!(made.len(), 32, "{made}");
    let long = "x".repeat(200);
    for insane in ["has space", long.as_str()] {
        let replaced = id_of(&server, Some(insane));
        assert_ne!(replaced, insane);
        assert_eq!(replaced.len(), 32);
    }
    assert_ne!(id_of(&server, None), made, "each request has its own id");
    let line = logged(&server, "request_id=lb-7f3a.01");
    assert!(line.contains("GET /api/v1/inventory 401"), "{line}");
    assert!(line.contains(" INFO "), "{line}");
    for field in [
        "status=401",
        "latency_ms=",
        "route=/api/v1/inventory",
        "method=GET",
    ] {
        assert!(line.contains(field), "{field} missing: {line}");
    }
    let line = logged(&server, &format!("request_id={made}"));
    assert!(line.contains("GET /api/v1/inventory 401"), "{line}");
}

#[test]
fn json_log_lines_are_objects_with_the_request_id() {
    let db = TestDatabase::sqlite();
    let server = Serve::start(db.url(), &["--no-dispatcher", "--log-format", "json"]);
    assert_eq!(id_of(&server, Some("probe-42")), "probe-42");
    logged(&server, "probe-42");
    let mut request_lines = 0;
    for line in server.log().lines() {
        let object: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("not a JSON object ({e}): {line}"));
        for field in ["time", "level", "target", "message"] {
            assert!(object[field].is_string(), "{field} missing in {line}");
        }
        if object["message"] == "GET /api/v1/inventory 401" {
            // The request's facts as fields, not only in the text.
            assert_eq!(object["request_id"], "probe-42", "{line}");
            assert_eq!(object["level"], "INFO");
            assert_eq!(object["method"], "GET", "{line}");
            assert_eq!(object["route"], "/api/v1/inventory", "{line}");
            assert_eq!(object["status"], 401, "{line}");
            assert!(
                object["latency_ms"].as_f64().is_some_and(|ms| ms >= 0.0),
                "{line}"
            );
            // No key was verified: no organization, no key.
            assert!(object.get("org_id").is_none(), "{line}");
            assert!(object.get("key_id").is_none(), "{line}");
            request_lines += 1;
        }
    }
    assert_eq!(request_lines, 1, "{}", server.log());
    assert!(server
        .log()
        .contains(r#""message":"equip listening on http://"#));
}
