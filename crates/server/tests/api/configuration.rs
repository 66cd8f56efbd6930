//! Configuration that fails loudly (issue 28, items 9-13), through the real
//! binary: a mistyped database URL scheme, a SQLite directory that does not
//! exist, a PostgreSQL password that is not percent-encoded (never echoed), an
//! unreachable database (said once), a listen address checked before the
//! database is touched; `equip demo`'s hint and the README's shell session
//! run as written.
use std::path::Path;
use std::process::{Command, Stdio};

use equip_persistence::test_support::TestDatabase;

use crate::support::process::Serve;
use crate::support::scratch::Scratch;

/// A fresh PostgreSQL database, or `None` (the test skips) when PostgreSQL
/// is unreachable outside CI.
fn postgres() -> Option<TestDatabase> {
    TestDatabase::postgres()
}

/// Whether `equip migrate` on `url` finds every migration pending (nothing
/// touched the database before).
fn never_migrated(scratch: &Scratch, url: &str) -> bool {
    let run = scratch.equip_on(url, &["migrate"]);
    run.ok();
    run.stderr().contains("applied 2026-11-21-000000_baseline")
}

/// Item 9: `postgres//host/db` and the like are refused as mistyped URLs,
/// naming the scheme to write, instead of becoming a SQLite file in
/// `./postgres/…`. The message never repeats what follows the scheme (it may
/// hold a password).
#[test]
fn a_mistyped_scheme_is_refused_and_creates_nothing() {
    let scratch = Scratch::new();
    for (url, advice) in [
        ("postgres//equip:s3cret@127.0.0.1:5432/equip", "postgres://"),
        ("postgresql//127.0.0.1/equip", "postgresql://"),
        ("postgres:/127.0.0.1/equip", "postgres://"),
        ("postgresql:127.0.0.1/equip", "postgresql://"),
        ("sqlite//equip.db", "sqlite://"),
    ] {
        for args in [&["migrate"][..], &["serve", "--bind", "127.0.0.1:0"]] {
            let err = scratch.equip_on(url, args).error();
            assert!(err.contains(advice), "{url}: {err}");
            assert!(err.contains("invalid database URL"), "{url}: {err}");
            assert!(!err.contains("s3cret"), "{url}: {err}");
            assert!(!err.contains("127.0.0.1"), "{url}: {err}");
        }
        assert!(
            scratch.entries().is_empty(),
            "{url} created {:?}",
            scratch.entries()
        );
    }
}

/// Item 10: a SQLite file in a directory that does not exist is refused with
/// the directory's name (a typo must not look like lost data); the file in an
/// existing directory is still created on first start.
#[test]
fn a_database_directory_that_does_not_exist_is_refused_by_name() {
    let scratch = Scratch::new();
    let missing = scratch.path("dta");
    let file = missing.join("equip.db");
    for url in [
        file.display().to_string(),
        format!("sqlite://{}", file.display()),
        "dta/equip.db".to_owned(),
    ] {
        for args in [&["migrate"][..], &["org", "create", "--name", "Acme"]] {
            let err = scratch.equip_on(&url, args).error();
            assert!(err.contains("dta"), "{url}: {err}");
            assert!(err.contains("does not exist"), "{url}: {err}");
        }
    }
    let err = scratch
        .equip_on(
            &file.display().to_string(),
            &["serve", "--bind", "127.0.0.1:0"],
        )
        .error();
    assert!(err.contains(&missing.display().to_string()), "{err}");
    assert!(!missing.exists(), "the directory was created");
    assert!(scratch.entries().is_empty(), "{:?}", scratch.entries());

    // The file itself, in a directory that exists, is created and migrated.
    let url = scratch.path("equip.db").display().to_string();
    scratch.equip_on(&url, &["migrate"]).ok();
    assert!(scratch.path("equip.db").exists());
}

/// Item 11: a PostgreSQL password with `@`, `/` or `%` that is not
/// percent-encoded made libpq split the URL at the wrong place and quote the
/// password's tail (`invalid percent-encoded token: "ss%word@127.0.0.1"` for
/// `pa@ss%word`).
/// Now the URL is refused before libpq sees it, saying to percent-encode,
/// and no part of the user information is echoed; the encoded form connects.
#[test]
fn a_password_that_is_not_percent_encoded_is_never_echoed() {
    let Some(db) = postgres() else { return };
    let scratch = Scratch::new();
    let rest = db
        .url()
        .strip_prefix("postgres://postgres@")
        .expect("the test database's URL is postgres://postgres@…");
    for (password, fragments) in [
        ("s3@cr%et9x", &["cr%et9x", "s3@cr", "et9x"][..]),
        ("s3/cr@et9x", &["s3/cr", "cr@et9x", "et9x"]),
        ("100%sure9x", &["100%", "sure9x"]),
    ] {
        let url = format!("postgres://postgres:{password}@{rest}");
        for args in [&["migrate"][..], &["serve", "--bind", "127.0.0.1:0"]] {
            let err = scratch.equip_on(&url, args).error();
            for fragment in fragments {
                assert!(
                    !err.contains(fragment),
                    "{password}: {fragment} echoed: {err}"
                );
            }
            assert!(err.contains("percent-encoded"), "{err}");
            assert!(err.contains("%40"), "{err}");
        }
    }
    // As the message says: encoded, the same password is read whole (the
    // local server trusts the connection, so any password is accepted).
    let url = format!("postgres://postgres:s3%40cr%25et9x@{rest}");
    scratch.equip_on(&url, &["migrate"]).ok();
}

/// Item 12: a database that cannot be reached is said once, in the command's
/// error, instead of one `ERROR r2d2` line per connection attempt first (four
/// before a `migrate` gave up); the password is not in it. PostgreSQL: a port
/// nothing listens on; SQLite: a file that is not a database.
#[test]
fn an_unreachable_database_is_reported_once() {
    let scratch = Scratch::new();
    let unreachable = "postgres://postgres:s3cretpw@127.0.0.1:1/equip";
    let not_a_database = scratch.path("notes.db");
    std::fs::write(
        &not_a_database,
        "these are my notes, not a database\n".repeat(200),
    )
    .unwrap();
    let sqlite = not_a_database.display().to_string();
    for (url, cause) in [
        (unreachable, "Connection refused"),
        (sqlite.as_str(), "file is not a database"),
    ] {
        for args in [
            &["migrate"][..],
            &["org", "create", "--name", "Acme"],
            &["serve", "--bind", "127.0.0.1:0", "--db-pool-timeout", "2"],
        ] {
            let err = scratch.equip_on(url, args).error();
            assert_eq!(err.matches(cause).count(), 1, "{args:?}: {err}");
            assert!(!err.contains("r2d2"), "{args:?}: {err}");
            assert!(!err.contains("ERROR"), "{args:?}: {err}");
            assert!(!err.contains("s3cretpw"), "{args:?}: {err}");
            assert!(err.starts_with("error: "), "{args:?}: {err}");
        }
    }
}

/// Item 12: `serve --bind 8080` says "expected HOST:PORT", and the listen
/// addresses (a malformed one, a port in use) are checked before the
/// database is opened: nothing is created or migrated. Both backends.
#[test]
fn serve_checks_its_listen_address_before_migrating() {
    let scratch = Scratch::new();
    let sqlite = scratch.path("equip.db").display().to_string();
    let pg = postgres();
    let mut urls = vec![sqlite.clone()];
    urls.extend(pg.as_ref().map(|db| db.url().to_owned()));
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let taken_addr = taken.local_addr().unwrap().to_string();
    for url in &urls {
        for (args, expected) in [
            (&["--bind", "8080"][..], "--bind '8080': expected HOST:PORT"),
            (
                &["--bind", "localhost"],
                "--bind 'localhost': expected HOST:PORT",
            ),
            (&["--bind", "127.0.0.1:80800"], "expected HOST:PORT"),
            (
                &["--bind", "127.0.0.1:0", "--metrics-bind", "9090"],
                "--metrics-bind '9090': expected HOST:PORT",
            ),
            (
                &["--bind", taken_addr.as_str()],
                &format!("cannot listen on {taken_addr} (--bind)"),
            ),
        ] {
            let mut command = vec!["serve"];
            command.extend_from_slice(args);
            let err = scratch.equip_on(url, &command).error();
            assert!(err.contains(expected), "{args:?}: {err}");
        }
        if url == &sqlite {
            assert!(scratch.entries().is_empty(), "{:?}", scratch.entries());
        }
        assert!(never_migrated(&scratch, url), "serve migrated {url}");
    }
    drop(taken);
}

/// Item 13: `equip demo` prints its key last, under a label, and a hint that
/// runs as written: the binary by its path (after `cargo run`, `equip` is on
/// no PATH) and the database it used; the hinted `curl` gets the warehouse.
#[test]
fn demo_hints_a_serve_command_that_runs_as_written() {
    let scratch = Scratch::new();
    let url = scratch.path("demo.db").display().to_string();
    let run = scratch.equip_on(&url, &["demo", "--items", "20"]);
    run.ok();
    let key = run.stdout().trim().to_owned();
    assert!(key.starts_with("equip_"), "{key}");
    let err = run.stderr();
    let last = err.lines().last().unwrap_or_default();
    assert!(last.contains("API key"), "the key's label is last: {err}");
    let serve_line = err
        .lines()
        .map(str::trim)
        .find(|l| l.ends_with(" serve &"))
        .unwrap_or_else(|| panic!("no serve line: {err}"));
    let words: Vec<&str> = serve_line.split_whitespace().collect();
    let binary = std::fs::canonicalize(env!("CARGO_BIN_EXE_equip")).unwrap();
    assert_eq!(
        std::fs::canonicalize(Path::new(words[0])).unwrap(),
        binary,
        "{serve_line}"
    );
    assert_eq!(words[1..], ["--database-url", url.as_str(), "serve", "&"]);
    let warehouse = err
        .split("/api/v1/warehouses/")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .unwrap()
        .to_owned();
    let server = Serve::start(&url, &["--no-dispatcher"]);
    let got = server
        .client(&key)
        .get(&format!("/api/v1/warehouses/{warehouse}"))
        .unwrap();
    assert_eq!(got.status, 200, "{}", got.text());
}

/// Item 13: the README's shell session (between its `readme-session` markers)
/// runs as printed, in a fresh directory, against the binary under test
/// (`scripts/readme-session.sh`, which CI also runs).
#[test]
fn the_readme_session_runs_as_written() {
    let root = crate::support::repo_root();
    let out = Command::new("bash")
        .arg(root.join("scripts/readme-session.sh"))
        .env("EQUIP_BIN", env!("CARGO_BIN_EXE_equip"))
        .env_remove("DATABASE_URL")
        .env_remove("EQUIP_BIND")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "the README session failed:\n{text}");
    assert!(text.contains("readme-session: ok"), "{text}");
}

/// The malloc arenas variable of the running process `pid`.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn arenas_of(pid: u32) -> Option<String> {
    let environ = std::fs::read(format!("/proc/{pid}/environ")).expect("read environ");
    environ
        .split(|b| *b == 0)
        .filter_map(|v| std::str::from_utf8(v).ok())
        .find_map(|v| v.strip_prefix("MALLOC_ARENA_MAX=").map(str::to_owned))
}

/// `serve` runs with two glibc malloc arenas (its anonymous memory at a
/// million items stays under 250 MB; docs/operations.md, "Memory"), under the
/// process id its caller started, and keeps an operator's own number.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn serve_runs_with_two_malloc_arenas_unless_told() {
    let db = TestDatabase::sqlite();
    let serve = Serve::start(db.url(), &[]);
    assert_eq!(arenas_of(serve.pid()).as_deref(), Some("2"));
    drop(serve);
    let serve = Serve::start_with_env(db.url(), &[], &[("MALLOC_ARENA_MAX", "4")]);
    assert_eq!(arenas_of(serve.pid()).as_deref(), Some("4"));
}
