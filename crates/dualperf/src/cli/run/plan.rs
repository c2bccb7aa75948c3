//! Turning `dualperf run` flags into a validated [`RunConfig`]: targets
//! resolved per family, points (tests × sizes), durations, and every size
//! checked against each family's limit before anything is sent.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, ToSocketAddrs};

use dualperf_engine::sizes::{default_size, preset, size_for_kind, validate_size};
use dualperf_model::{IpFamily, PerFamily, RunConfig, TestKind, TestSpec};

use super::{parse_tests, Args};
use crate::cli::Failure;

/// Target address per family, as text.
pub type Targets = PerFamily<Option<String>>;

/// Resolves HOST to its first A and first AAAA address; `--v4`/`--v6` win.
pub fn resolve_targets(
    host: Option<&str>,
    v4: Option<Ipv4Addr>,
    v6: Option<Ipv6Addr>,
    port: u16,
) -> anyhow::Result<Targets> {
    let mut targets = Targets {
        v4: v4.map(|a| a.to_string()),
        v6: v6.map(|a| a.to_string()),
    };
    if let Some(host) = host {
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

fn sizes_for(kind: TestKind, sizes: &str) -> anyhow::Result<Vec<u32>> {
    if kind == TestKind::TcpConnect {
        return Ok(vec![0]);
    }
    if sizes == "default" {
        return Ok(vec![default_size(kind)]);
    }
    let list = match preset(sizes) {
        Some(list) => list,
        None => sizes
            .split(',')
            .map(|s| s.trim().parse::<u32>().map_err(|_| Failure::usage(format!("`{s}` in --sizes is not a size in bytes or a preset (papers, small, default)"))))
            .collect::<anyhow::Result<Vec<u32>>>()?,
    };
    Ok(list
        .into_iter()
        .map(|size| size_for_kind(kind, size))
        .collect())
}

/// Builds the run configuration from the flags.
pub fn build_config(
    args: &Args,
    families: Vec<IpFamily>,
    targets: Targets,
    port: u16,
) -> anyhow::Result<RunConfig> {
    let (time, warmup, repeat) = if args.quick {
        (0.5, 0.1, args.repeat.unwrap_or(2))
    } else {
        (args.time, args.warmup, args.repeat.unwrap_or(3))
    };
    let valid = time > 0.0 && time <= 3600.0 && (0.0..=600.0).contains(&warmup);
    if !valid {
        return Err(Failure::usage(
            "-t must be in (0, 3600] seconds and --warmup in [0, 600]",
        ));
    }
    if repeat == 0 || args.parallel == 0 {
        return Err(Failure::usage("--repeat and -P must be at least 1"));
    }
    if args.interval_ms < 10 {
        return Err(Failure::usage(format!(
            "-i {} ms is below the 10 ms minimum",
            args.interval_ms
        )));
    }
    if !(1.0..=1000.0).contains(&args.probe_interval) {
        return Err(Failure::usage(format!(
            "--probe-interval {} ms is outside 1 to 1000 ms",
            args.probe_interval
        )));
    }
    for family in &families {
        if targets.get(*family).is_none() {
            return Err(Failure::usage(format!(
                "no {} address for the server; give --{} ADDR or use -{}",
                family.label(),
                family.key(),
                match family {
                    IpFamily::V4 => 6,
                    IpFamily::V6 => 4,
                }
            )));
        }
    }
    let mut points = Vec::new();
    let mut problems = Vec::new();
    for kind in parse_tests(&args.tests)? {
        for size in sizes_for(kind, &args.sizes)? {
            for family in &families {
                if let Err(problem) = validate_size(kind, *family, size) {
                    problems.push(problem);
                }
            }
            points.push(TestSpec {
                kind,
                size_bytes: size,
                duration_ms: (time * 1000.0).round() as u64,
                warmup_ms: (warmup * 1000.0).round() as u64,
                parallel_streams: if matches!(kind, TestKind::TcpStream | TestKind::UdpStream) {
                    args.parallel
                } else {
                    1
                },
                reverse: args.reverse
                    && matches!(
                        kind,
                        TestKind::TcpStream | TestKind::UdpStream | TestKind::UdpProbe
                    ),
                rate: if kind == TestKind::UdpStream {
                    args.bitrate
                } else {
                    None
                },
                sample_interval_ms: args.interval_ms,
                probe_interval_us: (kind == TestKind::UdpProbe
                    || (args.probe && matches!(kind, TestKind::TcpStream | TestKind::UdpStream)))
                .then(|| (args.probe_interval * 1000.0).round() as u64),
            });
        }
    }
    if !problems.is_empty() {
        problems.dedup();
        return Err(Failure::usage(problems.join("\n")));
    }
    Ok(RunConfig {
        points,
        families,
        repeat,
        order: args.order.into(),
        targets,
        host: args.host.clone(),
        port,
        client_cpus: Vec::new(),
        server_cpus: Vec::new(),
        command_line: Vec::new(),
    })
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

    #[test]
    fn tcp_connect_has_one_point_whatever_the_sizes() {
        assert_eq!(sizes_for(TestKind::TcpConnect, "papers").unwrap(), vec![0]);
        assert_eq!(
            sizes_for(TestKind::TcpStream, "papers").unwrap().last(),
            Some(&65_536)
        );
        assert_eq!(
            sizes_for(TestKind::UdpRr, "64, 128").unwrap(),
            vec![64, 128]
        );
        assert!(sizes_for(TestKind::UdpRr, "huge").is_err());
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

    fn config_of(args: &[&str]) -> anyhow::Result<RunConfig> {
        let targets = Targets {
            v4: Some("127.0.0.1".into()),
            v6: Some("::1".into()),
        };
        build_config(&parse(args), IpFamily::ALL.to_vec(), targets, 5180)
    }

    #[test]
    fn udp_probe_points_carry_the_probe_interval_and_the_g711_size() {
        let config = config_of(&["--tests", "udp-probe", "--probe-interval", "20"]).unwrap();
        let point = &config.points[0];
        assert_eq!(point.kind, TestKind::UdpProbe);
        assert_eq!(
            (point.size_bytes, point.probe_interval_us),
            (172, Some(20_000))
        );
    }

    #[test]
    fn probe_adds_a_probe_interval_to_load_points_only() {
        let config = config_of(&["--tests", "tcp-stream,udp-rr", "--probe"]).unwrap();
        let intervals: Vec<Option<u64>> =
            config.points.iter().map(|p| p.probe_interval_us).collect();
        assert_eq!(intervals, vec![Some(10_000), None]);
        let without = config_of(&["--tests", "tcp-stream"]).unwrap();
        assert_eq!(without.points[0].probe_interval_us, None);
    }

    #[test]
    fn a_probe_interval_outside_one_to_a_thousand_ms_is_a_usage_error() {
        let error = config_of(&["--tests", "udp-probe", "--probe-interval", "0.5"]).unwrap_err();
        assert!(error.to_string().contains("--probe-interval"), "{error}");
    }
}
