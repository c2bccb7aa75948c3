//! The header-overhead model: what the bigger IPv6 header costs in theory.
//!
//! For one frame carrying one TCP segment or UDP datagram:
//!
//! ```text
//! frame = link header + encapsulation + IP header + transport header + payload
//! maximum payload = MTU − encapsulation − IP header − transport header
//! overhead ratio  = header bytes / payload bytes     (the papers' "overhead %")
//! efficiency      = payload / (frame + on-wire extras)
//! expected goodput on a link of rate C = C · efficiency
//! ```
//!
//! Byte counts (docs/metrics.md): Ethernet header 14 (FCS not included, as in
//! the papers' "Total Ethernet MTU 1514"); on-wire extras preamble + SFD 8,
//! FCS 4, inter-frame gap 12 (only when asked); IPv4 20 (RFC 791), IPv6 40
//! (RFC 8200); TCP 20 + options (12 with Linux timestamps, RFC 7323), UDP 8;
//! 6in4 +20 (RFC 4213), 4in6 +40 (RFC 2473), GRE over IPv4 +24 (RFC 2784),
//! VXLAN over IPv4 +50 (RFC 7348: outer IPv4 20 + UDP 8 + VXLAN 8 + inner
//! Ethernet 14), NAT64 (RFC 7915): IPv6 header on the IPv6 side, IPv4 on the
//! IPv4 side; IPv6 fragment header 8 (RFC 8200 §4.5).
//!
//! With textbook settings (Ethernet, MTU 1500, no TCP options, no extras)
//! the model reproduces Table 1 of the seed papers exactly; see
//! [`table`] and its tests.

mod message;
mod packet;
pub mod table;

pub use message::{message_cost, MessageCost};
pub use packet::{packet_overhead, PacketOverhead};

use std::fmt;

use dualperf_model::IpFamily;
use serde::Serialize;

/// Ethernet II header: destination, source, EtherType (IEEE 802.3), bytes.
pub const ETHERNET_HEADER_BYTES: u32 = 14;
/// On-wire bytes around every Ethernet frame: preamble + SFD 8, FCS 4, inter-frame gap 12.
pub const ETHERNET_WIRE_EXTRA_BYTES: u32 = 24;
/// Smallest Ethernet frame without FCS (64 with it); shorter frames are padded.
pub const ETHERNET_MIN_FRAME_BYTES: u32 = 60;
/// TCP header without options (RFC 9293), bytes.
pub const TCP_HEADER_BYTES: u32 = 20;
/// TCP options Linux sends on every segment by default: timestamps (RFC 7323)
/// padded to 12 bytes.
pub const LINUX_TCP_OPTION_BYTES: u32 = 12;
/// UDP header (RFC 768), bytes.
pub const UDP_HEADER_BYTES: u32 = 8;
/// IPv6 fragment extension header (RFC 8200 §4.5), bytes.
pub const IPV6_FRAGMENT_HEADER_BYTES: u32 = 8;
/// The usual Ethernet MTU, bytes.
pub const DEFAULT_MTU_BYTES: u32 = 1500;

/// The transport protocol of a path.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    /// TCP (RFC 9293).
    Tcp,
    /// UDP (RFC 768).
    Udp,
}

impl Transport {
    /// "TCP" or "UDP".
    pub fn label(self) -> &'static str {
        match self {
            Transport::Tcp => "TCP",
            Transport::Udp => "UDP",
        }
    }
}

/// The link layer under the IP packets.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkType {
    /// Ethernet II: 14-byte header, 60-byte minimum frame, optional on-wire extras.
    Ethernet,
    /// No link header (counting IP packets only, e.g. a tun device).
    Raw,
}

/// A tunnel or translation between the packet and the link.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Encapsulation {
    /// The packet goes on the link as is.
    None,
    /// IPv6 in IPv4 (6in4, RFC 4213): an outer IPv4 header, +20 bytes.
    SixInFour,
    /// IPv4 in IPv6 (4in6, RFC 2473, as in DS-Lite): an outer IPv6 header, +40 bytes.
    FourInSix,
    /// GRE over IPv4 (RFC 2784): outer IPv4 20 + GRE 4, +24 bytes.
    GreOverIpv4,
    /// VXLAN over IPv4 (RFC 7348): outer IPv4 20 + UDP 8 + VXLAN 8 + inner Ethernet 14, +50 bytes.
    VxlanOverIpv4,
    /// NAT64 / SIIT translation (RFC 7915), seen on its IPv6 side (40-byte header).
    Nat64Ipv6Side,
    /// NAT64 / SIIT translation (RFC 7915), seen on its IPv4 side (20-byte header).
    Nat64Ipv4Side,
}

impl Encapsulation {
    /// Every encapsulation, in display order.
    pub const ALL: [Encapsulation; 7] = [
        Encapsulation::None,
        Encapsulation::SixInFour,
        Encapsulation::FourInSix,
        Encapsulation::GreOverIpv4,
        Encapsulation::VxlanOverIpv4,
        Encapsulation::Nat64Ipv6Side,
        Encapsulation::Nat64Ipv4Side,
    ];

    /// Bytes this encapsulation adds inside the link MTU.
    pub fn added_bytes(self) -> u32 {
        match self {
            Encapsulation::None | Encapsulation::Nat64Ipv6Side | Encapsulation::Nat64Ipv4Side => 0,
            Encapsulation::SixInFour => 20,
            Encapsulation::FourInSix => 40,
            Encapsulation::GreOverIpv4 => 24,
            Encapsulation::VxlanOverIpv4 => 50,
        }
    }

    /// The command-line / JSON name.
    pub fn name(self) -> &'static str {
        match self {
            Encapsulation::None => "none",
            Encapsulation::SixInFour => "6in4",
            Encapsulation::FourInSix => "4in6",
            Encapsulation::GreOverIpv4 => "gre",
            Encapsulation::VxlanOverIpv4 => "vxlan",
            Encapsulation::Nat64Ipv6Side => "nat64-v6-side",
            Encapsulation::Nat64Ipv4Side => "nat64-v4-side",
        }
    }

    /// The inner families this encapsulation can carry.
    pub fn inner_families(self) -> &'static [IpFamily] {
        match self {
            Encapsulation::SixInFour => &[IpFamily::V6],
            Encapsulation::FourInSix => &[IpFamily::V4],
            // A translated flow is described by the side it is seen on.
            Encapsulation::Nat64Ipv6Side => &[IpFamily::V6],
            Encapsulation::Nat64Ipv4Side => &[IpFamily::V4],
            _ => &IpFamily::ALL,
        }
    }
}

impl std::str::FromStr for Encapsulation {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Encapsulation::ALL
            .into_iter()
            .find(|e| e.name() == text)
            .ok_or_else(|| {
                let names: Vec<&str> = Encapsulation::ALL.iter().map(|e| e.name()).collect();
                format!(
                    "unknown encapsulation `{text}`; known: {}",
                    names.join(", ")
                )
            })
    }
}

/// What the model assumes about the link and the TCP stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct OverheadSettings {
    /// Link layer.
    pub link: LinkType,
    /// IP MTU of the link, bytes (1500 on Ethernet).
    pub mtu_bytes: u32,
    /// TCP option bytes on every segment (12 with Linux timestamps, 0 in textbooks).
    pub tcp_option_bytes: u32,
    /// Count preamble + SFD, FCS and inter-frame gap (24 bytes per Ethernet frame).
    pub count_wire_extras: bool,
}

impl OverheadSettings {
    /// The papers' Table 1: Ethernet, MTU 1500, no TCP options, no on-wire extras.
    pub const fn textbook() -> Self {
        OverheadSettings {
            link: LinkType::Ethernet,
            mtu_bytes: DEFAULT_MTU_BYTES,
            tcp_option_bytes: 0,
            count_wire_extras: false,
        }
    }

    /// What Linux sends: Ethernet, the given MTU, 12 bytes of TCP timestamps.
    pub const fn linux(mtu_bytes: u32) -> Self {
        OverheadSettings {
            link: LinkType::Ethernet,
            mtu_bytes,
            tcp_option_bytes: LINUX_TCP_OPTION_BYTES,
            count_wire_extras: false,
        }
    }

    /// Link header bytes per frame.
    pub fn link_header_bytes(&self) -> u32 {
        match self.link {
            LinkType::Ethernet => ETHERNET_HEADER_BYTES,
            LinkType::Raw => 0,
        }
    }

    /// On-wire extra bytes per frame (0 unless counted and on Ethernet).
    pub fn wire_extra_bytes(&self) -> u32 {
        match (self.link, self.count_wire_extras) {
            (LinkType::Ethernet, true) => ETHERNET_WIRE_EXTRA_BYTES,
            _ => 0,
        }
    }

    /// A frame's length on the link once padded to the minimum, bytes.
    pub fn padded_frame_bytes(&self, frame_bytes: u32) -> u32 {
        match self.link {
            LinkType::Ethernet => frame_bytes.max(ETHERNET_MIN_FRAME_BYTES),
            LinkType::Raw => frame_bytes,
        }
    }

    /// Transport header bytes including options.
    pub fn transport_header_bytes(&self, transport: Transport) -> u32 {
        match transport {
            Transport::Tcp => TCP_HEADER_BYTES + self.tcp_option_bytes,
            Transport::Udp => UDP_HEADER_BYTES,
        }
    }
}

impl Default for OverheadSettings {
    fn default() -> Self {
        OverheadSettings::linux(DEFAULT_MTU_BYTES)
    }
}

/// A family, a transport and an encapsulation: one column of Table 1.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, Serialize)]
pub struct PathKind {
    /// The family of the packet the application's socket sends (for NAT64,
    /// the family on the side described).
    pub family: IpFamily,
    /// The transport.
    pub transport: Transport,
    /// The tunnel or translation, if any.
    pub encapsulation: Encapsulation,
}

impl PathKind {
    /// A plain (unencapsulated) path.
    pub const fn plain(family: IpFamily, transport: Transport) -> Self {
        PathKind {
            family,
            transport,
            encapsulation: Encapsulation::None,
        }
    }

    /// The four columns of Table 1: IPv4 TCP, IPv6 TCP, IPv4 UDP, IPv6 UDP.
    pub const TABLE_1: [PathKind; 4] = [
        PathKind::plain(IpFamily::V4, Transport::Tcp),
        PathKind::plain(IpFamily::V6, Transport::Tcp),
        PathKind::plain(IpFamily::V4, Transport::Udp),
        PathKind::plain(IpFamily::V6, Transport::Udp),
    ];

    /// Table 1's paths followed by every valid encapsulated one.
    pub fn all() -> Vec<PathKind> {
        let mut paths = PathKind::TABLE_1.to_vec();
        for encapsulation in Encapsulation::ALL.into_iter().skip(1) {
            for transport in [Transport::Tcp, Transport::Udp] {
                for &family in encapsulation.inner_families() {
                    paths.push(PathKind {
                        family,
                        transport,
                        encapsulation,
                    });
                }
            }
        }
        paths
    }
}

impl fmt::Display for PathKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.family.label(), self.transport.label())?;
        match self.encapsulation {
            Encapsulation::None => Ok(()),
            Encapsulation::SixInFour => f.write_str(" in 6in4"),
            Encapsulation::FourInSix => f.write_str(" in 4in6"),
            Encapsulation::GreOverIpv4 => f.write_str(" in GRE/IPv4"),
            Encapsulation::VxlanOverIpv4 => f.write_str(" in VXLAN/IPv4"),
            Encapsulation::Nat64Ipv6Side => f.write_str(" via NAT64 (IPv6 side)"),
            Encapsulation::Nat64Ipv4Side => f.write_str(" via NAT64 (IPv4 side)"),
        }
    }
}
