//! The listen addresses of `equip serve` (`--bind`, `--metrics-bind`), read
//! and bound before the database is opened or migrated: a mistake there
//! (`--bind 8080`, a port another process holds) is said at once, in the
//! flag's terms, and leaves the database untouched.

use std::net::{SocketAddr, TcpListener, ToSocketAddrs};

use anyhow::Context;

/// Connections a listener queues before they are accepted (actix-web's
/// default, which `HttpServer::bind` would have used).
const BACKLOG: i32 = 1024;

/// Why `value` is not a `HOST:PORT` listen address, or `None` when it is one
/// in form (`127.0.0.1:8080`, `localhost:0`, `[::1]:8080`, `0.0.0.0:80`): a
/// host, a `:` and a port number from 0 to 65535; an IPv6 host in brackets.
#[must_use]
pub fn form_error(value: &str) -> Option<&'static str> {
    let Some((host, port)) = value.rsplit_once(':') else {
        return Some(if value.parse::<u16>().is_ok() {
            "a port without its host"
        } else {
            "no port"
        });
    };
    if host.is_empty() {
        return Some("no host");
    }
    if port.parse::<u16>().is_err() {
        return Some("the port is not a number from 0 to 65535");
    }
    let bracketed = host.starts_with('[') && host.ends_with(']');
    if host.contains(':') && !bracketed {
        return Some("an IPv6 host goes in brackets, as in [::1]:8080");
    }
    None
}

/// Binds every address `value` (given as `flag`) resolves to, as actix-web's
/// `bind` would (address reuse, a backlog of [`BACKLOG`]); at least one must
/// bind.
///
/// # Errors
/// `value` is not `HOST:PORT` ("expected HOST:PORT", with an example), its
/// host does not resolve, or no address could be bound (in use, not
/// permitted, not an address of this host).
pub fn bind(flag: &str, value: &str) -> anyhow::Result<Vec<TcpListener>> {
    if let Some(why) = form_error(value) {
        anyhow::bail!(
            "{flag} '{value}': expected HOST:PORT ({why}), e.g. 127.0.0.1:8080, or \
             0.0.0.0:8080 for every interface"
        );
    }
    let addrs: Vec<SocketAddr> = value
        .to_socket_addrs()
        .with_context(|| format!("{flag} '{value}': cannot resolve the host"))?
        .collect();
    let mut listeners = Vec::new();
    let mut last_error = None;
    for addr in &addrs {
        match listener(*addr) {
            Ok(l) => listeners.push(l),
            Err(e) => last_error = Some(e),
        }
    }
    match last_error {
        Some(e) if listeners.is_empty() => {
            Err(e).with_context(|| format!("cannot listen on {value} ({flag})"))
        }
        _ if listeners.is_empty() => {
            anyhow::bail!("{flag} '{value}': the host resolves to no address")
        }
        _ => Ok(listeners),
    }
}

fn listener(addr: SocketAddr) -> std::io::Result<TcpListener> {
    use socket2::{Domain, Protocol, Socket, Type};
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    socket.set_reuse_address(true)?;
    socket.bind(&addr.into())?;
    socket.listen(BACKLOG)?;
    Ok(TcpListener::from(socket))
}

#[cfg(test)]
mod tests {
    use super::form_error;

    #[test]
    fn listen_addresses_are_host_and_port() {
        for ok in [
            "127.0.0.1:8080",
            "0.0.0.0:0",
            "localhost:8080",
            "[::1]:8080",
            "equip.internal:65535",
        ] {
            assert_eq!(form_error(ok), None, "{ok}");
        }
        assert_eq!(form_error("8080"), Some("a port without its host"));
        assert_eq!(form_error("localhost"), Some("no port"));
        assert_eq!(form_error(":8080"), Some("no host"));
        assert!(form_error("localhost:http").is_some());
        assert!(form_error("127.0.0.1:65536").is_some());
        assert!(form_error("127.0.0.1:").is_some());
        assert!(form_error("::1:8080").is_some());
    }
}
