//! The real binary: `equip serve` as a child process (started on a free port,
//! its log collected, killed with SIGKILL or stopped with SIGTERM), and a small
//! blocking HTTP/1.1 client for talking to it. For the tests that kill the
//! server or run several of them on one database.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::Utc;
use equip_domain::api_key::Scopes;
use equip_domain::services::admin;
use equip_persistence::test_support::TestDatabase;
use serde_json::Value;

/// How long a started server may take to print its address.
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// How long one request may wait for its response.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(120);

/// A running `equip serve`; SIGKILLed on drop if still running.
pub struct Serve {
    child: Child,
    /// `host:port` it listens on.
    pub addr: String,
    /// `host:port` of its metrics listener (`--metrics-bind`), if any.
    pub metrics_addr: Option<String>,
    log: Arc<Mutex<String>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Serve {
    /// Starts `equip serve --bind 127.0.0.1:0 <args>` on `database_url` (log
    /// level info, no mail settings from the environment, no rate limit
    /// unless `args` set one) and waits until it
    /// prints `equip listening on http://<addr>`.
    pub fn start(database_url: &str, args: &[&str]) -> Serve {
        Self::start_with_env(database_url, args, &[])
    }

    /// As [`Serve::start`], with the variables `env` set.
    pub fn start_with_env(database_url: &str, args: &[&str], env: &[(&str, &str)]) -> Serve {
        let mut child = Command::new(env!("CARGO_BIN_EXE_equip"))
            .args(["serve", "--bind", "127.0.0.1:0"])
            .args(args)
            .env("DATABASE_URL", database_url)
            .env("RUST_LOG", "info")
            // Keys are not rate limited unless a test passes `--rate-limit`:
            // several tests send bursts larger than the default allows.
            .env("EQUIP_RATE_LIMIT", "0")
            .env_remove("EQUIP_SMTP_URL")
            .env_remove("EQUIP_SPOOL_DIR")
            .env_remove("EQUIP_NO_DISPATCHER")
            .env_remove("EQUIP_DISPATCH_INTERVAL")
            .env_remove("EQUIP_WORKERS")
            .env_remove("EQUIP_METRICS_BIND")
            .env_remove("EQUIP_SHUTDOWN_TIMEOUT")
            .env_remove("EQUIP_REQUEST_TIMEOUT")
            .env_remove("EQUIP_UPLOAD_TIMEOUT")
            .env_remove("EQUIP_DB_POOL_TIMEOUT")
            .env_remove("EQUIP_DB_POOL_SIZE")
            .env_remove("EQUIP_MAX_STORE_CALLS_PER_ORGANIZATION")
            .env_remove("EQUIP_STATEMENT_TIMEOUT_MS")
            .env_remove("MALLOC_ARENA_MAX")
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn equip serve");
        let stderr = child.stderr.take().expect("stderr");
        let log = Arc::new(Mutex::new(String::new()));
        let metrics_addr = Arc::new(Mutex::new(None));
        let (addr_tx, addr_rx) = mpsc::channel();
        // Reads the whole log (so the child never blocks on a full pipe) and
        // reports the address once it is printed.
        let reader = {
            let log = Arc::clone(&log);
            let metrics_addr = Arc::clone(&metrics_addr);
            std::thread::spawn(move || {
                let mut stderr = BufReader::new(stderr);
                let mut line = String::new();
                while matches!(stderr.read_line(&mut line), Ok(n) if n > 0) {
                    // A text line, or the message of a JSON one (`--log-format json`).
                    let message = serde_json::from_str::<serde_json::Value>(&line)
                        .ok()
                        .and_then(|v| v["message"].as_str().map(str::to_owned))
                        .unwrap_or_else(|| line.trim().to_owned());
                    // Printed before the API's address.
                    if let Some(addr) = message.strip_prefix("equip metrics on http://") {
                        *metrics_addr.lock().unwrap() = Some(addr.to_owned());
                    }
                    if let Some(addr) = message.strip_prefix("equip listening on http://") {
                        let _ = addr_tx.send(addr.to_owned());
                    }
                    log.lock().unwrap().push_str(&line);
                    line.clear();
                }
            })
        };
        match addr_rx.recv_timeout(START_TIMEOUT) {
            Ok(addr) => Serve {
                child,
                addr,
                metrics_addr: metrics_addr.lock().unwrap().clone(),
                log,
                reader: Some(reader),
            },
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                let _ = reader.join();
                panic!(
                    "equip serve did not print its address; its log:\n{}",
                    log.lock().unwrap()
                );
            }
        }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// SIGKILL, and waits for the process to be gone.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        self.child.wait().expect("wait for equip serve");
        self.join_log();
    }

    /// SIGTERM (actix stops gracefully, the dispatcher finishes its pass), and
    /// waits up to `timeout` for the process to exit; panics if it does not.
    pub fn terminate(&mut self, timeout: Duration) {
        let status = Command::new("kill")
            .args(["-TERM", &self.pid().to_string()])
            .status()
            .expect("run kill -TERM");
        assert!(status.success(), "kill -TERM {} failed", self.pid());
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                assert!(status.success(), "equip serve exited with {status}");
                break;
            }
            if start.elapsed() > timeout {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("equip serve did not stop within {timeout:?} of SIGTERM");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.join_log();
    }

    fn join_log(&mut self) {
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
    }

    /// The log printed so far (all of it once the process is gone).
    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// The log once a line satisfies `line` (or after 5 s): the process's
    /// output reaches the log on a reader thread, after the response that
    /// followed it may already have been read.
    pub fn log_with(&self, line: impl Fn(&str) -> bool) -> String {
        let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
        loop {
            let log = self.log();
            if log.lines().any(&line) || std::time::Instant::now() > until {
                return log;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// A client of this server holding API key `key`.
    pub fn client(&self, key: &str) -> Api {
        Api {
            addr: self.addr.clone(),
            key: key.to_owned(),
        }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A complete HTTP response.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    /// Header names lowercased.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    /// The first header called `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as text (lossy).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as JSON; panics with the body when it is not.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }
}

/// Sends one request on a fresh connection (`Connection: close`) and reads the
/// whole response. An error when the connection fails or closes before the
/// response is complete (a killed server): only a complete response counts as
/// an answer.
pub fn request(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> std::io::Result<Response> {
    let mut conn = TcpStream::connect(addr)?;
    conn.set_read_timeout(Some(RESPONSE_TIMEOUT))?;
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    conn.write_all(&bytes)?;
    let mut raw = Vec::new();
    conn.read_to_end(&mut raw)?;
    parse_response(&raw)
}

fn incomplete(what: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::UnexpectedEof, what.to_owned())
}

fn parse_response(raw: &[u8]) -> std::io::Result<Response> {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| incomplete("no complete response head"))?;
    let head = String::from_utf8_lossy(&raw[..split]);
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| incomplete("no status line"))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let rest = &raw[split + 4..];
    let find = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    let body = if find("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        dechunk(rest)?
    } else if let Some(len) = find("content-length") {
        let len: usize = len.parse().map_err(|_| incomplete("bad Content-Length"))?;
        if rest.len() < len {
            return Err(incomplete("body shorter than Content-Length"));
        }
        rest[..len].to_vec()
    } else {
        rest.to_vec()
    };
    Ok(Response {
        status,
        headers,
        body,
    })
}

fn dechunk(mut rest: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line_end = rest
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or_else(|| incomplete("truncated chunk size"))?;
        let size = String::from_utf8_lossy(&rest[..line_end]);
        let size = usize::from_str_radix(size.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| incomplete("bad chunk size"))?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Ok(body);
        }
        if rest.len() < size + 2 {
            return Err(incomplete("truncated chunk"));
        }
        body.extend_from_slice(&rest[..size]);
        rest = &rest[size + 2..];
    }
}

/// The multipart form `POST /scim/v2/Users/csv` takes, with `csv` as its
/// file: the `Content-Type` and the body.
pub fn csv_form(csv: &str) -> (String, Vec<u8>) {
    const BOUNDARY: &str = "equip-process-test-boundary";
    let mut body = format!(
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"u.csv\"\r\n\
         Content-Type: text/csv\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(csv.as_bytes());
    body.extend_from_slice(format!("\r\n--{BOUNDARY}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={BOUNDARY}"), body)
}

/// A client of one server with one API key.
#[derive(Debug, Clone)]
pub struct Api {
    pub addr: String,
    pub key: String,
}

impl Api {
    fn auth(&self) -> String {
        format!("ApiKey {}", self.key)
    }

    /// GET `path`.
    pub fn get(&self, path: &str) -> std::io::Result<Response> {
        request(
            &self.addr,
            "GET",
            path,
            &[("Authorization", &self.auth())],
            b"",
        )
    }

    /// POST `body` to `path` as `content_type` (none when empty).
    pub fn post(&self, path: &str, content_type: &str, body: &[u8]) -> std::io::Result<Response> {
        let auth = self.auth();
        let mut headers = vec![("Authorization", auth.as_str())];
        if !content_type.is_empty() {
            headers.push(("Content-Type", content_type));
        }
        request(&self.addr, "POST", path, &headers, body)
    }

    /// PATCH `path` with the JSON `body`.
    pub fn patch_json(&self, path: &str, body: &Value) -> std::io::Result<Response> {
        let auth = self.auth();
        let headers = [
            ("Authorization", auth.as_str()),
            ("Content-Type", "application/json"),
        ];
        request(
            &self.addr,
            "PATCH",
            path,
            &headers,
            body.to_string().as_bytes(),
        )
    }

    /// DELETE `path`.
    pub fn delete(&self, path: &str) -> std::io::Result<Response> {
        request(
            &self.addr,
            "DELETE",
            path,
            &[("Authorization", &self.auth())],
            b"",
        )
    }

    /// POST `body` to `path` as `application/scim+json`.
    pub fn scim_post(&self, path: &str, body: &Value) -> std::io::Result<Response> {
        self.post(path, "application/scim+json", body.to_string().as_bytes())
    }
}

/// Creates organization `name` in `db` with a key of every scope; the key.
/// The store is closed again before the server under test starts.
pub fn organization_with_key(db: &TestDatabase, name: &str) -> String {
    let store = db.store();
    let now = Utc::now();
    let org = admin::create_organization(&store, name, now).unwrap().id;
    admin::issue_api_key(&store, org, Scopes::all(), None, now)
        .unwrap()
        .secret
}
