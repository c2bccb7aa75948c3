//! What the send budgets of a run (iperf3's `-n`/`-k`) did: how many
//! budgeted trials sent their whole budget, and which the time cap ended
//! first. One line, or two when the cap ended some.
//!
//! ```text
//! send budget: all 120 udp-stream trials sent their budget (100000 packets each, in 0.41 to 1.9 s)
//! ```

use dualperf_model::{RunResult, TestKind, TrialOutcome};

use crate::present::value::format_value;

/// The budget line of `kind`'s budgeted trials; `None` when it has none.
pub fn render_budget(result: &RunResult, kind: TestKind) -> Option<String> {
    let mut full = 0usize;
    let mut short = Vec::new();
    let mut seconds: Vec<f64> = Vec::new();
    let mut budget_text = None;
    for trial in result.trials.iter().filter(|t| t.spec.kind == kind) {
        let Some(budget) = trial.spec.send_budget else {
            continue;
        };
        budget_text.get_or_insert_with(|| budget.to_string());
        let TrialOutcome::Ok(observations) = &trial.outcome else {
            continue;
        };
        let size = u64::from(trial.spec.size_bytes.max(1));
        let sent = match kind {
            TestKind::UdpStream => observations.sender.packets,
            _ => observations.sender.bytes / size,
        };
        let wanted = budget.blocks(trial.spec.size_bytes);
        seconds.push(observations.measured_ns as f64 / 1e9);
        if sent >= wanted {
            full += 1;
        } else {
            short.push(format!(
                "{} {} B repetition {}: {sent} of {wanted}",
                trial.arm,
                trial.spec.size_bytes,
                trial.repetition + 1
            ));
        }
    }
    let budget_text = budget_text?;
    let total = full + short.len();
    let (low, high) = seconds
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(l, h), s| (l.min(*s), h.max(*s)));
    let span = |v: f64| format_value(dualperf_model::MetricId::OwdMeanNs, v * 1e9);
    let mut out = if short.is_empty() {
        format!(
            "send budget: all {total} {kind} trials sent their budget ({budget_text} each, in {} to {})\n",
            span(low),
            span(high)
        )
    } else {
        format!(
            "send budget: {full} of {total} {kind} trials sent their budget ({budget_text} each)\n"
        )
    };
    if !short.is_empty() {
        out.push_str(&format!(
            "  the time cap ended {} first: {}\n",
            short.len(),
            short.join("; ")
        ));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_fixtures as fx;
    use dualperf_model::{PerFamily, SendBudget};

    #[test]
    fn trials_at_their_budget_and_trials_the_cap_ended_are_told_apart() {
        let mut spec = fx::spec(TestKind::UdpStream, 128);
        spec.send_budget = Some(SendBudget::Packets(1000));
        let arms = fx::native_arms(PerFamily { v4: None, v6: None });
        let (v4, v6) = (arms[0].clone(), arms[1].clone());
        let observations = |packets: u64| {
            let mut o = fx::stream(1e8);
            o.sender.packets = packets;
            o.measured_ns = 500_000_000;
            o
        };
        let trials = vec![
            fx::trial(0, &spec, &v4, 0, fx::ok(observations(1000))),
            fx::trial(0, &spec, &v6, 0, fx::ok(observations(1000))),
        ];
        let mut result = fx::result(fx::config(vec![spec.clone()], arms), trials);
        let text = render_budget(&result, TestKind::UdpStream).unwrap();
        assert!(
            text.contains("all 2 udp-stream trials sent their budget (1000 packets each"),
            "{text}"
        );
        result.trials[1] = fx::trial(0, &spec, &v6, 0, fx::ok(observations(400)));
        let text = render_budget(&result, TestKind::UdpStream).unwrap();
        assert!(
            text.contains("1 of 2") && text.contains("400 of 1000"),
            "{text}"
        );
        result
            .trials
            .iter_mut()
            .for_each(|t| t.spec.send_budget = None);
        assert!(render_budget(&result, TestKind::UdpStream).is_none());
    }
}
