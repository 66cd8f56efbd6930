//! Posting one delivery over HTTP(S).
//!
//! ureq 2 (blocking, small, already built on `url`; TLS through `native-tls`,
//! the OpenSSL that `lettre` already links, so no second TLS stack) is used
//! because it takes a custom [`ureq::Resolver`]: the host of every new
//! connection is resolved by [`VettingResolver`], which refuses the whole
//! request when any address is private (unless allowed) and otherwise hands
//! ureq exactly the addresses it checked, which ureq connects to. A DNS answer
//! that changes between the check and the connection (rebinding) therefore
//! cannot reach a private address. Redirects are not followed (a 3xx is a
//! failed attempt) and no proxy is read from the environment. Connections are
//! kept alive and reused between deliveries to the same host.

use std::io::Read;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::Arc;
use std::time::{Duration, Instant};

use equip_domain::webhook::AddressPolicy;

/// Largest part of a receiver's answer read (the rest is dropped with the
/// connection).
const MAX_ANSWER_BYTES: u64 = 64 * 1024;

/// What a receiver did with one delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The HTTP status; `None` when there was no answer (time-out, refused
    /// address, connection or TLS error).
    pub status: Option<u16>,
    /// What went wrong (`None` on a 2xx).
    pub error: Option<String>,
    /// Time from the start of the request to the answer or the failure.
    pub latency: Duration,
}

impl Answer {
    /// Whether the delivery succeeded (2xx).
    #[must_use]
    pub fn succeeded(&self) -> bool {
        self.status.is_some_and(|s| (200..300).contains(&s))
    }
}

/// The HTTP transport cannot be set up.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    /// The TLS connector cannot be made (OpenSSL).
    #[error(transparent)]
    Tls(#[from] native_tls::Error),
}

/// Posts a delivery.
pub trait WebhookTransport: Send + Sync {
    /// POSTs `body` to `url` with `headers` (name, value); never panics, every
    /// failure is in the [`Answer`].
    fn post(&self, url: &str, headers: &[(&str, &str)], body: &[u8]) -> Answer;
}

/// Resolves hosts for ureq and refuses private addresses (see the module).
#[derive(Debug, Clone, Copy)]
pub struct VettingResolver {
    policy: AddressPolicy,
}

impl ureq::Resolver for VettingResolver {
    fn resolve(&self, netloc: &str) -> std::io::Result<Vec<SocketAddr>> {
        let addrs: Vec<SocketAddr> = netloc.to_socket_addrs()?.collect();
        let ips: Vec<std::net::IpAddr> = addrs.iter().map(SocketAddr::ip).collect();
        self.policy
            .check(&ips)
            .map_err(|why| std::io::Error::new(std::io::ErrorKind::PermissionDenied, why))?;
        Ok(addrs)
    }
}

/// The HTTP(S) transport.
pub struct HttpTransport {
    agent: ureq::Agent,
    timeout: Duration,
}

impl HttpTransport {
    /// A transport with one delivery's `timeout` (connection, request and
    /// answer together) that reaches only addresses `policy` allows.
    ///
    /// # Errors
    /// [`TransportError::Tls`] when TLS cannot be set up.
    pub fn new(timeout: Duration, policy: AddressPolicy) -> Result<Self, TransportError> {
        let tls = native_tls::TlsConnector::new()?;
        let agent = ureq::AgentBuilder::new()
            .resolver(VettingResolver { policy })
            .tls_connector(Arc::new(tls))
            .redirects(0)
            .timeout(timeout)
            .max_idle_connections(64)
            .max_idle_connections_per_host(8)
            .user_agent(concat!("equip-webhooks/", env!("CARGO_PKG_VERSION")))
            .build();
        Ok(Self { agent, timeout })
    }

    /// What went wrong, for the log and the delivery log: the error's kind,
    /// the receiver's host, and ureq's message and cause. Never the URL
    /// itself: its path and query are where receivers keep their tokens
    /// (ureq's own text starts with the whole URL).
    fn describe(&self, err: &ureq::Transport) -> String {
        let cause = std::error::Error::source(err).map(ToString::to_string);
        let timed_out = matches!(err.kind(), ureq::ErrorKind::Io)
            && cause.as_deref().is_some_and(|c| {
                c.contains("timed out") || c.contains("Resource temporarily unavailable")
            });
        let host = err.url().and_then(|u| u.host_str()).map(str::to_owned);
        describe_failure(
            &err.kind().to_string(),
            host.as_deref(),
            err.message(),
            cause.as_deref(),
            timed_out.then_some(self.timeout),
        )
    }
}

/// The text of a failed attempt (see [`HttpTransport::describe`]): `kind`,
/// then the host, ureq's message and the cause, each when known; a time-out
/// says how long was waited.
fn describe_failure(
    kind: &str,
    host: Option<&str>,
    message: Option<&str>,
    cause: Option<&str>,
    timed_out_after: Option<Duration>,
) -> String {
    let mut text = match timed_out_after {
        Some(after) => format!("timed out after {} ms", after.as_millis()),
        None => kind.to_owned(),
    };
    if let Some(host) = host {
        text.push_str(" (host ");
        text.push_str(host);
        text.push(')');
    }
    if timed_out_after.is_none() {
        for part in [message, cause].into_iter().flatten() {
            text.push_str(": ");
            text.push_str(part);
        }
    }
    text
}

/// Reads (part of) the answer's body so that the connection can be reused.
fn drain(response: ureq::Response) {
    let mut sink = Vec::new();
    let _ = response
        .into_reader()
        .take(MAX_ANSWER_BYTES)
        .read_to_end(&mut sink);
}

impl WebhookTransport for HttpTransport {
    fn post(&self, url: &str, headers: &[(&str, &str)], body: &[u8]) -> Answer {
        let started = Instant::now();
        let mut request = self.agent.post(url);
        for (name, value) in headers {
            request = request.set(name, value);
        }
        match request.send_bytes(body) {
            Ok(response) => {
                let status = response.status();
                drain(response);
                Answer {
                    status: Some(status),
                    error: (!(200..300).contains(&status)).then(|| {
                        format!("the receiver answered {status} (redirects are not followed)")
                    }),
                    latency: started.elapsed(),
                }
            }
            Err(ureq::Error::Status(status, response)) => {
                drain(response);
                Answer {
                    status: Some(status),
                    error: Some(format!("the receiver answered {status}")),
                    latency: started.elapsed(),
                }
            }
            Err(ureq::Error::Transport(err)) => Answer {
                status: None,
                error: Some(self.describe(&err)),
                latency: started.elapsed(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use equip_domain::webhook::AddressPolicy;

    /// A receiver that refuses connections: nothing listens on the port.
    fn closed_port() -> u16 {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        drop(listener);
        port
    }

    #[test]
    fn a_failed_attempt_names_the_host_never_the_path_or_query() {
        let transport = HttpTransport::new(
            Duration::from_secs(2),
            AddressPolicy {
                allow_private: true,
            },
        )
        .expect("tls");
        let url = format!(
            "http://127.0.0.1:{}/hooks/SECRET-PATH-TOKEN?token=SECRET-QUERY-TOKEN",
            closed_port()
        );
        let answer = transport.post(&url, &[], b"{}");
        let error = answer.error.expect("a failure");
        assert!(error.contains("127.0.0.1"), "{error}");
        assert!(!error.contains("SECRET"), "{error}");
        assert!(!error.contains("/hooks"), "{error}");
    }

    #[test]
    fn the_text_of_a_failure_has_kind_host_message_and_cause() {
        assert_eq!(
            describe_failure(
                "Connection Failed",
                Some("hooks.example"),
                Some("Connect error"),
                Some("connection refused"),
                None
            ),
            "Connection Failed (host hooks.example): Connect error: connection refused"
        );
        assert_eq!(
            describe_failure(
                "Network Error",
                None,
                None,
                None,
                Some(Duration::from_secs(2))
            ),
            "timed out after 2000 ms"
        );
    }
}
