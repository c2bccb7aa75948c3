//! The gate of a privileged end-to-end test: it needs root (namespaces,
//! qdiscs, BPF) and some programs. Where they are missing the test is
//! skipped with a message — unless `DUALPERF_REQUIRE_PRIVILEGED` is set
//! (CI as root, `dev/test`), where a missing part is a failure, so a CI
//! machine without tcpdump cannot pass by skipping.

#![allow(dead_code)] // each test binary uses its own part of the common code

use std::path::Path;

/// True when this process is root and every program in `programs` is on
/// `PATH`. Otherwise asserts that `DUALPERF_REQUIRE_PRIVILEGED` is unset,
/// prints "skipped: needs root and …" and returns false.
pub fn ready(programs: &[&str]) -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let missing: Vec<&str> = programs
        .iter()
        .copied()
        .filter(|program| !on_path(program))
        .collect();
    if root && missing.is_empty() {
        return true;
    }
    let mut needs = vec!["root"];
    needs.extend(programs);
    let needs = needs.join(", ");
    assert!(
        std::env::var_os("DUALPERF_REQUIRE_PRIVILEGED").is_none(),
        "needs {needs} (root: {root}, missing: {missing:?})"
    );
    eprintln!("skipped: needs {needs}");
    false
}

/// Whether `program` is an executable file in a `PATH` directory (or
/// `/usr/sbin`, `/sbin`, where Debian keeps tcpdump and tayga).
fn on_path(program: &str) -> bool {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin"].map(Into::into))
        .any(|dir| is_executable(&dir.join(program)))
}

fn is_executable(file: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    file.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
