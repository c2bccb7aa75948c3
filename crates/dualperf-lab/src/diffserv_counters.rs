//! The DiffServ conditioner's named counters (`unauth_v4`, `excess_v6`,
//! `ef_ok_v4` … of [`crate::diffserv`]), read from the edge router with
//! `nft -j list counters table netdev dualperf_ds_cond`: what the
//! conditioner kept as EF, remarked as excess, and remarked as unauthorised.

use std::collections::BTreeMap;

use crate::command::{KernelCommand, Runner};
use crate::diffserv::CONDITIONER;
use crate::error::LabError;
use crate::testbed::Testbed;

/// Packets per named counter.
pub type Counters = BTreeMap<String, u64>;

/// The command that lists the conditioner's counters in `netns` as JSON.
pub fn counters_command(netns: &str) -> KernelCommand {
    KernelCommand::in_netns(
        netns,
        "nft",
        ["-j", "list", "counters", "table", "netdev", CONDITIONER],
    )
}

/// The conditioner's counters on the edge router of `testbed`'s DiffServ
/// domain (empty when the topology has none).
///
/// # Errors
/// When `nft` fails or prints something that is not its JSON.
pub fn read_counters(testbed: &Testbed) -> Result<Counters, LabError> {
    let Some(domain) = testbed.topology().diffserv() else {
        return Ok(Counters::new());
    };
    let edge = &testbed.topology().nodes()[domain.edge].name;
    let output = Runner::new(false).run(&counters_command(&testbed.netns(edge)?))?;
    parse_counters(&String::from_utf8_lossy(&output.stdout)).map_err(|message| LabError::Command {
        command: "nft -j list counters".into(),
        status: "unreadable output".into(),
        stderr: message,
    })
}

/// Packets per counter name from `nft -j list counters` output.
///
/// # Errors
/// A message when the text is not nftables JSON.
pub fn parse_counters(json: &str) -> Result<Counters, String> {
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("nft JSON: {e}"))?;
    let items = value
        .get("nftables")
        .and_then(|v| v.as_array())
        .ok_or("nft JSON without `nftables`")?;
    Ok(items
        .iter()
        .filter_map(|item| item.get("counter"))
        .filter_map(|counter| {
            Some((
                counter.get("name")?.as_str()?.to_string(),
                counter.get("packets")?.as_u64()?,
            ))
        })
        .collect())
}

/// `after − before` per counter.
pub fn delta(before: &Counters, after: &Counters) -> Counters {
    after
        .iter()
        .map(|(name, &packets)| {
            let was = before.get(name).copied().unwrap_or(0);
            (name.clone(), packets.saturating_sub(was))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_are_read_from_nft_json() {
        let json = r#"{"nftables": [{"metainfo": {"version": "1.0.6"}},
            {"counter": {"family": "netdev", "name": "ef_ok_v4", "table": "dualperf_ds_cond", "handle": 3, "packets": 120, "bytes": 125040}},
            {"counter": {"family": "netdev", "name": "excess_v6", "table": "dualperf_ds_cond", "handle": 4, "packets": 7, "bytes": 70}}]}"#;
        let counters = parse_counters(json).unwrap();
        assert_eq!(counters["ef_ok_v4"], 120);
        assert_eq!(counters["excess_v6"], 7);
        let later: Counters = [("ef_ok_v4".to_string(), 150)].into();
        assert_eq!(delta(&counters, &later)["ef_ok_v4"], 30);
        assert!(parse_counters("nope").is_err());
    }
}
