//! Which family an RFC 8305 ("Happy Eyeballs Version 2") client would use,
//! computed from measured resolution and connection times.
//!
//! The model, simplified to one address per family (the first of each):
//! * both queries leave at t = 0 (§3);
//! * if the AAAA answer comes first, connecting starts at once with IPv6;
//!   if the A answer comes first, the client waits up to the Resolution
//!   Delay (recommended 50 ms, §3) for AAAA (a negative AAAA answer ends the
//!   wait), then starts with whatever it has, IPv6 first (§4);
//! * the next attempt starts one Connection Attempt Delay (recommended
//!   250 ms, §5) after the previous one started, or as soon as it failed,
//!   and never before its address is known;
//! * the first attempt to succeed wins; later attempts are not started.
//!
//! Pure: times go in, a decision comes out (convention 3).

use std::time::Duration;

use dualperf_model::{IpFamily, PerFamily};

/// RFC 8305 timers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Delays {
    /// Wait for AAAA after A arrived first (§3, recommended 50 ms); JSON
    /// `resolution_delay_ms`, milliseconds.
    #[serde(rename = "resolution_delay_ms", serialize_with = "crate::json::ms")]
    #[schemars(rename = "resolution_delay_ms", with = "f64")]
    pub resolution_delay: Duration,
    /// Stagger between connection attempts (§5, recommended 250 ms); JSON
    /// `connection_attempt_delay_ms`, milliseconds.
    #[serde(
        rename = "connection_attempt_delay_ms",
        serialize_with = "crate::json::ms"
    )]
    #[schemars(rename = "connection_attempt_delay_ms", with = "f64")]
    pub connection_attempt_delay: Duration,
}

impl Default for Delays {
    fn default() -> Self {
        Delays {
            resolution_delay: Duration::from_millis(50),
            connection_attempt_delay: Duration::from_millis(250),
        }
    }
}

/// What was measured for one family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FamilyTimes {
    /// When the answer (positive or negative) arrived.
    pub resolved_after: Duration,
    /// True if the answer held at least one address.
    pub has_address: bool,
    /// How long a connection attempt took, and whether it succeeded
    /// (`None`: not attempted).
    pub connect: Option<(Duration, bool)>,
}

/// One simulated connection attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Attempt {
    /// Family of the attempt.
    pub family: IpFamily,
    /// Start time since the queries were sent; JSON `started_at_ms`, milliseconds.
    #[serde(rename = "started_at_ms", serialize_with = "crate::json::ms")]
    #[schemars(rename = "started_at_ms", with = "f64")]
    pub started_at: Duration,
    /// End time (success or failure); JSON `ended_at_ms`, milliseconds.
    #[serde(rename = "ended_at_ms", serialize_with = "crate::json::ms")]
    #[schemars(rename = "ended_at_ms", with = "f64")]
    pub ended_at: Duration,
    /// True if it connected.
    pub succeeded: bool,
}

/// The outcome.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Decision {
    /// The family the client ends up using (`None`: nothing connects).
    pub winner: Option<IpFamily>,
    /// When the winning connection is established; JSON `connected_at_ms`,
    /// milliseconds since the queries were sent.
    #[serde(rename = "connected_at_ms", serialize_with = "crate::json::option_ms")]
    #[schemars(rename = "connected_at_ms", with = "Option<f64>")]
    pub connected_at: Option<Duration>,
    /// The attempts started, in order.
    pub attempts: Vec<Attempt>,
}

/// Simulates an RFC 8305 client over the measured `times`.
pub fn decide(times: PerFamily<FamilyTimes>, delays: Delays) -> Decision {
    let v4 = times.v4;
    let v6 = times.v6;
    // When each family's address becomes usable, and the order of attempts.
    let mut candidates: Vec<(IpFamily, Duration, FamilyTimes)> = Vec::new();
    match (v4.has_address, v6.has_address) {
        (false, false) => {
            return Decision {
                winner: None,
                connected_at: None,
                attempts: Vec::new(),
            }
        }
        (false, true) => candidates.push((IpFamily::V6, v6.resolved_after, v6)),
        (true, false) => {
            let start = (v4.resolved_after + delays.resolution_delay)
                .min(v6.resolved_after.max(v4.resolved_after));
            candidates.push((IpFamily::V4, start, v4));
        }
        (true, true) => {
            if v6.resolved_after <= v4.resolved_after + delays.resolution_delay {
                candidates.push((IpFamily::V6, v6.resolved_after, v6));
                candidates.push((IpFamily::V4, v4.resolved_after, v4));
            } else {
                candidates.push((
                    IpFamily::V4,
                    v4.resolved_after + delays.resolution_delay,
                    v4,
                ));
                candidates.push((IpFamily::V6, v6.resolved_after, v6));
            }
        }
    }
    let mut attempts: Vec<Attempt> = Vec::new();
    for (family, available_at, family_times) in candidates {
        let Some((duration, succeeded)) = family_times.connect else {
            continue;
        };
        let started_at = match attempts.last() {
            None => available_at,
            Some(previous) => {
                let next_slot = if previous.succeeded {
                    previous.started_at + delays.connection_attempt_delay
                } else {
                    (previous.started_at + delays.connection_attempt_delay).min(previous.ended_at)
                };
                next_slot.max(available_at)
            }
        };
        // An earlier attempt that already connected ends the race.
        if attempts
            .iter()
            .any(|a| a.succeeded && a.ended_at <= started_at)
        {
            break;
        }
        attempts.push(Attempt {
            family,
            started_at,
            ended_at: started_at + duration,
            succeeded,
        });
    }
    let winner = attempts
        .iter()
        .filter(|a| a.succeeded)
        .min_by_key(|a| a.ended_at);
    Decision {
        winner: winner.map(|a| a.family),
        connected_at: winner.map(|a| a.ended_at),
        attempts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn family(resolved: u64, has_address: bool, connect: Option<(u64, bool)>) -> FamilyTimes {
        FamilyTimes {
            resolved_after: ms(resolved),
            has_address,
            connect: connect.map(|(d, ok)| (ms(d), ok)),
        }
    }

    #[test]
    fn working_ipv6_wins_when_both_answers_arrive_together() {
        let d = decide(
            PerFamily {
                v4: family(10, true, Some((5, true))),
                v6: family(12, true, Some((20, true))),
            },
            Delays::default(),
        );
        assert_eq!(d.winner, Some(IpFamily::V6));
        assert_eq!(d.connected_at, Some(ms(32)));
        assert_eq!(
            d.attempts.len(),
            1,
            "IPv4 never starts: IPv6 connected within 250 ms"
        );
    }

    #[test]
    fn a_slow_aaaa_answer_lets_ipv4_start_after_the_resolution_delay() {
        let d = decide(
            PerFamily {
                v4: family(10, true, Some((5, true))),
                v6: family(200, true, Some((5, true))),
            },
            Delays::default(),
        );
        assert_eq!(d.winner, Some(IpFamily::V4));
        assert_eq!(d.attempts[0].started_at, ms(60));
    }

    #[test]
    fn aaaa_that_does_not_connect_costs_the_connection_attempt_delay() {
        // The classic fault: AAAA exists, IPv6 SYNs vanish (timeout after 2 s).
        let d = decide(
            PerFamily {
                v4: family(10, true, Some((5, true))),
                v6: family(10, true, Some((2000, false))),
            },
            Delays::default(),
        );
        assert_eq!(d.winner, Some(IpFamily::V4));
        assert_eq!(d.attempts[1].started_at, ms(260));
        assert_eq!(d.connected_at, Some(ms(265)));
    }

    #[test]
    fn a_refused_ipv6_attempt_falls_back_at_once() {
        let d = decide(
            PerFamily {
                v4: family(10, true, Some((5, true))),
                v6: family(10, true, Some((1, false))),
            },
            Delays::default(),
        );
        assert_eq!(d.attempts[1].started_at, ms(11));
        assert_eq!(d.winner, Some(IpFamily::V4));
    }

    #[test]
    fn slow_ipv6_loses_to_ipv4_started_250_ms_later() {
        let d = decide(
            PerFamily {
                v4: family(10, true, Some((5, true))),
                v6: family(10, true, Some((400, true))),
            },
            Delays::default(),
        );
        assert_eq!(d.winner, Some(IpFamily::V4));
        assert_eq!(d.connected_at, Some(ms(265)));
    }

    #[test]
    fn no_addresses_means_no_winner() {
        let d = decide(
            PerFamily {
                v4: family(10, false, None),
                v6: family(10, false, None),
            },
            Delays::default(),
        );
        assert_eq!(d.winner, None);
    }

    #[test]
    fn ipv4_only_names_connect_over_ipv4_after_the_negative_aaaa_answer() {
        let d = decide(
            PerFamily {
                v4: family(10, true, Some((5, true))),
                v6: family(30, false, None),
            },
            Delays::default(),
        );
        assert_eq!(d.attempts[0].started_at, ms(30));
        assert_eq!(d.winner, Some(IpFamily::V4));
    }
}
