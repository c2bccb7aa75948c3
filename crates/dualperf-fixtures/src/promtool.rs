//! `promtool check metrics` for the tests of the OpenMetrics output (the
//! exporter crate's and the binary's): one helper instead of one per suite.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `promtool check metrics` (the program at `promtool`) on `text`:
/// whether it passed, and everything it printed.
///
/// # Panics
/// When `promtool` cannot be started: callers check it exists first.
pub fn promtool_check(promtool: &str, text: &str) -> (bool, String) {
    let mut child = Command::new(promtool)
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("promtool starts (callers check that it is installed)");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(text.as_bytes());
    }
    let output = child
        .wait_with_output()
        .expect("promtool's output is readable");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), said)
}
