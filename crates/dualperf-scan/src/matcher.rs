//! Matching the rules against a token stream.
//!
//! Each `check_*` function implements one rule (or one family of names) over
//! the tokens of one file. Matching is lexical but grammar-aware: comments are
//! never seen, strings are single tokens, and identifiers carry their node
//! kind. The heuristics for the subtle rules (4-byte assumptions, host:port
//! handling) are spelled out where they are implemented.

mod classify;
mod colon_helpers;
mod command;
mod decoder;
mod header;
mod integers;
mod last_colon;
mod layout;
mod names;
mod parts;
mod prefix;
mod prose;
mod scope;
#[cfg(test)]
mod severity_round7_tests;
#[cfg(test)]
mod severity_tests;
mod skip;
mod split_parts;
mod text;
mod typed;
mod uses;
mod words;

/// Test support shared by the matcher's tests: the severities of the
/// findings of `rule` in `source`, in line order.
#[cfg(test)]
pub(crate) fn severities(
    source: &str,
    language: crate::Language,
    path: &str,
    rule: &str,
) -> Vec<crate::Severity> {
    crate::scan_source(source, language, path)
        .into_iter()
        .filter(|f| f.rule == rule)
        .map(|f| f.severity)
        .collect()
}

/// Sets of identifiers are built for every file: a fast, non-cryptographic
/// hash (foldhash, also hashbrown's) instead of SipHash.
pub(crate) type HashSet<T> = foldhash::HashSet<T>;

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
    /// Rust: the index of the first token of a `#[cfg(test)] mod` (test code
    /// inside a source file), if any.
    rust_test_module: Option<usize>,
    /// Lines with a trailing comment that names a host or address field
    /// (`+ 8 // 10 BORNHOST`): a layout table's annotation.
    address_comment_lines: HashSet<usize>,
    /// Constants this file sets to `":"` (`SEPARATOR = ":"`): splitting on
    /// one is splitting on a colon.
    colon_constants: HashSet<&'s str>,
    /// Go: fields whose first 4 bytes receive an address, and their types
    /// (`copy(p.ID[:4], p.Addr)`, `ID tcpID`).
    address_prefixed: HashSet<&'s str>,
    /// Java: values declared with an IPv4-named type, `(name, type)`.
    ipv4_typed: Vec<(&'s str, &'s str)>,
    /// Tokens reported as a dotted-quad pattern (a regex, a character set,
    /// a wildcard): the functions holding them are IPv4 validators.
    dotted_patterns: Vec<usize>,
    /// What the passes after matching need to look for at all.
    hints: classify::Hints,
    /// What the file's strings say about running nmap.
    nmap: command::NmapUse,
    matches: Vec<Match>,
}

/// Runs every rule that applies to `context.language` over `tokens`.
pub fn match_tokens(mut tokens: Vec<Token<'_>>, context: FileContext) -> Vec<Match> {
    let address_comment_lines = layout::address_comment_lines(&tokens);
    tokens.retain(|t| t.kind != TokenKind::Comment);
    let code = tokens;
    let idents: HashSet<&str> = code
        .iter()
        .filter(|t| t.kind == TokenKind::Ident)
        .map(|t| t.text)
        .collect();
    // C and C++ rules look strings up only for the IPv6 markers below.
    let strings: HashSet<&str> = if context.language.is_c_family() {
        code.iter()
            .filter(|t| t.kind == TokenKind::Str && IPV6_STRINGS.contains(&t.string_content()))
            .map(|t| t.string_content())
            .collect()
    } else {
        code.iter()
            .filter(|t| t.kind == TokenKind::Str)
            .map(|t| t.string_content())
            .collect()
    };
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
        // An IPv6 wildcard or loopback written out (`"[::]:0"`, `"::1"`).
        || code.iter().any(|t| {
            t.kind == TokenKind::Str
                && matches!(
                    t.string_content(),
                    "::" | "::1" | "[::]" | "[::1]" | "[::]:0" | "[::1]:0"
                )
        })
        || idents
            .iter()
            .any(|n| n.contains('6') && uses::ipv4_named(&n.replace('6', "4")).is_some())
        // An IPv6 header's addresses sliced out (`data[8:24]`, RFC 8200).
        || code.windows(5).any(|w| {
            w[0].is_punct("[")
                && matches!((w[1].text, w[3].text), ("8", "24") | ("24", "40"))
                && (w[2].is_punct(":") || w[2].is_punct(".."))
                && w[4].is_punct("]")
        });
    let mut matcher = Matcher {
        tokens: &code,
        context,
        idents,
        strings,
        line_start,
        has_ipv6_path,
        ipv4_classes: Vec::new(),
        defined_classes: HashSet::default(),
        address_variables: HashSet::default(),
        rust_test_module: None,
        address_comment_lines,
        colon_constants: text::colon_constants(&code),
        address_prefixed: if context.language == Language::Go {
            prefix::address_prefixed_names(&code)
        } else {
            HashSet::default()
        },
        ipv4_typed: Vec::new(),
        nmap: command::NmapUse::of(&code),
        dotted_patterns: Vec::new(),
        hints: classify::Hints::default(),
        matches: Vec::new(),
    };
    matcher.prepare();
    matcher.run();
    matcher.check_classifiers();
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
                            self.check_int32_address(i);
                            self.check_go_uint32_read(i);
                        }
                        Java => {
                            self.check_java_to_string(i);
                            self.check_ipv4_typed_use(i);
                            self.check_int32_address(i);
                        }
                        JavaScript | TypeScript => self.check_js_family(i),
                        Rust => {
                            self.check_rust_types(i);
                            self.check_rust_variants(i);
                            self.check_int32_address(i);
                        }
                        _ => {}
                    }
                    if !language.is_c_family() && language != Config {
                        self.check_ipv4_named_identifier(i);
                    }
                    self.check_ihl(i);
                    if language != Config {
                        self.check_ipv4_header_field(i);
                        self.check_ipv6_skipped(i);
                    }
                    if language != Python && language != Config {
                        self.check_four_part_parameters(i);
                    }
                    self.check_split(i);
                    self.check_dotted_quad_call(i);
                    if matches!(language, Java | JavaScript | TypeScript) {
                        self.check_colon_index_substring(i);
                    }
                    self.check_colon_constant_join(i);
                    self.check_colon_constant_compare(i);
                }
                TokenKind::Str => {
                    self.check_literal(i);
                    self.check_join_string(i);
                    self.check_append_join(i);
                    self.check_colon_compare(i);
                    self.check_colon_count(i);
                    self.check_dotted_quad_string(i);
                    if !matches!(language, Rust | Config) {
                        self.check_dotted_format(i);
                    }
                    self.check_sql_address_column(i);
                    self.check_nmap_command(i);
                    match language {
                        Go => self.check_go_network(i),
                        JavaScript | TypeScript => self.check_js_family_string(i),
                        Python => self.check_sockaddr_format(i),
                        Java if token.string_content().contains("preferIPv4Stack") => {
                            self.check_prefer_ipv4(i)
                        }
                        _ => {}
                    }
                }
                TokenKind::Number => {
                    self.check_multicast_range(i);
                    self.note_decoder_hint(i);
                    self.check_address_parts(i);
                    self.check_compact_peer(i);
                    if language.is_c_family() {
                        self.check_four_byte_length(i);
                    }
                    if language == Go && self.check_address_prefixed_array(i) {
                        continue;
                    }
                    self.check_layout_number(i);
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
        self.push_with(rule, severity, token_index, message, true);
    }

    /// [`Matcher::push`]; `prose` false keeps the severity in text for
    /// people (a URL in a log line is still made to be used).
    fn push_with(
        &mut self,
        rule: &'static str,
        severity: Severity,
        token_index: usize,
        message: String,
        prose: bool,
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
        } else if prose && severity != Severity::Note && PROSE_RULES.contains(&rule) {
            match self.prose_context(token_index) {
                Some(what) => (
                    Severity::Note,
                    format!("{message} (in {what}: read by people, check it is not also used)"),
                ),
                None => (severity, message),
            }
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

    /// True for test code: a test file, or a Rust `#[cfg(test)] mod` (taken
    /// to run to the end of the file, where Rust puts it).
    fn in_test_code(&self, i: usize) -> bool {
        self.context.is_test || self.rust_test_module.is_some_and(|start| i > start)
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

    /// True if any match is already on `line`.
    fn has_any_match(&self, line: usize) -> bool {
        self.matches.iter().rev().take(8).any(|m| m.line == line)
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
        self.enclosing_open_within(i, 80)
    }

    /// [`Matcher::enclosing_open`], looking at most `limit` tokens back (a
    /// log call continued over several lines).
    fn enclosing_open_within(&self, i: usize, limit: usize) -> Option<usize> {
        let mut depth = 0usize;
        let lower = i.saturating_sub(limit);
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
            self.ipv4_typed = typed::java_ipv4_typed(self.tokens, &self.idents);
        }
        if self.context.language == Language::Rust {
            self.rust_test_module = self.first_rust_test_module();
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

    /// The first token of the first `#[cfg(test)] mod`, or of a `mod`
    /// under any `cfg` that requires `test` (`#[cfg(all(test, feature =
    /// "benchmark"))]`; not `#[cfg(not(test))]`).
    fn first_rust_test_module(&self) -> Option<usize> {
        let tokens = self.tokens;
        (0..tokens.len()).find(|&i| {
            if !(tokens[i].is_ident("cfg") && self.next_is(i, "(")) {
                return false;
            }
            let mut depth = 0usize;
            let mut needs_test = false;
            for j in i + 1..tokens.len().min(i + 40) {
                let t = &tokens[j];
                if t.is_punct("(") {
                    depth += 1;
                } else if t.is_punct(")") {
                    depth -= 1;
                    if depth == 0 {
                        return needs_test
                            && self.next_is(j, "]")
                            && tokens.get(j + 2).is_some_and(|m| m.is_ident("mod"));
                    }
                } else if t.is_ident("test") {
                    let negated = j >= 2 && tokens[j - 2].is_ident("not");
                    needs_test |= !negated;
                }
            }
            false
        })
    }

    fn next_is(&self, i: usize, text: &str) -> bool {
        self.tokens
            .get(i + 1)
            .is_some_and(|t| t.kind == TokenKind::Punct && t.text == text)
    }

    fn previous_is(&self, i: usize, text: &str) -> bool {
        i > 0 && self.tokens[i - 1].kind == TokenKind::Punct && self.tokens[i - 1].text == text
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
}

use words::{
    has_join_format, has_turn_join_format, has_url_join_format, ipv6_option_twin, ADDRESS_FIELDS,
    BYTE_TYPES, INTEGER_TYPES, IPV6_IDENTS, IPV6_STRINGS, PROSE_RULES, SPLIT_FUNCTIONS,
};
pub use words::{is_address_name, literal_advice};
