//! The socket calls probing needs that `std` and `socket2` do not offer:
//! PMTU discovery modes, the error queue (`MSG_ERRQUEUE`), sticky IPv6
//! options, hop limits, and a poll on data and errors together.

use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::time::Instant;

use dualperf_model::IpFamily;

use crate::icmp::{self, IcmpReport};

/// `IPV6_HOPOPTS` (RFC 3542 sticky option).
const IPV6_HOPOPTS: libc::c_int = 54;
/// `IPV6_DSTOPTS` (RFC 3542 sticky option).
const IPV6_DSTOPTS: libc::c_int = 59;
/// `IPV6_DONTFRAG` (RFC 3542 §11.2).
const IPV6_DONTFRAG: libc::c_int = 62;

/// How the kernel treats a probe that is larger than a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fragmentation {
    /// Unfragmentable and the kernel's PMTU ignored (`IP_PMTUDISC_PROBE`,
    /// `IPV6_PMTUDISC_PROBE` + `IPV6_DONTFRAG`): the probe leaves at its size
    /// or not at all.
    Forbidden,
    /// Fragmentable (IPv4: DF clear, `IP_PMTUDISC_DONT`; IPv6: the source
    /// fragments into pieces of at most `fragment_bytes`, `IPV6_MTU`).
    Allowed {
        /// IPv6 fragment size limit, bytes; 0: the path MTU.
        fragment_bytes: u32,
    },
}

fn set_int(fd: RawFd, level: libc::c_int, name: libc::c_int, value: libc::c_int) -> io::Result<()> {
    // SAFETY: fd is an open socket; the option value is a c_int on the stack
    // whose size is passed.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            (&value as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Sets the fragmentation behaviour of the next sends.
pub(crate) fn set_fragmentation(
    socket: &impl AsRawFd,
    family: IpFamily,
    mode: Fragmentation,
) -> io::Result<()> {
    let fd = socket.as_raw_fd();
    match (family, mode) {
        (IpFamily::V4, Fragmentation::Forbidden) => set_int(
            fd,
            libc::IPPROTO_IP,
            libc::IP_MTU_DISCOVER,
            libc::IP_PMTUDISC_PROBE,
        ),
        (IpFamily::V4, Fragmentation::Allowed { .. }) => set_int(
            fd,
            libc::IPPROTO_IP,
            libc::IP_MTU_DISCOVER,
            libc::IP_PMTUDISC_DONT,
        ),
        (IpFamily::V6, Fragmentation::Forbidden) => {
            set_int(
                fd,
                libc::IPPROTO_IPV6,
                libc::IPV6_MTU_DISCOVER,
                libc::IPV6_PMTUDISC_PROBE,
            )?;
            set_int(fd, libc::IPPROTO_IPV6, IPV6_DONTFRAG, 1)?;
            set_int(fd, libc::IPPROTO_IPV6, libc::IPV6_MTU, 0)
        }
        (IpFamily::V6, Fragmentation::Allowed { fragment_bytes }) => {
            set_int(
                fd,
                libc::IPPROTO_IPV6,
                libc::IPV6_MTU_DISCOVER,
                libc::IPV6_PMTUDISC_DONT,
            )?;
            set_int(fd, libc::IPPROTO_IPV6, IPV6_DONTFRAG, 0)?;
            let limit = libc::c_int::try_from(fragment_bytes).unwrap_or(0);
            set_int(fd, libc::IPPROTO_IPV6, libc::IPV6_MTU, limit)
        }
    }
}

/// Turns on the error queue (`IP_RECVERR` / `IPV6_RECVERR`).
pub(crate) fn set_recverr(socket: &impl AsRawFd, family: IpFamily) -> io::Result<()> {
    match family {
        IpFamily::V4 => set_int(socket.as_raw_fd(), libc::IPPROTO_IP, libc::IP_RECVERR, 1),
        IpFamily::V6 => set_int(
            socket.as_raw_fd(),
            libc::IPPROTO_IPV6,
            libc::IPV6_RECVERR,
            1,
        ),
    }
}

/// Sets the hop limit (TTL) of the next sends; `None`: the system default.
pub(crate) fn set_hop_limit(
    socket: &impl AsRawFd,
    family: IpFamily,
    hops: Option<u8>,
) -> io::Result<()> {
    let value = hops.map_or(-1, libc::c_int::from);
    match family {
        IpFamily::V4 => set_int(socket.as_raw_fd(), libc::IPPROTO_IP, libc::IP_TTL, value),
        IpFamily::V6 => set_int(
            socket.as_raw_fd(),
            libc::IPPROTO_IPV6,
            libc::IPV6_UNICAST_HOPS,
            value,
        ),
    }
}

/// Sets (or with `None` removes) a sticky Hop-by-Hop or Destination
/// Options header (`IPV6_HOPOPTS`, `IPV6_DSTOPTS`; CAP_NET_RAW).
pub(crate) fn set_options_header(
    socket: &impl AsRawFd,
    hop_by_hop: bool,
    header: Option<&[u8]>,
) -> io::Result<()> {
    let name = if hop_by_hop {
        IPV6_HOPOPTS
    } else {
        IPV6_DSTOPTS
    };
    let (pointer, len) = match header {
        Some(bytes) => (bytes.as_ptr().cast(), bytes.len() as libc::socklen_t),
        None => (std::ptr::null(), 0),
    };
    // SAFETY: pointer/len describe a live slice (or are null/0, which
    // removes the option).
    let rc =
        unsafe { libc::setsockopt(socket.as_raw_fd(), libc::IPPROTO_IPV6, name, pointer, len) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Clears a pending socket error (`SO_ERROR`), which would otherwise fail
/// the next send with an ICMP error meant for an earlier probe.
pub(crate) fn clear_error(socket: &impl AsRawFd) {
    let mut value: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: value/len are valid out-parameters for SO_ERROR.
    unsafe {
        libc::getsockopt(
            socket.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_ERROR,
            (&mut value as *mut libc::c_int).cast(),
            &mut len,
        );
    }
}

/// One message from the error queue: the decoded error and the start of
/// the packet it is about (as much as the ICMP error quoted).
pub(crate) struct QueuedError {
    pub(crate) report: IcmpReport,
    pub(crate) quoted: Vec<u8>,
}

/// Reads one message from the error queue; `None` when it is empty.
pub(crate) fn read_error(socket: &impl AsRawFd) -> Option<QueuedError> {
    let mut data = [0u8; 2048];
    let mut control = [0u64; 64];
    let mut iov = libc::iovec {
        iov_base: data.as_mut_ptr().cast(),
        iov_len: data.len(),
    };
    let mut name: libc::sockaddr_storage = unsafe_zeroed();
    // SAFETY: msghdr is plain data; every pointer set below outlives the call.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_name = (&mut name as *mut libc::sockaddr_storage).cast();
    msg.msg_namelen = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = std::mem::size_of_val(&control);
    // SAFETY: msg describes valid buffers; MSG_DONTWAIT never blocks.
    let n = unsafe {
        libc::recvmsg(
            socket.as_raw_fd(),
            &mut msg,
            libc::MSG_ERRQUEUE | libc::MSG_DONTWAIT,
        )
    };
    if n < 0 {
        return None;
    }
    let quoted = data[..(n as usize).min(data.len())].to_vec();
    // SAFETY: walking the control buffer the kernel filled, with the libc
    // macros that bound every step by msg_controllen.
    let mut cmsg = unsafe { libc::CMSG_FIRSTHDR(&msg) };
    while !cmsg.is_null() {
        // SAFETY: cmsg points into `control` (checked non-null above).
        let header = unsafe { &*cmsg };
        let recverr = (header.cmsg_level == libc::IPPROTO_IP
            && header.cmsg_type == libc::IP_RECVERR)
            || (header.cmsg_level == libc::IPPROTO_IPV6 && header.cmsg_type == libc::IPV6_RECVERR);
        if recverr {
            // SAFETY: CMSG_DATA of a valid header; the length excludes the header.
            let start = unsafe { libc::CMSG_DATA(cmsg) };
            let len =
                (header.cmsg_len as usize).saturating_sub(unsafe { libc::CMSG_LEN(0) } as usize);
            // SAFETY: the kernel wrote `len` bytes at `start` inside `control`.
            let bytes = unsafe { std::slice::from_raw_parts(start, len) };
            if let Some(report) = icmp::decode(bytes) {
                return Some(QueuedError { report, quoted });
            }
        }
        // SAFETY: as above.
        cmsg = unsafe { libc::CMSG_NXTHDR(&msg, cmsg) };
    }
    None
}

fn unsafe_zeroed() -> libc::sockaddr_storage {
    // SAFETY: sockaddr_storage is plain data; all-zero is a valid value.
    unsafe { std::mem::zeroed() }
}

/// What a wait saw first.
pub(crate) enum Ready {
    /// Data to read.
    Data,
    /// The error queue has something.
    Error,
    /// The deadline passed.
    Timeout,
}

/// Waits until `socket` has data or an error, or `deadline` passes.
pub(crate) fn wait(socket: &impl AsRawFd, deadline: Instant) -> Ready {
    loop {
        let now = Instant::now();
        if now >= deadline {
            return Ready::Timeout;
        }
        let millis = (deadline - now).as_millis().clamp(1, 10_000) as libc::c_int;
        let mut pfd = libc::pollfd {
            fd: socket.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let rc = unsafe { libc::poll(&mut pfd, 1, millis) };
        if rc < 0 {
            if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Ready::Timeout;
        }
        if rc == 0 {
            continue;
        }
        if pfd.revents & libc::POLLERR != 0 {
            return Ready::Error;
        }
        if pfd.revents & libc::POLLIN != 0 {
            return Ready::Data;
        }
    }
}
