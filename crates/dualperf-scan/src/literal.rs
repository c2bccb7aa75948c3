//! Finding IPv4 address literals in text (string contents and config lines).

use std::net::Ipv4Addr;
use std::sync::LazyLock;

use regex::Regex;

static DOTTED_QUAD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}").expect("the dotted-quad pattern is valid")
});

/// One IPv4 literal found in a piece of text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ipv4Literal {
    /// Byte offset of the literal in the text.
    pub offset: usize,
    /// The address.
    pub address: Ipv4Addr,
}

/// Every dotted quad in `text` that parses as an IPv4 address and is not part
/// of a longer dotted number (a version such as `1.2.3.4.5`) or a word
/// (`v1.2.3.4`, `x1.2.3.4`).
pub fn find_ipv4_literals(text: &str) -> Vec<Ipv4Literal> {
    let bytes = text.as_bytes();
    DOTTED_QUAD
        .find_iter(text)
        .filter(|m| {
            let before = m.start().checked_sub(1).map(|i| bytes[i]);
            let after = bytes.get(m.end()).copied();
            let glued_before =
                before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_');
            let glued_after = after.is_some_and(|b| b.is_ascii_digit() || b == b'_')
                || (after == Some(b'.') && bytes.get(m.end() + 1).is_some_and(u8::is_ascii_digit));
            !glued_before && !glued_after
        })
        .filter_map(|m| {
            let address = m.as_str().parse::<Ipv4Addr>().ok()?;
            Some(Ipv4Literal {
                offset: m.start(),
                address,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_and_host_port_literals_are_found() {
        let found = find_ipv4_literals("connect to 127.0.0.1:8080 or 0.0.0.0");
        let addresses: Vec<String> = found.iter().map(|l| l.address.to_string()).collect();
        assert_eq!(addresses, ["127.0.0.1", "0.0.0.0"]);
        assert_eq!(found[0].offset, 11);
    }

    #[test]
    fn versions_and_out_of_range_quads_are_not_addresses() {
        assert!(find_ipv4_literals("version 1.2.3.4.5").is_empty());
        assert!(find_ipv4_literals("v1.2.3.4").is_empty());
        assert!(find_ipv4_literals("300.1.1.1").is_empty());
        assert!(find_ipv4_literals("1.2.3").is_empty());
    }

    #[test]
    fn a_sentence_ending_after_an_address_still_counts() {
        assert_eq!(find_ipv4_literals("bind to 10.0.0.1.").len(), 1);
    }
}
