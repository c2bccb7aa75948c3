//! Arms: the things a run compares.
//!
//! An **arm** is one thing measured: an address family, the path the
//! traffic takes (native, IPv6 in a 6in4 tunnel placed one of three ways,
//! IPv4 across an IPv6-only core in 4in6, an IPv6-only client through a
//! NAT64), how packets are marked (DSCP, IPv6 flow label) and the load they
//! compete with (idle, or under a named load), with a label people read
//! ("IPv6 via 6in4, router to router"). A run measures every point on every
//! arm, repetitions interleaved across arms, and compares each arm with its
//! **baseline** arm (native IPv4 unless the user says otherwise), paired by
//! repetition.
//!
//! The classic comparison is two arms, `v4` (baseline) and `v6`, made by
//! [`Arm::native`]. The machine key of an arm, [`ArmId`], is what JSON, CSV,
//! SQL and HTML use; the label is what people read.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::family::IpFamily;

/// Machine key of an arm: lowercase ASCII letters, digits and `-`, e.g.
/// `v4`, `v6`, `v6-6in4-router-router`, `v4-ef`. Unique within a run.
#[derive(
    Clone,
    Debug,
    Default,
    Eq,
    Hash,
    Ord,
    PartialEq,
    PartialOrd,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(transparent)]
pub struct ArmId(String);

impl ArmId {
    /// An id from `text`, checked: 1 to 64 characters of `[a-z0-9-]`.
    ///
    /// # Errors
    /// A message naming the offending text.
    pub fn new(text: &str) -> Result<ArmId, String> {
        let valid = !text.is_empty()
            && text.len() <= 64
            && text
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if valid {
            Ok(ArmId(text.to_string()))
        } else {
            Err(format!(
                "arm id `{text}`: use 1 to 64 lowercase letters, digits and `-`"
            ))
        }
    }

    /// The id of the native arm of `family`: `v4` or `v6`.
    pub fn native(family: IpFamily) -> ArmId {
        ArmId(family.key().to_string())
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// True for the empty id of a trial written before arms existed
    /// (schema v1); [`crate::RunResult`] fills it in when it loads.
    pub fn is_unset(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for ArmId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for ArmId {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        ArmId::new(text)
    }
}

/// Where a 6in4 tunnel starts and ends (the three placements of the 2001
/// tunnelling study): on the end hosts, on the routers between them, or
/// from the client host to the router in front of the server.
#[derive(Clone, Copy, Debug, Eq, Hash, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum TunnelPlacement {
    /// Client host to server host.
    HostHost,
    /// Router to router; the hosts send native IPv6.
    RouterRouter,
    /// Client host to the server's router.
    HostRouter,
}

impl TunnelPlacement {
    /// "host to host", "router to router", "host to router".
    pub fn label(self) -> &'static str {
        match self {
            TunnelPlacement::HostHost => "host to host",
            TunnelPlacement::RouterRouter => "router to router",
            TunnelPlacement::HostRouter => "host to router",
        }
    }
}

/// The path an arm's packets take between client and server.
#[derive(
    Clone, Debug, Default, Eq, Hash, PartialEq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ArmPath {
    /// The family's own packets end to end, forwarded natively.
    #[default]
    Native,
    /// IPv6 inside IPv4 (IP protocol 41, RFC 4213 §3) across an IPv4 middle.
    #[serde(rename = "6in4")]
    SixInFour {
        /// Where the tunnel starts and ends.
        placement: TunnelPlacement,
    },
    /// IPv4 inside IPv6 (next header 4, RFC 2473) across an IPv6-only core.
    #[serde(rename = "4in6")]
    FourInSix,
    /// An IPv6-only client reaching an IPv4 server through a stateless or
    /// stateful NAT64 (RFC 7915, RFC 6146) under `prefix` (RFC 6052).
    Nat64 {
        /// The translation prefix, e.g. `64:ff9b::/96`.
        prefix: String,
    },
}

impl ArmPath {
    /// Extra bytes of header each packet carries on the encapsulated part
    /// of the path (20 for 6in4, 40 for 4in6), or the change in IP header
    /// size through a translator (IPv6 → IPv4: −20); 0 for native paths.
    pub fn header_change_bytes(&self) -> i32 {
        match self {
            ArmPath::Native => 0,
            ArmPath::SixInFour { .. } => 20,
            ArmPath::FourInSix => 40,
            ArmPath::Nat64 { .. } => -20,
        }
    }

    /// "native", "6in4 router to router", "4in6", "NAT64 64:ff9b::/96".
    pub fn label(&self) -> String {
        match self {
            ArmPath::Native => "native".into(),
            ArmPath::SixInFour { placement } => format!("6in4 {}", placement.label()),
            ArmPath::FourInSix => "4in6".into(),
            ArmPath::Nat64 { prefix } => format!("NAT64 {prefix}"),
        }
    }
}

/// A Differentiated Services codepoint (RFC 2474), 0..=63.
#[derive(Clone, Copy, Debug, Eq, Hash, Ord, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct Dscp(u8);

impl Dscp {
    /// Expedited Forwarding, 46 (RFC 3246).
    pub const EF: Dscp = Dscp(46);
    /// Default forwarding / best effort, 0.
    pub const BE: Dscp = Dscp(0);
    /// Lower effort, 1 (RFC 8622).
    pub const LE: Dscp = Dscp(1);

    /// A codepoint, checked to be at most 63.
    ///
    /// # Errors
    /// When `value` exceeds 63.
    pub fn new(value: u8) -> Result<Dscp, String> {
        if value <= 63 {
            Ok(Dscp(value))
        } else {
            Err(format!("DSCP {value} is above 63"))
        }
    }

    /// The 6-bit value.
    pub fn value(self) -> u8 {
        self.0
    }

    /// The IPv4 TOS / IPv6 traffic-class byte with ECN bits 0: `dscp << 2`.
    pub fn traffic_class(self) -> u8 {
        self.0 << 2
    }

    /// The RFC 4594 name when it has one ("ef", "af11", "cs1", "le"), else the number.
    pub fn name(self) -> String {
        match self.0 {
            0 => "be".into(),
            1 => "le".into(),
            46 => "ef".into(),
            44 => "voice-admit".into(),
            v if v % 8 == 0 => format!("cs{}", v / 8),
            v if (10..=38).contains(&v) && v % 2 == 0 && matches!((v % 8) / 2, 1..=3) => {
                format!("af{}{}", v / 8, (v % 8) / 2)
            }
            v => v.to_string(),
        }
    }
}

impl TryFrom<u8> for Dscp {
    type Error = String;
    fn try_from(value: u8) -> Result<Self, Self::Error> {
        Dscp::new(value)
    }
}

impl From<Dscp> for u8 {
    fn from(dscp: Dscp) -> u8 {
        dscp.0
    }
}

impl FromStr for Dscp {
    type Err = String;

    /// A number 0..=63 or an RFC 4594 / RFC 8622 name: `ef`, `af11`…`af43`,
    /// `cs0`…`cs7`, `le`, `be` (= `df` = 0), case-insensitive.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let lower = text.trim().to_ascii_lowercase();
        if let Ok(number) = lower.parse::<u8>() {
            return Dscp::new(number);
        }
        let bad =
            || format!("unknown DSCP `{text}`: use 0..63 or ef, af11..af43, cs0..cs7, le, be");
        match lower.as_str() {
            "ef" => Ok(Dscp::EF),
            "be" | "df" | "default" => Ok(Dscp::BE),
            "le" | "lbe" => Ok(Dscp::LE),
            "voice-admit" | "va" => Ok(Dscp(44)),
            _ => {
                if let Some(class) = lower.strip_prefix("cs") {
                    let class: u8 = class.parse().map_err(|_| bad())?;
                    return if class <= 7 {
                        Ok(Dscp(class * 8))
                    } else {
                        Err(bad())
                    };
                }
                if let Some(digits) = lower.strip_prefix("af") {
                    let bytes = digits.as_bytes();
                    if bytes.len() == 2
                        && (b'1'..=b'4').contains(&bytes[0])
                        && (b'1'..=b'3').contains(&bytes[1])
                    {
                        return Ok(Dscp((bytes[0] - b'0') * 8 + (bytes[1] - b'0') * 2));
                    }
                }
                Err(bad())
            }
        }
    }
}

impl fmt::Display for Dscp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// An IPv6 flow label (RFC 6437), 20 bits: 0..=0xFFFFF.
#[derive(Clone, Copy, Debug, Eq, Hash, Ord, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(try_from = "u32", into = "u32")]
pub struct FlowLabel(u32);

impl FlowLabel {
    /// A label, checked to fit in 20 bits.
    ///
    /// # Errors
    /// When `value` exceeds 0xFFFFF (1048575).
    pub fn new(value: u32) -> Result<FlowLabel, String> {
        if value <= 0xF_FFFF {
            Ok(FlowLabel(value))
        } else {
            Err(format!(
                "flow label {value} does not fit in 20 bits (max 1048575)"
            ))
        }
    }

    /// The 20-bit value.
    pub fn value(self) -> u32 {
        self.0
    }
}

impl TryFrom<u32> for FlowLabel {
    type Error = String;
    fn try_from(value: u32) -> Result<Self, Self::Error> {
        FlowLabel::new(value)
    }
}

impl From<FlowLabel> for u32 {
    fn from(label: FlowLabel) -> u32 {
        label.0
    }
}

impl FromStr for FlowLabel {
    type Err = String;
    /// Decimal, or hexadecimal with `0x`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        let value = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
            Some(hex) => u32::from_str_radix(hex, 16),
            None => text.parse(),
        }
        .map_err(|_| format!("flow label `{text}` is not a number"))?;
        FlowLabel::new(value)
    }
}

/// How an arm's packets are marked. Empty: the kernel's defaults (DSCP 0,
/// flow label chosen by the kernel).
#[derive(
    Clone, Copy, Debug, Default, Eq, Hash, PartialEq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct Marking {
    /// DSCP set on the data sockets of both ends (IP_TOS, IPV6_TCLASS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dscp: Option<Dscp>,
    /// IPv6 flow label set on the data sockets of both ends (IPv6 arms only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow_label: Option<FlowLabel>,
}

impl Marking {
    /// True when nothing is set.
    pub fn is_empty(&self) -> bool {
        self.dscp.is_none() && self.flow_label.is_none()
    }
}

/// What else is on the path while an arm is measured.
#[derive(
    Clone, Debug, Default, Eq, Hash, PartialEq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(tag = "condition", rename_all = "kebab-case")]
pub enum LoadCondition {
    /// Nothing but the measured traffic.
    #[default]
    Idle,
    /// Under a competing load named in the run's configuration, started and
    /// warmed up before the measured traffic.
    Under {
        /// Name of the load, e.g. `udp-115pct-be`, `tcp-4x`.
        load: String,
    },
}

/// One arm of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Arm {
    /// Machine key, unique within the run.
    pub id: ArmId,
    /// What people read, e.g. "IPv6 via 6in4, router to router".
    pub label: String,
    /// The family of the measured sockets (the client's side for NAT64).
    pub family: IpFamily,
    /// The path the packets take.
    #[serde(default)]
    pub path: ArmPath,
    /// How packets are marked.
    #[serde(default, skip_serializing_if = "Marking::is_empty")]
    pub marking: Marking,
    /// What else loads the path.
    #[serde(default)]
    pub load: LoadCondition,
    /// The server address the client connects to for this arm (as given
    /// or resolved); `None` when it could not be resolved.
    pub target: Option<String>,
}

impl Arm {
    /// The native arm of `family` (id `v4`/`v6`, label "IPv4"/"IPv6").
    pub fn native(family: IpFamily, target: Option<String>) -> Arm {
        Arm {
            id: ArmId::native(family),
            label: family.label().to_string(),
            family,
            path: ArmPath::Native,
            marking: Marking::default(),
            load: LoadCondition::Idle,
            target,
        }
    }

    /// True for a native, unmarked, idle arm: the classic IPv4/IPv6 comparison.
    pub fn is_plain_native(&self) -> bool {
        self.path == ArmPath::Native && self.marking.is_empty() && self.load == LoadCondition::Idle
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arm_ids_accept_keys_and_refuse_other_text() {
        assert!(ArmId::new("v6-6in4-router-router").is_ok());
        assert!(ArmId::new("").is_err());
        assert!(ArmId::new("IPv6").is_err());
        assert!(ArmId::new("a b").is_err());
    }

    #[test]
    fn dscp_names_follow_rfc_4594() {
        assert_eq!("ef".parse::<Dscp>().unwrap().value(), 46);
        assert_eq!("AF11".parse::<Dscp>().unwrap().value(), 10);
        assert_eq!("af43".parse::<Dscp>().unwrap().value(), 38);
        assert_eq!("cs5".parse::<Dscp>().unwrap().value(), 40);
        assert_eq!("le".parse::<Dscp>().unwrap().value(), 1);
        assert_eq!("8".parse::<Dscp>().unwrap().name(), "cs1");
        assert_eq!(Dscp::new(26).unwrap().name(), "af31");
        assert!("af44".parse::<Dscp>().is_err());
        assert!("64".parse::<Dscp>().is_err());
        assert_eq!(Dscp::EF.traffic_class(), 0xb8);
    }

    #[test]
    fn flow_labels_fit_in_twenty_bits() {
        assert_eq!("12345".parse::<FlowLabel>().unwrap().value(), 12345);
        assert_eq!("0xfffff".parse::<FlowLabel>().unwrap().value(), 0xF_FFFF);
        assert!("1048576".parse::<FlowLabel>().is_err());
    }

    #[test]
    fn a_native_arm_serialises_compactly_and_reads_back() {
        let arm = Arm::native(IpFamily::V6, Some("::1".into()));
        let text = serde_json::to_string(&arm).unwrap();
        assert_eq!(
            text,
            r#"{"id":"v6","label":"IPv6","family":"v6","path":{"kind":"native"},"load":{"condition":"idle"},"target":"::1"}"#
        );
        assert_eq!(serde_json::from_str::<Arm>(&text).unwrap(), arm);
    }

    #[test]
    fn a_tunnel_arm_names_its_placement() {
        let path = ArmPath::SixInFour {
            placement: TunnelPlacement::RouterRouter,
        };
        let text = serde_json::to_string(&path).unwrap();
        assert_eq!(text, r#"{"kind":"6in4","placement":"router-router"}"#);
        assert_eq!(path.label(), "6in4 router to router");
        assert_eq!(path.header_change_bytes(), 20);
    }
}
