//! Address analysis for `dualperf addr`: parse any notation, print the RFC
//! 5952 canonical and the expanded form, classify the address (IANA special
//! purpose registries, RFC 6890) and give its reverse-DNS name.

use std::fmt::Write;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::CheckError;

/// Everything `dualperf addr` says about one address.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct AddressReport {
    /// The text as given.
    pub input: String,
    /// 4 or 6.
    pub family: u8,
    /// Canonical text: RFC 5952 for IPv6 (with `%zone` if given), dotted quad for IPv4.
    pub canonical: String,
    /// Every group written out: `2001:0db8:0000:...` or the dotted quad.
    pub expanded: String,
    /// The zone (scope id) after `%`, if any (RFC 4007 §11).
    pub zone: Option<String>,
    /// Special-purpose ranges the address falls in, most specific first.
    pub kinds: Vec<Kind>,
    /// An IPv4 address embedded in the IPv6 one (mapped, compatible, NAT64,
    /// 6to4, Teredo server), if the kind defines one.
    pub embedded_ipv4: Option<Ipv4Addr>,
    /// The PTR name (`...ip6.arpa.` or `...in-addr.arpa.`).
    pub reverse_dns: String,
}

/// One classification with the RFC that defines it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Kind {
    /// Short name, e.g. `ipv4-mapped`, `link-local`.
    pub name: String,
    /// The range, e.g. `::ffff:0:0/96`.
    pub range: &'static str,
    /// Defining document, e.g. `RFC 4291 §2.5.5.2`.
    pub reference: &'static str,
    /// A remark: deprecation, embedded values, multicast scope.
    pub note: String,
}

fn kind(name: &str, range: &'static str, reference: &'static str, note: impl Into<String>) -> Kind {
    Kind {
        name: name.to_string(),
        range,
        reference,
        note: note.into(),
    }
}

/// Parses and analyses `text`: full, compressed, IPv4-embedded
/// (`::ffff:1.2.3.4`, `64:ff9b::192.0.2.1`), bracketed (`[::1]`), with a zone
/// (`fe80::1%eth0`), or a plain IPv4 dotted quad.
///
/// # Errors
/// [`CheckError::InvalidAddress`] if the text is no IP address.
pub fn analyse(text: &str) -> Result<AddressReport, CheckError> {
    let trimmed = text.trim();
    let unbracketed = trimmed
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .unwrap_or(trimmed);
    let (address_text, zone) = match unbracketed.split_once('%') {
        Some((address, zone)) if !zone.is_empty() => (address, Some(zone.to_string())),
        Some(_) => {
            return Err(CheckError::InvalidAddress {
                input: text.to_string(),
                reason: "empty zone after `%`".into(),
            })
        }
        None => (unbracketed, None),
    };
    let address: IpAddr = address_text
        .parse()
        .map_err(|_| CheckError::InvalidAddress {
            input: text.to_string(),
            reason: "not an IPv4 or IPv6 address".into(),
        })?;
    Ok(match address {
        IpAddr::V4(v4) => {
            if zone.is_some() {
                return Err(CheckError::InvalidAddress {
                    input: text.to_string(),
                    reason: "IPv4 addresses have no zone".into(),
                });
            }
            AddressReport {
                input: text.to_string(),
                family: 4,
                canonical: v4.to_string(),
                expanded: v4.to_string(),
                zone: None,
                kinds: classify_v4(v4),
                embedded_ipv4: None,
                reverse_dns: reverse_v4(v4),
            }
        }
        IpAddr::V6(v6) => {
            let (kinds, embedded_ipv4) = classify_v6(v6);
            let mut canonical = canonical_v6(v6);
            if let Some(zone) = &zone {
                canonical = format!("{canonical}%{zone}");
            }
            AddressReport {
                input: text.to_string(),
                family: 6,
                canonical,
                expanded: v6
                    .segments()
                    .iter()
                    .map(|s| format!("{s:04x}"))
                    .collect::<Vec<_>>()
                    .join(":"),
                zone,
                kinds,
                embedded_ipv4,
                reverse_dns: reverse_v6(v6),
            }
        }
    })
}

/// RFC 5952 text: lowercase hex, no leading zeros, the longest run of two or
/// more zero groups replaced by `::` (the first run on a tie, §4.2.3), and
/// mixed notation for IPv4-mapped addresses (§5).
pub fn canonical_v6(address: Ipv6Addr) -> String {
    let segments = address.segments();
    if let Some(v4) = address.to_ipv4_mapped() {
        return format!("::ffff:{v4}");
    }
    let (mut best_start, mut best_len) = (0, 0);
    let mut i = 0;
    while i < 8 {
        if segments[i] == 0 {
            let start = i;
            while i < 8 && segments[i] == 0 {
                i += 1;
            }
            if i - start > best_len {
                (best_start, best_len) = (start, i - start);
            }
        } else {
            i += 1;
        }
    }
    let hex = |range: &[u16]| {
        range
            .iter()
            .map(|s| format!("{s:x}"))
            .collect::<Vec<_>>()
            .join(":")
    };
    if best_len < 2 {
        return hex(&segments);
    }
    format!(
        "{}::{}",
        hex(&segments[..best_start]),
        hex(&segments[best_start + best_len..])
    )
}

fn reverse_v4(address: Ipv4Addr) -> String {
    let o = address.octets();
    format!("{}.{}.{}.{}.in-addr.arpa.", o[3], o[2], o[1], o[0])
}

fn reverse_v6(address: Ipv6Addr) -> String {
    let mut out = String::new();
    for byte in address.octets().iter().rev() {
        let _ = write!(out, "{:x}.{:x}.", byte & 0xf, byte >> 4);
    }
    out + "ip6.arpa."
}

fn in_v4(address: Ipv4Addr, network: [u8; 4], prefix: u32) -> bool {
    let mask = if prefix == 0 {
        0
    } else {
        u32::MAX << (32 - prefix)
    };
    u32::from(address) & mask == u32::from(Ipv4Addr::from(network)) & mask
}

fn in_v6(address: Ipv6Addr, network: [u16; 8], prefix: u32) -> bool {
    let mask = if prefix == 0 {
        0
    } else {
        u128::MAX << (128 - prefix)
    };
    u128::from(address) & mask == u128::from(Ipv6Addr::from(network)) & mask
}

/// IPv4 special-purpose ranges (RFC 6890 and the IANA registry).
pub fn classify_v4(a: Ipv4Addr) -> Vec<Kind> {
    let table: &[([u8; 4], u32, &str, &'static str, &'static str)] = &[
        (
            [255, 255, 255, 255],
            32,
            "limited-broadcast",
            "255.255.255.255/32",
            "RFC 919",
        ),
        (
            [0, 0, 0, 0],
            32,
            "unspecified",
            "0.0.0.0/32",
            "RFC 1122 §3.2.1.3",
        ),
        ([0, 0, 0, 0], 8, "this-network", "0.0.0.0/8", "RFC 791"),
        ([127, 0, 0, 0], 8, "loopback", "127.0.0.0/8", "RFC 1122"),
        ([10, 0, 0, 0], 8, "private", "10.0.0.0/8", "RFC 1918"),
        ([172, 16, 0, 0], 12, "private", "172.16.0.0/12", "RFC 1918"),
        (
            [192, 168, 0, 0],
            16,
            "private",
            "192.168.0.0/16",
            "RFC 1918",
        ),
        (
            [100, 64, 0, 0],
            10,
            "shared-cgn",
            "100.64.0.0/10",
            "RFC 6598",
        ),
        (
            [169, 254, 0, 0],
            16,
            "link-local",
            "169.254.0.0/16",
            "RFC 3927",
        ),
        (
            [192, 0, 0, 0],
            24,
            "ietf-protocol-assignments",
            "192.0.0.0/24",
            "RFC 6890",
        ),
        (
            [192, 0, 2, 0],
            24,
            "documentation",
            "192.0.2.0/24",
            "RFC 5737",
        ),
        (
            [198, 51, 100, 0],
            24,
            "documentation",
            "198.51.100.0/24",
            "RFC 5737",
        ),
        (
            [203, 0, 113, 0],
            24,
            "documentation",
            "203.0.113.0/24",
            "RFC 5737",
        ),
        (
            [198, 18, 0, 0],
            15,
            "benchmarking",
            "198.18.0.0/15",
            "RFC 2544",
        ),
        (
            [192, 88, 99, 0],
            24,
            "6to4-relay-anycast (deprecated)",
            "192.88.99.0/24",
            "RFC 7526",
        ),
        ([224, 0, 0, 0], 4, "multicast", "224.0.0.0/4", "RFC 5771"),
        ([240, 0, 0, 0], 4, "reserved", "240.0.0.0/4", "RFC 1112"),
    ];
    let mut kinds: Vec<Kind> = table
        .iter()
        .filter(|(network, prefix, ..)| in_v4(a, *network, *prefix))
        .map(|(_, _, name, range, reference)| kind(name, range, reference, ""))
        .collect();
    if kinds.is_empty() {
        kinds.push(kind(
            "global-unicast",
            "0.0.0.0/0",
            "RFC 791",
            "publicly routable",
        ));
    }
    kinds
}

/// IPv6 special-purpose ranges (RFC 6890, IANA registry) and the IPv4
/// address embedded by the transition mechanisms.
pub fn classify_v6(a: Ipv6Addr) -> (Vec<Kind>, Option<Ipv4Addr>) {
    let s = a.segments();
    let low_v4 = Ipv4Addr::from((u32::from(s[6]) << 16) | u32::from(s[7]));
    let mut kinds = Vec::new();
    let mut embedded = None;
    if a.is_unspecified() {
        kinds.push(kind("unspecified", "::/128", "RFC 4291 §2.5.2", ""));
    } else if a.is_loopback() {
        kinds.push(kind("loopback", "::1/128", "RFC 4291 §2.5.3", ""));
    } else if let Some(v4) = a.to_ipv4_mapped() {
        embedded = Some(v4);
        kinds.push(kind(
            "ipv4-mapped",
            "::ffff:0:0/96",
            "RFC 4291 §2.5.5.2",
            format!("IPv4 address {v4} as seen by an AF_INET6 socket"),
        ));
    } else if in_v6(a, [0; 8], 96) {
        embedded = Some(low_v4);
        kinds.push(kind(
            "ipv4-compatible",
            "::/96",
            "RFC 4291 §2.5.5.1",
            format!("deprecated; embeds {low_v4}"),
        ));
    } else if in_v6(a, [0x64, 0xff9b, 0, 0, 0, 0, 0, 0], 96) {
        embedded = Some(low_v4);
        kinds.push(kind(
            "nat64-well-known",
            "64:ff9b::/96",
            "RFC 6052 §2.1",
            format!("NAT64/DNS64 translation of {low_v4}"),
        ));
    } else if in_v6(a, [0x64, 0xff9b, 1, 0, 0, 0, 0, 0], 48) {
        kinds.push(kind("nat64-local-use", "64:ff9b:1::/48", "RFC 8215", ""));
    } else if in_v6(a, [0x2001, 0, 0, 0, 0, 0, 0, 0], 32) {
        let server = Ipv4Addr::from((u32::from(s[2]) << 16) | u32::from(s[3]));
        let client = Ipv4Addr::from(!((u32::from(s[6]) << 16) | u32::from(s[7])));
        let port = !s[5];
        embedded = Some(server);
        kinds.push(kind(
            "teredo",
            "2001::/32",
            "RFC 4380 §4",
            format!("server {server}, client {client}, client port {port}"),
        ));
    } else if in_v6(a, [0x2001, 0x2, 0, 0, 0, 0, 0, 0], 48) {
        kinds.push(kind("benchmarking", "2001:2::/48", "RFC 5180", ""));
    } else if in_v6(a, [0x2001, 0x20, 0, 0, 0, 0, 0, 0], 28) {
        kinds.push(kind("orchid-v2", "2001:20::/28", "RFC 7343", ""));
    } else if in_v6(a, [0x2001, 0xdb8, 0, 0, 0, 0, 0, 0], 32)
        || in_v6(a, [0x3fff, 0, 0, 0, 0, 0, 0, 0], 20)
    {
        let range = if s[0] == 0x2001 {
            "2001:db8::/32"
        } else {
            "3fff::/20"
        };
        let reference = if s[0] == 0x2001 {
            "RFC 3849"
        } else {
            "RFC 9637"
        };
        kinds.push(kind(
            "documentation",
            range,
            reference,
            "never routed; for examples",
        ));
    } else if in_v6(a, [0x2002, 0, 0, 0, 0, 0, 0, 0], 16) {
        let v4 = Ipv4Addr::from((u32::from(s[1]) << 16) | u32::from(s[2]));
        embedded = Some(v4);
        kinds.push(kind(
            "6to4",
            "2002::/16",
            "RFC 3056",
            format!("6to4 site of {v4} (deprecated relays, RFC 7526)"),
        ));
    } else if in_v6(a, [0xfc00, 0, 0, 0, 0, 0, 0, 0], 7) {
        let note = if s[0] & 0x0100 != 0 {
            "locally assigned (fd00::/8)"
        } else {
            "fc00::/8 half, unassigned"
        };
        kinds.push(kind("unique-local", "fc00::/7", "RFC 4193", note));
    } else if in_v6(a, [0xfe80, 0, 0, 0, 0, 0, 0, 0], 10) {
        kinds.push(kind(
            "link-local",
            "fe80::/10",
            "RFC 4291 §2.5.6",
            "needs a zone (%interface) to be used",
        ));
    } else if in_v6(a, [0xfec0, 0, 0, 0, 0, 0, 0, 0], 10) {
        kinds.push(kind("site-local", "fec0::/10", "RFC 3879", "deprecated"));
    } else if a.is_multicast() {
        let scope = match s[0] & 0xf {
            1 => "interface-local",
            2 => "link-local",
            3 => "realm-local",
            4 => "admin-local",
            5 => "site-local",
            8 => "organization-local",
            0xe => "global",
            _ => "reserved",
        };
        let transient = if s[0] & 0x10 != 0 {
            ", transient"
        } else {
            ", well-known"
        };
        kinds.push(kind(
            "multicast",
            "ff00::/8",
            "RFC 4291 §2.7",
            format!("scope {scope}{transient}"),
        ));
    } else if in_v6(a, [0x2000, 0, 0, 0, 0, 0, 0, 0], 3) {
        kinds.push(kind("global-unicast", "2000::/3", "RFC 4291 §2.5.4", ""));
    } else {
        kinds.push(kind(
            "reserved",
            "::/0",
            "RFC 4291 §2.4",
            "not in any assigned range",
        ));
    }
    (kinds, embedded)
}

/// The text block `dualperf addr` prints.
pub fn render(report: &AddressReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "input:        {}", report.input);
    let _ = writeln!(out, "family:       IPv{}", report.family);
    let _ = writeln!(out, "canonical:    {}", report.canonical);
    let _ = writeln!(out, "expanded:     {}", report.expanded);
    if let Some(zone) = &report.zone {
        let _ = writeln!(out, "zone:         {zone}");
    }
    for kind in &report.kinds {
        let note = if kind.note.is_empty() {
            String::new()
        } else {
            format!(": {}", kind.note)
        };
        let _ = writeln!(
            out,
            "kind:         {} ({}, {}){}",
            kind.name, kind.range, kind.reference, note
        );
    }
    if let Some(v4) = report.embedded_ipv4 {
        let _ = writeln!(out, "embedded:     {v4}");
    }
    let _ = writeln!(out, "reverse DNS:  {}", report.reverse_dns);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canonical(text: &str) -> String {
        analyse(text).unwrap().canonical
    }

    fn kind_names(text: &str) -> Vec<String> {
        analyse(text)
            .unwrap()
            .kinds
            .into_iter()
            .map(|k| k.name)
            .collect()
    }

    #[test]
    fn rfc_5952_section_4_examples_print_canonically() {
        // §4.1 leading zeros, §4.2.1 shorten as much as possible, §4.2.2 not
        // one 16-bit 0 field, §4.2.3 longest run then first, §4.3 lowercase.
        assert_eq!(canonical("2001:0db8::0001"), "2001:db8::1");
        assert_eq!(canonical("2001:db8:0:0:0:0:2:1"), "2001:db8::2:1");
        assert_eq!(canonical("2001:db8::0:1"), "2001:db8::1");
        assert_eq!(canonical("2001:db8:0:1:1:1:1:1"), "2001:db8:0:1:1:1:1:1");
        assert_eq!(canonical("2001:0:0:1:0:0:0:1"), "2001:0:0:1::1");
        assert_eq!(canonical("2001:db8:0:0:1:0:0:1"), "2001:db8::1:0:0:1");
        assert_eq!(canonical("2001:DB8::AAAA"), "2001:db8::aaaa");
        assert_eq!(canonical("0:0:0:0:0:0:0:0"), "::");
        assert_eq!(canonical("0:0:0:0:0:0:0:1"), "::1");
        assert_eq!(canonical("2001:db8:1:2:3:4:5:0"), "2001:db8:1:2:3:4:5:0");
        assert_eq!(canonical("1:0:0:0:0:0:0:0"), "1::");
    }

    #[test]
    fn ipv4_mapped_addresses_use_mixed_notation_per_rfc_5952_section_5() {
        let report = analyse("0:0:0:0:0:ffff:c000:0201").unwrap();
        assert_eq!(report.canonical, "::ffff:192.0.2.1");
        assert_eq!(report.embedded_ipv4, Some(Ipv4Addr::new(192, 0, 2, 1)));
        assert_eq!(kind_names("::ffff:1.2.3.4"), ["ipv4-mapped"]);
    }

    #[test]
    fn transition_prefixes_reveal_their_embedded_ipv4() {
        let nat64 = analyse("64:ff9b::192.0.2.1").unwrap();
        assert_eq!(nat64.canonical, "64:ff9b::c000:201");
        assert_eq!(nat64.kinds[0].name, "nat64-well-known");
        assert_eq!(nat64.embedded_ipv4, Some(Ipv4Addr::new(192, 0, 2, 1)));
        let six_to_four = analyse("2002:c000:0204::1").unwrap();
        assert_eq!(six_to_four.kinds[0].name, "6to4");
        assert_eq!(six_to_four.embedded_ipv4, Some(Ipv4Addr::new(192, 0, 2, 4)));
        // RFC 4380 §4 example: server 65.54.227.120, client 192.0.2.45 port 40000.
        let teredo = analyse("2001:0000:4136:e378:8000:63bf:3fff:fdd2").unwrap();
        assert_eq!(teredo.kinds[0].name, "teredo");
        assert_eq!(teredo.embedded_ipv4, Some(Ipv4Addr::new(65, 54, 227, 120)));
        assert!(
            teredo.kinds[0]
                .note
                .contains("client 192.0.2.45, client port 40000"),
            "{}",
            teredo.kinds[0].note
        );
        assert_eq!(kind_names("::1.2.3.4"), ["ipv4-compatible"]);
    }

    #[test]
    fn scopes_and_special_ranges_are_named() {
        assert_eq!(kind_names("fd12:3456::1"), ["unique-local"]);
        assert_eq!(kind_names("2001:db8::1"), ["documentation"]);
        assert_eq!(kind_names("2606:4700::1111"), ["global-unicast"]);
        assert_eq!(kind_names("::"), ["unspecified"]);
        let multicast = analyse("ff02::1").unwrap();
        assert_eq!(multicast.kinds[0].note, "scope link-local, well-known");
        let zoned = analyse("fe80::1%eth0").unwrap();
        assert_eq!(zoned.canonical, "fe80::1%eth0");
        assert_eq!(zoned.zone.as_deref(), Some("eth0"));
        assert_eq!(zoned.kinds[0].name, "link-local");
        assert_eq!(analyse("[::1]").unwrap().canonical, "::1");
    }

    #[test]
    fn ipv4_ranges_are_named() {
        assert_eq!(kind_names("10.1.2.3"), ["private"]);
        assert_eq!(kind_names("100.64.0.1"), ["shared-cgn"]);
        assert_eq!(kind_names("169.254.1.1"), ["link-local"]);
        assert_eq!(kind_names("198.51.100.7"), ["documentation"]);
        assert_eq!(kind_names("127.0.0.1"), ["loopback"]);
        assert_eq!(kind_names("0.0.0.0"), ["unspecified", "this-network"]);
        assert_eq!(kind_names("8.8.8.8"), ["global-unicast"]);
    }

    #[test]
    fn reverse_names_follow_in_addr_and_ip6_arpa() {
        assert_eq!(
            analyse("192.0.2.1").unwrap().reverse_dns,
            "1.2.0.192.in-addr.arpa."
        );
        // RFC 3596 §2.5 example.
        assert_eq!(
            analyse("4321:0:1:2:3:4:567:89ab").unwrap().reverse_dns,
            "b.a.9.8.7.6.5.0.4.0.0.0.3.0.0.0.2.0.0.0.1.0.0.0.0.0.0.0.1.2.3.4.ip6.arpa."
        );
    }

    #[test]
    fn garbage_is_rejected_with_the_input_named() {
        for bad in [
            "1.2.3",
            "2001:db8::1::2",
            "fe80::1%",
            "10.0.0.1%eth0",
            "hello",
        ] {
            let error = analyse(bad).unwrap_err();
            assert!(error.to_string().contains(bad), "{error}");
        }
    }
}
