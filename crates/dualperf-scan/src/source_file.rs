//! Scanning one file: parse, tokenise, match, drop suppressed matches, and
//! turn matches into [`Finding`]s. Configuration files are read as text.

use std::path::Path;

use crate::finding::{fingerprint, Finding};
use crate::language::Language;
use crate::literal::find_ipv4_literals;
use crate::matcher::{literal_advice, match_tokens, FileContext, Match};
use crate::prefilter;
use crate::rule::Severity;
use crate::suppression::Suppressions;
use crate::token::{tokenize_with, KindTable, TokenKind};

/// Reusable per-thread parsing state (a tree-sitter parser is not `Sync`):
/// one parser and one kind table per grammar.
#[derive(Default)]
pub struct FileScanner {
    grammars: Vec<(tree_sitter::Language, tree_sitter::Parser, KindTable)>,
}

/// The result of scanning one file.
#[derive(Debug, Default)]
pub struct FileResult {
    /// Findings that were not suppressed, in line order.
    pub findings: Vec<Finding>,
    /// Number of suppressed findings.
    pub suppressed: usize,
    /// Lines in the file.
    pub lines: usize,
}

impl FileScanner {
    /// Scans `source`, the contents of `display_path` (as shown in output)
    /// written in `language`. `relative_path` (from the scanned path) decides
    /// whether the file is test code; `root_path` (from the scan root) goes
    /// into SARIF and fingerprints.
    pub fn scan_source(
        &mut self,
        source: &str,
        language: Language,
        display_path: &str,
        relative_path: &Path,
    ) -> FileResult {
        self.scan_source_in(source, language, display_path, relative_path, display_path)
    }

    /// [`FileScanner::scan_source`] with the path relative to the scan root.
    pub fn scan_source_in(
        &mut self,
        source: &str,
        language: Language,
        display_path: &str,
        relative_path: &Path,
        root_path: &str,
    ) -> FileResult {
        let context = FileContext {
            language,
            is_test: is_test_path(relative_path),
        };
        let mut suppressions = Suppressions::default();
        let grammar = language.grammar(relative_path);
        if grammar.is_some() && prefilter::enabled() && !prefilter::may_match(source, language) {
            return FileResult {
                lines: line_count(source),
                ..FileResult::default()
            };
        }
        let lexed = language.is_c_family() && !c_grammar_requested();
        let java_lexed = language == Language::Java && !java_grammar_requested();
        let matches = match grammar {
            Some(_) if lexed || java_lexed => {
                let tokens = if java_lexed {
                    crate::clex::tokenize_java(source)
                } else {
                    crate::clex::tokenize_c(source)
                };
                add_comment_suppressions(source, &tokens, &mut suppressions);
                match_tokens(tokens, context)
            }
            Some(grammar) => {
                let index = match self.grammars.iter().position(|(g, _, _)| *g == grammar) {
                    Some(index) => index,
                    None => {
                        let mut parser = tree_sitter::Parser::new();
                        if parser.set_language(&grammar).is_err() {
                            return FileResult::default();
                        }
                        let table = KindTable::new(&grammar);
                        self.grammars.push((grammar, parser, table));
                        self.grammars.len() - 1
                    }
                };
                let (_, parser, table) = &mut self.grammars[index];
                let Some(tree) = parser.parse(source, None) else {
                    return FileResult::default();
                };
                let tokens = tokenize_with(&tree, source, table);
                add_comment_suppressions(source, &tokens, &mut suppressions);
                match_tokens(tokens, context)
            }
            None => scan_config(source, context, &mut suppressions),
        };
        let mut result = FileResult {
            lines: line_count(source),
            ..FileResult::default()
        };
        if matches.is_empty() {
            return result;
        }
        let lines: Vec<&str> = source.lines().collect();
        for m in matches {
            if suppressions.is_suppressed(m.rule, m.line) {
                result.suppressed += 1;
                continue;
            }
            let line_text = lines.get(m.line).copied().unwrap_or("");
            let column = line_text
                .get(..m.column)
                .map_or(m.column, |prefix| prefix.chars().count())
                + 1;
            result.findings.push(Finding {
                rule: m.rule,
                severity: m.severity,
                path: display_path.to_string(),
                root_path: root_path.to_string(),
                line: m.line + 1,
                column,
                message: m.message,
                snippet: line_text.trim_end().to_string(),
                fingerprint: fingerprint(m.rule, root_path, line_text),
            });
        }
        result
    }
}

/// Records the suppression comments among `tokens`.
fn add_comment_suppressions(
    source: &str,
    tokens: &[crate::token::Token<'_>],
    suppressions: &mut Suppressions,
) {
    let mut comments = tokens
        .iter()
        .filter(|t| t.kind == TokenKind::Comment)
        .peekable();
    if comments.peek().is_none() {
        return;
    }
    for token in comments {
        // The text before the comment on its line, from the token's own
        // position in `source` (no line table needed).
        let offset = (token.text.as_ptr() as usize).wrapping_sub(source.as_ptr() as usize);
        let before = offset
            .checked_sub(token.column)
            .and_then(|start| source.get(start..offset))
            .unwrap_or("");
        let own_line = before.trim().is_empty();
        suppressions.add_comment(token.text, token.line, token.end_line, own_line);
    }
}

/// The number of lines `str::lines` would give, without building them.
fn line_count(source: &str) -> usize {
    let newlines = source.bytes().filter(|b| *b == b'\n').count();
    newlines + usize::from(!source.is_empty() && !source.ends_with('\n'))
}

/// True if `DUALPERF_SCAN_C_GRAMMAR` asks to scan C and C++ with the
/// tree-sitter grammars instead of the lexer in [`crate::clex`].
fn c_grammar_requested() -> bool {
    static REQUESTED: std::sync::LazyLock<bool> =
        std::sync::LazyLock::new(|| std::env::var_os("DUALPERF_SCAN_C_GRAMMAR").is_some());
    *REQUESTED
}

/// True if `DUALPERF_SCAN_JAVA_GRAMMAR` asks to scan Java with the
/// tree-sitter grammar instead of the lexer in [`crate::clex`].
fn java_grammar_requested() -> bool {
    static REQUESTED: std::sync::LazyLock<bool> =
        std::sync::LazyLock::new(|| std::env::var_os("DUALPERF_SCAN_JAVA_GRAMMAR").is_some());
    *REQUESTED
}

/// Configuration files: every IPv4 literal outside `#`, `;` and `//` comment lines.
fn scan_config(source: &str, context: FileContext, suppressions: &mut Suppressions) -> Vec<Match> {
    let mut matches = Vec::new();
    for (number, line) in source.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with('#') || trimmed.starts_with(';') || trimmed.starts_with("//") {
            suppressions.add_comment(trimmed, number, number, true);
            continue;
        }
        if let Some(position) = line.find(" #").or_else(|| line.find("\t#")) {
            suppressions.add_comment(&line[position..], number, number, false);
        }
        let severity = if context.is_test {
            Severity::Note
        } else {
            Severity::Warning
        };
        for literal in find_ipv4_literals(line) {
            matches.push(Match {
                rule: "ipv4-literal",
                severity,
                line: number,
                column: literal.offset,
                message: format!(
                    "hard-coded IPv4 address {} in configuration; {}",
                    literal.address,
                    literal_advice(literal.address)
                ),
            });
        }
    }
    matches
}

/// True for paths of test code, where address literals are usually data.
pub fn is_test_path(path: &Path) -> bool {
    let directories = path.parent().into_iter().flat_map(|p| p.components());
    let test_directory = directories.filter_map(|c| c.as_os_str().to_str()).any(|c| {
        matches!(
            c,
            "test" | "tests" | "testdata" | "testing" | "__tests__" | "spec" | "testsuite" | "t"
        )
    });
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let stem = name.split('.').next().unwrap_or("");
    test_directory
        || stem.starts_with("test_")
        || stem.ends_with("_test")
        || stem.ends_with("_tests")
        || name.contains(".test.")
        || name.contains(".spec.")
        || stem.ends_with("Test")
        || stem.ends_with("Tests")
}

/// True if the first kilobyte of `source` carries a generated-code marker.
pub fn is_generated(source: &str) -> bool {
    let mut end = source.len().min(1024);
    while !source.is_char_boundary(end) {
        end -= 1;
    }
    let head = &source[..end];
    [
        "@generated",
        "DO NOT EDIT",
        "Code generated",
        "automatically generated",
        "autogenerated",
        "Generated by",
    ]
    .iter()
    .any(|marker| head.contains(marker))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_paths_are_recognised() {
        assert!(is_test_path(Path::new("src/tests/net.c")));
        assert!(is_test_path(Path::new("pkg/dial_test.go")));
        assert!(is_test_path(Path::new("test_socket.py")));
        assert!(is_test_path(Path::new("web/api.spec.ts")));
        assert!(!is_test_path(Path::new("src/net.c")));
        assert!(!is_test_path(Path::new("src/contest.c")));
    }

    #[test]
    fn config_comment_lines_are_not_scanned() {
        let mut scanner = FileScanner::default();
        let result = scanner.scan_source(
            "# listen 10.0.0.1\nlisten = 0.0.0.0:80\n",
            Language::Config,
            "a.conf",
            Path::new("a.conf"),
        );
        assert_eq!(result.findings.len(), 1);
        assert_eq!(
            (result.findings[0].line, result.findings[0].column),
            (2, 10)
        );
    }
}
