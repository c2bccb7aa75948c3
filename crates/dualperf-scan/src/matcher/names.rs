//! Rules that are lists of IPv4-only names (APIs, types, constants, socket
//! options) and the per-language checks of how a family is chosen: Python
//! socket calls, Rust address values and types, Go network strings,
//! JavaScript family options.

use super::*;

impl Matcher<'_, '_> {
    /// Rules that are a list of IPv4-only names: APIs, types, constants, options.
    pub(super) fn check_names(&mut self, i: usize, language: Language) {
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
                // Inside the IPv4 branch of a family switch this is that
                // branch's own type: nothing to report.
                if self.in_dispatch(i) {
                    return;
                }
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
            "AF_INET" | "PF_INET" if matches!(language, C | Cpp | Python | Go | Rust) => {
                let file_is_ipv4_only = !["AF_INET6", "PF_INET6", "AF_UNSPEC", "PF_UNSPEC"]
                    .iter()
                    .any(|n| self.idents.contains(n));
                if file_is_ipv4_only {
                    self.push("af-inet-only", Severity::Warning, i, format!("`{name}` with no AF_INET6/AF_UNSPEC path in this file; take the family from getaddrinfo"));
                } else if !self.in_dispatch(i) {
                    // A file with an IPv6 path can still create IPv4-only
                    // sockets: judge the call, not the file.
                    if let Some(what) = self.fixes_family(i) {
                        self.push("af-inet-only", Severity::Warning, i, format!("`{name}` {what} although this file has an IPv6 path; take the family from getaddrinfo or the peer address"));
                    }
                }
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
                    // `import java.net.Inet4Address;`: an import is not a use.
                    let line = self.tokens[i].line;
                    if language == Java && self.tokens[self.lines(line, line).start].is_ident("import") {
                        self.push("ipv4-only-type", Severity::Note, i, format!("`{name}` (IPv4-only) is imported here; its uses are reported where they are"));
                        return;
                    }
                    self.push("ipv4-only-type", Severity::Warning, i, format!("`{name}` is IPv4-only; use {fix}"));
                }
            }
        }
    }

    /// What `AF_INET` at `i` does when it fixes a socket's family: the first
    /// argument of a socket-creating call, or the value assigned to a
    /// `family` setting (`hints.ai_family = AF_INET`, `family = AF_INET` in a
    /// class or a default parameter). `sin_family`/`sa_family` describe a
    /// struct being filled and are left to the struct's own rule.
    pub(super) fn fixes_family(&self, i: usize) -> Option<&'static str> {
        // `socket.AF_INET`: start at the qualifier.
        let mut first = i;
        while first >= 2
            && self.tokens[first - 1].is_punct(".")
            && self.tokens[first - 2].kind == TokenKind::Ident
        {
            first -= 2;
        }
        if let Some(open) = self.enclosing_open(i) {
            let callee = self.callee_at(open);
            if matches!(
                callee,
                "socket"
                    | "create_socket"
                    | "Socket"
                    | "socketpair"
                    | "WSASocket"
                    | "WSASocketW"
                    | "WSASocketA"
            ) && self.argument_position(open, i) == 0
            {
                return Some("creates an IPv4-only socket");
            }
        }
        let previous = first.checked_sub(1).map(|j| &self.tokens[j])?;
        // `family = AF_INET`, and Go's keyed field `Family: unix.AF_INET` in
        // a request literal (`socketRequest{Family: unix.AF_INET, ...}`).
        let keyed =
            previous.is_punct(":") && self.context.language == crate::language::Language::Go;
        if previous.is_punct("=") || previous.is_punct(":=") || keyed {
            let target = self.tokens.get(first.checked_sub(2)?)?;
            let lower = target.text.to_ascii_lowercase();
            if target.kind == TokenKind::Ident
                && lower.contains("family")
                && !matches!(
                    lower.as_str(),
                    "sin_family" | "sa_family" | "ss_family" | "sin6_family"
                )
            {
                return Some("fixes the address family to IPv4");
            }
        }
        None
    }

    /// Python: `socket.socket()` without a family (AF_INET by default), the
    /// standard servers whose class fixes AF_INET (`HTTPServer`, `TCPServer`,
    /// wsgiref's `make_server`), and classes of this file whose body sets
    /// `family = AF_INET`, wherever they are chosen or instantiated.
    pub(super) fn check_python_sockets(&mut self, i: usize) {
        let name = self.tokens[i].text;
        if self.in_dispatch(i) {
            return;
        }
        let qualified_by = |module: &str| {
            i >= 2 && self.tokens[i - 1].is_punct(".") && self.tokens[i - 2].is_ident(module)
        };
        if name == "socket"
            && qualified_by("socket")
            && self.next_is(i, "(")
            && self.tokens.get(i + 2).is_some_and(|t| t.is_punct(")"))
        {
            self.push("af-inet-only", Severity::Warning, i, "`socket.socket()` without a family is an AF_INET socket; create it with the family getaddrinfo returns".into());
            return;
        }
        let attribute = i > 0 && self.tokens[i - 1].is_punct(".");
        let defining = i > 0 && self.tokens[i - 1].is_ident("class");
        if defining || self.defined_classes.contains(name) && attribute {
            return;
        }
        let stdlib_server = match name {
            "TCPServer"
            | "UDPServer"
            | "ThreadingTCPServer"
            | "ThreadingUDPServer"
            | "ForkingTCPServer"
            | "ForkingUDPServer"
            | "HTTPServer"
            | "ThreadingHTTPServer"
            | "SimpleXMLRPCServer"
            | "DocXMLRPCServer" => {
                !attribute
                    || [
                        "socketserver",
                        "SocketServer",
                        "server",
                        "BaseHTTPServer",
                        "xmlrpc",
                        "SimpleXMLRPCServer",
                    ]
                    .iter()
                    .any(|m| qualified_by(m))
            }
            "make_server" | "WSGIServer" => {
                (!attribute || qualified_by("simple_server"))
                    && (self.idents.contains("wsgiref") || self.idents.contains("simple_server"))
            }
            _ => false,
        };
        if stdlib_server
            && !self.defined_classes.contains(name)
            && !self.idents.contains("address_family")
            && (self.next_is(i, "(") || self.next_is(i, ")") || self.next_is(i, ","))
        {
            self.push("af-inet-only", Severity::Warning, i, format!("`{name}` listens on AF_INET only (its class's address_family); subclass it with address_family = socket.AF_INET6 for IPv6 addresses"));
            return;
        }
        if attribute {
            return;
        }
        if let Some((_, line)) = self.ipv4_classes.iter().find(|(class, _)| *class == name) {
            let line = line + 1;
            // Not the class's own bases (`class TCP6Socket(TCPSocket)` extends
            // it), `super(TCPSocket, self)`, type checks, nor a module-level
            // alias (`WSGIServer = TcpWSGIServer`): only where it is chosen.
            let enclosing = self.enclosing_open(i);
            let in_bases =
                enclosing.is_some_and(|open| open >= 2 && self.tokens[open - 2].is_ident("class"));
            let checked = enclosing.is_some_and(|open| {
                matches!(self.callee_at(open), "super" | "isinstance" | "issubclass")
            });
            let here = self.lines(self.tokens[i].line, self.tokens[i].line);
            let alias = self.tokens[here.start].column == 0
                && here.end == i + 1
                && self
                    .tokens
                    .get(here.start + 1)
                    .is_some_and(|t| t.is_punct("="));
            if !in_bases && !checked && !alias && !self.next_is(i, ".") {
                self.push("af-inet-only", Severity::Warning, i, format!("`{name}` creates AF_INET sockets (its class sets the family to AF_INET on line {line}); choose the class by the address's family"));
            }
        }
    }

    /// Rust: `Ipv4Addr::LOCALHOST`/`UNSPECIFIED`/`BROADCAST` and
    /// `Ipv4Addr::new(127, 0, 0, 1)` in expressions.
    pub(super) fn check_rust_values(&mut self, i: usize) {
        if self.tokens[i].text != "Ipv4Addr" || !self.next_is(i, "::") {
            return;
        }
        let member = self.text_at(i + 2);
        if matches!(member, "LOCALHOST" | "UNSPECIFIED" | "BROADCAST") {
            let fix = match member {
                "LOCALHOST" => "Ipv6Addr::LOCALHOST (::1) as well, or resolve \"localhost\"",
                "UNSPECIFIED" => "Ipv6Addr::UNSPECIFIED with IPV6_V6ONLY off",
                _ => "a multicast group (IPv6 has no broadcast)",
            };
            self.push(
                "inaddr-constant",
                Severity::Warning,
                i,
                format!("`Ipv4Addr::{member}` is an IPv4 address; use {fix}"),
            );
        } else if member == "new" {
            let Some(args) = self.call_arguments(i + 3) else {
                return;
            };
            let octets: Vec<&str> = args
                .iter()
                .filter(|a| a.len() == 1 && self.tokens[a.start].kind == TokenKind::Number)
                .map(|a| self.tokens[a.start].text)
                .collect();
            if octets.len() == 4 {
                let address = octets.join(".");
                self.push("ipv4-literal", Severity::Warning, i, format!("hard-coded IPv4 address {address} (`Ipv4Addr::new`); make it configurable or resolve a name"));
            }
        }
    }

    /// Rust: `Ipv4Addr` / `SocketAddrV4` used as a type (a signature, field or
    /// binding type); `Ipv4Addr::LOCALHOST`/`UNSPECIFIED`/`BROADCAST` and
    /// `Ipv4Addr::new(127, 0, 0, 1)` in expressions.
    pub(super) fn check_rust_types(&mut self, i: usize) {
        self.check_rust_values(i);
        let token = &self.tokens[i];
        if !matches!(token.text, "Ipv4Addr" | "SocketAddrV4") {
            return;
        }
        if token.node_kind != "type_identifier" {
            // `use std::net::Ipv4Addr`, `SocketAddrV4::new(ip, port)`,
            // `parse::<Ipv4Addr>()`: the value is IPv4-only. Constants and
            // literals (`Ipv4Addr::LOCALHOST`, `Ipv4Addr::new(127, 0, 0, 1)`)
            // have their own rules.
            let member = self.text_at(i + 2);
            let own_rule = self.next_is(i, "::")
                && (matches!(member, "LOCALHOST" | "UNSPECIFIED" | "BROADCAST")
                    || member == "new"
                        && token.text == "Ipv4Addr"
                        && self.has_match("ipv4-literal", token.line));
            let twin = if token.text == "Ipv4Addr" {
                "Ipv6Addr"
            } else {
                "SocketAddrV6"
            };
            // An import is not a use: the uses are reported where they are.
            let import = self.tokens[self.lines(token.line, token.line).start].is_ident("use");
            if own_rule || self.has_match("ipv4-only-type", token.line) {
                return;
            }
            if import {
                // An import is not a use: a note that the file works with
                // the type; the uses are reported where they are.
                let message = format!(
                    "`{}` (IPv4-only) is imported here; its uses are reported where they are",
                    token.text
                );
                self.push("ipv4-only-type", Severity::Note, i, message);
                return;
            }
            let severity = if self.idents.contains(twin) {
                Severity::Note
            } else {
                Severity::Warning
            };
            let message = format!(
                "`{}` is IPv4-only{}; use `{}`",
                token.text,
                if severity == Severity::Note {
                    " (this file also names its IPv6 twin)"
                } else {
                    ""
                },
                if token.text == "Ipv4Addr" {
                    "IpAddr"
                } else {
                    "SocketAddr"
                }
            );
            self.push("ipv4-only-type", severity, i, message);
            return;
        }
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

    /// Go: `.To4()`; compared with nil it is a family test (a note).
    pub(super) fn check_to4(&mut self, i: usize) {
        if self.tokens[i].text == "To4" && self.previous_is(i, ".") && self.next_is(i, "(") {
            let nil_test = self.text_at(i + 2) == ")"
                && matches!(self.text_at(i + 3), "==" | "!=")
                && self.text_at(i + 4) == "nil";
            // `len(ip.To4()) == net.IPv4len`: the same test by length.
            let length_test = self.text_at(i + 2) == ")"
                && self.text_at(i + 3) == ")"
                && matches!(self.text_at(i + 4), "==" | "!=")
                && self
                    .enclosing_open(i)
                    .is_some_and(|open| self.callee_at(open) == "len");
            // `if ip4 := ip.To4(); ip4 != nil {`, `net.IP.To4(ip)` too.
            let close = self
                .call_arguments(i + 1)
                .map_or(i + 2, |args| args.last().map_or(i + 2, |a| a.end));
            let assigned_test = self.text_at(close + 1) == ";"
                && self
                    .tokens
                    .get(close + 2)
                    .is_some_and(|t| t.kind == TokenKind::Ident)
                && matches!(self.text_at(close + 3), "==" | "!=")
                && self.text_at(close + 4) == "nil";
            if nil_test || length_test || assigned_test {
                self.push("to4-conversion", Severity::Note, i, "`To4() != nil` is a family test; check the other branch handles IPv6 (IPv4-mapped addresses count as IPv4 here)".into());
                return;
            }
            self.push(
                "to4-conversion",
                Severity::Warning,
                i,
                "`To4()` is nil for IPv6 addresses; keep the 16-byte form or use netip.Addr".into(),
            );
        }
    }

    /// Go: `"tcp4"`, `"udp4"`, `"ip4"`, `"ip4:icmp"`.
    pub(super) fn check_go_network(&mut self, i: usize) {
        let content = self.tokens[i].string_content();
        let network = content.split(':').next().unwrap_or("");
        if matches!(network, "tcp4" | "udp4" | "ip4") && (content == network || network == "ip4") {
            let general = &network[..network.len() - 1];
            if self.ipv6_network_beside(i, network) {
                self.push("tcp4-network", Severity::Note, i, format!("network \"{network}\" beside its IPv6 twin: the IPv4 half of a per-family table or switch; check the family is chosen by the address"));
                return;
            }
            self.push(
                "tcp4-network",
                Severity::Warning,
                i,
                format!("network \"{network}\" forces IPv4; use \"{general}\""),
            );
        }
    }

    /// True if the IPv6 twin of `network` (`"udp6"` for `"udp4"`, `"ip6..."`
    /// for `"ip4"`) is a string on the line of token `i` or the line before
    /// or after: a per-family table (`ipv4Proto = {"udp": "udp4"}` over
    /// `ipv6Proto = {"udp": "udp6"}`) or a switch over both.
    pub(super) fn ipv6_network_beside(&self, i: usize, network: &str) -> bool {
        let twin = format!("{}6", &network[..network.len() - 1]);
        let line = self.tokens[i].line;
        self.tokens[self.lines(line.saturating_sub(1), line + 1)]
            .iter()
            .any(|t| {
                t.kind == TokenKind::Str
                    && t.string_content().split(':').next() == Some(twin.as_str())
            })
    }

    /// JavaScript/TypeScript: `family: 4`, `lookup(h, 4, cb)`, `resolve4`, `isIPv4`.
    pub(super) fn check_js_family(&mut self, i: usize) {
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
}
