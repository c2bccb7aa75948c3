//! What a server accepts: bounded durations, rates, streams, sessions and
//! waiting times, so that a `dualperf serve` left running cannot be turned
//! into a traffic source or exhausted by idle peers.

use std::time::Duration;

use dualperf_model::{BitRate, TestKind, TestSpec};

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
    pub max_sessions: u32,
    /// Time a new connection has to complete the handshake (default 5 s).
    pub handshake_timeout: Duration,
    /// Time the server waits for the next message of a session (default 30 s).
    pub idle_timeout: Duration,
}

impl Default for ServerLimits {
    fn default() -> Self {
        ServerLimits {
            max_duration: Duration::from_secs(60),
            max_rate: None,
            max_parallel_streams: 16,
            max_sessions: 4,
            handshake_timeout: Duration::from_secs(5),
            idle_timeout: Duration::from_secs(30),
        }
    }
}

impl ServerLimits {
    /// Checks a requested test against the limits; the error is the refusal text.
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
        if spec.sample_interval_ms < 10 {
            return Err(format!(
                "sample interval {} ms is below the 10 ms minimum",
                spec.sample_interval_ms
            ));
        }
        if let (Some(limit), true) = (self.max_rate, spec.reverse && spec.kind.is_udp()) {
            // A probe stream's rate is fixed by its size and interval.
            let rate = match spec.kind {
                TestKind::UdpProbe => Some(BitRate::from_bits_per_second(
                    u64::from(spec.size_bytes) * 8 * 1_000_000
                        / crate::endpoint::probe_interval(spec).as_micros().max(1) as u64,
                )),
                _ => spec.rate,
            };
            match rate {
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
            kind,
            size_bytes: 64,
            duration_ms: 1000,
            warmup_ms: 0,
            parallel_streams: 1,
            reverse: false,
            rate: None,
            sample_interval_ms: 100,
            probe_interval_us: None,
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
}
