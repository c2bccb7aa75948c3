//! Checks that judge each use rather than the file (issue 17): the family
//! fixed at a socket call or hidden behind a class, sockaddr fields away
//! from their declaration, 32-bit address values, buffers too small for
//! IPv6, hand-written host:port and dotted-quad text handling, and the
//! IPv4-only APIs of Go, Java, JavaScript and Rust that name no constant.

use super::{is_address_name, Matcher, ADDRESS_FIELDS};
use crate::language::Language;
use crate::rule::Severity;
use crate::token::TokenKind;

/// 32-bit integer types that hold an IPv4 address when the variable is named
/// for one (`uint32_t addr`, `in_addr_t ip`).
const INT32_ADDRESS_TYPES: &[&str] = &[
    "uint32_t",
    "u_int32_t",
    "in_addr_t",
    "u32",
    "__u32",
    "__be32",
    "be32",
    "uint32",
    "UINT32",
    "guint32",
    "ipaddr_t",
];

/// Functions that write an address as text into their first (or given) argument.
const TEXT_WRITERS: &[(&str, usize)] = &[
    ("inet_ntop", 2),
    ("getnameinfo", 2),
    ("RtlIpv4AddressToStringA", 1),
    ("ip4_fmt", 0),
];

/// Copy and compare functions whose arguments are checked for a literal 4.
fn is_copy_or_compare(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    matches!(
        name,
        "memcpy" | "memmove" | "memcmp" | "bcopy" | "bcmp" | "CopyMemory" | "RtlCopyMemory"
    ) || ["copy", "cpy", "cmp", "equal", "diff", "catb", "move"]
        .iter()
        .any(|w| lower.contains(w))
}

/// `ip4_fmt`, `dns_ip4`, `socket_bind4_reuse`, `getIPv4Address`: a function
/// whose name says it handles IPv4 only. Returns the byte offset of the `4`.
pub(super) fn ipv4_named(name: &str) -> Option<usize> {
    if name == "accept4" {
        return None; // Linux accept4(2): flags, not a family
    }
    let lower = name.to_ascii_lowercase();
    for marker in ["ipv4", "inet4", "ip4"] {
        if let Some(position) = lower.find(marker) {
            let end = position + marker.len();
            let glued_before = lower[..position]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphabetic() && marker == "ip4");
            let glued_after = lower[end..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit());
            if !glued_before && !glued_after {
                return Some(end - 1);
            }
        }
    }
    const VERBS: &[&str] = &[
        "bind", "connect", "accept", "local", "remote", "name", "send", "recv", "listen", "scan",
        "fmt", "addr", "resolve", "lookup", "sockaddr",
    ];
    for (position, _) in lower.match_indices('4') {
        let word_start = lower[..position]
            .rfind(|c: char| !c.is_ascii_alphabetic())
            .map_or(0, |p| p + 1);
        let stem = &lower[word_start..position];
        let at_word_end = lower[position + 1..]
            .chars()
            .next()
            .is_none_or(|c| c == '_');
        if at_word_end && word_start > 0 && VERBS.contains(&stem) {
            return Some(position);
        }
    }
    None
}

impl<'s> Matcher<'_, 's> {
    /// C/C++: `sin_port`, `sin_addr` used away from any `sockaddr_in`
    /// declaration in the file (`ntohs(addr.sin_port)` on a struct that came
    /// in through a `sockaddr *`): the code reads IPv4 fields only.
    pub(super) fn check_sockaddr_fields(&mut self, i: usize) {
        let name = self.tokens[i].text;
        let member = self.previous_is(i, ".") || self.previous_is(i, "->");
        // Filled by hand (`sn.sin_port = sp->s_port;`) in a file with no
        // IPv6 path: the struct is built for IPv4 only.
        let filled = self.next_is(i, "=") && !self.has_ipv6_path;
        if !matches!(name, "sin_port" | "sin_addr" | "sin_family")
            || !member
            || name == "sin_family" && !filled
            || self.idents.contains("sockaddr_in") && !filled
            || self.in_dispatch(i)
            || self.has_match("sockaddr-in", self.tokens[i].line)
        {
            return;
        }
        self.push(
            "sockaddr-in",
            Severity::Warning,
            i,
            format!("`{name}` is a sockaddr_in field: this code reads IPv4 addresses only; read the port and address through sockaddr_storage and the family"),
        );
    }

    /// C/C++: plain `struct sockaddr` used as storage (a variable, a field,
    /// `sizeof(struct sockaddr)`): 16 bytes, too small for a sockaddr_in6.
    pub(super) fn check_plain_sockaddr(&mut self, i: usize) {
        if self.tokens[i].text != "sockaddr" {
            return;
        }
        let after = self.tokens.get(i + 1);
        let in_sizeof = {
            let mut j = i;
            if j > 0 && self.tokens[j - 1].is_ident("struct") {
                j -= 1;
            }
            j >= 2
                && self.tokens[j - 1].is_punct("(")
                && self.tokens[j - 2].is_ident("sizeof")
                && after.is_some_and(|t| t.is_punct(")"))
        };
        let declares = after.is_some_and(|t| {
            t.kind == TokenKind::Ident
                && self.tokens.get(i + 2).is_some_and(|n| {
                    n.is_punct(";") || n.is_punct("=") || n.is_punct(",") || n.is_punct("[")
                })
        }) && i > 0
            && !self.tokens[i - 1].is_punct("(")
            && !self.tokens[i - 1].is_ident("const");
        if declares && self.in_family_union(i) {
            return; // `union { struct sockaddr sa; struct sockaddr_in6 sin6; }`
        }
        if in_sizeof || declares {
            let what = if in_sizeof {
                "`sizeof(struct sockaddr)` is 16 bytes"
            } else {
                "a plain `struct sockaddr` holds 16 bytes"
            };
            self.push(
                "sockaddr-too-small",
                Severity::Warning,
                i,
                format!("{what}, too small for a sockaddr_in6 (28); use struct sockaddr_storage and the real address length"),
            );
        }
    }

    /// True if token `i` is a member of a union: the plain `sockaddr` is one
    /// view of storage (`union { struct sockaddr sa; struct sockaddr_in6
    /// sin6; }`), not the storage.
    fn in_family_union(&self, i: usize) -> bool {
        let mut depth = 0usize;
        let lower = i.saturating_sub(200);
        let Some(open) = (lower..i).rev().find(|&j| {
            let t = &self.tokens[j];
            if t.is_punct("}") {
                depth += 1;
            } else if t.is_punct("{") {
                if depth == 0 {
                    return true;
                }
                depth -= 1;
            }
            false
        }) else {
            return false;
        };
        (open.saturating_sub(3)..open).any(|j| self.tokens[j].is_ident("union"))
    }

    /// C/C++: a 32-bit integer type declaring an address-named variable,
    /// parameter or field (`uint32_t addr`, `in_addr_t ip`), and `s_addr`
    /// compared or returned as a value.
    pub(super) fn check_u32_address(&mut self, i: usize) {
        let token = &self.tokens[i];
        let line = token.line;
        if matches!(token.text, "s_addr" | "S_addr") {
            let range = self.statement(i);
            let statement = &self.tokens[range.clone()];
            let compared = self.text_at(i + 1) == "=="
                || self.text_at(i + 1) == "!="
                || statement
                    .iter()
                    .any(|t| t.is_punct("==") || t.is_punct("!="))
                    && statement.iter().filter(|t| t.is_ident("s_addr")).count() >= 2;
            let returned = statement.first().is_some_and(|t| t.is_ident("return"));
            if (compared || returned) && !self.has_match("s-addr-integer", line) {
                let what = if returned { "returned" } else { "compared" };
                self.push("s-addr-integer", Severity::Warning, i, format!("`s_addr` {what} as a 32-bit value assumes a 4-byte address; compare or return the whole sockaddr with its family"));
            }
            return;
        }
        if !INT32_ADDRESS_TYPES.contains(&token.text) {
            return;
        }
        let mut j = i + 1;
        while self.tokens.get(j).is_some_and(|t| t.is_ident("const")) {
            j += 1;
        }
        let Some(name) = self.tokens.get(j) else {
            return;
        };
        let ends = self.tokens.get(j + 1).is_some_and(|t| {
            t.kind == TokenKind::Punct && matches!(t.text, "," | ")" | ";" | "=" | "[" | "(")
        });
        let address = token.text == "in_addr_t" || is_address_name(name.text);
        if name.kind == TokenKind::Ident
            && ends
            && address
            && !name.text.contains('6')
            && !self.has_match("s-addr-integer", line)
        {
            let message = format!("`{} {}` holds a 32-bit IPv4 address; keep a sockaddr_storage or an in6_addr with its family", token.text, name.text);
            self.push("s-addr-integer", Severity::Warning, j, message);
        }
    }

    /// C/C++: a char buffer shorter than INET6_ADDRSTRLEN (46) that an
    /// address formatter writes into (`char buf[32]; inet_ntop(af, src, buf,
    /// sizeof buf)`, `snprintf(buf, sizeof buf, "%s:%d", ip, port)`), or one
    /// sized with an IPv4 text length (`char ipstr[IP4_FMT]`).
    pub(super) fn check_address_text_buffer(&mut self, i: usize) {
        let name = self.tokens[i].text;
        if !self.next_is(i, "[") || !self.tokens.get(i + 3).is_some_and(|t| t.is_punct("]")) {
            return;
        }
        let Some(size) = self.tokens.get(i + 2) else {
            return;
        };
        let range = self.statement(i);
        let is_char = self.tokens[range.start..i].iter().any(|t| {
            t.kind == TokenKind::Ident && matches!(t.text, "char" | "gchar" | "TCHAR" | "wchar_t")
        });
        if !is_char || self.has_match("address-buffer-size", self.tokens[i].line) {
            return;
        }
        if size.kind == TokenKind::Ident {
            let upper = size.text.to_ascii_uppercase();
            if (upper.contains("IP4") || upper.contains("IPV4") || upper.contains("INET4"))
                && !upper.contains('6')
            {
                let message = format!("`{name}[{}]` is sized for IPv4 text; IPv6 needs INET6_ADDRSTRLEN (46) characters", size.text);
                self.push("address-buffer-size", Severity::Warning, i, message);
            }
            return;
        }
        let Ok(length) = size.text.parse::<usize>() else {
            return;
        };
        if !(4..46).contains(&length) || name.contains('6') {
            return;
        }
        // Only a declaration: the statement starts with a type, not an assignment.
        if self.tokens[range.start..i].iter().any(|t| t.is_punct("=")) {
            return;
        }
        let last_line = self.tokens[i].line + 80;
        let scope = self.lines(self.tokens[i].line, last_line);
        let written = (i + 4..scope.end).any(|j| {
            let t = &self.tokens[j];
            if !t.is_ident(name) {
                return false;
            }
            let Some(open) = self.enclosing_open(j) else {
                return false;
            };
            let callee = self.callee_at(open);
            let position = self.argument_position(open, j);
            TEXT_WRITERS
                .iter()
                .any(|(writer, argument)| *writer == callee && *argument == position)
                || matches!(
                    callee,
                    "sprintf" | "snprintf" | "g_snprintf" | "_snprintf" | "sprintf_s"
                ) && position == 0
                    && self.call_arguments(open).is_some_and(|args| {
                        args.iter().flat_map(|a| &self.tokens[a.clone()]).any(|t| {
                            t.kind == TokenKind::Str && {
                                let text = t.string_content();
                                text.contains("%d.%d.%d.%d")
                                    || text.contains("%u.%u.%u.%u")
                                    || super::has_join_format(text)
                            }
                        })
                    })
                || matches!(callee, "strcpy" | "strncpy" | "strlcpy" | "g_strlcpy")
                    && position == 0
                    && self.call_arguments(open).is_some_and(|args| {
                        args.iter()
                            .flat_map(|a| &self.tokens[a.clone()])
                            .any(|t| t.is_ident("inet_ntoa"))
                    })
        });
        if written {
            let message = format!("`{name}[{length}]` receives address text but IPv6 needs INET6_ADDRSTRLEN (46) characters, more with a port; size it with INET6_ADDRSTRLEN or NI_MAXHOST");
            self.push("address-buffer-size", Severity::Warning, i, message);
        }
    }

    /// C/C++: a length compared with or stepped by 4 next to an address
    /// (`addresses.len < 4`, `for (j = 0; j + 4 <= addresses.len; j += 4)`).
    pub(super) fn check_four_byte_length(&mut self, i: usize) {
        if self.tokens[i].text != "4" {
            return;
        }
        let operator = |j: Option<usize>| {
            j.and_then(|j| self.tokens.get(j)).is_some_and(|t| {
                t.kind == TokenKind::Punct
                    && matches!(
                        t.text,
                        "<" | "<=" | "==" | "!=" | ">=" | ">" | "+=" | "-=" | "+"
                    )
            })
        };
        if !operator(i.checked_sub(1)) && !operator(Some(i + 1)) {
            return;
        }
        let range = self.statement(i);
        let statement = &self.tokens[range.clone()];
        let address_length = statement.windows(3).any(|w| {
            w[0].kind == TokenKind::Ident
                && is_address_name(w[0].text)
                && (w[1].is_punct(".") || w[1].is_punct("->"))
                && matches!(w[2].text, "len" | "length" | "size")
        });
        if address_length && !self.has_match("four-byte-copy", self.tokens[i].line) {
            self.push("four-byte-copy", Severity::Warning, i, "an address length compared with or stepped by 4 assumes 4-byte addresses; IPv6 addresses are 16".into());
        }
    }

    /// C/C++: calls of functions whose name says IPv4 (`ip4_fmt`, `dns_ip4`,
    /// `socket_bind4`) in a file that never calls their IPv6 twin (`*6`).
    pub(super) fn check_ipv4_named_api(&mut self, i: usize) {
        let name = self.tokens[i].text;
        if !self.next_is(i, "(") {
            return;
        }
        let Some(four) = ipv4_named(name) else { return };
        // A call, not a declaration: not preceded by a type name.
        if let Some(previous) = i.checked_sub(1).map(|j| &self.tokens[j]) {
            if previous.kind == TokenKind::Ident
                && !matches!(
                    previous.text,
                    "return" | "if" | "while" | "else" | "case" | "do"
                )
            {
                return;
            }
            if previous.is_punct("*")
                && i >= 2
                && self.tokens[i - 2].kind == TokenKind::Ident
                && !self.tokens[i - 2].is_ident("return")
            {
                return;
            }
        }
        let twin = format!("{}6{}", &name[..four], &name[four + 1..]);
        if self.idents.contains(twin.as_str()) {
            return;
        }
        self.push("ipv4-named-api", Severity::Warning, i, format!("`{name}` handles IPv4 only and this file never calls `{twin}`; pass the family or call both"));
    }

    /// Go: `golang.org/x/net/ipv4` (`ipv4.ICMPTypeEcho`, `ipv4.NewPacketConn`)
    /// in a file that never imports its ipv6 twin; `net.IPv4(a, b, c, d)`
    /// literals; `net.IPv4zero`/`IPv4bcast`/`IPv4allsys` constants.
    pub(super) fn check_go_ipv4(&mut self, i: usize) {
        let name = self.tokens[i].text;
        if name == "ipv4"
            && self.next_is(i, ".")
            && self.strings.contains("golang.org/x/net/ipv4")
            && !self.strings.contains("golang.org/x/net/ipv6")
            && !self.has_match("ipv4-only-package", self.tokens[i].line)
        {
            let member = self.text_at(i + 2);
            self.push("ipv4-only-package", Severity::Warning, i, format!("`ipv4.{member}` (golang.org/x/net/ipv4) and no golang.org/x/net/ipv6 in this file; add the ipv6 path (ipv6.ICMPTypeEchoRequest, ipv6.NewPacketConn)"));
            return;
        }
        if !(i >= 2 && self.tokens[i - 1].is_punct(".") && self.tokens[i - 2].is_ident("net")) {
            return;
        }
        match name {
            "IPv4" if self.next_is(i, "(") => {
                let Some(args) = self.call_arguments(i + 1) else {
                    return;
                };
                let octets: Vec<&str> = args
                    .iter()
                    .filter(|a| a.len() == 1 && self.tokens[a.start].kind == TokenKind::Number)
                    .map(|a| self.tokens[a.start].text)
                    .collect();
                if octets.len() == 4 {
                    let address = octets.join(".");
                    self.push("ipv4-literal", Severity::Warning, i, format!("hard-coded IPv4 address {address} (`net.IPv4`); make it configurable or resolve a name"));
                }
            }
            "IPv4zero" | "IPv4bcast" | "IPv4allsys" | "IPv4allrouter" => {
                let fix = match name {
                    "IPv4zero" => "net.IPv6unspecified with a dual-stack listener",
                    "IPv4bcast" => "a multicast group (IPv6 has no broadcast)",
                    _ => "net.IPv6linklocalallnodes / IPv6linklocalallrouters as well",
                };
                self.push(
                    "inaddr-constant",
                    Severity::Warning,
                    i,
                    format!("`net.{name}` is an IPv4 address; use {fix}"),
                );
            }
            _ => {}
        }
    }

    /// Java: `InetSocketAddress`/`InetAddress` turned into text with
    /// `toString()`, `String.valueOf` or `+` (gives `host/1.2.3.4:80`, and an
    /// unbracketed IPv6 address).
    pub(super) fn check_java_to_string(&mut self, i: usize) {
        const ADDRESS_GETTERS: &[&str] = &[
            "getRemoteSocketAddress",
            "getLocalSocketAddress",
            "getInetAddress",
            "getLocalAddress",
            "getRemoteAddress",
            "getSocketAddress",
            "remoteAddress",
            "localAddress",
        ];
        let token = &self.tokens[i];
        let name = token.text;
        // The receiver is either a getter call `x.getRemoteSocketAddress()`
        // or a variable declared in this file with an address type.
        let (is_address, end) = if ADDRESS_GETTERS.contains(&name)
            && self.next_is(i, "(")
            && self.text_at(i + 2) == ")"
        {
            (true, i + 2)
        } else if token.kind == TokenKind::Ident
            && !self.previous_is(i, ".")
            && self.address_variables.contains(name)
        {
            (true, i)
        } else {
            (false, i)
        };
        if !is_address {
            return;
        }
        // `endpoint.getPort()` uses a member, not the address's text.
        if self.text_at(end + 1) == "." && self.text_at(end + 2) != "toString" {
            return;
        }
        let to_string = self.text_at(end + 1) == "."
            && self.text_at(end + 2) == "toString"
            && self.text_at(end + 3) == "(";
        let start = if end == i { i } else { self.receiver_start(i) };
        let concatenated = |j: Option<usize>, k: Option<usize>| {
            j.and_then(|j| self.tokens.get(j))
                .is_some_and(|t| t.is_punct("+"))
                && k.and_then(|k| self.tokens.get(k))
                    .is_some_and(|t| t.kind == TokenKind::Str)
        };
        let joined = concatenated(start.checked_sub(1), start.checked_sub(2))
            || concatenated(Some(end + 1), Some(end + 2));
        let value_of = start >= 4
            && self.tokens[start - 1].is_punct("(")
            && self.tokens[start - 2].is_ident("valueOf")
            && self.tokens[start - 4].is_ident("String");
        if to_string || joined || value_of {
            self.push("address-to-string", Severity::Warning, i, format!("`{name}` as text is `host/1.2.3.4:80`, with an unbracketed IPv6 address; use getHostString() and getPort(), bracketing IPv6 hosts"));
        }
    }

    /// The first token of the dotted receiver chain ending at `i` (`a.b.c`).
    fn receiver_start(&self, i: usize) -> usize {
        let mut start = i;
        while start >= 2
            && self.tokens[start - 1].is_punct(".")
            && self.tokens[start - 2].kind == TokenKind::Ident
        {
            start -= 2;
        }
        start
    }

    /// JavaScript/TypeScript: `'udp4'` socket types, and address families
    /// filtered to `'IPv4'` (`iface.family === 'IPv4'`, `family: 'IPv4'`).
    pub(super) fn check_js_family_string(&mut self, i: usize) {
        let content = self.tokens[i].string_content();
        match content {
            "udp4" => self.push("tcp4-network", Severity::Warning, i, "socket type 'udp4' forces IPv4; create a 'udp6' socket (dual-stack unless ipv6Only) or pick the type from the address family".into()),
            "IPv4" => {
                let compared = [i.checked_sub(1), Some(i + 1)].into_iter().flatten().any(|j| {
                    self.tokens.get(j).is_some_and(|t| matches!(t.text, "===" | "==" | "!==" | "!="))
                });
                let option = self.previous_is(i, ":") && i >= 2 && self.tokens[i - 2].is_ident("family");
                if (compared || option) && !self.in_dispatch(i) {
                    self.push("is-ipv4-only", Severity::Warning, i, "filtering on family 'IPv4' drops every IPv6 address; accept 'IPv6' (and family 6 on Node 18+) too".into());
                }
            }
            _ => {}
        }
    }

    /// Python: a socket address taken as a (host, port) pair:
    /// `host, port = sock.getpeername()` (an IPv6 address is a 4-tuple).
    pub(super) fn check_sockaddr_pair(&mut self, i: usize) {
        let name = self.tokens[i].text;
        if !matches!(name, "getpeername" | "getsockname")
            || !self.next_is(i, "(")
            || self.text_at(i + 2) != ")"
        {
            return;
        }
        let line = self.tokens[i].line;
        let range = self.lines(line, line);
        // Nothing after the call on its line (no `[:2]`).
        if i + 3 < range.end {
            return;
        }
        let Some(equals) = (range.start..i).find(|&j| self.tokens[j].is_punct("=")) else {
            return;
        };
        let commas = (range.start..equals)
            .filter(|&j| self.tokens[j].is_punct(","))
            .count();
        if commas == 1 {
            self.push("sockaddr-pair", Severity::Warning, i, format!("`{name}()` unpacked into (host, port): an IPv6 socket address is a 4-tuple; take [:2] or index [0] and [1]"));
        }
    }

    /// Python: `'%s:%s' % sock.getsockname()` or `% addr`: a socket address
    /// formatted as a pair (TypeError for an IPv6 4-tuple, and no brackets).
    pub(super) fn check_sockaddr_format(&mut self, i: usize) {
        let content = self.tokens[i].string_content();
        if !(content.contains("%s:%s") || content.contains("%s:%d") || content.contains("%s:%i"))
            || !self.next_is(i, "%")
            || self.has_match("host-port-join", self.tokens[i].line)
        {
            return;
        }
        let mut j = i + 2;
        // `% self.socket.getsockname()` or `% addr`
        while self.text_at(j + 1) == "." {
            j += 2;
        }
        let Some(last) = self.tokens.get(j) else {
            return;
        };
        let sockaddr = if matches!(last.text, "getsockname" | "getpeername") {
            self.text_at(j + 1) == "(" && self.text_at(j + 2) == ")" && self.text_at(j + 3) != "["
        } else {
            last.kind == TokenKind::Ident
                && matches!(
                    last.text,
                    "addr"
                        | "address"
                        | "sockaddr"
                        | "peer"
                        | "client_address"
                        | "peername"
                        | "sockname"
                )
                && self.text_at(j + 1) != "["
                && self.text_at(j + 1) != "."
        };
        if sockaddr {
            self.push("sockaddr-pair", Severity::Warning, i, "a socket address formatted as '%s:%s' fails for an IPv6 4-tuple and leaves the host unbracketed; format [host]:port from addr[0] and addr[1]".into());
        }
    }

    /// All languages: a character compared with ':' on an address
    /// (`host[i] == ':'`, `addr.charAt(i) == ':'`) without bracket handling.
    pub(super) fn check_colon_compare(&mut self, i: usize) {
        if self.tokens[i].string_content() != ":" {
            return;
        }
        let compared = |j: Option<usize>| {
            j.and_then(|j| self.tokens.get(j))
                .is_some_and(|t| matches!(t.text, "==" | "!=" | "===" | "!=="))
        };
        let operand_end = if compared(i.checked_sub(1)) {
            i.checked_sub(2)
        } else if compared(Some(i + 1)) {
            None // `':' == c`: rare; left alone
        } else {
            return;
        };
        let Some(end) = operand_end else { return };
        let operand = self.operand_name(end);
        let char_at = self.operand_callee(end) == Some("charAt");
        let addressed = operand.is_some_and(is_address_name);
        let language = self.context.language;
        let scan = addressed
            || char_at
                && matches!(
                    language,
                    Language::Java | Language::JavaScript | Language::TypeScript
                );
        if scan && !self.brackets_handled_near(i) && !self.credentials_near(i) {
            self.push("host-port-split", Severity::Warning, i, "a hand-written scan for ':' splits IPv6 addresses; look for a leading '[' first or use a host:port parser".into());
        }
    }

    /// The variable at the end of the operand ending at token `end`
    /// (`host[i]` → host, `*p` → p, `addr.charAt(i)` → addr).
    fn operand_name(&self, end: usize) -> Option<&'s str> {
        let mut j = end;
        let t = self.tokens.get(j)?;
        if t.is_punct("]") || t.is_punct(")") {
            let open = if t.is_punct("]") { "[" } else { "(" };
            let close = t.text;
            let mut depth = 0usize;
            loop {
                let u = self.tokens.get(j)?;
                if u.is_punct(close) {
                    depth += 1;
                } else if u.is_punct(open) {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                j = j.checked_sub(1)?;
            }
            j = j.checked_sub(1)?;
            // `addr.charAt(i)`: step over the method name to the receiver.
            if self.tokens[j].kind == TokenKind::Ident && j >= 2 && self.tokens[j - 1].is_punct(".")
            {
                j -= 2;
            }
        }
        let u = self.tokens.get(j)?;
        (u.kind == TokenKind::Ident).then_some(u.text)
    }

    /// The method called in an operand ending with `)` (`s.charAt(i)` → charAt).
    fn operand_callee(&self, end: usize) -> Option<&'s str> {
        if !self.tokens.get(end)?.is_punct(")") {
            return None;
        }
        let mut depth = 0usize;
        let mut j = end;
        loop {
            let u = self.tokens.get(j)?;
            if u.is_punct(")") {
                depth += 1;
            } else if u.is_punct("(") {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            j = j.checked_sub(1)?;
        }
        let callee = self.tokens.get(j.checked_sub(1)?)?;
        (callee.kind == TokenKind::Ident).then_some(callee.text)
    }

    /// True if the code around token `i` handles credentials
    /// (`user:password`), not endpoints.
    pub(super) fn credentials_near(&self, i: usize) -> bool {
        let line = self.tokens[i].line;
        self.tokens[self.lines(line.saturating_sub(1), line + 2)]
            .iter()
            .any(|t| {
                let lower = t.text.to_ascii_lowercase();
                (t.kind == TokenKind::Ident || t.kind == TokenKind::Str)
                    && [
                        "user", "passw", "passwd", "auth", "cred", "login", "userinfo",
                    ]
                    .iter()
                    .any(|w| lower.contains(w))
            })
    }

    /// All languages: dotted-quad text handling with no IPv6 path: a
    /// character set of digits and '.', an IPv4 regular expression.
    pub(super) fn check_dotted_quad_string(&mut self, i: usize) {
        if self.context.language == Language::Rust {
            return;
        }
        let content = self.tokens[i].string_content();
        // A set, not a number: most of the ten digits, each once, and a dot.
        let mut seen = [false; 10];
        let mut repeated = false;
        for c in content.chars().filter(char::is_ascii_digit) {
            let d = usize::from(c as u8 - b'0');
            repeated |= seen[d];
            seen[d] = true;
        }
        let distinct = seen.iter().filter(|s| **s).count();
        let char_set = content.contains('.')
            && distinct >= 8
            && !repeated
            && content.chars().all(|c| c.is_ascii_digit() || c == '.');
        let pattern = is_ipv4_pattern(content);
        if (char_set || pattern) && !self.in_dispatch(i) {
            let what = if char_set {
                "a dotted-quad character set"
            } else {
                "an IPv4 address pattern"
            };
            self.push("dotted-quad-text", Severity::Warning, i, format!("{what} treats only IPv4 text as an address; parse with inet_pton/getaddrinfo (ipaddress, net.ParseIP, InetAddress) for both families"));
        }
    }

    /// All languages: an address split or scanned on '.' (`ip.split('.')`,
    /// `strings.Split(ip, ".")`, `ip.replace('.', ',')`, `ip[n] == '.'`).
    pub(super) fn check_dotted_quad_call(&mut self, i: usize) {
        if self.context.language == Language::Rust {
            return;
        }
        let name = self.tokens[i].text;
        let is_dot = |t: &crate::token::Token<'_>| {
            t.kind == TokenKind::Str && matches!(t.string_content(), "." | "\\." | "\\\\.")
        };
        if matches!(
            name,
            "split"
                | "Split"
                | "replace"
                | "Replace"
                | "count"
                | "rsplit"
                | "SplitN"
                | "Count"
                | "ReplaceAll"
        ) && self.next_is(i, "(")
        {
            let Some(args) = self.call_arguments(i + 1) else {
                return;
            };
            let method_on =
                (i >= 2 && self.tokens[i - 1].is_punct(".")).then(|| self.tokens[i - 2].text);
            let go_style = matches!(
                name,
                "Split" | "SplitN" | "Replace" | "ReplaceAll" | "Count"
            ) && method_on == Some("strings");
            let (subject, dot_argument) = if go_style {
                let subject = args
                    .first()
                    .and_then(|a| self.tokens[a.clone()].last())
                    .map(|t| t.text);
                (subject, args.get(1))
            } else {
                (method_on, args.first())
            };
            let on_dot =
                dot_argument.is_some_and(|a| a.len() == 1 && is_dot(&self.tokens[a.start]));
            if on_dot && subject.is_some_and(is_address_name) && !self.in_dispatch(i) {
                self.push("dotted-quad-text", Severity::Warning, i, format!("`{name}` of an address on '.' assumes dotted-quad IPv4 text; parse the address (inet_pton, ipaddress, net.ParseIP) instead"));
            }
            return;
        }
        // `ip[len - 1] == '.'` (not `host[len - 1] == '.'`: a name's trailing dot)
        if is_address_name(name)
            && !name.to_ascii_lowercase().contains("host")
            && self.next_is(i, "[")
        {
            let mut depth = 0usize;
            for j in i + 1..(i + 40).min(self.tokens.len()) {
                let t = &self.tokens[j];
                if t.is_punct("[") {
                    depth += 1;
                } else if t.is_punct("]") {
                    depth -= 1;
                    if depth == 0 {
                        let compared = self
                            .tokens
                            .get(j + 1)
                            .is_some_and(|c| matches!(c.text, "==" | "!="));
                        if compared
                            && self.tokens.get(j + 2).is_some_and(is_dot)
                            && !self.in_dispatch(i)
                        {
                            self.push("dotted-quad-text", Severity::Warning, i, format!("`{name}[..] == '.'` scans dotted-quad IPv4 text; IPv6 addresses have no dots"));
                        }
                        return;
                    }
                }
            }
        }
    }

    /// C/C++: copies and comparisons with a literal 4 among their arguments
    /// (not only the last: `byte_copy(ip, 4, src)`) where another argument
    /// is an address.
    pub(super) fn check_four_byte_any_argument(&mut self, i: usize) -> bool {
        let name = self.tokens[i].text;
        if !is_copy_or_compare(name) || !self.next_is(i, "(") {
            return false;
        }
        let Some(args) = self.call_arguments(i + 1) else {
            return false;
        };
        let four = args.iter().position(|a| {
            a.len() == 1
                && self.tokens[a.start].kind == TokenKind::Number
                && self.tokens[a.start].text == "4"
        });
        let Some(four) = four else { return false };
        let mentions_address = args
            .iter()
            .enumerate()
            .filter(|(k, _)| *k != four)
            .flat_map(|(_, a)| &self.tokens[a.clone()])
            .any(|t| {
                t.kind == TokenKind::Ident
                    && (ADDRESS_FIELDS.contains(&t.text) || is_address_name(t.text))
            });
        if mentions_address {
            self.push("four-byte-copy", Severity::Warning, i, format!("`{name}` of 4 bytes of an address copies a quarter of an IPv6 address; use the sockaddr length"));
        }
        mentions_address
    }
}

/// Java: the names declared in a file as `Type name` with an address type
/// (`InetSocketAddress peer`), found once per file.
pub(super) fn java_address_variables<'s>(
    tokens: &[crate::token::Token<'s>],
) -> std::collections::HashSet<&'s str> {
    const ADDRESS_TYPES: &[&str] = &[
        "InetSocketAddress",
        "InetAddress",
        "SocketAddress",
        "Inet4Address",
    ];
    tokens
        .windows(3)
        .filter(|w| {
            w[0].kind == TokenKind::Ident
                && ADDRESS_TYPES.contains(&w[0].text)
                && w[1].kind == TokenKind::Ident
                && matches!(w[2].text, "=" | ";" | "," | ")")
        })
        .map(|w| w[1].text)
        .collect()
}

/// True for regular expressions that match dotted-quad IPv4 text only.
fn is_ipv4_pattern(content: &str) -> bool {
    // Java and C write the regex backslashes doubled.
    let compact: String = content
        .replace("\\\\", "\\")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let quad = |part: &str| compact.matches(part).count() >= 3;
    quad(r"\d{1,3}\.")
        || quad(r"[0-9]{1,3}\.")
        || quad(r"\d+\.")
        || quad(r"[0-9]+\.")
        || compact.contains(r"(\d{1,3}\.){3}")
        || compact.contains(r"([0-9]{1,3}\.){3}")
        || compact == "[0-9.]"
        || compact == r"[\d.]"
        || compact == "^[0-9.]+$"
        || compact == r"^[\d.]+$"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv4_named_functions_are_recognised() {
        for name in [
            "ip4_fmt",
            "dns_ip4",
            "dns_ip4_qualify",
            "socket_bind4_reuse",
            "socket_local4",
            "dns_name4",
            "socket_accept4",
            "getIPv4Address",
            "inet4_parse",
        ] {
            assert!(ipv4_named(name).is_some(), "{name}");
        }
        for name in [
            "accept4",
            "md4",
            "sha224",
            "ip6_fmt",
            "socket_bind6",
            "base64",
            "uuid4",
            "zip4",
        ] {
            assert!(ipv4_named(name).is_none(), "{name}");
        }
    }

    #[test]
    fn ipv4_patterns_are_told_from_other_regexes() {
        assert!(is_ipv4_pattern(r"^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$"));
        assert!(is_ipv4_pattern(r"^(\d{1,3}\.){3}\d{1,3}$"));
        assert!(!is_ipv4_pattern(r"^\d+\.\d+$"));
        assert!(!is_ipv4_pattern(r"[a-z]+"));
    }
}
