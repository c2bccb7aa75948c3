//! Issue 29: reading commands failed on a database in a directory they
//! cannot write (a read-only mount): SQLite could not create the `-shm`
//! file a WAL reader needs. `history` now reads such a file as immutable.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

#[path = "common/privileged.rs"]
mod privileged;

use std::process::Command;

#[test]
fn history_reads_a_database_on_a_read_only_mount() {
    if !privileged::ready(&["unshare", "mount"]) {
        return;
    }
    let directory = std::env::temp_dir().join(format!("dpe-ro-mount-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).unwrap();
    let database = directory.join("results.sqlite");
    let binary = env!("CARGO_BIN_EXE_dualperf");
    let run = Command::new(binary)
        .args([
            "run",
            "--loopback",
            "--tests",
            "tcp-connect",
            "-t",
            "0.2",
            "--warmup",
            "0",
            "--repeat",
            "1",
            "--no-intervals",
            "--db",
        ])
        .arg(&database)
        .env("XDG_DATA_HOME", &directory)
        .output()
        .unwrap();
    assert!(run.status.code().is_some_and(|c| c <= 1), "{run:?}");
    // In a mount namespace of its own, the directory is bound read-only
    // over itself; nothing outside the namespace sees the mount.
    let script = format!(
        "mount --bind -o ro '{dir}' '{dir}' && '{binary}' history --db '{db}'",
        dir = directory.display(),
        db = database.display()
    );
    let history = Command::new("unshare")
        .args(["-m", "sh", "-c", &script])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&history.stdout);
    assert!(
        history.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&history.stderr)
    );
    assert!(
        stdout.contains("RUN") && stdout.lines().count() >= 2,
        "{stdout}"
    );
    std::fs::remove_dir_all(&directory).unwrap();
}
