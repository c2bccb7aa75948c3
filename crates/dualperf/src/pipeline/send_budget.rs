//! A send budget from the flags (`run -n/-k`, `lab -n/-k`): the budget
//! every tcp-stream and udp-stream point of the plan carries
//! ([`dualperf_model::SendBudget`]) and the time cap that bounds those
//! points, checked before anything runs.

use dualperf_model::TestKind;

use crate::exit::Failure;

/// A send budget as the flags give it: the budget of every stream point and
/// the time cap of those points, seconds (their `duration_ms`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BudgetOption {
    /// Blocks or bytes per trial.
    pub budget: dualperf_model::SendBudget,
    /// Longest a budgeted trial may run, seconds.
    pub cap_seconds: f64,
}

/// The time cap of a budgeted trial when `-t` does not set one, seconds.
pub(crate) const DEFAULT_BUDGET_CAP_SECONDS: f64 = 30.0;

impl BudgetOption {
    /// A send budget needs a stream point (with `reverse`: udp-stream
    /// only), a budget of at least one block, and a cap in
    /// (0, `max_trial_seconds`].
    ///
    /// # Errors
    /// A usage error naming the flag.
    pub(crate) fn check(
        &self,
        reverse: bool,
        tests: &[TestKind],
        max_trial_seconds: f64,
    ) -> anyhow::Result<()> {
        if !(self.cap_seconds > 0.0 && self.cap_seconds <= max_trial_seconds) {
            return Err(Failure::usage(format!(
                "the time cap of a send budget (-t with -n/-k) must be in (0, {max_trial_seconds}] seconds"
            )));
        }
        // With -R the server sends the budget (as iperf3's does); the client
        // ends a udp-stream trial when each stream's last datagram came
        // (numbered datagrams). A reverse tcp-stream has no such mark.
        if reverse && tests.contains(&TestKind::TcpStream) {
            return Err(Failure::usage(
                "-n/-k with -R is implemented for udp-stream (-u) only: the client cannot \
                 tell where a server-sent TCP budget ends (leave out -R, or use -u)",
            ));
        }
        if !tests
            .iter()
            .any(|k| matches!(k, TestKind::TcpStream | TestKind::UdpStream))
        {
            return Err(Failure::usage(
                "-n/-k end tcp-stream and udp-stream trials; --tests names neither",
            ));
        }
        if matches!(
            self.budget,
            dualperf_model::SendBudget::Bytes(0) | dualperf_model::SendBudget::Packets(0)
        ) {
            return Err(Failure::usage("-n/-k 0 sends nothing; give at least 1"));
        }
        Ok(())
    }
}
