//! An IPv4 address handled as its four parts, away from any address API
//! (issue 28, round 7): the last byte read as `ip[3]`, the four bytes spelled
//! out as arguments (`ip[0], ip[1], ip[2], ip[3]`), a function that takes an
//! address as four `int`/`byte` parameters (`setSourceIP(int a, int b, int
//! c, int d)`), and dotted-quad format strings (`"%d.%d.%d.%d"`,
//! `"{}.{}.{}.{}"`). An IPv6 address has 16 bytes (RFC 8200 §3) and is
//! written in hexadecimal groups (RFC 5952), so each of these assumes IPv4.

use super::words::name_words;
use super::{is_address_name, Matcher};
use crate::language::Language;
use crate::rule::Severity;
use crate::token::TokenKind;

/// Parameter types of one address part: a byte or a small integer.
const PART_TYPES: &[&str] = &[
    "int", "byte", "short", "char", "u8", "u16", "u32", "i32", "uint8", "uint", "uint16", "uint32",
    "int32", "number",
];

/// Format strings that print four numbers joined by dots: an IPv4 address.
const DOTTED_FORMATS: &[&str] = &[
    "%d.%d.%d.%d",
    "%u.%u.%u.%u",
    "%i.%i.%i.%i",
    "%hhu.%hhu.%hhu.%hhu",
    "{}.{}.{}.{}",
    "{0}.{1}.{2}.{3}",
];

impl<'s> Matcher<'_, 's> {
    /// `ip[3]` (the last byte of a 4-byte address) and `ip[0], ip[1], ip[2],
    /// ip[3]` (its four bytes as arguments) on a buffer named for an
    /// address, or passed to a function named for one. The number at `i` is
    /// the index `3`.
    pub(super) fn check_address_parts(&mut self, i: usize) {
        let language = self.context.language;
        if !matches!(
            language,
            Language::C
                | Language::Cpp
                | Language::Go
                | Language::Java
                | Language::JavaScript
                | Language::TypeScript
                | Language::Rust
        ) || self.tokens[i].text != "3"
            || i < 2
            || !self.previous_is(i, "[")
            || !self.next_is(i, "]")
            || self.tokens[i - 2].kind != TokenKind::Ident
        {
            return;
        }
        let buffer = self.tokens[i - 2].text;
        let line = self.tokens[i].line;
        if self.has_match("address-byte-layout", line)
            || self.in_dispatch(i)
            || self.length_tested(buffer, i)
            || self
                .enclosing_function(i)
                .is_some_and(|f| super::uses::ipv4_named(f).is_some())
        {
            return;
        }
        // `b[0], b[1], b[2], b[3]`: the four bytes, each `name [ k ]`, five
        // tokens apart with the commas.
        let spelled_out = i >= 17
            && (0..3).all(|k| {
                let start = i - 2 - 5 * (3 - k);
                self.tokens[start].text == buffer
                    && self.text_at(start + 1) == "["
                    && self.text_at(start + 2) == k.to_string()
                    && self.text_at(start + 3) == "]"
                    && self.text_at(start + 4) == ","
            });
        if spelled_out {
            let first = i - 17;
            let callee = self.enclosing_open(first).map_or("", |o| self.callee_at(o));
            let to_address = addressed(buffer)
                || is_address_name(callee) && !callee.contains('6')
                || matches!(callee, "IPv4" | "getByAddress" | "new" | "from")
                    && self.tokens[self.lines(line, line)]
                        .iter()
                        .any(|t| matches!(t.text, "IPv4" | "Ipv4Addr" | "InetAddress"));
            if to_address {
                self.push("address-byte-layout", Severity::Warning, first, format!("`{buffer}[0]` .. `{buffer}[3]` are the four bytes of an IPv4 address; an IPv6 address has 16: pass the whole address (its length says the family)"));
            }
            return;
        }
        // A single `ip[3]`, not one of a longer run (`mac[3], mac[4]`).
        let fourth_of_four = self.text_at(i + 2) == "," && self.text_at(i + 3) == buffer;
        if addressed(buffer) && !fourth_of_four {
            self.push("address-byte-layout", Severity::Warning, i - 2, format!("`{buffer}[3]` takes the last byte of a 4-byte IPv4 address; an IPv6 address has 16 bytes: use `{buffer}[{buffer}.length - 1]` (or its length) instead"));
        }
    }

    /// True if the length of `buffer` is compared with 4 within the 40
    /// lines before token `i` (`if (ip.length != 4) throw ..`, `len(ip) ==
    /// net.IPv4len`, `ip.len() == 4`): the code after it is the IPv4 side of
    /// a test on the address's length.
    fn length_tested(&self, buffer: &str, i: usize) -> bool {
        let line = self.tokens[i].line;
        let range = self.lines(line.saturating_sub(40), line);
        let tokens = &self.tokens[range.start..i.min(range.end)];
        let four = |t: &crate::token::Token<'_>| matches!(t.text, "4" | "IPv4len");
        let compare = |t: &crate::token::Token<'_>| matches!(t.text, "==" | "!=" | "===" | "!==");
        (0..tokens.len()).any(|k| {
            let w = &tokens[k..];
            let at = |n: usize| w.get(n);
            // `ip.length != 4`
            let field = w[0].text == buffer
                && at(1).is_some_and(|t| t.is_punct("."))
                && at(2).is_some_and(|t| t.text == "length")
                && at(3).is_some_and(compare)
                && at(4).is_some_and(four);
            // `ip.len() == 4`
            let method = w[0].text == buffer
                && at(1).is_some_and(|t| t.is_punct("."))
                && at(2).is_some_and(|t| t.text == "len")
                && at(3).is_some_and(|t| t.is_punct("("))
                && at(4).is_some_and(|t| t.is_punct(")"))
                && at(5).is_some_and(compare)
                && at(6).is_some_and(four);
            // `len(ip) == net.IPv4len`
            let call = w[0].text == "len"
                && at(1).is_some_and(|t| t.is_punct("("))
                && at(2).is_some_and(|t| t.text == buffer)
                && at(3).is_some_and(|t| t.is_punct(")"))
                && at(4).is_some_and(compare)
                && (at(5).is_some_and(four)
                    || at(5).is_some_and(|t| t.text == "net") && at(7).is_some_and(four));
            field || method || call
        })
    }

    /// A 6-byte buffer whose bytes 4 and 5 receive a 16-bit value: an IPv4
    /// address and its port, the "compact" peer of BitTorrent trackers and
    /// DHTs (BEP 23, BEP 5; IPv6 peers are 18 bytes, BEP 7). The number at
    /// `i` is the 6 of the allocation (`make([]byte, 6)`, `new byte[6]`,
    /// `[u8; 6]`); the buffer's `[4] = port >> 8` within 60 lines is the
    /// evidence, and both are reported.
    pub(super) fn check_compact_peer(&mut self, i: usize) {
        if self.tokens[i].text != "6" || self.context.language == Language::Python {
            return;
        }
        let callee = self.enclosing_open(i).map_or("", |o| self.callee_at(o));
        let allocation = matches!(
            callee,
            "make" | "allocate" | "allocateDirect" | "alloc" | "allocUnsafe" | "Buffer" | "malloc"
        ) || self.is_array_creation(i)
            // Rust's `[0u8; 6]`, `[0; 6]`
            || i >= 3
                && self.previous_is(i, ";")
                && self.tokens[i - 2].kind == TokenKind::Number
                && self.tokens[i - 3].is_punct("[");
        if !allocation {
            return;
        }
        // The buffer: the name assigned on this line (`a := make(..)`, `byte[] a = ..`).
        let line = self.tokens[i].line;
        let here = self.lines(line, line);
        // Rust: `let mut out: [u8; 6] = ..` names it after `let`.
        let bound = (here.start..i)
            .find(|&j| self.tokens[j].is_ident("let"))
            .map(|j| {
                if self.text_at(j + 1) == "mut" {
                    j + 2
                } else {
                    j + 1
                }
            });
        let assigned = (here.start..i)
            .find(|&j| matches!(self.tokens[j].text, "=" | ":="))
            .and_then(|j| j.checked_sub(1));
        let Some(buffer) = bound
            .or(assigned)
            .map(|j| &self.tokens[j])
            .filter(|t| t.kind == TokenKind::Ident)
            .map(|t| t.text)
        else {
            return;
        };
        let after = self.lines(line + 1, line + 60);
        let port_write = (after.start..after.end.saturating_sub(5)).find(|&j| {
            self.tokens[j].text == buffer
                && self.text_at(j + 1) == "["
                && self.text_at(j + 2) == "4"
                && self.text_at(j + 3) == "]"
                && self.text_at(j + 4) == "="
                && {
                    let statement = self.lines(self.tokens[j].line, self.tokens[j].line);
                    self.tokens[statement]
                        .windows(2)
                        .any(|w| w[0].is_punct(">>") && w[1].text == "8")
                }
        });
        let Some(write) = port_write else { return };
        if self.has_match("address-byte-layout", line) {
            return;
        }
        self.push("address-byte-layout", Severity::Warning, i, format!("`{buffer}` is 6 bytes with a port written at bytes 4..5: an IPv4 address and port (compact peer); an IPv6 peer is 18 bytes (16 + 2)"));
        self.push("address-byte-layout", Severity::Warning, write, format!("`{buffer}[4]` takes the port's high byte after a 4-byte IPv4 address; with IPv6 the port starts at byte 16"));
    }

    /// A function that takes an IPv4 address as four parts: `void
    /// setSourceIP(int a, int b, int c, int d)` (Java, C, C++), `func
    /// setIP(a, b, c, d byte)` (Go), `fn set_ip(a: u8, b: u8, c: u8, d: u8)`
    /// (Rust). Declarations only (the `(` is followed by a body or `;`).
    pub(super) fn check_four_part_parameters(&mut self, i: usize) {
        let name = self.tokens[i].text;
        if !self.next_is(i, "(")
            || !is_address_name(name)
            || name.contains('6')
            || self.has_match("address-byte-layout", self.tokens[i].line)
        {
            return;
        }
        let Some(args) = self.call_arguments(i + 1) else {
            return;
        };
        if args.len() != 4 {
            return;
        }
        let close = args[3].end;
        let typescript = self.context.language == Language::TypeScript;
        let declared = matches!(self.text_at(close + 1), "{" | ";" | "throws" | "->")
            || typescript && self.text_at(close + 1) == ":"
            || self
                .tokens
                .get(close + 1)
                .is_some_and(|t| t.kind == TokenKind::Ident && self.text_at(close + 2) == "{");
        let typed = |range: &std::ops::Range<usize>| {
            let tokens = &self.tokens[range.clone()];
            match tokens {
                // `int a`, `byte a`, `unsigned char a`
                [.., ty, name] => {
                    name.kind == TokenKind::Ident && PART_TYPES.contains(&ty.text)
                        || tokens.len() == 3
                            && tokens[1].is_punct(":")
                            && PART_TYPES.contains(&tokens[2].text)
                }
                _ => false,
            }
        };
        // Go: `a, b, c, d byte` types only the last name, after it.
        let go_grouped = self.context.language == Language::Go
            && args[..3]
                .iter()
                .all(|a| a.len() == 1 && self.tokens[a.start].kind == TokenKind::Ident)
            && args[3].len() == 2
            && PART_TYPES.contains(&self.tokens[args[3].start + 1].text);
        let all_typed = args.iter().all(typed);
        if declared && (all_typed || go_grouped) {
            self.push("address-byte-layout", Severity::Warning, i, format!("`{name}` takes an address as four parts (an IPv4 dotted quad); an IPv6 address has 16 bytes: take a byte array or an address type"));
        }
    }

    /// `"%d.%d.%d.%d"` and `"{}.{}.{}.{}"`: text made from four numbers
    /// joined by dots, an IPv4 address only.
    pub(super) fn check_dotted_format(&mut self, i: usize) {
        let content = self.tokens[i].string_content();
        if !content.contains("}.{") && !content.contains(".%")
            || !DOTTED_FORMATS.iter().any(|f| content.contains(f))
            || self.has_match("dotted-quad-text", self.tokens[i].line)
            || self.has_match("address-buffer-size", self.tokens[i].line)
        {
            return;
        }
        self.push("dotted-quad-text", Severity::Warning, i, "format string prints an address as four dotted numbers (IPv4 only); print the address with its own formatter (inet_ntop, net.IP.String, InetAddress.getHostAddress) so IPv6 works".into());
    }
}

/// True if a buffer name is one address (`ip`, `addr`, `rawIp`,
/// `ipBytes`, `src_addr`), not a list of them (`ips`, `addresses`).
fn addressed(name: &str) -> bool {
    if !is_address_name(name) || name.contains('6') {
        return false;
    }
    let words = name_words(name);
    words.last().is_some_and(|w| {
        matches!(
            w.as_str(),
            "ip" | "ipv4" | "addr" | "address" | "ipaddr" | "bytes" | "octets" | "raw" | "buf"
        )
    }) && !words.iter().any(|w| w == "host")
}

#[cfg(test)]
mod tests {
    use super::addressed;

    #[test]
    fn one_address_is_told_from_a_list() {
        for name in ["ip", "addr", "rawIp", "ipBytes", "src_addr", "ipAddress"] {
            assert!(addressed(name), "{name}");
        }
        for name in [
            "ips",
            "addresses",
            "hosts",
            "ip6",
            "ipv6Addr",
            "parts",
            "hostBytes",
        ] {
            assert!(!addressed(name), "{name}");
        }
    }
}
