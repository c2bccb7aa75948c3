//! What `dev/lab` installs works the way a user meets it: the manual page
//! of every subcommand (`man dualperf-run`) is found and renders, and in a
//! login shell with the bash-completion package, `dualperf r<TAB>` offers
//! `run` and `report` (the completion loaded on demand, as bash-completion
//! loads `/usr/share/bash-completion/completions/dualperf`). The files go
//! to a temporary folder (MANPATH, XDG_DATA_HOME), never into the system.
//! Needs `man` (man-db) and bash-completion, which `dev/install-deps`
//! installs; without them the test is skipped, or fails where
//! `DUALPERF_REQUIRE_PRIVILEGED` is set (CI).

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

use std::path::{Path, PathBuf};
use std::process::Command;

const BINARY: &str = env!("CARGO_BIN_EXE_dualperf");
const BASH_COMPLETION: &str = "/usr/share/bash-completion/bash_completion";

struct Folder(PathBuf);

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn folder(name: &str) -> Folder {
    let path = std::env::temp_dir().join(format!("dp-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&path).unwrap();
    Folder(path)
}

/// True when `what` is there; otherwise skipped, or a failure in CI.
fn present(what: &str, there: bool) -> bool {
    if !there {
        assert!(
            std::env::var_os("DUALPERF_REQUIRE_PRIVILEGED").is_none(),
            "{what} is missing (dev/install-deps installs it)"
        );
        eprintln!("skipped: needs {what}");
    }
    there
}

#[test]
fn man_dualperf_run_finds_and_renders_the_page() {
    if !present("man (man-db)", Path::new("/usr/bin/man").exists()) {
        return;
    }
    let root = folder("man");
    let man1 = root.0.join("man1");
    let status = Command::new(BINARY)
        .args(["man", "--dir"])
        .arg(&man1)
        .status()
        .unwrap();
    assert!(status.success());
    let found = Command::new("man")
        .args(["-w", "dualperf-run"])
        .env("MANPATH", &root.0)
        .output()
        .unwrap();
    assert!(
        found.status.success(),
        "{}",
        String::from_utf8_lossy(&found.stderr)
    );
    assert!(String::from_utf8_lossy(&found.stdout)
        .trim()
        .ends_with("man1/dualperf-run.1"));
    let page = Command::new("man")
        .args(["-P", "cat", "dualperf-run"])
        .env("MANPATH", &root.0)
        .env("MANWIDTH", "100")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&page.stdout);
    assert!(
        page.status.success() && text.contains("--bidir") && text.contains("--window"),
        "{text:.400}"
    );
    // The main page names the subcommand pages that now exist.
    let main = std::fs::read_to_string(man1.join("dualperf.1")).unwrap();
    assert!(main.contains("dualperf\\-run(1)"), "{main:.400}");
    for sub in ["serve", "lab", "report", "doctor"] {
        assert!(man1.join(format!("dualperf-{sub}.1")).exists(), "{sub}");
    }
}

#[test]
fn dualperf_r_tab_completes_in_a_login_shell() {
    if !present("bash-completion", Path::new(BASH_COMPLETION).exists()) {
        return;
    }
    let root = folder("completion");
    let completions = root.0.join("bash-completion/completions");
    std::fs::create_dir_all(&completions).unwrap();
    let script = Command::new(BINARY)
        .args(["completions", "bash"])
        .output()
        .unwrap();
    assert!(script.status.success());
    std::fs::write(completions.join("dualperf"), &script.stdout).unwrap();
    // A login shell (profile.d loads bash-completion), interactive (it
    // only loads for interactive shells); the completion is loaded on
    // demand for `dualperf`, then asked what `dualperf r` completes to.
    let shell = Command::new("bash")
        .args([
            "-lic",
            r#"_completion_loader dualperf; complete -p dualperf >/dev/null || exit 9
               COMP_WORDS=(dualperf r); COMP_CWORD=1; COMP_LINE="dualperf r"; COMP_POINT=${#COMP_LINE}
               _dualperf dualperf r dualperf; echo "offered: ${COMPREPLY[*]}""#,
        ])
        .env("XDG_DATA_HOME", &root.0)
        .env("HOME", &root.0)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&shell.stdout);
    let stderr = String::from_utf8_lossy(&shell.stderr);
    assert!(shell.status.success(), "{stdout}\n{stderr}");
    let offered = stdout
        .lines()
        .find_map(|l| l.strip_prefix("offered: "))
        .unwrap_or_else(|| panic!("{stdout}\n{stderr}"));
    let words: Vec<&str> = offered.split_whitespace().collect();
    assert_eq!(words, ["run", "report"], "{offered}");
}
