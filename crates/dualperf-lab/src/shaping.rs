//! Link shaping as tc commands: a rate limiter (htb or tbf), a queue limit,
//! and netem for delay, jitter and loss.
//!
//! Shaping acts on egress, so the direction "A to B" is shaped on A's veth
//! end. The qdisc tree per shaped end is one of:
//!
//! | settings | tree |
//! |---|---|
//! | rate (htb) | `htb 1:` → class `1:1 rate R ceil R` → `pfifo limit N` |
//! | rate (htb) + netem | `htb 1:` → class `1:1` → `netem limit N delay … loss …` |
//! | rate (tbf) | `tbf rate R burst B limit N×MTU` |
//! | rate (tbf) + netem | `tbf` → `netem limit N …` as its child `1:1` |
//! | netem only | `netem limit N delay … loss …` |
//!
//! Qdiscs belong to their device: they vanish with the veth, so the testbed
//! removes them by removing the link.

use crate::command::KernelCommand;
use crate::topology::{RateQdisc, Shaping};

/// Bytes of Ethernet header the qdiscs see on a veth on top of the IP packet.
const ETHERNET_HEADER_BYTES: u32 = 14;
/// Share of a second of traffic a tbf bucket may hold: 10 ms.
const TBF_BURST_DIVISOR: u64 = 100;

/// The tc commands that apply `shaping` to egress of `interface` in `netns`.
/// With `netem` false the delay, jitter and loss are left out (the BPF
/// program and the delay line make them: [`crate::emulation`]) and the
/// rate limiter gets its `pfifo` queue.
pub fn shaping_commands(
    netns: &str,
    interface: &str,
    mtu_bytes: u32,
    shaping: &Shaping,
    netem: bool,
) -> Vec<KernelCommand> {
    let tc = |words: &[&str]| {
        let mut args = vec!["-n".to_string(), netns.to_string()];
        args.extend(words.iter().map(|w| w.to_string()));
        KernelCommand::tc(args)
    };
    let limit = shaping.queue_limit_packets.to_string();
    let netem = netem.then(|| netem_words(shaping)).flatten();
    let mut commands = Vec::new();
    match shaping.rate {
        Some((RateQdisc::Htb, rate)) => {
            let rate = format!("{}bit", rate.bits_per_second());
            commands.push(tc(&[
                "qdisc", "add", "dev", interface, "root", "handle", "1:", "htb", "default", "1",
            ]));
            commands.push(tc(&[
                "class", "add", "dev", interface, "parent", "1:", "classid", "1:1", "htb", "rate",
                &rate, "ceil", &rate,
            ]));
            let mut leaf = vec![
                "qdisc", "add", "dev", interface, "parent", "1:1", "handle", "10:",
            ];
            match &netem {
                Some(words) => {
                    leaf.extend(["netem", "limit", &limit]);
                    leaf.extend(words.iter().map(String::as_str));
                }
                None => leaf.extend(["pfifo", "limit", &limit]),
            }
            commands.push(tc(&leaf));
        }
        Some((RateQdisc::Tbf, rate)) => {
            let frame_bytes = u64::from(mtu_bytes + ETHERNET_HEADER_BYTES);
            let burst = (rate.bits_per_second() / 8 / TBF_BURST_DIVISOR)
                .max(4 * frame_bytes)
                .to_string();
            let limit_bytes = (u64::from(shaping.queue_limit_packets) * frame_bytes).to_string();
            let rate = format!("{}bit", rate.bits_per_second());
            commands.push(tc(&[
                "qdisc",
                "add",
                "dev",
                interface,
                "root",
                "handle",
                "1:",
                "tbf",
                "rate",
                &rate,
                "burst",
                &burst,
                "limit",
                &limit_bytes,
            ]));
            if let Some(words) = &netem {
                let mut leaf = vec![
                    "qdisc", "add", "dev", interface, "parent", "1:1", "handle", "10:", "netem",
                    "limit", &limit,
                ];
                leaf.extend(words.iter().map(String::as_str));
                commands.push(tc(&leaf));
            }
        }
        None => {
            if let Some(words) = &netem {
                let mut root = vec![
                    "qdisc", "add", "dev", interface, "root", "handle", "1:", "netem", "limit",
                    &limit,
                ];
                root.extend(words.iter().map(String::as_str));
                commands.push(tc(&root));
            }
        }
    }
    commands
}

/// `delay Dus [Jus] loss P%` for netem, or `None` when no netem is needed.
fn netem_words(shaping: &Shaping) -> Option<Vec<String>> {
    if !shaping.needs_netem() {
        return None;
    }
    let mut words = Vec::new();
    if !shaping.delay.is_zero() {
        words.push("delay".to_string());
        words.push(format!("{}us", shaping.delay.as_micros()));
        if !shaping.jitter.is_zero() {
            words.push(format!("{}us", shaping.jitter.as_micros()));
        }
    }
    if shaping.loss_ratio > 0.0 {
        words.push("loss".to_string());
        words.push(format!("{:.4}%", shaping.loss_ratio * 100.0));
    }
    Some(words)
}

/// The tc commands that give each family its own htb class on egress of
/// `interface` in `netns`: IPv4 at `v4_rate_bps`, IPv6 at `v6_rate_ratio`
/// of it, each class with a `pfifo` of `limit_packets` (`dualperf lab
/// calibrate`'s known effect). u32 filters match the EtherType (`protocol
/// ip` / `protocol ipv6`); anything else (ARP) takes the IPv4 class, the
/// default. htb counts the IP packet plus the 14-byte Ethernet header a
/// veth carries.
pub fn per_family_commands(
    netns: &str,
    interface: &str,
    v4_rate_bps: u64,
    v6_rate_ratio: f64,
    limit_packets: u32,
) -> Vec<KernelCommand> {
    let tc = |words: Vec<String>| {
        let mut args = vec!["-n".to_string(), netns.to_string()];
        args.extend(words);
        KernelCommand::tc(args)
    };
    let words =
        |text: &str| -> Vec<String> { text.split_whitespace().map(str::to_string).collect() };
    let v6_rate_bps = (v4_rate_bps as f64 * v6_rate_ratio).round() as u64;
    let mut commands = vec![tc(words(&format!(
        "qdisc add dev {interface} root handle 1: htb default 4"
    )))];
    for (class, rate, protocol) in [(4, v4_rate_bps, "ip"), (6, v6_rate_bps, "ipv6")] {
        commands.push(tc(words(&format!(
            "class add dev {interface} parent 1: classid 1:{class} htb rate {rate}bit ceil {rate}bit"
        ))));
        commands.push(tc(words(&format!(
            "qdisc add dev {interface} parent 1:{class} handle {class}0: pfifo limit {limit_packets}"
        ))));
        commands.push(tc(words(&format!(
            "filter add dev {interface} parent 1: protocol {protocol} prio {class} u32 match u32 0 0 flowid 1:{class}"
        ))));
    }
    commands
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use dualperf_model::BitRate;

    use super::*;

    fn shaping(rate: Option<(RateQdisc, u64)>, delay_ms: u64, loss_ratio: f64) -> Shaping {
        Shaping {
            rate: rate.map(|(q, mbit)| (q, BitRate::from_mbit(mbit))),
            queue_limit_packets: 50,
            delay: Duration::from_millis(delay_ms),
            jitter: Duration::ZERO,
            loss_ratio,
        }
    }

    fn lines(commands: &[KernelCommand]) -> Vec<String> {
        commands.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn an_htb_rate_becomes_a_class_with_a_pfifo_queue() {
        let commands = shaping_commands(
            "ns",
            "eth",
            1500,
            &shaping(Some((RateQdisc::Htb, 10)), 0, 0.0),
            true,
        );
        assert_eq!(
            lines(&commands),
            [
                "tc -n ns qdisc add dev eth root handle 1: htb default 1",
                "tc -n ns class add dev eth parent 1: classid 1:1 htb rate 10000000bit ceil 10000000bit",
                "tc -n ns qdisc add dev eth parent 1:1 handle 10: pfifo limit 50",
            ]
        );
    }

    #[test]
    fn a_tbf_rate_holds_ten_milliseconds_and_limits_bytes_by_packets_times_frame() {
        let commands = shaping_commands(
            "ns",
            "eth",
            1500,
            &shaping(Some((RateQdisc::Tbf, 20)), 0, 0.0),
            true,
        );
        assert_eq!(
            lines(&commands),
            ["tc -n ns qdisc add dev eth root handle 1: tbf rate 20000000bit burst 25000 limit 75700"]
        );
    }

    #[test]
    fn delay_and_loss_put_netem_under_the_rate_limiter() {
        let commands = shaping_commands(
            "ns",
            "eth",
            1500,
            &shaping(Some((RateQdisc::Htb, 10)), 15, 0.01),
            true,
        );
        assert_eq!(
            commands[2].to_string(),
            "tc -n ns qdisc add dev eth parent 1:1 handle 10: netem limit 50 delay 15000us loss 1.0000%"
        );
    }

    #[test]
    fn without_netem_the_rate_limiter_keeps_its_pfifo_and_delay_alone_adds_nothing() {
        let shaped = shaping(Some((RateQdisc::Htb, 10)), 15, 0.01);
        let commands = shaping_commands("ns", "eth", 1500, &shaped, false);
        assert_eq!(
            commands[2].to_string(),
            "tc -n ns qdisc add dev eth parent 1:1 handle 10: pfifo limit 50"
        );
        assert!(shaping_commands("ns", "eth", 1500, &shaping(None, 5, 0.0), false).is_empty());
    }

    #[test]
    fn delay_alone_is_a_root_netem() {
        let commands = shaping_commands("ns", "eth", 1500, &shaping(None, 5, 0.0), true);
        assert_eq!(
            lines(&commands),
            ["tc -n ns qdisc add dev eth root handle 1: netem limit 50 delay 5000us"]
        );
    }

    #[test]
    fn each_family_gets_its_own_class_at_its_rate() {
        let commands = per_family_commands("ns", "eth0", 400_000_000, 0.95, 1000);
        let text: Vec<String> = commands.iter().map(ToString::to_string).collect();
        assert_eq!(text.len(), 7);
        assert!(text[0].contains("root handle 1: htb default 4"), "{text:?}");
        assert!(text[1].contains("classid 1:4 htb rate 400000000bit ceil 400000000bit"));
        assert!(text[4].contains("classid 1:6 htb rate 380000000bit ceil 380000000bit"));
        assert!(text[6].contains("protocol ipv6 prio 6 u32 match u32 0 0 flowid 1:6"));
        assert!(text.iter().all(|t| t.contains("-n ns")));
    }
}
