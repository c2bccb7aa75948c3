//! Matching the rules against a token stream.
//!
//! Each `check_*` function implements one rule (or one family of names) over
//! the tokens of one file. Matching is lexical but grammar-aware: comments are
//! never seen, strings are single tokens, and identifiers carry their node
//! kind. The heuristics for the subtle rules (4-byte assumptions, host:port
//! handling) are spelled out where they are implemented.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;

use crate::language::Language;
use crate::literal::find_ipv4_literals;
use crate::rule::Severity;
use crate::token::{Token, TokenKind};

/// A match before it becomes a [`crate::Finding`]: position is 0-based line
/// and byte column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Match {
    /// Rule id.
    pub rule: &'static str,
    /// Severity for this match.
    pub severity: Severity,
    /// 0-based line.
    pub line: usize,
    /// 0-based byte column.
    pub column: usize,
    /// The message.
    pub message: String,
}

/// Where a file sits, for judging whether literals in it are data.
#[derive(Clone, Copy, Debug)]
pub struct FileContext {
    /// The file's language.
    pub language: Language,
    /// True for test code (a `test`/`tests`/`testdata` directory, `*_test.go`,
    /// `test_*.py`, `*.test.js`, `*.spec.ts`...).
    pub is_test: bool,
}

struct Matcher<'t, 's> {
    tokens: &'t [Token<'s>],
    context: FileContext,
    idents: HashSet<&'s str>,
    matches: Vec<Match>,
}

/// Runs every rule that applies to `context.language` over `tokens`.
pub fn match_tokens(tokens: &[Token<'_>], context: FileContext) -> Vec<Match> {
    let code: Vec<Token<'_>> = tokens
        .iter()
        .filter(|t| t.kind != TokenKind::Comment)
        .cloned()
        .collect();
    let idents = code
        .iter()
        .filter(|t| t.kind == TokenKind::Ident)
        .map(|t| t.text)
        .collect();
    let mut matcher = Matcher {
        tokens: &code,
        context,
        idents,
        matches: Vec::new(),
    };
    matcher.run();
    let mut matches = matcher.matches;
    matches.sort_by(|a, b| (a.line, a.column, a.rule).cmp(&(b.line, b.column, b.rule)));
    matches.dedup_by(|a, b| a.line == b.line && a.column == b.column && a.rule == b.rule);
    matches
}

impl<'s> Matcher<'_, 's> {
    fn run(&mut self) {
        use Language::*;
        let language = self.context.language;
        for i in 0..self.tokens.len() {
            let token = &self.tokens[i];
            match token.kind {
                TokenKind::Ident => {
                    self.check_names(i, language);
                    match language {
                        C | Cpp => {
                            self.check_s_addr_integer(i);
                            self.check_address_buffer(i);
                            self.check_four_byte_copy(i);
                        }
                        Go => self.check_to4(i),
                        JavaScript | TypeScript => self.check_js_family(i),
                        Rust => self.check_rust_types(i),
                        _ => {}
                    }
                    self.check_split(i);
                }
                TokenKind::Str => {
                    self.check_literal(i);
                    self.check_join_string(i);
                    if language == Go {
                        self.check_go_network(i);
                    }
                }
                _ => {}
            }
        }
    }

    fn push(
        &mut self,
        rule: &'static str,
        severity: Severity,
        token_index: usize,
        message: String,
    ) {
        let token = &self.tokens[token_index];
        self.matches.push(Match {
            rule,
            severity,
            line: token.line,
            column: token.column,
            message,
        });
    }

    fn next_is(&self, i: usize, text: &str) -> bool {
        self.tokens
            .get(i + 1)
            .is_some_and(|t| t.kind == TokenKind::Punct && t.text == text)
    }

    fn previous_is(&self, i: usize, text: &str) -> bool {
        i > 0 && self.tokens[i - 1].kind == TokenKind::Punct && self.tokens[i - 1].text == text
    }

    /// Rules that are a list of IPv4-only names: APIs, types, constants, options.
    fn check_names(&mut self, i: usize, language: Language) {
        use Language::*;
        let name = self.tokens[i].text;
        // `#ifndef INADDR_NONE` / `#define INADDR_NONE ...` name the macro;
        // they are portability shims, not uses.
        if matches!(
            self.tokens[i].parent_kind,
            "preproc_ifdef" | "preproc_def" | "preproc_defined"
        ) {
            return;
        }
        let c = language.is_c_family();
        let py = language == Python;
        match name {
            "inet_addr" | "inet_network" | "inet_makeaddr" | "inet_lnaof" | "inet_netof" if c => {
                self.push("inet-addr", Severity::Error, i, format!("`{name}` parses IPv4 only; use getaddrinfo(AI_NUMERICHOST) or inet_pton"))
            }
            "inet_aton" if c || py => {
                self.push("inet-addr", Severity::Error, i, "`inet_aton` parses IPv4 only; use inet_pton or getaddrinfo (Python: ipaddress.ip_address)".into())
            }
            "inet_ntoa" | "inet_ntoa_r" if c || py => {
                self.push("inet-ntoa", Severity::Error, i, format!("`{name}` prints IPv4 only; use getnameinfo(NI_NUMERICHOST) or inet_ntop"))
            }
            "gethostbyname" | "gethostbyname2" | "gethostbyname_r" | "gethostbyname2_r"
            | "gethostbyaddr" | "gethostbyaddr_r"
                if c =>
            {
                self.push("gethostbyname", Severity::Error, i, format!("`{name}` is the obsolete IPv4-era resolver; use getaddrinfo/getnameinfo with AF_UNSPEC"))
            }
            "gethostbyname" | "gethostbyname_ex" if py => {
                self.push("gethostbyname", Severity::Error, i, format!("`socket.{name}` returns IPv4 addresses only; use socket.getaddrinfo or socket.create_connection"))
            }
            "sockaddr_in" | "in_addr" if c || language == Rust => {
                // In a file that also handles IPv6 this is usually the IPv4
                // branch of dual-stack code: still worth a look, but a note.
                let dual = ["sockaddr_in6", "in6_addr", "sockaddr_storage"].iter().any(|n| self.idents.contains(n));
                let (severity, context) = if dual {
                    (Severity::Note, " (this file also handles IPv6: check it is the IPv4 branch)")
                } else {
                    (Severity::Warning, "")
                };
                self.push("sockaddr-in", severity, i, format!("`{name}` holds IPv4 only{context}; use sockaddr_storage (or SocketAddr in Rust)"))
            }
            "AF_INET" | "PF_INET"
                if matches!(language, C | Cpp | Python | Go | Rust)
                    && !["AF_INET6", "PF_INET6", "AF_UNSPEC", "PF_UNSPEC"]
                        .iter()
                        .any(|n| self.idents.contains(n)) =>
            {
                self.push("af-inet-only", Severity::Warning, i, format!("`{name}` with no AF_INET6/AF_UNSPEC path in this file; take the family from getaddrinfo"))
            }
            "INADDR_ANY" | "INADDR_LOOPBACK" | "INADDR_BROADCAST" | "INADDR_NONE"
                if matches!(language, C | Cpp | Python | Rust) =>
            {
                let fix = match name {
                    "INADDR_ANY" => "in6addr_any with IPV6_V6ONLY off, or getaddrinfo(AI_PASSIVE)",
                    "INADDR_LOOPBACK" => "in6addr_loopback (::1), or resolve \"localhost\"",
                    "INADDR_BROADCAST" => "a multicast group (IPv6 has no broadcast)",
                    _ => "inet_pton's return value, which has no in-band error address",
                };
                self.push("inaddr-constant", Severity::Warning, i, format!("`{name}` is an IPv4 address; use {fix}"))
            }
            "INET_ADDRSTRLEN" if c => {
                self.push("inet-addrstrlen", Severity::Warning, i, "`INET_ADDRSTRLEN` (16) is too short for IPv6 text; use INET6_ADDRSTRLEN (46) or NI_MAXHOST".into())
            }
            _ => {
                if matches!(language, C | Cpp | Python | Go | Rust) {
                    if let Some(replacement) = ipv6_option_twin(name) {
                        self.push("ipv4-socket-option", Severity::Warning, i, format!("`{name}` acts on IPv4 packets only; on AF_INET6 sockets set `{replacement}`"));
                    }
                }
                let ipv4_type = match language {
                    Java => name == "Inet4Address",
                    Python => matches!(name, "IPv4Address" | "IPv4Network" | "IPv4Interface"),
                    _ => false,
                };
                // `class IPv4Address(...)` defines the type (Python's own ipaddress module).
                let defines = i > 0 && matches!(self.tokens[i - 1].text, "class" | "def");
                if ipv4_type && !defines {
                    let fix = if language == Java { "InetAddress / InetSocketAddress" } else { "ipaddress.ip_address() / ip_network()" };
                    self.push("ipv4-only-type", Severity::Warning, i, format!("`{name}` is IPv4-only; use {fix}"));
                }
            }
        }
    }

    /// Rust: `Ipv4Addr` / `SocketAddrV4` used as a type (a signature, field or
    /// binding type). `Ipv4Addr::new(..)` as a value is left to review.
    fn check_rust_types(&mut self, i: usize) {
        let token = &self.tokens[i];
        if token.node_kind == "type_identifier" && matches!(token.text, "Ipv4Addr" | "SocketAddrV4")
        {
            let fix = if token.text == "Ipv4Addr" {
                "IpAddr"
            } else {
                "SocketAddr"
            };
            let message = format!("`{}` in a type is IPv4-only; use `{fix}`", token.text);
            self.push("ipv4-only-type", Severity::Warning, i, message);
        }
    }

    /// Go: `.To4()`.
    fn check_to4(&mut self, i: usize) {
        if self.tokens[i].text == "To4" && self.previous_is(i, ".") && self.next_is(i, "(") {
            self.push(
                "to4-conversion",
                Severity::Warning,
                i,
                "`To4()` is nil for IPv6 addresses; keep the 16-byte form or use netip.Addr".into(),
            );
        }
    }

    /// Go: `"tcp4"`, `"udp4"`, `"ip4"`, `"ip4:icmp"`.
    fn check_go_network(&mut self, i: usize) {
        let content = self.tokens[i].string_content();
        let network = content.split(':').next().unwrap_or("");
        if matches!(network, "tcp4" | "udp4" | "ip4") && (content == network || network == "ip4") {
            let general = &network[..network.len() - 1];
            self.push(
                "tcp4-network",
                Severity::Warning,
                i,
                format!("network \"{network}\" forces IPv4; use \"{general}\""),
            );
        }
    }

    /// JavaScript/TypeScript: `family: 4`, `lookup(h, 4, cb)`, `resolve4`, `isIPv4`.
    fn check_js_family(&mut self, i: usize) {
        let name = self.tokens[i].text;
        let number_at = |j: usize| {
            self.tokens
                .get(j)
                .is_some_and(|t| t.kind == TokenKind::Number && t.text == "4")
        };
        if name == "family" && self.next_is(i, ":") && number_at(i + 2) {
            self.push(
                "dns-family-4",
                Severity::Error,
                i,
                "`family: 4` restricts the lookup to A records; omit it (and set autoSelectFamily)"
                    .into(),
            );
        } else if matches!(name, "resolve4") && self.next_is(i, "(") {
            self.push(
                "dns-family-4",
                Severity::Error,
                i,
                "`resolve4` asks for A records only; also resolve AAAA or use dns.lookup".into(),
            );
        } else if name == "lookup" && self.next_is(i, "(") {
            if let Some(args) = self.call_arguments(i + 1) {
                if args.len() >= 2 && args[1].len() == 1 && number_at(args[1].start) {
                    self.push(
                        "dns-family-4",
                        Severity::Error,
                        i,
                        "`lookup(host, 4, ...)` asks for IPv4 only; pass 0 or { all: true }".into(),
                    );
                }
            }
        } else if name == "isIPv4"
            && self.next_is(i, "(")
            && !self.idents.contains("isIPv6")
            && !self.idents.contains("isIP")
        {
            self.push(
                "is-ipv4-only",
                Severity::Warning,
                i,
                "`isIPv4` alone rejects IPv6 literals; use isIP() (returns 4 or 6)".into(),
            );
        }
    }

    /// The top-level argument ranges of the call whose `(` is at `open`.
    fn call_arguments(&self, open: usize) -> Option<Vec<std::ops::Range<usize>>> {
        if !self.tokens.get(open)?.is_punct("(") {
            return None;
        }
        let mut depth = 0usize;
        let mut start = open + 1;
        let mut args = Vec::new();
        for j in open..self.tokens.len().min(open + 400) {
            let t = &self.tokens[j];
            if t.kind != TokenKind::Punct {
                continue;
            }
            match t.text {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => {
                    depth -= 1;
                    if depth == 0 {
                        if j > start || !args.is_empty() {
                            args.push(start..j);
                        }
                        return Some(args);
                    }
                }
                "," if depth == 1 => {
                    args.push(start..j);
                    start = j + 1;
                }
                _ => {}
            }
        }
        None
    }

    /// The tokens of the statement around token `i` (from the previous `;`,
    /// `{` or `}` to the next `;`), at most 60 tokens each way.
    fn statement(&self, i: usize) -> std::ops::Range<usize> {
        let is_boundary =
            |t: &Token<'_>| t.kind == TokenKind::Punct && matches!(t.text, ";" | "{" | "}");
        let mut start = i;
        while start > 0 && i - start < 60 && !is_boundary(&self.tokens[start - 1]) {
            start -= 1;
        }
        let mut end = i;
        while end < self.tokens.len() && end - i < 60 && !is_boundary(&self.tokens[end]) {
            end += 1;
        }
        start..end
    }

    /// C/C++: `s_addr`/`h_addr` in a statement that declares or casts to a
    /// 32-bit integer type, e.g. `uint32_t ip = sin.sin_addr.s_addr;` or
    /// `*(uint32_t *)he->h_addr`.
    fn check_s_addr_integer(&mut self, i: usize) {
        if !matches!(
            self.tokens[i].text,
            "s_addr" | "h_addr" | "h_addr_list" | "S_addr"
        ) {
            return;
        }
        let range = self.statement(i);
        let statement = &self.tokens[range];
        let has_integer = statement
            .iter()
            .any(|t| t.kind == TokenKind::Ident && INTEGER_TYPES.contains(&t.text));
        let has_assignment_or_cast = statement.iter().any(|t| t.is_punct("=") || t.is_punct(")"));
        if has_integer && has_assignment_or_cast {
            let name = self.tokens[i].text;
            self.push("s-addr-integer", Severity::Warning, i, format!("`{name}` stored as a 32-bit integer assumes a 4-byte address; keep a sockaddr_storage"));
        }
    }

    /// C/C++: `char ip[16]`, `char host_addr[15]`, `unsigned char addr[4]`:
    /// a char-sized element type before an address-named array of IPv4 size.
    fn check_address_buffer(&mut self, i: usize) {
        let name = self.tokens[i].text;
        if !self.next_is(i, "[") || !is_address_name(name) {
            return;
        }
        let Some(size) = self.tokens.get(i + 2) else {
            return;
        };
        if size.kind != TokenKind::Number
            || !matches!(size.text, "4" | "15" | "16")
            || !self.tokens.get(i + 3).is_some_and(|t| t.is_punct("]"))
        {
            return;
        }
        if name.contains('6') {
            return; // `addr6[16]`, `ip6[16]`: sized for IPv6 on purpose
        }
        let range = self.statement(i);
        let declaration = &self.tokens[range.start..i];
        let declared_as_bytes = declaration
            .iter()
            .any(|t| t.kind == TokenKind::Ident && BYTE_TYPES.contains(&t.text));
        // 16 bytes is exactly a binary IPv6 address, so only a *text* buffer
        // (plain `char`) of 15 or 16 is IPv4-sized; binary buffers count at 4.
        let text_buffer = declaration.iter().any(|t| {
            t.kind == TokenKind::Ident && matches!(t.text, "char" | "gchar" | "TCHAR" | "wchar_t")
        }) && !declaration.iter().any(|t| t.is_ident("unsigned"));
        let ipv4_sized = if size.text == "4" {
            declared_as_bytes
        } else {
            text_buffer
        };
        if ipv4_sized {
            let message = format!(
                "`{name}[{}]` is sized for IPv4; IPv6 needs INET6_ADDRSTRLEN (46) characters or 16 bytes",
                size.text
            );
            self.push("address-buffer-size", Severity::Warning, i, message);
        }
    }

    /// C/C++: `memcpy(dst, src, 4)` (or `sizeof(uint32_t)`/`sizeof(in_addr_t)`)
    /// where an argument mentions an address.
    fn check_four_byte_copy(&mut self, i: usize) {
        let name = self.tokens[i].text;
        if !matches!(
            name,
            "memcpy" | "memmove" | "memcmp" | "bcopy" | "CopyMemory" | "RtlCopyMemory"
        ) {
            return;
        }
        let Some(args) = self.call_arguments(i + 1) else {
            return;
        };
        let Some(length) = args.last() else { return };
        let length_tokens = &self.tokens[length.clone()];
        let four = match length_tokens {
            [t] => t.kind == TokenKind::Number && t.text == "4",
            _ => {
                length_tokens.first().is_some_and(|t| t.is_ident("sizeof"))
                    && length_tokens.iter().any(|t| {
                        matches!(
                            t.text,
                            "uint32_t" | "in_addr_t" | "u_int32_t" | "u32" | "DWORD"
                        )
                    })
            }
        };
        let mentions_address = args[..args.len() - 1]
            .iter()
            .flat_map(|range| &self.tokens[range.clone()])
            .any(|t| {
                t.kind == TokenKind::Ident
                    && (ADDRESS_FIELDS.contains(&t.text) || is_address_name(t.text))
            });
        if four && mentions_address {
            self.push("four-byte-copy", Severity::Warning, i, format!("`{name}` of 4 bytes of an address copies a quarter of an IPv6 address; use the sockaddr length"));
        }
    }

    /// All languages: splitting on `:` without looking for brackets.
    fn check_split(&mut self, i: usize) {
        let name = self.tokens[i].text;
        if !SPLIT_FUNCTIONS.contains(&name) || !self.next_is(i, "(") {
            return;
        }
        let Some(args) = self.call_arguments(i + 1) else {
            return;
        };
        let splits_on_colon = args.iter().any(|range| {
            let arg = &self.tokens[range.clone()];
            arg.len() == 1 && arg[0].kind == TokenKind::Str && arg[0].string_content() == ":"
        });
        if !splits_on_colon || self.brackets_handled_near(i) {
            return;
        }
        self.push("host-port-split", Severity::Warning, i, format!("`{name}` on ':' breaks IPv6 literals; use a bracket-aware host:port parser (net.SplitHostPort, urlsplit, SocketAddr::from_str)"));
    }

    /// True if a `[` or `]` string or character literal is within 3 lines of
    /// token `i`: the code is probably handling `[v6]:port` already.
    fn brackets_handled_near(&self, i: usize) -> bool {
        let line = self.tokens[i].line;
        self.tokens.iter().any(|t| {
            t.kind == TokenKind::Str
                && t.line + 3 >= line
                && t.line <= line + 3
                && (matches!(t.string_content(), "[" | "]") || t.string_content().contains("]:"))
        })
    }

    /// All languages: `host + ":" + port`, `":".join(..)`, and `"%s:%d"`-like
    /// format strings.
    fn check_join_string(&mut self, i: usize) {
        let content = self.tokens[i].string_content();
        if content == ":" {
            // `host + ":" + port`: a colon between two concatenations (a
            // trailing `name + ":"` is a label, not an endpoint).
            let concatenated =
                (self.previous_is(i, "+") || self.previous_is(i, "+=")) && self.next_is(i, "+");
            let joined =
                self.next_is(i, ".") && self.tokens.get(i + 2).is_some_and(|t| t.is_ident("join"));
            if (concatenated || joined) && !self.brackets_handled_near(i) {
                self.push("host-port-join", Severity::Warning, i, "host and port joined with a bare ':' give an ambiguous IPv6 text; bracket the host (net.JoinHostPort, SocketAddr Display)".into());
            }
        } else if has_join_format(content) && !self.brackets_handled_near(i) {
            self.push("host-port-join", Severity::Warning, i, "format string joins host and port with a bare ':'; IPv6 hosts need [brackets] (net.JoinHostPort, SocketAddr Display)".into());
        }
    }

    /// All languages: IPv4 literals inside string literals.
    fn check_literal(&mut self, i: usize) {
        let token = &self.tokens[i];
        let content = token.string_content();
        let literals = find_ipv4_literals(content);
        if literals.is_empty() {
            return;
        }
        let in_table = [
            "array",
            "list",
            "initializer_list",
            "literal_value",
            "array_expression",
            "array_initializer",
            "tuple",
            "set",
        ]
        .iter()
        .any(|kind| token.parent_kind.contains(kind))
            && self
                .tokens
                .iter()
                .filter(|t| {
                    t.kind == TokenKind::Str
                        && t.line.abs_diff(token.line) <= 3
                        && !find_ipv4_literals(t.string_content()).is_empty()
                })
                .count()
                >= 3;
        let (severity, context) = if self.context.is_test {
            (Severity::Note, " (test code: probably data)")
        } else if in_table {
            (Severity::Note, " (in a table of addresses: probably data)")
        } else {
            (Severity::Warning, "")
        };
        let offset_of_content = token.text.find(content).unwrap_or(0);
        for literal in literals {
            let message = format!(
                "hard-coded IPv4 address {}{}; {}",
                literal.address,
                context,
                literal_advice(literal.address)
            );
            self.matches.push(Match {
                rule: "ipv4-literal",
                severity,
                line: token.line,
                column: token.column + offset_of_content + literal.offset,
                message,
            });
        }
    }
}

/// What to do about one IPv4 literal.
pub fn literal_advice(address: std::net::Ipv4Addr) -> &'static str {
    if address.is_loopback() {
        "use \"localhost\" or also ::1"
    } else if address.is_unspecified() {
        "listen on :: with IPV6_V6ONLY off, or on both families"
    } else {
        "make it configurable or resolve a name"
    }
}

fn ipv6_option_twin(name: &str) -> Option<&'static str> {
    Some(match name {
        "IP_TOS" => "IPV6_TCLASS",
        "IP_TTL" => "IPV6_UNICAST_HOPS",
        "IP_ADD_MEMBERSHIP" => "IPV6_JOIN_GROUP",
        "IP_DROP_MEMBERSHIP" => "IPV6_LEAVE_GROUP",
        "IP_MULTICAST_IF" => "IPV6_MULTICAST_IF",
        "IP_MULTICAST_TTL" => "IPV6_MULTICAST_HOPS",
        "IP_MULTICAST_LOOP" => "IPV6_MULTICAST_LOOP",
        "IP_PKTINFO" => "IPV6_RECVPKTINFO",
        "IP_RECVTOS" => "IPV6_RECVTCLASS",
        "IP_RECVTTL" => "IPV6_RECVHOPLIMIT",
        _ => return None,
    })
}

const INTEGER_TYPES: &[&str] = &[
    "uint32_t",
    "u_int32_t",
    "int32_t",
    "in_addr_t",
    "int",
    "long",
    "unsigned",
    "u_long",
    "ulong",
    "DWORD",
    "ULONG",
    "u32",
    "uint",
    "UINT",
    "UINT32",
    "guint32",
];

const BYTE_TYPES: &[&str] = &[
    "char", "uint8_t", "u_char", "u_int8_t", "BYTE", "u8", "gchar", "guchar", "TCHAR", "wchar_t",
];

const ADDRESS_FIELDS: &[&str] = &[
    "s_addr",
    "sin_addr",
    "in_addr",
    "h_addr",
    "h_addr_list",
    "S_addr",
    "S_un",
];

const SPLIT_FUNCTIONS: &[&str] = &[
    "split",
    "rsplit",
    "splitn",
    "rsplitn",
    "split_once",
    "rsplit_once",
    "partition",
    "rpartition",
    "strchr",
    "strrchr",
    "strtok",
    "strtok_r",
    "strsep",
    "index",
    "rindex",
    "indexOf",
    "lastIndexOf",
    "find",
    "rfind",
    "find_last_of",
    "find_first_of",
    "Split",
    "SplitN",
    "Index",
    "LastIndex",
    "IndexByte",
    "LastIndexByte",
    "Cut",
    "substringBefore",
    "substringAfterLast",
];

/// `HOST:PORT` placeholders: any string placeholder, a colon, then a
/// numeric or port-named placeholder (`%s:%d`, `{}:{}`, `{host}:{port}`,
/// `${host}:${port}`). `%s:%s` is left out: it is usually `user:password`.
static JOIN_FORMAT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?:%s|%v|%\.\*s|\{\}|\{0\}|\{[A-Za-z_][\w.]*\}|\$\{[^{}]+\})",
        r":",
        r"(?:%d|%u|%hu|%i|%ld|%lu|%v|\{\}|\{1\}|\{[\w.]*[Pp]ort[\w.]*(?::[^}]*)?\}|\$\{[^{}]*[Pp]ort[^{}]*\})",
    ))
    .expect("the host:port format pattern is valid")
});

/// True if `content` has a host:port placeholder pair that is not part of a
/// longer colon chain (`%s:%s:%s`) and not already bracketed (`[%s]:%d`).
fn has_join_format(content: &str) -> bool {
    JOIN_FORMAT.find_iter(content).any(|m| {
        let before = content[..m.start()].chars().next_back();
        let after = content[m.end()..].chars().next();
        !matches!(before, Some(']' | ':' | '['))
            && before.is_none_or(|c| !c.is_alphanumeric())
            && after != Some(':')
    })
}

/// True if an identifier names an address: one of its words (split at `_`
/// and case changes) is `ip`, `addr`, `address`, `host`, `ipaddr`...
pub fn is_address_name(name: &str) -> bool {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if c == '_' || c.is_ascii_digit() {
            words.push(std::mem::take(&mut word));
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower {
            words.push(std::mem::take(&mut word));
        }
        previous_lower = c.is_lowercase();
        word.push(c.to_ascii_lowercase());
    }
    words.push(word);
    words.iter().any(|w| {
        matches!(
            w.as_str(),
            "ip" | "ipv4"
                | "addr"
                | "address"
                | "host"
                | "ipaddr"
                | "ipstr"
                | "ipbuf"
                | "addrbuf"
                | "hostaddr"
                | "inaddr"
                | "saddr"
                | "daddr"
                | "ips"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn address_names_are_recognised_by_their_words() {
        assert!(is_address_name("ip"));
        assert!(is_address_name("peer_addr"));
        assert!(is_address_name("remoteIpBuf"));
        assert!(!is_address_name("zip"));
        assert!(!is_address_name("pipeline"));
    }

    #[test]
    fn join_format_matches_unbracketed_host_port_only() {
        assert!(has_join_format("%s:%d"));
        assert!(has_join_format("{}:{}"));
        assert!(has_join_format("${host}:${port}"));
        assert!(has_join_format("http://{host}:{port}/"));
        assert!(has_join_format("CONNECT %s:%d HTTP/1.0"));
        assert!(!has_join_format("[{}]:{}"));
        assert!(!has_join_format("error %s: %d"));
        assert!(!has_join_format("%s:%s"), "user:password, not host:port");
        assert!(!has_join_format("%s:%s:%s"));
        assert!(!has_join_format("{a}:{b}"));
    }
}
