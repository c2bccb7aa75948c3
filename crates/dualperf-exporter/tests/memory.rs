//! Memory stays flat over a long run: 200 scheduled comparisons (very
//! short trials) against an in-process loopback `dualperf serve`, through
//! the exporter's own driver, registry and `/metrics` server (scraped all
//! along), with the engine's client and the stats stage doing the work,
//! as in `dualperf exporter`. The resident set (VmRSS of /proc/self/status)
//! after the first 50 comparisons may not grow by more than a few MiB
//! over the next 150. One test in this file: the process is its own.
//!
//! Traffic goes to 127.0.0.1 and ::1 only.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code

use std::net::{IpAddr, Ipv6Addr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use dualperf_engine::client::{Client, ClientOptions};
use dualperf_engine::server::{Server, ServerConfig};
use dualperf_exporter::driver::{resident_memory_bytes, unix_ms};
use dualperf_exporter::{
    drive, DriverOptions, DriverTarget, ExporterFacts, MetricsServer, Outcome, Registry,
    StopSignal, TargetSchedule,
};
use dualperf_model::{Arm, ArmId, IpFamily, RepetitionOrder, RunConfig, TestKind, TestSpec};

const COMPARISONS: u64 = 200;
/// Comparisons before the baseline reading (allocator pools, thread stacks
/// and the server's per-session state have settled by then).
const WARM_UP: usize = 50;
/// Most the resident set may grow from the baseline to the end.
const MAX_GROWTH_BYTES: u64 = 4 << 20;

/// The plan of one comparison of `kinds` on both native arms, once each,
/// 20 ms a trial.
fn plan(port: u16, kinds: &[TestKind]) -> RunConfig {
    let point = |kind, size_bytes| TestSpec {
        send_budget: None,
        congestion_control: None,
        media: None,
        tuning: Default::default(),
        kind,
        size_bytes,
        duration_ms: 20,
        warmup_ms: 0,
        parallel_streams: 1,
        reverse: false,
        rate: None,
        sample_interval_ms: 10,
        probe_interval_us: (kind == TestKind::UdpProbe).then_some(2_000),
    };
    RunConfig {
        peer: dualperf_model::PeerKind::Dualperf,
        loads: Vec::new(),
        points: kinds
            .iter()
            .map(|&kind| match kind {
                TestKind::TcpStream => point(kind, 16_384),
                TestKind::UdpProbe => point(kind, 172),
                _ => point(kind, 64),
            })
            .collect(),
        arms: vec![
            Arm::native(IpFamily::V4, Some("127.0.0.1".into())),
            Arm::native(IpFamily::V6, Some("::1".into())),
        ],
        baseline: ArmId::native(IpFamily::V4),
        repeat: 1,
        order: RepetitionOrder::Interleaved,
        host: None,
        port,
        client_cpus: Vec::new(),
        server_cpus: Vec::new(),
        command_line: Vec::new(),
        contrasts: Vec::new(),
        goal: None,
    }
}

#[test]
fn two_hundred_comparisons_leave_the_resident_set_flat() {
    let server = Server::bind(ServerConfig {
        port: 0,
        ..ServerConfig::default()
    })
    .unwrap()
    .spawn();
    // Five targets (all this loopback server): four compare goodput and
    // TCP round trips (fast), one UDP round trips and a probe stream (one-
    // way delay, loss, jitter; slower: the receiver waits for late
    // datagrams). Scheduled far more often than a configuration file
    // allows (its shortest interval is 1 s), so that 200 comparisons take
    // well under a minute.
    let plans: Vec<RunConfig> = (0..5)
        .map(|index| {
            let kinds: &[TestKind] = if index == 4 {
                &[TestKind::UdpRr, TestKind::UdpProbe]
            } else {
                &[TestKind::TcpStream, TestKind::TcpRr]
            };
            plan(server.port(), kinds)
        })
        .collect();
    let targets: Vec<DriverTarget> = (0..plans.len())
        .map(|index| DriverTarget {
            name: format!("loop-{index}"),
            schedule: TargetSchedule {
                interval: Duration::from_millis(100),
                jitter: Duration::from_millis(30),
                max_runs_per_hour: 1_000_000,
            },
        })
        .collect();
    let names: Vec<&str> = targets.iter().map(|t| t.name.as_str()).collect();
    let registry = Arc::new(Mutex::new(Registry::new(&names, "test", unix_ms())));
    let shared = registry.clone();
    let http = MetricsServer::bind((IpAddr::V6(Ipv6Addr::LOCALHOST), 0).into())
        .or_else(|_| MetricsServer::bind("127.0.0.1:0".parse().unwrap()))
        .unwrap()
        .spawn(Arc::new(move |format| {
            let facts = ExporterFacts {
                now_unix_ms: unix_ms(),
                resident_memory_bytes: resident_memory_bytes(),
            };
            shared.lock().unwrap().render(format, &facts)
        }))
        .unwrap();
    // A scraper, as Prometheus would be, all along.
    let scraping = Arc::new(AtomicBool::new(true));
    let scraper = {
        let scraping = scraping.clone();
        let address = http.address();
        std::thread::spawn(move || {
            let mut scrapes = 0u64;
            while scraping.load(Ordering::SeqCst) {
                let (status, _, _) = dualperf_exporter::http::get(
                    address,
                    "/metrics",
                    Some("application/openmetrics-text; version=1.0.0"),
                )
                .unwrap();
                assert_eq!(status, "HTTP/1.1 200 OK");
                scrapes += 1;
                std::thread::sleep(Duration::from_millis(50));
            }
            scrapes
        })
    };

    let stop = StopSignal::new();
    let mut rss = Vec::with_capacity(COMPARISONS as usize + 1);
    let started = Instant::now();
    let flag = stop.flag();
    let summary = drive(
        &targets,
        DriverOptions {
            duty_cycle: 1.0,
            limit: Some(COMPARISONS),
            seed: 42,
        },
        &registry,
        &stop,
        &mut |index| {
            rss.push(resident_memory_bytes().unwrap());
            let client = Client::new(ClientOptions {
                stop: Some(flag.clone()),
                ..ClientOptions::default()
            });
            let mut result = client.run_plan(&plans[index], &mut |_| {});
            result.analysis = Some(dualperf_stats::analyse(&result));
            Outcome::Measured(Box::new(result))
        },
        &mut |_| {},
    );
    rss.push(resident_memory_bytes().unwrap());
    scraping.store(false, Ordering::SeqCst);
    let scrapes = scraper.join().unwrap();
    let elapsed = started.elapsed();

    let mib = |bytes: u64| bytes as f64 / (1024.0 * 1024.0);
    let baseline = rss[WARM_UP];
    let peak = rss[WARM_UP..].iter().copied().max().unwrap();
    eprintln!(
        "{} comparisons ({} fully successful) in {:.1} s, {scrapes} scrapes; RSS MiB: first {:.1}, after {WARM_UP} {:.1}, peak after {:.1}, end {:.1}; every 25: {:?}",
        summary.recorded,
        summary.succeeded,
        elapsed.as_secs_f64(),
        mib(rss[0]),
        mib(baseline),
        mib(peak),
        mib(*rss.last().unwrap()),
        rss.iter().step_by(25).map(|&b| (mib(b) * 10.0).round() / 10.0).collect::<Vec<_>>()
    );
    assert_eq!(summary.recorded, COMPARISONS);
    assert!(
        summary.succeeded >= COMPARISONS * 9 / 10,
        "{summary:?}: loopback comparisons should succeed"
    );
    assert!(
        peak <= baseline + MAX_GROWTH_BYTES,
        "resident set grew from {:.1} MiB to {:.1} MiB",
        mib(baseline),
        mib(peak)
    );
    let text = registry.lock().unwrap().render(
        dualperf_exporter::Format::PrometheusText,
        &ExporterFacts::default(),
    );
    assert!(text.contains("dualperf_runs_total{target=\"loop-0\",result=\"success\"}"));
    assert!(scrapes > 10, "{scrapes} scrapes");
}
