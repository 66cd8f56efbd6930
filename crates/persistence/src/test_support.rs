//! Throw-away databases for tests (feature `test-support`).
//!
//! ```no_run
//! use equip_persistence::test_support::TestDatabase;
//!
//! let sqlite = TestDatabase::sqlite();
//! let store = sqlite.store(); // connected and migrated
//! if let Some(pg) = TestDatabase::postgres() {
//!     let store = pg.store();
//! }
//! ```
//!
//! These helpers panic on failure: they exist for tests.

use std::path::PathBuf;

use diesel::connection::SimpleConnection;
use diesel::pg::PgConnection;
use diesel::sql_types::{BigInt, Text};
use diesel::sqlite::SqliteConnection;
use diesel::{Connection, QueryableByName, RunQueryDsl};
use uuid::Uuid;

mod orders;

use crate::{Backend, PoolOptions, Store};

/// Admin URL used when `EQUIP_TEST_POSTGRES_URL` is not set.
pub const DEFAULT_POSTGRES_ADMIN_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

enum Kind {
    Sqlite { dir: PathBuf },
    Postgres { admin_url: String, name: String },
}

/// A fresh, empty database, removed when dropped: a SQLite file in its own
/// temporary directory, or a PostgreSQL database `equip_test_<uuid>`.
pub struct TestDatabase {
    url: String,
    kind: Kind,
}

impl std::fmt::Debug for TestDatabase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestDatabase")
            .field("url", &redact(&self.url))
            .finish()
    }
}

impl TestDatabase {
    /// A new SQLite database file in a new temporary directory.
    ///
    /// # Panics
    /// When the directory cannot be created.
    #[must_use]
    pub fn sqlite() -> TestDatabase {
        let dir = std::env::temp_dir().join(format!("equip-test-{}", Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        let url = dir.join("equip.db").to_string_lossy().into_owned();
        TestDatabase {
            url,
            kind: Kind::Sqlite { dir },
        }
    }

    /// A fresh PostgreSQL database `equip_test_<uuid simple>` created from the
    /// admin URL in env `EQUIP_TEST_POSTGRES_URL` (default
    /// [`DEFAULT_POSTGRES_ADMIN_URL`]).
    ///
    /// When PostgreSQL cannot be reached: if env `EQUIP_REQUIRE_POSTGRES` is `1`
    /// or `CI` is `true`, panics with a clear message; otherwise prints one line
    /// to stderr, `skipping PostgreSQL test: <reason>`, and returns `None`.
    ///
    /// # Panics
    /// As above, and when the server is reachable but the database cannot be
    /// created.
    #[must_use]
    pub fn postgres() -> Option<TestDatabase> {
        let admin_url = std::env::var("EQUIP_TEST_POSTGRES_URL")
            .ok()
            .filter(|u| !u.trim().is_empty())
            .unwrap_or_else(|| DEFAULT_POSTGRES_ADMIN_URL.to_owned());
        Self::postgres_at(&admin_url)
    }

    /// As [`TestDatabase::postgres`], on the server of `admin_url` (a
    /// server a test runs itself, e.g. to crash it).
    ///
    /// # Panics
    /// As [`TestDatabase::postgres`].
    #[must_use]
    pub fn postgres_at(admin_url: &str) -> Option<TestDatabase> {
        let admin_url = admin_url.to_owned();
        let mut admin = match PgConnection::establish(&with_connect_timeout(&admin_url)) {
            Ok(conn) => conn,
            Err(e) => {
                // One line: libpq messages span several.
                let reason = format!(
                    "cannot connect to {}: {}",
                    redact(&admin_url),
                    e.to_string()
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ")
                );
                if postgres_required() {
                    panic!(
                        "PostgreSQL is required (EQUIP_REQUIRE_POSTGRES=1 or CI=true) but unavailable: {reason}"
                    );
                }
                eprintln!("skipping PostgreSQL test: {reason}");
                return None;
            }
        };
        let name = format!("equip_test_{}", Uuid::new_v4().simple());
        diesel::sql_query(format!("CREATE DATABASE {name}"))
            .execute(&mut admin)
            .unwrap_or_else(|e| panic!("cannot create test database {name}: {e}"));
        Some(TestDatabase {
            url: with_database(&admin_url, &name),
            kind: Kind::Postgres { admin_url, name },
        })
    }

    /// The database URL.
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// A store on this database, connected and migrated.
    ///
    /// # Panics
    /// When connecting or migrating fails.
    #[must_use]
    pub fn store(&self) -> Store {
        self.store_with(PoolOptions::default())
    }

    /// A store on this database with `options`, connected and migrated.
    ///
    /// # Panics
    /// When connecting or migrating fails.
    #[must_use]
    pub fn store_with(&self, options: PoolOptions) -> Store {
        let store = Store::connect(&self.url, options)
            .unwrap_or_else(|e| panic!("cannot connect to the test database: {e}"));
        store
            .run_migrations()
            .unwrap_or_else(|e| panic!("cannot migrate the test database: {e}"));
        store
    }
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

#[derive(QueryableByName)]
struct PragmaValue {
    #[diesel(sql_type = Text)]
    value: String,
}

/// `PRAGMA mmap_size`'s answer (it has no table-valued function).
#[derive(QueryableByName)]
struct MmapSize {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    mmap_size: i64,
}

impl TestDatabase {
    /// Number of rows in `table` (a trusted table name), read on a connection
    /// of its own.
    ///
    /// # Panics
    /// When the query fails.
    #[must_use]
    pub fn count_rows(&self, table: &str) -> i64 {
        let sql = format!("SELECT COUNT(*) AS n FROM {table}");
        let query = diesel::sql_query(sql);
        let rows: Result<Vec<Count>, String> = match &self.kind {
            Kind::Sqlite { .. } => SqliteConnection::establish(&self.url)
                .map_err(|e| e.to_string())
                .and_then(|mut c| query.load(&mut c).map_err(|e| e.to_string())),
            Kind::Postgres { .. } => PgConnection::establish(&self.url)
                .map_err(|e| e.to_string())
                .and_then(|mut c| query.load(&mut c).map_err(|e| e.to_string())),
        };
        match rows {
            Ok(rows) => rows.first().map_or(0, |r| r.n),
            Err(e) => panic!("cannot count rows of {table}: {e}"),
        }
    }
}

impl TestDatabase {
    /// The number `sql` (a trusted query selecting one `BIGINT` column named
    /// `n`) reads on a connection of its own; 0 without a row. For tests.
    ///
    /// # Panics
    /// When connecting or the query fails.
    #[must_use]
    pub fn read_number(&self, sql: &str) -> i64 {
        let query = diesel::sql_query(sql);
        let rows: Result<Vec<Count>, String> = match &self.kind {
            Kind::Sqlite { .. } => SqliteConnection::establish(&self.url)
                .map_err(|e| e.to_string())
                .and_then(|mut c| query.load(&mut c).map_err(|e| e.to_string())),
            Kind::Postgres { .. } => PgConnection::establish(&self.url)
                .map_err(|e| e.to_string())
                .and_then(|mut c| query.load(&mut c).map_err(|e| e.to_string())),
        };
        match rows {
            Ok(rows) => rows.first().map_or(0, |r| r.n),
            Err(e) => panic!("cannot read {sql}: {e}"),
        }
    }
}

impl TestDatabase {
    /// After a server using this database was killed: waits until the
    /// database has no other session (on PostgreSQL, a statement the server
    /// sent just before it died runs to its end, and may commit, before the
    /// backend sees the closed connection and exits), so that what is counted
    /// afterwards no longer changes. SQLite: nothing runs outside the dead
    /// process, so nothing to wait for.
    ///
    /// # Panics
    /// When sessions remain after `timeout`.
    pub fn wait_until_unused(&self, timeout: std::time::Duration) {
        if matches!(self.kind, Kind::Sqlite { .. }) {
            return;
        }
        let started = std::time::Instant::now();
        let others =
            "pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()";
        while self.count_rows(others) > 0 {
            assert!(
                started.elapsed() < timeout,
                "sessions of the killed server still open after {timeout:?}"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// Runs `sql` (no result) on a connection of its own. For tests.
    ///
    /// # Panics
    /// When connecting or the statement fails.
    pub fn execute(&self, sql: &str) {
        let result = match &self.kind {
            Kind::Sqlite { .. } => SqliteConnection::establish(&self.url)
                .map_err(|e| e.to_string())
                .and_then(|mut c| c.batch_execute(sql).map_err(|e| e.to_string())),
            Kind::Postgres { .. } => PgConnection::establish(&self.url)
                .map_err(|e| e.to_string())
                .and_then(|mut c| c.batch_execute(sql).map_err(|e| e.to_string())),
        };
        if let Err(e) = result {
            panic!("cannot run {sql}: {e}");
        }
    }

    /// On PostgreSQL: terminates every other session on this database (the
    /// servers' pooled connections, their change listeners) with
    /// `pg_terminate_backend`, as an administrator or a failover would.
    /// Returns how many were terminated (0 on SQLite). For tests.
    ///
    /// # Panics
    /// When connecting or the query fails.
    #[must_use]
    pub fn terminate_connections(&self) -> i64 {
        if matches!(self.kind, Kind::Sqlite { .. }) {
            return 0;
        }
        let sql = "SELECT COUNT(*) AS n FROM (SELECT pg_terminate_backend(pid) \
                   FROM pg_stat_activity WHERE datname = current_database() \
                   AND pid <> pg_backend_pid()) AS t";
        let rows: Result<Vec<Count>, String> = PgConnection::establish(&self.url)
            .map_err(|e| e.to_string())
            .and_then(|mut c| {
                diesel::sql_query(sql)
                    .load(&mut c)
                    .map_err(|e| e.to_string())
            });
        match rows {
            Ok(rows) => rows.first().map_or(0, |r| r.n),
            Err(e) => panic!("cannot terminate connections: {e}"),
        }
    }
}

/// A write lock on the `people` table held by a connection of its own, until
/// dropped: on SQLite the database's write lock (`BEGIN IMMEDIATE`), on
/// PostgreSQL `LOCK TABLE people IN EXCLUSIVE MODE` (reads go on, writes
/// wait). For tests that need a request to stay in flight.
pub struct WriteLock {
    conn: WriteLockConn,
}

enum WriteLockConn {
    Sqlite(SqliteConnection),
    Postgres(PgConnection),
}

impl Drop for WriteLock {
    fn drop(&mut self) {
        let _ = match &mut self.conn {
            WriteLockConn::Sqlite(c) => c.batch_execute("ROLLBACK"),
            WriteLockConn::Postgres(c) => c.batch_execute("ROLLBACK"),
        };
    }
}

impl TestDatabase {
    /// Takes a [`WriteLock`].
    ///
    /// # Panics
    /// When connecting or locking fails.
    #[must_use]
    pub fn lock_writes(&self) -> WriteLock {
        let conn = match &self.kind {
            Kind::Sqlite { .. } => {
                let mut c = SqliteConnection::establish(&self.url)
                    .unwrap_or_else(|e| panic!("cannot connect: {e}"));
                // A server's own short write (the hold release's first pass
                // at start) may hold the lock a moment: wait for it.
                c.batch_execute("PRAGMA busy_timeout = 10000; BEGIN IMMEDIATE")
                    .unwrap_or_else(|e| panic!("cannot lock: {e}"));
                WriteLockConn::Sqlite(c)
            }
            Kind::Postgres { .. } => {
                let mut c = PgConnection::establish(&self.url)
                    .unwrap_or_else(|e| panic!("cannot connect: {e}"));
                c.batch_execute("BEGIN; LOCK TABLE people IN EXCLUSIVE MODE")
                    .unwrap_or_else(|e| panic!("cannot lock: {e}"));
                WriteLockConn::Postgres(c)
            }
        };
        WriteLock { conn }
    }
}

impl TestDatabase {
    /// PostgreSQL: `table` locked in `ACCESS EXCLUSIVE` mode (reads wait too)
    /// by a connection of its own until the returned lock is dropped; `None`
    /// on SQLite. For tests that need a read to stay in flight.
    ///
    /// # Panics
    /// When connecting or locking fails.
    #[must_use]
    pub fn lock_table(&self, table: &str) -> Option<WriteLock> {
        let Kind::Postgres { .. } = &self.kind else {
            return None;
        };
        let mut c =
            PgConnection::establish(&self.url).unwrap_or_else(|e| panic!("cannot connect: {e}"));
        c.batch_execute(&format!(
            "BEGIN; LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE"
        ))
        .unwrap_or_else(|e| panic!("cannot lock {table}: {e}"));
        Some(WriteLock {
            conn: WriteLockConn::Postgres(c),
        })
    }
}

impl Store {
    /// `current_setting(name)` on PostgreSQL, read on the connection this
    /// store's calls use (a session's own); `None` on SQLite. For tests.
    ///
    /// # Panics
    /// When the query fails.
    #[must_use]
    pub fn postgres_setting(&self, name: &str) -> Option<String> {
        let mut conn = self
            .conn()
            .unwrap_or_else(|e| panic!("no connection: {e:?}"));
        match &mut *conn {
            crate::connection::DbConnection::Sqlite(_) => None,
            crate::connection::DbConnection::Postgres(c) => {
                let rows: Vec<PragmaValue> =
                    diesel::sql_query("SELECT current_setting($1) AS value")
                        .bind::<Text, _>(name)
                        .load(c)
                        .unwrap_or_else(|e| panic!("current_setting failed: {e}"));
                rows.into_iter().next().map(|r| r.value)
            }
        }
    }

    /// [`Store::postgres_setting`] on `connections` distinct pooled
    /// connections held at the same time. Empty on SQLite. For tests.
    ///
    /// # Panics
    /// When a connection or the query fails.
    #[must_use]
    pub fn pooled_postgres_setting(&self, name: &str, connections: usize) -> Vec<String> {
        let mut held = Vec::with_capacity(connections);
        let mut values = Vec::new();
        for _ in 0..connections {
            let mut conn = self
                .pool()
                .get()
                .unwrap_or_else(|e| panic!("no pooled connection: {e}"));
            if let crate::connection::DbConnection::Postgres(c) = &mut **conn {
                let rows: Vec<PragmaValue> =
                    diesel::sql_query("SELECT current_setting($1) AS value")
                        .bind::<Text, _>(name)
                        .load(c)
                        .unwrap_or_else(|e| panic!("current_setting failed: {e}"));
                values.extend(rows.into_iter().map(|r| r.value));
            }
            held.push(conn);
        }
        values
    }

    /// Reads `PRAGMA <pragma>` on `connections` distinct pooled connections
    /// (held at the same time), as text. Empty on PostgreSQL. For tests.
    ///
    /// # Panics
    /// When a connection or the query fails.
    #[must_use]
    pub fn pooled_sqlite_pragma(&self, pragma: &str, connections: usize) -> Vec<String> {
        if self.backend() != Backend::Sqlite {
            return Vec::new();
        }
        // `mmap_size` has no table-valued function: only the statement reads it.
        let read = |c: &mut SqliteConnection| -> diesel::QueryResult<Vec<String>> {
            if pragma == "mmap_size" {
                let rows: Vec<MmapSize> = diesel::sql_query("PRAGMA mmap_size").load(c)?;
                return Ok(rows.into_iter().map(|r| r.mmap_size.to_string()).collect());
            }
            let sql = format!("SELECT CAST((SELECT * FROM pragma_{pragma}()) AS TEXT) AS value");
            let rows: Vec<PragmaValue> = diesel::sql_query(sql).load(c)?;
            Ok(rows.into_iter().map(|r| r.value).collect())
        };
        let mut held = Vec::with_capacity(connections);
        let mut values = Vec::with_capacity(connections);
        for _ in 0..connections {
            let mut conn = self
                .pool()
                .get()
                .unwrap_or_else(|e| panic!("no pooled connection: {e}"));
            let crate::connection::DbConnection::Sqlite(c) = &mut **conn else {
                return Vec::new();
            };
            values.extend(read(c).unwrap_or_else(|e| panic!("PRAGMA {pragma} failed: {e}")));
            held.push(conn);
        }
        values
    }
}

impl TestDatabase {
    /// A copy of this database as it is now, as a backup taken now would be
    /// (the storage suite restores it to simulate a restore): on SQLite
    /// `VACUUM INTO` a new file (an online, consistent copy); on PostgreSQL
    /// `CREATE DATABASE … TEMPLATE` this one, which needs this database to
    /// have no other session: drop its stores first (waits up to 10 s for
    /// their sessions to close).
    ///
    /// # Panics
    /// When the copy cannot be made.
    #[must_use]
    pub fn backup(&self) -> TestDatabase {
        match &self.kind {
            Kind::Sqlite { .. } => {
                let copy = TestDatabase::sqlite();
                self.execute(&format!("VACUUM INTO '{}'", copy.url.replace('\'', "''")));
                copy
            }
            Kind::Postgres { admin_url, name } => {
                self.wait_until_unused(std::time::Duration::from_secs(10));
                let copy = format!("equip_test_{}", Uuid::new_v4().simple());
                let created = PgConnection::establish(admin_url).and_then(|mut admin| {
                    diesel::sql_query(format!("CREATE DATABASE {copy} TEMPLATE {name}"))
                        .execute(&mut admin)
                        .map_err(|e| diesel::ConnectionError::BadConnection(e.to_string()))
                });
                if let Err(e) = created {
                    panic!("cannot copy test database {name}: {e}");
                }
                TestDatabase {
                    url: with_database(admin_url, &copy),
                    kind: Kind::Postgres {
                        admin_url: admin_url.clone(),
                        name: copy,
                    },
                }
            }
        }
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        match &self.kind {
            Kind::Sqlite { dir } => {
                let _ = std::fs::remove_dir_all(dir);
            }
            Kind::Postgres { admin_url, name } => {
                let dropped = PgConnection::establish(admin_url).and_then(|mut admin| {
                    diesel::sql_query(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                        .execute(&mut admin)
                        .map_err(|e| diesel::ConnectionError::BadConnection(e.to_string()))
                });
                if let Err(e) = dropped {
                    eprintln!("warning: could not drop test database {name}: {e}");
                }
            }
        }
    }
}

fn postgres_required() -> bool {
    std::env::var("EQUIP_REQUIRE_POSTGRES").is_ok_and(|v| v.trim() == "1")
        || std::env::var("CI").is_ok_and(|v| v.trim().eq_ignore_ascii_case("true"))
}

/// `url` with its database (path) replaced by `database`, query kept.
fn with_database(url: &str, database: &str) -> String {
    let start = url.find("://").map_or(0, |i| i + 3);
    let path_start = url[start..]
        .find(['/', '?'])
        .map_or(url.len(), |i| start + i);
    let query = url[path_start..]
        .find('?')
        .map_or("", |i| &url[path_start + i..]);
    format!("{}/{database}{query}", &url[..path_start])
}

/// Adds a 5 s `connect_timeout` unless the URL sets one.
fn with_connect_timeout(url: &str) -> String {
    if url.contains("connect_timeout=") {
        url.to_owned()
    } else if url.contains('?') {
        format!("{url}&connect_timeout=5")
    } else {
        format!("{url}?connect_timeout=5")
    }
}

/// Hides the password of a URL for messages.
fn redact(url: &str) -> String {
    let Some(start) = url.find("://").map(|i| i + 3) else {
        return url.to_owned();
    };
    let authority_end = url[start..]
        .find(['/', '?'])
        .map_or(url.len(), |i| start + i);
    let authority = &url[start..authority_end];
    match authority.rfind('@') {
        Some(at) => match authority[..at].find(':') {
            Some(colon) => format!(
                "{}{}:***{}",
                &url[..start],
                &authority[..colon],
                &url[start + at..]
            ),
            None => url.to_owned(),
        },
        None => url.to_owned(),
    }
}

impl Store {
    /// The contents of the organization's packages among `packages`, as the
    /// provisioning writers read them (`package_contents::contents_of`: by
    /// package id, each in position order; a package without contents,
    /// unknown or another organization's is absent). For tests.
    ///
    /// # Errors
    /// Backend failures.
    pub fn package_contents_of(
        &self,
        organization: equip_domain::ids::OrganizationId,
        packages: &[equip_domain::ids::PackageId],
    ) -> equip_domain::error::StoreResult<
        std::collections::HashMap<
            equip_domain::ids::PackageId,
            Vec<equip_domain::catalog::PackageItem>,
        >,
    > {
        let org = organization.to_string();
        let ids: Vec<String> = packages.iter().map(ToString::to_string).collect();
        self.read("package", |c| {
            crate::package_contents::contents_of(c, &org, &ids)?
                .into_iter()
                .map(|(id, items)| Ok((crate::models::parse_id(&id)?, items)))
                .collect()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn database_replaced_in_urls() {
        assert_eq!(
            with_database("postgres://postgres@127.0.0.1:5432/postgres", "x"),
            "postgres://postgres@127.0.0.1:5432/x"
        );
        assert_eq!(
            with_database("postgres://u:p@h/postgres?sslmode=disable", "x"),
            "postgres://u:p@h/x?sslmode=disable"
        );
        assert_eq!(with_database("postgres://h", "x"), "postgres://h/x");
        assert_eq!(
            with_database("postgres://h?sslmode=disable", "x"),
            "postgres://h/x?sslmode=disable"
        );
    }

    #[test]
    fn passwords_are_hidden() {
        assert_eq!(
            redact("postgres://u:secret@h:5432/db"),
            "postgres://u:***@h:5432/db"
        );
        assert_eq!(redact("postgres://u@h/db"), "postgres://u@h/db");
    }
}
