//! Issue 29: `lab --dry-run` prints what root pastes, so whatever a
//! topology file brings (its path, its description) is printed inert: a
//! newline cannot start a command line, no control byte reaches the
//! terminal, and a description holding one is refused.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

use std::process::Command;

const TOPOLOGY: &str = r#"
description = "DESCRIPTION"
client = "client"
server = "server"
[[node]]
name = "client"
[[node]]
name = "server"
[[link]]
between = ["client", "server"]
"#;

fn scratch() -> std::path::PathBuf {
    let directory = std::env::temp_dir().join(format!("dpe-dry-inert-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).unwrap();
    directory
}

fn dry_run(file: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_dualperf"))
        .args(["lab", "up", "--dry-run"])
        .arg(file)
        .output()
        .unwrap()
}

#[test]
fn a_description_with_a_newline_is_refused_and_a_path_with_one_prints_inert() {
    let directory = scratch();
    // A description that would be a command line once its newline is printed.
    let file = directory.join("newline.toml");
    std::fs::write(
        &file,
        TOPOLOGY.replace("DESCRIPTION", r"two hosts\ntouch /tmp/dpe-pwned \u001b[2J"),
    )
    .unwrap();
    let output = dry_run(&file);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("description") && stderr.contains(r"\n"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
    // The path is printed in comments: a newline in it stays in its comment.
    let hostile = directory.join("x\ntouch dpe-pwned\u{1b}[2J");
    std::fs::create_dir_all(&hostile).unwrap();
    let file = hostile.join("t.toml");
    std::fs::write(&file, TOPOLOGY.replace("DESCRIPTION", "two hosts")).unwrap();
    let output = dry_run(&file);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!stdout.contains('\u{1b}'), "{stdout}");
    for line in stdout.lines() {
        assert!(!line.starts_with("touch"), "an uncommented line: {line:?}");
    }
    // Pasted into bash (syntax only: -n), the whole script parses, and the
    // hostile text is nowhere outside a comment or a quoted word.
    let check = Command::new("bash")
        .args(["-n", "-c", &stdout])
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn a_topology_file_of_endless_bytes_is_refused() {
    let output = dry_run(std::path::Path::new("/dev/zero"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("1 MiB"), "{stderr}");
}
