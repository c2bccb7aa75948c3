//! Which metrics one trial yields, by test kind, and their values.
//!
//! | test | metrics |
//! |---|---|
//! | tcp-stream | goodput, sender throughput, wire throughput, retransmitted segments, TCP efficiency, CPU, service demand |
//! | udp-stream | goodput, sender throughput, wire throughput, sent/received pps, loss ratio and episodes, jitter, reordering ratio and extent, duplicates, CPU, service demand |
//! | tcp-rr, udp-rr | RTT mean, sd, min, p50, p90, p99, p99.9; transactions/s; CPU |
//! | tcp-connect | setup time mean, min, p50, p90, p99; connections/s; CPU |
//! | udp-probe | one-way delay (shared clocks only), PDV, IPDV, jitter, loss, loss episodes, reordering, duplicates, voice MOS (shared clocks only); RTT when probes are echoed |
//!
//! UDP loss, reordering, duplicates and jitter are computed here from the
//! arrival trace when the trace is complete (every received copy recorded);
//! when the engine bounded the trace, the engine's own running counters
//! (kept with the same definitions) are used instead, and delay metrics use
//! the recorded prefix of the trace. A metric that cannot be computed is
//! absent from `values` and listed in `missing` with the reason.

use dualperf_model::observation::{Observations, UdpReceiveCounters};
use dualperf_model::{Metric, TestKind, TestSpec, Trial, TrialOutcome};

use crate::catalogue::known;
use crate::cpu::{process_cpu_cores, service_demand_us_per_mib, softirq_ratio, system_busy_ratio};
use crate::ippm::loss::DEFAULT_WAITING_TIME_NS;
use crate::ippm::trace::{trace_metrics, TraceMetrics, TraceParameters};
use crate::latency::latency_distribution;
use crate::overhead::{
    message_cost, packet_overhead, OverheadSettings, PathKind, Transport, DEFAULT_MTU_BYTES,
};
use crate::throughput::{
    goodput_bps, received_pps, sender_throughput_bps, sent_pps, tcp_efficiency_ratio,
};
use crate::voice::{mos, CallConditions, Codec};

/// The metrics of one trial, and the ones that could not be computed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrialMetrics {
    /// Computed metrics, every value finite.
    pub values: Vec<(Metric, f64)>,
    /// Metrics that apply to this test but could not be computed: (name, reason).
    pub missing: Vec<(String, String)>,
}

impl TrialMetrics {
    /// Records `value` under `name`, or the reason when it is `None` or not finite.
    fn record(&mut self, name: &str, value: Option<f64>, reason: &str) {
        match value.filter(|v| v.is_finite()) {
            Some(value) => self.values.push((known(name).to_metric(), value)),
            None => self.missing.push((name.to_string(), reason.to_string())),
        }
    }

    /// The value of `name`, if computed.
    pub fn value(&self, name: &str) -> Option<f64> {
        self.values
            .iter()
            .find(|(m, _)| m.name == name)
            .map(|&(_, v)| v)
    }
}

/// Every metric of `trial` (see the module table); empty for a failed trial.
pub fn metrics_of_trial(trial: &Trial) -> Vec<(Metric, f64)> {
    measure_trial(trial).values
}

/// Every metric of `trial`, with reasons for the ones that are missing.
pub fn measure_trial(trial: &Trial) -> TrialMetrics {
    let mut metrics = TrialMetrics::default();
    let observations = match &trial.outcome {
        TrialOutcome::Ok(observations) => observations,
        TrialOutcome::Failed { .. } => return metrics,
    };
    let o = observations.as_ref();
    match trial.spec.kind {
        TestKind::TcpStream => {
            record_stream_rates(&mut metrics, o);
            let wire = wire_throughput_bps(trial, o, Transport::Tcp);
            metrics.record("wire_throughput_bps", wire, "empty measured interval");
            let tcp = o.tcp.as_ref();
            let no_tcp_info = "no TCP_INFO counters were recorded";
            metrics.record(
                "retransmitted_segments",
                tcp.map(|t| t.segments_retransmitted as f64),
                no_tcp_info,
            );
            let no_bytes = if tcp.is_some() {
                "TCP_INFO reported no bytes sent (tcpi_bytes_sent is 0 or unsupported)"
            } else {
                no_tcp_info
            };
            metrics.record(
                "tcp_efficiency_ratio",
                tcp.and_then(tcp_efficiency_ratio),
                no_bytes,
            );
            record_loaded_probe(&mut metrics, o, &trial.spec);
            record_cpu(&mut metrics, o, true);
        }
        TestKind::UdpStream => {
            record_stream_rates(&mut metrics, o);
            let wire = wire_throughput_bps(trial, o, Transport::Udp);
            metrics.record("wire_throughput_bps", wire, "empty measured interval");
            metrics.record("sent_pps", sent_pps(o), "empty measured interval");
            metrics.record("received_pps", received_pps(o), "empty measured interval");
            match &o.udp {
                Some(udp) => record_udp_delivery(&mut metrics, udp, None),
                None => record_all_missing(&mut metrics, &UDP_DELIVERY, "no UDP receive counters"),
            }
            record_loaded_probe(&mut metrics, o, &trial.spec);
            record_cpu(&mut metrics, o, true);
        }
        TestKind::TcpRr | TestKind::UdpRr => {
            record_latency(&mut metrics, o, "rtt", &RTT_NAMES);
            let tps = o.latency.as_ref().and_then(|l| per_second(l.count, o));
            metrics.record("transactions_per_second", tps, "no transactions were timed");
            record_cpu(&mut metrics, o, false);
        }
        TestKind::TcpConnect => {
            record_latency(&mut metrics, o, "connect", &CONNECT_NAMES);
            let cps = o.latency.as_ref().and_then(|l| per_second(l.count, o));
            metrics.record("connections_per_second", cps, "no connections were timed");
            record_cpu(&mut metrics, o, false);
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
                record_latency(&mut metrics, o, "rtt", &RTT_NAMES);
            }
            record_cpu(&mut metrics, o, false);
        }
    }
    metrics
}

/// The RTT metric names, in catalogue order.
const RTT_NAMES: [&str; 7] = [
    "rtt_mean_ns",
    "rtt_sd_ns",
    "rtt_min_ns",
    "rtt_p50_ns",
    "rtt_p90_ns",
    "rtt_p99_ns",
    "rtt_p999_ns",
];
/// The connection-setup metric names.
const CONNECT_NAMES: [&str; 5] = [
    "connect_mean_ns",
    "connect_min_ns",
    "connect_p50_ns",
    "connect_p90_ns",
    "connect_p99_ns",
];
/// The UDP delivery metric names.
const UDP_DELIVERY: [&str; 6] = [
    "loss_ratio",
    "loss_episodes",
    "jitter_ns",
    "reordered_ratio",
    "max_reorder_extent_packets",
    "duplicate_packets",
];
/// The probe delay metric names.
const PROBE_DELAY: [&str; 9] = [
    "owd_min_ns",
    "owd_mean_ns",
    "owd_p50_ns",
    "owd_p99_ns",
    "pdv_p50_ns",
    "pdv_p99_ns",
    "pdv_999_ns",
    "ipdv_mean_abs_ns",
    "ipdv_p99_abs_ns",
];

fn record_all_missing(metrics: &mut TrialMetrics, names: &[&str], reason: &str) {
    for name in names {
        metrics.record(name, None, reason);
    }
}

/// Events per second over the measured interval.
fn per_second(count: u64, o: &Observations) -> Option<f64> {
    (o.measured_ns > 0 && count > 0).then(|| count as f64 / (o.measured_ns as f64 / 1e9))
}

/// Goodput scaled to bytes on the link by the header model: full-size TCP
/// segments, or datagrams of the point's size (fragmented if needed), on
/// Ethernet with on-wire extras at the trial's path MTU (else 1500).
fn wire_throughput_bps(trial: &Trial, o: &Observations, transport: Transport) -> Option<f64> {
    let mtu_bytes = o.socket.path_mtu_bytes.unwrap_or(DEFAULT_MTU_BYTES);
    let settings = OverheadSettings {
        count_wire_extras: true,
        ..OverheadSettings::linux(mtu_bytes)
    };
    let path = PathKind::plain(trial.family, transport);
    let efficiency = match transport {
        Transport::Tcp => packet_overhead(path, &settings).ok()?.efficiency_ratio,
        Transport::Udp => {
            message_cost(path, &settings, trial.spec.size_bytes)
                .ok()?
                .efficiency_ratio
        }
    };
    goodput_bps(o).map(|goodput| goodput / efficiency)
}

fn record_stream_rates(metrics: &mut TrialMetrics, o: &Observations) {
    metrics.record("goodput_bps", goodput_bps(o), "empty measured interval");
    metrics.record(
        "sender_throughput_bps",
        sender_throughput_bps(o),
        "empty measured interval",
    );
}

fn record_latency(metrics: &mut TrialMetrics, o: &Observations, prefix: &str, names: &[&str]) {
    let distribution = o.latency.as_ref().and_then(latency_distribution);
    let reason = match &o.latency {
        None => "no latency samples were recorded",
        Some(l) if l.count == 0 => "no transactions completed",
        Some(_) => "latency histogram missing and raw series incomplete",
    };
    for name in names {
        let value = distribution.and_then(|d| match name.trim_start_matches(prefix) {
            "_mean_ns" => Some(d.mean_ns),
            "_sd_ns" => d.standard_deviation_ns,
            "_min_ns" => Some(d.min_ns),
            "_p50_ns" => Some(d.p50_ns),
            "_p90_ns" => Some(d.p90_ns),
            "_p99_ns" => Some(d.p99_ns),
            "_p999_ns" => Some(d.p999_ns),
            _ => None,
        });
        let reason = if distribution.is_some() {
            "fewer than 2 samples"
        } else {
            reason
        };
        metrics.record(name, value, reason);
    }
}

/// True when every received copy is in the trace, so trace metrics cover
/// the whole measured interval.
fn is_complete_trace(udp: &UdpReceiveCounters) -> bool {
    !udp.arrivals.is_empty() && udp.arrivals.len() as u64 == udp.received + udp.duplicates
}

/// Records loss, reordering, duplicates and jitter; with a probe `spec`,
/// also the delay metrics and the voice MOS.
/// The probe metrics and the names they take when the probe ran beside a load.
const LOADED_NAMES: [(&str, &str); 6] = [
    ("owd_p50_ns", "loaded_owd_p50_ns"),
    ("owd_p99_ns", "loaded_owd_p99_ns"),
    ("pdv_p99_ns", "loaded_pdv_p99_ns"),
    ("jitter_ns", "loaded_jitter_ns"),
    ("reordered_ratio", "loaded_reordered_ratio"),
    ("loss_ratio", "loaded_loss_ratio"),
];

/// Latency under load: the `udp-probe` metrics of the probe stream that ran
/// beside a stream trial (`--probe`), under their `loaded_` names. Nothing is
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
    for (name, loaded) in LOADED_NAMES {
        let reason = probe_metrics
            .missing
            .iter()
            .find(|(missing, _)| missing == name)
            .map_or("the probe stream recorded nothing", |(_, reason)| {
                reason.as_str()
            });
        metrics.record(loaded, probe_metrics.value(name), reason);
    }
}

fn record_udp_delivery(
    metrics: &mut TrialMetrics,
    udp: &UdpReceiveCounters,
    probe: Option<&TestSpec>,
) {
    let waiting_time_ns = if udp.loss_wait_ms > 0 {
        udp.loss_wait_ms as i64 * 1_000_000
    } else {
        DEFAULT_WAITING_TIME_NS
    };
    let parameters = TraceParameters {
        waiting_time_ns,
        clocks_shared: udp.clocks_shared,
    };
    let trace: Option<TraceMetrics> =
        (!udp.arrivals.is_empty()).then(|| trace_metrics(&udp.arrivals, udp.sent, parameters));
    let nothing_sent = "the sender reported no datagrams sent";
    match trace.as_ref().filter(|_| is_complete_trace(udp)) {
        Some(t) => {
            metrics.record("loss_ratio", t.loss.loss_ratio(), nothing_sent);
            metrics.record("loss_episodes", Some(t.loss.episodes.len() as f64), "");
            metrics.record("jitter_ns", t.jitter_ns, "fewer than 2 datagrams received");
            metrics.record(
                "reordered_ratio",
                t.reordering.reordered_ratio(),
                "nothing received",
            );
            metrics.record(
                "max_reorder_extent_packets",
                Some(t.reordering.max_extent() as f64),
                "",
            );
            metrics.record("duplicate_packets", Some(t.duplicates as f64), "");
        }
        None => {
            let ratio = (udp.sent > 0).then(|| udp.lost as f64 / udp.sent as f64);
            metrics.record("loss_ratio", ratio, nothing_sent);
            metrics.record("loss_episodes", Some(udp.loss_episodes as f64), "");
            let jitter = (udp.received >= 2).then_some(udp.jitter_ns as f64);
            metrics.record("jitter_ns", jitter, "fewer than 2 datagrams received");
            let reordered = (udp.received > 0).then(|| udp.reordered as f64 / udp.received as f64);
            metrics.record("reordered_ratio", reordered, "nothing received");
            metrics.record(
                "max_reorder_extent_packets",
                Some(udp.max_reorder_extent as f64),
                "",
            );
            metrics.record("duplicate_packets", Some(udp.duplicates as f64), "");
        }
    }
    let Some(spec) = probe else { return };
    let Some(t) = trace else {
        record_all_missing(metrics, &PROBE_DELAY, "no arrival trace was recorded");
        metrics.record("voice_mos", None, "no arrival trace was recorded");
        return;
    };
    let owd = t.one_way_delay;
    let no_owd = if udp.clocks_shared {
        "no probe arrived in time"
    } else {
        "sender and receiver clocks are not shared or synchronised (RFC 7679 §3.7)"
    };
    metrics.record("owd_min_ns", owd.map(|d| d.min_ns), no_owd);
    metrics.record("owd_mean_ns", owd.map(|d| d.mean_ns), no_owd);
    metrics.record("owd_p50_ns", owd.map(|d| d.p50_ns), no_owd);
    metrics.record("owd_p99_ns", owd.map(|d| d.p99_ns), no_owd);
    let no_probe = "no probe arrived in time";
    metrics.record("pdv_p50_ns", t.pdv.map(|d| d.p50_ns), no_probe);
    metrics.record("pdv_p99_ns", t.pdv.map(|d| d.p99_ns), no_probe);
    metrics.record("pdv_999_ns", t.pdv_999_ns(), no_probe);
    let no_pair = "no two consecutive probes arrived";
    metrics.record(
        "ipdv_mean_abs_ns",
        t.ipdv_absolute.map(|d| d.mean_ns),
        no_pair,
    );
    metrics.record(
        "ipdv_p99_abs_ns",
        t.ipdv_absolute.map(|d| d.p99_ns),
        no_pair,
    );
    let loss_ratio = metrics.value("loss_ratio");
    let mos = voice_mos(&t, loss_ratio, spec.probe_interval_us);
    let reason = if owd.is_none() {
        no_owd
    } else {
        "no loss ratio or no probe interval"
    };
    metrics.record("voice_mos", mos, reason);
}

/// The E-model MOS of a G.711 call (with packet-loss concealment) over the
/// probed path: Ta = median one-way delay + a jitter buffer sized to the
/// 99.9th percentile PDV + one probe interval of packetisation; Ppl = loss
/// plus the 0.1 % of packets the buffer discards as late; BurstR = observed
/// mean loss-episode length × (1 − loss) (1 for random loss).
fn voice_mos(t: &TraceMetrics, loss_ratio: Option<f64>, interval_us: Option<u64>) -> Option<f64> {
    let owd = t.one_way_delay?;
    let buffer_ns = t.pdv_999_ns()?;
    let packetisation_ms = interval_us? as f64 / 1_000.0;
    let loss = loss_ratio?;
    let burst_ratio = t
        .loss
        .mean_episode_length()
        .map_or(1.0, |length| (length * (1.0 - loss)).max(1.0));
    let conditions = CallConditions {
        mouth_to_ear_delay_ms: (owd.p50_ns + buffer_ns) / 1e6 + packetisation_ms,
        packet_loss_percent: (loss + 0.001 * (1.0 - loss)) * 100.0,
        burst_ratio,
        codec: Codec::G711_PLC,
    };
    Some(mos(&conditions))
}

fn record_cpu(metrics: &mut TrialMetrics, o: &Observations, with_service_demand: bool) {
    let cpu = &o.cpu;
    metrics.record(
        "client_cpu_cores",
        process_cpu_cores(&cpu.client),
        "client CPU time not recorded",
    );
    let no_server = "the server did not report its CPU time";
    metrics.record(
        "server_cpu_cores",
        cpu.server.as_ref().and_then(process_cpu_cores),
        no_server,
    );
    let no_system = "system-wide CPU (/proc/stat) not recorded";
    metrics.record(
        "system_busy_ratio",
        cpu.system.as_ref().and_then(system_busy_ratio),
        no_system,
    );
    metrics.record(
        "softirq_ratio",
        cpu.system.as_ref().and_then(softirq_ratio),
        no_system,
    );
    if with_service_demand {
        let moved = o.receiver.bytes;
        let client = (cpu.client.wall_ns > 0)
            .then(|| service_demand_us_per_mib(&cpu.client, moved))
            .flatten();
        metrics.record(
            "client_service_demand_us_per_mib",
            client,
            "no CPU time or no bytes delivered",
        );
        let server = cpu
            .server
            .as_ref()
            .filter(|s| s.wall_ns > 0)
            .and_then(|s| service_demand_us_per_mib(s, moved));
        metrics.record("server_service_demand_us_per_mib", server, no_server);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::observation::{
        Arrival, CpuObservations, FlowCounters, HistogramBucket, LatencySamples, ProcessCpu,
        TcpCounters,
    };
    use dualperf_model::{IpFamily, TestSpec};

    fn spec(kind: TestKind) -> TestSpec {
        TestSpec {
            kind,
            size_bytes: 1000,
            duration_ms: 1000,
            warmup_ms: 0,
            parallel_streams: 1,
            reverse: false,
            rate: None,
            sample_interval_ms: 100,
            probe_interval_us: None,
        }
    }

    fn trial(kind: TestKind, observations: Observations) -> Trial {
        Trial {
            point: 0,
            spec: spec(kind),
            family: IpFamily::V4,
            repetition: 0,
            started_at_unix_ms: 0,
            local_address: None,
            remote_address: None,
            server_seen_family: None,
            outcome: TrialOutcome::Ok(Box::new(observations)),
        }
    }

    fn names(metrics: &TrialMetrics) -> Vec<&str> {
        metrics
            .values
            .iter()
            .map(|(m, _)| m.name.as_str())
            .collect()
    }

    #[test]
    fn tcp_stream_yields_throughput_retransmissions_efficiency_and_cpu() {
        let observations = Observations {
            measured_ns: 2_000_000_000,
            sender: FlowCounters {
                bytes: 2_500_000_000,
                packets: 1,
            },
            receiver: FlowCounters {
                bytes: 2_500_000_000,
                packets: 1,
            },
            tcp: Some(TcpCounters {
                bytes_sent: 2_500_100_000,
                bytes_retransmitted: 100_000,
                segments_retransmitted: 70,
                ..TcpCounters::default()
            }),
            cpu: CpuObservations {
                client: ProcessCpu {
                    user_ns: 100_000_000,
                    system_ns: 900_000_000,
                    wall_ns: 2_000_000_000,
                },
                ..CpuObservations::default()
            },
            ..Observations::default()
        };
        let metrics = measure_trial(&trial(TestKind::TcpStream, observations));
        assert_eq!(metrics.value("goodput_bps"), Some(1e10));
        // IPv4 TCP at MTU 1500 with timestamps: 1538 link bytes per 1448 payload bytes.
        let wire = metrics.value("wire_throughput_bps").unwrap();
        assert!((wire - 1e10 * 1538.0 / 1448.0).abs() < 1.0, "{wire}");
        assert_eq!(metrics.value("retransmitted_segments"), Some(70.0));
        let efficiency = metrics.value("tcp_efficiency_ratio").unwrap();
        assert!((efficiency - 2_500_000_000.0 / 2_500_100_000.0).abs() < 1e-12);
        assert_eq!(metrics.value("client_cpu_cores"), Some(0.5));
        // 1 s of CPU = 1e6 µs over 2.5e9 B = 2384.19 MiB → 419.43 µs/MiB.
        let demand = metrics.value("client_service_demand_us_per_mib").unwrap();
        assert!((demand - 1e6 / (2.5e9 / 1_048_576.0)).abs() < 1e-9);
        let missing: Vec<&str> = metrics.missing.iter().map(|(n, _)| n.as_str()).collect();
        assert!(missing.contains(&"server_cpu_cores"));
        assert!(!names(&metrics).contains(&"loss_ratio"));
    }

    #[test]
    fn udp_stream_with_a_complete_trace_computes_delivery_from_the_trace() {
        let arrivals: Vec<Arrival> = [0u64, 2, 1, 4]
            .iter()
            .map(|&s| Arrival {
                sequence: s,
                sent_ns: s as i64 * 1000,
                received_ns: s as i64 * 1000 + 50,
            })
            .collect();
        let observations = Observations {
            measured_ns: 1_000_000_000,
            sender: FlowCounters {
                bytes: 5_000,
                packets: 5,
            },
            receiver: FlowCounters {
                bytes: 4_000,
                packets: 4,
            },
            udp: Some(UdpReceiveCounters {
                sent: 5,
                received: 4,
                arrivals,
                clocks_shared: true,
                // Deliberately wrong engine counters: the trace must win.
                lost: 3,
                ..UdpReceiveCounters::default()
            }),
            ..Observations::default()
        };
        let metrics = measure_trial(&trial(TestKind::UdpStream, observations));
        assert_eq!(metrics.value("loss_ratio"), Some(0.2));
        assert_eq!(metrics.value("reordered_ratio"), Some(0.25));
        assert_eq!(metrics.value("received_pps"), Some(4.0));
        assert_eq!(metrics.value("duplicate_packets"), Some(0.0));
    }

    #[test]
    fn udp_stream_with_a_bounded_trace_uses_the_engine_counters() {
        let observations = Observations {
            measured_ns: 1_000_000_000,
            udp: Some(UdpReceiveCounters {
                sent: 1000,
                received: 990,
                lost: 10,
                reordered: 99,
                jitter_ns: 1234,
                arrivals: vec![Arrival::default()],
                arrivals_limit: 1,
                ..UdpReceiveCounters::default()
            }),
            ..Observations::default()
        };
        let metrics = measure_trial(&trial(TestKind::UdpStream, observations));
        assert_eq!(metrics.value("loss_ratio"), Some(0.01));
        assert_eq!(metrics.value("reordered_ratio"), Some(0.1));
        assert_eq!(metrics.value("jitter_ns"), Some(1234.0));
    }

    #[test]
    fn rr_yields_rtt_percentiles_and_transactions_per_second() {
        let observations = Observations {
            measured_ns: 1_000_000_000,
            latency: Some(LatencySamples {
                count: 4,
                histogram: vec![
                    HistogramBucket {
                        value_ns: 10_000,
                        count: 2,
                    },
                    HistogramBucket {
                        value_ns: 20_000,
                        count: 2,
                    },
                ],
                min_ns: 10_000,
                max_ns: 20_000,
                sum_ns: 60_000,
                sum_squares_ns2: 2.0 * 1e8 + 2.0 * 4e8,
                ..LatencySamples::default()
            }),
            ..Observations::default()
        };
        let metrics = measure_trial(&trial(TestKind::TcpRr, observations));
        assert_eq!(metrics.value("rtt_mean_ns"), Some(15_000.0));
        assert_eq!(metrics.value("rtt_p50_ns"), Some(10_000.0));
        assert_eq!(metrics.value("rtt_p99_ns"), Some(20_000.0));
        assert_eq!(metrics.value("transactions_per_second"), Some(4.0));
    }

    #[test]
    fn probe_without_shared_clocks_reports_why_one_way_delay_is_missing() {
        let arrivals: Vec<Arrival> = (0..10u64)
            .map(|s| Arrival {
                sequence: s,
                sent_ns: s as i64 * 10_000_000,
                received_ns: s as i64 * 10_000_000 + 5_000 + (s as i64 % 2) * 100,
            })
            .collect();
        let observations = Observations {
            measured_ns: 100_000_000,
            udp: Some(UdpReceiveCounters {
                sent: 10,
                received: 10,
                arrivals,
                ..UdpReceiveCounters::default()
            }),
            ..Observations::default()
        };
        let metrics = measure_trial(&trial(TestKind::UdpProbe, observations));
        assert!(metrics.value("owd_mean_ns").is_none());
        let reason = &metrics
            .missing
            .iter()
            .find(|(n, _)| n == "owd_mean_ns")
            .unwrap()
            .1;
        assert!(reason.contains("clocks"), "{reason}");
        assert_eq!(metrics.value("pdv_p99_ns"), Some(100.0));
        assert_eq!(metrics.value("ipdv_mean_abs_ns"), Some(100.0));
        assert_eq!(metrics.value("loss_ratio"), Some(0.0));
    }

    #[test]
    fn a_probe_beside_a_tcp_stream_gives_delay_under_load() {
        // 10 probes, 10 ms apart, each 40 ms in flight but one lost (seq 7).
        let arrivals: Vec<Arrival> = (0..10u64)
            .filter(|&s| s != 7)
            .map(|s| Arrival {
                sequence: s,
                sent_ns: s as i64 * 10_000_000,
                received_ns: s as i64 * 10_000_000 + 40_000_000,
            })
            .collect();
        let observations = Observations {
            measured_ns: 100_000_000,
            probe: Some(Box::new(dualperf_model::ProbeObservations {
                interval_us: 10_000,
                size_bytes: 172,
                udp: UdpReceiveCounters {
                    sent: 10,
                    received: 9,
                    lost: 1,
                    clocks_shared: true,
                    arrivals,
                    ..UdpReceiveCounters::default()
                },
                ..Default::default()
            })),
            ..Observations::default()
        };
        let metrics = measure_trial(&trial(TestKind::TcpStream, observations));
        assert_eq!(metrics.value("loaded_owd_p50_ns"), Some(40_000_000.0));
        assert_eq!(metrics.value("loaded_pdv_p99_ns"), Some(0.0));
        assert_eq!(metrics.value("loaded_loss_ratio"), Some(0.1));
        assert_eq!(metrics.value("loaded_jitter_ns"), Some(0.0));
        assert_eq!(metrics.value("loaded_reordered_ratio"), Some(0.0));
    }

    #[test]
    fn a_stream_without_a_probe_has_no_loaded_metrics() {
        let metrics = measure_trial(&trial(TestKind::TcpStream, Observations::default()));
        assert!(metrics.value("loaded_owd_p50_ns").is_none());
        assert!(!metrics
            .missing
            .iter()
            .any(|(n, _)| n.starts_with("loaded_")));
    }

    #[test]
    fn a_failed_trial_has_no_metrics() {
        let mut failed = trial(TestKind::TcpStream, Observations::default());
        failed.outcome = TrialOutcome::Failed {
            error: "connection refused".into(),
        };
        assert!(metrics_of_trial(&failed).is_empty());
    }
}
