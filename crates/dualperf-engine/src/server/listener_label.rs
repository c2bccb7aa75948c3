//! How the server's TCP data listener gets an arm's IPv6 flow label
//! (RFC 6437, `-L`) onto the connections it accepts, so the server's
//! packets carry the label as the client's do (issue 24, item 4).
//!
//! Linux gives an accepted connection a label only from its listener
//! (kernel net/ipv6/tcp_ipv6.c, `tcp_v6_syn_recv_sock`, which copies the
//! listener's IPv6 state into the new socket):
//!
//! 1. **Reflection** (`IPV6_FL_F_REFLECT`, Linux 4.8+): every accepted
//!    connection sends the label of the client's SYN, which the client set
//!    to the arm's. The namespace must allow it
//!    (`net.ipv6.flowlabel_consistency=0`, else `EPERM`); the lab's hosts
//!    do, in their own namespaces.
//! 2. **Inheritance**: `tcp_v6_connect` stores `sin6_flowinfo`'s label in
//!    the socket before it rejects a v4-mapped destination on an
//!    `IPV6_V6ONLY` socket (`ENETUNREACH`: nothing sent, nothing bound);
//!    a listener made so holds the label, and every connection it accepts
//!    copies it. Works without any sysctl; the listener's SYN-ACKs keep
//!    the kernel's automatic label (built from the request, not the socket).
//!
//! Whichever worked, each accepted socket leases the label too, so that
//! reading its marking back (`IPV6_FLOWLABEL_MGR`) says what it sends; when
//! neither worked, the server reports the kernel's automatic label and a
//! note says why — never the asked label.

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV6};
use std::os::fd::AsRawFd;

use socket2::Socket;

use crate::socket_options::{flow_label, lease_flow_label, reflect_flow_label, with_flow_label};

/// How the listener's accepted connections get the label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListenerLabel {
    /// Reflected from the client's SYN.
    Reflected,
    /// Inherited from the listener.
    Inherited,
}

/// Makes `socket` (bound, not yet listening) pass `label` on to the
/// connections it will accept: reflection, else inheritance. The error
/// says why neither worked.
///
/// # Errors
/// A sentence naming both failures.
pub fn label_listener(socket: &Socket, peer: IpAddr, label: u32) -> Result<ListenerLabel, String> {
    let reflected = match reflect_flow_label(socket.as_raw_fd()) {
        Ok(()) => return Ok(ListenerLabel::Reflected),
        Err(error) => error,
    };
    let peer = match peer {
        IpAddr::V6(v6) => v6,
        IpAddr::V4(v4) => v4.to_ipv6_mapped(),
    };
    match inherit_flow_label(socket, peer, label) {
        Ok(()) => Ok(ListenerLabel::Inherited),
        Err(inherited) => Err(format!(
            "IPV6_FL_F_REFLECT failed: {reflected} (sysctl net.ipv6.flowlabel_consistency=0 in \
             the server's namespace allows it); inheriting the listener's label failed: {inherited}"
        )),
    }
}

/// Gives `socket` (`IPV6_V6ONLY`, set before it was bound; not yet
/// listening) the flow label `label`, which the connections it accepts
/// copy: leases the label for `peer` (as `connect` requires), connects to
/// a v4-mapped address with
/// the label in `sin6_flowinfo` (Linux stores the label, then fails with
/// `ENETUNREACH`), and reads the label back, so a kernel that behaves
/// otherwise is an error, not a claim.
///
/// # Errors
/// The OS error of a step, or `Unsupported` when the label did not stick.
pub fn inherit_flow_label(socket: &Socket, peer: Ipv6Addr, label: u32) -> io::Result<()> {
    let fd = socket.as_raw_fd();
    if !socket.only_v6()? {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the listener is not IPV6_V6ONLY (set it before bind)",
        ));
    }
    lease_flow_label(fd, peer, label)?;
    let mapped = SocketAddr::V6(SocketAddrV6::new(
        Ipv4Addr::LOCALHOST.to_ipv6_mapped(),
        9,
        0,
        0,
    ));
    match socket.connect(&with_flow_label(mapped, Some(label)).into()) {
        Err(error) if error.raw_os_error() == Some(libc::ENETUNREACH) => {}
        Err(error) => return Err(error),
        Ok(()) => {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "an IPV6_V6ONLY socket connected to a v4-mapped address",
            ))
        }
    }
    if flow_label(fd) == Some(label & 0xF_FFFF) {
        Ok(())
    } else {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "the socket does not hold the label after connect()",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use socket2::{Domain, Protocol, Type};
    use std::io::{Read, Write};
    use std::net::TcpStream;

    /// Needs IPv6 on loopback; whether reflection is allowed depends on
    /// the namespace, so both ways must end with a labelled connection.
    #[test]
    fn an_accepted_connection_sends_the_listeners_label() {
        let Ok(socket) = Socket::new(Domain::IPV6, Type::STREAM, Some(Protocol::TCP)) else {
            return;
        };
        let local = SocketAddr::from((Ipv6Addr::LOCALHOST, 0));
        socket.set_only_v6(true).unwrap();
        if socket.bind(&local.into()).is_err() {
            eprintln!("skipped: no IPv6 loopback");
            return;
        }
        let how = label_listener(&socket, IpAddr::V6(Ipv6Addr::LOCALHOST), 12345).unwrap();
        socket.listen(4).unwrap();
        let address = socket.local_addr().unwrap().as_socket().unwrap();
        let client = Socket::new(Domain::IPV6, Type::STREAM, Some(Protocol::TCP)).unwrap();
        lease_flow_label(client.as_raw_fd(), Ipv6Addr::LOCALHOST, 12345).unwrap();
        client
            .connect(&with_flow_label(address, Some(12345)).into())
            .unwrap();
        let mut client: TcpStream = client.into();
        let (accepted, _) = socket.accept().unwrap();
        lease_flow_label(accepted.as_raw_fd(), Ipv6Addr::LOCALHOST, 12345).unwrap();
        assert_eq!(flow_label(accepted.as_raw_fd()), Some(12345), "{how:?}");
        let mut accepted: TcpStream = accepted.into();
        accepted.write_all(b"x").unwrap();
        let mut byte = [0u8; 1];
        client.read_exact(&mut byte).unwrap();
    }
}
