//! A real `dualperf serve` on loopback played against the abusive clients of
//! issue 16 — a thousand slow handshakes, a 1 bit/s reverse stream, the
//! lowest rate allowed, 1 GiB writes — and then a legitimate `dualperf run`,
//! which must be served within 10 s while the server holds few threads,
//! few descriptors and little memory. Issue 16 item 4 (sequence-number
//! jumps) belongs to the meter's own tests.
//!
//! Bounded: traffic only to 127.0.0.0/8, 1,000 connections, about 20 s.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

use std::io::{BufRead, BufReader, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use dualperf_engine::client::{run_trial, ClientOptions};
use dualperf_engine::limits::min_udp_rate;
use dualperf_model::{BitRate, IpFamily, TestKind, TestSpec};

const SLOW_CONNECTIONS: usize = 1_000;
const MAX_SESSIONS: usize = 4;

/// The serve process; killed when the test ends, also on failure.
struct Serve(Child);

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn proc_count(pid: u32, what: &str) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/{what}"))
        .map(|d| d.count())
        .unwrap_or(0)
}

/// A field of /proc/PID/status in kB, e.g. `VmHWM`.
fn status_kb(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{field}:")))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn spec(kind: TestKind, size_bytes: u32) -> TestSpec {
    TestSpec {
        duration_ms: 500,
        warmup_ms: 100,
        sample_interval_ms: 100,
        ..TestSpec::new(kind, size_bytes)
    }
}

fn slow_connection(server: SocketAddr, source: Ipv4Addr) -> Option<TcpStream> {
    use socket2::{Domain, Protocol, SockAddr, Socket, Type};
    let socket = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP)).ok()?;
    socket
        .bind(&SockAddr::from(SocketAddr::new(IpAddr::V4(source), 0)))
        .ok()?;
    socket
        .connect_timeout(&SockAddr::from(server), Duration::from_secs(3))
        .ok()?;
    let mut stream: TcpStream = socket.into();
    let _ = stream.write_all(&[0, 0, 0, 60, b'{']);
    Some(stream)
}

#[test]
fn a_real_server_survives_slow_and_low_rate_clients_and_serves_a_legitimate_run() {
    let port = free_port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_dualperf"))
        .args(["serve", "-B", "127.0.0.1", "-p", &port.to_string()])
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting dualperf serve");
    let stderr = child.stderr.take().unwrap();
    let serve = Serve(child);
    let pid = serve.0.id();
    let mut lines = BufReader::new(stderr).lines();
    let first = lines.next().unwrap().unwrap();
    assert!(first.contains("listening on"), "{first}");
    // Keep reading the log so the server never blocks on a full pipe.
    let log = std::thread::spawn(move || lines.map_while(Result::ok).collect::<Vec<String>>());
    let address = SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port);

    // 1. A thousand slow handshakes from 125 sources.
    let mut slow = Vec::new();
    for i in 0..SLOW_CONNECTIONS {
        let source = Ipv4Addr::new(127, 0, 2, 1 + (i % 125) as u8);
        if let Some(stream) = slow_connection(address, source) {
            slow.push(stream);
        }
    }
    assert!(slow.len() >= SLOW_CONNECTIONS * 9 / 10, "{}", slow.len());
    let threads = proc_count(pid, "task");
    let fds = proc_count(pid, "fd");

    // 2. Low-rate clients: 1 bit/s is refused; the lowest rate allowed,
    // with the largest datagrams, ends within its duration and a grace.
    let mut one_bit = spec(TestKind::UdpStream, 1024);
    (one_bit.reverse, one_bit.rate) = (true, Some(BitRate::from_bits_per_second(1)));
    let refused = run_trial(
        address,
        &one_bit,
        IpFamily::V4,
        &ClientOptions::default(),
        false,
    )
    .unwrap_err();
    assert!(refused.to_string().contains("minimum"), "{refused}");
    let mut lowest = spec(TestKind::UdpStream, 60_000);
    (lowest.reverse, lowest.rate) = (true, Some(min_udp_rate(60_000)));
    let started = Instant::now();
    let _ = run_trial(
        address,
        &lowest,
        IpFamily::V4,
        &ClientOptions::default(),
        false,
    );
    let lowest_took = started.elapsed();
    assert!(lowest_took < Duration::from_secs(6), "{lowest_took:?}");

    // 3. 1 GiB writes on two reverse streams: refused before any allocation.
    let mut huge = spec(TestKind::TcpStream, 1 << 30);
    (huge.reverse, huge.parallel_streams) = (true, 2);
    let refused = run_trial(
        address,
        &huge,
        IpFamily::V4,
        &ClientOptions::default(),
        false,
    )
    .unwrap_err();
    assert!(refused.to_string().contains("16777216"), "{refused}");

    // 4. The legitimate run, the slow connections still open.
    for stream in &mut slow {
        let _ = stream.write_all(b" ");
    }
    let legit = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_dualperf"))
        .args(["run", "--v4", "127.0.0.1", "-4", "-p", &port.to_string()])
        .args([
            "--tests",
            "tcp-rr,tcp-stream",
            "-t",
            "0.5",
            "--warmup",
            "0.1",
        ])
        .args(["--repeat", "1", "--no-store"])
        .output()
        .unwrap();
    let served_in = legit.elapsed();
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(served_in < Duration::from_secs(10), "{served_in:?}");
    let peak_kb = status_kb(pid, "VmHWM");
    let rss_kb = status_kb(pid, "VmRSS");
    eprintln!(
        "serve with {} slow connections: {threads} threads, {fds} descriptors; \
         lowest-rate test took {lowest_took:?}; legitimate run served in {served_in:?}; \
         memory peak {peak_kb} kB, now {rss_kb} kB",
        slow.len()
    );
    // main + accept thread (+ a session finishing).
    assert!(threads <= MAX_SESSIONS + 3, "{threads} threads");
    // 64 pending handshakes, the listener, stdio.
    assert!(fds <= 64 + 10, "{fds} descriptors");
    assert!(peak_kb < 128 * 1024, "peak memory {peak_kb} kB");
    drop(slow);
    drop(serve);
    let log = log.join().unwrap();
    assert!(
        log.iter()
            .any(|l| l.contains("too many pending handshakes")),
        "{log:?}"
    );
}
