//! Benchmark of the user-space delay line (not a test: it needs root and
//! quiet CPUs). Builds client — router — server with a 10 ms delay on
//! router→server, sends UDP at a fixed packet rate from the client for a
//! few seconds and reports what the delay line lost itself (TAP ring
//! overflow + FIFO overflow + send errors) next to what the receiver got.
//!
//! Run it with `crates/dualperf-lab/bench/delay-line.sh` (release build).
//! Arguments: `PPS PAYLOAD_BYTES SECONDS [DELAY]`, e.g. `100000 64 3`.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use dualperf_lab::{BuildOptions, RunId, Testbed, Topology};
use dualperf_model::IpFamily;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pps: u64 = args.first().map_or(100_000, |a| a.parse().expect("PPS"));
    let payload: usize = args
        .get(1)
        .map_or(64, |a| a.parse().expect("PAYLOAD_BYTES"));
    let seconds: u64 = args.get(2).map_or(3, |a| a.parse().expect("SECONDS"));
    let delay = args.get(3).cloned().unwrap_or_else(|| "10ms".into());
    let text = format!(
        r#"
        description = "delay line benchmark"
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
        "#
    );
    let topology = Topology::from_toml("bench", &text).unwrap();
    let testbed = Testbed::build(&topology, &RunId::unique(), &BuildOptions::default()).unwrap();
    let family = IpFamily::V4;
    let server = testbed.address("server", family).unwrap();
    let receiver = testbed
        .in_node("server", || UdpSocket::bind(SocketAddr::new(server, 0)))
        .unwrap()
        .unwrap();
    let value: i32 = 64 << 20;
    // SAFETY: setsockopt(2) with an int.
    unsafe {
        libc::setsockopt(
            receiver.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVBUFFORCE,
            (&value as *const i32).cast(),
            4,
        )
    };
    receiver
        .set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let target = receiver.local_addr().unwrap();
    let sender = testbed
        .in_node("client", || UdpSocket::bind("0.0.0.0:0"))
        .unwrap()
        .unwrap();
    sender.send_to(&[0u8; 8], target).unwrap(); // ARP
    std::thread::sleep(Duration::from_millis(200));
    let mut buffer = vec![0u8; 65536];
    while receiver.recv(&mut buffer).is_ok() {}
    let before = testbed.delay_line_stats()[0].1;
    let done = AtomicBool::new(false);
    let (sent, received, elapsed) = std::thread::scope(|scope| {
        let counter = scope.spawn(|| {
            let mut buffer = vec![0u8; 65536];
            let mut received = 0u64;
            loop {
                match receiver.recv(&mut buffer) {
                    Ok(_) => received += 1,
                    Err(_) if done.load(Ordering::SeqCst) => break,
                    Err(_) => {}
                }
            }
            received
        });
        let data = vec![0x55u8; payload];
        let start = Instant::now();
        let total = pps * seconds;
        let per_tick = pps / 1000; // a burst every millisecond
        let mut sent = 0u64;
        let mut tick = 0u64;
        while sent < total {
            let due = start + Duration::from_millis(tick);
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
            for _ in 0..per_tick.min(total - sent) {
                if sender.send_to(&data, target).is_ok() {
                    sent += 1;
                }
            }
            tick += 1;
        }
        let elapsed = start.elapsed();
        std::thread::sleep(Duration::from_millis(500));
        done.store(true, Ordering::SeqCst);
        (sent, counter.join().unwrap(), elapsed)
    });
    let (tap, after) = testbed.delay_line_stats()[0].clone();
    let netns = testbed.netns("router").unwrap();
    let tap_dropped = tap_tx_dropped(&netns, &tap);
    let own = tap_dropped
        + (after.own_drops - before.own_drops)
        + (after.send_errors - before.send_errors);
    let wire_bits = (payload + 8 + 20 + 14) as f64 * 8.0 * sent as f64 / elapsed.as_secs_f64();
    println!(
        "delay {delay}, {payload} B payload: sent {sent} in {:.2} s ({:.0} pps, {:.1} Mbit/s on the wire); delay line received {}, forwarded {}, max held {}; own loss {own} (TAP ring {tap_dropped}, FIFO {}, send errors {}); bottleneck refusals {}; receiver got {received} ({} missing)",
        elapsed.as_secs_f64(),
        sent as f64 / elapsed.as_secs_f64(),
        wire_bits / 1e6,
        after.received - before.received,
        after.forwarded - before.forwarded,
        after.max_held,
        after.own_drops - before.own_drops,
        after.send_errors - before.send_errors,
        after.queue_drops - before.queue_drops,
        sent - received.min(sent),
    );
    testbed.teardown().unwrap();
}

/// The TAP's `tx_dropped`: frames the kernel dropped because the delay line
/// had not read its ring yet.
fn tap_tx_dropped(netns: &str, tap: &str) -> u64 {
    let output = Command::new("ip")
        .args(["-n", netns, "-s", "-j", "link", "show", "dev", tap])
        .output()
        .expect("ip runs");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_default();
    json[0]["stats64"]["tx"]["dropped"].as_u64().unwrap_or(0)
}
