//! Socket options the engine sets or reads on data sockets: buffer sizes,
//! kernel receive timestamps, path MTU, `IPV6_V6ONLY` and the DSCP.
//!
//! - **Buffers** (`socket(7)`): a UDP receiver whose buffer overflows invents
//!   loss (iperf3 loses about 1 % at 64 B on veth for exactly this reason), so
//!   the engine sizes buffers explicitly and reports what the kernel granted.
//!   `SO_SNDBUF`/`SO_RCVBUF` are capped by `net.core.wmem_max`/`rmem_max`;
//!   the `…FORCE` variants ignore the cap but need `CAP_NET_ADMIN`. Linux
//!   doubles the requested value for its bookkeeping and reports the doubled
//!   figure.
//! - **Receive timestamps** (`SO_TIMESTAMPNS`, `socket(7)`; kernel
//!   Documentation/networking/timestamping.rst): the kernel stamps each
//!   datagram with `CLOCK_REALTIME` when it arrives and hands the stamp over
//!   as an `SCM_TIMESTAMPNS` control message with `recvmsg(2)`/`recvmmsg(2)`,
//!   which removes the receiver's scheduling delay from one-way delay.
//! - **Path MTU** (`IP_MTU` in `ip(7)`, `IPV6_MTU` in `ipv6(7)`): the MTU the
//!   kernel knows for a *connected* socket's route.
//! - **DSCP** (RFC 2474): the upper six bits of the IPv4 TOS byte
//!   (`IP_TOS`) or IPv6 Traffic Class (`IPV6_TCLASS`).
//! - **IPv6 flow label** (RFC 6437; `ipv6(7)` does not document it, the
//!   kernel's net/ipv6/ip6_flowlabel.c does): a socket leases a label with
//!   `IPV6_FLOWLABEL_MGR`, turns on `IPV6_FLOWINFO_SEND` and connects with
//!   the label in `sin6_flowinfo`. A TCP connection accepted by a listener
//!   gets a label only from its listener: reflected from the client's SYN
//!   (`IPV6_FL_F_REFLECT`, which the namespace may forbid), or inherited —
//!   `tcp_v6_syn_recv_sock` copies the listener's IPv6 state, its label
//!   included, into the new socket, and a listener holds a label after a
//!   `connect()` that stored it and then failed
//!   (`crate::server::listener_label`).
//!
//! Every function works without root; only the `…FORCE` buffer options do
//! more with it.

use std::io;
use std::mem::size_of;
use std::os::fd::RawFd;

use dualperf_model::IpFamily;

/// Sets an integer socket option.
pub(crate) fn set_int(
    fd: RawFd,
    level: libc::c_int,
    name: libc::c_int,
    value: libc::c_int,
) -> io::Result<()> {
    // SAFETY: a c_int lives for the call and its size is passed.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            (&value as *const libc::c_int).cast(),
            size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Reads an integer socket option.
fn get_int(fd: RawFd, level: libc::c_int, name: libc::c_int) -> io::Result<libc::c_int> {
    let mut value: libc::c_int = 0;
    let mut length = size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: `value` is writable and `length` holds its size.
    let rc = unsafe {
        libc::getsockopt(
            fd,
            level,
            name,
            (&mut value as *mut libc::c_int).cast(),
            &mut length,
        )
    };
    if rc == 0 {
        Ok(value)
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Sets one buffer: the `force` option first (needs `CAP_NET_ADMIN`), the
/// capped option when that is not permitted.
fn set_buffer(fd: RawFd, force: libc::c_int, capped: libc::c_int, bytes: u32) -> io::Result<()> {
    let value = libc::c_int::try_from(bytes).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("socket buffer of {bytes} bytes exceeds the kernel's maximum (2^31 − 1)"),
        )
    })?;
    match set_int(fd, libc::SOL_SOCKET, force, value) {
        Ok(()) => Ok(()),
        Err(error) if error.raw_os_error() == Some(libc::EPERM) => {
            set_int(fd, libc::SOL_SOCKET, capped, value)
        }
        Err(error) => Err(error),
    }
}

/// Requests send and receive buffer sizes, bytes (`None` leaves one as it
/// is), and returns `(send, receive)` as the kernel reports them afterwards
/// with `getsockopt(SO_SNDBUF/SO_RCVBUF)` — already doubled by Linux, and
/// capped by `net.core.wmem_max`/`rmem_max` when `SO_SNDBUFFORCE`/
/// `SO_RCVBUFFORCE` were not permitted (no `CAP_NET_ADMIN`). Report the
/// returned figures, not the requested ones.
///
/// Shell equivalent of the cap: `sysctl net.core.rmem_max`.
///
/// # Errors
/// `InvalidInput` for a size above `i32::MAX`; the OS error of
/// `setsockopt`/`getsockopt` otherwise (e.g. `EBADF`, `ENOTSOCK`).
pub fn set_buffer_sizes(
    fd: RawFd,
    send_bytes: Option<u32>,
    receive_bytes: Option<u32>,
) -> io::Result<(u32, u32)> {
    if let Some(bytes) = send_bytes {
        set_buffer(fd, libc::SO_SNDBUFFORCE, libc::SO_SNDBUF, bytes)?;
    }
    if let Some(bytes) = receive_bytes {
        set_buffer(fd, libc::SO_RCVBUFFORCE, libc::SO_RCVBUF, bytes)?;
    }
    buffer_sizes(fd)
}

/// The `(send, receive)` buffer sizes in force, bytes, as
/// `getsockopt(SO_SNDBUF/SO_RCVBUF)` reports them.
///
/// # Errors
/// The OS error of `getsockopt`.
pub fn buffer_sizes(fd: RawFd) -> io::Result<(u32, u32)> {
    let send = get_int(fd, libc::SOL_SOCKET, libc::SO_SNDBUF)?;
    let receive = get_int(fd, libc::SOL_SOCKET, libc::SO_RCVBUF)?;
    Ok((send.max(0) as u32, receive.max(0) as u32))
}

/// Asks the kernel to stamp every received datagram with its arrival time
/// (`SO_TIMESTAMPNS`, nanoseconds of `CLOCK_REALTIME`), delivered as an
/// `SCM_TIMESTAMPNS` control message; read it with [`receive_timestamp_ns`].
/// Give `recvmsg`/`recvmmsg` a control buffer of at least
/// [`TIMESTAMP_CONTROL_BYTES`].
///
/// # Errors
/// The OS error of `setsockopt`.
pub fn enable_receive_timestamps(fd: RawFd) -> io::Result<()> {
    set_int(fd, libc::SOL_SOCKET, libc::SO_TIMESTAMPNS, 1)
}

/// `CMSG_ALIGN`: control message parts are aligned to `size_t`.
const fn cmsg_align(length: usize) -> usize {
    (length + size_of::<usize>() - 1) & !(size_of::<usize>() - 1)
}

/// Bytes of control buffer one timestamp needs (`CMSG_SPACE(sizeof(struct
/// timespec))`, 32 on 64-bit Linux). Twice this leaves room for a second
/// control message the caller did not ask for.
pub const TIMESTAMP_CONTROL_BYTES: usize =
    cmsg_align(size_of::<libc::cmsghdr>()) + cmsg_align(size_of::<libc::timespec>());

/// `SCM_TIMESTAMPNS_NEW` (`SO_TIMESTAMPNS_NEW`, Linux 5.1+): the y2038-safe
/// variant with a 64-bit `__kernel_timespec`, which glibc may request on
/// 32-bit targets. On 64-bit targets both layouts are two 64-bit integers.
const SCM_TIMESTAMPNS_NEW: libc::c_int = 64;

/// Extracts the kernel receive timestamp (nanoseconds since the Unix epoch,
/// `CLOCK_REALTIME`) from the control messages of a `msghdr` that
/// `recvmsg(2)`/`recvmmsg(2)` filled in, or `None` if there is none (the
/// option is off, or the control buffer was too small: `MSG_CTRUNC`).
///
/// The msghdr's `msg_control` must point to at least `msg_controllen`
/// readable bytes (or be null), as it does for any msghdr passed to
/// `recvmsg`; the function reads nothing else.
pub fn receive_timestamp_ns(msg: &libc::msghdr) -> Option<i64> {
    if msg.msg_control.is_null() || msg.msg_controllen == 0 {
        return None;
    }
    // msg_controllen is size_t on glibc but socklen_t on musl.
    #[allow(clippy::unnecessary_cast)]
    let length = msg.msg_controllen as usize;
    // SAFETY: per the documented contract, msg_control points to
    // msg_controllen readable bytes, the buffer handed to recvmsg.
    let control = unsafe { std::slice::from_raw_parts(msg.msg_control as *const u8, length) };
    receive_timestamp_from_control(control)
}

/// As [`receive_timestamp_ns`], from the control bytes themselves (the first
/// `msg_controllen` bytes of the buffer). Walks the `cmsghdr` chain like
/// `CMSG_FIRSTHDR`/`CMSG_NXTHDR` (`cmsg(3)`).
pub fn receive_timestamp_from_control(control: &[u8]) -> Option<i64> {
    let header_bytes = size_of::<libc::cmsghdr>();
    let data_offset = cmsg_align(header_bytes);
    let mut offset = 0usize;
    while offset + header_bytes <= control.len() {
        // SAFETY: header_bytes bytes are in bounds; read_unaligned copes with
        // any alignment of the caller's buffer.
        let header: libc::cmsghdr =
            unsafe { std::ptr::read_unaligned(control[offset..].as_ptr().cast()) };
        let length = header.cmsg_len as usize;
        if length < header_bytes || offset + length > control.len() {
            return None; // Truncated or corrupt chain.
        }
        let is_timestamp = header.cmsg_level == libc::SOL_SOCKET
            && (header.cmsg_type == libc::SCM_TIMESTAMPNS
                || header.cmsg_type == SCM_TIMESTAMPNS_NEW);
        if is_timestamp && length >= data_offset + 16 {
            let data = &control[offset + data_offset..offset + data_offset + 16];
            let seconds = i64::from_ne_bytes(data[..8].try_into().expect("8 bytes"));
            let nanoseconds = i64::from_ne_bytes(data[8..].try_into().expect("8 bytes"));
            return seconds
                .checked_mul(1_000_000_000)
                .and_then(|ns| ns.checked_add(nanoseconds));
        }
        offset += cmsg_align(length);
    }
    None
}

/// The path MTU of a connected socket's route, bytes (`IP_MTU`, `ip(7)`; or
/// `IPV6_MTU`, `ipv6(7)`), or `None` when the socket is not connected or
/// the kernel cannot tell. IPv4 route MTUs are capped at 65535
/// (`IP_MAX_MTU`), so loopback's 65536 reads as 65535 over IPv4.
pub fn path_mtu(fd: RawFd, family: IpFamily) -> Option<u32> {
    let (level, name) = match family {
        IpFamily::V4 => (libc::IPPROTO_IP, libc::IP_MTU),
        IpFamily::V6 => (libc::IPPROTO_IPV6, libc::IPV6_MTU),
    };
    get_int(fd, level, name)
        .ok()
        .and_then(|mtu| u32::try_from(mtu).ok())
}

/// Restricts an IPv6 socket to IPv6 (`true`), or lets it also serve IPv4
/// peers as IPv4-mapped addresses (`false`) (`IPV6_V6ONLY`, `ipv6(7)`,
/// RFC 3493 §5.3). Set it before `bind`.
///
/// # Errors
/// The OS error of `setsockopt` (`ENOPROTOOPT` on an IPv4 socket, `EINVAL`
/// once bound).
pub fn set_v6_only(fd: RawFd, v6_only: bool) -> io::Result<()> {
    set_int(
        fd,
        libc::IPPROTO_IPV6,
        libc::IPV6_V6ONLY,
        libc::c_int::from(v6_only),
    )
}

/// Marks outgoing packets with a DiffServ code point (RFC 2474), 0..=63: the
/// upper six bits of the IPv4 TOS byte (`IP_TOS`) or of the IPv6 Traffic
/// Class (`IPV6_TCLASS`); the two ECN bits are left 0. EF (RFC 3246) is 46.
///
/// # Errors
/// `InvalidInput` for a DSCP above 63; the OS error of `setsockopt`.
pub fn set_dscp(fd: RawFd, family: IpFamily, dscp: u8) -> io::Result<()> {
    if dscp > 63 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("DSCP {dscp} is out of range 0..=63"),
        ));
    }
    let value = libc::c_int::from(dscp) << 2;
    match family {
        IpFamily::V4 => set_int(fd, libc::IPPROTO_IP, libc::IP_TOS, value),
        IpFamily::V6 => set_int(fd, libc::IPPROTO_IPV6, libc::IPV6_TCLASS, value),
    }
}

/// The DSCP currently set for outgoing packets (see [`set_dscp`]).
///
/// # Errors
/// The OS error of `getsockopt`.
pub fn dscp(fd: RawFd, family: IpFamily) -> io::Result<u8> {
    let value = match family {
        IpFamily::V4 => get_int(fd, libc::IPPROTO_IP, libc::IP_TOS)?,
        IpFamily::V6 => get_int(fd, libc::IPPROTO_IPV6, libc::IPV6_TCLASS)?,
    };
    Ok(((value >> 2) & 0x3f) as u8)
}

/// `struct in6_flowlabel_req` of `<linux/in6.h>` (32 bytes), the argument
/// of `IPV6_FLOWLABEL_MGR`.
#[repr(C)]
#[derive(Clone, Copy)]
struct FlowLabelRequest {
    /// `flr_dst`: the destination the label is meant for.
    dst: [u8; 16],
    /// `flr_label`, network byte order.
    label: u32,
    /// `flr_action`: `IPV6_FL_A_GET` = 0.
    action: u8,
    /// `flr_share`: `IPV6_FL_S_ANY` = 255 lets every socket of the
    /// namespace that asks for the same label use it (parallel streams,
    /// both ends on one host).
    share: u8,
    /// `flr_flags`: `IPV6_FL_F_CREATE` = 1, `IPV6_FL_F_REFLECT` = 4.
    flags: u16,
    /// `flr_expires`, seconds.
    expires: u16,
    /// `flr_linger`, seconds.
    linger: u16,
    pad: u32,
}

const IPV6_FL_A_GET: u8 = 0;
const IPV6_FL_S_ANY: u8 = 255;
const IPV6_FL_F_CREATE: u16 = 1;
const IPV6_FL_F_REFLECT: u16 = 4;

fn flow_label_request(fd: RawFd, request: &FlowLabelRequest) -> io::Result<()> {
    // SAFETY: the request lives for the call and its size is passed.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            libc::IPPROTO_IPV6,
            libc::IPV6_FLOWLABEL_MGR,
            (request as *const FlowLabelRequest).cast(),
            size_of::<FlowLabelRequest>() as libc::socklen_t,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Prepares an IPv6 socket to send flow label `label` (RFC 6437) towards
/// `peer`: leases the label from the namespace's flow label table
/// (`IPV6_FLOWLABEL_MGR`, `IPV6_FL_A_GET` with `IPV6_FL_F_CREATE`, shared
/// with any socket) and turns on `IPV6_FLOWINFO_SEND`. The label takes
/// effect when the socket is connected with it in `sin6_flowinfo`: use
/// [`with_flow_label`] on the peer's address. Linux refuses a label the
/// socket has not leased (`connect` fails with `EINVAL`) once any socket of
/// the namespace holds an exclusive label.
///
/// # Errors
/// The OS error of `setsockopt` (`EPERM` when another process holds the
/// label exclusively, `ENOPROTOOPT` on an IPv4 socket).
pub fn lease_flow_label(fd: RawFd, peer: std::net::Ipv6Addr, label: u32) -> io::Result<()> {
    let request = FlowLabelRequest {
        dst: peer.octets(),
        label: (label & 0xF_FFFF).to_be(),
        action: IPV6_FL_A_GET,
        share: IPV6_FL_S_ANY,
        flags: IPV6_FL_F_CREATE,
        expires: 0,
        linger: 0,
        pad: 0,
    };
    flow_label_request(fd, &request)?;
    set_int(fd, libc::IPPROTO_IPV6, libc::IPV6_FLOWINFO_SEND, 1)
}

/// `address` with `label` in its flow information (`sin6_flowinfo`, which
/// the kernel reads in network byte order; Rust and socket2 copy the field
/// as it is), for `connect` after [`lease_flow_label`]. IPv4 addresses are
/// returned unchanged.
pub fn with_flow_label(address: std::net::SocketAddr, label: Option<u32>) -> std::net::SocketAddr {
    match (address, label) {
        (std::net::SocketAddr::V6(v6), Some(label)) => {
            std::net::SocketAddr::V6(std::net::SocketAddrV6::new(
                *v6.ip(),
                v6.port(),
                (label & 0xF_FFFF).to_be(),
                v6.scope_id(),
            ))
        }
        (other, _) => other,
    }
}

/// Makes a TCP listener's accepted connections send the flow label of the
/// client's SYN (`IPV6_FL_F_REFLECT`, Linux 4.8+): an accepted socket cannot
/// be given a label of its own, because Linux takes a connection's label
/// only from `connect()`'s `sin6_flowinfo` or by reflection. Linux allows it
/// only when `net.ipv6.flowlabel_consistency` is 0 in the namespace (else
/// `EPERM`); the alternative is `net.ipv6.flowlabel_reflect=1`, which
/// reflects for every TCP socket of the namespace.
///
/// # Errors
/// The OS error of `setsockopt`.
pub fn reflect_flow_label(fd: RawFd) -> io::Result<()> {
    let request = FlowLabelRequest {
        dst: [0; 16],
        label: 0,
        action: IPV6_FL_A_GET,
        share: 0,
        flags: IPV6_FL_F_REFLECT,
        expires: 0,
        linger: 0,
        pad: 0,
    };
    flow_label_request(fd, &request)
}

/// The flow label an IPv6 socket sends (`getsockopt(IPV6_FLOWLABEL_MGR)`),
/// or `None` when it sends the kernel's automatic label (no leased label in
/// force, `ENOENT`) or is not an IPv6 socket.
pub fn flow_label(fd: RawFd) -> Option<u32> {
    let mut request = FlowLabelRequest {
        dst: [0; 16],
        label: 0,
        action: IPV6_FL_A_GET,
        share: 0,
        flags: 0,
        expires: 0,
        linger: 0,
        pad: 0,
    };
    let mut length = size_of::<FlowLabelRequest>() as libc::socklen_t;
    // SAFETY: the request is writable and `length` holds its size.
    let rc = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_IPV6,
            libc::IPV6_FLOWLABEL_MGR,
            (&mut request as *mut FlowLabelRequest).cast(),
            &mut length,
        )
    };
    let label = u32::from_be(request.label) & 0xF_FFFF;
    (rc == 0 && label != 0).then_some(label)
}

/// Applies `marking` to a data socket of `family` before it connects (or,
/// for a listener, before it accepts): the DSCP, and for IPv6 the flow
/// label leased for `peer` (connect with [`with_flow_label`] afterwards).
/// The caller decides what a failure means.
///
/// # Errors
/// The OS error of the first option that failed.
pub fn apply_marking(
    fd: RawFd,
    family: IpFamily,
    marking: &dualperf_model::Marking,
    peer: Option<std::net::IpAddr>,
) -> io::Result<()> {
    if let Some(dscp) = marking.dscp {
        set_dscp(fd, family, dscp.value())?;
    }
    if let (IpFamily::V6, Some(label)) = (family, marking.flow_label) {
        let peer = match peer {
            Some(std::net::IpAddr::V6(v6)) => v6,
            _ => std::net::Ipv6Addr::UNSPECIFIED,
        };
        lease_flow_label(fd, peer, label.value())?;
    }
    Ok(())
}

/// What a data socket's marking reads back as: `(dscp, flow label)`.
pub fn read_marking(fd: RawFd, family: IpFamily) -> (Option<u8>, Option<u32>) {
    let dscp = dscp(fd, family).ok();
    let label = match family {
        IpFamily::V6 => flow_label(fd),
        IpFamily::V4 => None,
    };
    (dscp, label)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{Ipv6Addr, UdpSocket};
    use std::os::fd::AsRawFd;

    fn realtime_ns() -> i64 {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap();
        now.as_nanos() as i64
    }

    /// IPv6 loopback may be disabled in some containers; say so and skip.
    fn ipv6_socket() -> Option<UdpSocket> {
        match UdpSocket::bind((Ipv6Addr::LOCALHOST, 0)) {
            Ok(socket) => Some(socket),
            Err(error) => {
                eprintln!("skipped: no IPv6 loopback here ({error})");
                None
            }
        }
    }

    #[test]
    fn larger_buffers_are_granted_and_reported_doubled() {
        let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
        let fd = socket.as_raw_fd();
        let (send_before, receive_before) = buffer_sizes(fd).unwrap();
        let requested = 4 << 20;
        let (send, receive) = set_buffer_sizes(fd, Some(requested), Some(requested)).unwrap();
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        if root {
            // SO_*BUFFORCE works: Linux grants the request and doubles it.
            assert_eq!((send, receive), (2 * requested, 2 * requested));
        } else {
            // Capped by wmem_max/rmem_max, but never smaller than before
            // unless the defaults were already above the cap.
            assert!(send > 0 && receive > 0);
            eprintln!("not root: capped to {send}/{receive} (was {send_before}/{receive_before})");
        }
    }

    #[test]
    fn none_leaves_a_buffer_alone() {
        let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
        let fd = socket.as_raw_fd();
        let (send_before, _) = buffer_sizes(fd).unwrap();
        let (send, receive) = set_buffer_sizes(fd, None, Some(1 << 20)).unwrap();
        assert_eq!(send, send_before);
        assert!(receive > 0);
    }

    #[test]
    fn buffer_size_beyond_i32_is_an_input_error() {
        let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
        let error = set_buffer_sizes(socket.as_raw_fd(), Some(u32::MAX), None).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn buffers_of_a_closed_descriptor_fail() {
        assert!(set_buffer_sizes(-1, Some(65536), None).is_err());
    }

    #[test]
    fn kernel_timestamps_a_loopback_datagram_received_with_recvmsg() {
        let receiver = UdpSocket::bind("127.0.0.1:0").unwrap();
        enable_receive_timestamps(receiver.as_raw_fd()).unwrap();
        let sender = UdpSocket::bind("127.0.0.1:0").unwrap();
        let before = realtime_ns();
        sender
            .send_to(b"probe", receiver.local_addr().unwrap())
            .unwrap();

        let mut payload = [0u8; 64];
        let mut control = [0u8; 2 * TIMESTAMP_CONTROL_BYTES];
        let mut iov = libc::iovec {
            iov_base: payload.as_mut_ptr().cast(),
            iov_len: payload.len(),
        };
        // SAFETY: an all-zero msghdr is valid (no name, no buffers).
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = control.len() as _;
        // SAFETY: msg points to live buffers of the stated sizes.
        let received = unsafe { libc::recvmsg(receiver.as_raw_fd(), &mut msg, 0) };
        let after = realtime_ns();
        assert_eq!(received, 5, "{}", io::Error::last_os_error());
        assert_eq!(&payload[..5], b"probe");

        let stamp = receive_timestamp_ns(&msg).expect("SCM_TIMESTAMPNS present");
        assert!(
            before <= stamp && stamp <= after,
            "{before} <= {stamp} <= {after}"
        );
    }

    #[test]
    fn no_timestamp_without_the_option() {
        let receiver = UdpSocket::bind("127.0.0.1:0").unwrap();
        let sender = UdpSocket::bind("127.0.0.1:0").unwrap();
        sender
            .send_to(b"x", receiver.local_addr().unwrap())
            .unwrap();
        let mut payload = [0u8; 8];
        let mut control = [0u8; 64];
        let mut iov = libc::iovec {
            iov_base: payload.as_mut_ptr().cast(),
            iov_len: payload.len(),
        };
        // SAFETY: as above.
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = control.len() as _;
        // SAFETY: as above.
        let received = unsafe { libc::recvmsg(receiver.as_raw_fd(), &mut msg, 0) };
        assert_eq!(received, 1);
        assert_eq!(receive_timestamp_ns(&msg), None);
    }

    #[test]
    fn truncated_or_garbage_control_bytes_yield_none() {
        assert_eq!(receive_timestamp_from_control(&[]), None);
        assert_eq!(receive_timestamp_from_control(&[0xff; 7]), None);
        assert_eq!(receive_timestamp_from_control(&[0xff; 64]), None);
        // SAFETY: an all-zero msghdr has a null control pointer.
        let empty: libc::msghdr = unsafe { std::mem::zeroed() };
        assert_eq!(receive_timestamp_ns(&empty), None);
    }

    #[test]
    fn hand_built_control_message_decodes() {
        let mut control = vec![0u8; TIMESTAMP_CONTROL_BYTES];
        let header_bytes = size_of::<libc::cmsghdr>();
        // SAFETY: an all-zero cmsghdr is valid.
        let mut header: libc::cmsghdr = unsafe { std::mem::zeroed() };
        header.cmsg_len = (cmsg_align(header_bytes) + 16) as _;
        header.cmsg_level = libc::SOL_SOCKET;
        header.cmsg_type = libc::SCM_TIMESTAMPNS;
        // SAFETY: the buffer has room for the header; unaligned write is fine.
        unsafe { std::ptr::write_unaligned(control.as_mut_ptr().cast(), header) };
        let data = cmsg_align(header_bytes);
        control[data..data + 8].copy_from_slice(&12i64.to_ne_bytes());
        control[data + 8..data + 16].copy_from_slice(&345i64.to_ne_bytes());
        assert_eq!(
            receive_timestamp_from_control(&control),
            Some(12_000_000_345)
        );
    }

    #[test]
    fn loopback_path_mtu_is_the_loopback_mtu() {
        let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
        assert_eq!(
            path_mtu(socket.as_raw_fd(), IpFamily::V4),
            None,
            "not connected"
        );
        let peer = UdpSocket::bind("127.0.0.1:0").unwrap();
        socket.connect(peer.local_addr().unwrap()).unwrap();
        let lo_mtu: u32 = std::fs::read_to_string("/sys/class/net/lo/mtu")
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // IPv4 route MTUs are capped at IP_MAX_MTU (65535) although lo has 65536.
        assert_eq!(
            path_mtu(socket.as_raw_fd(), IpFamily::V4),
            Some(lo_mtu.min(65535))
        );

        if let (Some(a), Some(b)) = (ipv6_socket(), ipv6_socket()) {
            a.connect(b.local_addr().unwrap()).unwrap();
            let v6 = path_mtu(a.as_raw_fd(), IpFamily::V6).expect("connected");
            assert!(v6 == lo_mtu || v6 == lo_mtu.min(65535), "{v6}");
        }
    }

    #[test]
    fn v6_only_can_be_switched_before_bind() {
        // SAFETY: plain socket(2) call; the fd is closed below.
        let fd = unsafe { libc::socket(libc::AF_INET6, libc::SOCK_DGRAM, 0) };
        if fd < 0 {
            eprintln!("skipped: no IPv6 sockets here");
            return;
        }
        set_v6_only(fd, true).unwrap();
        assert_eq!(
            get_int(fd, libc::IPPROTO_IPV6, libc::IPV6_V6ONLY).unwrap(),
            1
        );
        set_v6_only(fd, false).unwrap();
        assert_eq!(
            get_int(fd, libc::IPPROTO_IPV6, libc::IPV6_V6ONLY).unwrap(),
            0
        );
        // SAFETY: fd is ours and open.
        unsafe { libc::close(fd) };
    }

    #[test]
    fn v6_only_on_an_ipv4_socket_is_an_error() {
        let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
        assert!(set_v6_only(socket.as_raw_fd(), true).is_err());
    }

    #[test]
    fn dscp_round_trips_for_both_families() {
        let v4 = UdpSocket::bind("127.0.0.1:0").unwrap();
        set_dscp(v4.as_raw_fd(), IpFamily::V4, 46).unwrap();
        assert_eq!(dscp(v4.as_raw_fd(), IpFamily::V4).unwrap(), 46);
        assert_eq!(
            get_int(v4.as_raw_fd(), libc::IPPROTO_IP, libc::IP_TOS).unwrap(),
            0xb8
        );
        if let Some(v6) = ipv6_socket() {
            set_dscp(v6.as_raw_fd(), IpFamily::V6, 10).unwrap();
            assert_eq!(dscp(v6.as_raw_fd(), IpFamily::V6).unwrap(), 10);
        }
        let error = set_dscp(v4.as_raw_fd(), IpFamily::V4, 64).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn a_udp_socket_connected_with_a_leased_label_reads_it_back() {
        let (Some(a), Some(b)) = (ipv6_socket(), ipv6_socket()) else {
            return;
        };
        let marking = dualperf_model::Marking {
            dscp: Some(dualperf_model::Dscp::EF),
            flow_label: Some(dualperf_model::FlowLabel::new(12345).unwrap()),
        };
        let peer = b.local_addr().unwrap();
        apply_marking(a.as_raw_fd(), IpFamily::V6, &marking, Some(peer.ip())).unwrap();
        a.connect(with_flow_label(peer, Some(12345))).unwrap();
        assert_eq!(
            read_marking(a.as_raw_fd(), IpFamily::V6),
            (Some(46), Some(12345))
        );
        // A second socket of the namespace may use the same label.
        let c = ipv6_socket().unwrap();
        apply_marking(c.as_raw_fd(), IpFamily::V6, &marking, Some(peer.ip())).unwrap();
        c.connect(with_flow_label(peer, Some(12345))).unwrap();
        assert_eq!(flow_label(c.as_raw_fd()), Some(12345));
        // Linux checks leases only once some socket of the namespace holds
        // an exclusive label (fl6_sock_lookup), so an unleased label is not
        // refused here; leasing keeps the engine right either way.
        assert_eq!(flow_label(b.as_raw_fd()), None);
    }
}
