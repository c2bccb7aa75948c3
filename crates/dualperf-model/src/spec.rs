//! What to measure: test kinds, the parameters of one measurement point, and
//! the configuration of a whole run.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::family::{IpFamily, PerFamily};
use crate::units::BitRate;

/// The kinds of test the engine runs. Names are the CLI and JSON spelling.
#[derive(Clone, Copy, Debug, Eq, Hash, Ord, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TestKind {
    /// Bulk TCP transfer with a given application write size.
    TcpStream,
    /// UDP datagrams of a given payload at a target rate or unlimited; each
    /// carries a sequence number and a send timestamp.
    UdpStream,
    /// TCP request/response ping-pong, request and response of the same size.
    TcpRr,
    /// UDP request/response ping-pong, request and response of the same size.
    UdpRr,
    /// TCP connection setup time: `connect()` start to established.
    TcpConnect,
    /// An isochronous UDP probe stream (one-way delay, PDV, loss, reordering).
    UdpProbe,
}

impl TestKind {
    /// Every kind, in the order of the standard battery.
    pub const ALL: [TestKind; 6] = [
        TestKind::TcpStream,
        TestKind::UdpStream,
        TestKind::TcpRr,
        TestKind::UdpRr,
        TestKind::TcpConnect,
        TestKind::UdpProbe,
    ];

    /// The kebab-case name used on the command line and in results.
    pub fn name(self) -> &'static str {
        match self {
            TestKind::TcpStream => "tcp-stream",
            TestKind::UdpStream => "udp-stream",
            TestKind::TcpRr => "tcp-rr",
            TestKind::UdpRr => "udp-rr",
            TestKind::TcpConnect => "tcp-connect",
            TestKind::UdpProbe => "udp-probe",
        }
    }

    /// True for the UDP kinds.
    pub fn is_udp(self) -> bool {
        matches!(
            self,
            TestKind::UdpStream | TestKind::UdpRr | TestKind::UdpProbe
        )
    }
}

impl fmt::Display for TestKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TestKind {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        TestKind::ALL
            .into_iter()
            .find(|kind| kind.name() == text)
            .ok_or_else(|| {
                let names: Vec<_> = TestKind::ALL.iter().map(|k| k.name()).collect();
                format!("unknown test `{text}`; known tests: {}", names.join(", "))
            })
    }
}

/// One measurement point: a test kind with its parameters. A run measures
/// each point for each family, `repeat` times.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestSpec {
    /// Which test.
    pub kind: TestKind,
    /// Application write size (tcp-stream), datagram payload (udp-stream,
    /// udp-probe), or request = response size (tcp-rr, udp-rr), in bytes.
    pub size_bytes: u32,
    /// Length of the measured interval, after warm-up.
    pub duration_ms: u64,
    /// Warm-up before the measured interval starts; excluded from results.
    pub warmup_ms: u64,
    /// Parallel streams (tcp-stream, udp-stream); 1 otherwise.
    pub parallel_streams: u32,
    /// Server sends, client receives (iperf3's `--reverse`).
    pub reverse: bool,
    /// Target sending rate per stream for UDP; `None` sends as fast as possible.
    pub rate: Option<BitRate>,
    /// Length of one per-interval sample (time-series resolution), ≥ 10 ms.
    pub sample_interval_ms: u64,
    /// Packet interval of an isochronous probe stream: the probe itself for
    /// udp-probe; for tcp-stream and udp-stream, a probe stream that runs
    /// beside the load (latency under load, `--probe`).
    pub probe_interval_us: Option<u64>,
}

impl TestSpec {
    /// A short label for tables and progress lines, e.g. `tcp-stream 1024 B`.
    pub fn label(&self) -> String {
        let mut label = format!("{} {} B", self.kind, self.size_bytes);
        if self.parallel_streams > 1 {
            label.push_str(&format!(" x{}", self.parallel_streams));
        }
        if self.reverse {
            label.push_str(" rev");
        }
        if let Some(rate) = self.rate {
            label.push_str(&format!(" @{rate}"));
        }
        label
    }
}

/// How repetitions of one point are ordered across families.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RepetitionOrder {
    /// v4, v6, v4, v6 …: machine drift hits both families alike (default).
    #[default]
    Interleaved,
    /// All IPv4 repetitions, then all IPv6 repetitions.
    Blocked,
}

/// The exact configuration of a run, stored with its results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunConfig {
    /// The measurement points, in the order they run.
    pub points: Vec<TestSpec>,
    /// The families measured (both unless `-4` or `-6`).
    pub families: Vec<IpFamily>,
    /// Repetitions of every point per family.
    pub repeat: u32,
    /// Order of repetitions.
    pub order: RepetitionOrder,
    /// Target address per family, as given or resolved (`None`: not measured).
    pub targets: PerFamily<Option<String>>,
    /// The host name the user gave, if any.
    pub host: Option<String>,
    /// Control port of the server.
    pub port: u16,
    /// CPUs the client's measuring threads were pinned to (empty: unpinned).
    pub client_cpus: Vec<u32>,
    /// CPUs the server was asked to pin its threads to (empty: unpinned).
    pub server_cpus: Vec<u32>,
    /// The command line that started the run, for reproduction.
    pub command_line: Vec<String>,
}
