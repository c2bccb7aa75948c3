//! iperf3's socket flags on `dualperf run`: `-w` (socket buffers), `-M`
//! (TCP maximum segment size), `-N` (TCP_NODELAY) become every point's
//! [`SocketTuning`]; `-B` (source address, one per family) becomes the
//! client's source addresses. After the run, what the kernel granted is
//! printed: the buffer sizes both ends read back (`SO_SNDBUF`/`SO_RCVBUF`,
//! doubled by Linux, socket(7)) and the MSS in use (`tcpi_snd_mss`).

use std::net::IpAddr;

use dualperf_model::{IpFamily, PeerKind, RunConfig, RunResult, SocketTuning, TrialOutcome};

use super::iperf3::Iperf3Flags;
use crate::cli::Failure;

/// `-w`, `-M`, `-N` as one [`SocketTuning`].
///
/// # Errors
/// A usage error (exit 2) for a value outside what Linux takes.
pub(crate) fn socket_tuning(flags: &Iperf3Flags) -> anyhow::Result<SocketTuning> {
    let buffer_bytes = match flags.window {
        Some(bytes) => Some(u32::try_from(bytes).map_err(|_| {
            Failure::usage(format!("-w {bytes}: a socket buffer is at most 256 MiB"))
        })?),
        None => None,
    };
    let tuning = SocketTuning {
        buffer_bytes,
        mss_bytes: flags.set_mss,
        no_delay: flags.no_delay,
    };
    tuning
        .validate()
        .map_err(|e| Failure::usage(format!("-w/-M: {e}")))?;
    Ok(tuning)
}

/// `-B ADDR` (repeatable, one per family): the client's source addresses,
/// each checked to be an address of this host (a bind to it succeeds).
///
/// # Errors
/// A usage error for two addresses of one family or one this host lacks.
pub(crate) fn source_addresses(flags: &Iperf3Flags) -> anyhow::Result<Vec<IpAddr>> {
    for family in IpFamily::ALL {
        let given: Vec<_> = flags
            .bind
            .iter()
            .filter(|a| IpFamily::of(a) == family)
            .collect();
        if given.len() > 1 {
            return Err(Failure::usage(format!(
                "-B: one source address per family ({family} got {}); e.g. -B 192.0.2.1 -B 2001:db8::1",
                given.len()
            )));
        }
    }
    for address in &flags.bind {
        std::net::UdpSocket::bind((*address, 0)).map_err(|e| {
            Failure::usage(format!(
                "-B {address}: not an address of this host ({e}); `ip address` lists them"
            ))
        })?;
    }
    Ok(flags.bind.clone())
}

/// Gives every point of `config` the tuning (a plan file's points too).
pub(crate) fn apply(config: &mut RunConfig, tuning: SocketTuning) {
    if tuning.is_default() {
        return;
    }
    for point in &mut config.points {
        point.tuning = tuning;
    }
}

/// Refuses `-w`, `-M`, `-N`, `-B` against a far end that is not a dualperf
/// server: the iperf3 and STAMP peers open their sockets their own way.
///
/// # Errors
/// A usage error naming the flag and the peer.
pub(crate) fn check_peer(
    peer: PeerKind,
    tuning: &SocketTuning,
    sources: &[IpAddr],
) -> anyhow::Result<()> {
    if peer == PeerKind::Dualperf || (tuning.is_default() && sources.is_empty()) {
        return Ok(());
    }
    Err(Failure::usage(format!(
        "-w, -M, -N and -B are implemented against a dualperf server only, not --peer {}",
        peer.name()
    )))
}

/// What the kernel granted, one line per arm and TCP/UDP point kind, for
/// the flags that were given: the buffer sizes each end read back after
/// `-w`, the MSS in use after `-M` (from `TCP_INFO`), the source address
/// of the data connection after `-B`.
pub(crate) fn granted_lines(
    result: &RunResult,
    tuning: &SocketTuning,
    sources: &[IpAddr],
) -> Vec<String> {
    if tuning.is_default() && sources.is_empty() {
        return Vec::new();
    }
    let mut lines = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for trial in &result.trials {
        let TrialOutcome::Ok(observations) = &trial.outcome else {
            continue;
        };
        if !seen.insert((trial.arm.clone(), trial.spec.kind)) {
            continue;
        }
        let mut parts = Vec::new();
        if let Some(asked) = tuning.buffer_bytes {
            let side = |facts: Option<&dualperf_model::SocketFacts>| match facts {
                Some(f) => format!(
                    "SO_SNDBUF {} B, SO_RCVBUF {} B",
                    bytes(f.send_buffer_bytes),
                    bytes(f.receive_buffer_bytes)
                ),
                None => "not reported".to_string(),
            };
            parts.push(format!(
                "-w {asked} B granted: client {}; server {}",
                side(Some(&observations.socket)),
                side(observations.server_socket.as_ref())
            ));
        }
        if let (Some(asked), Some(tcp)) = (tuning.mss_bytes, observations.tcp) {
            parts.push(format!(
                "-M {asked} B: MSS in use {} B (TCP_INFO tcpi_snd_mss of the sender)",
                tcp.send_mss_bytes
            ));
        }
        if tuning.no_delay && !trial.spec.kind.is_udp() {
            parts.push("-N: TCP_NODELAY set on both ends".to_string());
        }
        if !sources.is_empty() {
            parts.push(format!(
                "source {}",
                trial.local_address.as_deref().unwrap_or("not recorded")
            ));
        }
        if !parts.is_empty() {
            lines.push(format!(
                "dualperf: {} {}: {}",
                trial.arm,
                trial.spec.kind,
                parts.join("; ")
            ));
        }
    }
    lines
}

fn bytes(value: Option<u32>) -> String {
    value.map_or_else(|| "?".to_string(), |v| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_become_a_tuning_and_bad_values_are_usage_errors() {
        let flags = Iperf3Flags {
            window: Some(256 << 10),
            set_mss: Some(1000),
            no_delay: true,
            ..Default::default()
        };
        let tuning = socket_tuning(&flags).unwrap();
        assert_eq!(tuning.buffer_bytes, Some(262_144));
        assert_eq!(tuning.mss_bytes, Some(1000));
        assert!(tuning.no_delay);
        for bad in [
            Iperf3Flags {
                set_mss: Some(40),
                ..Default::default()
            },
            Iperf3Flags {
                window: Some(8 << 30),
                ..Default::default()
            },
        ] {
            let error = socket_tuning(&bad).unwrap_err();
            assert_eq!(
                error.downcast_ref::<Failure>().unwrap().code,
                crate::exit::USAGE
            );
        }
    }

    #[test]
    fn one_source_per_family_and_only_this_hosts() {
        let ok = Iperf3Flags {
            bind: vec!["127.0.0.1".parse().unwrap(), "::1".parse().unwrap()],
            ..Default::default()
        };
        assert_eq!(source_addresses(&ok).unwrap().len(), 2);
        let two = Iperf3Flags {
            bind: vec!["127.0.0.1".parse().unwrap(), "127.0.0.2".parse().unwrap()],
            ..Default::default()
        };
        assert!(source_addresses(&two)
            .unwrap_err()
            .to_string()
            .contains("one source address per family"));
        let foreign = Iperf3Flags {
            bind: vec!["192.0.2.1".parse().unwrap()],
            ..Default::default()
        };
        let error = source_addresses(&foreign).unwrap_err();
        assert!(
            error.to_string().contains("not an address of this host"),
            "{error}"
        );
    }
}
