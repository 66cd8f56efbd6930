//! Review finding 7: a database equip cannot write. `equip serve` refuses to
//! start on one, saying why; `/readyz` answers 503 once the database turns
//! read-only while it runs; a write then answers 503 with the SCIM error
//! body, not 500. The real binary.
//!
//! The tests run as root, which ignores file permissions, so the read-only
//! SQLite database is opened read-only through its URI
//! (`file:…?mode=ro`); PostgreSQL is made read-only with
//! `ALTER DATABASE … SET default_transaction_read_only = on` (which new
//! sessions take; the server's sessions are terminated so that it reconnects).
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::process::{request, Api, Serve};
use equip_persistence::test_support::TestDatabase;
use serde_json::json;

/// Runs `equip serve` on `url` and waits for it to exit (at most 60 s);
/// `None` when it was still running (it is killed then).
fn serve_exit(url: &str) -> Option<(bool, String)> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_equip"))
        .args(["serve", "--bind", "127.0.0.1:0", "--no-dispatcher"])
        .env("DATABASE_URL", url)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(60) {
        if let Some(status) = child.try_wait().unwrap() {
            let out = child.wait_with_output().unwrap();
            return Some((
                status.success(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    None
}

fn read_only(db: &TestDatabase, on: bool) {
    let value = if on { "on" } else { "off" };
    // READ WRITE: a session of a read-only database starts read-only too.
    db.execute(&format!(
        "BEGIN READ WRITE; DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET \
         default_transaction_read_only = {value}', current_database()); END $$; COMMIT"
    ));
}

fn readyz(server: &Serve) -> (u16, serde_json::Value) {
    let resp = request(&server.addr, "GET", "/readyz", &[], b"").unwrap();
    (resp.status, resp.json())
}

#[test]
fn sqlite_serve_refuses_a_read_only_database() {
    let db = TestDatabase::sqlite();
    drop(db.store()); // created and migrated
    let url = format!("file:{}?mode=ro", db.url());
    let exit = serve_exit(&url);
    let (ok, stderr) = exit.expect("equip serve started on a read-only database");
    assert!(!ok);
    assert!(
        stderr.contains("cannot be written") && stderr.contains("read-only"),
        "{stderr}"
    );
    // Writable again: it starts.
    let server = Serve::start(db.url(), &["--no-dispatcher"]);
    assert_eq!(readyz(&server).0, 200);
}

#[test]
fn postgres_serve_refuses_a_read_only_database() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    drop(db.store());
    read_only(&db, true);
    let (ok, stderr) = serve_exit(db.url()).expect("equip serve started on a read-only database");
    assert!(!ok);
    assert!(
        stderr.contains("cannot be written") && stderr.contains("read-only"),
        "{stderr}"
    );
    read_only(&db, false);
    let server = Serve::start(db.url(), &["--no-dispatcher"]);
    assert_eq!(readyz(&server).0, 200);
}

/// Polls `f` until it returns `Some`, for at most 20 s.
fn eventually<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "timed out: {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn create(api: &Api, user: &str) -> crate::support::process::Response {
    api.scim_post(
        "/scim/v2/Users",
        &json!({
            "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
            "userName": user,
            "name": {"givenName": "Ada", "familyName": "Lovelace"},
            "emails": [{"primary": true, "type": "work", "value": user}]
        }),
    )
    .unwrap()
}

#[test]
fn postgres_readyz_and_writes_answer_503_while_the_database_is_read_only() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    let key = crate::support::process::organization_with_key(&db, "Read-only Org");
    let server = Serve::start(db.url(), &["--no-dispatcher"]);
    let api = server.client(&key);
    assert_eq!(readyz(&server).0, 200);
    assert_eq!(create(&api, "before@acme.example").status, 201);

    // Read-only from now on: the server's sessions reconnect read-only.
    read_only(&db, true);
    let _ = db.terminate_connections();
    // Once the lost connections are gone, readyz stays 503 and says why.
    eventually("readyz says the database cannot be written", || {
        let (status, body) = readyz(&server);
        (status == 503 && body.to_string().contains("cannot be written")).then_some(())
    });
    for _ in 0..5 {
        let (status, body) = readyz(&server);
        assert_eq!(status, 503, "{body}");
        assert_eq!(body["errors"][0]["source"], "database", "{body}");
        // The API's 5xx body names the request.
        assert!(
            body["requestId"].as_str().is_some_and(|id| id.len() == 32),
            "{body}"
        );
    }
    // Reads still work; a write is 503 with the SCIM body, not 500.
    let list = api.get("/scim/v2/Users").unwrap();
    assert_eq!(list.status, 200, "{}", list.text());
    let resp = create(&api, "during@acme.example");
    assert_eq!(resp.status, 503, "{}", resp.text());
    assert_eq!(resp.json()["status"], "503");
    // A server-side failure names its request, as the response header does.
    let id = resp.header("x-request-id").unwrap().to_owned();
    let detail = resp.json()["detail"].as_str().unwrap().to_owned();
    assert!(detail.ends_with(&format!("(request id {id})")), "{detail}");
    // So does the warning its store call logged on the blocking pool: the
    // request's span reaches the thread, with the route and the caller.
    let warned = |l: &str| {
        l.contains("storage unavailable")
            && l.contains(&format!("request_id={id}"))
            && l.contains("route=/scim/v2/Users")
            && l.contains("org_id=")
            && l.contains("key_id=")
    };
    let log = server.log_with(warned);
    assert!(
        log.lines().any(warned),
        "no warning naming request {id}:\n{log}"
    );
    assert_eq!(db.count_rows("people"), 1);

    // Writable again: ready, and writes succeed.
    read_only(&db, false);
    let _ = db.terminate_connections();
    eventually("readyz is 200 again", || {
        (readyz(&server).0 == 200).then_some(())
    });
    let resp = eventually("a write succeeds again", || {
        let resp = create(&api, "after@acme.example");
        (resp.status != 503).then_some(resp)
    });
    assert_eq!(resp.status, 201, "{}", resp.text());
}

/// A small file system of its own (tmpfs), unmounted on drop.
struct SmallDisk {
    dir: std::path::PathBuf,
}

impl SmallDisk {
    /// Mounts a tmpfs of `size` (e.g. `"6m"`) on a new directory; `None`
    /// (with a message saying why the test is skipped) where that is not
    /// allowed (not root, no mount in the container).
    fn mount(size: &str) -> Option<SmallDisk> {
        let dir =
            std::env::temp_dir().join(format!("equip-full-disk-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).unwrap();
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output();
        match mounted {
            Ok(out) if out.status.success() => Some(SmallDisk { dir }),
            Ok(out) => {
                eprintln!(
                    "skipping the full-disk test: cannot mount a small tmpfs ({})",
                    String::from_utf8_lossy(&out.stderr).trim()
                );
                let _ = std::fs::remove_dir(&dir);
                None
            }
            Err(e) => {
                eprintln!("skipping the full-disk test: cannot run mount ({e})");
                let _ = std::fs::remove_dir(&dir);
                None
            }
        }
    }

    /// Writes a file until the file system refuses more (in ever smaller
    /// pieces, down to one byte).
    fn fill(&self, name: &str) -> std::path::PathBuf {
        use std::io::Write as _;
        let path = self.dir.join(name);
        let mut file = std::fs::File::create(&path).unwrap();
        let mut chunk = 256 * 1024;
        while chunk > 0 {
            let buf = vec![7u8; chunk];
            while file.write_all(&buf).is_ok() {}
            chunk /= 2;
        }
        let _ = file.sync_all();
        path
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.dir).status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Issue 29 item 3: a SQLite database on a full disk. Writes answer 503;
/// `/readyz` used to answer 200 again at its next probe (its committed write
/// rewrote a page SQLite already owned and needed no new space), clearing the
/// state that said the disk was full. It now stays 503 until a write that
/// needs space succeeds, and is 200 again once the disk has room.
#[test]
fn sqlite_readyz_stays_503_on_a_full_disk_until_there_is_room() {
    let Some(disk) = SmallDisk::mount("8m") else {
        return;
    };
    let url = disk.dir.join("equip.db").to_string_lossy().into_owned();
    let key = {
        let store = equip_persistence::Store::connect(
            &url,
            equip_persistence::PoolOptions {
                min_idle: 0,
                ..equip_persistence::PoolOptions::default()
            },
        )
        .unwrap();
        store.run_migrations().unwrap();
        let now = chrono::Utc::now();
        let org = equip_domain::services::admin::create_organization(&store, "Full Disk Org", now)
            .unwrap()
            .id;
        equip_domain::services::admin::issue_api_key(
            &store,
            org,
            equip_domain::api_key::Scopes::all(),
            None,
            now,
        )
        .unwrap()
        .secret
    };
    let server = Serve::start(&url, &["--no-dispatcher"]);
    let api = server.client(&key);
    assert_eq!(readyz(&server).0, 200);
    assert_eq!(create(&api, "before@acme.example").status, 201);

    // The disk fills up; writes soon fail for want of space.
    let filler = disk.fill("filler");
    let mut refused = None;
    for i in 0..2000 {
        let resp = create(
            &api,
            &format!("user{i}.with.a.rather.long.name@acme.example"),
        );
        match resp.status {
            201 => {}
            503 => {
                refused = Some(resp);
                break;
            }
            other => panic!("{other}: {}", resp.text()),
        }
    }
    let refused = refused.expect("a write was refused on the full disk");
    assert_eq!(refused.json()["status"], "503", "{}", refused.text());

    // Not ready, however often it is asked: the probe does not clear the
    // state by rewriting what SQLite already owns.
    for _ in 0..5 {
        let (status, body) = readyz(&server);
        assert_eq!(status, 503, "{body}");
        assert_eq!(body["errors"][0]["source"], "database", "{body}");
        assert!(body.to_string().contains("cannot be written"), "{body}");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        server.log().contains("disk"),
        "the log says why: {}",
        server.log()
    );

    // Room again: ready, and writes succeed.
    std::fs::remove_file(&filler).unwrap();
    eventually("readyz is 200 once the disk has room", || {
        (readyz(&server).0 == 200).then_some(())
    });
    assert_eq!(create(&api, "after@acme.example").status, 201);
    drop(server);
}
