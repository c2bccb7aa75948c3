//! TCP congestion control of a data socket (`TCP_CONGESTION`, Linux
//! tcp(7)): the competing TCP loads of the real-time experiments name
//! theirs (`cubic`, `bbr`, `reno`) in [`dualperf_model::TestSpec::congestion_control`],
//! and both ends set it on their TCP data sockets (only the sending end's
//! matters). A name the kernel lacks is an error naming what it has.

use std::os::fd::RawFd;

/// Where the kernel lists the congestion controls it has.
const AVAILABLE: &str = "/proc/sys/net/ipv4/tcp_available_congestion_control";

/// Sets `name` as the congestion control of TCP socket `fd`.
///
/// # Errors
/// A message naming the algorithm and, where the kernel lacks it, the ones
/// it has (`ENOENT`), or that it is not allowed (`EPERM`: not in
/// `net.ipv4.tcp_allowed_congestion_control` and no CAP_NET_ADMIN).
pub fn set_congestion_control(fd: RawFd, name: &str) -> Result<(), String> {
    // SAFETY: the option value is a byte string of the given length, on a
    // socket the caller owns.
    let result = unsafe {
        libc::setsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            name.as_ptr().cast(),
            name.len() as libc::socklen_t,
        )
    };
    if result == 0 {
        return Ok(());
    }
    let error = std::io::Error::last_os_error();
    let available = std::fs::read_to_string(AVAILABLE)
        .map(|text| text.trim().to_string())
        .unwrap_or_else(|_| "unknown".into());
    Err(match error.raw_os_error() {
        Some(libc::ENOENT) => format!(
            "TCP congestion control `{name}` is not available in this kernel (it has: {available}; \
             try `modprobe tcp_{name}`)"
        ),
        Some(libc::EPERM) => format!(
            "TCP congestion control `{name}` is not allowed for this user (add it to \
             net.ipv4.tcp_allowed_congestion_control, or run as root)"
        ),
        _ => format!("setting TCP congestion control `{name}`: {error}"),
    })
}

/// The congestion control in force on TCP socket `fd`, if readable.
pub fn congestion_control(fd: RawFd) -> Option<String> {
    let mut buffer = [0u8; 16];
    let mut length = buffer.len() as libc::socklen_t;
    // SAFETY: the kernel writes at most `length` bytes into `buffer`.
    let result = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            buffer.as_mut_ptr().cast(),
            &mut length,
        )
    };
    (result == 0).then(|| {
        let bytes = &buffer[..length as usize];
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        String::from_utf8_lossy(&bytes[..end]).into_owned()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    #[test]
    fn reno_can_be_set_and_read_back_and_a_made_up_name_is_refused_clearly() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let stream = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        set_congestion_control(stream.as_raw_fd(), "reno").unwrap();
        assert_eq!(
            congestion_control(stream.as_raw_fd()).as_deref(),
            Some("reno")
        );
        let error = set_congestion_control(stream.as_raw_fd(), "nosuchcc").unwrap_err();
        assert!(
            error.contains("nosuchcc") && error.contains("not"),
            "{error}"
        );
    }
}
