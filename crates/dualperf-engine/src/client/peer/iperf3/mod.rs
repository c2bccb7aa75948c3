//! A client for iperf3 3.x servers (esnet/iperf), written from iperf3's
//! published source: dualperf measures against the thousands of iperf3
//! servers it does not run, per family, with its own arms, repetitions and
//! statistics.
//!
//! | module | holds |
//! |---|---|
//! | [`bidir`] | `--bidir`: one test in both directions, split into the trial and its mirror |
//! | [`control`] | cookie, one-byte states, length-prefixed JSON |
//! | [`params`] | a dualperf point as iperf3's test parameters |
//! | [`streams`] | TCP and UDP data streams (UDP hello, iperf3's datagram header) |
//! | [`session`] | one test, state by state, with the measured interval |
//! | [`results`] | the results exchange, both directions |
//!
//! What an iperf3 server can tell: its receiver bytes (client sending) or
//! sender bytes (`-R`), UDP loss and RFC 3550 jitter from sequence numbers
//! and send times, its CPU. What it cannot: per-packet one-way delay,
//! delay distributions, request/response or connection times (tcp-rr,
//! udp-rr, tcp-connect, udp-probe and media need a dualperf or STAMP peer).
//!
//! Etiquette: an iperf3 server runs one test at a time and turns other
//! clients away (`ACCESS_DENIED`). [`run_trial`] then waits and tries again,
//! a bounded number of times with doubling waits ([`BusyPolicy`]), and
//! says so when the server stays busy.

pub mod bidir;
pub mod control;
pub mod params;
pub mod results;
pub mod session;
pub mod streams;

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use dualperf_model::{Arm, CpuObservations, Observations, ProcessCpu, TestSpec};

use crate::client::{ClientOptions, TrialReport};
use crate::error::{EngineError, Result};
use control::{Control, ControlError};
use session::SessionOutcome;

/// iperf3's well-known port.
pub const DEFAULT_PORT: u16 = 5201;

/// How long a connection, a handshake answer or a UDP hello may take.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// How often and how patiently a busy server is asked again.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct BusyPolicy {
    /// Attempts in all, the first included.
    pub attempts: u32,
    /// Wait before the second attempt; doubled before each further one.
    pub first_wait: Duration,
}

impl Default for BusyPolicy {
    /// 4 attempts, waiting 2 s, 4 s and 8 s in between (14 s at most).
    fn default() -> Self {
        BusyPolicy {
            attempts: 4,
            first_wait: Duration::from_secs(2),
        }
    }
}

impl BusyPolicy {
    /// The wait before attempt `attempt` (from 1; none before the first).
    pub fn wait_before(&self, attempt: u32) -> Duration {
        match attempt {
            0 | 1 => Duration::ZERO,
            n => self.first_wait.saturating_mul(1 << (n - 2).min(16)),
        }
    }
}

/// One trial of `spec` on `arm` against the iperf3 server at `server`,
/// retried while the server is busy as [`BusyPolicy::default`] says.
///
/// # Errors
/// A server that stays busy, refuses the test or breaks off; a point an
/// iperf3 server cannot run.
pub fn run_trial(
    server: SocketAddr,
    spec: &TestSpec,
    arm: &Arm,
    options: &ClientOptions,
) -> Result<TrialReport> {
    run_trial_with(server, spec, arm, options, BusyPolicy::default())
}

/// [`run_trial`] with an explicit busy policy.
///
/// # Errors
/// As [`run_trial`].
pub fn run_trial_with(
    server: SocketAddr,
    spec: &TestSpec,
    arm: &Arm,
    options: &ClientOptions,
    policy: BusyPolicy,
) -> Result<TrialReport> {
    let (outcome, attempt) = run_attempts(server, spec, arm, options, policy, false)?;
    Ok(report(outcome, arm, attempt))
}

/// One iperf3 test of `spec` on `arm` (in both directions at once when
/// `bidirectional`), retried while the server is busy as `policy` says;
/// with the attempt it ran at.
///
/// # Errors
/// As [`run_trial`].
pub(crate) fn run_attempts(
    server: SocketAddr,
    spec: &TestSpec,
    arm: &Arm,
    options: &ClientOptions,
    policy: BusyPolicy,
    bidirectional: bool,
) -> Result<(SessionOutcome, u32)> {
    // Refuse what an iperf3 server cannot run before touching the network.
    params::TestParameters::for_point(spec, &arm.marking)?;
    let began = Instant::now();
    let mut last_busy = String::new();
    for attempt in 1..=policy.attempts.max(1) {
        let wait = policy.wait_before(attempt);
        if !wait.is_zero() && !sleep_unless_stopped(wait, options) {
            return Err(EngineError::Interrupted);
        }
        let outcome = Control::connect(server, HANDSHAKE_TIMEOUT).and_then(|mut control| {
            session::run_session(
                &mut control,
                spec,
                arm.family,
                &arm.marking,
                HANDSHAKE_TIMEOUT,
                bidirectional,
            )
        });
        match outcome {
            Ok(outcome) => return Ok((outcome, attempt)),
            Err(ControlError::Busy(text)) => last_busy = text,
            Err(other) => return Err(other.into_engine_error()),
        }
    }
    Err(EngineError::Refused(format!(
        "{last_busy}; still so after {} attempts over {:.0} s. An iperf3 server runs one test at a time: try again later or use another server",
        policy.attempts.max(1),
        began.elapsed().as_secs_f64()
    )))
}

/// Sleeps `wait` in short steps; false when the run was stopped meanwhile.
fn sleep_unless_stopped(wait: Duration, options: &ClientOptions) -> bool {
    let until = Instant::now() + wait;
    while Instant::now() < until {
        if options
            .stop
            .as_ref()
            .is_some_and(|stop| stop.load(Ordering::SeqCst))
        {
            return false;
        }
        std::thread::sleep(Duration::from_millis(100).min(until - Instant::now()));
    }
    true
}

/// The trial report: dualperf's view in the usual places, the server's
/// account in [`Observations::iperf3`]. Client sending: the sender counts
/// are dualperf's, the receiver counts and UDP loss and jitter the
/// server's. Reverse: the receiver counts, loss and jitter are dualperf's,
/// the sender bytes the server's.
pub(crate) fn report(outcome: SessionOutcome, arm: &Arm, attempt: u32) -> TrialReport {
    let SessionOutcome {
        measured_ns,
        own,
        intervals,
        udp_received,
        tcp,
        cpu: (client_cpu, system_cpu),
        report,
        server_cpu_percent,
        addresses,
        socket,
        control_min_rtt_ns,
        // The other direction of a bidirectional test: see `bidir`.
        reverse: _,
    } = outcome;
    let mut notes = vec![format!(
        "peer: iperf3 server; its account of the trial is in `iperf3` (server interval {:.3} s, warm-up omitted by the server {} s)",
        report.interval_ns as f64 / 1e9,
        report.omit_s
    )];
    if attempt > 1 {
        notes.push(format!(
            "the iperf3 server was busy; this trial ran at attempt {attempt}"
        ));
    }
    let mut observations = Observations {
        measured_ns,
        intervals,
        tcp,
        socket,
        fragments_per_datagram: 1,
        control_min_rtt_ns,
        ..Observations::default()
    };
    let server_packets = report.streams.iter().map(|s| s.packets).sum();
    if report.server_received {
        observations.sender = own;
        observations.receiver.bytes = report.bytes;
        observations.receiver.packets = match (report.udp_packets, report.udp_lost) {
            (Some(packets), Some(lost)) => packets.saturating_sub(lost),
            _ => 0,
        };
        if let (Some(packets), Some(lost)) = (report.udp_packets, report.udp_lost) {
            observations.udp = Some(dualperf_model::UdpReceiveCounters {
                sent: packets,
                received: packets.saturating_sub(lost),
                lost,
                jitter_ns: report.udp_jitter_ns.unwrap_or(0),
                receive_timestamp_source: "iperf3 server".into(),
                clocks_shared: false,
                ..Default::default()
            });
            notes.push(
                "UDP loss and jitter are the iperf3 server's (sequence gaps and RFC 3550 jitter); it reports no reordering, duplicates or one-way delay".into(),
            );
            if report.udp_counts_include_omit {
                notes.push(
                    "this iperf3 server reports no omitted counts: its UDP loss counts include the warm-up".into(),
                );
            }
        }
    } else {
        observations.receiver = own;
        observations.sender.bytes = report.bytes;
        observations.sender.packets = server_packets;
        observations.udp = udp_received;
        if observations.udp.is_some() {
            notes.push(
                "UDP loss and jitter measured by dualperf from iperf3's sequence numbers and send times; loss after the last arrival of the measured interval is not visible".into(),
            );
        }
    }
    observations.cpu = CpuObservations {
        client: client_cpu,
        system: system_cpu,
        server: Some(server_cpu(server_cpu_percent, report.interval_ns)),
        ..CpuObservations::default()
    };
    notes.push(
        "server CPU: the iperf3 server's own figure (percent of one CPU over its test), as time"
            .into(),
    );
    observations.notes = notes;
    observations.iperf3 = Some(report);
    TrialReport {
        observations,
        server_seen_family: arm.family,
        local_address: addresses.0,
        remote_address: addresses.1,
        server_host: None,
    }
}

/// The server's CPU percentages as times over its interval.
fn server_cpu((_, user, system): (f64, f64, f64), interval_ns: u64) -> ProcessCpu {
    let time = |percent: f64| -> u64 {
        if percent.is_finite() && percent > 0.0 {
            (percent / 100.0 * interval_ns as f64) as u64
        } else {
            0
        }
    };
    ProcessCpu {
        user_ns: time(user),
        system_ns: time(system),
        wall_ns: interval_ns,
        involuntary_switches: 0,
        // iperf3 does not report its threads' run-queue wait.
        run_queue_wait_ns: None,
        busiest_thread_demand_ns: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_waits_double_and_are_bounded() {
        let policy = BusyPolicy::default();
        let waits: Vec<u64> = (1..=4).map(|a| policy.wait_before(a).as_secs()).collect();
        assert_eq!(waits, [0, 2, 4, 8]);
    }

    #[test]
    fn a_kind_iperf3_cannot_run_fails_before_any_connection() {
        let arm = Arm::native(dualperf_model::IpFamily::V4, Some("127.0.0.1".into()));
        let spec = TestSpec::new(dualperf_model::TestKind::UdpProbe, 172);
        // Port 9 (discard) on loopback: never contacted, the point is refused first.
        let error = run_trial(
            "127.0.0.1:9".parse().unwrap(),
            &spec,
            &arm,
            &ClientOptions::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("needs a dualperf or STAMP peer"), "{error}");
    }

    #[test]
    fn a_server_that_stays_busy_gets_bounded_retries_and_a_clear_error() {
        // A listener that answers every connection with ACCESS_DENIED, as a
        // busy iperf3 server does.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let server = listener.local_addr().unwrap();
        let answered = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
        let counter = answered.clone();
        std::thread::spawn(move || {
            use std::io::{Read, Write};
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let mut cookie = [0u8; control::COOKIE_SIZE];
                let _ = stream.read_exact(&mut cookie);
                let _ = stream.write_all(&[control::State::AccessDenied.byte()]);
                counter.fetch_add(1, Ordering::SeqCst);
            }
        });
        let arm = Arm::native(dualperf_model::IpFamily::V4, Some("127.0.0.1".into()));
        let spec = TestSpec::new(dualperf_model::TestKind::TcpStream, 1024);
        let policy = BusyPolicy {
            attempts: 3,
            first_wait: Duration::from_millis(50),
        };
        let error = run_trial_with(server, &spec, &arm, &ClientOptions::default(), policy)
            .unwrap_err()
            .to_string();
        assert!(error.contains("busy running another test"), "{error}");
        assert!(error.contains("still so after 3 attempts"), "{error}");
        assert_eq!(answered.load(Ordering::SeqCst), 3);
    }
}
