//! What a rule is: an identifier, a severity, the languages it applies to and
//! the clippy-style documentation (what it finds, why it breaks IPv6, how to
//! fix it, an example). The table itself is in [`crate::rules`].

use crate::language::Language;

/// How much a finding matters for an IPv6 port.
#[derive(
    Clone, Copy, Debug, Eq, Hash, Ord, PartialEq, PartialOrd, serde::Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The code cannot work over IPv6 as written (an IPv4-only API).
    Error,
    /// IPv4-only in most uses; needs a look and usually a change.
    Warning,
    /// Probably data (a test, a table of addresses); review when convenient.
    Note,
}

impl Severity {
    /// Lowercase name, as in the text output and SARIF `level`.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// A before/after pair showing the rule's fix.
#[derive(Clone, Copy, Debug)]
pub struct Example {
    /// Language of both snippets.
    pub language: Language,
    /// IPv4-only code the rule reports.
    pub before: &'static str,
    /// The protocol-independent replacement.
    pub after: &'static str,
}

/// One scanner rule.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    /// Kebab-case identifier used in output, suppressions and baselines.
    pub id: &'static str,
    /// Default severity of its findings (a rule may lower it for data).
    pub severity: Severity,
    /// Languages the rule applies to.
    pub languages: &'static [Language],
    /// One line: what the rule finds.
    pub what: &'static str,
    /// Why that construct breaks or limits IPv6.
    pub why: &'static str,
    /// The replacement API or technique.
    pub fix: &'static str,
    /// A before/after example.
    pub example: Example,
}

impl Rule {
    /// True if the rule applies to files in `language`.
    pub fn applies_to(&self, language: Language) -> bool {
        self.languages.contains(&language)
    }

    /// The rule's documentation as Markdown (used by `docs/rules.md` and SARIF `help`).
    pub fn to_markdown(&self) -> String {
        let languages: Vec<&str> = self.languages.iter().map(|l| l.name()).collect();
        let fence = fence_name(self.example.language);
        let comment = match self.example.language {
            Language::Python | Language::Config => "#",
            _ => "//",
        };
        format!(
            "## `{id}`\n\nSeverity: {severity}. Languages: {languages}.\n\n\
             **What it finds.** {what}\n\n**Why it breaks IPv6.** {why}\n\n\
             **How to fix.** {fix}\n\n**Example.**\n\n```{fence}\n{comment} before\n{before}\n```\n\n\
             ```{fence}\n{comment} after\n{after}\n```\n",
            id = self.id,
            severity = self.severity.name(),
            languages = languages.join(", "),
            what = self.what,
            why = self.why,
            fix = self.fix,
            before = self.example.before.trim_end(),
            after = self.example.after.trim_end(),
        )
    }

    /// The rule's documentation as plain text (`dualperf scan --explain`).
    pub fn to_text(&self) -> String {
        let languages: Vec<&str> = self.languages.iter().map(|l| l.name()).collect();
        format!(
            "{id} ({severity}; {languages})\n\nWhat it finds\n  {what}\n\nWhy it breaks IPv6\n  {why}\n\n\
             How to fix\n  {fix}\n\nExample (before)\n{before}\n\nExample (after)\n{after}\n",
            id = self.id,
            severity = self.severity.name(),
            languages = languages.join(", "),
            what = self.what,
            why = self.why,
            fix = self.fix,
            before = indent(self.example.before),
            after = indent(self.example.after),
        )
    }
}

fn indent(code: &str) -> String {
    code.trim_end()
        .lines()
        .map(|line| format!("    {line}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn fence_name(language: Language) -> &'static str {
    match language {
        Language::C => "c",
        Language::Cpp => "cpp",
        Language::Python => "python",
        Language::Go => "go",
        Language::Java => "java",
        Language::JavaScript => "javascript",
        Language::TypeScript => "typescript",
        Language::Rust => "rust",
        Language::Config => "ini",
    }
}
