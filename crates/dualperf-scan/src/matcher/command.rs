//! Command lines of tools that reach IPv6 targets only when told to:
//! `nmap` scans IPv4 unless it is given `-6` ("looks like an IPv6 target
//! specification -- you have to use the -6 option"). A program that builds
//! an nmap command line and never writes `-6` cannot scan an IPv6 host.
//! `ping` and `traceroute` are left out: current Linux and Windows versions
//! choose the family from the address.

use super::Matcher;
use crate::rule::Severity;
use crate::token::{Token, TokenKind};

/// nmap options that mark a string as part of an nmap command line.
const NMAP_OPTIONS: &[&str] = &[
    "-Pn", "-sV", "-sS", "-sT", "-sU", "-sn", "-sC", "-sP", "-oX", "-oN", "-oG", "-oA", "-T4",
    "-T3", "-T5", "-vvv", "-vv", "--open", "-p", "-p-", "-A", "-O", "-F",
];

/// What a file's strings say about nmap.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct NmapUse {
    /// A string runs nmap: the program name (`"nmap"`, `"/usr/bin/nmap"`)
    /// or a command line starting with it (`"nmap -sV %s"`).
    pub runs: bool,
    /// A string holds nmap options (`"-Pn"`, `"-p"`) beside the program.
    pub has_options: bool,
    /// A string passes `-6` (or the file names an IPv6 switch for it).
    pub has_six: bool,
}

impl NmapUse {
    /// Reads every string of a file once.
    pub(super) fn of(tokens: &[Token<'_>]) -> Self {
        let mut found = Self::default();
        for token in tokens.iter().filter(|t| t.kind == TokenKind::Str) {
            let content = token.string_content();
            if is_nmap_program(content) || content.starts_with("nmap ") {
                found.runs = true;
            }
            if NMAP_OPTIONS.contains(&content) {
                found.has_options = true;
            }
            if content == "-6"
                || content.starts_with("-6 ")
                || content.contains(" -6 ")
                || content.ends_with(" -6")
            {
                found.has_six = true;
            }
        }
        found
    }
}

/// `"nmap"`, `"/usr/bin/nmap"`, `"nmap.exe"`.
fn is_nmap_program(content: &str) -> bool {
    let name = content.rsplit(['/', '\\']).next().unwrap_or(content);
    matches!(name, "nmap" | "nmap.exe")
}

impl Matcher<'_, '_> {
    /// An nmap command line with no `-6` in the file: reported where its
    /// options are written (`"-Pn"`, `"nmap -sV -p 80 %s"`), or at the
    /// program name when the options come from elsewhere.
    pub(super) fn check_nmap_command(&mut self, i: usize) {
        let nmap = self.nmap;
        if !nmap.runs || nmap.has_six {
            return;
        }
        let content = self.tokens[i].string_content();
        let here = content.starts_with("nmap ")
            || NMAP_OPTIONS.contains(&content)
            || !nmap.has_options && is_nmap_program(content);
        if !here || self.has_match("ipv4-only-command", self.tokens[i].line) {
            return;
        }
        self.push_with("ipv4-only-command", Severity::Warning, i, "nmap command line without -6: nmap scans IPv4 only and rejects an IPv6 target; add -6 when the target is an IPv6 address".into(), false);
    }
}

#[cfg(test)]
mod tests {
    use super::is_nmap_program;

    #[test]
    fn the_nmap_program_is_told_from_other_text() {
        for content in ["nmap", "/usr/bin/nmap", "C:\\nmap\\nmap.exe"] {
            assert!(is_nmap_program(content), "{content}");
        }
        for content in ["nmap -sV", "zenmap", "nmap.xml", "map"] {
            assert!(!is_nmap_program(content), "{content}");
        }
    }
}
