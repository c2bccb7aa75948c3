//! Words for what a one-way delay rests on (issue 14): "exact" only when
//! both ends share a kernel; with `--clocks-synchronised` between hosts,
//! "clocks declared synchronised; error bound ±X µs". Never anything that
//! contradicts the table: without a shared or declared clock there is no
//! one-way delay to describe.

use dualperf_model::{EndsPlacement, MetricId, Observations, Trial, TrialOutcome};

use super::value::significant;

/// What the one-way delays of a trial rest on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ClockBasis {
    /// Both ends on one kernel: one clock, exact.
    OneKernel,
    /// Two kernels declared synchronised; half the control connection's
    /// minimum RTT bounds the error, when it was measured.
    Declared {
        /// The error bound, nanoseconds.
        error_bound_ns: Option<u64>,
    },
    /// A result recorded before dualperf told the two apart.
    SharedOrDeclared,
}

/// True for the metrics that are one-way delays (they need one clock).
pub fn is_one_way_delay(metric: MetricId) -> bool {
    matches!(
        metric,
        MetricId::OwdMinNs
            | MetricId::OwdMeanNs
            | MetricId::OwdP50Ns
            | MetricId::OwdP99Ns
            | MetricId::LoadedOwdP50Ns
            | MetricId::LoadedOwdP99Ns
    )
}

/// What the one-way delays of `observations` rest on; `None` when it
/// measured none (no shared or declared clock, or no one-way UDP).
pub fn clock_basis(observations: &Observations) -> Option<ClockBasis> {
    let shared = observations
        .udp
        .as_ref()
        .or(observations.probe.as_ref().map(|p| &p.udp))
        .is_some_and(|udp| udp.clocks_shared);
    if !shared {
        return None;
    }
    Some(match observations.placement {
        Some(placement) if placement.shares_kernel() => ClockBasis::OneKernel,
        Some(EndsPlacement::SeparateKernels) => ClockBasis::Declared {
            error_bound_ns: observations.control_min_rtt_ns.map(|rtt| rtt / 2),
        },
        _ => ClockBasis::SharedOrDeclared,
    })
}

/// The basis of a point's one-way delays over `trials`: declared wins over
/// one kernel (the weaker claim), with the largest error bound.
pub fn point_clock_basis<'a>(trials: impl IntoIterator<Item = &'a Trial>) -> Option<ClockBasis> {
    let mut basis: Option<ClockBasis> = None;
    for trial in trials {
        let TrialOutcome::Ok(observations) = &trial.outcome else {
            continue;
        };
        let Some(this) = clock_basis(observations) else {
            continue;
        };
        basis = Some(match (basis, this) {
            (None, this) => this,
            (
                Some(ClockBasis::Declared { error_bound_ns: a }),
                ClockBasis::Declared { error_bound_ns: b },
            ) => ClockBasis::Declared {
                error_bound_ns: a.zip(b).map(|(a, b)| a.max(b)),
            },
            (Some(kept), this) if rank(this) > rank(kept) => this,
            (Some(kept), _) => kept,
        });
    }
    basis
}

/// The weaker the claim, the higher: a point is described by its weakest trial.
fn rank(basis: ClockBasis) -> u8 {
    match basis {
        ClockBasis::OneKernel => 0,
        ClockBasis::SharedOrDeclared => 1,
        ClockBasis::Declared { .. } => 2,
    }
}

/// "both ends share one kernel clock, so one-way delay is exact", "clocks
/// declared synchronised (--clocks-synchronised); error bound ±150 µs".
pub fn clock_words(basis: ClockBasis) -> String {
    match basis {
        ClockBasis::OneKernel => {
            "both ends share one kernel clock, so one-way delay is exact".to_string()
        }
        ClockBasis::Declared {
            error_bound_ns: Some(bound),
        } => format!(
            "clocks declared synchronised (--clocks-synchronised); error bound ±{} µs (half the \
             minimum RTT) plus the synchronisation's own error",
            significant(bound as f64 / 1e3)
        ),
        ClockBasis::Declared {
            error_bound_ns: None,
        } => "clocks declared synchronised (--clocks-synchronised); no error bound was measured"
            .to_string(),
        ClockBasis::SharedOrDeclared => {
            "one clock, or clocks declared synchronised (recorded before dualperf told them apart)"
                .to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::UdpReceiveCounters;

    fn probe(clocks_shared: bool, placement: Option<EndsPlacement>) -> Observations {
        Observations {
            udp: Some(UdpReceiveCounters {
                clocks_shared,
                ..UdpReceiveCounters::default()
            }),
            placement,
            control_min_rtt_ns: Some(300_000),
            ..Observations::default()
        }
    }

    #[test]
    fn exact_only_on_one_kernel_and_a_bound_when_declared() {
        let one = clock_basis(&probe(true, Some(EndsPlacement::SameKernel))).unwrap();
        assert_eq!(one, ClockBasis::OneKernel);
        assert!(clock_words(one).contains("exact"));
        let declared = clock_basis(&probe(true, Some(EndsPlacement::SeparateKernels))).unwrap();
        assert_eq!(
            declared,
            ClockBasis::Declared {
                error_bound_ns: Some(150_000)
            }
        );
        let words = clock_words(declared);
        assert!(
            words.starts_with(
                "clocks declared synchronised (--clocks-synchronised); error bound ±150 µs"
            ),
            "{words}"
        );
        assert!(!words.contains("exact"));
        assert_eq!(
            clock_basis(&probe(false, Some(EndsPlacement::SeparateKernels))),
            None
        );
        assert_eq!(
            clock_basis(&probe(true, None)),
            Some(ClockBasis::SharedOrDeclared)
        );
    }
}
