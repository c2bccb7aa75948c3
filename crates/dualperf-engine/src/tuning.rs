//! The socket options a point asks for ([`SocketTuning`]: iperf3's `-w`,
//! `-M`, `-N`) and the client's source address per family (iperf3's `-B`),
//! applied to data sockets before `connect`/`listen` so the SYN already
//! announces the window scale and MSS they imply. Kept apart from
//! [`crate::socket_options`] (marking, flow labels, timestamps).
//!
//! What the kernel granted is read back by the callers: the buffer sizes
//! with [`crate::socket_options::buffer_sizes`] into `SocketFacts`, the MSS
//! in use from `TCP_INFO` (`tcpi_snd_mss`) into `TcpCounters`.

use std::io;
use std::net::{IpAddr, SocketAddr};
use std::os::fd::RawFd;

use dualperf_model::SocketTuning;

use crate::socket_options::set_int;

/// Applies `tuning` to a TCP socket before `connect` (client) or `listen`
/// (server; accepted connections inherit buffers and MSS): `SO_SNDBUF` and
/// `SO_RCVBUF` (`SO_*BUFFORCE` when privileged, so `net.core.*mem_max`
/// does not cap what was asked), `TCP_MAXSEG`, `TCP_NODELAY`.
///
/// # Errors
/// The OS error of the first option the kernel refused, with its name.
pub fn tune_tcp(fd: RawFd, tuning: &SocketTuning) -> io::Result<()> {
    if let Some(bytes) = tuning.buffer_bytes {
        crate::socket_options::set_buffer_sizes(fd, Some(bytes), Some(bytes))
            .map_err(|e| named("SO_SNDBUF/SO_RCVBUF", e))?;
    }
    if let Some(mss) = tuning.mss_bytes {
        let value = libc::c_int::try_from(mss)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "MSS out of range"))?;
        set_int(fd, libc::IPPROTO_TCP, libc::TCP_MAXSEG, value)
            .map_err(|e| named("TCP_MAXSEG", e))?;
    }
    set_no_delay(fd, tuning)
}

/// `TCP_NODELAY` when `tuning` asks for it (an accepted connection, to be
/// sure it holds whatever the listener passed on).
///
/// # Errors
/// The OS error of `setsockopt`.
pub fn set_no_delay(fd: RawFd, tuning: &SocketTuning) -> io::Result<()> {
    if tuning.no_delay {
        set_int(fd, libc::IPPROTO_TCP, libc::TCP_NODELAY, 1)
            .map_err(|e| named("TCP_NODELAY", e))?;
    }
    Ok(())
}

/// The UDP buffer sizes `(send, receive)` to ask for: `tuning`'s when it
/// gives one (both), else the engine's `defaults`.
pub fn udp_buffers(tuning: &SocketTuning, defaults: (u32, u32)) -> (u32, u32) {
    match tuning.buffer_bytes {
        Some(bytes) => (bytes, bytes),
        None => defaults,
    }
}

/// Binds a client socket to its source address (iperf3's `-B`) before
/// `connect`: port 0, so every connection gets its own ephemeral port.
/// Nothing happens without a source.
///
/// # Errors
/// The OS error of `bind` (e.g. `EADDRNOTAVAIL`: no interface has the
/// address), naming it.
pub fn bind_source(socket: &socket2::Socket, source: Option<IpAddr>) -> io::Result<()> {
    let Some(address) = source else {
        return Ok(());
    };
    socket
        .bind(&SocketAddr::new(address, 0).into())
        .map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("binding the source address {address} (-B): {e}"),
            )
        })
}

/// A TCP connection to `target` from `source` (or the kernel's choice),
/// within `timeout`: the control channel of a session under `-B`.
///
/// # Errors
/// The OS error of `socket`, `bind` or `connect`.
pub fn connect_from(
    target: SocketAddr,
    source: Option<IpAddr>,
    timeout: std::time::Duration,
) -> io::Result<std::net::TcpStream> {
    if source.is_none() {
        return std::net::TcpStream::connect_timeout(&target, timeout);
    }
    let socket = socket2::Socket::new(
        socket2::Domain::for_address(target),
        socket2::Type::STREAM,
        Some(socket2::Protocol::TCP),
    )?;
    bind_source(&socket, source)?;
    socket.connect_timeout(&target.into(), timeout)?;
    Ok(socket.into())
}

fn named(option: &str, error: io::Error) -> io::Error {
    io::Error::new(error.kind(), format!("{option}: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    fn get_int(fd: RawFd, level: libc::c_int, name: libc::c_int) -> libc::c_int {
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
        assert_eq!(rc, 0);
        value
    }

    #[test]
    fn a_tuned_socket_reads_back_what_was_asked() {
        let socket =
            socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
        let fd = socket.as_raw_fd();
        let before = get_int(fd, libc::SOL_SOCKET, libc::SO_RCVBUF);
        tune_tcp(
            fd,
            &SocketTuning {
                buffer_bytes: Some(50_000),
                mss_bytes: Some(1000),
                no_delay: true,
            },
        )
        .unwrap();
        // Linux doubles a buffer size for its bookkeeping (socket(7)).
        assert_eq!(
            get_int(fd, libc::SOL_SOCKET, libc::SO_RCVBUF),
            100_000,
            "before: {before}"
        );
        assert_eq!(get_int(fd, libc::SOL_SOCKET, libc::SO_SNDBUF), 100_000);
        assert_eq!(get_int(fd, libc::IPPROTO_TCP, libc::TCP_MAXSEG), 1000);
        assert_eq!(get_int(fd, libc::IPPROTO_TCP, libc::TCP_NODELAY), 1);
    }

    #[test]
    fn nothing_asked_changes_nothing_and_a_foreign_source_is_an_error() {
        let socket =
            socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
        let fd = socket.as_raw_fd();
        let before = get_int(fd, libc::SOL_SOCKET, libc::SO_RCVBUF);
        tune_tcp(fd, &SocketTuning::default()).unwrap();
        assert_eq!(get_int(fd, libc::SOL_SOCKET, libc::SO_RCVBUF), before);
        assert_eq!(get_int(fd, libc::IPPROTO_TCP, libc::TCP_NODELAY), 0);
        // 192.0.2.1 (TEST-NET-1) is on no interface here.
        let error = bind_source(&socket, Some("192.0.2.1".parse().unwrap())).unwrap_err();
        assert!(error.to_string().contains("192.0.2.1"), "{error}");
        bind_source(&socket, Some("127.0.0.1".parse().unwrap())).unwrap();
        assert_eq!(
            socket
                .local_addr()
                .unwrap()
                .as_socket()
                .unwrap()
                .ip()
                .to_string(),
            "127.0.0.1"
        );
    }
}
