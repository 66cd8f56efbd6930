//! A PostgreSQL server of a test's own (`initdb` into a temporary directory,
//! on a free port), for tests that crash the server: the shared one serves
//! every other test running at the same time.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A PostgreSQL server in a temporary directory; stopped and removed on drop.
pub struct PgCluster {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    as_postgres: bool,
}

/// The newest installed PostgreSQL's `bin` directory (Debian's layout).
fn bin_dir() -> Option<PathBuf> {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
        .filter(|bin| bin.join("initdb").exists() && bin.join("pg_ctl").exists())
        .collect();
    versions.sort();
    versions.pop()
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    l.local_addr().expect("its address").port()
}

fn skip_or_fail(reason: &str) -> Option<PgCluster> {
    if super::in_ci() || std::env::var("EQUIP_REQUIRE_POSTGRES").as_deref() == Ok("1") {
        panic!("a PostgreSQL server of the test's own is required but cannot be run: {reason}");
    }
    eprintln!("skipping PostgreSQL crash test: {reason}");
    None
}

impl PgCluster {
    /// Creates and starts a server; `None` (with a message) when PostgreSQL's
    /// programs are not installed, outside CI.
    ///
    /// # Panics
    /// When the programs are there but the server cannot be set up, or in
    /// CI when they are missing.
    pub fn start() -> Option<PgCluster> {
        let Some(bin) = bin_dir() else {
            return skip_or_fail("no initdb/pg_ctl under /usr/lib/postgresql");
        };
        // initdb refuses to run as root: run the server as `postgres` then.
        let as_postgres = Command::new("id")
            .arg("-u")
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
        let dir = std::env::temp_dir().join(format!("equip-pg-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).expect("temporary directory");
        let cluster = PgCluster {
            bin,
            dir,
            port: free_port(),
            as_postgres,
        };
        if as_postgres {
            let status = Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(&cluster.dir)
                .status()
                .expect("chown");
            assert!(status.success(), "chown of {}", cluster.dir.display());
        }
        let data = cluster.data();
        cluster.run(
            "initdb",
            &[
                "-D",
                &data,
                "-A",
                "trust",
                "-U",
                "postgres",
                "--no-instructions",
            ],
        );
        cluster.start_again();
        Some(cluster)
    }

    fn data(&self) -> String {
        self.dir.join("data").to_string_lossy().into_owned()
    }

    fn run(&self, program: &str, args: &[&str]) {
        let path = self.bin.join(program);
        let mut command = if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&path);
            c
        } else {
            Command::new(&path)
        };
        let out = command
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("{program}: {e}"));
        assert!(
            out.status.success(),
            "{program} {args:?} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The admin URL (database `postgres`).
    pub fn admin_url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// Starts the server (again), waiting until it accepts connections.
    pub fn start_again(&self) {
        let log = self.dir.join("server.log");
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c max_connections=60 -c fsync=on",
            self.port,
            self.dir.display()
        );
        self.run(
            "pg_ctl",
            &[
                "-D",
                &self.data(),
                "-l",
                &log.to_string_lossy(),
                "-o",
                &options,
                "-w",
                "-t",
                "60",
                "start",
            ],
        );
    }

    /// Crashes the server: `pg_ctl stop -m immediate`, which ends every
    /// server process at once without a checkpoint, as a power cut or an
    /// OOM kill of the postmaster would; the next start runs crash recovery
    /// from the WAL.
    pub fn crash(&self) {
        self.run(
            "pg_ctl",
            &["-D", &self.data(), "-m", "immediate", "-w", "stop"],
        );
    }

    /// Its directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for PgCluster {
    fn drop(&mut self) {
        let path = self.bin.join("pg_ctl");
        let data = self.data();
        let args = ["-D", data.as_str(), "-m", "fast", "-w", "stop"];
        let _ = if self.as_postgres {
            Command::new("runuser")
                .args(["-u", "postgres", "--"])
                .arg(&path)
                .args(args)
                .output()
        } else {
            Command::new(&path).args(args).output()
        };
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
