//! The terminal's STAMP block (`--peer stamp`): for every arm, what the
//! reflector's numbering and Class-of-Service TLVs said, summed over the
//! arm's trials — packets sent and answered, loss by direction (stateful
//! reflectors), and the DSCP the reflector received against the one sent,
//! so a re-marking on the path shows per family without `--verbose`.

use std::collections::BTreeMap;

use dualperf_model::{ArmId, PeerKind, Quantity, RunResult, TrialOutcome};

use crate::present::arms::ArmNames;
use crate::present::value::format_quantity;

#[derive(Default)]
struct Totals {
    sent: u64,
    replies: u64,
    forward_lost: Option<u64>,
    reverse_lost: Option<u64>,
    stateless: bool,
    reported: u64,
    remarked: u64,
    unsupported: u64,
    sent_dscp: Option<u8>,
    received_dscp: BTreeMap<u8, u64>,
}

fn add(total: &mut Option<u64>, value: Option<u64>) {
    if let Some(value) = value {
        *total = Some(total.unwrap_or(0) + value);
    }
}

/// The STAMP block, `None` unless the run measured a STAMP peer.
pub fn render_stamp(result: &RunResult) -> Option<String> {
    if result.config.peer != PeerKind::Stamp {
        return None;
    }
    let names = ArmNames::new(&result.config);
    let mut arms: BTreeMap<(usize, usize), Totals> = BTreeMap::new();
    let order = |id: &ArmId| result.config.arms.iter().position(|a| &a.id == id);
    for trial in &result.trials {
        let TrialOutcome::Ok(o) = &trial.outcome else {
            continue;
        };
        let (Some(stamp), Some(arm)) = (&o.stamp, order(&trial.arm)) else {
            continue;
        };
        let t = arms.entry((trial.point, arm)).or_default();
        t.sent += stamp.sent;
        t.replies += stamp.replies;
        add(&mut t.forward_lost, stamp.forward_lost);
        add(&mut t.reverse_lost, stamp.reverse_lost);
        t.stateless |= stamp.reflector_stateful == Some(false);
        if let Some(cos) = &stamp.class_of_service {
            t.reported += cos.reported;
            t.remarked += cos.remarked;
            t.unsupported += cos.unsupported;
            t.sent_dscp = Some(cos.sent_dscp);
            for &(dscp, count) in &cos.received_dscp {
                *t.received_dscp.entry(dscp).or_default() += count;
            }
        }
    }
    if arms.is_empty() {
        return None;
    }
    let mut out = String::from("STAMP reflector (sums over repetitions):\n");
    for ((point, arm), t) in arms {
        let label = names.label(&result.config.arms[arm].id);
        let mut line = format!(
            "  [{}] {label}: {} of {} answered",
            point + 1,
            t.replies,
            t.sent
        );
        match (t.forward_lost, t.reverse_lost, t.stateless) {
            (Some(f), Some(r), _) => line.push_str(&format!("; lost {f} forward, {r} back")),
            (_, _, true) => line.push_str("; stateless reflector: loss not split by direction"),
            _ => {}
        }
        if t.reported > 0 {
            let received: Vec<String> = t
                .received_dscp
                .iter()
                .map(|(dscp, n)| format!("{dscp} ×{n}"))
                .collect();
            let ratio = t.remarked as f64 / t.reported as f64;
            line.push_str(&format!(
                "; DSCP sent {}, reflector received {}",
                t.sent_dscp.unwrap_or(0),
                received.join(", ")
            ));
            if t.remarked > 0 {
                line.push_str(&format!(
                    " — re-marked on the way ({})",
                    format_quantity(Quantity::Ratio, ratio)
                ));
            }
        } else if t.unsupported > 0 {
            line.push_str("; the reflector ignores the Class-of-Service TLV");
        }
        out.push_str(&line);
        out.push('\n');
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::observation::Observations;
    use dualperf_model::{StampClassOfService, StampObservations, TestKind, TestSpec, Trial};

    #[test]
    fn a_remark_is_named_per_arm() {
        let spec = TestSpec::new(TestKind::UdpProbe, 172);
        let mut config = dualperf_fixtures::config(
            vec![spec.clone()],
            vec![dualperf_model::Arm::native(
                dualperf_model::IpFamily::V4,
                None,
            )],
        );
        config.peer = PeerKind::Stamp;
        let observations = Observations {
            stamp: Some(Box::new(StampObservations {
                sent: 10,
                replies: 10,
                reflector_stateful: Some(true),
                forward_lost: Some(0),
                reverse_lost: Some(0),
                class_of_service: Some(StampClassOfService {
                    sent_dscp: 46,
                    reported: 10,
                    remarked: 10,
                    received_dscp: vec![(0, 10)],
                    ..Default::default()
                }),
                ..Default::default()
            })),
            ..Default::default()
        };
        let mut result = dualperf_fixtures::synthetic::small_synthetic_run();
        result.config = config.clone();
        result.trials = vec![Trial {
            point: 0,
            spec,
            arm: config.arms[0].id.clone(),
            family: dualperf_model::IpFamily::V4,
            repetition: 0,
            started_at_unix_ms: 0,
            local_address: None,
            remote_address: None,
            server_seen_family: None,
            outcome: TrialOutcome::Ok(Box::new(observations)),
        }];
        let text = render_stamp(&result).unwrap();
        assert!(
            text.contains("10 of 10 answered; lost 0 forward, 0 back"),
            "{text}"
        );
        assert!(
            text.contains("DSCP sent 46, reflector received 0 ×10 — re-marked"),
            "{text}"
        );
    }
}
