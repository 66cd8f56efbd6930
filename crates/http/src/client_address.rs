//! The address a request comes from, for limits that count per client
//! (docs/sso.md, "Starting sign-ins is rate limited").
//!
//! By default it is the TCP peer: a client cannot choose it. Behind a proxy
//! every request's peer is the proxy, so with `serve
//! --trust-forwarded-headers` (only behind a proxy that sets them and drops
//! a client's own, as deploy/nginx-equip.conf does) it is the client the
//! proxy names: `Forwarded: for=…`, else the first `X-Forwarded-For`
//! address, else the peer.
//!
//! An IPv6 client is counted by its /64: one host is usually given a whole
//! /64, so counting each address would let it choose a fresh one per
//! request.

use std::net::{IpAddr, Ipv6Addr};

use actix_web::HttpRequest;

/// The client of `req`, as a limit counts it (an IPv6 address masked to
/// its /64); `None` when there is no address to read (a request not made
/// over a socket, as in tests, or a forwarded value that is not an
/// address).
#[must_use]
pub fn client_of(req: &HttpRequest, trust_forwarded: bool) -> Option<IpAddr> {
    let ip = if trust_forwarded {
        parse(req.connection_info().realip_remote_addr()?)?
    } else {
        req.peer_addr()?.ip()
    };
    Some(counted(ip))
}

/// `ip` as a limit counts it: IPv4 (and IPv4-mapped IPv6) as is, IPv6 by
/// its /64.
fn counted(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let prefix = u128::from(v6) & !((1u128 << 64) - 1);
                IpAddr::V6(Ipv6Addr::from(prefix))
            }
        },
    }
}

/// An address as a proxy writes it: `192.0.2.1`, `192.0.2.1:4711`,
/// `2001:db8::1`, `[2001:db8::1]` or `[2001:db8::1]:4711` (quotes of a
/// `Forwarded` value removed); anything else (`unknown`, an obfuscated
/// `_node` of RFC 7239) is `None`.
fn parse(value: &str) -> Option<IpAddr> {
    let value = value.trim().trim_matches('"');
    if let Ok(ip) = value.parse::<IpAddr>() {
        return Some(ip);
    }
    if let Some(rest) = value.strip_prefix('[') {
        let (v6, _port) = rest.split_once(']')?;
        return v6.parse::<Ipv6Addr>().ok().map(IpAddr::V6);
    }
    let (v4, port) = value.rsplit_once(':')?;
    port.parse::<u16>().ok()?;
    v4.parse::<std::net::Ipv4Addr>().ok().map(IpAddr::V4)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use actix_web::test::TestRequest;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn proxies_forms_of_an_address_are_read() {
        for (written, read) in [
            ("192.0.2.1", "192.0.2.1"),
            ("192.0.2.1:4711", "192.0.2.1"),
            ("2001:db8::1", "2001:db8::1"),
            ("[2001:db8::1]", "2001:db8::1"),
            ("\"[2001:db8::1]:4711\"", "2001:db8::1"),
        ] {
            assert_eq!(parse(written), Some(ip(read)), "{written}");
        }
        for not in ["unknown", "_hidden", "", "192.0.2.1:http", "example.com"] {
            assert_eq!(parse(not), None, "{not}");
        }
    }

    #[test]
    fn ipv6_is_counted_by_its_64_and_mapped_ipv4_as_ipv4() {
        assert_eq!(counted(ip("2001:db8:1:2:aaaa::1")), ip("2001:db8:1:2::"));
        assert_eq!(
            counted(ip("2001:db8:1:2:ffff::9")),
            counted(ip("2001:db8:1:2::1"))
        );
        assert_ne!(
            counted(ip("2001:db8:1:3::1")),
            counted(ip("2001:db8:1:2::1"))
        );
        assert_eq!(counted(ip("::ffff:192.0.2.7")), ip("192.0.2.7"));
        assert_eq!(counted(ip("192.0.2.7")), ip("192.0.2.7"));
    }

    #[test]
    fn forwarded_headers_count_only_when_trusted() {
        let peer = "198.51.100.9:5000".parse().unwrap();
        let req = TestRequest::default()
            .peer_addr(peer)
            .insert_header(("X-Forwarded-For", "192.0.2.1, 10.0.0.1"))
            .to_http_request();
        assert_eq!(client_of(&req, false), Some(ip("198.51.100.9")));
        assert_eq!(client_of(&req, true), Some(ip("192.0.2.1")));
        let forwarded = TestRequest::default()
            .peer_addr(peer)
            .insert_header(("Forwarded", "for=\"[2001:db8::5]:80\""))
            .insert_header(("X-Forwarded-For", "192.0.2.1"))
            .to_http_request();
        assert_eq!(client_of(&forwarded, true), Some(ip("2001:db8::")));
        // Trusted, but the proxy named none: the peer.
        let plain = TestRequest::default().peer_addr(peer).to_http_request();
        assert_eq!(client_of(&plain, true), Some(ip("198.51.100.9")));
        assert_eq!(
            client_of(&TestRequest::default().to_http_request(), false),
            None
        );
    }
}
