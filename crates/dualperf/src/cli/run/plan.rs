//! `dualperf run` flags into the pipeline's plan: server addresses resolved
//! per family (the targets of the native arms), the traffic flags as
//! [`PointOptions`], and the whole [`RunConfig`] — from the flags
//! ([`plan_from_flags`], or a design's planner with `--experiment`) or from
//! a plan file retargeted ([`plan_from_file`]). The points themselves are
//! built, and every size checked, by `crate::pipeline::plan`.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, ToSocketAddrs};

use dualperf_model::{
    Arm, ArmId, Dscp, Execution, FlowLabel, IpFamily, Marking, PerFamily, PlanFile, RunConfig,
};

use super::args::{server_name, Args, Repeat};
use super::{families, load, peer};
use crate::cli::Failure;
use crate::pipeline::plan::{choose_baseline, parse_tests, points, PointOptions};
use crate::pipeline::send_budget::{BudgetOption, DEFAULT_BUDGET_CAP_SECONDS};

/// Target address per family, as text.
pub(super) type Targets = PerFamily<Option<String>>;

/// Resolves HOST to its first A and first AAAA address (`localhost`: 127.0.0.1
/// and ::1, RFC 6761); `--v4`/`--v6` win.
pub(super) fn resolve_targets(
    host: Option<&str>,
    v4: Option<Ipv4Addr>,
    v6: Option<Ipv6Addr>,
    port: u16,
) -> anyhow::Result<Targets> {
    let mut targets = Targets {
        v4: v4.map(|a| a.to_string()),
        v6: v6.map(|a| a.to_string()),
    };
    if let Some((v4, v6)) = host.and_then(super::families::localhost) {
        targets.v4.get_or_insert_with(|| v4.to_string());
        targets.v6.get_or_insert_with(|| v6.to_string());
    } else if let Some(host) = host {
        let addresses: Vec<IpAddr> = (host.trim_matches(|c| c == '[' || c == ']'), port)
            .to_socket_addrs()
            .map_err(|e| Failure::usage(format!("cannot resolve `{host}`: {e}")))?
            .map(|a| a.ip().to_canonical())
            .collect();
        for family in IpFamily::ALL {
            let slot = targets.get_mut(family);
            if slot.is_none() {
                *slot = addresses
                    .iter()
                    .find(|a| IpFamily::of(a) == family)
                    .map(|a| a.to_string());
            }
        }
    }
    if targets.v4.is_none() && targets.v6.is_none() {
        return Err(Failure::usage(
            "name a server: HOST, --v4/--v6 ADDR, or --loopback",
        ));
    }
    Ok(targets)
}

/// `arm` marked with `dscp` and (IPv6 arms only) `flow_label`, its id and
/// label saying so: `v6-ef-fl12345`, "IPv6 EF, flow label 12345".
pub(super) fn marked(mut arm: Arm, dscp: Option<Dscp>, flow_label: Option<FlowLabel>) -> Arm {
    let flow_label = flow_label.filter(|_| arm.family == IpFamily::V6);
    arm.marking = Marking { dscp, flow_label };
    let mut id = arm.id.as_str().to_string();
    let mut parts = Vec::new();
    if let Some(dscp) = dscp {
        let name = dscp.name();
        if name.parse::<u8>().is_ok() {
            id.push_str(&format!("-dscp{name}"));
            parts.push(format!("DSCP {name}"));
        } else {
            id.push_str(&format!("-{name}"));
            parts.push(name.to_ascii_uppercase());
        }
    }
    if let Some(label) = flow_label {
        id.push_str(&format!("-fl{}", label.value()));
        parts.push(format!("flow label {}", label.value()));
    }
    if !parts.is_empty() {
        arm.id = ArmId::new(&id).expect("letters, digits and dashes");
        arm.label = format!("{} {}", arm.label, parts.join(", "));
    }
    arm
}

/// The traffic flags of `run` as the pipeline's [`PointOptions`]
/// (`--quick`: 0.5 s per trial after 0.1 s of warm-up).
///
/// # Errors
/// A usage error for an unknown test name.
pub(super) fn point_options(args: &Args) -> anyhow::Result<PointOptions> {
    let (time_seconds, warmup_seconds) = if args.quick {
        (0.5, 0.1)
    } else {
        (args.time.unwrap_or(1.0), args.warmup)
    };
    // -n/-k: the stream points end at the budget, -t (or 30 s) caps them.
    let send_budget = super::iperf3::send_budget(&args.iperf3).map(|budget| BudgetOption {
        budget,
        cap_seconds: args.time.unwrap_or(DEFAULT_BUDGET_CAP_SECONDS),
    });
    let tests = if args.udp && args.tests == super::DEFAULT_TESTS {
        "udp-stream"
    } else if args.media.is_some() && args.tests == super::DEFAULT_TESTS {
        "media"
    } else if let Some(tests) =
        super::peer::default_tests(args.peer).filter(|_| args.tests == super::DEFAULT_TESTS)
    {
        tests
    } else {
        args.tests.as_str()
    };
    Ok(PointOptions {
        tests: parse_tests(tests)?,
        sizes: args.sizes.clone(),
        time_seconds,
        warmup_seconds,
        parallel: args.parallel,
        reverse: args.reverse,
        bitrate: args.bitrate,
        interval_ms: args.interval_ms,
        probe_interval_ms: args.probe_interval,
        probe: args.probe,
        media: args.media.clone(),
        send_budget,
    })
}

/// The arms of a plain run: native IPv4 and IPv6 (or one with -4/-6).
fn native_arms(args: &Args, targets: &Targets) -> Vec<Arm> {
    let families = match (args.only_v4, args.only_v6) {
        (true, _) => vec![IpFamily::V4],
        (_, true) => vec![IpFamily::V6],
        _ => IpFamily::ALL.to_vec(),
    };
    families
        .into_iter()
        .map(|family| {
            marked(
                Arm::native(family, targets.get(family).clone()),
                args.dscp,
                args.flow_label,
            )
        })
        .collect()
}

/// The targets of `--loopback`: 127.0.0.1 and ::1.
fn loopback_targets() -> Targets {
    Targets {
        v4: Some("127.0.0.1".into()),
        v6: Some("::1".into()),
    }
}

/// The plan the flags describe.
pub(super) fn plan_from_flags(
    args: &Args,
    loopback_port: Option<u16>,
) -> anyhow::Result<RunConfig> {
    let (targets, port) = match loopback_port {
        Some(port) => (loopback_targets(), port),
        None => (
            resolve_targets(server_name(args), args.v4, args.v6, peer::port(args))?,
            peer::port(args),
        ),
    };
    let arms = families::keep_measurable(
        args,
        native_arms(args, &targets),
        port,
        loopback_port.is_some(),
    )?;
    if let Some(design) = args.experiment {
        let repeat = match args.repeat {
            Some(Repeat::Count(count)) => Some(count),
            Some(Repeat::Auto) => Some(dualperf_stats::repetition::NETPERF.min_repetitions),
            None => None,
        };
        let config = design.plan(&dualperf_design::PlanInputs {
            base: arms,
            quick: args.quick,
            time_seconds: None,
            repeat,
            port,
            command_line: Vec::new(),
        });
        return Ok(RunConfig {
            host: server_name(args).map(str::to_string),
            order: args.order.into(),
            ..config
        });
    }
    let (arms, loads) = load::with_load(arms, args.load.clone());
    let options: PointOptions = point_options(args)?;
    let families: Vec<IpFamily> = arms.iter().map(|a| a.family).collect();
    let points = points(&options, &families)?;
    let repeat = match args.repeat {
        Some(Repeat::Count(count)) => count,
        Some(Repeat::Auto) => dualperf_stats::repetition::NETPERF.min_repetitions,
        None => 3,
    };
    let mut config = RunConfig {
        peer: args.peer,
        loads,
        points,
        baseline: choose_baseline(&arms, None)?,
        arms,
        repeat,
        order: args.order.into(),
        host: server_name(args).map(str::to_string),
        port,
        client_cpus: Vec::new(),
        server_cpus: Vec::new(),
        command_line: Vec::new(),
        contrasts: Vec::new(),
        goal: None,
    };
    peer::adapt_points(&mut config);
    Ok(config)
}

/// The plan in `path`, its native arms retargeted by --loopback, --v4 or --v6.
pub(super) fn plan_from_file(
    args: &Args,
    path: &std::path::Path,
    loopback_port: Option<u16>,
) -> anyhow::Result<(RunConfig, Execution)> {
    let PlanFile {
        mut config,
        execution,
    } = crate::pipeline::plan::load(path)?;
    let targets = match loopback_port {
        Some(port) => {
            config.port = port;
            Some(loopback_targets())
        }
        None if args.v4.is_some() || args.v6.is_some() || server_name(args).is_some() => {
            if !args.peer.is_dualperf() {
                config.peer = args.peer;
            }
            config.port = args.port.unwrap_or_else(|| peer::default_port(config.peer));
            Some(resolve_targets(
                server_name(args),
                args.v4,
                args.v6,
                config.port,
            )?)
        }
        None => None,
    };
    if let Some(targets) = targets {
        for arm in config.arms.iter_mut().filter(|arm| arm.is_plain_native()) {
            arm.target = targets.get(arm.family).clone();
        }
    }
    Ok((config, execution))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_numeric_host_fills_only_its_own_family() {
        let targets = resolve_targets(Some("127.0.0.1"), None, None, 5180).unwrap();
        assert_eq!(targets.v4.as_deref(), Some("127.0.0.1"));
        assert_eq!(targets.v6, None);
    }

    #[test]
    fn explicit_addresses_win_over_resolution() {
        let targets =
            resolve_targets(Some("[::1]"), Some(Ipv4Addr::new(127, 0, 0, 2)), None, 5180).unwrap();
        assert_eq!(targets.v4.as_deref(), Some("127.0.0.2"));
        assert_eq!(targets.v6.as_deref(), Some("::1"));
    }

    #[test]
    fn no_server_at_all_is_a_usage_error() {
        let error = resolve_targets(None, None, None, 5180).unwrap_err();
        assert!(error.to_string().contains("--loopback"), "{error}");
    }

    /// `dualperf run ARGS…` parsed as clap would.
    fn parse(args: &[&str]) -> Args {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            args: Args,
        }
        let all = std::iter::once("run").chain(args.iter().copied());
        <Cli as clap::Parser>::try_parse_from(all).unwrap().args
    }

    #[test]
    fn quick_shortens_trials_and_the_flags_reach_the_point_options() {
        let options =
            point_options(&parse(&["--quick", "--tests", "udp-rr,tcp-rr", "-P", "2"])).unwrap();
        assert_eq!((options.time_seconds, options.warmup_seconds), (0.5, 0.1));
        assert_eq!(options.tests.len(), 2);
        assert_eq!(options.parallel, 2);
        assert!(point_options(&parse(&["--tests", "tcp-pingpong"])).is_err());
    }

    #[test]
    fn marking_flags_name_the_arms_and_skip_the_flow_label_on_ipv4() {
        let args = parse(&["--dscp", "ef", "-L", "12345"]);
        let v6 = marked(
            Arm::native(IpFamily::V6, Some("::1".into())),
            args.dscp,
            args.flow_label,
        );
        assert_eq!(v6.id.as_str(), "v6-ef-fl12345");
        assert_eq!(v6.label, "IPv6 EF, flow label 12345");
        assert_eq!(v6.marking.dscp, Some(Dscp::EF));
        assert_eq!(v6.marking.flow_label.map(|l| l.value()), Some(12345));
        let v4 = marked(Arm::native(IpFamily::V4, None), args.dscp, args.flow_label);
        assert_eq!((v4.id.as_str(), v4.label.as_str()), ("v4-ef", "IPv4 EF"));
        assert_eq!(v4.marking.flow_label, None);
        let numbered = marked(
            Arm::native(IpFamily::V4, None),
            Some(Dscp::new(5).unwrap()),
            None,
        );
        assert_eq!(numbered.id.as_str(), "v4-dscp5");
        let plain = marked(Arm::native(IpFamily::V4, None), None, None);
        assert!(plain.is_plain_native());
        assert!(parse(&["--dscp", "cs1"]).dscp == Some(Dscp::new(8).unwrap()));
    }
}
