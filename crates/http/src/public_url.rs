//! The base URL equip puts in `Location` and SCIM's `meta.location`.
//!
//! A client must not choose the links equip hands to other clients: by
//! default the base is `http://` and the request's `Host` (checked to be a
//! host name or address with an optional port), and the `Forwarded` and
//! `X-Forwarded-*` headers are ignored. Behind a proxy, the operator either
//! sets the base (`serve --public-url https://equip.example.com`) or trusts
//! the proxy's headers (`serve --trust-forwarded-headers`), whose scheme must
//! still be `http` or `https` and whose host must still be a host.

use actix_web::http::header::HOST;
use actix_web::HttpRequest;

/// How the base URL of links is found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PublicUrl {
    configured: Option<String>,
    trust_forwarded: bool,
}

/// A `--public-url` that is not an absolute `http`/`https` URL without query
/// or fragment.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the public URL must be http:// or https:// followed by a host, an optional port and an optional path, without query or fragment: {0}")]
pub struct InvalidPublicUrl(String);

impl PublicUrl {
    /// Links based on the request's `Host` (the default).
    #[must_use]
    pub fn from_host() -> Self {
        Self::default()
    }

    /// Links based on `url` (e.g. `https://equip.example.com` or
    /// `https://example.com/equip`; a trailing `/` is dropped).
    ///
    /// # Errors
    /// `url` is not `http(s)://host[:port][/path]`.
    pub fn configured(url: &str) -> Result<Self, InvalidPublicUrl> {
        let invalid = || InvalidPublicUrl(url.to_owned());
        let rest = url
            .strip_prefix("https://")
            .or_else(|| url.strip_prefix("http://"))
            .ok_or_else(invalid)?;
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let path_ok = path
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/-._~%".contains(&b));
        if !is_host(authority) || !path_ok {
            return Err(invalid());
        }
        Ok(Self {
            configured: Some(url.trim_end_matches('/').to_owned()),
            trust_forwarded: false,
        })
    }

    /// The same, honouring `Forwarded` / `X-Forwarded-Proto` /
    /// `X-Forwarded-Host` when no URL is configured.
    #[must_use]
    pub fn trusting_forwarded_headers(mut self, trust: bool) -> Self {
        self.trust_forwarded = trust;
        self
    }

    /// Whether `--trust-forwarded-headers` was given: the proxy's headers
    /// also name the client's address ([`crate::client_address`]), even
    /// with a configured URL.
    #[must_use]
    pub fn trusts_forwarded_headers(&self) -> bool {
        self.trust_forwarded
    }

    /// Whether links come from a configured URL (or trusted proxy headers),
    /// rather than from the request's `Host` over `http://`.
    #[must_use]
    pub fn is_configured(&self) -> bool {
        self.configured.is_some() || self.trust_forwarded
    }

    /// `scheme://host[:port][/path]` for the links of `req`'s answer.
    #[must_use]
    pub fn base(&self, req: &HttpRequest) -> String {
        if let Some(url) = &self.configured {
            return url.clone();
        }
        if self.trust_forwarded {
            let info = req.connection_info();
            let scheme = info.scheme();
            if matches!(scheme, "http" | "https") && is_host(info.host()) {
                return format!("{scheme}://{}", info.host());
            }
        }
        let host = req
            .headers()
            .get(HOST)
            .and_then(|h| h.to_str().ok())
            .or_else(|| {
                req.uri()
                    .authority()
                    .map(actix_web::http::uri::Authority::as_str)
            })
            .filter(|h| is_host(h))
            .map_or_else(|| req.app_config().host().to_owned(), str::to_owned);
        format!("http://{host}")
    }
}

/// Whether `s` is `host[:port]`: a DNS name, an IPv4 address or a bracketed
/// IPv6 address, and digits after the colon.
fn is_host(s: &str) -> bool {
    let (host_ok, port) = if let Some(rest) = s.strip_prefix('[') {
        let Some((v6, after)) = rest.split_once(']') else {
            return false;
        };
        let port = match after {
            "" => None,
            p => match p.strip_prefix(':') {
                Some(p) => Some(p),
                None => return false,
            },
        };
        (v6.parse::<std::net::Ipv6Addr>().is_ok(), port)
    } else {
        let (host, port) = match s.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (s, None),
        };
        let ok = !host.is_empty()
            && host.len() <= 253
            && host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.');
        (ok, port)
    };
    let port_ok =
        port.is_none_or(|p| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()));
    host_ok && port_ok
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use actix_web::test::TestRequest;

    #[test]
    fn hosts() {
        for ok in [
            "example.com",
            "example.com:8080",
            "127.0.0.1:80",
            "[::1]:8080",
            "[::1]",
            "a-b.c",
        ] {
            assert!(is_host(ok), "{ok}");
        }
        for bad in [
            "",
            "evil.example/x",
            "a b",
            "javascript:",
            "h:",
            "h:99999999",
            "::1",
            "a@b",
            "x\"y",
        ] {
            assert!(!is_host(bad), "{bad}");
        }
    }

    #[test]
    fn forwarded_headers_are_ignored_unless_trusted() {
        let req = TestRequest::get()
            .uri("/scim/v2/Users")
            .insert_header(("Host", "equip.internal:8080"))
            .insert_header(("X-Forwarded-Host", "evil.example"))
            .insert_header(("Forwarded", "proto=javascript;host=evil.example"))
            .to_http_request();
        assert_eq!(
            PublicUrl::from_host().base(&req),
            "http://equip.internal:8080"
        );
        // Trusted, but `javascript` is no scheme for a link.
        let trusted = PublicUrl::from_host().trusting_forwarded_headers(true);
        assert_eq!(trusted.base(&req), "http://equip.internal:8080");
        let req = TestRequest::get()
            .uri("/scim/v2/Users")
            .insert_header(("Host", "equip.internal:8080"))
            .insert_header(("Forwarded", "proto=https;host=equip.example.com"))
            .to_http_request();
        assert_eq!(trusted.base(&req), "https://equip.example.com");
        assert_eq!(
            PublicUrl::from_host().base(&req),
            "http://equip.internal:8080"
        );
    }

    #[test]
    fn a_configured_url_wins() {
        let url = PublicUrl::configured("https://equip.example.com/base/").unwrap();
        let req = TestRequest::get()
            .insert_header(("Host", "other.example"))
            .to_http_request();
        assert_eq!(url.base(&req), "https://equip.example.com/base");
        for bad in [
            "ftp://x",
            "https://",
            "https://x?y=1",
            "https://x#f",
            "javascript:alert(1)",
            "https://a b",
        ] {
            assert!(PublicUrl::configured(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_bad_host_header_falls_back_to_the_server_name() {
        let req = TestRequest::get()
            .insert_header(("Host", "evil.example/path\""))
            .to_http_request();
        let base = PublicUrl::from_host().base(&req);
        assert!(!base.contains("evil"), "{base}");
    }
}
