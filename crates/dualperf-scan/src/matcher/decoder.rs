//! A packet decoder that accepts IPv4 only, seen at its two gates:
//!
//! - the IP version field compared with 4 (`getIpVersion(p) == 4`,
//!   `ip_version == 4`, `iph.version == 4`) in a file that never compares a
//!   version with 6 and has no IPv6 path: an IPv6 packet (version 6, RFC
//!   8200 §3) is dropped or misread;
//! - the EtherType compared with IPv4's 0x0800 (RFC 894), as a number or a
//!   constant the file sets to it (`etherType == ETHERNET_TYPE_IP`), in a
//!   file that never names IPv6's 0x86DD (RFC 2464 §3).
//!
//! Both are reported as `ipv4-header-field`: the header fields that make a
//! decoder IPv4-only.

use super::words::name_words;
use super::{HashSet, Matcher};
use crate::rule::Severity;
use crate::token::{Token, TokenKind};

/// IPv4's EtherType, as written in sources (RFC 894).
fn is_ipv4_ethertype(text: &str) -> bool {
    matches!(text, "0x800" | "0x0800" | "0X800" | "0X0800" | "ETH_P_IP")
}

/// IPv6's EtherType (RFC 2464), or a name for it.
fn is_ipv6_ethertype(t: &Token<'_>) -> bool {
    t.text.eq_ignore_ascii_case("0x86dd") || t.text == "ETH_P_IPV6" || t.text == "34525"
}

/// True if a name says it holds the IP version: its words hold `version`
/// next to `ip` or `internet` (`getInternetProtocolHeaderVersion`,
/// `ip_version`, `ipVer`).
fn is_ip_version_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    if !lower.contains("ver") {
        return false;
    }
    let words = name_words(name);
    let version = words
        .iter()
        .any(|w| matches!(w.as_str(), "version" | "ver" | "ipver"));
    let ip = words
        .iter()
        .any(|w| matches!(w.as_str(), "ip" | "internet" | "ipver" | "iph"));
    version && ip
}

impl Matcher<'_, '_> {
    /// After every token was matched: the IPv4-only gates of a packet
    /// decoder, in a file with no IPv6 path.
    pub(super) fn check_decoder_gates(&mut self) {
        if self.has_ipv6_path || self.tokens.iter().any(is_ipv6_ethertype) {
            return;
        }
        self.check_ethertype_gate();
        self.check_version_gate();
        self.check_header_length_helpers();
    }

    /// The IHL turned into bytes, `(b[0] & 0xF) * 4` (RFC 791: the header
    /// length in 32-bit words; an IPv6 header is 40 bytes, RFC 8200), and
    /// every call of a function of this file that computes it
    /// (`ipHeaderLen = getInternetProtocolHeaderLength(p, start)`).
    fn check_header_length_helpers(&mut self) {
        let mut reads = Vec::new();
        for j in 2..self.tokens.len() {
            let t = &self.tokens[j];
            let scaled = t.text == "4" && self.previous_is(j, "*")
                || t.text == "2" && self.previous_is(j, "<<");
            if t.kind != TokenKind::Number || !scaled || !self.tokens[j - 2].is_punct(")") {
                continue;
            }
            let Some(open) = self.matching_open(j - 2) else {
                continue;
            };
            let group = &self.tokens[open..j - 2];
            let masked = group.windows(2).any(|w| {
                w[0].is_punct("&")
                    && matches!(
                        w[1].text.to_ascii_lowercase().as_str(),
                        "0xf" | "0x0f" | "15"
                    )
            });
            // The IHL is the low nibble; a high nibble (`(b[12] >> 4) & 0xF`)
            // is TCP's data offset (RFC 9293), also counted in 32-bit words.
            let high_nibble = group.iter().any(|t| t.is_punct(">>"));
            if masked && !high_nibble {
                reads.push(j);
            }
        }
        let mut helpers = Vec::new();
        for &j in &reads {
            if !self.has_match("address-byte-layout", self.tokens[j].line) {
                self.push("address-byte-layout", Severity::Warning, j, "the IHL (IPv4 header length, in 32-bit words) turned into bytes: IPv4 headers only; an IPv6 header is 40 bytes with extension headers (RFC 8200)".into());
            }
            if let Some(owner) = self.owning_function(j) {
                helpers.push((owner, self.tokens[owner].text));
            }
        }
        if helpers.is_empty() {
            return;
        }
        let mut calls = Vec::new();
        for j in 1..self.tokens.len() {
            let t = &self.tokens[j];
            if t.kind == TokenKind::Ident
                && self.next_is(j, "(")
                && helpers
                    .iter()
                    .any(|&(owner, name)| name == t.text && owner != j)
                && !self.declared_or_created(j)
            {
                calls.push(j);
            }
        }
        for j in calls {
            let name = self.tokens[j].text;
            self.push("address-byte-layout", Severity::Warning, j, format!("`{name}` computes the IPv4 header length from the IHL: an IPv6 packet's header is 40 bytes plus extension headers (RFC 8200)"));
        }
    }

    /// `etherType == 0x0800`, `etherType == ETHERNET_TYPE_IP` (set to 0x800).
    fn check_ethertype_gate(&mut self) {
        let constants: HashSet<&str> = (1..self.tokens.len())
            .filter(|&i| is_ipv4_ethertype(self.tokens[i].text) && self.previous_is(i, "="))
            .filter_map(|i| self.assigned_name(i))
            .map(|name| self.tokens[name].text)
            .collect();
        let mut gates = Vec::new();
        for j in 1..self.tokens.len() {
            let t = &self.tokens[j];
            let ipv4 = is_ipv4_ethertype(t.text) || constants.contains(t.text);
            let compared = self.previous_is(j, "==")
                || self.previous_is(j, "!=")
                || self.next_is(j, "==")
                || self.next_is(j, "!=")
                || self.previous_is(j, "case");
            if ipv4 && compared {
                gates.push(j);
            }
        }
        for j in gates {
            if self.has_match("ipv4-header-field", self.tokens[j].line) {
                continue;
            }
            let text = self.tokens[j].text;
            self.push("ipv4-header-field", Severity::Warning, j, format!("the EtherType compared with IPv4's (`{text}`, 0x0800, RFC 894) and never with IPv6's 0x86DD (RFC 2464) in this file: IPv6 frames are skipped; decode both"));
        }
    }

    /// `getIpVersion(p) == 4`, `ipVersion == 4`, `iph.version == 4`, with no
    /// comparison of a version with 6 in the file.
    fn check_version_gate(&mut self) {
        let mut gates = Vec::new();
        let mut six = false;
        for j in 2..self.tokens.len() {
            let t = &self.tokens[j];
            if t.kind != TokenKind::Number || !matches!(t.text, "4" | "6") {
                continue;
            }
            if !(self.previous_is(j, "==") || self.previous_is(j, "!=")) {
                continue;
            }
            let subject = self.compared_name(j - 2);
            if !subject.is_some_and(is_ip_version_name) {
                continue;
            }
            if t.text == "6" {
                six = true;
            } else {
                gates.push(j);
            }
        }
        if six {
            return;
        }
        for j in gates {
            if self.has_match("ipv4-header-field", self.tokens[j].line) {
                continue;
            }
            self.push("ipv4-header-field", Severity::Warning, j, "the IP version compared with 4 and never with 6 in this file: IPv6 packets (version 6, RFC 8200) are not decoded".into());
        }
    }

    /// True if the name at `j` follows `new` or a type (`int f(`), not a
    /// call: `return f(…)` is a call.
    fn declared_or_created(&self, j: usize) -> bool {
        let before = &self.tokens[j - 1];
        before.kind == TokenKind::Ident && !before.is_ident("return")
    }

    /// The name compared at `end` (the token before `==`): a variable, a
    /// field (`iph.version` says `iph version`), or a call's function name.
    fn compared_name(&self, end: usize) -> Option<&str> {
        let t = &self.tokens[end];
        if t.kind == TokenKind::Ident {
            // `iph.version`, `ip->version`: the object names the IP header.
            if end >= 2 && (self.previous_is(end, ".") || self.previous_is(end, "->")) {
                let object = self.tokens[end - 2].text;
                if t.text.eq_ignore_ascii_case("version")
                    && name_words(object)
                        .iter()
                        .any(|w| matches!(w.as_str(), "ip" | "iph"))
                {
                    return Some("ip_version");
                }
            }
            return Some(t.text);
        }
        if t.is_punct(")") {
            let open = self.matching_open(end)?;
            let callee = self.tokens.get(open.checked_sub(1)?)?;
            return (callee.kind == TokenKind::Ident).then_some(callee.text);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::is_ip_version_name;

    #[test]
    fn ip_version_names_are_told_from_other_versions() {
        for name in [
            "getInternetProtocolHeaderVersion",
            "ip_version",
            "ipVersion",
            "ipVer",
        ] {
            assert!(is_ip_version_name(name), "{name}");
        }
        for name in [
            "version",
            "protocolVersion",
            "apiVersion",
            "tlsVersion",
            "ipAddress",
        ] {
            assert!(!is_ip_version_name(name), "{name}");
        }
    }
}
