//! udp-probe between two network namespaces, where the answer is known:
//! a shaped bottleneck under a bulk TCP flow raises the probes' one-way
//! delay by the queue the shaping implies, a packet capture on the veth
//! counts exactly the probes the stream says it sent, and (where the kernel
//! has netem) injected delay and loss are measured back.

use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use dualperf_model::{IpFamily, Observations, TestKind};

use crate::probe::probe_spec;
use crate::probe_lab::{in_ns, or_skip, with_server, ProbeChain, ProbePair, Scratch};
use crate::support::{short_spec, trial};

/// One-way delays of a probe trial's arrivals, nanoseconds, sorted.
fn delays(o: &Observations) -> Vec<i64> {
    let udp = o.udp.as_ref().expect("probe counters");
    assert!(udp.clocks_shared, "namespaces share the kernel clock");
    let mut delays: Vec<i64> = udp
        .arrivals
        .iter()
        .map(|a| a.received_ns - a.sent_ns)
        .collect();
    delays.sort_unstable();
    delays
}

fn percentile(sorted: &[i64], q: f64) -> i64 {
    sorted[((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1]
}

/// Shaping: 5 Mbit/s HTB with a 100-packet FIFO on the router's egress
/// towards the server. The client caps GSO at one segment so every queued
/// packet is one ≤1514-byte frame; the worst queue is then
/// 100 × 1514 B × 8 / 5 Mbit/s ≈ 242 ms.
const QUEUE_BOUND_MS: f64 = 100.0 * 1514.0 * 8.0 / 5e6 * 1e3;

///
/// The bulk sender uses Reno, a loss-based congestion control that fills
/// the FIFO until it drops (Reno is always allowed in a namespace; CUBIC is
/// not unless the host lists it in tcp_allowed_congestion_control). With
/// this machine's default, BBR, the queue stays near BBR's in-flight cap:
/// about 25 ms measured here.
fn shape(chain: &ProbeChain) -> Result<(), String> {
    let reno = ["-qw", "net.ipv4.tcp_congestion_control=reno"];
    in_ns(&chain.client, "sysctl", &reno)?;
    let segs = ["link", "set", "dev", &chain.client_dev, "gso_max_segs", "1"];
    in_ns(&chain.client, "ip", &segs)?;
    chain.shape_router_egress("5mbit", 100)
}

#[test]
fn a_shaped_bottleneck_under_bulk_tcp_raises_probe_delay_by_about_its_queue() {
    let Some(chain) = or_skip(ProbeChain::create("s", 211)) else {
        return;
    };
    shape(&chain).expect("htb and pfifo exist on this kernel");
    let addresses = ProbeChain::server_addresses(211);
    let figures = with_server(&chain.server, &chain.client, move |port| {
        let mut figures = Vec::new();
        for (address, family) in addresses.iter().zip([IpFamily::V4, IpFamily::V6]) {
            let server = SocketAddr::new(address.parse().unwrap(), port);
            let idle = trial(server, &probe_spec(1_000));
            let idle = delays(&idle.observations);
            // Bulk TCP for 3 s with a probe stream alongside (the
            // latency-under-load path of `dualperf run --probe`).
            let mut spec = short_spec(TestKind::TcpStream, 65_536);
            spec.duration_ms = 3_000;
            spec.warmup_ms = 500;
            spec.probe_interval_us = Some(10_000);
            let bulk = trial(server, &spec);
            let probe = bulk
                .observations
                .probe
                .as_ref()
                .unwrap_or_else(|| panic!("no probe alongside: {:?}", bulk.observations.notes));
            let loaded = Observations {
                udp: Some(probe.udp.clone()),
                ..Observations::default()
            };
            let goodput = bulk.observations.receiver.bytes as f64 * 8.0
                / (bulk.observations.measured_ns as f64 / 1e9);
            figures.push((family, idle, delays(&loaded), goodput));
        }
        figures
    });
    for (family, idle, loaded, goodput) in figures {
        let ms = |ns: i64| ns as f64 / 1e6;
        let (idle_p50, loaded_p50) = (percentile(&idle, 0.5), percentile(&loaded, 0.5));
        let loaded_max = *loaded.last().unwrap();
        eprintln!(
            "{family}: idle OWD p50 {:.3} ms; under bulk TCP ({:.2} Mbit/s) OWD p50 {:.1} ms, p90 {:.1} ms, max {:.1} ms; bound {QUEUE_BOUND_MS:.0} ms",
            ms(idle_p50),
            goodput / 1e6,
            ms(loaded_p50),
            ms(percentile(&loaded, 0.9)),
            ms(loaded_max)
        );
        assert!(
            ms(idle_p50) < 5.0,
            "{family}: idle link delay {} ms",
            ms(idle_p50)
        );
        assert!(
            (3.5e6..5.5e6).contains(&goodput),
            "{family}: the bulk flow should fill the 5 Mbit/s bottleneck, got {goodput}"
        );
        // Reno fills the FIFO until it drops and then halves: the queue
        // swings between about half and all of its 100 packets, so the
        // median delay is a large share of the bound and far above idle.
        assert!(
            ms(loaded_p50) > 0.3 * QUEUE_BOUND_MS && loaded_p50 > 100 * idle_p50,
            "{family}: loaded p50 {} ms vs idle {} ms",
            ms(loaded_p50),
            ms(idle_p50)
        );
        // Never more than the FIFO can hold (plus HTB burst and scheduling slack).
        assert!(
            ms(loaded_max) < QUEUE_BOUND_MS + 40.0,
            "{family}: max {} ms exceeds the {QUEUE_BOUND_MS:.0} ms queue bound",
            ms(loaded_max)
        );
    }
    drop(chain);
}

/// Counts measured probes (172-byte UDP payload with flags 0) in a capture,
/// via tshark's field output of the UDP payload.
fn measured_probes_in(capture: &str) -> (u64, Vec<u64>) {
    let output = Command::new("tshark")
        .args(["-r", capture, "-T", "fields", "-e", "udp.payload"])
        .output()
        .expect("tshark reads the capture");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut sequences = Vec::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let hex: String = line.chars().filter(|c| c.is_ascii_hexdigit()).collect();
        if hex.len() != 172 * 2 {
            continue; // a hello (20 B) or something else
        }
        let byte = |i: usize| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap();
        let flags = (16..20).fold(0u32, |acc, i| acc << 8 | u32::from(byte(i)));
        if flags == 0 {
            sequences.push((0..8).fold(0u64, |acc, i| acc << 8 | u64::from(byte(i))));
        }
    }
    (sequences.len() as u64, sequences)
}

#[test]
fn a_packet_capture_on_the_veth_counts_exactly_the_probes_sent_and_received() {
    let Some(pair) = or_skip(ProbePair::create("c", 212)) else {
        return;
    };
    let addresses = ProbePair::server_addresses(212);
    for (index, family) in [IpFamily::V4, IpFamily::V6].into_iter().enumerate() {
        let capture =
            std::env::temp_dir().join(format!("dpp-{}-{}.pcap", std::process::id(), family.key()));
        let capture = capture.to_str().unwrap().to_string();
        let mut tcpdump = Command::new("ip")
            .args([
                "netns",
                "exec",
                &pair.server,
                "tcpdump",
                "-i",
                &pair.server_dev,
            ])
            .args(["--immediate-mode", "-U", "-n", "-w", &capture, "udp"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("tcpdump is installed");
        // tcpdump prints "listening on" once its capture is open.
        let mut stderr = tcpdump.stderr.take().unwrap();
        let (ready_tx, ready_rx) = mpsc::channel();
        std::thread::spawn(move || {
            use std::io::Read;
            let mut byte = [0u8; 1];
            let mut text = Vec::new();
            while stderr.read(&mut byte).unwrap_or(0) == 1 {
                text.push(byte[0]);
                if text.ends_with(b"\n") && String::from_utf8_lossy(&text).contains("listening on")
                {
                    let _ = ready_tx.send(());
                }
            }
        });
        ready_rx
            .recv_timeout(Duration::from_secs(10))
            .expect("tcpdump started capturing");
        let address = addresses[index].clone();
        let report = with_server(&pair.server, &pair.client, move |port| {
            trial(
                SocketAddr::new(address.parse().unwrap(), port),
                &probe_spec(1_000),
            )
        });
        std::thread::sleep(Duration::from_millis(300));
        // SAFETY: signalling the tcpdump child this test started (by pid).
        unsafe { libc::kill(tcpdump.id() as i32, libc::SIGINT) };
        let _ = tcpdump.wait();
        let (captured, mut sequences) = measured_probes_in(&capture);
        if std::env::var_os("DPP_KEEP").is_none() {
            let _ = std::fs::remove_file(&capture);
        }
        let udp = report.observations.udp.as_ref().unwrap();
        eprintln!(
            "{family}: probe stream sent {}, received {}; capture saw {captured}",
            udp.sent, udp.received
        );
        assert!(udp.sent >= 90, "{family}: {} probes in 1 s", udp.sent);
        assert_eq!(captured, udp.sent, "{family}: capture vs sent");
        assert_eq!(udp.lost, 0, "{family}: an idle veth loses nothing");
        assert_eq!(captured, udp.received, "{family}: capture vs received");
        sequences.sort_unstable();
        assert_eq!(sequences, (0..udp.sent).collect::<Vec<_>>());
    }
    drop(pair);
}

#[test]
fn netem_injected_delay_and_loss_are_measured_back_where_the_kernel_has_netem() {
    let Some(scratch) = or_skip(Scratch::create("n")) else {
        return;
    };
    // 20 ms delay and 10 % loss on lo: a probe crosses lo once (one way).
    let added = in_ns(
        &scratch.0,
        "tc",
        &[
            "qdisc", "add", "dev", "lo", "root", "netem", "delay", "20ms", "loss", "10%",
        ],
    );
    if let Err(error) = added {
        eprintln!(
            "skipped: this kernel has no netem qdisc (`tc qdisc add dev lo root netem` \
             failed in a scratch namespace: {error}); injected delay and loss cannot be measured here"
        );
        return;
    }
    let ns = scratch.0.clone();
    let report = with_server(&ns, &ns, |port| {
        let mut spec = probe_spec(3_000);
        spec.probe_interval_us = Some(10_000);
        trial(SocketAddr::new("127.0.0.1".parse().unwrap(), port), &spec)
    });
    let o = &report.observations;
    let sorted = delays(o);
    let udp = o.udp.as_ref().unwrap();
    let loss = udp.lost as f64 / udp.sent as f64;
    let p50_ms = percentile(&sorted, 0.5) as f64 / 1e6;
    eprintln!(
        "netem 20 ms / 10 %: OWD p50 {p50_ms:.2} ms, loss {:.1} %",
        loss * 100.0
    );
    assert!((19.5..25.0).contains(&p50_ms), "OWD p50 {p50_ms} ms");
    // 300 probes at p = 0.1: σ ≈ 1.7 %, so 4 % to 17 % is a > 3σ band.
    assert!((0.04..0.17).contains(&loss), "loss {loss}");
}
