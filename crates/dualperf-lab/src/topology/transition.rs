//! Transition mechanisms in a topology: tunnels (6in4, 4in6) and
//! translators (NAT64), as validated from `[[tunnel]]` and `[[translator]]`.
//!
//! A tunnel joins two **end** nodes that encapsulate and decapsulate, and
//! carries the traffic between two **carried** nodes (by default the
//! topology's client and server). Each carried node gets one address of the
//! tunnel's own subnet (IPv6 for 6in4, IPv4 for 4in6) on its loopback; only
//! traffic between those two addresses crosses the tunnel, so a topology can
//! offer native IPv6 and IPv6 through three tunnels at the same time, each
//! an arm with its own target address ([`crate::Topology::arms`]).
//!
//! ```toml
//! [[tunnel]]
//! kind = "6in4"
//! between = ["router1", "router2"]   # client side first
//! # carries = ["client", "server"]   # the default
//! # implementation = "bpf-lwt"       # or "sit"; default: the best this kernel has
//! # mtu_bytes = 1480                 # default: path MTU minus 20
//! # ipv6 = "fd00:dead:cafe:1::/64"   # default: automatic
//!
//! [[translator]]
//! kind = "nat64"
//! node = "router"
//! # prefix = "64:ff9b::/96"          # RFC 6052 well-known prefix
//! # pool = "192.168.255.0/24"        # IPv4 pool the clients are mapped into
//! # implementation = "tayga"         # or "jool"
//! ```

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

use dualperf_model::{IpFamily, TunnelPlacement};

use crate::addressing::{Ipv4Subnet, Ipv6Subnet};

/// What a tunnel puts inside what.
#[derive(Clone, Copy, Debug, Eq, Hash, PartialEq)]
pub enum TunnelKind {
    /// IPv6 inside IPv4, IP protocol 41 (RFC 4213).
    SixInFour,
    /// IPv4 inside IPv6, next header 4 (RFC 2473).
    FourInSix,
}

impl TunnelKind {
    /// `"6in4"` or `"4in6"`.
    pub fn key(self) -> &'static str {
        match self {
            TunnelKind::SixInFour => "6in4",
            TunnelKind::FourInSix => "4in6",
        }
    }

    /// The family of the carried packets.
    pub fn inner(self) -> IpFamily {
        match self {
            TunnelKind::SixInFour => IpFamily::V6,
            TunnelKind::FourInSix => IpFamily::V4,
        }
    }

    /// The family of the packets on the wire between the ends.
    pub fn outer(self) -> IpFamily {
        match self {
            TunnelKind::SixInFour => IpFamily::V4,
            TunnelKind::FourInSix => IpFamily::V6,
        }
    }

    /// Bytes the outer header adds: 20 (IPv4) or 40 (IPv6).
    pub fn overhead_bytes(self) -> u32 {
        self.outer().ip_header_bytes()
    }

    /// Smallest tunnel MTU the inner family allows: 1280 for IPv6
    /// (RFC 8200 §5), 576 for IPv4 (the datagram every host must accept, RFC 791).
    pub fn min_mtu_bytes(self) -> u32 {
        match self {
            TunnelKind::SixInFour => 1280,
            TunnelKind::FourInSix => 576,
        }
    }
}

impl fmt::Display for TunnelKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// A tunnel's carried addresses: a subnet of the inner family whose host 1
/// belongs to the client-side carried node and host 2 to the server-side one.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum TunnelSubnet {
    /// For 4in6.
    V4(Ipv4Subnet),
    /// For 6in4.
    V6(Ipv6Subnet),
}

impl TunnelSubnet {
    /// The address of carried node `side` (0: client side, 1: server side).
    pub fn address(&self, side: usize) -> IpAddr {
        let host = side as u32 + 1;
        match self {
            TunnelSubnet::V4(subnet) => subnet.host(host).address,
            TunnelSubnet::V6(subnet) => subnet.host(host).address,
        }
    }

    /// The host prefix length of one address: 32 or 128.
    pub fn host_prefix_len(&self) -> u8 {
        match self {
            TunnelSubnet::V4(_) => 32,
            TunnelSubnet::V6(_) => 128,
        }
    }
}

impl fmt::Display for TunnelSubnet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TunnelSubnet::V4(subnet) => subnet.fmt(f),
            TunnelSubnet::V6(subnet) => subnet.fmt(f),
        }
    }
}

/// A validated `[[tunnel]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tunnel {
    /// 6in4 or 4in6.
    pub kind: TunnelKind,
    /// Node indices of the client-side and the server-side end.
    pub ends: [usize; 2],
    /// Node indices of the client-side and server-side carried nodes.
    pub carries: [usize; 2],
    /// The implementation the topology forces, if any.
    pub implementation: Option<Implementation>,
    /// Tunnel MTU, bytes.
    pub mtu_bytes: u32,
    /// The carried nodes' addresses.
    pub subnet: TunnelSubnet,
}

impl Tunnel {
    /// Where the tunnel sits relative to the carried nodes, or `None` for
    /// router to host (not one of the 2001 study's placements).
    pub fn placement(&self) -> Option<TunnelPlacement> {
        match (
            self.ends[0] == self.carries[0],
            self.ends[1] == self.carries[1],
        ) {
            (true, true) => Some(TunnelPlacement::HostHost),
            (false, false) => Some(TunnelPlacement::RouterRouter),
            (true, false) => Some(TunnelPlacement::HostRouter),
            (false, true) => None,
        }
    }

    /// The SRv6 segment id of end `side` for the `srv6` implementation:
    /// `fd00:dead:5e6:<tunnel>::<side + 1>`, outside every link subnet.
    pub fn srv6_sid(index: usize, side: usize) -> Ipv6Addr {
        Ipv6Addr::new(
            0xfd00,
            0xdead,
            0x5e6,
            index as u16,
            0,
            0,
            0,
            side as u16 + 1,
        )
    }
}

/// The automatic subnet of tunnel number `index` (from 0): 6in4
/// `fd00:dead:cafe:<index+1>::/64`, 4in6 `10.181.<index+1>.0/24`.
pub fn automatic_tunnel_subnet(kind: TunnelKind, index: usize) -> TunnelSubnet {
    let n = (index + 1) as u16;
    match kind {
        TunnelKind::SixInFour => TunnelSubnet::V6(
            Ipv6Subnet::new(Ipv6Addr::new(0xfd00, 0xdead, 0xcafe, n, 0, 0, 0, 0), 64)
                .expect("a /64 with zero interface id"),
        ),
        TunnelKind::FourInSix => TunnelSubnet::V4(
            Ipv4Subnet::new(Ipv4Addr::new(10, 181, n as u8, 0), 24)
                .expect("a /24 with a zero last octet"),
        ),
    }
}

/// The subnet the SRv6 segment ids live in: `fd00:dead:5e6::/48`.
pub fn srv6_sid_space() -> Ipv6Subnet {
    Ipv6Subnet::new(Ipv6Addr::new(0xfd00, 0xdead, 0x5e6, 0, 0, 0, 0, 0), 48)
        .expect("a /48 without host bits")
}

/// What a translator translates.
#[derive(Clone, Copy, Debug, Eq, Hash, PartialEq)]
pub enum TranslatorKind {
    /// IPv6 clients to IPv4 servers (RFC 6146 / RFC 7915).
    Nat64,
}

impl TranslatorKind {
    /// `"nat64"`.
    pub fn key(self) -> &'static str {
        "nat64"
    }
}

/// A NAT64 prefix (RFC 6052 §2.2): /32, /40, /48, /56, /64 or /96, with
/// bits 64..=71 zero for the lengths that have them.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct Nat64Prefix {
    network: Ipv6Addr,
    prefix_len: u8,
}

/// The Well-Known Prefix `64:ff9b::/96` (RFC 6052 §2.1).
pub const WELL_KNOWN_PREFIX: Nat64Prefix = Nat64Prefix {
    network: Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, 0, 0),
    prefix_len: 96,
};

impl Nat64Prefix {
    /// The prefix as a subnet (for overlap checks and routes).
    pub fn subnet(&self) -> Ipv6Subnet {
        Ipv6Subnet::new(self.network, self.prefix_len)
            .expect("validated: no host bits, at most /96")
    }

    /// True for `64:ff9b::/96`, which must not carry non-global IPv4
    /// addresses (RFC 6052 §3.1).
    pub fn is_well_known(&self) -> bool {
        *self == WELL_KNOWN_PREFIX
    }

    /// `v4` embedded in the prefix as RFC 6052 §2.2 lays it out: the 32
    /// bits follow the prefix, skipping bits 64..=71 (the "u" octet).
    pub fn embed(&self, v4: Ipv4Addr) -> Ipv6Addr {
        let mut bytes = self.network.octets();
        let start = usize::from(self.prefix_len / 8);
        let mut position = start;
        for octet in v4.octets() {
            if position == 8 {
                position += 1;
            }
            bytes[position] = octet;
            position += 1;
        }
        Ipv6Addr::from(bytes)
    }
}

impl fmt::Display for Nat64Prefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.network, self.prefix_len)
    }
}

impl FromStr for Nat64Prefix {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (address, length) = text
            .split_once('/')
            .ok_or_else(|| format!("`{text}` needs a prefix length, e.g. `64:ff9b::/96`"))?;
        let network: Ipv6Addr = address
            .parse()
            .map_err(|_| format!("`{address}` is not an IPv6 address"))?;
        let prefix_len: u8 = length
            .parse()
            .map_err(|_| format!("`{length}` is not a prefix length"))?;
        if ![32, 40, 48, 56, 64, 96].contains(&prefix_len) {
            return Err(format!(
                "`{text}` is not a NAT64 prefix: RFC 6052 §2.2 allows /32, /40, /48, /56, /64 or /96"
            ));
        }
        let bits = u128::from(network);
        let host_mask = u128::MAX >> prefix_len;
        if bits & host_mask != 0 {
            return Err(format!(
                "`{text}` has bits set after the first {prefix_len}: give the network address"
            ));
        }
        Ok(Nat64Prefix {
            network,
            prefix_len,
        })
    }
}

/// A validated `[[translator]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Translator {
    /// NAT64.
    pub kind: TranslatorKind,
    /// Node index of the translating router.
    pub node: usize,
    /// The NAT64 prefix.
    pub prefix: Nat64Prefix,
    /// The IPv4 pool clients are mapped into (TAYGA's dynamic pool).
    pub pool: Ipv4Subnet,
    /// The implementation the topology forces, if any.
    pub implementation: Option<Implementation>,
}

/// The default NAT64 pool: `192.168.255.0/24`.
pub fn default_pool() -> Ipv4Subnet {
    Ipv4Subnet::new(Ipv4Addr::new(192, 168, 255, 0), 24).expect("a /24 without host bits")
}

/// How a mechanism is made in the kernel.
#[derive(Clone, Copy, Debug, Eq, Hash, PartialEq, Ord, PartialOrd)]
pub enum Implementation {
    /// 6in4 with the kernel's `sit` device.
    Sit,
    /// 6in4 with an LWT-BPF encapsulating route and a tc-BPF decapsulator.
    BpfLwt,
    /// 4in6 with the kernel's `ip6tnl` device in `ipip6` mode.
    Ip6tnl,
    /// 4in6 with SRv6: `seg6` reduced encapsulation and `End.DX4`.
    Srv6,
    /// NAT64 with TAYGA (user space, a TUN device) and nftables masquerade.
    Tayga,
    /// NAT64 with the Jool kernel module.
    Jool,
}

impl Implementation {
    /// Every implementation, kernel devices first.
    pub const ALL: [Implementation; 6] = [
        Implementation::Sit,
        Implementation::BpfLwt,
        Implementation::Ip6tnl,
        Implementation::Srv6,
        Implementation::Jool,
        Implementation::Tayga,
    ];

    /// `"sit"`, `"bpf-lwt"`, `"ip6tnl"`, `"srv6"`, `"tayga"` or `"jool"`.
    pub fn key(self) -> &'static str {
        match self {
            Implementation::Sit => "sit",
            Implementation::BpfLwt => "bpf-lwt",
            Implementation::Ip6tnl => "ip6tnl",
            Implementation::Srv6 => "srv6",
            Implementation::Tayga => "tayga",
            Implementation::Jool => "jool",
        }
    }

    /// One line on how it works.
    pub fn describe(self) -> &'static str {
        match self {
            Implementation::Sit => "kernel sit device",
            Implementation::BpfLwt => {
                "LWT-BPF encapsulating route + tc-BPF decapsulator (embedded objects)"
            }
            Implementation::Ip6tnl => "kernel ip6tnl device, mode ipip6, no encapsulation limit",
            Implementation::Srv6 => {
                "SRv6 seg6 encap.red with one segment (no SRH) + seg6local End.DX4; TCP MSS clamped (nftables) on router ends"
            }
            Implementation::Tayga => {
                "TAYGA in user space on a TUN device + nftables masquerade (one core)"
            }
            Implementation::Jool => "Jool NAT64 kernel module (netfilter)",
        }
    }

    /// The implementations of a mechanism, in order of preference: the
    /// kernel device or module first, then the recipe mechanism.
    pub fn candidates(mechanism: MechanismKind) -> [Implementation; 2] {
        match mechanism {
            MechanismKind::Tunnel(TunnelKind::SixInFour) => {
                [Implementation::Sit, Implementation::BpfLwt]
            }
            MechanismKind::Tunnel(TunnelKind::FourInSix) => {
                [Implementation::Ip6tnl, Implementation::Srv6]
            }
            MechanismKind::Translator(TranslatorKind::Nat64) => {
                [Implementation::Jool, Implementation::Tayga]
            }
        }
    }

    /// The implementation called `key` among `mechanism`'s candidates.
    pub fn parse_for(mechanism: MechanismKind, key: &str) -> Option<Implementation> {
        Self::candidates(mechanism)
            .into_iter()
            .find(|i| i.key() == key)
    }
}

impl fmt::Display for Implementation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// A kind of transition mechanism.
#[derive(Clone, Copy, Debug, Eq, Hash, PartialEq)]
pub enum MechanismKind {
    /// A tunnel.
    Tunnel(TunnelKind),
    /// A translator.
    Translator(TranslatorKind),
}

impl MechanismKind {
    /// Every kind, in `doctor` order.
    pub const ALL: [MechanismKind; 3] = [
        MechanismKind::Tunnel(TunnelKind::SixInFour),
        MechanismKind::Tunnel(TunnelKind::FourInSix),
        MechanismKind::Translator(TranslatorKind::Nat64),
    ];

    /// `"6in4"`, `"4in6"` or `"nat64"`.
    pub fn key(self) -> &'static str {
        match self {
            MechanismKind::Tunnel(kind) => kind.key(),
            MechanismKind::Translator(kind) => kind.key(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_6052_examples_embed_192_0_2_33() {
        // RFC 6052 §2.4, the table of examples.
        let v4 = Ipv4Addr::new(192, 0, 2, 33);
        let cases = [
            ("2001:db8::/32", "2001:db8:c000:221::"),
            ("2001:db8:100::/40", "2001:db8:1c0:2:21::"),
            ("2001:db8:122::/48", "2001:db8:122:c000:2:2100::"),
            ("2001:db8:122:300::/56", "2001:db8:122:3c0:0:221::"),
            ("2001:db8:122:344::/64", "2001:db8:122:344:c0:2:2100:0"),
            ("2001:db8:122:344::/96", "2001:db8:122:344::192.0.2.33"),
            ("64:ff9b::/96", "64:ff9b::192.0.2.33"),
        ];
        for (prefix, expected) in cases {
            let prefix: Nat64Prefix = prefix.parse().unwrap();
            assert_eq!(
                prefix.embed(v4),
                expected.parse::<Ipv6Addr>().unwrap(),
                "{prefix}"
            );
        }
    }

    #[test]
    fn nat64_prefixes_of_other_lengths_or_with_host_bits_are_rejected() {
        assert!("64:ff9b::/95"
            .parse::<Nat64Prefix>()
            .unwrap_err()
            .contains("RFC 6052"));
        assert!("64:ff9b::1/96".parse::<Nat64Prefix>().is_err());
        assert!("64:ff9b::".parse::<Nat64Prefix>().is_err());
        assert!("10.0.0.0/96".parse::<Nat64Prefix>().is_err());
        assert!("64:ff9b::/96"
            .parse::<Nat64Prefix>()
            .unwrap()
            .is_well_known());
    }

    #[test]
    fn every_mechanism_prefers_the_kernel_device() {
        assert_eq!(
            Implementation::candidates(MechanismKind::Tunnel(TunnelKind::SixInFour))[0],
            Implementation::Sit
        );
        assert_eq!(
            Implementation::parse_for(MechanismKind::Tunnel(TunnelKind::FourInSix), "srv6"),
            Some(Implementation::Srv6)
        );
        assert_eq!(
            Implementation::parse_for(MechanismKind::Tunnel(TunnelKind::FourInSix), "sit"),
            None
        );
    }
}
