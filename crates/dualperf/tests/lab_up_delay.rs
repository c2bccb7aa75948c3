//! A testbed left up keeps its emulated delay (issue 24, item 5): on a
//! kernel without netem the delay line runs in user space, and `lab up`
//! must leave it running after it exits. `lab up realtime` (20 ms each way
//! between the routers), then `lab exec client -- ping` in both families:
//! nothing lost and an RTT of about 40 ms; `lab down` leaves no delay-line
//! process and no work directory.
//!
//! Needs root: skipped with a message locally, required when
//! DUALPERF_REQUIRE_PRIVILEGED is set.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

#[path = "common/privileged.rs"]
mod privileged;

use std::process::{Command, Output};

fn dualperf(args: &[&str]) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_dualperf"))
        .args(args)
        .output()
        .unwrap();
    eprintln!(
        "dualperf {args:?}: {:?}\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Removes the testbed even when an assertion fails.
struct Down(String);

impl Drop for Down {
    fn drop(&mut self) {
        let _ = dualperf(&["lab", "down", "--run", &self.0]);
    }
}

#[test]
fn a_testbed_left_up_keeps_its_delay_and_lab_down_stops_the_delay_lines() {
    if !privileged::ready(&[]) {
        return;
    }
    let up = dualperf(&["lab", "up", "realtime"]);
    assert!(up.status.success());
    let text = String::from_utf8_lossy(&up.stdout).to_string();
    let run = text
        .split("is up as run ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap()
        .to_string();
    let down = Down(run.clone());
    let server = |family: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with("server"))
            .unwrap()
            .split_whitespace()
            .find(|w| w.contains(if family == "4" { '.' } else { ':' }))
            .unwrap()
            .split('/')
            .next()
            .unwrap()
            .to_string()
    };
    let lines = delay_line_processes(&run);
    assert!(lines >= 2, "{lines} delay-line processes for run {run}");
    for family in ["4", "6"] {
        let address = server(family);
        // The first IPv6 ping may wait for neighbour discovery: warm up.
        let _ = dualperf(&["lab", "exec", "client", "--", "ping", "-c", "1", &address]);
        let ping = dualperf(&[
            "lab", "exec", "client", "--", "ping", "-c", "5", "-i", "0.2", &address,
        ]);
        let out = String::from_utf8_lossy(&ping.stdout);
        assert!(out.contains(" 0% packet loss"), "IPv{family}: {out}");
        let avg: f64 = out
            .lines()
            .find(|l| l.starts_with("rtt"))
            .and_then(|l| l.split('=').nth(1))
            .and_then(|v| v.trim().split('/').nth(1))
            .unwrap()
            .parse()
            .unwrap();
        assert!((39.5..50.0).contains(&avg), "IPv{family}: RTT {avg} ms");
    }
    drop(down);
    assert_eq!(
        delay_line_processes(&run),
        0,
        "delay lines left after lab down"
    );
    assert!(!std::env::temp_dir().join(format!("dsp-{run}")).exists());
}

/// Delay-line processes of `run` (their command line names its namespaces).
fn delay_line_processes(run: &str) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .filter_map(|entry| std::fs::read(entry.path().join("cmdline")).ok())
        .map(|cmdline| String::from_utf8_lossy(&cmdline).replace('\0', " "))
        .filter(|cmdline| {
            cmdline.contains("lab delay-line") && cmdline.contains(&format!("dsp-{run}-"))
        })
        .count()
}
