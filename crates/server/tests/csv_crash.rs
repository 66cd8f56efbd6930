//! A CSV upload interrupted by SIGKILL: `equip serve` (the real binary) is
//! killed while it runs the rows of a 5,000-row upload, on SQLite and on
//! PostgreSQL. Afterwards every committed row is a whole user (person and
//! email together), SQLite's integrity check passes, and uploading the same
//! file again after a restart converges: the rows that had committed answer
//! 409, the others 201, and all 5,000 users exist once.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use chrono::Utc;
use equip_domain::api_key::Scopes;
use equip_domain::services::admin;
use equip_persistence::test_support::TestDatabase;
use serde_json::Value;

const ROWS: usize = 5_000;
const HEADER: &str = "id,forename,surname,email,secondary_email,package_slug,address_line_1,addressLine2,state/region,city_code,country_code,postal_code,phone_number,send_activation_email,cpf_number";
const BOUNDARY: &str = "equip-crash-boundary";

#[test]
fn sqlite_killed_mid_upload_keeps_whole_rows_and_converges() {
    killed_mid_upload(TestDatabase::sqlite());
}

#[test]
fn postgres_killed_mid_upload_keeps_whole_rows_and_converges() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    killed_mid_upload(db);
}

/// `equip serve` on `db`; the child and its address.
fn serve(db: &TestDatabase) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_equip"))
        .args([
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--workers",
            "1",
            "--no-dispatcher",
        ])
        .env("DATABASE_URL", db.url())
        .env("RUST_LOG", "info")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while stderr.read_line(&mut line).unwrap() > 0 {
        if let Some(addr) = line.trim().strip_prefix("equip listening on http://") {
            let addr = addr.to_owned();
            // Keep draining the log so the child never blocks on a full pipe.
            std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
            return (child, addr);
        }
        line.clear();
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("equip serve did not print its address");
}

fn upload_request(addr: &str, key: &str, csv: &str) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(
        format!(
            "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"u.csv\"\r\n\
             Content-Type: text/csv\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(csv.as_bytes());
    body.extend_from_slice(format!("\r\n--{BOUNDARY}--\r\n").as_bytes());
    let mut req = format!(
        "POST /scim/v2/Users/csv HTTP/1.1\r\nHost: {addr}\r\nAuthorization: ApiKey {key}\r\n\
         Content-Type: multipart/form-data; boundary={BOUNDARY}\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    req.extend_from_slice(&body);
    req
}

fn whole_rows_only(db: &TestDatabase) {
    assert_eq!(
        db.count_rows(
            "people p WHERE NOT EXISTS (SELECT 1 FROM person_emails e WHERE e.person_id = p.id)"
        ),
        0,
        "a person without their email: a half-written user"
    );
    assert_eq!(
        db.count_rows(
            "person_emails e WHERE NOT EXISTS (SELECT 1 FROM people p WHERE p.id = e.person_id)"
        ),
        0
    );
    if db.url().starts_with("postgres") {
        return;
    }
    assert_eq!(
        db.count_rows("pragma_integrity_check() WHERE integrity_check <> 'ok'"),
        0,
        "SQLite integrity check"
    );
}

fn killed_mid_upload(db: TestDatabase) {
    let store = db.store();
    let now = Utc::now();
    let org = admin::create_organization(&store, "Crash Org", now)
        .unwrap()
        .id;
    let key = admin::issue_api_key(&store, org, Scopes::all(), None, now)
        .unwrap()
        .secret;
    drop(store);
    let mut csv = String::from(HEADER);
    csv.push('\n');
    for i in 0..ROWS {
        csv.push_str(&format!(
            ",First{i},Last{i},crash{i}@acme.example,,,\"{i} Main St\nUnit {i}\",,CA,SF,US,94105,,yes,\n"
        ));
    }

    // 1. Upload, and kill the server once some rows have committed.
    let (mut child, addr) = serve(&db);
    let request = upload_request(&addr, &key, &csv);
    let mut conn = TcpStream::connect(&addr).unwrap();
    conn.write_all(&request).unwrap();
    let start = Instant::now();
    while db.count_rows("people") < 100 {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the upload did not start"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let committed = db.count_rows("people");
    assert!(
        committed >= 100 && committed < i64::try_from(ROWS).unwrap(),
        "killed mid-run: {committed} of {ROWS} rows committed"
    );
    whole_rows_only(&db);
    let mut rest = Vec::new();
    let _ = conn.read_to_end(&mut rest);
    assert!(
        !String::from_utf8_lossy(&rest).contains("BulkResponse"),
        "the killed server answered nothing"
    );

    // 2. Restart on the same database; the same file again converges.
    let (mut child, addr) = serve(&db);
    let mut conn = TcpStream::connect(&addr).unwrap();
    conn.write_all(&upload_request(&addr, &key, &csv)).unwrap();
    let mut response = Vec::new();
    conn.read_to_end(&mut response).unwrap();
    let _ = child.kill();
    let _ = child.wait();
    let response = String::from_utf8(response).unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{}", &response[..200]);
    let body: Value = serde_json::from_str(response.split_once("\r\n\r\n").unwrap().1).unwrap();
    let ops = body["Operations"].as_array().unwrap();
    assert_eq!(ops.len(), ROWS);
    let conflicts = ops.iter().filter(|o| o["status"] == "409").count();
    let created = ops.iter().filter(|o| o["status"] == "201").count();
    assert_eq!(conflicts, usize::try_from(committed).unwrap());
    assert_eq!(created + conflicts, ROWS);
    assert_eq!(db.count_rows("people"), i64::try_from(ROWS).unwrap());
    whole_rows_only(&db);
}
