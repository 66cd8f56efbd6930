//! A webhook receiver for the tests: a small HTTP/1.1 server on loopback
//! (keep-alive, one thread per connection) that records every request and
//! answers as a script says (a status, or hanging before it closes).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

/// How the receiver answers one request.
#[derive(Debug, Clone, Copy)]
pub enum Reply {
    /// This status, with an empty body.
    Status(u16),
    /// This status after a pause.
    SlowStatus(u16, Duration),
    /// Nothing for this long, then the connection is closed.
    Hang(Duration),
}

/// One request received.
#[derive(Debug, Clone)]
pub struct Received {
    /// Headers, names in lower case.
    pub headers: HashMap<String, String>,
    /// The exact body.
    pub body: Vec<u8>,
    /// The status it was answered with (None: hung up).
    pub answered: Option<u16>,
}

impl Received {
    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }

    /// The event's sequence.
    pub fn sequence(&self) -> i64 {
        self.json()["sequence"].as_i64().unwrap()
    }

    /// Whether it was answered with a 2xx.
    pub fn succeeded(&self) -> bool {
        self.answered.is_some_and(|s| (200..300).contains(&s))
    }
}

type Script = dyn Fn(usize) -> Reply + Send + Sync;

/// A running receiver (its threads live until the test process ends).
pub struct Receiver {
    /// `http://127.0.0.1:<port>/hook`.
    pub url: String,
    received: Arc<Mutex<Vec<Received>>>,
}

impl Receiver {
    /// Answers 200 to everything.
    pub fn ok() -> Self {
        Self::start(|_| Reply::Status(200))
    }

    /// Answers request `n` (0-based, in arrival order) with `script(n)`.
    pub fn start(script: impl Fn(usize) -> Reply + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let script: Arc<Script> = Arc::new(script);
        let count = Arc::new(AtomicUsize::new(0));
        {
            let received = Arc::clone(&received);
            std::thread::spawn(move || {
                for conn in listener.incoming().flatten() {
                    let received = Arc::clone(&received);
                    let script = Arc::clone(&script);
                    let count = Arc::clone(&count);
                    std::thread::spawn(move || serve(conn, &received, &*script, &count));
                }
            });
        }
        Self { url, received }
    }

    /// Everything received so far.
    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// The requests answered 2xx so far.
    pub fn delivered(&self) -> Vec<Received> {
        self.received()
            .into_iter()
            .filter(Received::succeeded)
            .collect()
    }

    /// Waits until `n` requests were answered 2xx (panics after `timeout`).
    pub fn wait_for(&self, n: usize, timeout: Duration) -> Vec<Received> {
        let start = Instant::now();
        loop {
            let delivered = self.delivered();
            if delivered.len() >= n {
                return delivered;
            }
            assert!(
                start.elapsed() < timeout,
                "{} of {n} deliveries after {timeout:?}",
                delivered.len()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn serve(conn: TcpStream, received: &Mutex<Vec<Received>>, script: &Script, count: &AtomicUsize) {
    let mut writer = conn.try_clone().unwrap();
    let mut reader = BufReader::new(conn);
    loop {
        let mut headers = HashMap::new();
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
            }
        }
        let len: usize = headers
            .get("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; len];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let n = count.fetch_add(1, Ordering::SeqCst);
        let reply = script(n);
        let answered = match reply {
            Reply::Status(s) | Reply::SlowStatus(s, _) => Some(s),
            Reply::Hang(_) => None,
        };
        received.lock().unwrap().push(Received {
            headers,
            body,
            answered,
        });
        match reply {
            Reply::Status(status) => respond(&mut writer, status),
            Reply::SlowStatus(status, pause) => {
                std::thread::sleep(pause);
                respond(&mut writer, status);
            }
            Reply::Hang(pause) => {
                std::thread::sleep(pause);
                return;
            }
        }
    }
}

fn respond(writer: &mut TcpStream, status: u16) {
    let _ = write!(
        writer,
        "HTTP/1.1 {status} Whatever\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok"
    );
    let _ = writer.flush();
}
