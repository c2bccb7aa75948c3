//! The UDP socket calls STAMP needs beyond `std`: receiving a datagram
//! with its kernel receive time (`SO_TIMESTAMPNS`), the TOS / Traffic
//! Class it arrived with (`IP_RECVTOS`, `IPV6_RECVTCLASS`: DSCP and ECN for
//! the Class-of-Service TLV) and its TTL / Hop Limit (`IP_RECVTTL`,
//! `IPV6_RECVHOPLIMIT`: the Session-Sender TTL field), and marking the
//! next datagram's TOS / Traffic Class.

use std::io;
use std::mem::size_of;
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;

use dualperf_model::IpFamily;

use crate::clock::realtime_ns;
use crate::socket_options::{enable_receive_timestamps, receive_timestamp_from_control};

/// One datagram and what the kernel told about it.
#[derive(Clone, Copy, Debug)]
pub struct Received {
    /// Octets received (at most the buffer's length).
    pub bytes: usize,
    /// The sender.
    pub from: SocketAddr,
    /// Receive time, nanoseconds since the Unix epoch (CLOCK_REALTIME): the
    /// kernel's when it gave one, else read right after `recvmsg`.
    pub received_ns: i64,
    /// True when `received_ns` is the kernel's timestamp.
    pub kernel_timestamp: bool,
    /// The TOS octet / Traffic Class (DSCP << 2 | ECN), when the kernel gave it.
    pub tos: Option<u8>,
    /// TTL / Hop Limit, when the kernel gave it.
    pub ttl: Option<u8>,
}

fn set_int(fd: i32, level: i32, name: i32, value: i32) -> io::Result<()> {
    // SAFETY: a valid pointer to an int and its size.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            (&value as *const i32).cast(),
            size_of::<i32>() as libc::socklen_t,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Asks for receive timestamps, TOS / Traffic Class and TTL / Hop Limit
/// with every datagram on `socket` of `family`.
///
/// # Errors
/// The OS error of `setsockopt`.
pub fn enable_receive_facts(socket: &UdpSocket, family: IpFamily) -> io::Result<()> {
    let fd = socket.as_raw_fd();
    enable_receive_timestamps(fd)?;
    match family {
        IpFamily::V4 => {
            set_int(fd, libc::IPPROTO_IP, libc::IP_RECVTOS, 1)?;
            set_int(fd, libc::IPPROTO_IP, libc::IP_RECVTTL, 1)
        }
        IpFamily::V6 => {
            set_int(fd, libc::IPPROTO_IPV6, libc::IPV6_RECVTCLASS, 1)?;
            set_int(fd, libc::IPPROTO_IPV6, libc::IPV6_RECVHOPLIMIT, 1)
        }
    }
}

/// Sets the TOS octet / Traffic Class (DSCP << 2 | ECN) of the datagrams
/// `socket` sends from now on.
///
/// # Errors
/// The OS error of `setsockopt`.
pub fn set_tos(socket: &UdpSocket, family: IpFamily, tos: u8) -> io::Result<()> {
    let fd = socket.as_raw_fd();
    match family {
        IpFamily::V4 => set_int(fd, libc::IPPROTO_IP, libc::IP_TOS, i32::from(tos)),
        IpFamily::V6 => set_int(fd, libc::IPPROTO_IPV6, libc::IPV6_TCLASS, i32::from(tos)),
    }
}

fn socket_address(storage: &libc::sockaddr_storage) -> Option<SocketAddr> {
    match i32::from(storage.ss_family) {
        libc::AF_INET => {
            // SAFETY: the kernel wrote a sockaddr_in for AF_INET.
            let sin: libc::sockaddr_in =
                unsafe { std::ptr::read((storage as *const libc::sockaddr_storage).cast()) };
            let ip = std::net::Ipv4Addr::from(u32::from_be(sin.sin_addr.s_addr));
            Some(SocketAddr::new(ip.into(), u16::from_be(sin.sin_port)))
        }
        libc::AF_INET6 => {
            // SAFETY: the kernel wrote a sockaddr_in6 for AF_INET6.
            let sin6: libc::sockaddr_in6 =
                unsafe { std::ptr::read((storage as *const libc::sockaddr_storage).cast()) };
            let ip = std::net::Ipv6Addr::from(sin6.sin6_addr.s6_addr);
            Some(SocketAddr::V6(std::net::SocketAddrV6::new(
                ip,
                u16::from_be(sin6.sin6_port),
                sin6.sin6_flowinfo,
                sin6.sin6_scope_id,
            )))
        }
        _ => None,
    }
}

/// Reads the TOS / Traffic Class and TTL / Hop Limit control messages.
fn tos_and_ttl(control: &[u8]) -> (Option<u8>, Option<u8>) {
    let header_bytes = size_of::<libc::cmsghdr>();
    let align = |n: usize| (n + size_of::<usize>() - 1) & !(size_of::<usize>() - 1);
    let data_offset = align(header_bytes);
    let (mut tos, mut ttl) = (None, None);
    let mut at = 0;
    while at + header_bytes <= control.len() {
        // SAFETY: header_bytes bytes are in bounds; read_unaligned copes with alignment.
        let header: libc::cmsghdr =
            unsafe { std::ptr::read_unaligned(control[at..].as_ptr().cast()) };
        let length = header.cmsg_len as usize;
        if length < data_offset || at + length > control.len() {
            break;
        }
        let data = &control[at + data_offset..at + length];
        // IP_TOS carries one octet; the others an int.
        let first = data.first().copied();
        let int = (data.len() >= 4)
            .then(|| i32::from_ne_bytes([data[0], data[1], data[2], data[3]]) as u8);
        match (header.cmsg_level, header.cmsg_type) {
            (libc::IPPROTO_IP, libc::IP_TOS) => tos = first,
            (libc::IPPROTO_IP, libc::IP_TTL) => ttl = int,
            (libc::IPPROTO_IPV6, libc::IPV6_TCLASS) => tos = int,
            (libc::IPPROTO_IPV6, libc::IPV6_HOPLIMIT) => ttl = int,
            _ => {}
        }
        at += align(length);
    }
    (tos, ttl)
}

/// Receives one datagram into `buffer` (blocking, or until the socket's
/// read timeout: then `WouldBlock`/`TimedOut`).
///
/// # Errors
/// The OS error of `recvmsg`.
pub fn receive(socket: &UdpSocket, buffer: &mut [u8]) -> io::Result<Received> {
    let mut control = [0u64; 32]; // 256 octets, 8-aligned
                                  // SAFETY: zeroed sockaddr_storage is a valid value.
    let mut name: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let mut iov = libc::iovec {
        iov_base: buffer.as_mut_ptr().cast(),
        iov_len: buffer.len(),
    };
    // SAFETY: zeroed msghdr is a valid value; every pointer set below
    // outlives the call.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_name = (&mut name as *mut libc::sockaddr_storage).cast();
    msg.msg_namelen = size_of::<libc::sockaddr_storage>() as libc::socklen_t;
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = size_of::<[u64; 32]>() as _;
    // SAFETY: msg points to live buffers of the stated sizes.
    let rc = unsafe { libc::recvmsg(socket.as_raw_fd(), &mut msg, 0) };
    let now = realtime_ns();
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    #[allow(clippy::unnecessary_cast)]
    let control_bytes = (msg.msg_controllen as usize).min(size_of::<[u64; 32]>());
    // SAFETY: control is 256 initialised octets; control_bytes ≤ 256.
    let control =
        unsafe { std::slice::from_raw_parts(control.as_ptr().cast::<u8>(), control_bytes) };
    let kernel = receive_timestamp_from_control(control);
    let (tos, ttl) = tos_and_ttl(control);
    let from = socket_address(&name)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "no sender address"))?;
    Ok(Received {
        bytes: rc as usize,
        from,
        received_ns: kernel.unwrap_or(now),
        kernel_timestamp: kernel.is_some(),
        tos,
        ttl,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_datagrams_come_with_their_tos_ttl_and_kernel_time() {
        let receiver = UdpSocket::bind("127.0.0.1:0").unwrap();
        enable_receive_facts(&receiver, IpFamily::V4).unwrap();
        let sender = UdpSocket::bind("127.0.0.1:0").unwrap();
        set_tos(&sender, IpFamily::V4, 46 << 2 | 1).unwrap();
        sender
            .send_to(b"hello", receiver.local_addr().unwrap())
            .unwrap();
        let mut buffer = [0u8; 64];
        let got = receive(&receiver, &mut buffer).unwrap();
        assert_eq!(&buffer[..got.bytes], b"hello");
        assert_eq!(got.from, sender.local_addr().unwrap());
        assert_eq!(got.tos, Some(46 << 2 | 1));
        assert_eq!(got.ttl, Some(64));
        assert!(got.kernel_timestamp);
    }

    #[test]
    fn ipv6_loopback_gives_the_traffic_class_and_hop_limit() {
        let Ok(receiver) = UdpSocket::bind("[::1]:0") else {
            return; // no IPv6 loopback on this host
        };
        enable_receive_facts(&receiver, IpFamily::V6).unwrap();
        let sender = UdpSocket::bind("[::1]:0").unwrap();
        set_tos(&sender, IpFamily::V6, 10 << 2).unwrap();
        sender
            .send_to(b"x", receiver.local_addr().unwrap())
            .unwrap();
        let mut buffer = [0u8; 8];
        let got = receive(&receiver, &mut buffer).unwrap();
        assert_eq!(got.tos, Some(10 << 2));
        assert!(got.ttl.is_some());
    }
}
