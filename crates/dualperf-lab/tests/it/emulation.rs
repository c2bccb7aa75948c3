//! Link emulation really delays and drops: 50 ms and 1 % loss on the
//! router→server direction, measured with timestamped UDP datagrams from a
//! client thread in the client's namespace to a server thread in the
//! server's. The sender stamps CLOCK_REALTIME into the payload; the
//! receiver takes the kernel's receive stamp (SO_TIMESTAMPNS, the same
//! clock), so a busy machine delaying the receiving thread does not count
//! as link delay, and an 8 MB receive buffer keeps such a thread from
//! losing datagrams.
//!
//! Uses netem where the kernel has it, otherwise the cls_bpf loss program
//! and the user-space delay line; the testbed's facts say which.

use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use dualperf_lab::{LinkEmulation, Testbed, Topology};
use dualperf_model::IpFamily;

use super::{build, namespaces_of, require_net_admin};

const DATAGRAMS: u32 = 10_000;
/// 2000 datagrams a second: 5 s for the lot.
const INTERVAL: Duration = Duration::from_micros(500);

fn emulated(delay: &str, loss_ratio: f64) -> Topology {
    let text = format!(
        r#"
        description = "router with an emulated downlink"
        [[node]]
        name = "client"
        [[node]]
        name = "router"
        role = "router"
        [[node]]
        name = "server"
        [[link]]
        between = ["client", "router"]
        [[link]]
        between = ["router", "server"]
        [link.egress.router]
        delay = "{delay}"
        loss_ratio = {loss_ratio}
        "#
    );
    Topology::from_toml("emulated", &text).unwrap()
}

/// Sends [`DATAGRAMS`] stamped datagrams client→server; returns the one-way
/// delays of those that arrived, sorted, in microseconds.
fn one_way_delays(testbed: &Testbed, family: IpFamily) -> Vec<f64> {
    let server_address = testbed.address("server", family).unwrap();
    let receiver = testbed
        .in_node("server", || {
            UdpSocket::bind(SocketAddr::new(server_address, 0))
        })
        .unwrap()
        .unwrap();
    receiver
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let fd = receiver.as_raw_fd();
    for (name, value) in [(libc::SO_TIMESTAMPNS, 1), (libc::SO_RCVBUFFORCE, 8 << 20)] {
        // SAFETY: setsockopt(2) with an int.
        let rc = unsafe {
            libc::setsockopt(fd, libc::SOL_SOCKET, name, (&value as *const i32).cast(), 4)
        };
        assert_eq!(rc, 0, "setsockopt {name}");
    }
    let target = receiver.local_addr().unwrap();
    let sender = testbed
        .in_node("client", || {
            let any = match family {
                IpFamily::V4 => "0.0.0.0:0",
                IpFamily::V6 => "[::]:0",
            };
            UdpSocket::bind(any)
        })
        .unwrap()
        .unwrap();
    // Warm the neighbour caches so the first datagram does not wait for ARP/ND.
    for _ in 0..3 {
        sender.send_to(&[0u8; 16], target).unwrap();
    }
    std::thread::sleep(Duration::from_millis(300));
    let mut scratch = [0u8; 64];
    while receiver.recv(&mut scratch).is_ok() {}
    let realtime_ns = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64
    };
    std::thread::scope(|scope| {
        let collect = scope.spawn(|| {
            let mut delays = Vec::new();
            let mut buffer = [0u8; 64];
            while let Some((n, now)) = receive_stamped(&receiver, &mut buffer) {
                if n >= 12 && buffer[..4] == *b"dlay" {
                    let sent = u64::from_be_bytes(buffer[4..12].try_into().unwrap());
                    delays.push((now - sent) as f64 / 1e3);
                }
            }
            delays
        });
        let start = Instant::now();
        for i in 0..DATAGRAMS {
            let due = start + INTERVAL * i;
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
            let mut payload = [0u8; 64];
            payload[..4].copy_from_slice(b"dlay");
            let stamp = realtime_ns();
            payload[4..12].copy_from_slice(&stamp.to_be_bytes());
            sender.send_to(&payload, target).unwrap();
        }
        let mut delays = collect.join().unwrap();
        delays.sort_by(f64::total_cmp);
        delays
    })
}

/// One datagram and its kernel receive time (CLOCK_REALTIME, ns); `None`
/// after the read timeout.
fn receive_stamped(socket: &UdpSocket, buffer: &mut [u8]) -> Option<(usize, u64)> {
    let mut control = [0u64; 16];
    let mut iov = libc::iovec {
        iov_base: buffer.as_mut_ptr().cast(),
        iov_len: buffer.len(),
    };
    // SAFETY: an all-zero msghdr is valid; the pointers are set below.
    let mut message: libc::msghdr = unsafe { std::mem::zeroed() };
    message.msg_iov = &mut iov;
    message.msg_iovlen = 1;
    message.msg_control = control.as_mut_ptr().cast();
    message.msg_controllen = std::mem::size_of_val(&control);
    // SAFETY: recvmsg(2) into valid buffers described by `message`.
    let n = unsafe { libc::recvmsg(socket.as_raw_fd(), &mut message, 0) };
    if n < 0 {
        return None;
    }
    // SAFETY: walking the control messages the kernel wrote.
    let mut cmsg = unsafe { libc::CMSG_FIRSTHDR(&message) };
    while !cmsg.is_null() {
        // SAFETY: `cmsg` points into `control`.
        let header = unsafe { &*cmsg };
        if header.cmsg_level == libc::SOL_SOCKET && header.cmsg_type == libc::SCM_TIMESTAMPNS {
            // SAFETY: SCM_TIMESTAMPNS carries a timespec.
            let ts: libc::timespec =
                unsafe { std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast()) };
            return Some((
                n as usize,
                ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64,
            ));
        }
        // SAFETY: as above.
        cmsg = unsafe { libc::CMSG_NXTHDR(&message, cmsg) };
    }
    panic!("no SCM_TIMESTAMPNS on a datagram");
}

#[test]
fn fifty_milliseconds_and_one_percent_loss_are_what_is_measured() {
    require_net_admin!();
    let testbed = build(&emulated("50ms", 0.01));
    let run = testbed.run_id().clone();
    let emulation = testbed.link_emulation();
    let facts = testbed.facts();
    let egress = &facts.links[1].egress[0];
    assert_eq!(egress.emulation.as_deref(), Some(emulation.key()));
    for family in [IpFamily::V4, IpFamily::V6] {
        let delays = one_way_delays(&testbed, family);
        let received = delays.len() as f64;
        let loss = 1.0 - received / f64::from(DATAGRAMS);
        let median_ms = delays[delays.len() / 2] / 1e3;
        let p99_ms = delays[delays.len() * 99 / 100] / 1e3;
        eprintln!(
            "{family} via {emulation}: {received} of {DATAGRAMS} arrived (loss {:.2} %), one-way delay median {median_ms:.3} ms, min {:.3} ms, p99 {p99_ms:.3} ms; delay lines {:?}",
            loss * 100.0,
            delays[0] / 1e3,
            testbed.delay_line_stats()
        );
        assert!(
            (median_ms - 50.0).abs() < 1.0,
            "{family}: median one-way delay {median_ms:.3} ms, injected 50 ms"
        );
        // 10,000 Bernoulli(1 %) trials: sd 0.1 %; 0.5–1.6 % is over 5 sd.
        assert!(
            (0.005..=0.016).contains(&loss),
            "{family}: loss {:.2} %, injected 1 %",
            loss * 100.0
        );
        for (tap, stats) in testbed.delay_line_stats() {
            assert_eq!(stats.own_drops, 0, "{tap} dropped frames itself");
            assert_eq!(stats.send_errors, 0, "{tap} failed to send");
        }
    }
    drop(testbed);
    assert!(namespaces_of(&run).is_empty(), "namespaces left behind");
    if emulation == LinkEmulation::BpfDelayLine {
        // The TAPs vanish with the delay line threads.
        let links = std::process::Command::new("ip")
            .args(["-o", "link", "show"])
            .output()
            .unwrap();
        assert!(!String::from_utf8_lossy(&links.stdout).contains(&format!("dsp{run}-")));
    }
}
