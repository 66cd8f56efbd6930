//! The web console as `equip serve` mounts it: its page and files without a
//! key, with the console's security headers, beside an API that still wants
//! one; `--no-console` leaves it out. (What the page does in a browser:
//! crates/console/browser_tests, run by scripts/console-tests.sh.)
use crate::support::process::{request, Serve};
use equip_persistence::test_support::TestDatabase;

#[test]
fn serve_mounts_the_console_outside_the_gate() {
    let db = TestDatabase::sqlite();
    let server = Serve::start(db.url(), &["--no-dispatcher"]);
    let page = request(&server.addr, "GET", "/console/", &[], b"").unwrap();
    assert_eq!(page.status, 200, "{}", page.text());
    assert!(page.text().contains("<main"), "{}", page.text());
    assert_eq!(
        page.header("content-security-policy"),
        Some(equip_console::CONTENT_SECURITY_POLICY)
    );
    assert_eq!(page.header("x-frame-options"), Some("DENY"));
    assert!(
        page.header("x-request-id").is_some(),
        "logged like every request"
    );
    let script = request(&server.addr, "GET", "/console/js/app.js", &[], b"").unwrap();
    assert_eq!(script.status, 200);
    assert_eq!(
        script.header("content-type"),
        Some("text/javascript; charset=utf-8")
    );
    let bare = request(&server.addr, "GET", "/console", &[], b"").unwrap();
    assert_eq!(bare.status, 308);
    assert_eq!(bare.header("location"), Some("/console/"));
    // The API beside it still needs a key, and says so in its own body.
    let api = request(&server.addr, "GET", "/api/v1/inventory", &[], b"").unwrap();
    assert_eq!(api.status, 401);
    assert!(api.header("content-security-policy").is_none());
    assert!(
        server.log().contains("equip console on http://"),
        "{}",
        server.log()
    );
}

#[test]
fn no_console_leaves_it_out() {
    let db = TestDatabase::sqlite();
    let server = Serve::start(db.url(), &["--no-dispatcher", "--no-console"]);
    let page = request(&server.addr, "GET", "/console/", &[], b"").unwrap();
    assert_eq!(page.status, 404, "{}", page.text());
    assert!(
        page.text().contains("errors"),
        "the API's 404 body: {}",
        page.text()
    );
    assert!(
        !server.log().contains("equip console on"),
        "{}",
        server.log()
    );
}
