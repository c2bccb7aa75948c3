//! IPv4-only header fields on code that stands for any IP packet: the
//! header checksum and the Don't Fragment flag (RFC 791 §3.1). An IPv6
//! header (RFC 8200 §3) has neither: no header checksum at all, and
//! fragmentation only by the source, in a Fragment extension header (§4.5).
//! A generic `IPPacket` type that offers `getIpChecksum()` or
//! `isDontFragmentSet()` has been written for IPv4 headers only.

use super::uses::ipv4_named;
use super::words::name_words;
use super::Matcher;
use crate::rule::Severity;

/// Which IPv4-only header field a name is about, if any: its words hold
/// `ip checksum`, `header checksum`, `dont fragment` in a row, or it is
/// the BSD `struct ip` field `ip_sum`.
fn ipv4_header_field(name: &str) -> Option<&'static str> {
    if name == "ip_sum" {
        return Some("the header checksum");
    }
    // Most identifiers are rejected here, without allocating.
    let has = |needle: &[u8]| {
        name.as_bytes()
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle))
    };
    if name.len() < 10 || !(has(b"checksum") || has(b"fragment")) {
        return None;
    }
    let words = name_words(name);
    words
        .windows(2)
        .find_map(|pair| match (pair[0].as_str(), pair[1].as_str()) {
            ("ip" | "header", "checksum") => Some("the header checksum"),
            ("dont" | "don", "fragment") => Some("the Don't Fragment flag"),
            _ => None,
        })
}

impl Matcher<'_, '_> {
    /// A name for an IPv4-only header field in a file that neither handles
    /// IPv6 nor names IPv4 (a class named for IPv4 may have them): reported
    /// once per line.
    pub(super) fn check_ipv4_header_field(&mut self, i: usize) {
        let name = self.tokens[i].text;
        let Some(field) = ipv4_header_field(name) else {
            return;
        };
        let line = self.tokens[i].line;
        if self.has_ipv6_path
            || self.has_match("ipv4-header-field", line)
            || self.idents.iter().any(|n| ipv4_named(n).is_some())
        {
            return;
        }
        self.push("ipv4-header-field", Severity::Warning, i, format!("`{name}` is {field}, an IPv4 header field: IPv6 headers have none (RFC 8200); keep it in the IPv4 packet type and give the IPv6 type its own fields"));
    }
}

#[cfg(test)]
mod tests {
    use super::ipv4_header_field;

    #[test]
    fn ipv4_header_fields_are_told_from_other_checksums() {
        for name in [
            "getIpChecksum",
            "verifyIpChecksum",
            "ip_checksum",
            "headerChecksum",
            "isDontFragmentSet",
            "DONT_FRAGMENT",
            "ip_sum",
        ] {
            assert!(ipv4_header_field(name).is_some(), "{name}");
        }
        for name in [
            "checksum",
            "udpChecksum",
            "reCalculateChecksum",
            "isMoreFragmentsSet",
            "fragmentOffset",
            "skipChecksum",
        ] {
            assert!(ipv4_header_field(name).is_none(), "{name}");
        }
    }
}
