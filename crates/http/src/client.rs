//! Whether a request's client is still connected.
//!
//! actix-web does not reliably drop a request's handling when its client
//! disconnects, and a store call already handed to a blocking thread runs
//! regardless. So equip looks at the connection itself: when actix accepts a
//! connection, [`on_connect`] keeps a duplicate of its socket descriptor in
//! the connection's data; [`Client::connected`] peeks at it without
//! blocking or consuming anything. A reset, or the end of the client's
//! stream (the client closed its side, as a client that gave up does), means
//! gone. A client that half-closes its side after sending a request and
//! still waits for the answer is rare and would be taken for gone (as nginx
//! does, which logs such requests as 499).
//!
//! A connection without that data (actix's in-process test service) is
//! always taken as connected.

use std::any::Any;
use std::mem::MaybeUninit;
use std::sync::Arc;

use actix_web::dev::Extensions;
use actix_web::HttpRequest;
use socket2::{SockRef, Socket};

/// The socket of a connection, in its connection data.
#[derive(Clone)]
struct ClientSocket(Arc<Socket>);

/// For `HttpServer::on_connect`: keeps a duplicate of a TCP connection's
/// socket for [`Client::connected`]. A connection whose socket cannot be
/// duplicated is served as usual, without the check.
pub fn on_connect(connection: &dyn Any, data: &mut Extensions) {
    let Some(stream) = connection.downcast_ref::<actix_web::rt::net::TcpStream>() else {
        return;
    };
    match SockRef::from(stream).try_clone() {
        Ok(socket) => {
            data.insert(ClientSocket(Arc::new(socket)));
        }
        Err(e) => tracing::debug!("cannot duplicate a client socket: {e}"),
    }
}

/// The client of one request.
#[derive(Clone)]
pub(crate) struct Client {
    socket: Arc<Socket>,
}

impl Client {
    /// The client of `req`, if its connection's socket was kept.
    pub(crate) fn of(req: &HttpRequest) -> Option<Self> {
        req.conn_data::<ClientSocket>().map(|s| Self {
            socket: Arc::clone(&s.0),
        })
    }

    /// False once the client has reset the connection or closed its side.
    pub(crate) fn connected(&self) -> bool {
        let mut byte = [MaybeUninit::<u8>::uninit(); 1];
        // Without blocking: the socket is in non-blocking mode, as every
        // socket of actix's runtime is, and the duplicate shares that mode.
        match self.socket.peek(&mut byte) {
            // The end of the client's stream: it closed its side.
            Ok(0) => false,
            // Bytes waiting (the next request on a kept-alive connection).
            Ok(_) => true,
            Err(e) => matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::io::Write;
    use std::net::{Shutdown, TcpListener, TcpStream};

    use super::*;

    fn pair() -> (TcpStream, Client) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        server.set_nonblocking(true).unwrap();
        let socket = SockRef::from(&server).try_clone().unwrap();
        drop(server);
        (
            client,
            Client {
                socket: Arc::new(socket),
            },
        )
    }

    #[test]
    fn a_connected_client_is_connected_with_or_without_bytes_waiting() {
        let (mut client, seen) = pair();
        assert!(seen.connected());
        client.write_all(b"GET / HTTP/1.1\r\n").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(seen.connected());
    }

    #[test]
    fn a_client_that_closed_or_reset_is_gone() {
        let (client, seen) = pair();
        client.shutdown(Shutdown::Write).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(!seen.connected());
        let (client, seen) = pair();
        drop(client);
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(!seen.connected());
    }
}
