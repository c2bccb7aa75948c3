//! Matching the rules against a token stream.
//!
//! Each `check_*` function implements one rule (or one family of names) over
//! the tokens of one file. Matching is lexical but grammar-aware: comments are
//! never seen, strings are single tokens, and identifiers carry their node
//! kind. The heuristics for the subtle rules (4-byte assumptions, host:port
//! handling) are spelled out where they are implemented.

mod uses;

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
    /// The contents of every string literal (imports, family names).
    strings: HashSet<&'s str>,
    /// `line_start[l]`: index of the first token on line `l` or later.
    line_start: Vec<usize>,
    /// The file has an IPv6 or family-agnostic path somewhere.
    has_ipv6_path: bool,
    /// Python classes whose body fixes `family = AF_INET`, with the line that does.
    ipv4_classes: Vec<(&'s str, usize)>,
    /// Classes defined in this file (a local `HTTPServer` is not the stdlib's).
    defined_classes: HashSet<&'s str>,
    /// Java: names declared with an address type (`InetSocketAddress peer`).
    address_variables: HashSet<&'s str>,
    matches: Vec<Match>,
}

/// Runs every rule that applies to `context.language` over `tokens`.
pub fn match_tokens(tokens: &[Token<'_>], context: FileContext) -> Vec<Match> {
    let code: Vec<Token<'_>> = tokens
        .iter()
        .filter(|t| t.kind != TokenKind::Comment)
        .cloned()
        .collect();
    let idents: HashSet<&str> = code
        .iter()
        .filter(|t| t.kind == TokenKind::Ident)
        .map(|t| t.text)
        .collect();
    let strings: HashSet<&str> = code
        .iter()
        .filter(|t| t.kind == TokenKind::Str)
        .map(|t| t.string_content())
        .collect();
    let last_line = code.last().map_or(0, |t| t.line);
    let mut line_start = vec![code.len(); last_line + 2];
    for (index, token) in code.iter().enumerate().rev() {
        line_start[token.line] = index;
    }
    for line in (0..last_line + 1).rev() {
        line_start[line] = line_start[line].min(line_start[line + 1]);
    }
    let has_ipv6_path = IPV6_IDENTS.iter().any(|n| idents.contains(n))
        || IPV6_STRINGS.iter().any(|n| strings.contains(n))
        || idents
            .iter()
            .any(|n| n.contains('6') && uses::ipv4_named(&n.replace('6', "4")).is_some());
    let mut matcher = Matcher {
        tokens: &code,
        context,
        idents,
        strings,
        line_start,
        has_ipv6_path,
        ipv4_classes: Vec::new(),
        defined_classes: HashSet::new(),
        address_variables: HashSet::new(),
        matches: Vec::new(),
    };
    matcher.prepare();
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
            if token.node_kind == "regex_pattern" {
                self.check_dotted_quad_string(i);
                continue;
            }
            match token.kind {
                TokenKind::Ident => {
                    self.check_names(i, language);
                    match language {
                        C | Cpp => {
                            self.check_s_addr_integer(i);
                            self.check_u32_address(i);
                            self.check_address_buffer(i);
                            self.check_address_text_buffer(i);
                            self.check_four_byte_copy(i);
                            self.check_sockaddr_fields(i);
                            self.check_plain_sockaddr(i);
                            self.check_ipv4_named_api(i);
                        }
                        Python => {
                            self.check_python_sockets(i);
                            self.check_sockaddr_pair(i);
                        }
                        Go => {
                            self.check_to4(i);
                            self.check_go_ipv4(i);
                        }
                        Java => self.check_java_to_string(i),
                        JavaScript | TypeScript => self.check_js_family(i),
                        Rust => self.check_rust_types(i),
                        _ => {}
                    }
                    self.check_split(i);
                    self.check_dotted_quad_call(i);
                }
                TokenKind::Str => {
                    self.check_literal(i);
                    self.check_join_string(i);
                    self.check_colon_compare(i);
                    self.check_dotted_quad_string(i);
                    match language {
                        Go => self.check_go_network(i),
                        JavaScript | TypeScript => self.check_js_family_string(i),
                        Python => self.check_sockaddr_format(i),
                        _ => {}
                    }
                }
                TokenKind::Number if language.is_c_family() => self.check_four_byte_length(i),
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
        // Flow-aware, where it is cheap: inside a branch on the address
        // family of a file that also handles IPv6, an IPv4 construct is the
        // IPv4 side of dual-stack code.
        let (severity, message) = if self.in_dispatch(token_index) && severity != Severity::Note {
            (
                Severity::Note,
                format!(
                    "{message} (inside a branch on the address family: check it is the IPv4 side)"
                ),
            )
        } else {
            (severity, message)
        };
        self.matches.push(Match {
            rule,
            severity,
            line: token.line,
            column: token.column,
            message,
        });
    }

    /// True inside a family-testing branch of a file that has an IPv6 path.
    fn in_dispatch(&self, i: usize) -> bool {
        self.has_ipv6_path && self.tokens[i].in_family_branch
    }

    /// True if a match of `rule` is already on `line`.
    fn has_match(&self, rule: &str, line: usize) -> bool {
        self.matches
            .iter()
            .rev()
            .take(8)
            .any(|m| m.rule == rule && m.line == line)
    }

    /// The tokens on lines `first..=last`.
    fn lines(&self, first: usize, last: usize) -> std::ops::Range<usize> {
        let start = self.line_start[first.min(self.line_start.len() - 1)];
        let end = self.line_start[(last + 1).min(self.line_start.len() - 1)];
        start..end.max(start)
    }

    fn text_at(&self, j: usize) -> &'s str {
        self.tokens.get(j).map_or("", |t| t.text)
    }

    /// Index of the `(` that opens the call or group enclosing token `i`
    /// (at most 80 tokens back), if any.
    fn enclosing_open(&self, i: usize) -> Option<usize> {
        let mut depth = 0usize;
        let lower = i.saturating_sub(80);
        for j in (lower..i).rev() {
            let t = &self.tokens[j];
            if t.kind != TokenKind::Punct {
                continue;
            }
            match t.text {
                ")" | "]" | "}" => depth += 1,
                "(" | "[" | "{" => {
                    if depth == 0 {
                        return (t.text == "(").then_some(j);
                    }
                    depth -= 1;
                }
                ";" if depth == 0 => return None,
                _ => {}
            }
        }
        None
    }

    /// The name of the function called by the `(` at `open` (`f(`, `a.b.f(`,
    /// `new F(`), or "" when it is not a call.
    fn callee_at(&self, open: usize) -> &'s str {
        match open.checked_sub(1).map(|j| &self.tokens[j]) {
            Some(t) if t.kind == TokenKind::Ident => t.text,
            // A Rust macro: `eprintln!(`.
            Some(t)
                if t.is_punct("!")
                    && open >= 2
                    && self.tokens[open - 2].kind == TokenKind::Ident =>
            {
                self.tokens[open - 2].text
            }
            _ => "",
        }
    }

    /// Index of the first token of the argument of the call opened at `open`
    /// that contains token `i`, and that argument's position.
    fn argument_position(&self, open: usize, i: usize) -> usize {
        let mut depth = 0usize;
        let mut position = 0;
        for j in open + 1..i {
            let t = &self.tokens[j];
            if t.kind != TokenKind::Punct {
                continue;
            }
            match t.text {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth = depth.saturating_sub(1),
                "," if depth == 0 => position += 1,
                _ => {}
            }
        }
        position
    }

    /// One pass before matching: classes defined here, and the Python
    /// classes whose body fixes the address family to AF_INET.
    fn prepare(&mut self) {
        for i in 1..self.tokens.len() {
            if self.tokens[i - 1].is_ident("class") && self.tokens[i].kind == TokenKind::Ident {
                self.defined_classes.insert(self.tokens[i].text);
            }
        }
        if self.context.language == Language::Java {
            self.address_variables = uses::java_address_variables(self.tokens);
        }
        if self.context.language != Language::Python {
            return;
        }
        for i in 0..self.tokens.len() {
            let t = &self.tokens[i];
            if !matches!(t.text, "AF_INET" | "PF_INET") || t.kind != TokenKind::Ident {
                continue;
            }
            // `family = socket.AF_INET` as the first statement of a line...
            let line = self.lines(t.line, t.line);
            let first = &self.tokens[line.start];
            let assigns_family = first.kind == TokenKind::Ident
                && first.text.to_ascii_lowercase().contains("family")
                && self
                    .tokens
                    .get(line.start + 1)
                    .is_some_and(|n| n.is_punct("="));
            if !assigns_family {
                continue;
            }
            // ...directly in a class body: the nearest less-indented `class`
            // or `def` above it is a `class`.
            let indent = first.column;
            let owner = (0..line.start).rev().find(|&j| {
                let o = &self.tokens[j];
                (o.is_ident("class") || o.is_ident("def")) && o.column < indent
            });
            if let Some(j) = owner {
                if self.tokens[j].is_ident("class") {
                    if let Some(name) = self
                        .tokens
                        .get(j + 1)
                        .filter(|n| n.kind == TokenKind::Ident)
                    {
                        self.ipv4_classes.push((name.text, t.line));
                    }
                }
            }
        }
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
    fn fixes_family(&self, i: usize) -> Option<&'static str> {
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
        if previous.is_punct("=") || previous.is_punct(":=") {
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
    fn check_python_sockets(&mut self, i: usize) {
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
    fn check_rust_values(&mut self, i: usize) {
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
    fn check_rust_types(&mut self, i: usize) {
        self.check_rust_values(i);
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
        if self.has_match("s-addr-integer", self.tokens[i].line) {
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
        // In a file with an IPv6 path a 16-byte char array may be a binary
        // IPv6 address (djb's `char ip[16]`).
        let ipv4_sized = if size.text == "4" {
            declared_as_bytes
        } else {
            text_buffer && !(size.text == "16" && self.has_ipv6_path)
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
        if self.check_four_byte_any_argument(i) {
            return;
        }
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

    /// All languages: splitting on `:` without looking for brackets (and
    /// not `user:password`). When a `':' in host` guard precedes the split
    /// (Python), the guard's line is reported: it is where the decision is.
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
        if !splits_on_colon
            || self.brackets_handled_near(i)
            || self.credentials_near(i)
            || self.splits_a_spec(i)
        {
            return;
        }
        let line = self.tokens[i].line;
        let guard = (self.lines(line.saturating_sub(2), line).start..i)
            .rev()
            .find(|&j| {
                let t = &self.tokens[j];
                t.kind == TokenKind::Str
                    && t.string_content() == ":"
                    && self.tokens.get(j + 1).is_some_and(|n| n.is_ident("in"))
            });
        let at = guard.unwrap_or(i);
        self.push("host-port-split", Severity::Warning, at, format!("`{name}` on ':' breaks IPv6 literals; use a bracket-aware host:port parser (net.SplitHostPort, urlsplit, SocketAddr::from_str)"));
    }

    /// True if the split at `i` takes apart something that is not an
    /// endpoint: `module, app = spec.split(':')`, `key, value = line.split(':')`
    /// (names on the left, and none of them an address or port).
    fn splits_a_spec(&self, i: usize) -> bool {
        const SPEC_WORDS: &[&str] = &[
            "module",
            "mod",
            "app",
            "key",
            "value",
            "name",
            "path",
            "file",
            "scheme",
            "proto",
            "label",
            "field",
            "tag",
            "prefix",
            "ns",
            "namespace",
            "section",
            "attr",
            "func",
            "method",
            "cls",
            "klass",
            "obj",
            "target",
            "var",
            "spec",
            "line",
            "header",
        ];
        let receiver =
            (i >= 2 && self.tokens[i - 1].is_punct(".")).then(|| self.tokens[i - 2].text);
        if receiver
            .is_some_and(|r| r != "target" && SPEC_WORDS.contains(&r.to_ascii_lowercase().as_str()))
        {
            return true;
        }
        let line = self.tokens[i].line;
        let range = self.lines(line, line);
        let Some(equals) = (range.start..i).find(|&j| self.tokens[j].is_punct("=")) else {
            return false;
        };
        let targets: Vec<&str> = self.tokens[range.start..equals]
            .iter()
            .filter(|t| t.kind == TokenKind::Ident)
            .map(|t| t.text)
            .collect();
        let endpoint = targets
            .iter()
            .any(|t| is_address_name(t) || t.to_ascii_lowercase().contains("port"));
        !endpoint
            && targets.len() >= 2
            && targets
                .iter()
                .any(|t| SPEC_WORDS.contains(&t.to_ascii_lowercase().as_str()))
    }

    /// True if a `[` or `]` string or character literal is within 12 lines
    /// before or 3 lines after token `i`: the code is probably handling
    /// `[v6]:port` already.
    fn brackets_handled_near(&self, i: usize) -> bool {
        let line = self.tokens[i].line;
        self.tokens[self.lines(line.saturating_sub(12), line + 3)]
            .iter()
            .any(|t| {
                t.kind == TokenKind::Str
                    && (matches!(t.string_content(), "[" | "]")
                        || t.string_content().contains("]:"))
            })
    }

    /// True if the string at `i` is an argument of a logging, printing or
    /// exception call (`log.info(...)`, `raise ValueError(...)`, `throw new
    /// Error(...)`, `fmt.Errorf`): text for people, not an endpoint.
    fn in_message_call(&self, i: usize) -> bool {
        let Some(open) = self.enclosing_open(i) else {
            return false;
        };
        if self.is_message_call(open) {
            return true;
        }
        // `Error::other(format!(...))`, `errors.New(fmt.Sprintf(...))`: the
        // formatted text goes on into a message.
        let formats = matches!(
            self.callee_at(open),
            "format" | "Sprintf" | "sprintf" | "String" | "f" | "format_args"
        );
        formats
            && self
                .enclosing_open(open)
                .is_some_and(|outer| self.is_message_call(outer))
    }

    /// True if the call opened at `open` logs, prints or raises.
    fn is_message_call(&self, open: usize) -> bool {
        let callee = self.callee_at(open);
        let lower = callee.to_ascii_lowercase();
        // `Error::other(`, `errors.New(`: a constructor of an error type.
        let qualifier = open
            .checked_sub(3)
            .filter(|&q| matches!(self.tokens[q + 1].text, "::" | "."))
            .map(|q| self.tokens[q].text.to_ascii_lowercase());
        if qualifier.is_some_and(|q| {
            q.ends_with("error") || q.ends_with("errors") || q.ends_with("exception")
        }) {
            return true;
        }
        let message = matches!(
            lower.as_str(),
            "log"
                | "debug"
                | "info"
                | "warn"
                | "warning"
                | "error"
                | "fatal"
                | "trace"
                | "critical"
                | "exception"
                | "print"
                | "println"
                | "printf"
                | "fprintf"
                | "eprintln"
                | "eprint"
                | "panic"
                | "perror"
                | "syslog"
                | "errorf"
                | "fatalf"
                | "printf_debug"
                | "infof"
                | "debugf"
                | "warnf"
                | "warningf"
                | "logf"
                | "assert"
                | "msg"
        ) || lower.ends_with("error")
            || lower.ends_with("exception")
            || lower.starts_with("log_")
            || lower.starts_with("log")
                && callee
                    .chars()
                    .nth(3)
                    .is_some_and(|c| c.is_ascii_uppercase());
        message || open >= 2 && self.tokens[open - 2].is_ident("raise")
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
            if (concatenated || joined)
                && !self.brackets_handled_near(i)
                && !self.in_message_call(i)
                && !self.credentials_near(i)
            {
                self.push("host-port-join", Severity::Warning, i, "host and port joined with a bare ':' give an ambiguous IPv6 text; bracket the host (net.JoinHostPort, SocketAddr Display)".into());
            }
        } else if has_url_join_format(content) && !self.brackets_handled_near(i) {
            // A URL is made to be used, even in a log line.
            self.push("host-port-join", Severity::Warning, i, "URL built as scheme://host:port with a bare ':'; IPv6 hosts need [brackets] (RFC 3986)".into());
        } else if has_join_format(content)
            && !self.brackets_handled_near(i)
            && !self.in_message_call(i)
        {
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
            && self.tokens[self.lines(token.line.saturating_sub(3), token.line + 3)]
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

/// Identifiers that show a file has an IPv6 or family-agnostic path.
const IPV6_IDENTS: &[&str] = &[
    "AF_INET6",
    "PF_INET6",
    "AF_UNSPEC",
    "PF_UNSPEC",
    "sockaddr_in6",
    "in6_addr",
    "sockaddr_storage",
    "Inet6Address",
    "Ipv6Addr",
    "SocketAddrV6",
    "isIPv6",
    "IPv6Address",
    "is_ipv6",
    "ipv6",
    "IPv6",
];

/// String contents that show a file has an IPv6 path (Node families, Go networks).
const IPV6_STRINGS: &[&str] = &["IPv6", "udp6", "tcp6", "ip6", "golang.org/x/net/ipv6"];

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
    "memchr",
    "memrchr",
    "byte_chr",
    "str_chr",
    "strpbrk",
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

/// `scheme://HOST:PORT` placeholders, `%s:%s` included (after `://` the
/// pair is an endpoint, not `user:password`).
static URL_JOIN_FORMAT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"://(?:%s|%v|\{\}|\{0\}|\{[A-Za-z_][\w.]*\}|\$\{[^{}]+\}):(?:%s|%d|%u|%i|%v|\{\}|\{1\}|\{[A-Za-z_][\w.]*(?::[^}]*)?\}|\$\{[^{}]+\})")
        .expect("the URL host:port pattern is valid")
});

/// True if `content` builds a URL with an unbracketed host:port pair.
fn has_url_join_format(content: &str) -> bool {
    URL_JOIN_FORMAT.is_match(content)
}

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
                | "addresses"
                | "addrs"
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
        ) || role_word(w)
    })
}

/// `localip`, `remoteaddr`, `ipremote`, `peeraddr`: an address word glued to
/// the role it plays.
fn role_word(word: &str) -> bool {
    const ROLES: &[&str] = &[
        "local", "remote", "peer", "src", "dst", "source", "dest", "client", "server", "bind",
        "listen", "my", "gw", "gateway", "next", "public", "private", "sender", "target", "str",
        "buf", "list",
    ];
    for core in ["ip", "addr", "address"] {
        if let Some(role) = word.strip_suffix(core) {
            if ROLES.contains(&role) {
                return true;
            }
        }
        if let Some(role) = word.strip_prefix(core) {
            if ROLES.contains(&role) {
                return true;
            }
        }
    }
    false
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
        assert!(is_address_name("localip"));
        assert!(is_address_name("ipremote"));
        assert!(is_address_name("addresses"));
        assert!(!is_address_name("skip"));
        assert!(!is_address_name("tooltip"));
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
