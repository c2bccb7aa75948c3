//! TCP connection counters from the kernel: `getsockopt(fd, IPPROTO_TCP,
//! TCP_INFO)` (`tcp(7)`), Linux's `struct tcp_info`
//! (include/uapi/linux/tcp.h).
//!
//! The engine reads them from each sending socket at the start and the end
//! of the measured interval; the difference gives segments and bytes sent
//! and retransmitted during the interval (RFC 6349's TCP efficiency is
//! `(bytes sent − bytes retransmitted) / bytes sent`). Shell equivalent:
//! `ss -ti` on the connection.
//!
//! The `libc` crate's `tcp_info` stops at older fields, so this module
//! declares its own `#[repr(C)]` copy of the kernel struct ([`RawTcpInfo`],
//! the layout of Linux 6.x). The kernel copies `min(its size, our size)`
//! bytes and writes back how many it copied: a field counts only if it lies
//! entirely inside that length, so an older kernel leaves newer fields at 0
//! rather than handing back garbage.
//!
//! On veth, retransmissions are almost all spurious (reordering the receiver
//! later D-SACKs), not loss; `tcpi_dsack_dups` tells them apart and is kept
//! in [`TcpInfo`] for that reason.

use std::io;
use std::mem::{offset_of, size_of};
use std::os::fd::RawFd;

use dualperf_model::TcpCounters;

/// Linux `struct tcp_info` (include/uapi/linux/tcp.h, as of Linux 6.7+),
/// field for field. Units: times in microseconds unless named otherwise,
/// windows in segments unless named `_bytes`/`wnd`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
#[allow(missing_docs)]
pub struct RawTcpInfo {
    pub tcpi_state: u8,
    pub tcpi_ca_state: u8,
    pub tcpi_retransmits: u8,
    pub tcpi_probes: u8,
    pub tcpi_backoff: u8,
    pub tcpi_options: u8,
    /// `tcpi_snd_wscale : 4, tcpi_rcv_wscale : 4`.
    pub tcpi_wscales: u8,
    /// `tcpi_delivery_rate_app_limited:1, tcpi_fastopen_client_fail:2`.
    pub tcpi_flags: u8,

    pub tcpi_rto: u32,
    pub tcpi_ato: u32,
    pub tcpi_snd_mss: u32,
    pub tcpi_rcv_mss: u32,

    pub tcpi_unacked: u32,
    pub tcpi_sacked: u32,
    pub tcpi_lost: u32,
    pub tcpi_retrans: u32,
    pub tcpi_fackets: u32,

    pub tcpi_last_data_sent: u32,
    pub tcpi_last_ack_sent: u32,
    pub tcpi_last_data_recv: u32,
    pub tcpi_last_ack_recv: u32,

    pub tcpi_pmtu: u32,
    pub tcpi_rcv_ssthresh: u32,
    pub tcpi_rtt: u32,
    pub tcpi_rttvar: u32,
    pub tcpi_snd_ssthresh: u32,
    pub tcpi_snd_cwnd: u32,
    pub tcpi_advmss: u32,
    pub tcpi_reordering: u32,

    pub tcpi_rcv_rtt: u32,
    pub tcpi_rcv_space: u32,

    pub tcpi_total_retrans: u32,

    pub tcpi_pacing_rate: u64,
    pub tcpi_max_pacing_rate: u64,
    pub tcpi_bytes_acked: u64,
    pub tcpi_bytes_received: u64,
    pub tcpi_segs_out: u32,
    pub tcpi_segs_in: u32,

    pub tcpi_notsent_bytes: u32,
    pub tcpi_min_rtt: u32,
    pub tcpi_data_segs_in: u32,
    pub tcpi_data_segs_out: u32,

    pub tcpi_delivery_rate: u64,

    pub tcpi_busy_time: u64,
    pub tcpi_rwnd_limited: u64,
    pub tcpi_sndbuf_limited: u64,

    pub tcpi_delivered: u32,
    pub tcpi_delivered_ce: u32,

    pub tcpi_bytes_sent: u64,
    pub tcpi_bytes_retrans: u64,
    pub tcpi_dsack_dups: u32,
    pub tcpi_reord_seen: u32,

    pub tcpi_rcv_ooopack: u32,

    pub tcpi_snd_wnd: u32,
    pub tcpi_rcv_wnd: u32,

    pub tcpi_rehash: u32,

    pub tcpi_total_rto: u16,
    pub tcpi_total_rto_recoveries: u16,
    pub tcpi_total_rto_time: u32,
}

/// What one `TCP_INFO` read returned: the counters the engine stores plus a
/// few more that explain them. Fields the kernel did not fill are `None`.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct TcpInfo {
    /// Cumulative counters and end-of-interval gauges, model shape. Fields
    /// the kernel did not fill are 0 here.
    pub counters: TcpCounters,
    /// Bytes the peer acknowledged (`tcpi_bytes_acked`, RFC 4898
    /// tcpEStatsAppHCThruOctetsAcked).
    pub bytes_acked: Option<u64>,
    /// Bytes received (`tcpi_bytes_received`).
    pub bytes_received: Option<u64>,
    /// Minimum RTT seen, microseconds (`tcpi_min_rtt`).
    pub min_rtt_us: Option<u32>,
    /// Retransmissions the receiver reported as duplicates (D-SACK), i.e.
    /// spurious (`tcpi_dsack_dups`).
    pub dsack_duplicates: Option<u32>,
    /// Reordering events the sender saw (`tcpi_reord_seen`).
    pub reordering_seen: Option<u32>,
    /// Path MTU the connection uses, bytes (`tcpi_pmtu`).
    pub path_mtu_bytes: Option<u32>,
    /// Bytes of `struct tcp_info` the kernel filled in.
    pub filled_bytes: usize,
}

/// Reads `TCP_INFO` of a connected TCP socket and returns the whole
/// decoded snapshot (see [`TcpInfo`]).
///
/// # Errors
/// The OS error of `getsockopt(2)`: `EBADF`, `ENOTSOCK`, or `EOPNOTSUPP` /
/// `ENOPROTOOPT` for a socket that is not TCP.
pub fn read_tcp_info(fd: RawFd) -> io::Result<TcpInfo> {
    let mut raw = RawTcpInfo::default();
    let mut length = size_of::<RawTcpInfo>() as libc::socklen_t;
    // SAFETY: `raw` is a writable repr(C) struct of `length` bytes; the
    // kernel writes at most `length` bytes and updates `length`.
    let rc = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut raw as *mut RawTcpInfo).cast(),
            &mut length,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(decode(&raw, length as usize))
}

/// Reads the counters of a connected TCP socket (`TCP_INFO`): cumulative
/// since the connection opened; subtract a start snapshot with
/// [`delta_tcp_counters`]. Fields the kernel does not provide are 0.
///
/// # Errors
/// As [`read_tcp_info`].
pub fn read_tcp_counters(fd: RawFd) -> io::Result<TcpCounters> {
    read_tcp_info(fd).map(|info| info.counters)
}

/// Whether the field at `offset` of `size` bytes lies within the `filled`
/// bytes the kernel wrote.
fn filled(filled: usize, offset: usize, size: usize) -> bool {
    offset + size <= filled
}

/// Decodes a `RawTcpInfo` of which the kernel filled `length` bytes.
fn decode(raw: &RawTcpInfo, length: usize) -> TcpInfo {
    macro_rules! field {
        ($name:ident) => {
            filled(
                length,
                offset_of!(RawTcpInfo, $name),
                std::mem::size_of_val(&raw.$name),
            )
            .then_some(raw.$name)
        };
    }
    TcpInfo {
        counters: TcpCounters {
            segments_sent: field!(tcpi_segs_out).map_or(0, u64::from),
            segments_retransmitted: field!(tcpi_total_retrans).map_or(0, u64::from),
            bytes_retransmitted: field!(tcpi_bytes_retrans).unwrap_or(0),
            bytes_sent: field!(tcpi_bytes_sent).unwrap_or(0),
            smoothed_rtt_us: field!(tcpi_rtt).unwrap_or(0),
            send_mss_bytes: field!(tcpi_snd_mss).unwrap_or(0),
            congestion_window_segments: field!(tcpi_snd_cwnd).unwrap_or(0),
        },
        bytes_acked: field!(tcpi_bytes_acked),
        bytes_received: field!(tcpi_bytes_received),
        min_rtt_us: field!(tcpi_min_rtt),
        dsack_duplicates: field!(tcpi_dsack_dups),
        reordering_seen: field!(tcpi_reord_seen),
        path_mtu_bytes: field!(tcpi_pmtu),
        filled_bytes: length.min(size_of::<RawTcpInfo>()),
    }
}

/// Counters of several streams (parallel connections) added together.
///
/// Counts (segments, bytes) add. Of the end-of-interval gauges, congestion
/// windows add (the aggregate window in flight), while the smoothed RTT and
/// the MSS take the larger of the two (the slowest stream, the largest
/// segment): a sum of RTTs would mean nothing.
pub fn sum_tcp_counters(a: &TcpCounters, b: &TcpCounters) -> TcpCounters {
    TcpCounters {
        segments_sent: a.segments_sent + b.segments_sent,
        segments_retransmitted: a.segments_retransmitted + b.segments_retransmitted,
        bytes_retransmitted: a.bytes_retransmitted + b.bytes_retransmitted,
        bytes_sent: a.bytes_sent + b.bytes_sent,
        smoothed_rtt_us: a.smoothed_rtt_us.max(b.smoothed_rtt_us),
        send_mss_bytes: a.send_mss_bytes.max(b.send_mss_bytes),
        congestion_window_segments: a
            .congestion_window_segments
            .saturating_add(b.congestion_window_segments),
    }
}

/// What happened between two snapshots of one connection: counts are
/// `end − start` (0 if a counter went backwards, e.g. the 32-bit
/// `tcpi_segs_out` wrapped), gauges (RTT, MSS, window) are `end`'s.
pub fn delta_tcp_counters(end: &TcpCounters, start: &TcpCounters) -> TcpCounters {
    TcpCounters {
        segments_sent: end.segments_sent.saturating_sub(start.segments_sent),
        segments_retransmitted: end
            .segments_retransmitted
            .saturating_sub(start.segments_retransmitted),
        bytes_retransmitted: end
            .bytes_retransmitted
            .saturating_sub(start.bytes_retransmitted),
        bytes_sent: end.bytes_sent.saturating_sub(start.bytes_sent),
        ..*end
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::os::fd::AsRawFd;

    #[test]
    fn struct_layout_matches_the_kernel_header() {
        // Offsets from include/uapi/linux/tcp.h on a 64-bit ABI.
        assert_eq!(offset_of!(RawTcpInfo, tcpi_rto), 8);
        assert_eq!(offset_of!(RawTcpInfo, tcpi_snd_mss), 16);
        assert_eq!(offset_of!(RawTcpInfo, tcpi_rtt), 68);
        assert_eq!(offset_of!(RawTcpInfo, tcpi_snd_cwnd), 80);
        assert_eq!(offset_of!(RawTcpInfo, tcpi_total_retrans), 100);
        assert_eq!(offset_of!(RawTcpInfo, tcpi_pacing_rate), 104);
        assert_eq!(offset_of!(RawTcpInfo, tcpi_segs_out), 136);
        assert_eq!(offset_of!(RawTcpInfo, tcpi_delivery_rate), 160);
        assert_eq!(offset_of!(RawTcpInfo, tcpi_bytes_sent), 200);
        assert_eq!(offset_of!(RawTcpInfo, tcpi_bytes_retrans), 208);
        assert_eq!(offset_of!(RawTcpInfo, tcpi_dsack_dups), 216);
        assert_eq!(offset_of!(RawTcpInfo, tcpi_total_rto), 240);
        assert_eq!(size_of::<RawTcpInfo>(), 248);
    }

    #[test]
    fn struct_agrees_with_libc_where_libc_has_the_field() {
        assert_eq!(
            offset_of!(RawTcpInfo, tcpi_total_retrans),
            offset_of!(libc::tcp_info, tcpi_total_retrans)
        );
        assert_eq!(
            offset_of!(RawTcpInfo, tcpi_rcv_space),
            offset_of!(libc::tcp_info, tcpi_rcv_space)
        );
    }

    #[test]
    fn fields_beyond_the_filled_length_read_as_absent() {
        let raw = RawTcpInfo {
            tcpi_segs_out: 10,
            tcpi_total_retrans: 2,
            tcpi_bytes_sent: 5000,
            tcpi_dsack_dups: 1,
            tcpi_snd_mss: 1448,
            ..Default::default()
        };
        // A kernel of the 4.x era filled only up to tcpi_delivery_rate.
        let old = decode(&raw, offset_of!(RawTcpInfo, tcpi_busy_time));
        assert_eq!(old.counters.segments_sent, 10);
        assert_eq!(old.counters.segments_retransmitted, 2);
        assert_eq!(old.counters.send_mss_bytes, 1448);
        assert_eq!(old.counters.bytes_sent, 0, "not filled by this kernel");
        assert_eq!(old.dsack_duplicates, None);
        let new = decode(&raw, size_of::<RawTcpInfo>());
        assert_eq!(new.counters.bytes_sent, 5000);
        assert_eq!(new.dsack_duplicates, Some(1));
    }

    #[test]
    fn streams_add_counts_and_keep_the_worst_rtt() {
        let a = TcpCounters {
            segments_sent: 10,
            segments_retransmitted: 1,
            bytes_retransmitted: 1448,
            bytes_sent: 14480,
            smoothed_rtt_us: 50,
            send_mss_bytes: 1448,
            congestion_window_segments: 10,
        };
        let b = TcpCounters {
            segments_sent: 5,
            segments_retransmitted: 0,
            bytes_retransmitted: 0,
            bytes_sent: 7000,
            smoothed_rtt_us: 80,
            send_mss_bytes: 1428,
            congestion_window_segments: 20,
        };
        assert_eq!(
            sum_tcp_counters(&a, &b),
            TcpCounters {
                segments_sent: 15,
                segments_retransmitted: 1,
                bytes_retransmitted: 1448,
                bytes_sent: 21480,
                smoothed_rtt_us: 80,
                send_mss_bytes: 1448,
                congestion_window_segments: 30,
            }
        );
        assert_eq!(sum_tcp_counters(&a, &TcpCounters::default()), a);
    }

    #[test]
    fn delta_subtracts_counts_and_keeps_end_gauges() {
        let start = TcpCounters {
            segments_sent: 3,
            bytes_sent: 100,
            smoothed_rtt_us: 10,
            ..Default::default()
        };
        let end = TcpCounters {
            segments_sent: 13,
            bytes_sent: 1100,
            smoothed_rtt_us: 40,
            ..Default::default()
        };
        let delta = delta_tcp_counters(&end, &start);
        assert_eq!(delta.segments_sent, 10);
        assert_eq!(delta.bytes_sent, 1000);
        assert_eq!(delta.smoothed_rtt_us, 40);
        assert_eq!(delta_tcp_counters(&start, &end).segments_sent, 0);
    }

    #[test]
    fn segments_sent_grow_after_writing_on_a_loopback_connection() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let reader = std::thread::spawn(move || {
            let (mut peer, _) = listener.accept().unwrap();
            let mut sink = Vec::new();
            peer.read_to_end(&mut sink).unwrap();
            sink.len()
        });
        let mut stream = TcpStream::connect(address).unwrap();
        let before = read_tcp_info(stream.as_raw_fd()).unwrap();
        let payload = vec![0x5a_u8; 1 << 20];
        stream.write_all(&payload).unwrap();
        stream.flush().unwrap();
        // Wait until everything is acknowledged so the counters are final.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let after = loop {
            let info = read_tcp_info(stream.as_raw_fd()).unwrap();
            let acked = info.bytes_acked.unwrap_or(0);
            if acked >= payload.len() as u64 || std::time::Instant::now() > deadline {
                break info;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        };
        let delta = delta_tcp_counters(&after.counters, &before.counters);
        assert!(delta.segments_sent >= 1, "{delta:?}");
        // Linux ≥ 4.19 (the development and CI kernels) fills tcpi_bytes_sent.
        assert!(
            after.filled_bytes >= offset_of!(RawTcpInfo, tcpi_bytes_retrans),
            "kernel filled only {} bytes",
            after.filled_bytes
        );
        assert!(delta.bytes_sent >= payload.len() as u64, "{delta:?}");
        assert!(after.counters.send_mss_bytes > 0);
        assert!(after.counters.congestion_window_segments > 0);
        drop(stream);
        assert_eq!(reader.join().unwrap(), payload.len());
    }

    #[test]
    fn a_udp_socket_has_no_tcp_info() {
        let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        assert!(read_tcp_counters(socket.as_raw_fd()).is_err());
    }
}
