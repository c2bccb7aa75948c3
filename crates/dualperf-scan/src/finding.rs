//! A finding: one rule matched at one place in one file.

use crate::rule::Severity;

/// One reported construct.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Finding {
    /// The rule id (see [`crate::rules::RULES`]).
    pub rule: &'static str,
    /// Severity of this finding (a rule's default, or lower for data).
    pub severity: Severity,
    /// The file, as reached from the scanned path (forward slashes).
    pub path: String,
    /// The file relative to the scan root (`--root`, default the scanned
    /// path), forward slashes: SARIF's artifact URI and the fingerprint's path.
    #[serde(skip)]
    pub root_path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in Unicode code points.
    pub column: usize,
    /// What was found and what to do about it, in one sentence.
    pub message: String,
    /// The source line, without its line break.
    pub snippet: String,
    /// Stable identity for baselines: hash of rule, root-relative path and
    /// normalised line text (not the line number, so findings survive edits
    /// above them, nor where the tree lives).
    pub fingerprint: String,
}

/// FNV-1a 64-bit hash: tiny, stable across Rust versions and platforms
/// (unlike `DefaultHasher`), good enough to tell findings apart.
pub fn fnv1a64(parts: &[&str]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for byte in part.bytes().chain(std::iter::once(0xff)) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

/// The fingerprint of a finding of `rule` in `path` on a line reading `line_text`.
/// Whitespace is collapsed, so re-indenting does not make a finding new.
pub fn fingerprint(rule: &str, path: &str, line_text: &str) -> String {
    let normalised: Vec<&str> = line_text.split_whitespace().collect();
    format!("{:016x}", fnv1a64(&[rule, path, &normalised.join(" ")]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_ignore_indentation_but_not_content() {
        let a = fingerprint("inet-addr", "a.c", "  x = inet_addr(h);");
        let b = fingerprint("inet-addr", "a.c", "x  =  inet_addr(h);   ");
        let c = fingerprint("inet-addr", "a.c", "y = inet_addr(h);");
        assert_eq!(a, b);
        assert_ne!(a, c);
    }
}
