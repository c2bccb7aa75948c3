//! One trial of an arm, as the plan's client and the tests call it: the
//! families each end sees (IPv4 at the server for an IPv6 client through
//! NAT64), the arm's marking, a probe stream beside the trial when the
//! point asks for one, the servers of a load's flows, and the server's
//! control address ([`target_address`]). Dispatching here keeps the
//! modules one-way: `under_load` builds on `trial`, neither calls back.

use std::net::{IpAddr, SocketAddr};

use dualperf_model::{Arm, RunConfig, TestSpec};

use super::{load, trial, under_load, ClientOptions, TrialReport};

/// Runs one trial of `spec` over `family` against the server at `server`;
/// a tcp-stream or udp-stream spec with `probe_interval_us` set gets a
/// udp-probe stream alongside ([`under_load`]). Dispatching here keeps the
/// modules one-way: `under_load` builds on `trial`, neither calls back.
///
/// # Errors
/// Anything that stops the trial: a refused or unreachable server, an
/// invalid size, a broken data connection. The caller records it as a
/// failed trial.
pub fn run_trial(
    server: SocketAddr,
    spec: &TestSpec,
    family: dualperf_model::IpFamily,
    options: &ClientOptions,
    want_host_facts: bool,
) -> crate::error::Result<TrialReport> {
    run_marked_trial(
        server,
        spec,
        family,
        &dualperf_model::Marking::default(),
        options,
        want_host_facts,
    )
}

/// [`run_trial`] with the data sockets of both ends marked as `marking`
/// says (DSCP, IPv6 flow label): an arm's marking.
///
/// # Errors
/// As [`run_trial`]; also a socket option the kernel refuses.
pub fn run_marked_trial(
    server: SocketAddr,
    spec: &TestSpec,
    family: dualperf_model::IpFamily,
    marking: &dualperf_model::Marking,
    options: &ClientOptions,
    want_host_facts: bool,
) -> crate::error::Result<TrialReport> {
    run_trial_seen_as(
        server,
        spec,
        trial::Families::same(family),
        marking,
        options,
        want_host_facts,
        trial::SessionHooks::default(),
    )
}

/// One trial of `arm`: its marking, and the family the server will see
/// (IPv4 for an IPv6 client through NAT64).
///
/// # Errors
/// As [`run_trial`].
pub fn run_arm_trial(
    server: SocketAddr,
    spec: &TestSpec,
    arm: &Arm,
    options: &ClientOptions,
    want_host_facts: bool,
) -> crate::error::Result<TrialReport> {
    run_arm_trial_with(
        server,
        spec,
        arm,
        options,
        want_host_facts,
        trial::SessionHooks::default(),
    )
}

/// [`run_arm_trial`] coordinated with other sessions through `hooks` (a
/// trial under a competing load).
pub(super) fn run_arm_trial_with(
    server: SocketAddr,
    spec: &TestSpec,
    arm: &Arm,
    options: &ClientOptions,
    want_host_facts: bool,
    hooks: trial::SessionHooks,
) -> crate::error::Result<TrialReport> {
    let seen_as = match arm.path {
        dualperf_model::ArmPath::Nat64 { .. } => dualperf_model::IpFamily::V4,
        _ => arm.family,
    };
    let families = trial::Families {
        client: arm.family,
        server: seen_as,
    };
    run_trial_seen_as(
        server,
        spec,
        families,
        &arm.marking,
        options,
        want_host_facts,
        hooks,
    )
}

/// The trial itself, with a probe stream beside it when `spec` asks for
/// one ([`under_load`]), else alone ([`trial::run_single`]).
fn run_trial_seen_as(
    server: SocketAddr,
    spec: &TestSpec,
    families: trial::Families,
    marking: &dualperf_model::Marking,
    options: &ClientOptions,
    want_host_facts: bool,
    hooks: trial::SessionHooks,
) -> crate::error::Result<TrialReport> {
    if under_load::wants_probe(spec) {
        return under_load::run_with_probe(
            server,
            spec,
            families,
            marking,
            options,
            want_host_facts,
            hooks,
        );
    }
    trial::run_single(
        server,
        spec,
        families,
        marking,
        options,
        want_host_facts,
        hooks,
    )
}

/// Where each flow of `load` goes when it runs beside `arm` (whose server is
/// at `arm_target`): a flow of the arm's family (or none named) shares the
/// arm's session families and server; a flow of another family goes to the
/// server address of the run's native arm of that family.
pub(super) fn load_targets(
    config: &RunConfig,
    arm: &Arm,
    arm_target: SocketAddr,
    load: &dualperf_model::LoadSpec,
) -> Result<Vec<load::LoadTarget>, String> {
    let arm_families = trial::Families {
        client: arm.family,
        server: match arm.path {
            dualperf_model::ArmPath::Nat64 { .. } => dualperf_model::IpFamily::V4,
            _ => arm.family,
        },
    };
    load.flows
        .iter()
        .map(|flow| match flow.family {
            None => Ok(load::LoadTarget {
                server: arm_target,
                families: arm_families,
            }),
            Some(family) if family == arm.family => Ok(load::LoadTarget {
                server: arm_target,
                families: arm_families,
            }),
            Some(family) => {
                let native = config
                    .arms
                    .iter()
                    .find(|a| a.family == family && a.path == dualperf_model::ArmPath::Native)
                    .ok_or_else(|| {
                        format!(
                            "load `{}` has an {family} flow ({}), but the run has no native {family} arm to take its server address from",
                            load.name, flow.label
                        )
                    })?;
                Ok(load::LoadTarget {
                    server: target_address(config, native)?,
                    families: trial::Families::same(family),
                })
            }
        })
        .collect()
}

/// The server's control address for `arm`: its target and the run's port.
pub fn target_address(config: &RunConfig, arm: &Arm) -> Result<SocketAddr, String> {
    let text = arm
        .target
        .as_deref()
        .ok_or_else(|| format!("no server address for arm {} ({})", arm.id, arm.label))?;
    let ip: IpAddr = text
        .trim_matches(|c| c == '[' || c == ']')
        .parse()
        .map_err(|_| format!("`{text}` is not an IP address"))?;
    Ok(SocketAddr::new(ip, config.port))
}
