//! Issue 16 at the command line: the shared key is never written anywhere
//! (JSON, database, HTML and Markdown reports, logs), empty keys and
//! extreme values are usage errors (exit 2, never a panic), and `run`
//! honours SIGTERM with exit code 130. Traffic only to loopback.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const KEY: &str = "Zq7-very-secret-key-9xK";

fn dualperf() -> Command {
    Command::new(env!("CARGO_BIN_EXE_dualperf"))
}

fn directory(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dpe-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A child process killed when the test ends, also on failure.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn text(output: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Every file under `dir` that contains `needle`.
fn files_containing(dir: &Path, needle: &[u8]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(files_containing(&path, needle));
        } else if std::fs::read(&path)
            .unwrap()
            .windows(needle.len())
            .any(|w| w == needle)
        {
            found.push(path);
        }
    }
    found
}

#[test]
fn the_key_is_in_no_json_database_report_or_log() {
    let dir = directory("secret");
    let key_file = dir.join("key");
    std::fs::write(&key_file, format!("{KEY}\n")).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let port = free_port().to_string();
    let mut serve = dualperf()
        .args(["serve", "-B", "127.0.0.1", "-p", &port, "--auth-key-file"])
        .arg(&key_file)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let serve_log = BufReader::new(serve.stderr.take().unwrap());
    let _serve = Killed(serve);
    let mut serve_lines = serve_log.lines();
    let first = serve_lines.next().unwrap().unwrap();
    assert!(first.contains("listening"), "{first}");
    let database = dir.join("results.sqlite");
    // Twice: the key on the command line (warned about), then from the environment.
    for (how, json) in [("flag", "flag.json"), ("env", "env.json")] {
        let mut run = dualperf();
        run.args(["run", "--v4", "127.0.0.1", "-4", "-p", &port])
            .args([
                "--tests", "tcp-rr", "-t", "0.3", "--warmup", "0.1", "--repeat", "1",
            ])
            .arg("--json")
            .arg(dir.join(json))
            .arg("--db")
            .arg(&database);
        if how == "flag" {
            run.args(["--auth-key", KEY]);
        } else {
            run.env("DUALPERF_AUTH_KEY", KEY);
        }
        let output = run.output().unwrap();
        assert!(output.status.success(), "{how}: {}", text(&output));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            stderr.contains("visible to every user"),
            how == "flag",
            "{stderr}"
        );
        assert!(!text(&output).contains(KEY));
    }
    let recorded = std::fs::read_to_string(dir.join("flag.json")).unwrap();
    assert!(
        recorded.contains("--auth-key"),
        "the flag is recorded, redacted"
    );
    assert!(recorded.contains("<redacted>"));
    for (format, file) in [("html", "report.html"), ("md", "report.md")] {
        let output = dualperf()
            .args(["report", "--format", format, "--db"])
            .arg(&database)
            .arg("-o")
            .arg(dir.join(file))
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", text(&output));
    }
    assert!(dir.join("report.html").exists() && dir.join("report.md").exists());
    // The key file itself is the only place the key may be.
    let leaks: Vec<PathBuf> = files_containing(&dir, KEY.as_bytes())
        .into_iter()
        .filter(|p| p != &key_file)
        .collect();
    assert!(leaks.is_empty(), "the key leaked into {leaks:?}");
    drop(_serve);
    let log: Vec<String> = serve_lines.map_while(Result::ok).collect();
    assert!(log.iter().any(|l| l.contains("authenticated")), "{log:?}");
    assert!(!log.iter().any(|l| l.contains(KEY)));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs dualperf with `args` and expects exit code 2 with `needle` in stderr.
fn usage_error(args: &[&str], env: Option<(&str, &str)>, needle: &str) {
    let mut command = dualperf();
    command.args(args).env_remove("DUALPERF_AUTH_KEY");
    if let Some((name, value)) = env {
        command.env(name, value);
    }
    let started = Instant::now();
    let output = command.output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{args:?}: {}", text(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(needle), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn empty_keys_and_extreme_values_are_usage_errors_never_panics() {
    let run = ["run", "--v4", "127.0.0.1", "-4", "-p", "9", "--no-store"];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        run.iter().chain(extra).copied().collect()
    };
    usage_error(&with(&["--auth-key", ""]), None, "must not be empty");
    usage_error(
        &with(&[]),
        Some(("DUALPERF_AUTH_KEY", "")),
        "must not be empty",
    );
    usage_error(&["serve", "--auth-key", ""], None, "must not be empty");
    // Issue 16 fault 5: `-b 0` was accepted and never ended.
    usage_error(
        &with(&["--tests", "udp-stream", "-b", "0"]),
        None,
        "below the minimum",
    );
    // Issue 16 fault 3: 1 GiB writes.
    usage_error(
        &with(&[
            "--tests",
            "tcp-stream",
            "--sizes",
            "1073741824",
            "-R",
            "-P",
            "2",
        ]),
        None,
        "16 MiB",
    );
    usage_error(&with(&["-P", "100000"]), None, "-P");
    usage_error(&with(&["--repeat", "4294967295"]), None, "--repeat");
    usage_error(&with(&["-i", "18446744073709551615"]), None, "-i");
    // Issue 16 fault 8: overflowing durations.
    usage_error(
        &["serve", "--idle-timeout", "18446744073709551615"],
        None,
        "--idle-timeout",
    );
    usage_error(&["serve", "--max-duration", "0"], None, "--max-duration");
    usage_error(
        &["serve", "--max-session-memory", "18446744073709551615"],
        None,
        "--max-session-memory",
    );
    let dir = directory("topology");
    let topology = dir.join("far.toml");
    std::fs::write(
        &topology,
        "description = \"far away\"\n[[node]]\nname = \"client\"\n[[node]]\nname = \"server\"\n\
         [[link]]\nbetween = [\"client\", \"server\"]\ndelay = \"1e20s\"\n",
    )
    .unwrap();
    usage_error(
        &["lab", topology.to_str().unwrap(), "--dry-run"],
        None,
        "maximum of 60 s",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn run_stops_on_sigterm_and_exits_130() {
    let mut child = dualperf()
        .args(["run", "--loopback", "-4", "--tests", "tcp-rr", "-t", "2"])
        .args(["--warmup", "0", "--repeat", "5", "--no-store"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1_500));
    // SAFETY: kill(2) on our own child.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(15) {
            let _ = child.kill();
            panic!("dualperf run ignored SIGTERM for 15 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(130));
}
