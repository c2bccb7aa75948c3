//! Byte layouts that assume a 4-byte address (issue 28): an address, or an
//! address and its port, written into or read from a fixed 4-, 6- or 8-byte
//! buffer, slice or offset (`ByteBuffer.allocate(8)`, `new byte[4]`,
//! `put(addr.getAddress(), 0, 4)`, `copy(buf[:4], ip)`, `[u8; 4]`), IPv4
//! header offsets (`data[12:16]`, the IHL, `buf[0] >> 4 != 4`), and Rust's
//! `V4`-only variants (`SocketAddr::V4` matched without `V6`, `new_v4()`,
//! `is_ipv4()` filters).
//!
//! The OpenH323 port (Bouras et al., §7) found these the costliest part of a
//! port because no tool reported them: the 4 is a bare number, and only its
//! neighbours say it is an address length. The checks here are that cheap
//! data flow: a size of 4, 6 or 8 counts when the statement names an address
//! (`hostHolder`, `bornHost`, `ip`), or, for a buffer being allocated, when
//! an address API (`getAddress()`, `To4()`, `octets()`, `sin_addr`) is used
//! within three lines, where the buffer later receives the address.

use super::HashSet;

use super::{is_address_name, Matcher};
use crate::language::Language;
use crate::rule::Severity;
use crate::token::TokenKind;

/// Address APIs whose result is the address's bytes or value: a fixed size
/// next to one of them is an address length.
const ADDRESS_APIS: &[&str] = &[
    "getAddress",
    "getHostAddress",
    "InetSocketAddress",
    "Inet4Address",
    "To4",
    "octets",
    "s_addr",
    "sin_addr",
    "SocketAddrV4",
    "Ipv4Addr",
    "getIP",
    "IP",
    "IPAddr",
    "getStoreHostBytes",
    "getBornHostBytes",
];

/// Functions that allocate a buffer of the size they are given.
const ALLOCATORS: &[&str] = &[
    "allocate",
    "allocateDirect",
    "make",
    "alloc",
    "allocUnsafe",
    "with_capacity",
    "Buffer",
];

/// Calls whose small-number arguments are families, option lengths or
/// counts, not address layouts (`lookup(host, 4, cb)`, `setsockopt(.., 4)`).
const NOT_LAYOUT_CALLS: &[&str] = &[
    "lookup",
    "resolve",
    "setsockopt",
    "getsockopt",
    "socket",
    "isIP",
    "split",
    "splitn",
    "SplitN",
];

/// Calls that position or copy within a byte buffer: a whole-number
/// argument of one within three lines of an address API is an offset or
/// length of the address.
const BUFFER_CALLS: &[&str] = &[
    "position",
    "put",
    "get",
    "limit",
    "arraycopy",
    "copyOfRange",
    "slice",
    "writeUInt32BE",
    "readUInt32BE",
    "copy_from_slice",
];

/// The lines whose comment names a host or address field (`// BORNHOST`,
/// `/* store host address */`), read before comments are dropped.
pub(super) fn address_comment_lines(tokens: &[crate::token::Token<'_>]) -> HashSet<usize> {
    tokens
        .iter()
        .filter(|t| t.kind == TokenKind::Comment && t.line == t.end_line)
        .filter(|t| {
            let upper = t.text.to_ascii_uppercase();
            ["HOST", "ADDR", " IP", "IPV4"]
                .iter()
                .any(|w| upper.contains(w))
                && !upper.contains("IPV6")
        })
        .map(|t| t.line)
        .collect()
}

/// Languages whose byte layouts this module judges (C and C++ have their own
/// rules: `four-byte-copy`, `address-buffer-size`, `s-addr-integer`).
fn judged(language: Language) -> bool {
    matches!(
        language,
        Language::Java
            | Language::Go
            | Language::Rust
            | Language::JavaScript
            | Language::TypeScript
    )
}

impl<'s> Matcher<'_, 's> {
    /// A literal 4, 6 or 8 used as an address length: a call argument or
    /// allocation size in a statement that names an address, a buffer
    /// allocated next to an address API, or a 4-byte slice of an address.
    pub(super) fn check_layout_number(&mut self, i: usize) {
        let language = self.context.language;
        let text = self.tokens[i].text;
        if !judged(language) && !language.is_c_family() {
            return;
        }
        if self.check_header_offsets(i) || !judged(language) {
            return;
        }
        if !matches!(text, "4" | "6" | "8")
            || self.has_match("address-byte-layout", self.tokens[i].line)
        {
            return;
        }
        let line = self.tokens[i].line;
        // Go has no `;`: its statement is the line.
        let statement = if language == Language::Go {
            self.lines(line, line)
        } else {
            self.statement(i)
        };
        let names_address = self.tokens[statement.clone()].iter().any(|t| {
            t.kind == TokenKind::Ident
                && (is_address_name(t.text) && !names_packet(t.text)
                    || ADDRESS_APIS.contains(&t.text))
                && !t.text.contains('6')
        });
        let api_near = || {
            self.tokens[self.lines(line.saturating_sub(3), line + 3)]
                .iter()
                .any(|t| {
                    t.kind == TokenKind::Ident
                        && (ADDRESS_APIS.contains(&t.text)
                            || is_address_name(t.text) && !names_packet(t.text))
                        && !t.text.contains('6')
                })
        };
        let open = self.enclosing_open(i);
        let callee = open.map_or("", |o| self.callee_at(o));
        let whole_argument = (self.previous_is(i, "(") || self.previous_is(i, ","))
            && (self.next_is(i, ")") || self.next_is(i, ","));
        // `allocate(ip.length + 4)`: sized from the address itself.
        let sized_from_address = open.is_some_and(|o| {
            self.call_arguments(o).is_some_and(|args| {
                args.iter().flat_map(|a| &self.tokens[a.clone()]).any(|t| {
                    t.kind == TokenKind::Ident
                        && (is_address_name(t.text) || ADDRESS_APIS.contains(&t.text))
                })
            })
        });
        let allocation =
            ALLOCATORS.contains(&callee) && !sized_from_address || self.is_array_creation(i);
        let slice = self.is_address_slice(i);
        // `+ 8 // 10 BORNHOST`: one field of a layout sum, annotated.
        let annotated_field = self.previous_is(i, "+")
            && self.address_comment_lines.contains(&line)
            && self.tokens.get(i + 1).is_none_or(|t| t.line != line);
        let positioned = whole_argument && BUFFER_CALLS.contains(&callee) && api_near();
        let message_call = open.is_some_and(|o| self.is_message_call(o))
            || NOT_LAYOUT_CALLS.contains(&callee)
            || self.has_any_match(line);
        // `byte[] getIPFromID(..) { byte[] r = new byte[4]; arraycopy(b, 0, r, 0, 4); }`
        let in_address_function = || {
            (allocation || whole_argument && BUFFER_CALLS.contains(&callee))
                && self.enclosing_function(i).is_some_and(|name| {
                    // `v4addr2Bytes`, `ipv6Bytes`: a family's own helper.
                    is_address_name(name) && !name.contains('6') && !name.contains('4')
                })
        };
        let what = if allocation && (names_address || api_near()) {
            Some("a buffer of")
        } else if slice
            && (names_address || language == Language::Go && self.is_packet_head_split(i))
        {
            Some("a slice of")
        } else if whole_argument && names_address && !message_call && !callee.is_empty()
            || positioned
        {
            Some("a length of")
        } else if !message_call && in_address_function() {
            Some(if allocation {
                "a buffer of"
            } else {
                "a length of"
            })
        } else if annotated_field {
            Some("a layout field of")
        } else {
            None
        };
        if let Some(what) = what {
            self.push("address-byte-layout", Severity::Warning, i, format!("{what} {text} bytes next to an address assumes an IPv4 layout ({}); IPv6 addresses are 16 bytes: size it by the address's family", layout_of(text)));
        }
    }

    /// The name of the function whose body holds token `i` (`getIP` in
    /// `byte[] getIP(String id) throws E {`, `func ip() (net.IP, error) {`,
    /// `fn ip(&self) -> [u8; 4] {`), looking at most 3000 tokens back.
    pub(super) fn enclosing_function(&self, i: usize) -> Option<&'s str> {
        let mut depth = 0usize;
        let mut open_brace = None;
        for j in (i.saturating_sub(3000)..i).rev() {
            match self.tokens[j].text {
                "}" => depth += 1,
                "{" if depth == 0 => {
                    open_brace = Some(j);
                    break;
                }
                "{" => depth -= 1,
                _ => {}
            }
        }
        // Back over a return type or `throws` clause to the parameters' `)`.
        let open_brace = open_brace?;
        let mut close = (open_brace.saturating_sub(16)..open_brace)
            .rev()
            .find(|&j| self.tokens[j].is_punct(")"))?;
        loop {
            let open = self.matching_open(close)?;
            let before = open.checked_sub(1)?;
            let t = &self.tokens[before];
            if t.is_punct(")") {
                close = before; // Go: `func f(x) (T, error) {`
                continue;
            }
            return (t.kind == TokenKind::Ident).then_some(t.text);
        }
    }

    /// The `(` that the `)` at `close` closes.
    pub(super) fn matching_open(&self, close: usize) -> Option<usize> {
        let mut depth = 0usize;
        for j in (close.saturating_sub(400)..close).rev() {
            match self.tokens[j].text {
                ")" => depth += 1,
                "(" if depth == 0 => return Some(j),
                "(" => depth -= 1,
                _ => {}
            }
        }
        None
    }

    /// `new byte[4]` (Java), `[4]byte` (Go), `[u8; 4]` (Rust): the number at
    /// `i` sizes an array of bytes.
    pub(super) fn is_array_creation(&self, i: usize) -> bool {
        let text = |j: Option<usize>| j.and_then(|j| self.tokens.get(j)).map_or("", |t| t.text);
        let (before2, before1) = (text(i.checked_sub(2)), text(i.checked_sub(1)));
        let (after1, after2) = (text(Some(i + 1)), text(Some(i + 2)));
        let java = before1 == "[" && after1 == "]" && matches!(before2, "byte" | "char");
        let go = before1 == "[" && after1 == "]" && matches!(after2, "byte" | "uint8");
        let rust = before1 == ";" && after1 == "]" && before2 == "u8";
        java || go || rust
    }

    /// `x[:4]`, `x[0:4]`, `x[4:]`, `x[..4]`, `x[0..4]`: a 4-byte end of a buffer.
    fn is_address_slice(&self, i: usize) -> bool {
        if self.tokens[i].text != "4" {
            return false;
        }
        let range_operator = |t: Option<&crate::token::Token<'_>>| {
            t.is_some_and(|t| t.is_punct(":") || t.is_punct(".."))
        };
        let before = i.checked_sub(1).and_then(|j| self.tokens.get(j));
        let after = self.tokens.get(i + 1);
        (range_operator(before) && after.is_some_and(|t| t.is_punct("]")))
            || (before.is_some_and(|t| t.is_punct("[")) && range_operator(after))
    }

    /// IPv4 header offsets in every language: the source and destination
    /// addresses at bytes 12..16 and 16..20 of the header (RFC 791 §3.1),
    /// and the version nibble compared with 4 (`buf[0] >> 4 != 4`).
    fn check_header_offsets(&mut self, i: usize) -> bool {
        let text = self.tokens[i].text;
        let number = |j: usize| {
            self.tokens
                .get(j)
                .filter(|t| t.kind == TokenKind::Number)
                .and_then(|t| t.text.parse::<u32>().ok())
        };
        let slice = matches!(text, "12" | "16")
            && self.previous_is(i, "[")
            && self
                .tokens
                .get(i + 1)
                .is_some_and(|t| t.is_punct(":") || t.is_punct(".."))
            && number(i + 2)
                .zip(text.parse::<u32>().ok())
                .is_some_and(|(end, start)| end == start + 4)
            && self.tokens.get(i + 3).is_some_and(|t| t.is_punct("]"));
        let version = text == "4"
            && i >= 3
            && self.tokens[i - 1].kind == TokenKind::Punct
            && matches!(self.tokens[i - 1].text, "!=" | "==")
            && self.tokens[i - 2].text == "4"
            && self.tokens[i - 3].is_punct(">>");
        if !(slice || version) || self.has_match("address-byte-layout", self.tokens[i].line) {
            return false;
        }
        let message = if slice {
            format!("bytes {text}..{} are an IPv4 header's address (RFC 791); an IPv6 header has its 16-byte addresses at 8..24 and 24..40", number(i + 2).unwrap_or(0))
        } else {
            "the IP version nibble compared with 4 handles IPv4 packets only; handle version 6 (40-byte header, RFC 8200) as well".to_string()
        };
        self.push("address-byte-layout", Severity::Warning, i, message);
        true
    }

    /// `ihl` (the IPv4 header length field, in 32-bit words): IPv6 headers
    /// have no such field.
    pub(super) fn check_ihl(&mut self, i: usize) {
        let name = self.tokens[i].text;
        // Where the IHL is read (`ihl := data[0] & 0x0f`), not every use.
        let defined = self.next_is(i, "=") || self.next_is(i, ":=");
        let to_bytes = self.next_is(i, "*") && self.text_at(i + 2) == "4";
        if !name.eq_ignore_ascii_case("ihl")
            || !(defined || to_bytes)
            || !judged(self.context.language) && !self.context.language.is_c_family()
            || self.has_match("address-byte-layout", self.tokens[i].line)
        {
            return;
        }
        self.push("address-byte-layout", Severity::Warning, i, "the IHL (IPv4 header length) parses IPv4 headers only; an IPv6 header is 40 bytes with extension headers (RFC 8200)".into());
    }

    /// Rust: `IpAddr::V4(..)` / `SocketAddr::V4(..)` with no `V6` within
    /// twelve lines, `TcpSocket::new_v4()` in a file with no `new_v6`, and
    /// `is_ipv4()` as a filter in a file with no `is_ipv6`.
    pub(super) fn check_rust_variants(&mut self, i: usize) {
        let name = self.tokens[i].text;
        let line = self.tokens[i].line;
        match name {
            "V4" if i >= 2
                && self.previous_is(i, "::")
                && matches!(self.tokens[i - 2].text, "IpAddr" | "SocketAddr") =>
            {
                let v6_near = self.tokens[self.lines(line.saturating_sub(12), line + 12)]
                    .iter()
                    .any(|t| t.is_ident("V6"));
                // `IpAddr::V4(Ipv4Addr::LOCALHOST)`: the Ipv4Addr rules report it.
                let wraps_ipv4addr = self.call_arguments(i + 1).is_some_and(|args| {
                    args.iter()
                        .flat_map(|a| &self.tokens[a.clone()])
                        .any(|t| t.is_ident("Ipv4Addr"))
                });
                if !v6_near && !wraps_ipv4addr && !self.has_any_match(line) {
                    let owner = self.tokens[i - 2].text;
                    self.push("v4-only-variant", Severity::Warning, i, format!("`{owner}::V4` with no `{owner}::V6` next to it handles IPv4 only; handle both variants or keep the `{owner}`"));
                }
            }
            "octets"
                if self.previous_is(i, ".")
                    && self.next_is(i, "(")
                    && !self.idents.contains("Ipv6Addr")
                    && !self.idents.contains("V6")
                    && !self.has_match("address-byte-layout", line) =>
            {
                self.push("address-byte-layout", Severity::Warning, i, "`octets()` of an Ipv4Addr is 4 bytes and this file never handles an Ipv6Addr (16); size the layout by the address's family".into());
            }
            // `TcpSocket::new_v4()`, not `Uuid::new_v4()`.
            "new_v4"
                if self.next_is(i, "(")
                    && i >= 2
                    && self.previous_is(i, "::")
                    && self.tokens[i - 2].text.contains("Socket")
                    && !self.idents.contains("new_v6") =>
            {
                self.push("v4-only-variant", Severity::Warning, i, "`new_v4()` creates an IPv4-only socket; choose new_v4/new_v6 by the address (`if addr.is_ipv4()`)".into());
            }
            "is_ipv4"
                if self.next_is(i, "(")
                    && !self.idents.contains("is_ipv6")
                    && !self.in_dispatch(i)
                    && self.in_filter(i) =>
            {
                self.push("v4-only-variant", Severity::Warning, i, "filtering addresses with `is_ipv4()` drops every IPv6 address; keep both families (try them in order)".into());
            }
            _ => {}
        }
    }

    /// True if token `i` is inside the closure of a `filter`/`find`-like call.
    fn in_filter(&self, i: usize) -> bool {
        self.enclosing_open(i).is_some_and(|open| {
            matches!(
                self.callee_at(open),
                "filter" | "find" | "filter_map" | "any" | "all" | "position" | "retain"
            )
        })
    }
}

/// What a fixed size of `text` bytes is in an IPv4 layout.
fn layout_of(text: &str) -> &'static str {
    match text {
        "4" => "a 4-byte IPv4 address",
        "6" => "an IPv4 address and a 2-byte port",
        _ => "an IPv4 address and a 4-byte port",
    }
}

/// True if a name is for a packet or header that carries addresses
/// (`ipPacket`, `ip_header`, `ipHdr`), not for an address: a size next to
/// it is a header's (`new byte[8]` for a UDP header beside `ipPacket`).
fn names_packet(name: &str) -> bool {
    super::words::name_words(name).iter().any(|w| {
        matches!(
            w.as_str(),
            "packet" | "pkt" | "header" | "hdr" | "datagram" | "frame" | "segment"
        )
    })
}
