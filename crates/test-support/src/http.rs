//! A raw HTTP/1.1 client for the Bench's web page tests and load generators: one request
//! per connection, read until the server closes it, so the server's own framing is tested.

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::time::Duration;

/// A connection to `addr` from the local address `from`: another client, to a server that
/// counts connections per client (any of 127.0.0.0/8 is the loopback on Linux).
pub fn connect_from(
    from: IpAddr,
    addr: SocketAddr,
    timeout: Duration,
) -> std::io::Result<TcpStream> {
    let socket = socket2::Socket::new(
        socket2::Domain::for_address(addr),
        socket2::Type::STREAM,
        Some(socket2::Protocol::TCP),
    )?;
    socket.bind(&SocketAddr::new(from, 0).into())?;
    socket.connect_timeout(&addr.into(), timeout)?;
    let s = TcpStream::from(socket);
    s.set_read_timeout(Some(timeout))?;
    s.set_write_timeout(Some(timeout))?;
    Ok(s)
}

/// Send `request` on a new connection and read until the server closes it (each step given
/// `timeout`): the whole response, or the error.
pub fn exchange(addr: SocketAddr, request: &[u8], timeout: Duration) -> std::io::Result<Vec<u8>> {
    let mut s = TcpStream::connect_timeout(&addr, timeout)?;
    s.set_read_timeout(Some(timeout))?;
    s.set_write_timeout(Some(timeout))?;
    s.write_all(request)?;
    let mut out = Vec::new();
    s.read_to_end(&mut out)?;
    Ok(out)
}

/// `METHOD target` with no body: the whole response as text.
pub fn request(
    addr: SocketAddr,
    method: &str,
    target: &str,
    timeout: Duration,
) -> std::io::Result<String> {
    let head = format!(
        "{method} {target} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    );
    let out = exchange(addr, head.as_bytes(), timeout)?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// The status code of a response (`""` if it has none).
pub fn status(response: &str) -> &str {
    response.split(' ').nth(1).unwrap_or("")
}
