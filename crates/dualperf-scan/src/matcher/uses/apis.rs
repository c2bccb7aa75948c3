//! IPv4-only APIs that name no constant: functions named for IPv4, Go's
//! `To4`/`ParseIP` habits, Java's address `toString`, JavaScript family strings.

use super::*;

impl<'s> Matcher<'_, 's> {
    /// C/C++: calls of functions whose name says IPv4 (`ip4_fmt`, `dns_ip4`,
    /// `socket_bind4`) in a file that never calls their IPv6 twin (`*6`).
    pub(in crate::matcher) fn check_ipv4_named_api(&mut self, i: usize) {
        let name = self.tokens[i].text;
        if !self.next_is(i, "(") {
            return;
        }
        if self.check_sockaddr_in_accessor(i) {
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

    /// C/C++: calls of accessors named for the IPv4 `sockaddr_in`
    /// (`getSockAddrInet()`, `setSockAddrInet(a)`, `sockaddr_in_cast(p)`) in a
    /// file that never names their `6` twin or a `sockaddr_in6`.
    fn check_sockaddr_in_accessor(&mut self, i: usize) -> bool {
        let name = self.tokens[i].text;
        // Most call names are rejected here without allocating.
        if !name
            .as_bytes()
            .windows(8)
            .any(|w| w.eq_ignore_ascii_case(b"sockaddr"))
        {
            return false;
        }
        let lower = name.to_ascii_lowercase().replace('_', "");
        let accessor = lower.contains("sockaddrinet")
            || lower.ends_with("sockaddrin") && lower != "sockaddrin";
        let called = i >= 1
            && matches!(
                self.tokens[i - 1].text,
                "." | "->" | "(" | "," | "=" | "::" | "return"
            );
        if !accessor || !called || name.contains('6') || self.has_ipv6_path {
            return false;
        }
        let twin = format!("{name}6");
        if self.idents.contains(twin.as_str())
            || self.has_match("ipv4-named-api", self.tokens[i].line)
        {
            return false;
        }
        self.push("ipv4-named-api", Severity::Warning, i, format!("`{name}` hands out the IPv4 `sockaddr_in` and this file never names `{twin}` or a `sockaddr_in6`; pass a `sockaddr` with its length (or a sockaddr_storage)"));
        true
    }

    /// Go, Java, JavaScript, TypeScript, Python, Rust: identifiers whose name
    /// says IPv4 (`parse_ipv4_packet`, `IPV4_HEADER_LEN`, `Ipv4Packet`,
    /// `ipToIPv4Str`, pnet's `ipv4` module) in a file that never names their
    /// IPv6 twin. Names with a rule of their own (`Inet4Address`, `Ipv4Addr`,
    /// `isIPv4`, Go's `net.IPv4*` and `x/net/ipv4`) are left to it.
    pub(in crate::matcher) fn check_ipv4_named_identifier(&mut self, i: usize) {
        let name = self.tokens[i].text;
        let Some(four) = ipv4_named(name) else { return };
        let language = self.context.language;
        let own_rule = matches!(
            name,
            "Inet4Address"
                | "Ipv4Addr"
                | "SocketAddrV4"
                | "isIPv4"
                | "IPv4Address"
                | "IPv4Network"
                | "IPv4Interface"
                | "is_ipv4"
                | "resolve4"
        ) || language == Language::Go
            && (name == "ipv4" || name.starts_with("IPv4") && self.previous_is(i, "."));
        // A bare `ipv4`/`IPV4` names a module (Rust's pnet) or a pattern
        // constant with a rule of its own (dotted-quad-text).
        let bare = name.eq_ignore_ascii_case("ipv4") && language != Language::Rust;
        let line = self.tokens[i].line;
        if own_rule || bare || self.has_match("ipv4-named-api", line) {
            return;
        }
        let twin = format!("{}6{}", &name[..four], &name[four + 1..]);
        if self.idents.contains(twin.as_str()) || self.strings.contains(twin.as_str()) {
            return;
        }
        // `PREFER_IPV4_STACK_IPV6_ADDRESS_ERROR`: the name covers both families.
        let lower = name.to_ascii_lowercase();
        if lower[four + 1..].contains("ipv6") || lower[four + 1..].contains("inet6") {
            return;
        }
        if prefers_ipv4(&lower[..four + 1]) {
            self.check_prefer_ipv4(i);
            return;
        }
        // An import is not a use (`import io.pkts.framer.IPv4Framer;`,
        // `use pnet::packet::ipv4::Ipv4Packet;`): a note, the uses are
        // reported where they are.
        let first = &self.tokens[self.lines(line, line).start];
        if matches!(first.text, "import" | "use" | "from") && first.kind == TokenKind::Ident {
            self.push("ipv4-named-api", Severity::Note, i, format!("`{name}` (IPv4 only) is imported here and this file never names `{twin}`; its uses are reported where they are"));
            return;
        }
        // Test code (a Rust `#[cfg(test)]` module, a test file) that names
        // IPv4 exercises the code under test; it does not serve addresses.
        if self.in_test_code(i) {
            self.push("ipv4-named-api", Severity::Note, i, format!("`{name}` (IPv4 only) in test code; check the code under test also handles IPv6"));
            return;
        }
        // Inside a function that is itself named for IPv4 (`process_ipv4`),
        // its IPv4 names are the IPv4 half by design: the finding is where
        // that function is called without an IPv6 twin.
        if let Some(owner) = self.owning_function(i) {
            let owner_name = self.tokens[owner].text;
            if owner_name != name && ipv4_named(owner_name).is_some() {
                self.push("ipv4-named-api", Severity::Note, i, format!("`{name}` (IPv4 only) inside `{owner_name}`, a function for IPv4: its callers decide the family"));
                return;
            }
        }
        self.push("ipv4-named-api", Severity::Warning, i, format!("`{name}` handles IPv4 only and this file never names `{twin}`; add the IPv6 path or a family-agnostic API"));
    }

    /// Java's `java.net.preferIPv4Stack` (and any `preferIPv4` setting): a
    /// preference between the families, not IPv4-only code. Set to `true`
    /// (`System.setProperty(PREFER_IPV4_STACK, "true")`,
    /// `-Djava.net.preferIPv4Stack=true`) it turns the JVM's IPv6 off: a
    /// warning. Read, cleared or set to false it is nothing in a file with an
    /// IPv6 path, else a note.
    pub(in crate::matcher) fn check_prefer_ipv4(&mut self, i: usize) {
        let token = &self.tokens[i];
        let line = token.line;
        if self.has_match("ipv4-named-api", line) {
            return;
        }
        let set_true = self.enclosing_open(i).is_some_and(|open| {
            self.callee_at(open) == "setProperty"
                && self.argument_position(open, i) == 0
                && self.call_arguments(open).is_some_and(|args| {
                    args.get(1).is_some_and(|a| {
                        a.len() == 1 && self.tokens[a.start].string_content() == "true"
                    })
                })
        });
        let option_true = token.kind == TokenKind::Str
            && token
                .string_content()
                .contains("-Djava.net.preferIPv4Stack=true");
        if set_true || option_true {
            self.push("ipv4-named-api", Severity::Warning, i, "java.net.preferIPv4Stack set to true turns IPv6 off in the whole JVM; leave it unset (or false) so IPv6 addresses work".into());
        } else if token.kind == TokenKind::Ident && !self.has_ipv6_path {
            self.push("ipv4-named-api", Severity::Note, i, format!("`{}` is a preference for IPv4 (java.net.preferIPv4Stack); check it is not set to true and that IPv6 addresses are still handled", token.text));
        }
    }

    /// Go: `golang.org/x/net/ipv4` (`ipv4.ICMPTypeEcho`, `ipv4.NewPacketConn`)
    /// in a file that never imports its ipv6 twin; `net.IPv4(a, b, c, d)`
    /// literals; `net.IPv4zero`/`IPv4bcast`/`IPv4allsys` constants.
    pub(in crate::matcher) fn check_go_ipv4(&mut self, i: usize) {
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
            "CIDRMask" if self.next_is(i, "(") => {
                // `net.CIDRMask(ones, 32)`: a mask for 32-bit addresses.
                let Some(args) = self.call_arguments(i + 1) else {
                    return;
                };
                let bits = args.get(1).map(|a| &self.tokens[a.clone()]);
                if bits.is_some_and(|a| a.len() == 1 && a[0].text == "32") {
                    self.push("address-byte-layout", Severity::Warning, i, "`net.CIDRMask(n, 32)` is a mask for 4-byte (IPv4) addresses; take the bit length from the address (8 * len(ip), 128 for IPv6)".into());
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
    pub(in crate::matcher) fn check_java_to_string(&mut self, i: usize) {
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
        let (is_address, end) = if (ADDRESS_GETTERS.contains(&name) || is_address_getter(name))
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
    pub(in crate::matcher) fn check_js_family_string(&mut self, i: usize) {
        let content = self.tokens[i].string_content();
        match content {
            "udp4" if self.ipv6_network_beside(i, "udp4") => self.push("tcp4-network", Severity::Note, i, "socket type 'udp4' beside 'udp6': the IPv4 half of a per-family pair; check the family is chosen by the address".into()),
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
}

/// Java: a getter named for a socket address (`getQuorumAddress`,
/// `getElectionAddress`, `getClientSocketAddress`), whose value prints as
/// `host/1.2.3.4:80`; not one that returns text or another kind of address
/// (`getHostAddress`, `getMacAddress`, `getEmailAddress`).
fn is_address_getter(name: &str) -> bool {
    const NOT_SOCKET: &[&str] = &[
        "Host", "Mac", "Email", "Mail", "Hardware", "Physical", "Ether", "Url", "Web", "Street",
        "Billing", "Shipping", "Home", "Ip", "IP", "String", "Text",
    ];
    let Some(middle) = name
        .strip_prefix("get")
        .and_then(|rest| rest.strip_suffix("Address"))
    else {
        return false;
    };
    let middle = middle.strip_suffix("Socket").unwrap_or(middle);
    !middle.is_empty()
        && middle.starts_with(|c: char| c.is_ascii_uppercase())
        && !NOT_SOCKET.iter().any(|w| middle.ends_with(w))
}

/// True if the lower-case head of a name, up to and with its IPv4 marker,
/// is a preference for IPv4 (`preferipv4`, `prefer_ipv4`, `preferedipv4`,
/// `java_net_prefer_ipv4`).
fn prefers_ipv4(head: &str) -> bool {
    let head = head.replace('_', "");
    ["preferipv4", "preferedipv4", "preferredipv4"]
        .iter()
        .any(|p| head.ends_with(p))
}
