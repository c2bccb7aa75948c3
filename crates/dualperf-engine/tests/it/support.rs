//! Shared helpers: a server on a free port, a short spec per kind.

use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};

use dualperf_engine::client::{run_trial, ClientOptions, TrialReport};
use dualperf_engine::limits::ServerLimits;
use dualperf_engine::server::{Server, ServerConfig, ServerHandle};
use dualperf_model::{IpFamily, TestKind, TestSpec};

/// A server on a free port of every address, with its log lines collected.
pub struct TestServer {
    pub handle: ServerHandle,
    pub log: Arc<Mutex<Vec<String>>>,
}

impl TestServer {
    pub fn start(limits: ServerLimits, auth_key: Option<&[u8]>) -> TestServer {
        Self::start_on(None, limits, auth_key)
    }

    pub fn start_on(
        bind: Option<IpAddr>,
        limits: ServerLimits,
        auth_key: Option<&[u8]>,
    ) -> TestServer {
        Self::start_with(ServerConfig {
            bind,
            limits,
            auth_key: auth_key.map(<[u8]>::to_vec),
            ..Default::default()
        })
    }

    /// A server with `config` (its port and log replaced: a free port, collected lines).
    pub fn start_with(config: ServerConfig) -> TestServer {
        let log = Arc::new(Mutex::new(Vec::new()));
        let sink = log.clone();
        let config = ServerConfig {
            port: 0,
            log: Some(Arc::new(move |line: &str| {
                sink.lock().unwrap().push(line.to_string())
            })),
            ..config
        };
        let handle = Server::bind(config).expect("binding a test server").spawn();
        TestServer { handle, log }
    }

    pub fn address(&self, ip: &str) -> SocketAddr {
        SocketAddr::new(ip.parse().unwrap(), self.handle.port())
    }

    pub fn log_text(&self) -> String {
        self.log.lock().unwrap().join("\n")
    }
}

/// A short spec: 300 ms measured after 100 ms warm-up, 100 ms samples.
pub fn short_spec(kind: TestKind, size_bytes: u32) -> TestSpec {
    TestSpec {
        duration_ms: 300,
        warmup_ms: 100,
        sample_interval_ms: 100,
        ..TestSpec::new(kind, size_bytes)
    }
}

pub fn trial(server: SocketAddr, spec: &TestSpec) -> TrialReport {
    let family = IpFamily::of(&server.ip());
    run_trial(server, spec, family, &ClientOptions::default(), true)
        .unwrap_or_else(|e| panic!("{} over {family} failed: {e:#?}", spec.label()))
}

/// The error of a trial that must fail: `spec` over `server`'s family
/// with `options`, no host facts asked.
pub fn trial_error(
    server: SocketAddr,
    spec: &TestSpec,
    options: &ClientOptions,
) -> dualperf_engine::EngineError {
    let family = IpFamily::of(&server.ip());
    match run_trial(server, spec, family, options, false) {
        Ok(_) => panic!("{} over {family} succeeded; it must fail", spec.label()),
        Err(error) => error,
    }
}

/// Checks the invariants every successful trial must satisfy.
pub fn assert_consistent(report: &TrialReport, spec: &TestSpec, family: IpFamily) {
    let o = &report.observations;
    assert_eq!(
        report.server_seen_family, family,
        "server saw the wrong family"
    );
    assert!(o.measured_ns > 0);
    assert!(
        o.sender.packets > 0,
        "{}: nothing sent: {o:#?}",
        spec.label()
    );
    assert!(
        o.receiver.packets > 0,
        "{}: nothing received: {o:#?}",
        spec.label()
    );
    if spec.kind != TestKind::TcpConnect {
        assert!(
            o.sender.bytes > 0 && o.receiver.bytes > 0,
            "{}: no bytes",
            spec.label()
        );
    }
    if matches!(spec.kind, TestKind::UdpStream | TestKind::UdpProbe) {
        assert!(
            o.receiver.packets <= o.sender.packets,
            "{}: received more than sent: {o:#?}",
            spec.label()
        );
        let udp = o.udp.as_ref().expect("udp counters");
        assert_eq!(udp.sent, o.sender.packets);
        assert_eq!(udp.received + udp.lost, udp.sent);
        assert!(
            udp.clocks_shared,
            "both ends run on this kernel: the boot ids match"
        );
        assert_eq!(udp.receive_timestamp_source, "SO_TIMESTAMPNS");
        let drops = o
            .receive_buffer_drops
            .expect("Linux reports receive-buffer drops (SO_RXQ_OVFL)");
        assert!(
            drops <= udp.lost,
            "buffer drops {drops} exceed the loss {}",
            udp.lost
        );
        let delays: Vec<u64> = o.intervals.iter().filter_map(|i| i.mean_delay_ns).collect();
        assert!(
            !delays.is_empty(),
            "one-way delay per interval on a shared clock"
        );
        assert!(delays.iter().all(|&d| d < 1_000_000_000), "{delays:?}");
    }
    if matches!(
        spec.kind,
        TestKind::TcpRr | TestKind::UdpRr | TestKind::TcpConnect
    ) {
        let latency = o.latency.as_ref().expect("latency samples");
        assert!(latency.count > 0 && latency.min_ns > 0 && latency.min_ns <= latency.max_ns);
    }
    assert!(!o.intervals.is_empty());
    if let Some(local) = &report.local_address {
        let ip: SocketAddr = local.parse().unwrap();
        assert_eq!(IpFamily::of(&ip.ip()), family);
    }
}
