//! Inline suppressions: `dualperf-scan: ignore[rule-id, other-id]` (or a bare
//! `dualperf-scan: ignore` for every rule) in a comment on the finding's line
//! or alone on the line above.

use std::collections::HashMap;

const MARKER: &str = "dualperf-scan: ignore";

/// Which rules are suppressed on which lines (0-based).
#[derive(Debug, Default)]
pub struct Suppressions {
    /// Line → rule ids; `None` means every rule.
    by_line: HashMap<usize, Option<Vec<String>>>,
}

impl Suppressions {
    /// Records a comment spanning `first_line..=last_line`. A comment on a
    /// line of its own (`own_line`) also covers the line after it; a trailing
    /// comment covers only its own line.
    pub fn add_comment(&mut self, text: &str, first_line: usize, last_line: usize, own_line: bool) {
        let Some(position) = text.find(MARKER) else {
            return;
        };
        let rest = &text[position + MARKER.len()..];
        let rules = rest
            .strip_prefix('[')
            .and_then(|r| r.split_once(']'))
            .map(|(ids, _)| {
                ids.split(',')
                    .map(|id| id.trim().to_string())
                    .filter(|id| !id.is_empty())
                    .collect()
            });
        let last_covered = if own_line { last_line + 1 } else { last_line };
        for line in first_line..=last_covered {
            self.by_line.insert(line, rules.clone());
        }
    }

    /// True if a finding of `rule` on `line` (0-based) is suppressed.
    pub fn is_suppressed(&self, rule: &str, line: usize) -> bool {
        let covers = |line: usize| match self.by_line.get(&line) {
            Some(None) => true,
            Some(Some(rules)) => rules.iter().any(|r| r == rule),
            None => false,
        };
        covers(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_comment_suppresses_its_line_and_the_next() {
        let mut s = Suppressions::default();
        s.add_comment(
            "// dualperf-scan: ignore[inet-addr, ipv4-literal]",
            4,
            4,
            true,
        );
        assert!(s.is_suppressed("inet-addr", 4));
        assert!(s.is_suppressed("ipv4-literal", 5));
        assert!(!s.is_suppressed("inet-addr", 6));
        assert!(!s.is_suppressed("inet-ntoa", 4));
    }

    #[test]
    fn a_bare_marker_suppresses_every_rule() {
        let mut s = Suppressions::default();
        s.add_comment("# dualperf-scan: ignore", 0, 0, true);
        assert!(s.is_suppressed("anything", 1));
    }

    #[test]
    fn a_trailing_comment_suppresses_only_its_own_line() {
        let mut s = Suppressions::default();
        s.add_comment("# dualperf-scan: ignore", 3, 3, false);
        assert!(s.is_suppressed("inet-addr", 3));
        assert!(!s.is_suppressed("inet-addr", 4));
    }
}
