//! Flattening a tree-sitter syntax tree into a token stream.
//!
//! The rules in [`crate::matcher`] work on tokens, not on grammar-specific
//! node kinds, so one matcher serves eight grammars. What the parser adds is
//! the part a regex cannot do: comments become [`TokenKind::Comment`] (never
//! matched, only read for suppressions), string literals become one
//! [`TokenKind::Str`] token (so `"inet_addr"` is not a call), and each
//! identifier keeps its node kind (so a Rust `type_identifier` is told from a
//! path segment). C macro bodies (`preproc_arg`), which tree-sitter leaves as
//! opaque text, are split with a small lexer.

/// What a token is.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum TokenKind {
    /// An identifier or keyword.
    Ident,
    /// A numeric literal.
    Number,
    /// A string or character literal (the whole literal, quotes included).
    Str,
    /// A comment.
    Comment,
    /// Anything else: operators and punctuation.
    Punct,
}

/// One token with its position (0-based line, 0-based byte column).
#[derive(Clone, Debug)]
pub struct Token<'s> {
    /// The kind.
    pub kind: TokenKind,
    /// The source text of the token.
    pub text: &'s str,
    /// 0-based line of the first byte.
    pub line: usize,
    /// 0-based byte column of the first byte.
    pub column: usize,
    /// 0-based line of the last byte (differs for multi-line literals and comments).
    pub end_line: usize,
    /// The grammar's node kind (for identifiers: `type_identifier`, ...).
    pub node_kind: &'s str,
    /// The parent node's kind (for strings: is it inside an array or list?).
    pub parent_kind: &'s str,
    /// True inside a branch whose condition or case label tests the address
    /// family (`case AF_INET:`, `if (family == AF_INET6) ... else ...`).
    pub in_family_branch: bool,
}

impl Token<'_> {
    /// The contents of a string or character literal: prefixes (`f`, `r`,
    /// `b`, `L`, `u8`...), quotes and a Rust raw string's `#`s removed.
    pub fn string_content(&self) -> &str {
        let text = self
            .text
            .trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '#');
        let text = text.trim_end_matches('#');
        for quote in ["\"\"\"", "'''", "\"", "'", "`"] {
            if let Some(inner) = text.strip_prefix(quote).and_then(|t| t.strip_suffix(quote)) {
                return inner;
            }
        }
        text
    }

    /// True for an identifier with this exact text.
    pub fn is_ident(&self, name: &str) -> bool {
        self.kind == TokenKind::Ident && self.text == name
    }

    /// True for punctuation with this exact text.
    pub fn is_punct(&self, text: &str) -> bool {
        self.kind == TokenKind::Punct && self.text == text
    }
}

const STRING_KINDS: &[&str] = &[
    "string_literal",
    "raw_string_literal",
    "char_literal",
    "character_literal",
    "system_lib_string",
    "string",
    "template_string",
    "interpreted_string_literal",
    "rune_literal",
    "text_block",
];

/// Node kinds that start a branch whose condition may test the address
/// family (`case AF_INET:`, `if (sa->sa_family == AF_INET6)`, `elif ipv6:`).
const BRANCH_KINDS: &[&str] = &[
    "case_statement",
    "if_statement",
    "elif_clause",
    "if_expression",
    "conditional_expression",
    "ternary_expression",
    "expression_case",
    "switch_block_statement_group",
    "switch_case",
    "match_arm",
];

/// True if `node` is a branch whose condition (or case label) names an
/// address family: the subtree is family-dispatching code.
fn is_family_branch(node: &tree_sitter::Node<'_>, source: &[u8]) -> bool {
    let condition = node
        .child_by_field_name("condition")
        // A Rust `match_arm` has both: its `value` is the arm's body.
        .or_else(|| node.child_by_field_name("pattern"))
        .or_else(|| node.child_by_field_name("value"))
        .or_else(|| node.named_child(0));
    let Some(condition) = condition else {
        return false;
    };
    let range = condition.byte_range();
    if range.len() > 400 {
        return false;
    }
    names_a_family(&source[range])
}

/// True if `text` (a branch condition) mentions an address family.
pub fn names_a_family(text: &[u8]) -> bool {
    const MARKERS: &[&[u8]] = &[
        b"af_inet", b"pf_inet", b"family", b"ipv6", b"ipv4", b"inet6", b"inet4", b"is4", b"is6",
        b"to4", b"to16", b"::v4", b"::v6", b"is_ipv", b"v4(", b"v6(",
    ];
    // A network name compared or matched (`case "ip4":`, `if (type === 'udp6')`).
    const NETWORKS: &[&[u8]] = &[
        b"\"ip4",
        b"\"ip6",
        b"\"tcp4\"",
        b"\"tcp6\"",
        b"\"udp4\"",
        b"\"udp6\"",
        b"'ip4",
        b"'ip6",
        b"'tcp4'",
        b"'tcp6'",
        b"'udp4'",
        b"'udp6'",
    ];
    let lower: Vec<u8> = text.iter().map(u8::to_ascii_lowercase).collect();
    let has = |marker: &[u8]| lower.windows(marker.len()).any(|w| w == marker);
    if MARKERS.iter().any(|marker| has(marker)) || NETWORKS.iter().any(|marker| has(marker)) {
        return true;
    }
    // `if version == 4`: the IP version of a packet; `ip[0] >> 4 == 4`: its
    // version nibble (RFC 791 §3.1, RFC 8200 §3); `b[0] & 0xf0 == 0x40`.
    let version = has(b"version");
    if !(version || has(b">>") || has(b"0xf0")) {
        return false;
    }
    // Without blanks and parentheses: `(ip[0] >> 4) == 4` reads `ip[0]>>4==4`.
    let packed: Vec<u8> = lower
        .iter()
        .copied()
        .filter(|c| !c.is_ascii_whitespace() && !matches!(c, b'(' | b')'))
        .collect();
    let packed_has = |marker: &[u8]| packed.windows(marker.len()).any(|w| w == marker);
    let compared_with_version = |prefix: &[u8]| {
        [
            &b"==4"[..],
            b"==6",
            b"!=4",
            b"!=6",
            b"===4",
            b"===6",
            b"!==4",
            b"!==6",
        ]
        .iter()
        .any(|m| packed_has(&[prefix, m].concat()))
    };
    version && compared_with_version(b"")
        || compared_with_version(b">>4")
        || [
            &b"&0xf0==0x40"[..],
            b"&0xf0==0x60",
            b"&0xf0!=0x40",
            b"&0xf0!=0x60",
        ]
        .iter()
        .any(|m| packed_has(m))
}

/// What each node kind of one grammar is, by kind id: looked up once per
/// grammar instead of comparing kind names for every node.
#[derive(Debug)]
pub struct KindTable {
    string: Vec<bool>,
    comment: Vec<bool>,
    branch: Vec<bool>,
}

impl KindTable {
    /// The table of `language` (a tree-sitter grammar).
    pub fn new(language: &tree_sitter::Language) -> KindTable {
        let count = language.node_kind_count();
        let mut table = KindTable {
            string: vec![false; count],
            comment: vec![false; count],
            branch: vec![false; count],
        };
        for id in 0..count {
            let Ok(id16) = u16::try_from(id) else { break };
            let Some(kind) = language.node_kind_for_id(id16) else {
                continue;
            };
            let named = language.node_kind_is_named(id16);
            table.string[id] = named && STRING_KINDS.contains(&kind);
            table.comment[id] = kind.contains("comment");
            table.branch[id] = BRANCH_KINDS.contains(&kind);
        }
        table
    }

    fn get(flags: &[bool], id: u16) -> bool {
        flags.get(usize::from(id)).copied().unwrap_or(false)
    }
}

/// Flattens the syntax tree of `source` into tokens, in source order.
pub fn tokenize<'s>(tree: &'s tree_sitter::Tree, source: &'s str) -> Vec<Token<'s>> {
    tokenize_with(tree, source, &KindTable::new(&tree.language()))
}

/// [`tokenize`] with the grammar's [`KindTable`] built once by the caller.
///
/// The walk is one tree cursor; each node's parent (and whether it is inside
/// a family-testing branch) is kept on a stack as the cursor descends,
/// instead of asking tree-sitter for `node.parent()`, which walks down from
/// the root again for every token.
pub fn tokenize_with<'s>(
    tree: &'s tree_sitter::Tree,
    source: &'s str,
    table: &KindTable,
) -> Vec<Token<'s>> {
    let bytes = source.as_bytes();
    let mut tokens = Vec::with_capacity(source.len() / 12);
    let mut cursor = tree.walk();
    // The ancestors of the cursor's node: the node and its family-branch flag.
    let mut ancestors: Vec<(tree_sitter::Node<'s>, bool)> = Vec::with_capacity(64);
    let mut descend = true;
    loop {
        if descend {
            let node = cursor.node();
            let id = node.kind_id();
            let is_string = KindTable::get(&table.string, id);
            let parent = ancestors.last().map(|(p, _)| *p);
            let in_family_branch = ancestors.last().is_some_and(|(_, f)| *f);
            // A string that is a statement on its own is a docstring (Python)
            // or a directive ("use strict"): documentation, read as a comment.
            let is_docstring = is_string
                && parent.is_some_and(|p| {
                    p.kind() == "expression_statement" && p.named_child_count() == 1
                });
            let is_comment = KindTable::get(&table.comment, id) || is_docstring;
            if !is_comment && !is_string {
                let flag = in_family_branch
                    || (KindTable::get(&table.branch, id) && is_family_branch(&node, bytes));
                if cursor.goto_first_child() {
                    ancestors.push((node, flag));
                    continue;
                }
            }
            // A leaf, a string or a comment: one token.
            let kind = node.kind();
            let range = node.byte_range();
            if kind == "preproc_arg" {
                lex_macro_body(&node, source, in_family_branch, &mut tokens);
            } else if let Some(text) = source.get(range).filter(|t| !t.is_empty()) {
                let token_kind = if is_comment {
                    TokenKind::Comment
                } else if is_string {
                    TokenKind::Str
                } else {
                    classify(text)
                };
                let start = node.start_position();
                tokens.push(Token {
                    kind: token_kind,
                    text,
                    line: start.row,
                    column: start.column,
                    end_line: if text.contains('\n') {
                        node.end_position().row
                    } else {
                        start.row
                    },
                    node_kind: kind,
                    parent_kind: parent.map_or("", |p| p.kind()),
                    in_family_branch,
                });
            }
            descend = false;
        } else if cursor.goto_next_sibling() {
            descend = true;
        } else if cursor.goto_parent() {
            ancestors.pop();
        } else {
            break;
        }
    }
    tokens
}

fn classify(text: &str) -> TokenKind {
    let first = text.chars().next().unwrap_or(' ');
    if first.is_alphabetic() || first == '_' || first == '$' {
        TokenKind::Ident
    } else if first.is_ascii_digit() {
        TokenKind::Number
    } else {
        TokenKind::Punct
    }
}

/// The token of a C macro body that starts at `start` (not whitespace):
/// its kind and the byte after it. Comments, string and character
/// literals (to the closing quote or the end of the line), identifiers and
/// numbers, else one punctuation byte plus any non-ASCII bytes after it.
/// Shared by the tree-sitter path and the hand lexer (`crate::clex`).
pub(crate) fn macro_token(bytes: &[u8], start: usize) -> (TokenKind, usize) {
    let c = bytes[start];
    let mut i = start;
    let kind = if c == b'/' && bytes.get(i + 1) == Some(&b'/') {
        while i < bytes.len() && bytes[i] != b'\n' {
            i += 1;
        }
        TokenKind::Comment
    } else if c == b'/' && bytes.get(i + 1) == Some(&b'*') {
        i += 2;
        while i + 1 < bytes.len() && !(bytes[i] == b'*' && bytes[i + 1] == b'/') {
            i += 1;
        }
        i = (i + 2).min(bytes.len());
        TokenKind::Comment
    } else if c == b'"' || c == b'\'' {
        i += 1;
        while i < bytes.len() && bytes[i] != c && bytes[i] != b'\n' {
            i += if bytes[i] == b'\\' { 2 } else { 1 };
        }
        i = (i + 1).min(bytes.len());
        TokenKind::Str
    } else if c.is_ascii_alphanumeric() || c == b'_' {
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
            i += 1;
        }
        if c.is_ascii_digit() {
            TokenKind::Number
        } else {
            TokenKind::Ident
        }
    } else {
        i += 1;
        while i < bytes.len() && !bytes[i].is_ascii() {
            i += 1;
        }
        TokenKind::Punct
    };
    (kind, i)
}

/// Splits a C macro body into tokens with their real positions.
fn lex_macro_body<'s>(
    node: &tree_sitter::Node,
    source: &'s str,
    in_family_branch: bool,
    tokens: &mut Vec<Token<'s>>,
) {
    let range = node.byte_range();
    let body = &source[range.clone()];
    let bytes = body.as_bytes();
    let (mut line, mut column) = (node.start_position().row, node.start_position().column);
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        let (start_line, start_column) = (line, column);
        let kind = if c == b'\n' {
            line += 1;
            column = 0;
            i += 1;
            continue;
        } else if c.is_ascii_whitespace() || c == b'\\' {
            i += 1;
            column += 1;
            continue;
        } else {
            let (kind, end) = macro_token(bytes, start);
            i = end;
            kind
        };
        let text = &body[start..i];
        let newlines = text.matches('\n').count();
        if newlines > 0 {
            line += newlines;
            column = text.len() - text.rfind('\n').map_or(0, |p| p + 1);
        } else {
            column += text.len();
        }
        tokens.push(Token {
            kind,
            text,
            line: start_line,
            column: start_column,
            end_line: line,
            node_kind: "preproc_arg",
            parent_kind: "preproc_def",
            in_family_branch,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens_of(source: &str) -> Vec<(TokenKind, String)> {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&tree_sitter_c::LANGUAGE.into())
            .expect("C grammar loads");
        let tree = parser.parse(source, None).expect("parser returns a tree");
        tokenize(&tree, source)
            .into_iter()
            .map(|t| (t.kind, t.text.to_string()))
            .collect()
    }

    #[test]
    fn comments_and_strings_are_single_tokens() {
        let tokens = tokens_of("/* inet_addr */ int x = f(\"inet_addr\");");
        assert_eq!(tokens[0], (TokenKind::Comment, "/* inet_addr */".into()));
        assert!(tokens.contains(&(TokenKind::Str, "\"inet_addr\"".into())));
        assert!(!tokens.contains(&(TokenKind::Ident, "inet_addr".into())));
    }

    #[test]
    fn macro_bodies_are_split_into_tokens() {
        let tokens = tokens_of("#define ADDR inet_addr(\"1.2.3.4\") // note\n");
        assert!(tokens.contains(&(TokenKind::Ident, "inet_addr".into())));
        assert!(tokens.contains(&(TokenKind::Str, "\"1.2.3.4\"".into())));
    }
}
