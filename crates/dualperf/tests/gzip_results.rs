//! `.json.gz`: `run --json out.json.gz` writes gzip, and every command that
//! takes a result path (`report`, `import`, `run --plan`) reads it, by its
//! magic bytes rather than its name; a truncated file is a clear usage error.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn directory(name: &str) -> PathBuf {
    let directory = std::env::temp_dir().join(format!("dpe-gz-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    directory
}

fn dualperf(directory: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dualperf"))
        .env("DUALPERF_DB", directory.join("results.sqlite"))
        .args(args)
        .output()
        .expect("running dualperf")
}

fn ok(output: &Output) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "exit {:?}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// A short real loopback run written to `DIRECTORY/result.json.gz`.
fn gzipped_run(directory: &Path) -> PathBuf {
    let path = directory.join("result.json.gz");
    ok(&dualperf(
        directory,
        &[
            "run",
            "--loopback",
            "--tests",
            "tcp-connect",
            "--repeat",
            "2",
            "--time",
            "0.2",
            "--warmup",
            "0",
            "--no-store",
            "--json",
            path.to_str().unwrap(),
        ],
    ));
    path
}

#[test]
fn a_result_written_as_json_gz_is_gzip_and_reads_back_everywhere() {
    let directory = directory("roundtrip");
    let path = gzipped_run(&directory);
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes[..2], [0x1f, 0x8b], "gzip magic");
    let mut text = String::new();
    flate2::read::GzDecoder::new(bytes.as_slice())
        .read_to_string(&mut text)
        .unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    dualperf_fixtures::schema::assert_valid("result.schema.json", &value);
    let run_id = value["run_id"].as_str().unwrap().to_string();

    // report, from the file and from its folder (which holds only result.json.gz)
    let markdown = directory.join("r.md");
    for name in [path.to_str().unwrap(), directory.to_str().unwrap()] {
        ok(&dualperf(
            &directory,
            &[
                "report",
                name,
                "--format",
                "md",
                "-o",
                markdown.to_str().unwrap(),
            ],
        ));
        assert!(std::fs::read_to_string(&markdown)
            .unwrap()
            .contains(&run_id));
    }
    // import
    ok(&dualperf(&directory, &["import", path.to_str().unwrap()]));
    let history = ok(&dualperf(&directory, &["history", "--json"]));
    assert!(history.contains(&run_id), "{history}");
    // detected by magic bytes, not by name
    let renamed = directory.join("renamed.json");
    std::fs::copy(&path, &renamed).unwrap();
    ok(&dualperf(
        &directory,
        &[
            "report",
            renamed.to_str().unwrap(),
            "--format",
            "md",
            "-o",
            "-",
        ],
    ));
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn a_truncated_json_gz_is_a_usage_error_that_says_so() {
    let directory = directory("truncated");
    let path = gzipped_run(&directory);
    let bytes = std::fs::read(&path).unwrap();
    let truncated = directory.join("truncated.json.gz");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let output = dualperf(&directory, &["report", truncated.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("truncated or corrupt gzip"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let output = dualperf(
        &directory,
        &["run", "--plan", truncated.to_str().unwrap(), "--loopback"],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("truncated or corrupt gzip"), "{stderr}");
    std::fs::remove_dir_all(&directory).unwrap();
}

/// Writes a gzip file that expands to `total` zero bytes, streaming: one
/// member of 16 MiB of zeros, compressed once (about 16 KB), written again
/// and again (a multi-member file, RFC 1952 §2.2, reads as their concatenation).
fn gzip_bomb(path: &Path, total: u64) {
    use std::io::Write;
    const MEMBER: usize = 16 << 20;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(&vec![0u8; MEMBER]).unwrap();
    let member = encoder.finish().unwrap();
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for _ in 0..total / MEMBER as u64 {
        file.write_all(&member).unwrap();
    }
    file.flush().unwrap();
}

#[test]
fn a_6_gb_gzip_bomb_is_refused_with_a_clear_error_under_a_512_mb_memory_limit() {
    let directory = directory("bomb");
    let bomb = directory.join("bomb.json.gz");
    gzip_bomb(&bomb, 6 << 30);
    let size = std::fs::metadata(&bomb).unwrap().len();
    // The whole process may map at most 512 MiB (`prlimit --as`): a reader
    // that expands the bomb fails to allocate long before 6 GiB.
    for command in [&["report"][..], &["import"][..], &["run", "--plan"][..]] {
        let started = std::time::Instant::now();
        let output = Command::new("prlimit")
            .arg(format!("--as={}", 512u64 << 20))
            .arg("--")
            .arg(env!("CARGO_BIN_EXE_dualperf"))
            .env("DUALPERF_DB", directory.join("results.sqlite"))
            .args(command)
            .arg(&bomb)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        eprintln!(
            "{command:?} on a {size}-byte file of 6 GiB: exit {:?} in {:?}: {}",
            output.status.code(),
            started.elapsed(),
            stderr.trim()
        );
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("expands to more than 256 MiB"), "{stderr}");
    }
    std::fs::remove_dir_all(&directory).unwrap();
}
