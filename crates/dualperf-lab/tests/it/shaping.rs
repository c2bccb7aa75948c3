//! A shaped link really limits TCP goodput to its rate: real sockets in the
//! client and server namespaces, bulk transfer for a bounded time, goodput
//! measured at the receiver.
//!
//! At a shaped rate R the TCP goodput is R × MSS / frame (1448/1514 for
//! IPv4 with timestamps, 1428/1514 for IPv6: about 4.4 % and 5.7 % below R),
//! so "within 10 % of R" holds for a working limiter and fails for a link
//! that is unshaped (gigabits) or over-limited.

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

use dualperf_lab::{Testbed, Topology};
use dualperf_model::IpFamily;

use super::{build, require_net_admin};

/// Shaped rate under test, bits per second.
const RATE_BITS_PER_SECOND: f64 = 20e6;
/// How long the sender sends.
const SEND_TIME: Duration = Duration::from_millis(2500);
/// Received data before this point is ignored (TCP slow start, queue filling).
const WARM_UP: Duration = Duration::from_millis(300);

fn shaped_router(qdisc: &str) -> Topology {
    let text = format!(
        r#"
        description = "router with the client's uplink shaped"
        [[node]]
        name = "client"
        [[node]]
        name = "router"
        role = "router"
        [[node]]
        name = "server"
        [[link]]
        between = ["client", "router"]
        [link.egress.client]
        qdisc = "{qdisc}"
        rate = "20Mbit"
        [[link]]
        between = ["router", "server"]
        "#
    );
    Topology::from_toml("shaped-router", &text).unwrap()
}

/// Sends bulk TCP from node `from` to node `to` for [`SEND_TIME`] and returns the
/// receiver's goodput after [`WARM_UP`], bits per second.
fn goodput(testbed: &Testbed, family: IpFamily, from: &str, to: &str) -> f64 {
    let receiver_address: IpAddr = testbed.address(to, family).unwrap();
    // A socket stays in the namespace it was created in, whichever thread uses it.
    let listener = testbed
        .in_node(to, || {
            TcpListener::bind(SocketAddr::new(receiver_address, 0))
        })
        .unwrap()
        .unwrap();
    let target = listener.local_addr().unwrap();
    std::thread::scope(|scope| {
        let receiver = scope.spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut buffer = vec![0u8; 1 << 16];
            let start = Instant::now();
            let mut counted_bytes = 0u64;
            let mut counting_since = None;
            let mut last = start;
            loop {
                let n = stream.read(&mut buffer).unwrap();
                if n == 0 {
                    break;
                }
                last = Instant::now();
                if last.duration_since(start) >= WARM_UP {
                    counting_since.get_or_insert(last);
                    counted_bytes += n as u64;
                }
            }
            let since = counting_since.expect("data arrived after the warm-up");
            counted_bytes as f64 * 8.0 / last.duration_since(since).as_secs_f64()
        });
        let mut stream = testbed
            .in_node(from, || TcpStream::connect(target))
            .unwrap()
            .unwrap();
        let chunk = vec![0x5au8; 1 << 16];
        let start = Instant::now();
        while start.elapsed() < SEND_TIME {
            stream.write_all(&chunk).unwrap();
        }
        drop(stream);
        receiver.join().unwrap()
    })
}

/// Asserts that client-to-server goodput is within 10 % of the payload
/// share of `rate_bits_per_second`: the shaper counts 1514-byte frames
/// whose TCP payload is 1448 B (IPv4, timestamps on) or 1428 B (IPv6), so
/// a full link carries 95.6 % or 94.3 % of its rate as goodput.
fn check_goodput(testbed: &Testbed, label: &str, rate_bits_per_second: f64) {
    for family in IpFamily::ALL {
        let payload = 1500.0 - f64::from(family.ip_header_bytes()) - 32.0;
        let share = rate_bits_per_second * payload / 1514.0;
        let measured = goodput(testbed, family, "client", "server");
        let error_ratio = (measured - share).abs() / share;
        eprintln!(
            "{label} {family}: goodput {:.2} Mbit/s ({:.1} % from the payload share {:.2} Mbit/s of {} Mbit/s)",
            measured / 1e6,
            error_ratio * 100.0,
            share / 1e6,
            rate_bits_per_second / 1e6
        );
        assert!(
            error_ratio <= 0.10,
            "{label} {family}: {:.2} Mbit/s is not within 10 % of {:.2} Mbit/s",
            measured / 1e6,
            share / 1e6
        );
    }
}

#[test]
fn tcp_goodput_through_a_20_mbit_htb_link_is_within_ten_percent_of_the_rate() {
    require_net_admin!();
    check_goodput(&build(&shaped_router("htb")), "htb", RATE_BITS_PER_SECOND);
}

#[test]
fn tcp_goodput_through_a_20_mbit_tbf_link_is_within_ten_percent_of_the_rate() {
    require_net_admin!();
    check_goodput(&build(&shaped_router("tbf")), "tbf", RATE_BITS_PER_SECOND);
}

#[test]
fn tcp_goodput_across_the_bottleneck_preset_is_within_ten_percent_of_10_mbit() {
    require_net_admin!();
    check_goodput(&super::build_preset("bottleneck"), "bottleneck", 10e6);
}

#[test]
fn shaping_one_direction_leaves_the_other_direction_unlimited() {
    require_net_admin!();
    let testbed = build(&shaped_router("htb"));
    // Only the client's egress is shaped; server-to-client runs at veth speed.
    let measured = goodput(&testbed, IpFamily::V6, "server", "client");
    eprintln!("reverse direction: {:.1} Mbit/s", measured / 1e6);
    assert!(
        measured > 5.0 * RATE_BITS_PER_SECOND,
        "reverse direction limited to {:.1} Mbit/s",
        measured / 1e6
    );
}
