//! Which metrics one trial yields, by test kind, and their values.
//!
//! | test | metrics |
//! |---|---|
//! | tcp-stream | goodput, sender throughput, wire throughput, retransmitted segments, TCP efficiency, CPU, service demand |
//! | udp-stream | goodput, sender throughput, wire throughput, sent/received pps, loss ratio and episodes, jitter, reordering ratio and extent, duplicates, CPU, service demand |
//! | tcp-rr, udp-rr | RTT mean, sd, min, p50, p90, p99, p99.9; transactions/s; CPU |
//! | tcp-connect | setup time mean, min, p50, p90, p99; connections/s; CPU |
//! | media | goodput, sender rate, pps, one-way delay, PDV, IPDV, jitter, loss, loss episodes, longest loss burst, reordering, duplicates; voice: MOS (adaptive and fixed jitter buffer, worst 10 s window), playout loss, jitter buffer, mouth-to-ear delay; video: frame delivery ratio and frame delay ([`media`]) |
//! | udp-probe | one-way delay (shared clocks only), PDV, IPDV, jitter, loss, loss episodes, reordering, duplicates, voice MOS (shared clocks only); RTT when probes are echoed; against a STAMP reflector also forward/reverse loss, reverse one-way delay, DSCP re-marked and ECN changed (stats `stamp` module) |
//!
//! UDP loss, reordering, duplicates and jitter come from replaying the
//! arrival trace through `dualperf-meter` ([`crate::ippm`]) when the trace is
//! complete (every received copy recorded); when the engine bounded the
//! trace, the engine's own running counters (kept live by the same meter)
//! are used instead, and delay metrics use the recorded prefix of the trace.
//! A metric that cannot be computed is absent from `values` and listed in
//! `missing` with the reason.
//!
//! Wire throughput counts the headers of the trial's **first hop** (the
//! client's link): the arm's own family, plus the 6in4 header when the
//! tunnel starts on the client host ([`measure_trial_on`]).

pub mod media;
mod stamp;

use dualperf_meter::DeliveryMetrics;
use dualperf_model::observation::{Observations, UdpReceiveCounters};
use dualperf_model::{ArmPath, MetricId, TestKind, TestSpec, Trial, TrialOutcome, TunnelPlacement};

use crate::cpu::{process_cpu_cores, service_demand_us_per_mib, softirq_ratio, system_busy_ratio};
use crate::ippm::replay_trace;
use crate::latency::{latency_distribution, LatencyDistribution};
use crate::overhead::{
    message_cost, packet_overhead, Encapsulation, OverheadSettings, PathKind, Transport,
    DEFAULT_MTU_BYTES,
};
use crate::throughput::{
    goodput_bps, received_pps, sender_throughput_bps, sent_pps, tcp_efficiency_ratio,
};
use crate::voice::{mos, CallConditions, Codec};

/// The metrics of one trial, and the ones that could not be computed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrialMetrics {
    /// Computed metrics, every value finite.
    pub values: Vec<(MetricId, f64)>,
    /// Metrics that apply to this test but could not be computed: (metric, reason).
    pub missing: Vec<(MetricId, String)>,
}

impl TrialMetrics {
    /// Records `value` under `metric`, or the reason when it is `None` or not finite.
    pub(crate) fn record(&mut self, metric: MetricId, value: Option<f64>, reason: &str) {
        match value.filter(|v| v.is_finite()) {
            Some(value) => self.values.push((metric, value)),
            None => self.missing.push((metric, reason.to_string())),
        }
    }

    /// The value of `metric`, if computed.
    pub fn value(&self, metric: MetricId) -> Option<f64> {
        self.values
            .iter()
            .find(|(m, _)| *m == metric)
            .map(|&(_, v)| v)
    }

    /// Why `metric` is missing, if it applies but could not be computed.
    pub fn missing_reason(&self, metric: MetricId) -> Option<&str> {
        self.missing
            .iter()
            .find(|(m, _)| *m == metric)
            .map(|(_, reason)| reason.as_str())
    }
}

/// Every metric of `trial` (see the module table); empty for a failed trial.
/// The trial is taken to run on a native path; see [`measure_trial_on`].
pub fn trial_metrics(trial: &Trial) -> Vec<(MetricId, f64)> {
    measure_trial(trial).values
}

/// Every metric of `trial` on a native path, with reasons for the ones that
/// are missing.
pub fn measure_trial(trial: &Trial) -> TrialMetrics {
    measure_trial_on(trial, &ArmPath::Native)
}

/// Every metric of `trial`, measured on an arm whose packets take `path`
/// (which decides the headers wire throughput counts), with reasons for
/// the ones that are missing.
pub fn measure_trial_on(trial: &Trial, path: &ArmPath) -> TrialMetrics {
    let first_hop = first_hop_encapsulation(path);
    let mut metrics = TrialMetrics::default();
    let observations = match &trial.outcome {
        TrialOutcome::Ok(observations) => observations,
        TrialOutcome::Failed { .. } => return metrics,
    };
    let o = observations.as_ref();
    match trial.spec.kind {
        TestKind::TcpStream => {
            record_stream_rates(&mut metrics, o);
            let wire = wire_throughput_bps(trial, o, Transport::Tcp, first_hop);
            metrics.record(MetricId::WireThroughputBps, wire, "empty measured interval");
            let tcp = o.tcp.as_ref();
            let no_tcp_info = "no TCP_INFO counters were recorded";
            metrics.record(
                MetricId::RetransmittedSegments,
                tcp.map(|t| t.segments_retransmitted as f64),
                no_tcp_info,
            );
            let no_bytes = if tcp.is_some() {
                "TCP_INFO reported no bytes sent (tcpi_bytes_sent is 0 or unsupported)"
            } else {
                no_tcp_info
            };
            metrics.record(
                MetricId::TcpEfficiencyRatio,
                tcp.and_then(tcp_efficiency_ratio),
                no_bytes,
            );
            record_loaded_probe(&mut metrics, o, &trial.spec);
            record_cpu(&mut metrics, &trial.spec, o, true);
        }
        TestKind::UdpStream => {
            record_stream_rates(&mut metrics, o);
            let wire = wire_throughput_bps(trial, o, Transport::Udp, first_hop);
            metrics.record(MetricId::WireThroughputBps, wire, "empty measured interval");
            metrics.record(MetricId::SentPps, sent_pps(o), "empty measured interval");
            metrics.record(
                MetricId::ReceivedPps,
                received_pps(o),
                "empty measured interval",
            );
            match &o.udp {
                Some(udp) => record_udp_delivery(&mut metrics, udp, None),
                None => record_all_missing(&mut metrics, &UDP_DELIVERY, "no UDP receive counters"),
            }
            record_loaded_probe(&mut metrics, o, &trial.spec);
            record_cpu(&mut metrics, &trial.spec, o, true);
        }
        TestKind::TcpRr | TestKind::UdpRr => {
            record_latency(&mut metrics, o, &RTT_METRICS);
            let tps = o.latency.as_ref().and_then(|l| per_second(l.count, o));
            metrics.record(
                MetricId::TransactionsPerSecond,
                tps,
                "no transactions were timed",
            );
            record_cpu(&mut metrics, &trial.spec, o, false);
        }
        TestKind::TcpConnect => {
            record_latency(&mut metrics, o, &CONNECT_METRICS);
            let cps = o.latency.as_ref().and_then(|l| per_second(l.count, o));
            metrics.record(
                MetricId::ConnectionsPerSecond,
                cps,
                "no connections were timed",
            );
            record_cpu(&mut metrics, &trial.spec, o, false);
        }
        TestKind::Media => {
            record_stream_rates(&mut metrics, o);
            metrics.record(MetricId::SentPps, sent_pps(o), "empty measured interval");
            metrics.record(
                MetricId::ReceivedPps,
                received_pps(o),
                "empty measured interval",
            );
            match &o.udp {
                Some(udp) => {
                    record_udp_delivery(&mut metrics, udp, Some(&trial.spec));
                    let longest = replay_trace(udp)
                        .filter(|_| is_complete_trace(udp))
                        .map(|t| t.counts.loss.max_length as f64);
                    metrics.record(
                        MetricId::LossBurstMaxPackets,
                        longest,
                        "the arrival trace is incomplete or empty",
                    );
                }
                None => {
                    record_all_missing(&mut metrics, &UDP_DELIVERY, "no UDP receive counters");
                    record_all_missing(&mut metrics, &PROBE_DELAY, "no UDP receive counters");
                }
            }
            media::record_media(&mut metrics, o.udp.as_ref(), trial.spec.media.as_ref());
            // The stream as Ethernet frames on the first hop (native
            // packets: a tunnel started on the host has other headers).
            let link = (first_hop == Encapsulation::None)
                .then(|| crate::media_link::media_on_link(o, trial.family))
                .flatten();
            let why = if first_hop == Encapsulation::None {
                "empty measured interval"
            } else {
                "the header model counts native packets only (a tunnel starts on this host)"
            };
            metrics.record(
                MetricId::MediaEthernetBps,
                link.map(|l| l.ethernet_bps),
                why,
            );
            metrics.record(
                MetricId::MediaEthernetFrameBytes,
                link.map(|l| l.frame_bytes),
                why,
            );
            record_cpu(&mut metrics, &trial.spec, o, false);
        }
        TestKind::UdpProbe => {
            match &o.udp {
                Some(udp) => {
                    record_udp_delivery(&mut metrics, udp, Some(&trial.spec));
                }
                None => {
                    record_all_missing(&mut metrics, &UDP_DELIVERY, "no UDP receive counters");
                    record_all_missing(&mut metrics, &PROBE_DELAY, "no UDP receive counters");
                }
            }
            if o.latency.is_some() {
                record_latency(&mut metrics, o, &RTT_METRICS);
            }
            if let Some(stamp) = &o.stamp {
                stamp::record_stamp(&mut metrics, stamp);
            }
            record_cpu(&mut metrics, &trial.spec, o, false);
        }
    }
    metrics
}

/// Reads one statistic of a latency distribution.
type Statistic = fn(&LatencyDistribution) -> Option<f64>;

/// The RTT metrics and the statistic each reads, in catalogue order.
const RTT_METRICS: [(MetricId, Statistic); 7] = [
    (MetricId::RttMeanNs, |d| Some(d.mean_ns)),
    (MetricId::RttSdNs, |d| d.standard_deviation_ns),
    (MetricId::RttMinNs, |d| Some(d.min_ns)),
    (MetricId::RttP50Ns, |d| Some(d.p50_ns)),
    (MetricId::RttP90Ns, |d| Some(d.p90_ns)),
    (MetricId::RttP99Ns, |d| Some(d.p99_ns)),
    (MetricId::RttP999Ns, |d| Some(d.p999_ns)),
];
/// The connection-setup metrics and the statistic each reads.
const CONNECT_METRICS: [(MetricId, Statistic); 5] = [
    (MetricId::ConnectMeanNs, |d| Some(d.mean_ns)),
    (MetricId::ConnectMinNs, |d| Some(d.min_ns)),
    (MetricId::ConnectP50Ns, |d| Some(d.p50_ns)),
    (MetricId::ConnectP90Ns, |d| Some(d.p90_ns)),
    (MetricId::ConnectP99Ns, |d| Some(d.p99_ns)),
];
/// The UDP delivery metrics.
const UDP_DELIVERY: [MetricId; 6] = [
    MetricId::LossRatio,
    MetricId::LossEpisodes,
    MetricId::JitterNs,
    MetricId::ReorderedRatio,
    MetricId::MaxReorderExtentPackets,
    MetricId::DuplicatePackets,
];
/// The probe delay metrics.
const PROBE_DELAY: [MetricId; 9] = [
    MetricId::OwdMinNs,
    MetricId::OwdMeanNs,
    MetricId::OwdP50Ns,
    MetricId::OwdP99Ns,
    MetricId::PdvP50Ns,
    MetricId::PdvP99Ns,
    MetricId::Pdv999Ns,
    MetricId::IpdvMeanAbsNs,
    MetricId::IpdvP99AbsNs,
];

fn record_all_missing(metrics: &mut TrialMetrics, list: &[MetricId], reason: &str) {
    for &metric in list {
        metrics.record(metric, None, reason);
    }
}

/// Events per second over the measured interval.
fn per_second(count: u64, o: &Observations) -> Option<f64> {
    (o.measured_ns > 0 && count > 0).then(|| count as f64 / (o.measured_ns as f64 / 1e9))
}

/// The tunnel header on the client's own link: 6in4 started on the client
/// host (host to host, host to router); none for every other path (the
/// tunnel or translator sits further along).
pub(crate) fn first_hop_encapsulation(path: &ArmPath) -> Encapsulation {
    match path {
        ArmPath::SixInFour {
            placement: TunnelPlacement::HostHost | TunnelPlacement::HostRouter,
        } => Encapsulation::SixInFour,
        _ => Encapsulation::None,
    }
}

/// Goodput scaled to bytes on the first hop by the header model: full-size
/// TCP segments, or datagrams of the point's size (fragmented if needed), on
/// Ethernet with on-wire extras at the trial's path MTU (else 1500 on the
/// link). A tunnel started on the host adds its header inside the link MTU:
/// the socket's path MTU is then the tunnel's, the link's is that plus the
/// tunnel header.
fn wire_throughput_bps(
    trial: &Trial,
    o: &Observations,
    transport: Transport,
    encapsulation: Encapsulation,
) -> Option<f64> {
    carried_bps(trial, o, transport, encapsulation, true)
}

/// The goodput scaled up by the headers each packet carries on the first
/// hop, bit/s: with `count_wire_extras` the Ethernet preamble, FCS and gap
/// too (wire throughput), without them the frame as a qdisc counts it
/// (payload + transport + IP + 14 B, what htb limits).
pub(crate) fn carried_bps(
    trial: &Trial,
    o: &Observations,
    transport: Transport,
    encapsulation: Encapsulation,
    count_wire_extras: bool,
) -> Option<f64> {
    let efficiency = link_efficiency(trial, o, transport, encapsulation, count_wire_extras)?;
    goodput_bps(o).map(|goodput| goodput / efficiency)
}

/// [`carried_bps`] of what the sender sent rather than what arrived, bit/s.
pub(crate) fn offered_carried_bps(
    trial: &Trial,
    o: &Observations,
    transport: Transport,
    encapsulation: Encapsulation,
) -> Option<f64> {
    let efficiency = link_efficiency(trial, o, transport, encapsulation, false)?;
    crate::throughput::sender_throughput_bps(o).map(|sent| sent / efficiency)
}

/// Payload bytes per byte on the first hop (see [`carried_bps`]).
fn link_efficiency(
    trial: &Trial,
    o: &Observations,
    transport: Transport,
    encapsulation: Encapsulation,
    count_wire_extras: bool,
) -> Option<f64> {
    let mtu_bytes = o
        .socket
        .path_mtu_bytes
        .map_or(DEFAULT_MTU_BYTES, |mtu| mtu + encapsulation.added_bytes());
    let settings = OverheadSettings {
        count_wire_extras,
        ..OverheadSettings::linux(mtu_bytes)
    };
    let family = trial.family;
    if !encapsulation.inner_families().contains(&family) {
        return None;
    }
    let path = PathKind {
        family,
        transport,
        encapsulation,
    };
    Some(match transport {
        Transport::Tcp => packet_overhead(path, &settings).ok()?.efficiency_ratio,
        Transport::Udp => {
            message_cost(path, &settings, trial.spec.size_bytes)
                .ok()?
                .efficiency_ratio
        }
    })
}

fn record_stream_rates(metrics: &mut TrialMetrics, o: &Observations) {
    metrics.record(
        MetricId::GoodputBps,
        goodput_bps(o),
        "empty measured interval",
    );
    metrics.record(
        MetricId::SenderThroughputBps,
        sender_throughput_bps(o),
        "empty measured interval",
    );
}

fn record_latency(metrics: &mut TrialMetrics, o: &Observations, list: &[(MetricId, Statistic)]) {
    let distribution = o.latency.as_ref().and_then(latency_distribution);
    let reason = match &o.latency {
        None => "no latency samples were recorded",
        Some(l) if l.count == 0 => "no transactions completed",
        Some(_) => "latency histogram missing and raw series incomplete",
    };
    for &(metric, statistic) in list {
        let value = distribution.as_ref().and_then(statistic);
        let reason = if distribution.is_some() {
            "fewer than 2 samples"
        } else {
            reason
        };
        metrics.record(metric, value, reason);
    }
}

/// True when every received copy is in the trace, so trace metrics cover
/// the whole measured interval.
fn is_complete_trace(udp: &UdpReceiveCounters) -> bool {
    !udp.arrivals.is_empty() && udp.arrivals.len() as u64 == udp.received + udp.duplicates
}

/// The probe metrics and the metrics they become when the probe ran beside a load.
const LOADED_METRICS: [(MetricId, MetricId); 6] = [
    (MetricId::OwdP50Ns, MetricId::LoadedOwdP50Ns),
    (MetricId::OwdP99Ns, MetricId::LoadedOwdP99Ns),
    (MetricId::PdvP99Ns, MetricId::LoadedPdvP99Ns),
    (MetricId::JitterNs, MetricId::LoadedJitterNs),
    (MetricId::ReorderedRatio, MetricId::LoadedReorderedRatio),
    (MetricId::LossRatio, MetricId::LoadedLossRatio),
];

/// Latency under load: the `udp-probe` metrics of the probe stream that ran
/// beside a stream trial (`--probe`), as their under-load metrics. Nothing is
/// recorded for a trial that ran without a probe.
fn record_loaded_probe(metrics: &mut TrialMetrics, o: &Observations, spec: &TestSpec) {
    let Some(probe) = &o.probe else { return };
    let probe_spec = TestSpec {
        kind: TestKind::UdpProbe,
        size_bytes: probe.size_bytes,
        probe_interval_us: Some(probe.interval_us),
        ..spec.clone()
    };
    let mut probe_metrics = TrialMetrics::default();
    record_udp_delivery(&mut probe_metrics, &probe.udp, Some(&probe_spec));
    for (metric, loaded) in LOADED_METRICS {
        let reason = probe_metrics
            .missing_reason(metric)
            .unwrap_or("the probe stream recorded nothing");
        metrics.record(loaded, probe_metrics.value(metric), reason);
    }
}

/// Records loss, reordering, duplicates and jitter; with a probe `spec`,
/// also the delay metrics and the voice MOS.
fn record_udp_delivery(
    metrics: &mut TrialMetrics,
    udp: &UdpReceiveCounters,
    probe: Option<&TestSpec>,
) {
    let trace = replay_trace(udp);
    let nothing_sent = "the sender reported no datagrams sent";
    match trace.as_ref().filter(|_| is_complete_trace(udp)) {
        Some(t) => {
            metrics.record(MetricId::LossRatio, t.counts.loss_ratio(), nothing_sent);
            metrics.record(
                MetricId::LossEpisodes,
                Some(t.counts.loss.episodes as f64),
                "",
            );
            metrics.record(
                MetricId::JitterNs,
                t.jitter_ns,
                "fewer than 2 datagrams received",
            );
            metrics.record(
                MetricId::ReorderedRatio,
                t.counts.reordered_ratio(),
                "nothing received",
            );
            metrics.record(
                MetricId::MaxReorderExtentPackets,
                Some(t.counts.max_reorder_extent as f64),
                "",
            );
            metrics.record(
                MetricId::DuplicatePackets,
                Some(t.counts.duplicates as f64),
                "",
            );
        }
        None => {
            let ratio = (udp.sent > 0).then(|| udp.lost as f64 / udp.sent as f64);
            metrics.record(MetricId::LossRatio, ratio, nothing_sent);
            metrics.record(MetricId::LossEpisodes, Some(udp.loss_episodes as f64), "");
            let jitter = (udp.received >= 2).then_some(udp.jitter_ns as f64);
            metrics.record(
                MetricId::JitterNs,
                jitter,
                "fewer than 2 datagrams received",
            );
            let reordered = (udp.received > 0).then(|| udp.reordered as f64 / udp.received as f64);
            metrics.record(MetricId::ReorderedRatio, reordered, "nothing received");
            metrics.record(
                MetricId::MaxReorderExtentPackets,
                Some(udp.max_reorder_extent as f64),
                "",
            );
            metrics.record(MetricId::DuplicatePackets, Some(udp.duplicates as f64), "");
        }
    }
    let Some(spec) = probe else { return };
    let media = spec.kind == TestKind::Media;
    let Some(t) = trace else {
        if media {
            record_all_missing(metrics, &PROBE_DELAY, "no arrival trace was recorded");
            return;
        }
        record_all_missing(metrics, &PROBE_DELAY, "no arrival trace was recorded");
        metrics.record(MetricId::VoiceMos, None, "no arrival trace was recorded");
        return;
    };
    let owd = t.one_way_delay;
    let no_owd = if udp.clocks_shared {
        "no probe arrived in time"
    } else {
        "sender and receiver clocks are not shared or synchronised (RFC 7679 §3.7)"
    };
    metrics.record(MetricId::OwdMinNs, owd.map(|d| d.min_ns), no_owd);
    metrics.record(MetricId::OwdMeanNs, owd.map(|d| d.mean_ns), no_owd);
    metrics.record(MetricId::OwdP50Ns, owd.map(|d| d.p50_ns), no_owd);
    metrics.record(MetricId::OwdP99Ns, owd.map(|d| d.p99_ns), no_owd);
    let no_probe = "no probe arrived in time";
    metrics.record(MetricId::PdvP50Ns, t.pdv.map(|d| d.p50_ns), no_probe);
    metrics.record(MetricId::PdvP99Ns, t.pdv.map(|d| d.p99_ns), no_probe);
    metrics.record(MetricId::Pdv999Ns, t.pdv_999_ns(), no_probe);
    let no_pair = "no two consecutive probes arrived";
    metrics.record(
        MetricId::IpdvMeanAbsNs,
        t.ipdv_absolute.map(|d| d.mean_ns),
        no_pair,
    );
    metrics.record(
        MetricId::IpdvP99AbsNs,
        t.ipdv_absolute.map(|d| d.p99_ns),
        no_pair,
    );
    if media {
        return; // the media metrics rate the call (crate::media)
    }
    let loss_ratio = metrics.value(MetricId::LossRatio);
    let mos = voice_mos(&t, loss_ratio, spec.probe_interval_us);
    let reason = if owd.is_none() {
        no_owd
    } else {
        "no loss ratio or no probe interval"
    };
    metrics.record(MetricId::VoiceMos, mos, reason);
}

/// The E-model MOS of a G.711 call (with packet-loss concealment) over the
/// probed path: Ta = median one-way delay + a jitter buffer sized to the
/// 99.9th percentile PDV + one probe interval of packetisation; Ppl = loss
/// plus the 0.1 % of packets the buffer discards as late; BurstR = observed
/// mean loss-episode length × (1 − loss) (1 for random loss).
fn voice_mos(
    t: &DeliveryMetrics,
    loss_ratio: Option<f64>,
    interval_us: Option<u64>,
) -> Option<f64> {
    let owd = t.one_way_delay?;
    let buffer_ns = t.pdv_999_ns()?;
    let packetisation_ms = interval_us? as f64 / 1_000.0;
    let loss = loss_ratio?;
    let burst_ratio = t
        .counts
        .loss
        .mean_length()
        .map_or(1.0, |length| (length * (1.0 - loss)).max(1.0));
    let conditions = CallConditions {
        mouth_to_ear_delay_ms: (owd.p50_ns + buffer_ns) / 1e6 + packetisation_ms,
        packet_loss_percent: (loss + 0.001 * (1.0 - loss)) * 100.0,
        burst_ratio,
        codec: Codec::G711_PLC,
    };
    Some(mos(&conditions))
}

fn record_cpu(
    metrics: &mut TrialMetrics,
    spec: &TestSpec,
    o: &Observations,
    with_service_demand: bool,
) {
    let cpu = &o.cpu;
    metrics.record(
        MetricId::ClientCpuCores,
        process_cpu_cores(&cpu.client),
        "client CPU time not recorded",
    );
    let no_server = "the server did not report its CPU time";
    metrics.record(
        MetricId::ServerCpuCores,
        cpu.server.as_ref().and_then(process_cpu_cores),
        no_server,
    );
    let no_system = "system-wide CPU (/proc/stat) not recorded";
    metrics.record(
        MetricId::SystemBusyRatio,
        cpu.system.as_ref().and_then(system_busy_ratio),
        no_system,
    );
    metrics.record(
        MetricId::SoftirqRatio,
        cpu.system.as_ref().and_then(softirq_ratio),
        no_system,
    );
    if with_service_demand {
        let moved = o.receiver.bytes;
        let client = (cpu.client.wall_ns > 0)
            .then(|| service_demand_us_per_mib(&cpu.client, moved))
            .flatten();
        metrics.record(
            MetricId::ClientServiceDemandUsPerMib,
            client,
            "no CPU time or no bytes delivered",
        );
        let server = cpu
            .server
            .as_ref()
            .filter(|s| s.wall_ns > 0)
            .and_then(|s| service_demand_us_per_mib(s, moved));
        metrics.record(MetricId::ServerServiceDemandUsPerMib, server, no_server);
        record_cpu_per_packet(metrics, spec, o);
    }
}

/// CPU time per IP packet at each end of a stream (the stack-cost
/// headline, docs/metrics.md "CPU"): the packets are those the attribution
/// counts ([`crate::attribution::units`]): TCP segments sent, UDP datagrams
/// × fragments as that end sent or received them.
fn record_cpu_per_packet(metrics: &mut TrialMetrics, spec: &TestSpec, o: &Observations) {
    use dualperf_model::CpuEnd;
    let (client_end, server_end) = if spec.reverse {
        (CpuEnd::Receiver, CpuEnd::Sender)
    } else {
        (CpuEnd::Sender, CpuEnd::Receiver)
    };
    let per_packet = |cpu: &dualperf_model::ProcessCpu, end: CpuEnd| {
        let packets = crate::attribution::units(spec, o, end)?;
        (cpu.wall_ns > 0).then(|| (cpu.user_ns + cpu.system_ns) as f64 / packets)
    };
    let no_packets = "no CPU time or no packets counted (TCP_INFO segments, datagrams)";
    metrics.record(
        MetricId::ClientCpuPerPacketNs,
        per_packet(&o.cpu.client, client_end),
        no_packets,
    );
    let server = o
        .cpu
        .server
        .as_ref()
        .and_then(|cpu| per_packet(cpu, server_end));
    metrics.record(
        MetricId::ServerCpuPerPacketNs,
        server,
        "the server did not report its CPU time, or no packets were counted",
    );
}

#[cfg(test)]
mod tests;
