//! Metrics (`equip serve --metrics-bind`), through the real binary on SQLite
//! and on PostgreSQL: `GET /metrics` on the second listener is read with the
//! Prometheus client library's parsers (Python `prometheus_client`, strict
//! OpenMetrics and the classic text parser; scripts/parse_metrics.py), before
//! and after a few API requests; the request counter of each route template,
//! method and status grew by the requests made, the latency histogram
//! counted them, events written, key lookups, and the pool and queue figures
//! are there. Without `--metrics-bind` there is no metrics listener.
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::support::process::{organization_with_key, request, Serve};
use crate::support::{repo_root, venv_python};
use equip_persistence::test_support::TestDatabase;
use serde_json::{json, Value};

#[test]
fn sqlite_metrics_count_requests_and_report_the_store() {
    counts_requests_and_reports_the_store(&TestDatabase::sqlite());
}

#[test]
fn postgres_metrics_count_requests_and_report_the_store() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    counts_requests_and_reports_the_store(&db);
}

#[test]
fn without_metrics_bind_there_is_no_metrics_listener() {
    let db = TestDatabase::sqlite();
    let key = organization_with_key(&db, "Acme");
    let serve = Serve::start(db.url(), &[]);
    assert_eq!(serve.metrics_addr, None);
    assert!(!serve.log().contains("metrics on"), "{}", serve.log());
    // The API listener has no /metrics: unknown with a key, and no way in
    // without one.
    let with_key = serve.client(&key).get("/metrics").unwrap();
    assert_eq!(with_key.status, 404, "{}", with_key.text());
    let without = request(&serve.addr, "GET", "/metrics", &[], b"").unwrap();
    assert!(
        matches!(without.status, 401 | 404),
        "{} {}",
        without.status,
        without.text()
    );
    assert!(!without.text().contains("equip_http_requests"));
}

fn counts_requests_and_reports_the_store(db: &TestDatabase) {
    let Some(python) = metrics_python() else {
        return;
    };
    let key = organization_with_key(db, "Acme");
    // Webhooks are not delivered: the one created below stays behind.
    let serve = Serve::start(
        db.url(),
        &[
            "--metrics-bind",
            "127.0.0.1:0",
            "--no-webhooks",
            "--allow-private-webhooks",
        ],
    );
    let metrics = serve
        .metrics_addr
        .clone()
        .unwrap_or_else(|| panic!("no metrics address printed; log:\n{}", serve.log()));
    let api = serve.client(&key);
    let hook = api
        .post(
            "/api/v1/webhooks",
            "application/json",
            json!({"url": "http://127.0.0.1:9/hook"})
                .to_string()
                .as_bytes(),
        )
        .unwrap();
    assert_eq!(hook.status, 201, "{}", hook.text());

    let before = scrape(&python, &metrics);
    assert_eq!(value(&before, "equip_webhooks_behind", &[]), Some(0.0));
    for _ in 0..3 {
        let r = api.get("/api/v1/inventory").unwrap();
        assert_eq!(r.status, 200, "{}", r.text());
    }
    for path in ["/api/v1/no-such-thing", "/nowhere"] {
        let r = api.get(path).unwrap();
        assert_eq!(r.status, 404, "{}", r.text());
    }
    // A well-formed key nobody issued (looked up, refused): counted under
    // the route it was meant for.
    let unknown = format!("ApiKey equip_{}_{}", "0".repeat(16), "0".repeat(64));
    let refused = request(
        &serve.addr,
        "GET",
        "/api/v1/inventory",
        &[("Authorization", &unknown)],
        b"",
    )
    .unwrap();
    assert_eq!(refused.status, 401, "{}", refused.text());
    // A write: one event.
    let created = api
        .scim_post(
            "/scim/v2/Users",
            &json!({
                "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
                "userName": "ada@acme.example",
                "name": {"givenName": "Ada", "familyName": "Lovelace"},
                "emails": [{"primary": true, "type": "work", "value": "ada@acme.example"}],
                "active": true
            }),
        )
        .unwrap();
    assert_eq!(created.status, 201, "{}", created.text());
    let after = scrape(&python, &metrics);

    let requests = |s: &[Value], route: &str, method: &str, status: &str| {
        value(
            s,
            "equip_http_requests_total",
            &[("route", route), ("method", method), ("status", status)],
        )
        .unwrap_or(0.0)
    };
    let grew = |route: &str, method: &str, status: &str| {
        requests(&after, route, method, status) - requests(&before, route, method, status)
    };
    assert_eq!(grew("/api/v1/inventory", "GET", "200"), 3.0);
    assert_eq!(grew("/api/v1/inventory", "GET", "401"), 1.0);
    assert_eq!(grew("unmatched", "GET", "404"), 2.0);
    assert_eq!(grew("/scim/v2/Users", "POST", "201"), 1.0);
    // The scrapes themselves are not API requests.
    assert!(after
        .iter()
        .all(|s| s["labels"]["route"].as_str() != Some("/metrics")));

    // The latency histogram counted the same requests, each in a bucket.
    let route = [("route", "/api/v1/inventory")];
    let count = |s: &[Value]| value(s, "equip_http_request_duration_seconds_count", &route);
    assert_eq!(
        count(&after).unwrap() - count(&before).unwrap_or(0.0),
        4.0,
        "{after:?}"
    );
    let inf = value(
        &after,
        "equip_http_request_duration_seconds_bucket",
        &[("route", "/api/v1/inventory"), ("le", "+Inf")],
    );
    assert_eq!(inf, count(&after));

    // Events written by the process: the create's.
    let events = |s: &[Value]| value(s, "equip_events_written_total", &[]).unwrap();
    assert_eq!(events(&after) - events(&before), 1.0);

    // Every key presented was looked up once: from memory or the database.
    let lookups = |s: &[Value]| {
        value(s, "equip_api_key_cache_hits_total", &[]).unwrap()
            + value(s, "equip_api_key_cache_misses_total", &[]).unwrap()
    };
    assert_eq!(lookups(&after) - lookups(&before), 5.0);

    // The webhook has the create's event to deliver.
    assert_eq!(value(&after, "equip_webhooks_behind", &[]), Some(1.0));
    let age = value(&after, "equip_webhooks_oldest_undelivered_age_seconds", &[]).unwrap();
    assert!(age > 0.0 && age < 600.0, "{age}");

    // The pool and the queues.
    let max = value(&after, "equip_db_pool_max_connections", &[]).unwrap();
    assert!(max >= 1.0, "{max}");
    let in_use = value(&after, "equip_db_pool_connections_in_use", &[]).unwrap();
    let idle = value(&after, "equip_db_pool_connections_idle", &[]).unwrap();
    assert!(in_use + idle <= max, "{in_use} + {idle} > {max}");
    for name in [
        "equip_db_pool_waits_total",
        "equip_db_pool_wait_seconds_total",
        "equip_db_pool_timeouts_total",
        "equip_mail_outbox_pending",
        "equip_mail_outbox_dead",
        "equip_mail_outbox_oldest_pending_age_seconds",
        "equip_webhooks_behind",
        "equip_webhooks_oldest_undelivered_age_seconds",
    ] {
        assert!(value(&after, name, &[]).is_some(), "{name} missing");
    }
    assert_eq!(value(&after, "equip_queue_stats_up", &[]), Some(1.0));
    // The listings above built the organization's listing index (no items
    // yet) and its default order.
    assert_eq!(
        value(&before, "equip_listing_index_organizations", &[]),
        Some(0.0)
    );
    assert_eq!(
        value(&after, "equip_listing_index_organizations", &[]),
        Some(1.0)
    );
    assert_eq!(value(&after, "equip_listing_index_items", &[]), Some(0.0));
    assert_eq!(value(&after, "equip_listing_index_orders", &[]), Some(1.0));
    assert!(value(&after, "equip_listing_index_bytes", &[]).is_some());
    assert_eq!(value(&after, "equip_mail_outbox_pending", &[]), Some(0.0));

    // The build, and the process as the operating system sees it (the names
    // of Prometheus's client libraries).
    let version = env!("CARGO_PKG_VERSION");
    let build = after
        .iter()
        .find(|s| s["name"] == "equip_build_info")
        .expect("equip_build_info");
    assert_eq!(build["value"].as_f64(), Some(1.0), "{build}");
    assert_eq!(build["labels"]["version"], version, "{build}");
    let commit = build["labels"]["commit"].as_str().unwrap();
    assert!(
        commit == "unknown" || commit.chars().all(|c| c.is_ascii_alphanumeric()),
        "{build}"
    );
    let cpu = |s: &[Value]| value(s, "process_cpu_seconds_total", &[]).unwrap();
    assert!(cpu(&after) > 0.0 && cpu(&after) >= cpu(&before));
    let rss = value(&after, "process_resident_memory_bytes", &[]).unwrap();
    let anon = value(&after, "equip_process_resident_anonymous_memory_bytes", &[]).unwrap();
    let file = value(&after, "equip_process_resident_file_memory_bytes", &[]).unwrap();
    assert!(rss > 1e6 && anon > 0.0 && file > 0.0, "{rss} {anon} {file}");
    // RssAnon + RssFile + RssShmem = VmRSS (the kernel's own counters may
    // be a little stale: within 10%).
    assert!((anon + file) <= rss * 1.1, "{anon} + {file} vs {rss}");
    assert!(value(&after, "process_virtual_memory_bytes", &[]).unwrap() >= rss);
    let fds = value(&after, "process_open_fds", &[]).unwrap();
    assert!(fds >= 3.0, "{fds}");
    if let Some(max) = value(&after, "process_max_fds", &[]) {
        assert!(max >= fds, "{max} < {fds}");
    }
    assert!(value(&after, "process_threads", &[]).unwrap() >= 2.0);
    let started = value(&after, "process_start_time_seconds", &[]).unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    assert!(
        started <= now + 1.0 && started > now - 600.0,
        "started {started}, now {now}"
    );

    // Nothing but /metrics on the metrics listener, and no key needed.
    let other = request(&metrics, "GET", "/api/v1/inventory", &[], b"").unwrap();
    assert_eq!(other.status, 404);
}

/// `GET /metrics`, checked for its content type and parsed by the Python
/// parsers: its samples.
fn scrape(python: &Path, addr: &str) -> Vec<Value> {
    let r = request(addr, "GET", "/metrics", &[], b"").unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(
        r.header("content-type")
            .is_some_and(|t| t.starts_with("application/openmetrics-text")),
        "{:?}",
        r.headers
    );
    parse(python, &r.text())
}

/// The samples of `text` as scripts/parse_metrics.py reads them; panics with
/// the parser's message when it does not parse.
fn parse(python: &Path, text: &str) -> Vec<Value> {
    let mut child = Command::new(python)
        .arg(repo_root().join("scripts/parse_metrics.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the metrics parser");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "the exposition does not parse: {}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    let samples: Value = serde_json::from_slice(&out.stdout).unwrap();
    samples.as_array().unwrap().clone()
}

/// The value of the sample `name` whose labels include `labels`.
fn value(samples: &[Value], name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    samples
        .iter()
        .find(|s| {
            s["name"] == name
                && labels
                    .iter()
                    .all(|(k, v)| s["labels"][*k].as_str() == Some(*v))
        })
        .map(|s| s["value"].as_f64().unwrap())
}

/// The Python of the venv with `prometheus_client` (scripts/metrics-venv.sh).
fn metrics_python() -> Option<PathBuf> {
    venv_python("metrics-venv.sh", "metrics")
}
