//! SYNTHETIC DATA for rendering and storage tests, and for demos: a made-up
//! run on an imaginary 1 Gbit/s routed testbed. Nothing here was measured.
//!
//! The numbers follow the header-overhead model (metrics.md) plus a little
//! deterministic noise, so the charts look like a real lab run would: TCP
//! IPv6 goodput about 1.4 % below IPv4 at large writes, UDP IPv6 losing three
//! times more once datagrams above 1452 B fragment, RTT a few percent higher.
//! The run measures arms ([`SyntheticLab::arms`], the two native arms by
//! default, IPv4 the baseline); an arm on a tunnel carries its extra header
//! (`ArmPath::header_change_bytes`) in the same model. The analysis is
//! `dualperf_stats::analyse` of these made-up trials, exactly as for a
//! measured run. Tests and demos only: never store this as a measurement.
//!
//! Moved here from `dualperf-report/src/synthetic.rs` in the arms redesign;
//! with the default lab the trials, in order, and their numbers are the
//! same as before (each trial now names its arm).

use dualperf_model::{
    observation::Arrival, Arm, ArmId, CpuObservations, FlowCounters, HistogramBucket, HostFacts,
    InterfaceFacts, IntervalSample, IpFamily, LatencySamples, Observations, ProcessCpu,
    RepetitionOrder, RunConfig, RunResult, SocketFacts, SystemCpu, TcpCounters, TestKind, TestSpec,
    TestbedFacts, Trial, TrialOutcome, UdpReceiveCounters,
};

/// The knobs of the imaginary lab; change them to make a "second run".
#[derive(Clone, Debug)]
pub struct SyntheticLab {
    /// Run id.
    pub run_id: String,
    /// Start of the run, milliseconds since the Unix epoch.
    pub started_at_unix_ms: u64,
    /// Seed of the noise.
    pub seed: u64,
    /// IPv6 loss ratio over IPv4's for fragmented UDP datagrams.
    pub v6_fragment_loss_factor: f64,
    /// IPv6 speed factor for CPU-bound small writes (1.0: same as IPv4).
    pub v6_cpu_speed: f64,
    /// Kernel release written into the host facts.
    pub kernel: String,
    /// Message sizes of the tcp-stream and udp-stream sweeps, bytes.
    pub stream_sizes: Vec<u32>,
    /// Message sizes of the tcp-rr and udp-rr points, bytes.
    pub rr_sizes: Vec<u32>,
    /// Add a udp-probe point (one-way delay, PDV) at the end.
    pub probe: bool,
    /// The arms measured, in table order (default: native IPv4 and IPv6,
    /// targets 10.0.2.2 and fd00:2::2).
    pub arms: Vec<Arm>,
    /// The arm every other arm is compared with (default: `v4`).
    pub baseline: ArmId,
}

impl Default for SyntheticLab {
    fn default() -> Self {
        SyntheticLab {
            run_id: "20261121T220000Z-synthetic".to_string(),
            started_at_unix_ms: 1_795_298_400_000,
            seed: 7,
            v6_fragment_loss_factor: 3.0,
            v6_cpu_speed: 0.97,
            kernel: "6.1.0-28-amd64".to_string(),
            stream_sizes: STREAM_SIZES.to_vec(),
            rr_sizes: RR_SIZES.to_vec(),
            probe: true,
            arms: vec![
                Arm::native(IpFamily::V4, Some("10.0.2.2".into())),
                Arm::native(IpFamily::V6, Some("fd00:2::2".into())),
            ],
            baseline: ArmId::native(IpFamily::V4),
        }
    }
}

/// Message sizes of the stream sweeps, bytes (64 B to the largest UDP payload).
pub const STREAM_SIZES: [u32; 8] = [64, 256, 1024, 1408, 1472, 4096, 16384, 65507];
/// Message sizes of the request/response points, bytes.
pub const RR_SIZES: [u32; 3] = [64, 1024, 8192];
/// Link rate of the imaginary testbed, bit/s.
const LINK_BPS: f64 = 1e9;
/// Ethernet header + preamble/SFD + FCS + inter-frame gap, bytes per frame.
const ETHERNET_BYTES: f64 = 14.0 + 24.0;
/// Measured interval of every trial.
const MEASURED_NS: u64 = 2_000_000_000;
/// Time-series resolution.
const SAMPLE_NS: u64 = 50_000_000;
/// Packet interval of the udp-probe point.
const PROBE_INTERVAL_NS: u64 = 20_000_000;

/// The default synthetic run: 22 points × 2 native arms × 3 repetitions, analysed.
pub fn synthetic_run() -> RunResult {
    SyntheticLab::default().build()
}

/// A small synthetic run for snapshot tests: streams at 64 and 1472 B, rr at 64 B.
pub fn small_synthetic_run() -> RunResult {
    SyntheticLab {
        stream_sizes: vec![64, 1472],
        rr_sizes: vec![64],
        ..Default::default()
    }
    .build()
}

/// The lab of the synthetic "after" run: an imaginary kernel upgrade that
/// removed most of IPv6's extra fragment loss and its per-packet CPU cost.
pub fn after_upgrade() -> SyntheticLab {
    SyntheticLab {
        run_id: "20261122T220000Z-synthetic-after".to_string(),
        started_at_unix_ms: SyntheticLab::default().started_at_unix_ms + 86_400_000,
        seed: 11,
        v6_fragment_loss_factor: 1.2,
        v6_cpu_speed: 1.0,
        kernel: "6.12.9-amd64".to_string(),
        ..Default::default()
    }
}

/// The synthetic "after" run (see [`after_upgrade`]).
pub fn synthetic_run_after_upgrade() -> RunResult {
    after_upgrade().build()
}

/// Deterministic xorshift noise, uniform in −1..1.
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
}

/// Extra header bytes an arm's packets carry on the bottleneck (a tunnel's
/// outer header; nothing for native and translated paths).
fn extra_header(arm: &Arm) -> f64 {
    f64::from(arm.path.header_change_bytes().max(0))
}

/// Fragments and on-wire bytes of one UDP datagram of `size` payload bytes on
/// a 1500-byte MTU Ethernet link (IPv6 fragments carry an 8-byte header),
/// for an arm of `family` whose packets carry `extra` bytes of tunnel header.
fn udp_wire(size: u32, family: IpFamily, extra_header: f64) -> (u32, f64) {
    let datagram = f64::from(size) + 8.0;
    let ip = f64::from(family.ip_header_bytes()) + extra_header;
    let (per_fragment, extra) = match family {
        IpFamily::V4 => (1480.0 - extra_header, 0.0),
        IpFamily::V6 => (1448.0 - extra_header, 8.0),
    };
    let fits = datagram + ip <= 1500.0;
    let fragments = if fits {
        1.0
    } else {
        (datagram / per_fragment).ceil()
    };
    let extra = if fits { 0.0 } else { extra };
    (
        fragments as u32,
        datagram + fragments * (ip + extra + ETHERNET_BYTES),
    )
}

/// TCP payload per 1500-byte packet with Linux's 12 bytes of timestamps,
/// less `extra_header` bytes of tunnel header.
fn tcp_payload(family: IpFamily, extra_header: f64) -> f64 {
    1500.0 - f64::from(family.ip_header_bytes()) - 32.0 - extra_header
}

impl SyntheticLab {
    /// Builds the whole run.
    pub fn build(&self) -> RunResult {
        let mut noise = Noise(self.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let points = self.points();
        let mut trials = Vec::new();
        let mut clock_ms = self.started_at_unix_ms;
        for (index, spec) in points.iter().enumerate() {
            for repetition in 0..3 {
                for arm in &self.arms {
                    trials.push(self.trial(index, spec, arm, repetition, clock_ms, &mut noise));
                    clock_ms += 2_500;
                }
            }
        }
        let run = RunResult {
            schema: dualperf_model::RESULT_SCHEMA.to_string(),
            schema_version: dualperf_model::RESULT_SCHEMA_VERSION,
            run_id: self.run_id.clone(),
            started_at_unix_ms: self.started_at_unix_ms,
            finished_at_unix_ms: clock_ms,
            config: RunConfig {
                peer: dualperf_model::PeerKind::Dualperf,
                loads: Vec::new(),
                points,
                arms: self.arms.clone(),
                baseline: self.baseline.clone(),
                repeat: 3,
                order: RepetitionOrder::Interleaved,
                host: None,
                port: 5201,
                client_cpus: vec![0],
                server_cpus: vec![1],
                command_line: vec![
                    "dualperf".into(),
                    "lab".into(),
                    "--preset".into(),
                    "one-router".into(),
                ],
                contrasts: Vec::new(),
                goal: None,
            },
            client_host: self.host("client"),
            server_host: Some(self.host("server")),
            testbed: Some(testbed()),
            trials,
            analysis: None,
            complete: true,
            errors: Vec::new(),
        };
        crate::analysed(run)
    }

    fn points(&self) -> Vec<TestSpec> {
        let spec = |kind, size_bytes| TestSpec {
            send_budget: None,
            congestion_control: None,
            media: None,
            tuning: Default::default(),
            kind,
            size_bytes,
            duration_ms: 2_000,
            warmup_ms: 500,
            parallel_streams: 1,
            reverse: false,
            rate: None,
            sample_interval_ms: 50,
            probe_interval_us: None,
        };
        let mut points = Vec::new();
        for kind in [TestKind::TcpStream, TestKind::UdpStream] {
            points.extend(self.stream_sizes.iter().map(|&size| spec(kind, size)));
        }
        for kind in [TestKind::TcpRr, TestKind::UdpRr] {
            points.extend(self.rr_sizes.iter().map(|&size| spec(kind, size)));
        }
        if self.probe {
            // A G.711-like probe: 172-byte payloads every 20 ms.
            points.push(TestSpec {
                probe_interval_us: Some(PROBE_INTERVAL_NS / 1_000),
                ..spec(TestKind::UdpProbe, 172)
            });
        }
        points
    }

    /// Expected goodput of a stream point, bit/s, before noise and loss.
    fn goodput(&self, spec: &TestSpec, arm: &Arm) -> f64 {
        let family = arm.family;
        let speed = if family == IpFamily::V6 {
            self.v6_cpu_speed
        } else {
            1.0
        };
        let size = f64::from(spec.size_bytes);
        match spec.kind {
            TestKind::TcpStream => {
                let cap =
                    LINK_BPS * tcp_payload(family, extra_header(arm)) / (1500.0 + ETHERNET_BYTES);
                (size * 8.0 * 420_000.0 * speed).min(cap)
            }
            _ => {
                let (_, wire) = udp_wire(spec.size_bytes, family, extra_header(arm));
                (size * 8.0 * 520_000.0 * speed).min(LINK_BPS * size / wire)
            }
        }
    }

    fn loss_ratio(&self, spec: &TestSpec, arm: &Arm) -> f64 {
        let (fragments, _) = udp_wire(spec.size_bytes, arm.family, extra_header(arm));
        match (fragments > 1, arm.family) {
            (false, _) => 0.0008,
            (true, IpFamily::V4) => 0.004,
            (true, IpFamily::V6) => 0.004 * self.v6_fragment_loss_factor,
        }
    }

    fn rtt_ns(&self, spec: &TestSpec, family: IpFamily) -> f64 {
        let base = if spec.kind == TestKind::TcpRr {
            52_000.0
        } else {
            46_000.0
        };
        let serialisation = 2.0 * f64::from(spec.size_bytes) * 8.0 / LINK_BPS * 1e9;
        let v6 = if family == IpFamily::V6 { 1.03 } else { 1.0 };
        (base + serialisation) * v6
    }

    fn trial(
        &self,
        point: usize,
        spec: &TestSpec,
        arm: &Arm,
        repetition: u32,
        start_ms: u64,
        noise: &mut Noise,
    ) -> Trial {
        let family = arm.family;
        let mut observations = Observations {
            measured_ns: MEASURED_NS,
            fragments_per_datagram: 1,
            socket: SocketFacts {
                send_buffer_bytes: Some(425_984),
                receive_buffer_bytes: Some(425_984),
                client_cpus: vec![0],
                server_cpus: vec![1],
                path_mtu_bytes: Some(1500),
                ..Default::default()
            },
            notes: vec!["receive timestamps: SO_TIMESTAMPNS".to_string()],
            ..Default::default()
        };
        let size = u64::from(spec.size_bytes);
        let intervals = MEASURED_NS / SAMPLE_NS;
        match spec.kind {
            TestKind::TcpStream | TestKind::UdpStream => {
                // Noise only below the ceiling: nothing beats the link.
                let rate = self.goodput(spec, arm) * (1.0 - 0.006 * noise.next().abs());
                let loss = if spec.kind == TestKind::UdpStream {
                    self.loss_ratio(spec, arm) * (1.0 + 0.2 * noise.next())
                } else {
                    0.0
                };
                // Intervals first (a little wobble, and a short dip at 0.6 s in
                // every trial); the totals are their sums.
                let per_interval =
                    rate * (SAMPLE_NS as f64 / 1e9) / 8.0 / size as f64 / (1.0 - loss);
                // Fractional losses carry over, so that rare loss still shows.
                let mut owed_loss = 0.0;
                for index in 0..intervals {
                    let dip = if index == 12 { 0.85 } else { 1.0 };
                    let sent = (per_interval * dip * (1.0 + 0.02 * noise.next())) as u64;
                    owed_loss += sent as f64 * loss;
                    let lost = (owed_loss.floor() as u64).min(sent);
                    owed_loss -= lost as f64;
                    let received = sent - lost;
                    observations.intervals.push(IntervalSample {
                        end_ns: (index + 1) * SAMPLE_NS,
                        length_ns: SAMPLE_NS,
                        sent_bytes: sent * size,
                        sent_packets: sent,
                        received_bytes: received * size,
                        received_packets: received,
                        lost_packets: (spec.kind == TestKind::UdpStream).then_some(sent - received),
                        mean_delay_ns: (spec.kind == TestKind::UdpStream)
                            .then_some(60_000 + (noise.next().abs() * 20_000.0) as u64),
                    });
                }
                let sent_packets: u64 = observations.intervals.iter().map(|i| i.sent_packets).sum();
                let received_packets: u64 = observations
                    .intervals
                    .iter()
                    .map(|i| i.received_packets)
                    .sum();
                let sent_bytes = sent_packets * size;
                observations.sender = FlowCounters {
                    bytes: sent_bytes,
                    packets: sent_packets,
                };
                observations.receiver = FlowCounters {
                    bytes: received_packets * size,
                    packets: received_packets,
                };
                if spec.kind == TestKind::UdpStream {
                    let (fragments, _) = udp_wire(spec.size_bytes, family, extra_header(arm));
                    observations.fragments_per_datagram = fragments;
                    let lost = sent_packets - received_packets;
                    observations.udp = Some(UdpReceiveCounters {
                        sent: sent_packets,
                        received: received_packets,
                        duplicates: 0,
                        reordered: (noise.next().abs() * 3.0) as u64,
                        max_reorder_extent: 1,
                        lost,
                        loss_episodes: lost * 2 / 3,
                        loss_wait_ms: 2_000,
                        jitter_ns: 4_000 + (noise.next().abs() * 3_000.0) as u64,
                        arrivals: Vec::new(),
                        arrivals_limit: 10_000,
                        receive_timestamp_source: "SO_TIMESTAMPNS".to_string(),
                        clocks_shared: true,
                    });
                } else {
                    let segment = tcp_payload(family, extra_header(arm)) as u64;
                    let segments = sent_bytes / segment + 1;
                    observations.tcp = Some(TcpCounters {
                        segments_sent: segments,
                        segments_retransmitted: segments / 5_000,
                        bytes_retransmitted: segments / 5_000 * segment,
                        bytes_sent: sent_bytes + segments / 5_000 * segment,
                        smoothed_rtt_us: 180,
                        send_mss_bytes: segment as u32,
                        congestion_window_segments: 64,
                    });
                }
                let cpu_ratio = (0.30 + 0.55 * (1.0 - (size as f64 / 65_507.0).sqrt()))
                    * (1.0 + 0.02 * noise.next());
                observations.cpu = cpu(cpu_ratio, family);
            }
            TestKind::TcpRr | TestKind::UdpRr => {
                let mean = self.rtt_ns(spec, family) * (1.0 + 0.01 * noise.next());
                let count = (MEASURED_NS as f64 / mean) as u64;
                observations.latency = Some(latency(mean, count, noise));
                observations.sender = FlowCounters {
                    bytes: count * size,
                    packets: count,
                };
                observations.receiver = observations.sender;
                for index in 0..intervals {
                    let transactions = count / intervals;
                    observations.intervals.push(IntervalSample {
                        end_ns: (index + 1) * SAMPLE_NS,
                        length_ns: SAMPLE_NS,
                        sent_bytes: transactions * size,
                        sent_packets: transactions,
                        received_bytes: transactions * size,
                        received_packets: transactions,
                        lost_packets: None,
                        mean_delay_ns: Some((mean * (1.0 + 0.02 * noise.next())) as u64),
                    });
                }
                observations.cpu = cpu(0.45 + 0.02 * noise.next(), family);
            }
            TestKind::UdpProbe | TestKind::Media => {
                probe(&mut observations, family, repetition, noise)
            }
            TestKind::TcpConnect => {}
        }
        Trial {
            point,
            spec: spec.clone(),
            arm: arm.id.clone(),
            family,
            repetition,
            started_at_unix_ms: start_ms,
            local_address: Some(match family {
                IpFamily::V4 => "10.0.1.2:40312".to_string(),
                IpFamily::V6 => "[fd00:1::2]:40314".to_string(),
            }),
            remote_address: Some(match family {
                IpFamily::V4 => "10.0.2.2:5201".to_string(),
                IpFamily::V6 => "[fd00:2::2]:5201".to_string(),
            }),
            server_seen_family: Some(family),
            outcome: TrialOutcome::Ok(Box::new(observations)),
        }
    }

    fn host(&self, role: &str) -> HostFacts {
        HostFacts {
            tool_version: "0.1.0".to_string(),
            hostname: "synthetic-lab".to_string(),
            kernel: format!("{} #1 SMP PREEMPT_DYNAMIC Debian", self.kernel),
            os: "Debian GNU/Linux 12 (bookworm)".to_string(),
            cpu_model: "Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz".to_string(),
            cpu_count: 2,
            memory_bytes: 24 * 1024 * 1024 * 1024,
            tcp_congestion_control: "cubic".to_string(),
            default_qdisc: "pfifo_fast".to_string(),
            interfaces: vec![InterfaceFacts {
                name: "eth0".to_string(),
                mtu_bytes: 1500,
                qdisc: Some("htb".to_string()),
                addresses: if role == "client" {
                    vec!["10.0.1.2/24".into(), "fd00:1::2/64".into()]
                } else {
                    vec!["10.0.2.2/24".into(), "fd00:2::2/64".into()]
                },
                offloads: vec!["tso".into(), "gso".into(), "gro".into()],
            }],
            netns: Some(format!("dsp-synth-{role}")),
        }
    }
}

/// An isochronous probe stream over a shared clock: one-way delay of about
/// 30 µs (IPv6 a little more), exponential-looking queueing delay, and one
/// lost packet in the second IPv6 repetition.
fn probe(observations: &mut Observations, family: IpFamily, repetition: u32, noise: &mut Noise) {
    let packets = MEASURED_NS / PROBE_INTERVAL_NS;
    let base = if family == IpFamily::V6 {
        31_500.0
    } else {
        30_000.0
    };
    let lost_sequence = (family == IpFamily::V6 && repetition == 1).then_some(37);
    let mut arrivals = Vec::new();
    for sequence in 0..packets {
        if Some(sequence) == lost_sequence {
            continue;
        }
        let queueing = -(1.0 - noise.next().abs()).max(1e-6).ln() * 2_500.0;
        let sent_ns = (sequence * PROBE_INTERVAL_NS) as i64;
        arrivals.push(Arrival {
            sequence,
            sent_ns,
            received_ns: sent_ns + (base + queueing) as i64,
        });
    }
    let received = arrivals.len() as u64;
    for index in 0..MEASURED_NS / SAMPLE_NS {
        let (start, end) = ((index * SAMPLE_NS) as i64, ((index + 1) * SAMPLE_NS) as i64);
        let inside: Vec<&Arrival> = arrivals
            .iter()
            .filter(|a| a.sent_ns >= start && a.sent_ns < end)
            .collect();
        let delays: i64 = inside.iter().map(|a| a.received_ns - a.sent_ns).sum();
        observations.intervals.push(IntervalSample {
            end_ns: end as u64,
            length_ns: SAMPLE_NS,
            sent_bytes: inside.len() as u64 * 172,
            sent_packets: inside.len() as u64,
            received_bytes: inside.len() as u64 * 172,
            received_packets: inside.len() as u64,
            lost_packets: Some(0),
            mean_delay_ns: (!inside.is_empty()).then(|| (delays / inside.len() as i64) as u64),
        });
    }
    observations.sender = FlowCounters {
        bytes: packets * 172,
        packets,
    };
    observations.receiver = FlowCounters {
        bytes: received * 172,
        packets: received,
    };
    observations.udp = Some(UdpReceiveCounters {
        sent: packets,
        received,
        lost: packets - received,
        loss_episodes: packets - received,
        loss_wait_ms: 2_000,
        jitter_ns: 1_800,
        arrivals_limit: 10_000,
        arrivals,
        receive_timestamp_source: "SO_TIMESTAMPNS".to_string(),
        clocks_shared: true,
        ..Default::default()
    });
    observations.cpu = cpu(0.02, family);
}

fn cpu(ratio: f64, family: IpFamily) -> CpuObservations {
    let busy = (ratio * MEASURED_NS as f64) as u64;
    let v6 = if family == IpFamily::V6 { 1.02 } else { 1.0 };
    CpuObservations {
        client: ProcessCpu {
            user_ns: busy / 5,
            system_ns: ((busy * 4 / 5) as f64 * v6) as u64,
            wall_ns: MEASURED_NS,
            involuntary_switches: 3,
            run_queue_wait_ns: None,
            busiest_thread_demand_ns: None,
        },
        server: Some(ProcessCpu {
            user_ns: busy / 6,
            system_ns: busy * 4 / 6,
            wall_ns: MEASURED_NS,
            involuntary_switches: 2,
            run_queue_wait_ns: None,
            busiest_thread_demand_ns: None,
        }),
        system: Some(SystemCpu {
            user: 40,
            system: 90,
            irq: 0,
            softirq: 60,
            steal: 0,
            idle: 210,
            cpus: 2,
            pressure_some_us: Some(1_500),
        }),
        pinned: None,
        path: None,
    }
}

/// A log-normal-looking RTT histogram around `mean_ns`, in HDR-like buckets.
fn latency(mean_ns: f64, count: u64, noise: &mut Noise) -> LatencySamples {
    let mut histogram = Vec::new();
    let mut remaining = count;
    let mut sum = 0u128;
    let mut squares = 0.0;
    for step in 0..24 {
        let factor = 0.80 + 0.025 * f64::from(step);
        let value_ns = (mean_ns * factor / 100.0).round() as u64 * 100;
        let weight = (-(f64::from(step) - 7.0).powi(2) / 10.0).exp() + 0.01;
        let bucket = if step == 23 {
            remaining
        } else {
            ((count as f64) * weight / 5.8).min(remaining as f64) as u64
        };
        remaining -= bucket;
        if bucket > 0 {
            histogram.push(HistogramBucket {
                value_ns,
                count: bucket,
            });
            sum += u128::from(value_ns) * u128::from(bucket);
            squares += (value_ns as f64).powi(2) * bucket as f64;
        }
    }
    let _ = noise.next();
    LatencySamples {
        count,
        min_ns: histogram.first().map_or(0, |b| b.value_ns - 50),
        max_ns: histogram.last().map_or(0, |b| b.value_ns + 30),
        raw_ns: histogram.iter().take(8).map(|b| b.value_ns).collect(),
        raw_limit: 8,
        histogram,
        sum_ns: sum,
        sum_squares_ns2: squares,
    }
}

fn testbed() -> TestbedFacts {
    use dualperf_model::testbed::{TestbedLink, TestbedNode};
    let node = |name: &str, role: &str, addresses: &[&str]| TestbedNode {
        name: name.to_string(),
        netns: format!("dsp-synth-{name}"),
        role: role.to_string(),
        addresses: addresses.iter().map(|a| a.to_string()).collect(),
        forwarding: role == "router",
        ..Default::default()
    };
    TestbedFacts {
        name: "one-router".to_string(),
        description: "client — router — server, 1 Gbit/s htb on the router's egress".to_string(),
        nodes: vec![
            node("client", "host", &["10.0.1.2/24", "fd00:1::2/64"]),
            node("router", "router", &["10.0.1.1/24", "fd00:1::1/64", "10.0.2.1/24", "fd00:2::1/64"]),
            node("server", "host", &["10.0.2.2/24", "fd00:2::2/64"]),
        ],
        links: vec![
            TestbedLink {
                between: ["client".into(), "router".into()],
                interfaces: ["dsp-c0".into(), "dsp-r0".into()],
                mtu_bytes: 1500,
                shaping: None,
                ..Default::default()
            },
            TestbedLink {
                between: ["router".into(), "server".into()],
                interfaces: ["dsp-r1".into(), "dsp-s0".into()],
                mtu_bytes: 1500,
                shaping: Some("htb 1 Gbit/s".to_string()),
                ..Default::default()
            },
        ],
        client_node: "client".to_string(),
        server_node: "server".to_string(),
        notes: vec![
            "SYNTHETIC DATA: made up by dualperf_fixtures::synthetic for rendering tests; nothing was measured".to_string(),
            "netem is missing on this kernel: no added delay or loss".to_string(),
        ],
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::{ArmPath, MetricId, TunnelPlacement};

    #[test]
    fn the_default_run_is_two_native_arms_analysed_and_marked_synthetic() {
        let run = small_synthetic_run();
        let ids: Vec<&str> = run.config.arms.iter().map(|a| a.id.as_str()).collect();
        assert_eq!(ids, ["v4", "v6"]);
        assert_eq!(run.config.baseline.as_str(), "v4");
        assert!(run.trials.iter().all(|t| t.arm == ArmId::native(t.family)));
        let analysis = run.analysis.as_ref().unwrap();
        assert!(!analysis.comparisons.is_empty());
        let notes = &run.testbed.as_ref().unwrap().notes;
        assert!(notes[0].starts_with("SYNTHETIC DATA"), "{notes:?}");
    }

    #[test]
    fn a_tunnel_arm_pays_its_outer_header_in_tcp_goodput() {
        let mut lab = SyntheticLab {
            stream_sizes: vec![65507],
            rr_sizes: vec![],
            probe: false,
            ..Default::default()
        };
        lab.arms.push(crate::arm(
            "v6-6in4",
            IpFamily::V6,
            ArmPath::SixInFour {
                placement: TunnelPlacement::RouterRouter,
            },
        ));
        let run = lab.build();
        let analysis = run.analysis.unwrap();
        let relative = |arm: &str| {
            analysis
                .comparisons
                .iter()
                .find(|c| c.point == 0 && c.metric == MetricId::GoodputBps && c.arm.as_str() == arm)
                .and_then(|c| c.relative_difference)
                .unwrap()
        };
        assert!(relative("v6-6in4") < relative("v6"));
        assert!(relative("v6") < 0.0);
    }
}
