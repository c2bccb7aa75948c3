//! Loopback ports for the tests that start servers of their own
//! (`exporter`, `exporter_probe`, `exporter_probe_stamp`): a free port
//! (bound, then released for the server to take) and a wait until a
//! server accepts connections.

#![allow(dead_code)] // each test binary uses its own part of the common code

use std::net::{SocketAddr, TcpListener, UdpSocket};
use std::time::{Duration, Instant};

/// A free TCP port on 127.0.0.1 (closed again: the server binds it next).
pub fn free_tcp_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A free UDP port on both loopbacks (closed again).
pub fn free_udp_port() -> u16 {
    UdpSocket::bind("[::]:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits until `address` accepts TCP connections; fails the test, naming
/// `what`, after 10 s.
pub fn listening(address: SocketAddr, what: &str) {
    let started = Instant::now();
    while std::net::TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{what} did not listen"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
