//! Subnets and addresses of testbed links, for both families.
//!
//! Every link is its own subnet. Unless the topology gives one, link number
//! *i* gets the *i*-th free pair of
//!
//! * `10.180.N.0/24` (RFC 1918 private space; block 10.180/16 picked because
//!   home and office networks rarely use it), and
//! * `fd00:dead:beef:N::/64` (a unique-local prefix, RFC 4193),
//!
//! with the same `N` in both families so that a person reading `ip addr` can
//! match them. The first node of `between` takes host number 1 (`.1`, `::1`),
//! the second host number 2. The addresses live only inside the testbed's
//! namespaces, so they cannot clash with the host's own networks.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

use crate::naming::LinkEnd;

/// An IPv4 subnet: a network address without host bits and a prefix length.
#[derive(Clone, Copy, Debug, Eq, Hash, PartialEq)]
pub struct Ipv4Subnet {
    network: Ipv4Addr,
    prefix_len: u8,
}

/// An IPv6 subnet: a network address without host bits and a prefix length.
#[derive(Clone, Copy, Debug, Eq, Hash, PartialEq)]
pub struct Ipv6Subnet {
    network: Ipv6Addr,
    prefix_len: u8,
}

/// A link's subnet in each family.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct LinkSubnets {
    /// The IPv4 subnet.
    pub v4: Ipv4Subnet,
    /// The IPv6 subnet.
    pub v6: Ipv6Subnet,
}

/// An address with its prefix length, as `ip addr add` takes it.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct InterfaceAddress {
    /// The address.
    pub address: IpAddr,
    /// Prefix length, bits.
    pub prefix_len: u8,
}

impl fmt::Display for InterfaceAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.address, self.prefix_len)
    }
}

impl Ipv4Subnet {
    /// The subnet `network/prefix_len`, or `None` if host bits are set or the
    /// prefix is longer than 30 bits (a link needs two host addresses).
    pub fn new(network: Ipv4Addr, prefix_len: u8) -> Option<Self> {
        if prefix_len > 30 {
            return None;
        }
        let mask = u32::MAX
            .checked_shl(32 - u32::from(prefix_len))
            .unwrap_or(0);
        (u32::from(network) & !mask == 0).then_some(Ipv4Subnet {
            network,
            prefix_len,
        })
    }

    /// Host number `host` in this subnet (1 is the first usable address).
    pub fn host(&self, host: u32) -> InterfaceAddress {
        InterfaceAddress {
            address: IpAddr::V4(Ipv4Addr::from(u32::from(self.network) + host)),
            prefix_len: self.prefix_len,
        }
    }

    fn range(&self) -> (u32, u32) {
        let size = 1u64 << (32 - u32::from(self.prefix_len));
        let start = u32::from(self.network);
        (start, (u64::from(start) + size - 1) as u32)
    }

    /// True when the two subnets share an address.
    pub fn overlaps(&self, other: &Ipv4Subnet) -> bool {
        let (a0, a1) = self.range();
        let (b0, b1) = other.range();
        a0 <= b1 && b0 <= a1
    }
}

impl Ipv6Subnet {
    /// The subnet `network/prefix_len`, or `None` if host bits are set or the
    /// prefix is longer than 126 bits.
    pub fn new(network: Ipv6Addr, prefix_len: u8) -> Option<Self> {
        if prefix_len > 126 {
            return None;
        }
        let mask = u128::MAX
            .checked_shl(128 - u32::from(prefix_len))
            .unwrap_or(0);
        (u128::from(network) & !mask == 0).then_some(Ipv6Subnet {
            network,
            prefix_len,
        })
    }

    /// Host number `host` in this subnet (`::1` is 1).
    pub fn host(&self, host: u32) -> InterfaceAddress {
        InterfaceAddress {
            address: IpAddr::V6(Ipv6Addr::from(u128::from(self.network) + u128::from(host))),
            prefix_len: self.prefix_len,
        }
    }

    fn range(&self) -> (u128, u128) {
        let start = u128::from(self.network);
        let host_bits = 128 - u32::from(self.prefix_len);
        let last = if host_bits == 128 {
            u128::MAX
        } else {
            start + ((1u128 << host_bits) - 1)
        };
        (start, last)
    }

    /// True when the two subnets share an address.
    pub fn overlaps(&self, other: &Ipv6Subnet) -> bool {
        let (a0, a1) = self.range();
        let (b0, b1) = other.range();
        a0 <= b1 && b0 <= a1
    }
}

impl fmt::Display for Ipv4Subnet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.network, self.prefix_len)
    }
}

impl fmt::Display for Ipv6Subnet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.network, self.prefix_len)
    }
}

fn split_prefix(text: &str) -> Result<(&str, u8), String> {
    let (address, prefix) = text
        .split_once('/')
        .ok_or_else(|| format!("`{text}` needs a prefix length, e.g. `/24`"))?;
    let prefix_len = prefix
        .parse()
        .map_err(|_| format!("`{prefix}` is not a prefix length"))?;
    Ok((address, prefix_len))
}

impl FromStr for Ipv4Subnet {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (address, prefix_len) = split_prefix(text)?;
        let network: Ipv4Addr = address
            .parse()
            .map_err(|_| format!("`{address}` is not an IPv4 address"))?;
        // Addresses a link cannot hold: routing them into a namespace's
        // link would shadow the host's own meaning of them.
        let special = if network.is_loopback() {
            Some("loopback (127.0.0.0/8)")
        } else if network.is_multicast() {
            Some("multicast (224.0.0.0/4)")
        } else if network.is_unspecified() || network.octets()[0] == 0 {
            Some("unspecified (0.0.0.0/8)")
        } else if network.is_broadcast() || network.octets()[0] >= 240 {
            Some("reserved (240.0.0.0/4)")
        } else {
            None
        };
        if let Some(kind) = special {
            return Err(format!(
                "`{text}` is a {kind} subnet; a link needs a unicast one (e.g. 192.168.7.0/24)"
            ));
        }
        Ipv4Subnet::new(network, prefix_len).ok_or_else(|| {
            format!("`{text}` is not an IPv4 subnet of at most /30 without host bits (e.g. 192.168.7.0/24)")
        })
    }
}

impl FromStr for Ipv6Subnet {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (address, prefix_len) = split_prefix(text)?;
        let network: Ipv6Addr = address
            .parse()
            .map_err(|_| format!("`{address}` is not an IPv6 address"))?;
        let special = if network.is_loopback() {
            Some("loopback (::1)")
        } else if network.is_multicast() {
            Some("multicast (ff00::/8)")
        } else if network.is_unspecified() {
            Some("unspecified (::)")
        } else if network.to_ipv4_mapped().is_some() {
            Some("IPv4-mapped (::ffff:0:0/96)")
        } else if network.segments()[0] & 0xffc0 == 0xfe80 {
            Some("link-local (fe80::/10)")
        } else {
            None
        };
        if let Some(kind) = special {
            return Err(format!(
                "`{text}` is a {kind} subnet; a link needs a unicast one (e.g. fd00:1::/64)"
            ));
        }
        Ipv6Subnet::new(network, prefix_len).ok_or_else(|| {
            format!("`{text}` is not an IPv6 subnet of at most /126 without host bits (e.g. fd00:1::/64)")
        })
    }
}

impl LinkSubnets {
    /// The addresses of `end` on this link, IPv4 first.
    pub fn addresses(&self, end: LinkEnd) -> [InterfaceAddress; 2] {
        let host = end.index() as u32 + 1;
        [self.v4.host(host), self.v6.host(host)]
    }
}

/// The automatic IPv4 subnet number `n`: `10.180.n.0/24`.
pub fn automatic_v4(n: u8) -> Ipv4Subnet {
    Ipv4Subnet::new(Ipv4Addr::new(10, 180, n, 0), 24)
        .expect("a /24 with a zero last octet has no host bits")
}

/// The automatic IPv6 subnet number `n`: `fd00:dead:beef:n::/64`.
pub fn automatic_v6(n: u8) -> Ipv6Subnet {
    Ipv6Subnet::new(
        Ipv6Addr::new(0xfd00, 0xdead, 0xbeef, u16::from(n), 0, 0, 0, 0),
        64,
    )
    .expect("a /64 with zero interface id has no host bits")
}

/// Gives every link without a subnet the lowest automatic subnet number
/// (1..=255) whose subnets overlap none given by the user or taken before.
/// `given[i]` is link *i*'s user-given subnets, each family optional.
///
/// Returns `Err(link index)` when the 255 automatic subnets run out.
pub fn assign(
    given: &[(Option<Ipv4Subnet>, Option<Ipv6Subnet>)],
) -> Result<Vec<LinkSubnets>, usize> {
    let mut taken_v4: Vec<Ipv4Subnet> = given.iter().filter_map(|g| g.0).collect();
    let mut taken_v6: Vec<Ipv6Subnet> = given.iter().filter_map(|g| g.1).collect();
    let mut next: u16 = 1;
    let mut out = Vec::with_capacity(given.len());
    for (index, &(v4, v6)) in given.iter().enumerate() {
        let (v4, v6) = match (v4, v6) {
            (Some(v4), Some(v6)) => (v4, v6),
            _ => {
                let is_free = |n: u8| {
                    let v4_free =
                        v4.is_some() || !taken_v4.iter().any(|t| t.overlaps(&automatic_v4(n)));
                    let v6_free =
                        v6.is_some() || !taken_v6.iter().any(|t| t.overlaps(&automatic_v6(n)));
                    v4_free && v6_free
                };
                let number = (next..=255)
                    .map(|n| n as u8)
                    .find(|&n| is_free(n))
                    .ok_or(index)?;
                next = u16::from(number) + 1;
                (
                    v4.unwrap_or_else(|| automatic_v4(number)),
                    v6.unwrap_or_else(|| automatic_v6(number)),
                )
            }
        };
        taken_v4.push(v4);
        taken_v6.push(v6);
        out.push(LinkSubnets { v4, v6 });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_multicast_and_unspecified_subnets_are_refused() {
        for text in ["127.0.0.0/24", "224.1.0.0/24", "0.0.0.0/24", "240.0.0.0/24"] {
            let error = text.parse::<Ipv4Subnet>().unwrap_err();
            assert!(error.contains("unicast"), "{text}: {error}");
        }
        for text in [
            "::1/128",
            "ff02::/64",
            "::/64",
            "::ffff:10.0.0.0/120",
            "fe80::/64",
        ] {
            assert!(text.parse::<Ipv6Subnet>().is_err(), "{text}");
        }
        assert!("192.168.7.0/24".parse::<Ipv4Subnet>().is_ok());
        assert!("fd00:1::/64".parse::<Ipv6Subnet>().is_ok());
    }

    #[test]
    fn links_get_consecutive_subnets_with_matching_numbers() {
        let subnets = assign(&[(None, None), (None, None)]).unwrap();
        assert_eq!(subnets[0].v4.to_string(), "10.180.1.0/24");
        assert_eq!(subnets[0].v6.to_string(), "fd00:dead:beef:1::/64");
        assert_eq!(subnets[1].v4.to_string(), "10.180.2.0/24");
        assert_eq!(subnets[1].v6.to_string(), "fd00:dead:beef:2::/64");
    }

    #[test]
    fn first_node_gets_host_one_and_second_host_two() {
        let subnets = assign(&[(None, None)]).unwrap();
        let [a4, a6] = subnets[0].addresses(LinkEnd::A);
        let [b4, b6] = subnets[0].addresses(LinkEnd::B);
        assert_eq!(a4.to_string(), "10.180.1.1/24");
        assert_eq!(a6.to_string(), "fd00:dead:beef:1::1/64");
        assert_eq!(b4.to_string(), "10.180.1.2/24");
        assert_eq!(b6.to_string(), "fd00:dead:beef:1::2/64");
    }

    #[test]
    fn automatic_subnets_skip_ones_the_user_took() {
        let user = "10.180.1.0/24".parse().unwrap();
        let subnets = assign(&[(None, None), (Some(user), None)]).unwrap();
        assert_eq!(subnets[0].v4.to_string(), "10.180.2.0/24");
        assert_eq!(subnets[1].v4, user);
        assert_eq!(subnets[1].v6.to_string(), "fd00:dead:beef:3::/64");
    }

    #[test]
    fn a_user_supernet_blocks_every_automatic_subnet_inside_it() {
        let wide = "10.180.0.0/16".parse().unwrap();
        assert_eq!(assign(&[(Some(wide), None), (None, None)]), Err(1));
    }

    #[test]
    fn subnets_with_host_bits_or_too_long_prefixes_are_rejected() {
        assert!("10.0.0.1/24".parse::<Ipv4Subnet>().is_err());
        assert!("10.0.0.0/31".parse::<Ipv4Subnet>().is_err());
        assert!("10.0.0.0".parse::<Ipv4Subnet>().is_err());
        assert!("fd00::1/64".parse::<Ipv6Subnet>().is_err());
        assert!("fd00::/127".parse::<Ipv6Subnet>().is_err());
        assert!("fd00:1::/64".parse::<Ipv6Subnet>().is_ok());
    }

    #[test]
    fn overlap_is_detected_in_both_directions() {
        let wide: Ipv4Subnet = "10.0.0.0/8".parse().unwrap();
        let narrow: Ipv4Subnet = "10.1.2.0/24".parse().unwrap();
        let other: Ipv4Subnet = "192.168.0.0/24".parse().unwrap();
        assert!(wide.overlaps(&narrow) && narrow.overlaps(&wide));
        assert!(!wide.overlaps(&other));
        let a: Ipv6Subnet = "fd00::/16".parse().unwrap();
        let b: Ipv6Subnet = "fd00:1::/64".parse().unwrap();
        assert!(a.overlaps(&b) && b.overlaps(&a));
    }
}
