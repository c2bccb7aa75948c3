//! The languages the scanner understands and how a file's language is
//! chosen (by extension, like ripgrep's type table).

use std::path::Path;

/// A source language (parsed with its tree-sitter grammar) or a configuration
/// format (read as text, for address literals only).
#[derive(Clone, Copy, Debug, Eq, Hash, Ord, PartialEq, PartialOrd, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// C (`.c`, `.h`).
    C,
    /// C++ (`.cc`, `.cpp`, `.cxx`, `.hpp`, `.hh`, `.hxx`).
    Cpp,
    /// Python (`.py`, `.pyi`).
    Python,
    /// Go (`.go`).
    Go,
    /// Java (`.java`).
    Java,
    /// JavaScript (`.js`, `.mjs`, `.cjs`, `.jsx`).
    JavaScript,
    /// TypeScript (`.ts`, `.mts`, `.cts`, `.tsx`).
    TypeScript,
    /// Rust (`.rs`).
    Rust,
    /// Configuration files (`.conf`, `.cfg`, `.ini`, `.yaml`, `.yml`, `.toml`, `.json`, ...).
    Config,
}

impl Language {
    /// Every language, in the order the documentation lists them.
    pub const ALL: [Language; 9] = [
        Language::C,
        Language::Cpp,
        Language::Python,
        Language::Go,
        Language::Java,
        Language::JavaScript,
        Language::TypeScript,
        Language::Rust,
        Language::Config,
    ];

    /// The language of `path`, judged by its extension; `None` for files the
    /// scanner does not read.
    pub fn of_path(path: &Path) -> Option<Language> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        let language = match extension.as_str() {
            "c" | "h" => Language::C,
            "cc" | "cpp" | "cxx" | "c++" | "hpp" | "hh" | "hxx" | "h++" | "ipp" => Language::Cpp,
            "py" | "pyi" => Language::Python,
            "go" => Language::Go,
            "java" => Language::Java,
            "js" | "mjs" | "cjs" | "jsx" => Language::JavaScript,
            "ts" | "mts" | "cts" | "tsx" => Language::TypeScript,
            "rs" => Language::Rust,
            "conf" | "cfg" | "cnf" | "ini" | "yaml" | "yml" | "toml" | "json" | "properties" => {
                Language::Config
            }
            _ => return None,
        };
        Some(language)
    }

    /// The display name used in documentation and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Language::C => "C",
            Language::Cpp => "C++",
            Language::Python => "Python",
            Language::Go => "Go",
            Language::Java => "Java",
            Language::JavaScript => "JavaScript",
            Language::TypeScript => "TypeScript",
            Language::Rust => "Rust",
            Language::Config => "config",
        }
    }

    /// The tree-sitter grammar for this language (`None` for configuration
    /// files, which are read as text). `.tsx` needs the TSX dialect.
    pub fn grammar(self, path: &Path) -> Option<tree_sitter::Language> {
        let grammar = match self {
            Language::C => tree_sitter_c::LANGUAGE.into(),
            Language::Cpp => tree_sitter_cpp::LANGUAGE.into(),
            Language::Python => tree_sitter_python::LANGUAGE.into(),
            Language::Go => tree_sitter_go::LANGUAGE.into(),
            Language::Java => tree_sitter_java::LANGUAGE.into(),
            Language::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Language::TypeScript => {
                if path
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("tsx"))
                {
                    tree_sitter_typescript::LANGUAGE_TSX.into()
                } else {
                    tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()
                }
            }
            Language::Rust => tree_sitter_rust::LANGUAGE.into(),
            Language::Config => return None,
        };
        Some(grammar)
    }

    /// True for the C family, where the 4-byte-address rules apply.
    pub fn is_c_family(self) -> bool {
        matches!(self, Language::C | Language::Cpp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_read_as_c_and_tsx_as_typescript() {
        assert_eq!(Language::of_path(Path::new("a/b.h")), Some(Language::C));
        assert_eq!(
            Language::of_path(Path::new("x.tsx")),
            Some(Language::TypeScript)
        );
        assert_eq!(
            Language::of_path(Path::new("nginx.CONF")),
            Some(Language::Config)
        );
        assert_eq!(Language::of_path(Path::new("README.md")), None);
    }

    #[test]
    fn every_source_language_has_a_grammar_that_loads() {
        for language in Language::ALL {
            let grammar = language.grammar(Path::new("x.tsx"));
            assert_eq!(grammar.is_none(), language == Language::Config);
            if let Some(grammar) = grammar {
                let mut parser = tree_sitter::Parser::new();
                parser
                    .set_language(&grammar)
                    .expect("grammar ABI matches the tree-sitter runtime");
            }
        }
    }
}
