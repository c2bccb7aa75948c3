//! Address families and the per-family pair every comparison is shaped like.

use std::fmt;
use std::net::IpAddr;

use serde::{Deserialize, Serialize};

/// An IP address family under test.
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
#[serde(rename_all = "lowercase")]
pub enum IpFamily {
    /// IPv4 (RFC 791).
    V4,
    /// IPv6 (RFC 8200).
    V6,
}

impl IpFamily {
    /// Both families, IPv4 first: the order of every table and of interleaving.
    pub const ALL: [IpFamily; 2] = [IpFamily::V4, IpFamily::V6];

    /// The family a peer really used. An IPv4-mapped IPv6 address
    /// (`::ffff:a.b.c.d`, RFC 4291 §2.5.5.2), which is how an IPv4 client shows
    /// up on a dual-stack IPv6 socket, counts as IPv4.
    pub fn of(address: &IpAddr) -> IpFamily {
        match address {
            IpAddr::V4(_) => IpFamily::V4,
            IpAddr::V6(v6) if v6.to_ipv4_mapped().is_some() => IpFamily::V4,
            IpAddr::V6(_) => IpFamily::V6,
        }
    }

    /// "IPv4" or "IPv6", for people.
    pub fn label(self) -> &'static str {
        match self {
            IpFamily::V4 => "IPv4",
            IpFamily::V6 => "IPv6",
        }
    }

    /// "v4" or "v6", for machines (JSON, CSV, SQL).
    pub fn key(self) -> &'static str {
        match self {
            IpFamily::V4 => "v4",
            IpFamily::V6 => "v6",
        }
    }

    /// Size of the fixed IP header in bytes: 20 for IPv4 without options
    /// (RFC 791), 40 for IPv6 (RFC 8200).
    pub fn ip_header_bytes(self) -> u32 {
        match self {
            IpFamily::V4 => 20,
            IpFamily::V6 => 40,
        }
    }
}

impl fmt::Display for IpFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// One value per address family: the shape of every comparison.
#[derive(
    Clone, Copy, Debug, Default, Eq, PartialEq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct PerFamily<T> {
    /// The IPv4 value.
    pub v4: T,
    /// The IPv6 value.
    pub v6: T,
}

impl<T> PerFamily<T> {
    /// Builds a pair by calling `f` once per family, IPv4 first.
    pub fn from_fn(mut f: impl FnMut(IpFamily) -> T) -> Self {
        PerFamily {
            v4: f(IpFamily::V4),
            v6: f(IpFamily::V6),
        }
    }

    /// Transforms both values.
    pub fn map<U>(self, mut f: impl FnMut(IpFamily, T) -> U) -> PerFamily<U> {
        PerFamily {
            v4: f(IpFamily::V4, self.v4),
            v6: f(IpFamily::V6, self.v6),
        }
    }

    /// Borrows both values.
    pub fn as_ref(&self) -> PerFamily<&T> {
        PerFamily {
            v4: &self.v4,
            v6: &self.v6,
        }
    }

    /// The value of one family.
    pub fn get(&self, family: IpFamily) -> &T {
        match family {
            IpFamily::V4 => &self.v4,
            IpFamily::V6 => &self.v6,
        }
    }

    /// The value of one family, mutably.
    pub fn get_mut(&mut self, family: IpFamily) -> &mut T {
        match family {
            IpFamily::V4 => &mut self.v4,
            IpFamily::V6 => &mut self.v6,
        }
    }

    /// Both values with their family, IPv4 first.
    pub fn iter(&self) -> impl Iterator<Item = (IpFamily, &T)> {
        [(IpFamily::V4, &self.v4), (IpFamily::V6, &self.v6)].into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{Ipv4Addr, Ipv6Addr};

    #[test]
    fn ipv4_mapped_address_counts_as_ipv4() {
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        assert_eq!(IpFamily::of(&mapped), IpFamily::V4);
    }

    #[test]
    fn plain_addresses_keep_their_family() {
        assert_eq!(IpFamily::of(&IpAddr::V4(Ipv4Addr::LOCALHOST)), IpFamily::V4);
        assert_eq!(IpFamily::of(&IpAddr::V6(Ipv6Addr::LOCALHOST)), IpFamily::V6);
    }

    #[test]
    fn per_family_map_passes_the_family() {
        let pair = PerFamily { v4: 1, v6: 2 }.map(|family, x| (family, x * 10));
        assert_eq!(pair.v4, (IpFamily::V4, 10));
        assert_eq!(pair.v6, (IpFamily::V6, 20));
    }

    #[test]
    fn family_serialises_as_lowercase_key() {
        assert_eq!(serde_json::to_string(&IpFamily::V6).unwrap(), "\"v6\"");
    }
}
