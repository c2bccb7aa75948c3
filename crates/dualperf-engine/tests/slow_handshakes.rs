//! Issue 16 fault 2: a thousand slow connections held 1,002 threads and
//! 1,006 descriptors and locked everyone out. Here a thousand connections
//! from 125 loopback sources (127.0.1.1 … 127.0.1.125, eight each) send a
//! length prefix and then trickle; a legitimate trial must be served within
//! 10 s and the process must hold at most `max_sessions` + a small constant
//! threads. Its own test binary, so that /proc/self/task counts this
//! server's threads and nothing else's.
//!
//! Bounded: 1,000 connections to 127.0.0.0/8 only, at most ~15 s.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use dualperf_engine::client::{run_trial, ClientOptions};
use dualperf_engine::limits::ServerLimits;
use dualperf_engine::server::{Server, ServerConfig};
use dualperf_model::{IpFamily, TestKind, TestSpec};
use socket2::{Domain, Protocol, SockAddr, Socket, Type};

const SLOW_CONNECTIONS: usize = 1_000;
const SOURCES: u8 = 125;

fn count(dir: &str) -> usize {
    std::fs::read_dir(dir).map(|d| d.count()).unwrap_or(0)
}

fn slow_connection(server: SocketAddr, source: IpAddr) -> Option<TcpStream> {
    let socket = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP)).ok()?;
    socket
        .bind(&SockAddr::from(SocketAddr::new(source, 0)))
        .ok()?;
    socket
        .connect_timeout(&SockAddr::from(server), Duration::from_secs(3))
        .ok()?;
    let mut stream: TcpStream = socket.into();
    // A length, then (later) a byte at a time.
    let _ = stream.write_all(&[0, 0, 0, 60]);
    Some(stream)
}

#[test]
fn a_thousand_slow_connections_cost_no_threads_and_lock_no_one_out() {
    let threads_before = count("/proc/self/task");
    let fds_before = count("/proc/self/fd");
    let limits = ServerLimits::default();
    let max_sessions = limits.max_sessions as usize;
    let handle = Server::bind(ServerConfig {
        port: 0,
        limits,
        ..Default::default()
    })
    .unwrap()
    .spawn();
    let address = SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), handle.port());
    let started = Instant::now();
    let mut slow = Vec::new();
    for i in 0..SLOW_CONNECTIONS {
        let source = IpAddr::V4(Ipv4Addr::new(127, 0, 1, 1 + (i % SOURCES as usize) as u8));
        if let Some(stream) = slow_connection(address, source) {
            slow.push(stream);
        }
    }
    assert!(
        slow.len() >= SLOW_CONNECTIONS * 9 / 10,
        "only {} slow connections opened",
        slow.len()
    );
    // Trickle one byte on each for a while.
    for stream in &mut slow {
        let _ = stream.write_all(b"{");
    }
    std::thread::sleep(Duration::from_millis(500));
    let threads = count("/proc/self/task") - threads_before;
    let server_fds = count("/proc/self/fd")
        .saturating_sub(fds_before)
        .saturating_sub(slow.len());
    eprintln!(
        "{} slow connections open for {:?}: server threads {threads}, server descriptors {server_fds}",
        slow.len(),
        started.elapsed()
    );
    assert!(
        threads <= max_sessions + 2,
        "{threads} threads for {} slow connections",
        slow.len()
    );
    assert!(
        server_fds <= ServerLimits::default().max_pending_handshakes as usize + 8,
        "{server_fds} descriptors held by the server"
    );
    // A legitimate trial while they are still open.
    let spec = TestSpec {
        duration_ms: 300,
        warmup_ms: 100,
        sample_interval_ms: 100,
        ..TestSpec::new(TestKind::TcpRr, 64)
    };
    let legit = Instant::now();
    let report = run_trial(
        address,
        &spec,
        IpFamily::V4,
        &ClientOptions::default(),
        false,
    )
    .expect("a legitimate trial is served");
    let served_in = legit.elapsed();
    eprintln!("legitimate trial served in {served_in:?}");
    assert!(report.observations.latency.is_some());
    assert!(served_in < Duration::from_secs(10), "{served_in:?}");
    for stream in &mut slow {
        let _ = stream.write_all(b" ");
    }
    let threads = count("/proc/self/task") - threads_before;
    assert!(
        threads <= max_sessions + 2,
        "{threads} threads after the trial"
    );
    drop(slow);
    drop(handle);
}
