//! What to measure: test kinds, the parameters of one measurement point, and
//! the configuration of a whole run.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::arm::{Arm, ArmId, Marking};
use crate::design::{Contrast, OfferedLoad};
use crate::family::{IpFamily, PerFamily};
use crate::peer::PeerKind;
use crate::units::BitRate;

/// The kinds of test the engine runs. Names are the CLI and JSON spelling.
#[derive(
    Clone,
    Copy,
    Debug,
    Eq,
    Hash,
    Ord,
    PartialEq,
    PartialOrd,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
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
    /// A real-time media stream (voice or video, [`TestSpec::media`]) sent
    /// as RTP-shaped UDP: one-way delay, jitter, loss, MOS, frame delivery.
    Media,
}

impl TestKind {
    /// Every kind, in the order of the standard battery.
    pub const ALL: [TestKind; 7] = [
        TestKind::TcpStream,
        TestKind::UdpStream,
        TestKind::TcpRr,
        TestKind::UdpRr,
        TestKind::TcpConnect,
        TestKind::UdpProbe,
        TestKind::Media,
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
            TestKind::Media => "media",
        }
    }

    /// True for the UDP kinds.
    pub fn is_udp(self) -> bool {
        matches!(
            self,
            TestKind::UdpStream | TestKind::UdpRr | TestKind::UdpProbe | TestKind::Media
        )
    }

    /// True for the one-way UDP kinds whose receiver tracks sequence
    /// numbers and send stamps (udp-stream, udp-probe, media).
    pub fn is_one_way_udp(self) -> bool {
        matches!(
            self,
            TestKind::UdpStream | TestKind::UdpProbe | TestKind::Media
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
/// each point on each arm, `repeat` times.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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
    /// TCP congestion control of the sending sockets (`TCP_CONGESTION`,
    /// e.g. `cubic`, `bbr`); `None`: the kernel's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub congestion_control: Option<String>,
    /// The media profile of a media point; `None` for every other kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media: Option<crate::media::MediaProfile>,
    /// Socket options asked of the data sockets (iperf3's `-w`, `-M`, `-N`);
    /// the default asks none.
    #[serde(
        default,
        skip_serializing_if = "crate::tuning::SocketTuning::is_default"
    )]
    pub tuning: crate::tuning::SocketTuning,
    /// What ends the trial: `None`, the clock (`duration_ms`); a
    /// [`crate::SendBudget`] (tcp-stream and udp-stream, the client
    /// sending), the budget sent in the measured interval, with
    /// `duration_ms` as the time cap (iperf3's `-n` / `-k`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_budget: Option<crate::SendBudget>,
}

impl TestSpec {
    /// A point of `kind` at `size_bytes` with the defaults of a plain run:
    /// 1 s measured after no warm-up, one stream, client sends, no rate
    /// limit, 100 ms samples, no probe, the kernel's congestion control, no
    /// media. Literals name what differs and end `..TestSpec::new(kind, size)`,
    /// so a new field is one line here.
    pub fn new(kind: TestKind, size_bytes: u32) -> TestSpec {
        TestSpec {
            kind,
            size_bytes,
            duration_ms: 1_000,
            warmup_ms: 0,
            parallel_streams: 1,
            reverse: false,
            rate: None,
            sample_interval_ms: 100,
            probe_interval_us: None,
            congestion_control: None,
            media: None,
            tuning: crate::tuning::SocketTuning::default(),
            send_budget: None,
        }
    }

    /// A short label for tables and progress lines, e.g. `tcp-stream 1024 B`.
    pub fn label(&self) -> String {
        if let (TestKind::Media, Some(media)) = (self.kind, &self.media) {
            let mut label = format!("media {}", media.label());
            if self.reverse {
                label.push_str(" rev");
            }
            return label;
        }
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

/// A named competing load, one or more flows (a traffic mix): traffic that
/// runs beside an arm's measured traffic.
///
/// An arm with [`crate::LoadCondition::Under`] names one [`LoadSpec`] of the
/// run's configuration. Before each trial of that arm the client starts every
/// [`LoadFlow`] of the load as its own session with the server (its own
/// control connection, data sockets, marking, family and meters), waits until
/// all of them run, lets them warm up for [`LoadSpec::warmup_ms`], and only
/// then starts the measured trial. The loads keep running until the measured
/// trial has ended, so the measured interval lies wholly inside the loaded
/// one. What each load flow saw is kept in
/// [`crate::Observations::loads`]: the DiffServ experiments read the
/// best-effort class's loss there, the real-time ones the competing
/// throughput.
///
/// A trial whose load could not be started fails: a measurement labelled
/// "under load" that ran on an idle path would be a wrong answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LoadSpec {
    /// Name an arm's [`crate::LoadCondition::Under`] refers to, e.g.
    /// `udp-115pct-be` or `tcp-1x` (a machine key: lower case, digits, `-`).
    pub name: String,
    /// What people read, e.g. "BE UDP at 115 % of the link".
    pub label: String,
    /// The flows, started together.
    pub flows: Vec<LoadFlow>,
    /// How long the load runs before the measured traffic starts, in
    /// milliseconds (TCP reaches its window, queues fill).
    pub warmup_ms: u64,
    /// Where the load sits in the experiment's design (offered share of the
    /// bottleneck, datagram size, carrying families); `None` for a load that
    /// is not a level of a designed factor (`run --load`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offered: Option<OfferedLoad>,
}

/// One flow of a load: a test spec (its duration and warm-up are set by the
/// engine so that it spans the measured trial), a family and a marking.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LoadFlow {
    /// What people read, e.g. "LBE bulk TCP".
    pub label: String,
    /// Kind, size, rate, streams, direction and congestion control of the
    /// flow. `duration_ms` and `warmup_ms` are ignored: the engine derives
    /// them from the measured trial.
    pub spec: TestSpec,
    /// The family of the flow; `None`: the measured arm's family (a mixed
    /// IPv4/IPv6 load names both explicitly).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<IpFamily>,
    /// DSCP and flow label of the flow's data sockets (both ends).
    #[serde(default, skip_serializing_if = "Marking::is_empty")]
    pub marking: Marking,
}

/// How repetitions of one point are ordered across arms.
#[derive(
    Clone, Copy, Debug, Default, Eq, PartialEq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum RepetitionOrder {
    /// a, b, c, a, b, c …: machine drift hits every arm alike (default).
    #[default]
    Interleaved,
    /// All repetitions of the first arm, then all of the second, …
    Blocked,
}

/// The exact configuration of a run, stored with its results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(from = "RunConfigWire")]
pub struct RunConfig {
    /// The measurement points, in the order they run.
    pub points: Vec<TestSpec>,
    /// The arms measured at every point, in table order.
    pub arms: Vec<Arm>,
    /// The arm every other arm is compared with (native IPv4 by default).
    pub baseline: ArmId,
    /// Repetitions of every point per arm.
    pub repeat: u32,
    /// Order of repetitions.
    pub order: RepetitionOrder,
    /// The host name the user gave, if any.
    pub host: Option<String>,
    /// Control port of the server.
    pub port: u16,
    /// CPUs the client's measuring threads were pinned to (empty: unpinned).
    pub client_cpus: Vec<u32>,
    /// CPUs the server was asked to pin its threads to (empty: unpinned).
    pub server_cpus: Vec<u32>,
    /// The command line that started the run, for reproduction (secrets redacted).
    pub command_line: Vec<String>,
    /// Competing loads the arms can name ([`crate::LoadCondition::Under`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub loads: Vec<LoadSpec>,
    /// The questions the experiment asks ([`crate::design`]): which arm is
    /// compared with which. Empty: the classic contrasts, derived from the
    /// arms' levels by the statistics.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contrasts: Vec<Contrast>,
    /// Which implementation answers at the far end of every arm: dualperf's
    /// own server (the default, omitted from JSON), an iperf3 server or a
    /// STAMP reflector.
    #[serde(default, skip_serializing_if = "PeerKind::is_dualperf")]
    pub peer: PeerKind,
    /// The precision goal the repetitions followed (`--precision`), which
    /// the statistics need to report valid intervals; `None`: a fixed
    /// number of repetitions (`repeat`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<crate::goal::Goal>,
}

impl RunConfig {
    /// The arm with id `id`.
    pub fn arm(&self, id: &ArmId) -> Option<&Arm> {
        self.arms.iter().find(|arm| &arm.id == id)
    }

    /// The baseline arm, if it is among the arms.
    pub fn baseline_arm(&self) -> Option<&Arm> {
        self.arm(&self.baseline)
    }

    /// The distinct families of the arms, in arm order.
    pub fn families(&self) -> Vec<IpFamily> {
        let mut families = Vec::new();
        for arm in &self.arms {
            if !families.contains(&arm.family) {
                families.push(arm.family);
            }
        }
        families
    }

    /// The arms compared with the baseline: every arm but the baseline.
    pub fn compared_arms(&self) -> impl Iterator<Item = &Arm> {
        self.arms.iter().filter(move |arm| arm.id != self.baseline)
    }

    /// The load `arm` runs under, if it names one that exists. `Err` names
    /// a load the configuration lacks.
    pub fn load_of(&self, arm: &Arm) -> Result<Option<&LoadSpec>, String> {
        match &arm.load {
            crate::arm::LoadCondition::Idle => Ok(None),
            crate::arm::LoadCondition::Under { load } => self
                .loads
                .iter()
                .find(|spec| &spec.name == load)
                .map(Some)
                .ok_or_else(|| {
                    format!(
                        "arm `{}` names load `{load}`, which the run does not define",
                        arm.id
                    )
                }),
        }
    }
}

/// [`RunConfig`] as stored: schema v2 has `arms` and `baseline`; schema v1
/// had `families` and per-family `targets`, which become native arms.
#[derive(Deserialize, schemars::JsonSchema)]
struct RunConfigWire {
    points: Vec<TestSpec>,
    #[serde(default)]
    arms: Option<Vec<Arm>>,
    #[serde(default)]
    baseline: Option<ArmId>,
    #[serde(default)]
    families: Option<Vec<IpFamily>>,
    #[serde(default)]
    targets: Option<PerFamily<Option<String>>>,
    repeat: u32,
    #[serde(default)]
    order: RepetitionOrder,
    #[serde(default)]
    host: Option<String>,
    port: u16,
    #[serde(default)]
    client_cpus: Vec<u32>,
    #[serde(default)]
    server_cpus: Vec<u32>,
    #[serde(default)]
    command_line: Vec<String>,
    #[serde(default)]
    loads: Vec<LoadSpec>,
    #[serde(default)]
    contrasts: Vec<Contrast>,
    #[serde(default)]
    peer: PeerKind,
    #[serde(default)]
    goal: Option<crate::goal::Goal>,
}

impl From<RunConfigWire> for RunConfig {
    fn from(wire: RunConfigWire) -> RunConfig {
        let arms = match wire.arms {
            Some(arms) => arms,
            None => {
                let targets = wire.targets.unwrap_or_default();
                wire.families
                    .unwrap_or_else(|| IpFamily::ALL.to_vec())
                    .into_iter()
                    .map(|family| Arm::native(family, targets.get(family).clone()))
                    .collect()
            }
        };
        let baseline = wire.baseline.unwrap_or_else(|| {
            arms.iter()
                .find(|arm| arm.id == ArmId::native(IpFamily::V4))
                .or(arms.first())
                .map(|arm| arm.id.clone())
                .unwrap_or_else(|| ArmId::native(IpFamily::V4))
        });
        RunConfig {
            points: wire.points,
            arms,
            baseline,
            repeat: wire.repeat,
            order: wire.order,
            host: wire.host,
            port: wire.port,
            client_cpus: wire.client_cpus,
            server_cpus: wire.server_cpus,
            command_line: wire.command_line,
            loads: wire
                .loads
                .into_iter()
                .map(|mut load| {
                    if load.offered.is_none() {
                        let stream = load
                            .flows
                            .iter()
                            .find(|f| f.spec.kind == TestKind::UdpStream);
                        load.offered = crate::design::legacy_level(
                            &load.name,
                            stream.map(|f| f.spec.size_bytes),
                        );
                    }
                    load
                })
                .collect(),
            contrasts: wire.contrasts,
            peer: wire.peer,
            goal: wire.goal,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_1_config_becomes_native_arms_with_ipv4_as_baseline() {
        let v1 = r#"{"points":[],"families":["v4","v6"],"repeat":3,"order":"interleaved",
            "targets":{"v4":"127.0.0.1","v6":"::1"},"host":null,"port":5180,
            "client_cpus":[],"server_cpus":[],"command_line":["dualperf","run"]}"#;
        let config: RunConfig = serde_json::from_str(v1).unwrap();
        let ids: Vec<&str> = config.arms.iter().map(|a| a.id.as_str()).collect();
        assert_eq!(ids, ["v4", "v6"]);
        assert_eq!(config.baseline.as_str(), "v4");
        assert_eq!(config.arms[1].target.as_deref(), Some("::1"));
        assert_eq!(config.families(), IpFamily::ALL.to_vec());
    }

    #[test]
    fn a_version_2_config_reads_back_unchanged() {
        let config = RunConfig {
            peer: crate::PeerKind::Dualperf,
            loads: Vec::new(),
            points: vec![],
            arms: vec![
                Arm::native(IpFamily::V6, None),
                Arm::native(IpFamily::V4, None),
            ],
            baseline: ArmId::native(IpFamily::V6),
            repeat: 2,
            order: RepetitionOrder::Blocked,
            host: None,
            port: 1,
            client_cpus: vec![0],
            server_cpus: vec![],
            command_line: vec![],
            contrasts: Vec::new(),
            goal: None,
        };
        let text = serde_json::to_string(&config).unwrap();
        assert!(!text.contains("families"), "{text}");
        assert_eq!(serde_json::from_str::<RunConfig>(&text).unwrap(), config);
        assert_eq!(config.compared_arms().count(), 1);
    }

    #[test]
    fn the_peer_is_stored_only_when_it_is_not_dualperf() {
        let mut config: RunConfig = serde_json::from_str(
            r#"{"points":[],"repeat":1,"port":5201,"arms":[],"baseline":"v4"}"#,
        )
        .unwrap();
        assert_eq!(config.peer, PeerKind::Dualperf);
        assert!(!serde_json::to_string(&config).unwrap().contains("peer"));
        config.peer = PeerKind::Iperf3;
        let text = serde_json::to_string(&config).unwrap();
        assert!(text.contains(r#""peer":"iperf3""#), "{text}");
        assert_eq!(serde_json::from_str::<RunConfig>(&text).unwrap(), config);
    }
}
