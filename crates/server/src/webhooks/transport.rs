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
    /// When TLS cannot be set up.
    pub fn new(timeout: Duration, policy: AddressPolicy) -> anyhow::Result<Self> {
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

    fn describe(&self, err: &ureq::Transport) -> String {
        let text = err.to_string();
        let timed_out = matches!(err.kind(), ureq::ErrorKind::Io)
            && (text.contains("timed out") || text.contains("Resource temporarily unavailable"));
        if timed_out {
            format!("timed out after {} ms", self.timeout.as_millis())
        } else {
            text
        }
    }
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
