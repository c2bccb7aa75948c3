//! The `forwarder` part of an attribution: a user-space forwarder on the
//! arm's path (the lab's TAYGA for NAT64, whose CPU each trial records in
//! `CpuObservations.path`, scaled to the measured interval) that kept at
//! least [`CPU_BOUND_CORES`] (0.9) of a core busy, averaged over the arm's
//! trials at the point, is the bottleneck: one thread forwards every packet,
//! so the arm's rate is what that core can forward. On a busy host the
//! forwarder may not get a whole core; it is still the bottleneck when it
//! was the **busiest part of the path**: at least [`BUSIEST_MIN_CORES`]
//! and more CPU than either end's process (the ends waited for it, not it
//! for them). It explains what the
//! header, encapsulation, fragmentation and CPU parts leave of the measured
//! difference (the `remainder`), when that remainder makes the arm slower
//! (a lower rate, a longer latency); otherwise there is no forwarder part.
//! Its CPU time per packet forwarded is recorded beside it.

use dualperf_model::forwarder::ForwarderPart;
use dualperf_model::{CpuEnd, Observations, TrialOutcome};

use crate::attribution::{units, Input, CPU_BOUND_CORES};
use crate::summary::mean;

/// Least CPU, in cores, of a forwarder named as the bottleneck because it
/// was the busiest part of the path (below [`CPU_BOUND_CORES`]).
pub(crate) const BUSIEST_MIN_CORES: f64 = 0.5;

/// The forwarder part of `input`'s comparison, given what the other parts
/// leave (`remainder`, relative); `None` when the arm's path has no
/// user-space forwarder, it was not saturated, or the remainder does not
/// make the arm slower.
pub(crate) fn forwarder_part(input: &Input, remainder: f64) -> Option<ForwarderPart> {
    let observations: Vec<&Observations> = input
        .trials
        .iter()
        .filter(|t| t.arm == input.arm.id)
        .filter_map(|t| match &t.outcome {
            TrialOutcome::Ok(o) => Some(o.as_ref()),
            TrialOutcome::Failed { .. } => None,
        })
        .collect();
    let cores: Vec<f64> = observations
        .iter()
        .filter_map(|o| o.cpu.path.as_ref())
        .filter(|p| p.wall_ns > 0)
        .map(|p| (p.user_ns + p.system_ns) as f64 / p.wall_ns as f64)
        .collect();
    let cores = mean(&cores)?;
    let slower = if input.metric.higher_is_better() {
        remainder < 0.0
    } else {
        remainder > 0.0
    };
    let busiest_end = observations
        .iter()
        .filter_map(|o| {
            let ends = std::iter::once(&o.cpu.client).chain(o.cpu.server.as_ref());
            ends.filter(|p| p.wall_ns > 0)
                .map(|p| (p.user_ns + p.system_ns) as f64 / p.wall_ns as f64)
                .reduce(f64::max)
        })
        .collect::<Vec<f64>>();
    let busiest_end = mean(&busiest_end).unwrap_or(0.0);
    let bottleneck =
        cores >= CPU_BOUND_CORES || (cores >= BUSIEST_MIN_CORES && cores > busiest_end);
    if !bottleneck || !slower || !remainder.is_finite() {
        return None;
    }
    let per_packet: Vec<f64> = observations
        .iter()
        .filter_map(|o| {
            let path = o.cpu.path.as_ref()?;
            let packets = units(input.spec, o, CpuEnd::Receiver)?;
            Some((path.user_ns + path.system_ns) as f64 / packets)
        })
        .collect();
    Some(ForwarderPart {
        cores,
        ns_per_packet: mean(&per_packet),
        explained: remainder,
    })
}

#[cfg(test)]
mod tests {
    use dualperf_fixtures::{arm, spec};
    use dualperf_model::observation::ProcessCpu;
    use dualperf_model::{ArmPath, IpFamily, MetricId, TestKind, Trial};

    use super::*;
    use crate::theory::TheoryConditions;

    /// A NAT64 udp-stream trial whose forwarder used `cores` of a core
    /// and whose client used `end_cores`.
    fn trial(arm: &dualperf_model::Arm, cores: Option<f64>, end_cores: f64, goodput: f64) -> Trial {
        let mut o = dualperf_fixtures::stream(goodput);
        o.receiver.packets = 100_000;
        o.cpu.client = ProcessCpu {
            user_ns: (end_cores * 0.5e9) as u64,
            wall_ns: 500_000_000,
            ..ProcessCpu::default()
        };
        o.cpu.path = cores.map(|c| ProcessCpu {
            user_ns: (c * 0.2e9) as u64,
            system_ns: (c * 0.3e9) as u64,
            wall_ns: 500_000_000,
            ..ProcessCpu::default()
        });
        dualperf_fixtures::trial(
            0,
            &spec(TestKind::UdpStream, 1024),
            arm,
            0,
            dualperf_fixtures::ok(o),
        )
    }

    fn part(cores: Option<f64>, measured: f64) -> Option<ForwarderPart> {
        part_with_ends(cores, 0.9, measured)
    }

    fn part_with_ends(cores: Option<f64>, end_cores: f64, measured: f64) -> Option<ForwarderPart> {
        let nat64 = arm(
            "v6-nat64",
            IpFamily::V6,
            ArmPath::Nat64 {
                prefix: "64:ff9b::/96".into(),
            },
        );
        let v4 = arm("v4", IpFamily::V4, ArmPath::Native);
        let trials = [
            trial(&nat64, cores, end_cores, 3e8),
            trial(&v4, None, end_cores, 3e9),
        ];
        let refs: Vec<&Trial> = trials.iter().collect();
        let point = spec(TestKind::UdpStream, 1024);
        forwarder_part(
            &Input {
                spec: &point,
                metric: MetricId::GoodputBps,
                arm: &nat64,
                baseline: &v4,
                conditions: &TheoryConditions::default(),
                trials: &refs,
                measured,
                theory: None,
            },
            measured,
        )
    }

    #[test]
    fn a_saturated_translator_explains_what_the_other_parts_leave() {
        let part = part(Some(0.97), -0.89).unwrap();
        assert!((part.cores - 0.97).abs() < 1e-9);
        assert_eq!(part.explained, -0.89);
        // 0.485 s of CPU over 100 000 datagrams: 4.85 µs each.
        assert!((part.ns_per_packet.unwrap() - 4_850.0).abs() < 1.0);
    }

    #[test]
    fn an_idle_translator_or_a_faster_arm_gets_no_forwarder_part() {
        assert_eq!(part(Some(0.5), -0.89), None);
        assert_eq!(part(Some(0.97), 0.10), None);
        assert_eq!(part(None, -0.89), None);
    }

    #[test]
    fn on_a_busy_host_the_busiest_part_of_the_path_is_named_below_a_whole_core() {
        // TAYGA got 0.8 of a core while the ends used 0.4: the ends waited
        // for it (issue 24: "TAYGA, which ran 0.8 of a core, is not named").
        let part = part_with_ends(Some(0.8), 0.4, -0.95).unwrap();
        assert!((part.cores - 0.8).abs() < 1e-9);
        // Busier ends than the forwarder: the forwarder is not the cause.
        assert_eq!(part_with_ends(Some(0.8), 0.95, -0.95), None);
        // Too little CPU to be anyone's bottleneck.
        assert_eq!(part_with_ends(Some(0.3), 0.1, -0.95), None);
    }
}
