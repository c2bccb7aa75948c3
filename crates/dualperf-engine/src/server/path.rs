//! The path-probe responder of `dualperf serve` (`dualperf path`, issue
//! 27): a UDP socket on the control port number that answers every probe
//! datagram with a 24-byte acknowledgement (`dualperf_path::wire`), never
//! more bytes than it received and at most
//! `dualperf_path::responder::MAX_ACKS_PER_SECOND` per second, so it
//! cannot amplify or flood. It needs no session: a probe carries nothing
//! but its size. Where the UDP port cannot be bound the server runs
//! without it and says so in its log.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, UdpSocket};
use std::sync::Arc;
use std::thread::JoinHandle;

use socket2::{Domain, Protocol, Socket, Type};

use super::SharedState;

/// Binds the responder's UDP socket: on `bind` if given, else dual-stack
/// on `[::]` (falling back to `0.0.0.0` on a host without IPv6).
pub(crate) fn bind(bind: Option<IpAddr>, port: u16) -> std::io::Result<UdpSocket> {
    let open = |ip: IpAddr, dual: Option<bool>| -> std::io::Result<UdpSocket> {
        let address = SocketAddr::new(ip, port);
        let socket = Socket::new(
            Domain::for_address(address),
            Type::DGRAM,
            Some(Protocol::UDP),
        )?;
        if let Some(dual) = dual {
            socket.set_only_v6(!dual)?;
        }
        socket.bind(&address.into())?;
        Ok(socket.into())
    };
    match bind {
        Some(ip) => open(ip, ip.is_ipv6().then_some(ip.is_unspecified())),
        None => open(IpAddr::V6(Ipv6Addr::UNSPECIFIED), Some(true))
            .or_else(|_| open(IpAddr::V4(Ipv4Addr::UNSPECIFIED), None)),
    }
}

/// Answers probes on a thread of its own until the server stops.
pub(crate) fn spawn(socket: UdpSocket, state: Arc<SharedState>) -> Option<JoinHandle<()>> {
    std::thread::Builder::new()
        .name("dualperf-path".into())
        .spawn(move || dualperf_path::responder::serve(&socket, &state.stop))
        .ok()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::limits::ServerLimits;
    use crate::server::{Server, ServerConfig};

    #[test]
    fn a_running_server_answers_path_probes_on_its_port_over_both_families() {
        let server = Server::bind(ServerConfig {
            bind: None,
            port: 0,
            limits: ServerLimits::default(),
            auth_key: None,
            host_facts: false,
            log: None,
        })
        .unwrap();
        let handle = server.spawn();
        for target in ["127.0.0.1", "[::1]"] {
            let local = if target.starts_with('[') {
                "[::1]:0"
            } else {
                "127.0.0.1:0"
            };
            let client = std::net::UdpSocket::bind(local).unwrap();
            client
                .set_read_timeout(Some(Duration::from_secs(2)))
                .unwrap();
            let address = format!("{target}:{}", handle.port());
            client
                .send_to(&dualperf_path::wire::probe(9, 3, 1200), &address)
                .unwrap();
            let mut buffer = [0u8; 64];
            let n = client.recv(&mut buffer).unwrap();
            let ack = dualperf_path::wire::Header::decode(&buffer[..n]).unwrap();
            assert_eq!((ack.seq, ack.length), (3, 1200), "{target}");
            assert!(n <= 1200, "never more bytes than the probe");
        }
    }
}
