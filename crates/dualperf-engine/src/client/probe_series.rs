//! Per-interval loss and delay of a probe stream, from its raw arrivals.
//!
//! Probes are due on an absolute schedule ([`crate::flow::udp_probe`]), so
//! the interval a probe belongs to follows from its sequence number alone:
//! an interval's loss is "probes due in it that never arrived" (RFC 7680
//! with the stream's waiting time), and its delay is the mean one-way delay
//! (RFC 7679) of the probes due in it that arrived. Counting by send
//! interval rather than arrival interval keeps a late probe from showing as
//! a loss in one interval and a surplus in the next.

use dualperf_model::{IntervalSample, TestSpec, UdpReceiveCounters};

use crate::endpoint::probe_interval;
use crate::flow::udp_probe::probe_interval_index;

/// Fills `lost_packets` and `mean_delay_ns` of `intervals` from the probe
/// stream's arrivals. Intervals past the last kept arrival (when the raw
/// arrivals were truncated at their bound) keep `lost_packets: None`.
pub fn fill_probe_intervals(
    spec: &TestSpec,
    udp: &UdpReceiveCounters,
    intervals: &mut [IntervalSample],
) {
    let count = intervals.len();
    if count == 0 {
        return;
    }
    let probe_us = probe_interval(spec).as_micros() as u64;
    let index_of = |sequence: u64| {
        (probe_interval_index(sequence, probe_us, spec.sample_interval_ms) as usize).min(count - 1)
    };
    let mut due = vec![0u64; count];
    for sequence in 0..udp.sent {
        due[index_of(sequence)] += 1;
    }
    let mut seen = vec![false; udp.sent as usize];
    let mut arrived = vec![0u64; count];
    let mut delay_sum = vec![0i128; count];
    for arrival in &udp.arrivals {
        let Some(slot) = seen.get_mut(arrival.sequence as usize) else {
            continue; // beyond the sender's count: not a measured probe
        };
        if std::mem::replace(slot, true) {
            continue; // duplicate
        }
        let index = index_of(arrival.sequence);
        arrived[index] += 1;
        delay_sum[index] += i128::from(arrival.received_ns - arrival.sent_ns);
    }
    let truncated = udp.arrivals.len() as u64 >= udp.arrivals_limit && udp.arrivals_limit > 0;
    let covered = match truncated {
        true => udp
            .arrivals
            .iter()
            .map(|a| a.sequence)
            .max()
            .map(index_of)
            .unwrap_or(0),
        false => count - 1,
    };
    for (index, interval) in intervals.iter_mut().enumerate() {
        if index > covered {
            interval.lost_packets = None;
            continue;
        }
        interval.lost_packets = Some(due[index].saturating_sub(arrived[index]));
        interval.mean_delay_ns = (arrived[index] > 0)
            .then(|| (delay_sum[index] / i128::from(arrived[index])).max(0) as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::observation::Arrival;
    use dualperf_model::TestKind;

    fn spec() -> TestSpec {
        TestSpec {
            duration_ms: 100,
            warmup_ms: 0,
            sample_interval_ms: 50,
            probe_interval_us: Some(10_000),
            ..TestSpec::new(TestKind::UdpProbe, 172)
        }
    }

    fn arrival(sequence: u64, delay_ns: i64) -> Arrival {
        Arrival {
            sequence,
            sent_ns: 1_000_000_000 + sequence as i64 * 10_000_000,
            received_ns: 1_000_000_000 + sequence as i64 * 10_000_000 + delay_ns,
        }
    }

    #[test]
    fn losses_and_delays_land_in_the_interval_the_probe_was_due_in() {
        // 10 probes at 10 ms in two 50 ms intervals; probe 3 lost, probe 7
        // arrives twice, probe 4 arrives late (after probe 5).
        let mut arrivals: Vec<Arrival> = [0, 1, 2, 5, 4, 6, 7, 7, 8, 9]
            .iter()
            .map(|&s| arrival(s, 1_000_000))
            .collect();
        arrivals[4].received_ns += 2_000_000; // probe 4: 3 ms delay
        let udp = UdpReceiveCounters {
            sent: 10,
            arrivals,
            arrivals_limit: 100,
            ..Default::default()
        };
        let mut intervals = vec![IntervalSample::default(); 2];
        fill_probe_intervals(&spec(), &udp, &mut intervals);
        assert_eq!(intervals[0].lost_packets, Some(1));
        assert_eq!(intervals[1].lost_packets, Some(0));
        // Interval 0: probes 0,1,2,4 arrived with 1,1,1,3 ms: mean 1.5 ms.
        assert_eq!(intervals[0].mean_delay_ns, Some(1_500_000));
        assert_eq!(intervals[1].mean_delay_ns, Some(1_000_000));
    }

    #[test]
    fn intervals_past_truncated_arrivals_have_no_loss_figure() {
        let udp = UdpReceiveCounters {
            sent: 10,
            arrivals: (0..3).map(|s| arrival(s, 500)).collect(),
            arrivals_limit: 3,
            ..Default::default()
        };
        let mut intervals = vec![IntervalSample::default(); 2];
        fill_probe_intervals(&spec(), &udp, &mut intervals);
        assert_eq!(intervals[0].lost_packets, Some(2));
        assert_eq!(intervals[1].lost_packets, None);
    }
}
