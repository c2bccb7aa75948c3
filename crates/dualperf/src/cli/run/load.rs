//! `dualperf run --load FLOW`: a competing load from flags. Each `--load`
//! adds one flow to the run's load (`RunConfig::loads`, named `load`), and
//! every arm gets a twin that runs under it (`v6` → `v6-loaded`, "IPv6 under
//! load"), so the verdicts say what the load does to each family.
//!
//! A flow is `KIND[,key=value…]`:
//!
//! | key | meaning | default |
//! |---|---|---|
//! | kind | `udp` (udp-stream) or `tcp` (tcp-stream) | — |
//! | `rate` | UDP rate per stream, e.g. `50M` | unlimited |
//! | `size` | datagram payload or write size, bytes | 1200 (udp), 131072 (tcp) |
//! | `streams` | parallel streams | 1 |
//! | `dscp` | DSCP name or number | 0 |
//! | `family` | `v4` or `v6` (a mixed load names both) | the arm's |
//! | `cc` | TCP congestion control (`cubic`, `bbr`…) | the kernel's |
//! | `reverse` | the server sends | no |

use dualperf_model::{
    Arm, ArmId, BitRate, Dscp, IpFamily, LoadCondition, LoadFlow, LoadSpec, Marking, TestKind,
    TestSpec,
};

/// Name of the load built from `--load` flags.
pub(super) const LOAD_NAME: &str = "load";

/// How long the load runs before each measured trial, milliseconds: long
/// enough for TCP to open its window on a LAN path.
pub(super) const LOAD_WARMUP_MS: u64 = 1_000;

/// One `--load` flow as written.
pub(super) fn parse_load_flow(text: &str) -> Result<LoadFlow, String> {
    let mut parts = text.split(',').map(str::trim);
    let kind = match parts.next().unwrap_or_default() {
        "udp" | "udp-stream" => TestKind::UdpStream,
        "tcp" | "tcp-stream" => TestKind::TcpStream,
        other => {
            return Err(format!(
                "`{other}` is no load kind; use udp or tcp (e.g. --load udp,rate=50M,dscp=be)"
            ))
        }
    };
    let mut spec = TestSpec {
        duration_ms: 0,
        warmup_ms: 0,
        sample_interval_ms: 100,
        ..TestSpec::new(
            kind,
            if kind == TestKind::UdpStream {
                1200
            } else {
                131_072
            },
        )
    };
    let (mut family, mut marking) = (None, Marking::default());
    for part in parts.filter(|p| !p.is_empty()) {
        let (key, value) = part.split_once('=').unwrap_or((part, ""));
        let bad = |why: &str| format!("--load {text}: `{part}`: {why}");
        match key {
            "rate" => spec.rate = Some(value.parse::<BitRate>().map_err(|e| bad(&e.to_string()))?),
            "size" => {
                spec.size_bytes = dualperf_model::units::parse_size(value)
                    .ok()
                    .and_then(|size| u32::try_from(size).ok())
                    .ok_or_else(|| bad("a size in bytes, e.g. size=1200 or size=1K"))?
            }
            "streams" => {
                spec.parallel_streams = value
                    .parse()
                    .ok()
                    .filter(|n| (1..=16).contains(n))
                    .ok_or_else(|| bad("1 to 16 streams"))?
            }
            "dscp" => marking.dscp = Some(value.parse::<Dscp>().map_err(|e| bad(&e))?),
            "family" => {
                family = Some(match value {
                    "v4" | "4" | "ipv4" => IpFamily::V4,
                    "v6" | "6" | "ipv6" => IpFamily::V6,
                    _ => return Err(bad("family=v4 or family=v6")),
                })
            }
            "cc" if kind == TestKind::TcpStream && !value.is_empty() => {
                spec.congestion_control = Some(value.to_string())
            }
            "reverse" => spec.reverse = true,
            _ => {
                return Err(bad(
                    "known keys: rate, size, streams, dscp, family, cc (tcp), reverse",
                ))
            }
        }
    }
    if kind == TestKind::TcpStream && spec.rate.is_some() {
        return Err(format!(
            "--load {text}: a TCP load has no rate (TCP finds its own)"
        ));
    }
    Ok(LoadFlow {
        label: flow_label(&spec, family, &marking),
        spec,
        family,
        marking,
    })
}

/// "UDP 50 Mbit/s x2, IPv4, DSCP cs1".
fn flow_label(spec: &TestSpec, family: Option<IpFamily>, marking: &Marking) -> String {
    let mut label = match spec.kind {
        TestKind::TcpStream => "TCP".to_string(),
        _ => "UDP".to_string(),
    };
    if let Some(rate) = spec.rate {
        label.push_str(&format!(" {rate}"));
    }
    if spec.parallel_streams > 1 {
        label.push_str(&format!(" x{}", spec.parallel_streams));
    }
    if let Some(family) = family {
        label.push_str(&format!(", {}", family.label()));
    }
    if let Some(dscp) = marking.dscp {
        label.push_str(&format!(", DSCP {}", dscp.name()));
    }
    if let Some(cc) = &spec.congestion_control {
        label.push_str(&format!(", {cc}"));
    }
    label
}

/// The load of `flows` and, after `arms`, a twin of each arm under it.
pub(super) fn with_load(arms: Vec<Arm>, flows: Vec<LoadFlow>) -> (Vec<Arm>, Vec<LoadSpec>) {
    if flows.is_empty() {
        return (arms, Vec::new());
    }
    let labels: Vec<&str> = flows.iter().map(|f| f.label.as_str()).collect();
    let load = LoadSpec {
        name: LOAD_NAME.into(),
        label: labels.join(" + "),
        flows,
        warmup_ms: LOAD_WARMUP_MS,
        offered: None,
    };
    let twins: Vec<Arm> = arms
        .iter()
        .map(|arm| Arm {
            id: ArmId::new(&format!("{}-loaded", arm.id)).unwrap_or_else(|_| arm.id.clone()),
            label: format!("{} under load", arm.label),
            load: LoadCondition::Under {
                load: LOAD_NAME.into(),
            },
            ..arm.clone()
        })
        .collect();
    let mut all = arms;
    all.extend(twins);
    (all, vec![load])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_load_flow_reads_its_keys_and_names_itself() {
        let flow = parse_load_flow("udp,rate=50M,size=1000,dscp=cs1,family=v4,streams=2").unwrap();
        assert_eq!(flow.spec.kind, TestKind::UdpStream);
        assert_eq!(flow.spec.rate.unwrap().bits_per_second(), 50_000_000);
        assert_eq!(
            (flow.spec.size_bytes, flow.spec.parallel_streams),
            (1000, 2)
        );
        assert_eq!(flow.marking.dscp.unwrap().value(), 8);
        assert_eq!(flow.family, Some(IpFamily::V4));
        assert!(flow.label.starts_with("UDP 50"), "{}", flow.label);
        let tcp = parse_load_flow("tcp,cc=cubic").unwrap();
        assert_eq!(tcp.spec.congestion_control.as_deref(), Some("cubic"));
    }

    #[test]
    fn bad_load_flows_say_what_is_wrong() {
        for (text, says) in [
            ("quic", "no load kind"),
            ("udp,rate=fast", "rate=fast"),
            ("udp,streams=99", "1 to 16"),
            ("tcp,rate=5M", "no rate"),
            ("udp,colour=red", "known keys"),
            ("udp,family=v5", "family=v4"),
        ] {
            let error = parse_load_flow(text).unwrap_err();
            assert!(error.contains(says), "{text}: {error}");
        }
    }

    #[test]
    fn every_arm_gets_a_twin_under_the_load() {
        let arms = vec![
            Arm::native(IpFamily::V4, None),
            Arm::native(IpFamily::V6, None),
        ];
        let (arms, loads) = with_load(arms, vec![parse_load_flow("tcp").unwrap()]);
        let ids: Vec<&str> = arms.iter().map(|a| a.id.as_str()).collect();
        assert_eq!(ids, ["v4", "v6", "v4-loaded", "v6-loaded"]);
        assert_eq!(arms[3].label, "IPv6 under load");
        assert_eq!(loads.len(), 1);
        assert_eq!(loads[0].name, LOAD_NAME);
        let (same, none) = with_load(arms.clone(), vec![]);
        assert_eq!((same.len(), none.len()), (4, 0));
    }
}
