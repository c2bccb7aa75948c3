//! Checks that judge each use rather than the file (issue 17): the family
//! fixed at a socket call or hidden behind a class, sockaddr fields away
//! from their declaration, 32-bit address values, buffers too small for
//! IPv6, hand-written host:port and dotted-quad text handling, and the
//! IPv4-only APIs of Go, Java, JavaScript and Rust that name no constant.

mod apis;
mod host_port;

use super::{is_address_name, Matcher, ADDRESS_FIELDS};
use crate::language::Language;
use crate::rule::Severity;
use crate::token::TokenKind;

/// 32-bit integer types that hold an IPv4 address when the variable is named
/// for one (`uint32_t addr`, `in_addr_t ip`).
const INT32_ADDRESS_TYPES: &[&str] = &[
    "uint32_t",
    "u_int32_t",
    "int32_t",
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

/// True if `name` names an address or a host:port endpoint held as text
/// (`ip`, `peer_addr`, `hostport_`, `ipPort`).
fn names_endpoint(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    (is_address_name(name) || lower.contains("hostport") || lower.contains("ipport"))
        && !lower.contains("len")
        && !name.contains('6')
}

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
    if name == "accept4" || !name.contains('4') {
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
            // In a file that declares the sockaddr_in and has no IPv6
            // path, the port read is reported: the address reads have
            // rules of their own (s_addr, inet_ntoa, 4-byte copies).
            || self.idents.contains("sockaddr_in")
                && !filled
                && (self.has_ipv6_path || name != "sin_port")
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
            && !self.tokens[i - 1].is_ident("const")
            && !self.is_type_alias(i);
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

    /// True if the `sockaddr` at token `i` is the type of a `typedef`
    /// (`typedef struct sockaddr SA;`): a name for the type, no storage.
    fn is_type_alias(&self, i: usize) -> bool {
        let start = if i > 0 && self.tokens[i - 1].is_ident("struct") {
            i - 1
        } else {
            i
        };
        start > 0 && self.tokens[start - 1].is_ident("typedef")
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
        // `uint32_t InetAddress::ipNetEndian() const`
        if self.next_is(j, "::") && self.check_int32_accessor(i, j + 2) {
            return;
        }
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
                // A wrapper that formats an address (`toIpPort(buf, sizeof
                // buf, addr)`, `format_addr(buf, ...)`).
                || position == 0
                    && callee != name
                    && is_address_name(callee)
                    && !callee.to_ascii_lowercase().contains("len")
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
                        // `snprintf(buf, sizeof buf, ":%s#%d", hostport_.c_str(), id)`:
                        // an endpoint's text through `%s`.
                        || args.iter().any(|a| {
                            self.tokens[a.clone()]
                                .iter()
                                .any(|t| t.kind == TokenKind::Str && t.text.contains("%s"))
                        }) && args.iter().skip(1).any(|a| {
                            self.tokens[a.clone()].first().is_some_and(|t| {
                                t.kind == TokenKind::Ident && names_endpoint(t.text)
                            })
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
        // A leading octet and three dotted ones (`\d{1,3}(\.\d{1,3}){3}`,
        // `127(\.\d{1,3}){3}$`, also `{3,5}`).
        || compact.contains(r"(\.\d{1,3}){3")
        || compact.contains(r"(\.[0-9]{1,3}){3")
        || compact == "[0-9.]"
        || compact == r"[\d.]"
        || compact == "^[0-9.]+$"
        || compact == r"^[\d.]+$"
}

/// Java: the names declared in a file as `Type name` with an address type
/// (`InetSocketAddress peer`), found once per file.
pub(super) fn java_address_variables<'s>(
    tokens: &[crate::token::Token<'s>],
) -> super::HashSet<&'s str> {
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
