//! `equip healthcheck`: asks a running `equip serve` whether it is ready
//! (`GET /readyz`) and exits 0 only on a 200 answer, so that a container's
//! `HEALTHCHECK` (or any supervisor) needs no HTTP client in the image. A
//! plain HTTP/1.1 request over a socket, with a time-out; it never opens the
//! database.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Duration;

use anyhow::{bail, Context};

use crate::cli::HealthcheckArgs;

/// Longest the whole check may take.
const TIMEOUT: Duration = Duration::from_secs(5);

/// The address to ask: `bind` as `serve --bind` takes it, with an
/// unspecified host (`0.0.0.0`, `[::]`) asked on loopback.
fn target(bind: &str) -> anyhow::Result<SocketAddr> {
    let addr = bind
        .to_socket_addrs()
        .with_context(|| format!("--bind {bind}: expected HOST:PORT"))?
        .next()
        .with_context(|| format!("--bind {bind}: no address"))?;
    Ok(match addr {
        SocketAddr::V4(a) if a.ip().is_unspecified() => {
            SocketAddr::from(([127, 0, 0, 1], a.port()))
        }
        SocketAddr::V6(a) if a.ip().is_unspecified() => {
            SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, a.port()))
        }
        other => other,
    })
}

/// The status code of an HTTP response's first line.
fn status_of(head: &str) -> Option<u16> {
    let line = head.lines().next()?;
    let mut parts = line.split_whitespace();
    parts.next().filter(|v| v.starts_with("HTTP/"))?;
    parts.next()?.parse().ok()
}

/// Runs the check; says what it found on standard error.
///
/// # Errors
/// No connection, no answer within the time-out, or an answer other than
/// 200 (the readiness probe's reason, when it gives one).
pub fn run(args: &HealthcheckArgs) -> anyhow::Result<()> {
    let addr = target(&args.bind)?;
    let mut stream = TcpStream::connect_timeout(&addr, TIMEOUT)
        .with_context(|| format!("cannot connect to equip at {addr}"))?;
    stream.set_read_timeout(Some(TIMEOUT))?;
    stream.set_write_timeout(Some(TIMEOUT))?;
    let request = format!(
        "GET /readyz HTTP/1.1\r\nHost: {addr}\r\nUser-Agent: equip-healthcheck\r\nConnection: close\r\n\r\n"
    );
    stream
        .write_all(request.as_bytes())
        .with_context(|| format!("cannot send to {addr}"))?;
    let mut answer = Vec::new();
    stream
        .take(64 * 1024)
        .read_to_end(&mut answer)
        .with_context(|| format!("no answer from {addr}"))?;
    let text = String::from_utf8_lossy(&answer);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    match status_of(head) {
        Some(200) => {
            crate::logs::announce(&format!("equip at {addr} is ready"));
            Ok(())
        }
        Some(status) => bail!("equip at {addr} is not ready: {status} {}", body.trim()),
        None => bail!("equip at {addr} gave no HTTP answer"),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn unspecified_hosts_are_asked_on_loopback() {
        assert_eq!(
            target("0.0.0.0:8080").unwrap(),
            "127.0.0.1:8080".parse().unwrap()
        );
        assert_eq!(target("[::]:81").unwrap(), "[::1]:81".parse().unwrap());
        assert_eq!(target("10.1.2.3:9").unwrap(), "10.1.2.3:9".parse().unwrap());
        assert!(target("8080").is_err());
    }

    #[test]
    fn the_status_is_read_from_the_first_line() {
        assert_eq!(status_of("HTTP/1.1 200 OK\r\nA: b"), Some(200));
        assert_eq!(status_of("HTTP/1.1 503 Service Unavailable"), Some(503));
        assert_eq!(status_of("SSH-2.0-OpenSSH"), None);
        assert_eq!(status_of(""), None);
    }
}
