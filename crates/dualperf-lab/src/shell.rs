//! Text a root shell will read (`--dry-run`), made inert: every word quoted,
//! every comment one line, every here-document closed by a delimiter its
//! contents cannot hold. Whatever a topology, a path or a label holds (a
//! newline, `;`, an escape sequence) is printed as data, never as a command
//! or a terminal control.

/// Quotes `word` for a POSIX shell when it contains anything but safe
/// characters: `'…'` (a `'` inside as `'\''`), or, when it holds a control
/// character (a newline, ESC), bash's `$'…'` with `\xHH` escapes, so that
/// the word stays on its line and no control byte reaches the terminal.
pub fn quote(word: &str) -> String {
    let safe = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=,@%+".contains(c));
    if safe {
        return word.to_string();
    }
    if !word.chars().any(char::is_control) {
        return format!("'{}'", word.replace('\'', r"'\''"));
    }
    let mut quoted = String::from("$'");
    for c in word.chars() {
        match c {
            '\'' => quoted.push_str(r"\'"),
            '\\' => quoted.push_str(r"\\"),
            c if c.is_control() => {
                let mut bytes = [0u8; 4];
                for byte in c.encode_utf8(&mut bytes).bytes() {
                    quoted.push_str(&format!("\\x{byte:02x}"));
                }
            }
            c => quoted.push(c),
        }
    }
    quoted.push('\'');
    quoted
}

/// `text` as one shell comment line: `# ` and the text with every control
/// character (a newline, ESC, CR) written as its Rust escape (`\n`,
/// `\u{1b}`), so nothing after it can start a command line or move the
/// terminal's cursor.
pub fn comment(text: &str) -> String {
    format!("# {}", inert(text))
}

/// `text` with its control characters escaped (`\n`, `\u{1b}`), for one
/// line of terminal output.
pub fn inert(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().collect()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// A here-document that writes `contents` to `path`: `cat > PATH <<'EOF'`,
/// the contents, and a delimiter no line of the contents equals (`EOF`,
/// else `EOF_1`, `EOF_2` …); a quoted delimiter, so nothing in the contents
/// is expanded.
pub fn here_document(path: &str, contents: &str) -> String {
    let lines: Vec<&str> = contents.lines().collect();
    let mut delimiter = String::from("EOF");
    let mut suffix = 0u32;
    while lines.iter().any(|line| *line == delimiter) {
        suffix += 1;
        delimiter = format!("EOF_{suffix}");
    }
    let newline = if contents.is_empty() || contents.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    format!(
        "cat > {} <<'{delimiter}'\n{contents}{newline}{delimiter}",
        quote(path)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `sh` makes of `script`: the words of each command, one line
    /// per command, as `printf` prints them.
    fn run_in_sh(script: &str) -> String {
        let output = std::process::Command::new("bash")
            .args(["-c", script])
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    #[test]
    fn a_word_with_a_newline_and_a_command_stays_one_word() {
        let word = "x\nrm -rf /tmp/nothing; echo pwned \u{1b}[2J'";
        let quoted = quote(word);
        assert!(
            !quoted.contains('\n') && !quoted.contains('\u{1b}'),
            "{quoted}"
        );
        // bash reads it back as the one word it was.
        let echoed = run_in_sh(&format!("printf '%s' {quoted}"));
        assert_eq!(echoed, word);
        assert_eq!(quote("plain-word_1.2"), "plain-word_1.2");
        assert_eq!(quote("my results/x"), "'my results/x'");
    }

    #[test]
    fn a_comment_is_one_line_whatever_the_text() {
        let line = comment("testbed\nip link del dev eth0\r\u{1b}]0;title\u{7}");
        assert_eq!(line.lines().count(), 1);
        assert!(!line.chars().any(char::is_control), "{line}");
        assert_eq!(run_in_sh(&line), "");
    }

    #[test]
    fn a_here_document_cannot_be_closed_by_its_contents() {
        let path = std::env::temp_dir().join(format!("dpe-heredoc-{}", std::process::id()));
        let contents = "a\nEOF\necho escaped\nEOF_1\n";
        let script = format!(
            "{}\necho done",
            here_document(&path.display().to_string(), contents)
        );
        assert_eq!(run_in_sh(&script), "done\n");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), contents);
        std::fs::remove_file(&path).unwrap();
    }
}
