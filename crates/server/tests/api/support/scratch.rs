//! The `equip` binary run as a script or an operator would run it: in a
//! scratch directory of its own (its working directory, removed afterwards),
//! with the log at `warn` and no listen or pool settings taken from the
//! environment, killed if it runs longer than [`COMMAND_TIMEOUT`]. Used by
//! the CLI tests (`cli.rs`) and the configuration tests (`configuration.rs`).

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Longest one command may run before it is killed (each should finish, or
/// fail, within seconds).
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(90);

/// An empty temporary directory, the working directory of the commands run
/// in it; removed afterwards.
pub struct Scratch(PathBuf);

impl Scratch {
    /// A fresh directory.
    pub fn new() -> Self {
        let dir = std::env::temp_dir().join(format!("equip-scratch-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    /// The path of `name` in the directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// The directory's SQLite database (`equip.db`, created by the first
    /// command that opens it).
    pub fn db(&self) -> PathBuf {
        self.path("equip.db")
    }

    /// Writes `content` to `name`; its path.
    pub fn file(&self, name: &str, content: &str) -> PathBuf {
        let path = self.path(name);
        std::fs::write(&path, content).unwrap();
        path
    }

    /// What the directory holds, by name.
    pub fn entries(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// Runs `equip args` here on the directory's database ([`Self::db`]).
    pub fn equip(&self, args: &[&str]) -> Run {
        self.run(&self.db().display().to_string(), args, None)
    }

    /// [`Self::equip`] with `stdin` as its standard input.
    pub fn equip_with_stdin(&self, args: &[&str], stdin: &str) -> Run {
        self.run(&self.db().display().to_string(), args, Some(stdin))
    }

    /// Runs `equip args` here on `database_url`.
    pub fn equip_on(&self, database_url: &str, args: &[&str]) -> Run {
        self.run(database_url, args, None)
    }

    fn run(&self, database_url: &str, args: &[&str], stdin: Option<&str>) -> Run {
        let mut child = Command::new(env!("CARGO_BIN_EXE_equip"))
            .args(args)
            .current_dir(&self.0)
            .env("DATABASE_URL", database_url)
            .env("RUST_LOG", "warn")
            .env_remove("EQUIP_BIND")
            .env_remove("EQUIP_METRICS_BIND")
            .env_remove("EQUIP_DB_POOL_TIMEOUT")
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        if let Some(text) = stdin {
            let mut input = child.stdin.take().unwrap();
            input.write_all(text.as_bytes()).unwrap();
        }
        Run(wait_at_most(child, COMMAND_TIMEOUT))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The child's output once it has exited, or has been killed after
/// `timeout`. Its output is read while it runs, so that a full pipe never
/// holds it up.
fn wait_at_most(mut child: Child, timeout: Duration) -> Output {
    fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    }
    let stdout = drain(child.stdout.take().unwrap());
    let stderr = drain(child.stderr.take().unwrap());
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > timeout {
            let _ = child.kill();
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// What one command did.
pub struct Run(pub Output);

impl Run {
    /// Its standard output.
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.0.stdout).into_owned()
    }

    /// Its standard error.
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.0.stderr).into_owned()
    }

    /// Asserts that it succeeded.
    pub fn ok(&self) -> &Self {
        assert!(
            self.0.status.success(),
            "equip failed: {}\nstdout: {}\nstderr: {}",
            self.0.status,
            self.stdout(),
            self.stderr()
        );
        self
    }

    /// Asserts that it failed (an error equip reports, or one of its
    /// command line: either exit code), printing nothing on stdout.
    pub fn failed(&self) -> &Self {
        assert!(
            !self.0.status.success() && self.0.status.code().is_some(),
            "equip did not fail as expected: {}\nstdout: {}\nstderr: {}",
            self.0.status,
            self.stdout(),
            self.stderr()
        );
        assert!(
            self.stdout().is_empty(),
            "a failure prints nothing on stdout: {}",
            self.stdout()
        );
        self
    }

    /// Asserts that it failed with an error equip reports (exit code 1, not
    /// killed), printing nothing on stdout; its stderr.
    pub fn error(&self) -> String {
        assert_eq!(
            self.0.status.code(),
            Some(1),
            "equip did not fail as expected\nstderr: {}",
            self.stderr()
        );
        self.failed();
        self.stderr()
    }

    /// Asserts that stdout holds exactly one line; that line.
    pub fn single_line(&self) -> String {
        let out = self.stdout();
        assert_eq!(out.lines().count(), 1, "stdout: {out:?}");
        out.trim().to_owned()
    }
}
