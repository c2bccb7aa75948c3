//! What a server accepts, and the protocol's own bounds that both ends
//! check: bounded durations, rates, sizes, streams, memory, sessions and
//! waiting times, so that a `dualperf serve` left running cannot be turned
//! into a traffic source or exhausted by idle, slow or greedy peers.
//!
//! Two layers:
//!
//! - [`validate_spec`]: what any test may ask, whoever serves it (the client
//!   checks its plan with it before sending anything, exit code 2; the
//!   server checks every request with it too);
//! - [`ServerLimits`]: what this server accepts (flags of `dualperf serve`),
//!   each flag itself bounded by a documented maximum
//!   ([`ServerLimits::validate`]).
//!
//! docs/server-limits.md has the table of every limit and its default.

pub mod admission;

use std::time::Duration;

use dualperf_model::{BitRate, TestKind, TestSpec};

/// Largest tcp-stream and tcp-rr write, bytes (16 MiB). Larger writes
/// measure nothing a 16 MiB write does not, and cost that much memory per
/// stream at both ends.
pub const MAX_WRITE_BYTES: u32 = 16 << 20;
/// Most parallel streams any test may ask for (a server's `--max-streams`
/// cannot exceed it).
pub const MAX_PARALLEL_STREAMS: u32 = 128;
/// Shortest sample interval, milliseconds.
pub const MIN_SAMPLE_INTERVAL_MS: u64 = 10;
/// Longest sample interval, milliseconds (one hour).
pub const MAX_SAMPLE_INTERVAL_MS: u64 = 3_600_000;
/// Shortest udp-probe interval, microseconds (1 ms).
pub const MIN_PROBE_INTERVAL_US: u64 = 1_000;
/// Longest udp-probe interval, microseconds (1 s).
pub const MAX_PROBE_INTERVAL_US: u64 = 1_000_000;
/// Longest test, warm-up included, any server may accept (one day); a
/// server's `--max-duration` is at most this.
pub const MAX_TEST_DURATION: Duration = Duration::from_secs(86_400);
/// A paced UDP stream sends at least one datagram per this interval: the
/// lowest rate is `8 × size` bits per second. A sender between datagrams
/// is asleep, so this also bounds how late it notices the end of a test.
pub const MAX_DATAGRAM_GAP: Duration = Duration::from_secs(1);

/// Largest `--max-sessions`.
pub const MAX_SESSIONS: u32 = 1024;
/// Longest `--handshake-timeout`.
pub const MAX_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(300);
/// Longest `--idle-timeout` (one day).
pub const MAX_IDLE_TIMEOUT: Duration = Duration::from_secs(86_400);
/// Smallest `--max-session-memory`, bytes (1 MiB).
pub const MIN_SESSION_MEMORY: u64 = 1 << 20;
/// Largest `--max-session-memory`, bytes (16 GiB).
pub const MAX_SESSION_MEMORY: u64 = 16 << 30;
/// Largest `--max-pending-handshakes`.
pub const MAX_PENDING_HANDSHAKES: u32 = 4096;

/// The server's limits. [`Default`] gives the documented defaults.
#[derive(Clone, Debug)]
pub struct ServerLimits {
    /// Longest warm-up + measured interval of one test (default 60 s).
    pub max_duration: Duration,
    /// Highest rate the server itself sends UDP at, per stream; an
    /// unlimited reverse UDP request is refused when set (default: none).
    pub max_rate: Option<BitRate>,
    /// Most parallel streams in one test (default 16).
    pub max_parallel_streams: u32,
    /// Most sessions served at once; more get a "busy" refusal (default 4).
    /// A slot is taken only once a handshake is complete.
    pub max_sessions: u32,
    /// Most sessions one source holds at once (an IPv4 address or an IPv6
    /// /64); `None`: only `max_sessions` applies (default).
    pub max_sessions_per_source: Option<u32>,
    /// Time a new connection has to complete the whole handshake,
    /// authentication included (default 5 s).
    pub handshake_timeout: Duration,
    /// Time one whole control message of a session may take to arrive or
    /// to be sent (default 30 s).
    pub idle_timeout: Duration,
    /// Memory one session's test may need (buffers, samples, bookkeeping;
    /// see [`session_memory_bytes`]), bytes (default 64 MiB).
    pub max_session_memory: u64,
    /// Connections in the handshake at once; beyond it the oldest is
    /// dropped (default 64). They cost a descriptor and at most
    /// [`crate::protocol::handshake::MAX_HANDSHAKE_FRAME_BYTES`] each, and no thread.
    pub max_pending_handshakes: u32,
    /// Connections in the handshake at once from one source (an IPv4
    /// address or an IPv6 /64); beyond it that source's oldest is dropped
    /// (default 8).
    pub max_handshakes_per_source: u32,
}

impl Default for ServerLimits {
    fn default() -> Self {
        ServerLimits {
            max_duration: Duration::from_secs(60),
            max_rate: None,
            max_parallel_streams: 16,
            max_sessions: 4,
            max_sessions_per_source: None,
            handshake_timeout: Duration::from_secs(5),
            idle_timeout: Duration::from_secs(30),
            max_session_memory: 64 << 20,
            max_pending_handshakes: 64,
            max_handshakes_per_source: 8,
        }
    }
}

/// Formats bytes as MiB for messages.
fn mib(bytes: u64) -> String {
    let value = bytes as f64 / f64::from(1u32 << 20);
    if value >= 10.0 || value.fract() == 0.0 {
        format!("{value:.0} MiB")
    } else {
        format!("{value:.1} MiB")
    }
}

/// Streams a test opens (data sockets and flow threads per end).
pub fn stream_count(spec: &TestSpec) -> u32 {
    crate::admission::stream_count(spec)
}

/// The lowest rate a paced UDP stream of `size_bytes` datagrams may ask
/// for: one datagram per [`MAX_DATAGRAM_GAP`].
pub fn min_udp_rate(size_bytes: u32) -> BitRate {
    BitRate::from_bits_per_second(
        (u64::from(size_bytes.max(1)) * 8 * 1_000_000) / MAX_DATAGRAM_GAP.as_micros() as u64,
    )
}

/// An upper bound on the memory one end needs for `spec`, bytes
/// ([`crate::admission::memory_bytes`]: buffers, raw samples and interval
/// samples; media sized by its profile).
pub fn session_memory_bytes(spec: &TestSpec) -> u64 {
    crate::admission::memory_bytes(spec)
}

/// Checks a test against the protocol's own bounds, whoever serves it: the
/// client runs this on its plan before sending anything, the server on
/// every request. The error names the bound and the flag.
///
/// # Errors
/// The first bound `spec` breaks.
pub fn validate_spec(spec: &TestSpec) -> Result<(), String> {
    let total = Duration::from_millis(spec.duration_ms.saturating_add(spec.warmup_ms));
    if spec.duration_ms == 0 || total > MAX_TEST_DURATION {
        return Err(format!(
            "a test lasts 1 ms to {} s warm-up included; {} ms asked",
            MAX_TEST_DURATION.as_secs(),
            total.as_millis()
        ));
    }
    // -w, -M: a hostile client must not make the server pin gigabytes of
    // socket memory (SO_RCVBUFFORCE as root ignores net.core.rmem_max).
    spec.tuning.validate()?;
    if let Some(budget) = spec.send_budget {
        if !matches!(spec.kind, TestKind::TcpStream | TestKind::UdpStream) {
            return Err(format!(
                "a send budget ({budget}) ends tcp-stream and udp-stream trials; {} is timed (-n/-k)",
                spec.kind
            ));
        }
        if spec.reverse && spec.kind == TestKind::TcpStream {
            return Err(format!(
                "a send budget ({budget}) with the server sending a tcp-stream (-R) is not \
                 implemented; the client must send, or use udp-stream (-u -k N -R)"
            ));
        }
        if budget.blocks(spec.size_bytes) == 0 {
            return Err("a send budget of 0 sends nothing (-n/-k)".to_string());
        }
    }
    if spec.parallel_streams == 0 || spec.parallel_streams > MAX_PARALLEL_STREAMS {
        return Err(format!(
            "{} parallel streams requested; a test has 1 to {MAX_PARALLEL_STREAMS} (-P)",
            spec.parallel_streams
        ));
    }
    if !(MIN_SAMPLE_INTERVAL_MS..=MAX_SAMPLE_INTERVAL_MS).contains(&spec.sample_interval_ms) {
        return Err(format!(
            "sample interval {} ms is outside {MIN_SAMPLE_INTERVAL_MS} ms to {MAX_SAMPLE_INTERVAL_MS} ms (-i)",
            spec.sample_interval_ms
        ));
    }
    if matches!(spec.kind, TestKind::TcpStream | TestKind::TcpRr)
        && spec.size_bytes > MAX_WRITE_BYTES
    {
        return Err(format!(
            "{} write size {} B exceeds the maximum of {} B (16 MiB) (--sizes)",
            spec.kind, spec.size_bytes, MAX_WRITE_BYTES
        ));
    }
    if let Some(interval) = spec.probe_interval_us {
        if !(MIN_PROBE_INTERVAL_US..=MAX_PROBE_INTERVAL_US).contains(&interval) {
            return Err(format!(
                "probe interval {} µs is outside 1 ms to 1000 ms (--probe-interval)",
                interval
            ));
        }
    }
    let demand = crate::admission::demand(spec)?;
    if demand.memory_bytes > MAX_SESSION_MEMORY {
        return Err(format!(
            "this test needs about {} of memory; no server accepts more than {}",
            mib(demand.memory_bytes),
            mib(MAX_SESSION_MEMORY)
        ));
    }
    if let (TestKind::UdpStream, Some(rate)) = (spec.kind, spec.rate) {
        let minimum = min_udp_rate(spec.size_bytes);
        if rate < minimum {
            return Err(format!(
                "rate {} bit/s is below the minimum of {} bit/s for {} B datagrams \
                 (one datagram per second) (-b)",
                rate.bits_per_second(),
                minimum.bits_per_second(),
                spec.size_bytes
            ));
        }
    }
    Ok(())
}

impl ServerLimits {
    /// Checks the limits themselves against their documented maxima (the
    /// flags of `dualperf serve`).
    ///
    /// # Errors
    /// The first limit out of range, naming its flag and range.
    pub fn validate(&self) -> Result<(), String> {
        let seconds = |flag: &str, value: Duration, max: Duration| {
            if value < Duration::from_secs(1) || value > max {
                Err(format!(
                    "{flag} {} s is outside 1 to {} s",
                    value.as_secs(),
                    max.as_secs()
                ))
            } else {
                Ok(())
            }
        };
        let count = |flag: &str, value: u32, max: u32| {
            if value == 0 || value > max {
                Err(format!("{flag} {value} is outside 1 to {max}"))
            } else {
                Ok(())
            }
        };
        seconds("--max-duration", self.max_duration, MAX_TEST_DURATION)?;
        seconds(
            "--handshake-timeout",
            self.handshake_timeout,
            MAX_HANDSHAKE_TIMEOUT,
        )?;
        seconds("--idle-timeout", self.idle_timeout, MAX_IDLE_TIMEOUT)?;
        count(
            "--max-streams",
            self.max_parallel_streams,
            MAX_PARALLEL_STREAMS,
        )?;
        count("--max-sessions", self.max_sessions, MAX_SESSIONS)?;
        if let Some(per_source) = self.max_sessions_per_source {
            count("--max-sessions-per-source", per_source, self.max_sessions)?;
        }
        count(
            "--max-pending-handshakes",
            self.max_pending_handshakes,
            MAX_PENDING_HANDSHAKES,
        )?;
        count(
            "--max-handshakes-per-source",
            self.max_handshakes_per_source,
            self.max_pending_handshakes,
        )?;
        if !(MIN_SESSION_MEMORY..=MAX_SESSION_MEMORY).contains(&self.max_session_memory) {
            return Err(format!(
                "--max-session-memory {} is outside {} to {}",
                mib(self.max_session_memory),
                mib(MIN_SESSION_MEMORY),
                mib(MAX_SESSION_MEMORY)
            ));
        }
        if self.max_rate.is_some_and(|r| r.bits_per_second() == 0) {
            return Err("--max-rate must be above zero".into());
        }
        Ok(())
    }

    /// Checks a requested test against the protocol's bounds and these
    /// limits; the error is the refusal text.
    ///
    /// # Errors
    /// The first bound or limit the test breaks.
    pub fn check(&self, spec: &TestSpec) -> Result<(), String> {
        let total = Duration::from_millis(spec.duration_ms.saturating_add(spec.warmup_ms));
        if total > self.max_duration {
            return Err(format!(
                "test of {} ms (warm-up included) exceeds this server's limit of {} ms (serve --max-duration)",
                total.as_millis(),
                self.max_duration.as_millis()
            ));
        }
        if spec.parallel_streams == 0 || spec.parallel_streams > self.max_parallel_streams {
            return Err(format!(
                "{} parallel streams requested; this server allows 1 to {} (serve --max-streams)",
                spec.parallel_streams, self.max_parallel_streams
            ));
        }
        if spec.sample_interval_ms < MIN_SAMPLE_INTERVAL_MS {
            return Err(format!(
                "sample interval {} ms is below the 10 ms minimum",
                spec.sample_interval_ms
            ));
        }
        validate_spec(spec)?;
        let demand = crate::admission::demand(spec)?;
        if demand.memory_bytes > self.max_session_memory {
            return Err(format!(
                "this test needs about {} of memory ({} stream(s) of {} B); this server allows {} per session (serve --max-session-memory)",
                mib(demand.memory_bytes),
                demand.streams,
                demand.largest_message_bytes,
                mib(self.max_session_memory)
            ));
        }
        if let (Some(limit), true) = (self.max_rate, spec.reverse && spec.kind.is_udp()) {
            match demand.rate {
                Some(rate) if rate <= limit => {}
                Some(rate) => {
                    return Err(format!("rate {rate} exceeds this server's limit of {limit} (serve --max-rate)"))
                }
                None => {
                    return Err(format!(
                        "unlimited reverse UDP refused: this server sends at most {limit} (serve --max-rate); pass -b"
                    ))
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dualperf_model::TestKind;

    fn spec(kind: TestKind) -> TestSpec {
        TestSpec {
            duration_ms: 1000,
            warmup_ms: 0,
            sample_interval_ms: 100,
            ..TestSpec::new(kind, 64)
        }
    }

    #[test]
    fn a_short_single_stream_test_is_accepted() {
        assert!(ServerLimits::default()
            .check(&spec(TestKind::TcpStream))
            .is_ok());
    }

    #[test]
    fn too_long_a_test_is_refused_naming_the_flag() {
        let mut long = spec(TestKind::TcpStream);
        long.duration_ms = 61_000;
        assert!(ServerLimits::default()
            .check(&long)
            .unwrap_err()
            .contains("--max-duration"));
    }

    #[test]
    fn too_many_streams_are_refused() {
        let mut wide = spec(TestKind::TcpStream);
        wide.parallel_streams = 17;
        assert!(ServerLimits::default()
            .check(&wide)
            .unwrap_err()
            .contains("1 to 16"));
    }

    #[test]
    fn unlimited_reverse_udp_is_refused_under_a_rate_limit() {
        let limits = ServerLimits {
            max_rate: Some(BitRate::from_mbit(100)),
            ..Default::default()
        };
        let mut reverse = spec(TestKind::UdpStream);
        reverse.reverse = true;
        assert!(limits.check(&reverse).is_err());
        reverse.rate = Some(BitRate::from_mbit(10));
        assert!(limits.check(&reverse).is_ok());
    }

    #[test]
    fn a_gigabyte_write_is_refused_at_both_ends_with_the_maximum_named() {
        let mut huge = spec(TestKind::TcpStream);
        huge.size_bytes = 1 << 30;
        let error = validate_spec(&huge).unwrap_err();
        assert!(
            error.contains("16777216 B") && error.contains("--sizes"),
            "{error}"
        );
        assert!(ServerLimits::default().check(&huge).is_err());
        huge.size_bytes = MAX_WRITE_BYTES;
        assert!(validate_spec(&huge).is_ok());
    }

    #[test]
    fn the_session_memory_bound_refuses_many_large_streams_and_names_the_flag() {
        let mut wide = spec(TestKind::TcpStream);
        (wide.size_bytes, wide.parallel_streams) = (MAX_WRITE_BYTES, 16);
        let error = ServerLimits::default().check(&wide).unwrap_err();
        assert!(
            error.contains("256 MiB") && error.contains("--max-session-memory"),
            "{error}"
        );
        // The defaults fit: 16 streams of 128 KiB writes, 64 KiB datagrams.
        wide.size_bytes = 131_072;
        assert!(ServerLimits::default().check(&wide).is_ok());
        let mut udp = spec(TestKind::UdpStream);
        (udp.size_bytes, udp.parallel_streams) = (65_507, 8);
        assert!(ServerLimits::default().check(&udp).is_ok());
        // Every kind at its largest stays far below the ceiling of the old
        // server (16 streams × 4 GiB).
        let mut rr = spec(TestKind::TcpRr);
        rr.size_bytes = MAX_WRITE_BYTES;
        assert!(session_memory_bytes(&rr) < 64 << 20);
    }

    #[test]
    fn a_rate_below_one_datagram_per_second_is_refused() {
        let mut slow = spec(TestKind::UdpStream);
        slow.size_bytes = 1024;
        slow.rate = Some(BitRate::from_bits_per_second(0));
        assert!(validate_spec(&slow).unwrap_err().contains("-b"));
        slow.rate = Some(BitRate::from_bits_per_second(1));
        let error = ServerLimits::default().check(&slow).unwrap_err();
        assert!(error.contains("8192 bit/s"), "{error}");
        slow.rate = Some(min_udp_rate(1024));
        assert!(validate_spec(&slow).is_ok());
    }

    #[test]
    fn extreme_intervals_and_durations_are_refused_without_overflow() {
        let mut odd = spec(TestKind::UdpProbe);
        odd.probe_interval_us = Some(u64::MAX);
        assert!(validate_spec(&odd).is_err());
        let mut long = spec(TestKind::TcpRr);
        (long.duration_ms, long.warmup_ms) = (u64::MAX, u64::MAX);
        assert!(validate_spec(&long).is_err());
        assert!(ServerLimits::default().check(&long).is_err());
        let _ = session_memory_bytes(&long);
        let mut coarse = spec(TestKind::TcpRr);
        coarse.sample_interval_ms = u64::MAX;
        assert!(validate_spec(&coarse).is_err());
    }

    #[test]
    fn limits_out_of_their_documented_range_are_refused() {
        assert!(ServerLimits::default().validate().is_ok());
        let idle = ServerLimits {
            idle_timeout: Duration::from_secs(u64::MAX),
            ..Default::default()
        };
        assert!(idle.validate().unwrap_err().contains("--idle-timeout"));
        let memory = ServerLimits {
            max_session_memory: 0,
            ..Default::default()
        };
        assert!(memory
            .validate()
            .unwrap_err()
            .contains("--max-session-memory"));
        let streams = ServerLimits {
            max_parallel_streams: 10_000,
            ..Default::default()
        };
        assert!(streams.validate().unwrap_err().contains("1 to 128"));
    }

    #[test]
    fn a_send_budget_is_for_stream_tests_never_zero_and_reverse_only_for_udp() {
        use dualperf_model::SendBudget;
        let mut udp = TestSpec::new(TestKind::UdpStream, 1408);
        udp.send_budget = Some(SendBudget::Packets(1_000_000));
        assert!(validate_spec(&udp).is_ok());
        let mut reverse = udp.clone();
        reverse.reverse = true;
        assert!(
            validate_spec(&reverse).is_ok(),
            "the server sends the budget"
        );
        let mut tcp = TestSpec::new(TestKind::TcpStream, 1000);
        tcp.send_budget = Some(SendBudget::Bytes(1 << 20));
        tcp.reverse = true;
        assert!(validate_spec(&tcp).unwrap_err().contains("-R"));
        let mut rr = TestSpec::new(TestKind::TcpRr, 64);
        rr.send_budget = Some(SendBudget::Bytes(1 << 20));
        assert!(validate_spec(&rr).unwrap_err().contains("timed"));
        udp.send_budget = Some(SendBudget::Packets(0));
        assert!(validate_spec(&udp).unwrap_err().contains("0"));
    }
}
