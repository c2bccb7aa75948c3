//! An experiment as a design: the factors its arms vary and the contrasts
//! it asks about.
//!
//! An arm already carries its levels as typed data: its family, path,
//! marking and load ([`crate::Arm`]); a load carries where it sits in the
//! design ([`OfferedLoad`]: the share of the bottleneck it offers, its
//! datagram size, the families that carry it). A **contrast** is one
//! question the experiment asks — "IPv6 against IPv4 under the same load",
//! "under load against alone" — as a pair of arms and the factor they differ
//! in. Planners declare their contrasts ([`crate::RunConfig::contrasts`]);
//! a run that declares none gets the classic ones, each arm against the arm
//! of the baseline's family that differs from it in nothing else, else
//! against the run's baseline (the statistics crate derives them from the
//! typed levels, never from ids or labels). Stats compares exactly these
//! pairs, and every report names each comparison's own baseline.

use serde::{Deserialize, Serialize};

use crate::arm::ArmId;
use crate::family::IpFamily;

/// A dimension along which the arms of an experiment differ.
#[derive(
    Clone,
    Copy,
    Debug,
    Eq,
    Hash,
    Ord,
    PartialEq,
    PartialOrd,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Factor {
    /// IPv4 or IPv6.
    Family,
    /// Native, tunnelled or translated.
    Path,
    /// DSCP and flow label: the traffic class.
    Marking,
    /// Idle or under a competing load, and which load.
    Load,
    /// Nothing: an A/A contrast between two arms that are the same
    /// treatment (same family, path, marking, load and target), measured
    /// to learn how often the tool calls noise a difference
    /// (`dualperf lab calibrate`).
    Replica,
}

impl Factor {
    /// "family", "path", "marking", "load": the word in JSON, SQL and reports.
    pub fn key(self) -> &'static str {
        match self {
            Factor::Family => "family",
            Factor::Path => "path",
            Factor::Marking => "marking",
            Factor::Load => "load",
            Factor::Replica => "replica",
        }
    }
}

/// One question of an experiment: `arm` against `baseline`, paired by
/// repetition; the two differ in `factor` (the effect the contrast measures)
/// and in nothing else the design controls.
#[derive(Clone, Debug, Eq, Hash, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Contrast {
    /// The arm compared.
    pub arm: ArmId,
    /// The arm it is compared with.
    pub baseline: ArmId,
    /// What differs between them.
    pub factor: Factor,
}

/// Which table of an experiment a load belongs to.
#[derive(Clone, Copy, Debug, Eq, Hash, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum LoadTable {
    /// The per-class experiment: a load below or above capacity beside a
    /// probe in every traffic class (the DiffServ paper's Figs 3–4).
    Class,
    /// One cell of the load-step table: offered share × datagram size ×
    /// carrying families (the DiffServ paper's Table 2).
    Step,
}

/// The families that carry a load.
#[derive(Clone, Copy, Debug, Eq, Hash, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CarriedBy {
    /// One family carries the whole load.
    Family(IpFamily),
    /// IPv4 and IPv6 carry half each.
    Mixed,
}

/// Where a load sits in an experiment's design: the share of the
/// bottleneck's rate it offers, the size of its datagrams and who carries
/// it. Two loads with the same offered share and size but different
/// carrying families are the same level of the load factor across families
/// (a load offered at equal link rate needs a lower payload rate over IPv6).
#[derive(Clone, Copy, Debug, Eq, Hash, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OfferedLoad {
    /// The table of the experiment the load belongs to.
    pub table: LoadTable,
    /// Share of the bottleneck link's rate offered, percent (layer 2, as
    /// the shaper counts it), e.g. 85, 100, 115.
    pub percent: u32,
    /// Payload of the load's datagrams, bytes.
    pub datagram_bytes: u32,
    /// The families carrying the load.
    pub carried_by: CarriedBy,
}

impl OfferedLoad {
    /// True when `self` and `other` are the same level of the load factor
    /// for two different families: same table, share and size, each
    /// carried by one family.
    pub fn same_level_across_families(&self, other: &OfferedLoad) -> bool {
        self.table == other.table
            && self.percent == other.percent
            && self.datagram_bytes == other.datagram_bytes
            && matches!(
                (self.carried_by, other.carried_by),
                (CarriedBy::Family(a), CarriedBy::Family(b)) if a != b
            )
    }
}

/// The level of a load stored before loads carried one: the DiffServ
/// planner of schema v2 named its loads `be{percent}-{v4|v6}` (the per-class
/// loads) and `s{percent}-{bytes}-{v4|v6|mixed}` (the load-step cells).
/// Used only when such a result is read ([`crate::RunConfig`]'s upgrade), so
/// that stored DiffServ runs keep their tables; new plans declare levels.
pub(crate) fn legacy_level(name: &str, stream_bytes: Option<u32>) -> Option<OfferedLoad> {
    let carried = |key: &str| match key {
        "v4" => Some(CarriedBy::Family(IpFamily::V4)),
        "v6" => Some(CarriedBy::Family(IpFamily::V6)),
        "mixed" => Some(CarriedBy::Mixed),
        _ => None,
    };
    if let Some(rest) = name.strip_prefix("be") {
        let (percent, family) = rest.split_once('-')?;
        return Some(OfferedLoad {
            table: LoadTable::Class,
            percent: percent.parse().ok()?,
            datagram_bytes: stream_bytes?,
            carried_by: carried(family).filter(|c| *c != CarriedBy::Mixed)?,
        });
    }
    let mut parts = name.strip_prefix('s')?.splitn(3, '-');
    let (percent, bytes, family) = (parts.next()?, parts.next()?, parts.next()?);
    Some(OfferedLoad {
        table: LoadTable::Step,
        percent: percent.parse().ok()?,
        datagram_bytes: bytes.parse().ok()?,
        carried_by: carried(family)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(family: CarriedBy, percent: u32) -> OfferedLoad {
        OfferedLoad {
            table: LoadTable::Step,
            percent,
            datagram_bytes: 128,
            carried_by: family,
        }
    }

    #[test]
    fn a_step_carried_by_ipv6_is_the_ipv4_steps_level_and_mixed_is_not() {
        let v4 = step(CarriedBy::Family(IpFamily::V4), 115);
        let v6 = step(CarriedBy::Family(IpFamily::V6), 115);
        assert!(v6.same_level_across_families(&v4));
        assert!(!v4.same_level_across_families(&v4));
        assert!(!step(CarriedBy::Mixed, 115).same_level_across_families(&v4));
        assert!(!step(CarriedBy::Family(IpFamily::V6), 100).same_level_across_families(&v4));
    }

    #[test]
    fn contrasts_round_trip_through_json_with_readable_words() {
        let contrast = Contrast {
            arm: ArmId::new("v6-udp-load").unwrap(),
            baseline: ArmId::new("v4-udp-load").unwrap(),
            factor: Factor::Family,
        };
        let json = serde_json::to_string(&contrast).unwrap();
        assert_eq!(
            json,
            r#"{"arm":"v6-udp-load","baseline":"v4-udp-load","factor":"family"}"#
        );
        assert_eq!(serde_json::from_str::<Contrast>(&json).unwrap(), contrast);
    }

    #[test]
    fn stored_diffserv_loads_get_their_levels_back_and_other_names_none() {
        let class = legacy_level("be115-v6", Some(1408)).unwrap();
        assert_eq!(
            (
                class.table,
                class.percent,
                class.datagram_bytes,
                class.carried_by
            ),
            (LoadTable::Class, 115, 1408, CarriedBy::Family(IpFamily::V6))
        );
        let step = legacy_level("s85-128-mixed", Some(128)).unwrap();
        assert_eq!(
            (
                step.table,
                step.percent,
                step.datagram_bytes,
                step.carried_by
            ),
            (LoadTable::Step, 85, 128, CarriedBy::Mixed)
        );
        for other in [
            "udp-12m",
            "tcp-cubic",
            "be-v4",
            "load",
            "s115-x-v4",
            "be85-mixed",
        ] {
            assert_eq!(legacy_level(other, Some(1408)), None, "{other}");
        }
    }
}
