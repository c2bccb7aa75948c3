//! End to end: `--repeat auto` repeats a point until its headline metric is
//! precise on every arm (netperf's -I 99,5 -i 10,3): 3 to 10 interleaved
//! repetitions per arm, the count recorded in the result.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

use std::process::Command;

use dualperf_model::RunResult;

#[test]
fn repeat_auto_runs_three_to_ten_interleaved_repetitions_per_arm() {
    let json = std::env::temp_dir().join(format!("dpa-auto-{}.json", std::process::id()));
    let output = Command::new(env!("CARGO_BIN_EXE_dualperf"))
        .args([
            "run",
            "--loopback",
            "--tests",
            "tcp-rr",
            "-t",
            "0.1",
            "--warmup",
            "0.05",
            "--repeat",
            "auto",
            "--no-store",
            "--json",
        ])
        .arg(&json)
        .output()
        .expect("running dualperf");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let result: RunResult = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    std::fs::remove_file(&json).unwrap();
    let count = |arm: &str| {
        result
            .trials
            .iter()
            .filter(|t| t.arm.as_str() == arm)
            .count()
    };
    let (v4, v6) = (count("v4"), count("v6"));
    assert_eq!(v4, v6, "every arm repeats alike");
    assert!((3..=10).contains(&v4), "{v4} repetitions");
    assert_eq!(result.config.repeat as usize, v4);
    let arms: Vec<&str> = result.trials.iter().map(|t| t.arm.as_str()).collect();
    assert!(
        arms.chunks(2).all(|pair| pair == ["v4", "v6"]),
        "interleaved: {arms:?}"
    );
    let repetitions: Vec<u32> = result.trials.iter().map(|t| t.repetition).collect();
    assert_eq!(repetitions[repetitions.len() - 1] as usize, v4 - 1);
    assert!(result.complete);
    assert!(
        stderr.contains("repetitions per arm)"),
        "the progress line says how many: {stderr}"
    );
    assert!(
        stdout.contains("Holm-adjusted") || stdout.contains("one headline comparison"),
        "{stdout}"
    );
}
