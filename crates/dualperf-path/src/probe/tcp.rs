//! TCP's view of the path: the MSS a connection settles on
//! (`TCP_MAXSEG` after the handshake: the smaller of the peer's
//! announced MSS and what this host's route MTU allows). An MSS larger
//! than the measured path MTU minus the headers means bulk transfers
//! will send segments the path cannot carry.

use std::net::{IpAddr, SocketAddr, TcpStream};
use std::os::fd::AsRawFd;
use std::time::Duration;

use crate::evidence::TcpView;

/// Connects to `target`:`port` within `timeout` and reads the MSS; the
/// connection is closed at once, no data is sent.
pub fn view(target: IpAddr, port: u16, timeout: Duration) -> TcpView {
    match TcpStream::connect_timeout(&SocketAddr::new(target, port), timeout) {
        Ok(stream) => {
            let mut value: libc::c_int = 0;
            let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
            // SAFETY: valid out-parameters for an int option on an open socket.
            let rc = unsafe {
                libc::getsockopt(
                    stream.as_raw_fd(),
                    libc::IPPROTO_TCP,
                    libc::TCP_MAXSEG,
                    (&mut value as *mut libc::c_int).cast(),
                    &mut len,
                )
            };
            TcpView {
                port,
                mss: (rc == 0 && value > 0).then_some(value as u32),
                error: (rc != 0).then(|| std::io::Error::last_os_error().to_string()),
                bulk: None,
            }
        }
        Err(e) => TcpView {
            port,
            mss: None,
            error: Some(e.to_string()),
            bulk: None,
        },
    }
}
