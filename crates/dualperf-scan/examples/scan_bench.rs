//! Benchmark: generates a large source tree (C, C++, Python, Go, Java,
//! JavaScript, TypeScript, Rust and config files, about 60% ordinary code and
//! 40% IPv4-dependent code) in a temporary directory, scans it, and reports
//! files/s and lines/s.
//!
//! `cargo run -p dualperf-scan --example scan_bench --release -- [FILES] [THREADS]`
//! (defaults: 4000 files, one thread per core). Speed targets live here, not
//! in timed unit tests.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test and example code: a failed unwrap is a failed run

use std::path::PathBuf;
use std::time::Instant;

use dualperf_scan::{scan_paths, ScanOptions};

const TEMPLATES: &[(&str, &str)] = &[
    ("c", "#include <arpa/inet.h>\nstatic int f{n}(const char *h) {{\n    struct sockaddr_in a; /* IPv4 */\n    a.sin_addr.s_addr = inet_addr(h);\n    return socket(AF_INET, SOCK_STREAM, 0);\n}}\n"),
    ("cpp", "#include <string>\nstd::string g{n}(const std::string &h, int p) {{\n    // build an endpoint\n    return h + \":\" + std::to_string(p);\n}}\n"),
    ("py", "import socket\n\ndef f{n}(host):\n    # resolve\n    return socket.gethostbyname(host)\n"),
    ("go", "package p\n\nimport \"net\"\n\nfunc F{n}(a string) (net.Conn, error) {{\n\treturn net.Dial(\"tcp4\", a)\n}}\n"),
    ("java", "class C{n} {{\n    static String h(String host, int port) {{\n        return host + \":\" + port;\n    }}\n}}\n"),
    ("js", "const dns = require('dns');\nfunction f{n}(h, cb) {{\n  dns.lookup(h, {{ family: 4 }}, cb);\n}}\n"),
    ("ts", "export function f{n}(target: string): string {{\n  return target.split(':')[0];\n}}\n"),
    ("rs", "pub fn f{n}(peer: std::net::SocketAddrV4) -> String {{\n    format!(\"{{}}:{{}}\", peer.ip(), peer.port())\n}}\n"),
    ("conf", "# service {n}\nlisten = 0.0.0.0:80{n}\nname = svc{n}\n"),
];

const FILLER: &str = "static int counter_{n}_{i}(int x) {\n    int y = x * 3 + {i};\n    if (y > 100) {\n        return y - 7; /* comment */\n    }\n    return y;\n}\n";

fn main() {
    let mut args = std::env::args().skip(1);
    let files: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(4000);
    let threads: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(0);
    let root: PathBuf =
        std::env::temp_dir().join(format!("dualperf-scan-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    for n in 0..files {
        let (extension, template) = TEMPLATES[n % TEMPLATES.len()];
        let mut text = template.replace("{n}", &n.to_string());
        if extension == "c" || extension == "cpp" {
            for i in 0..25 {
                text.push_str(
                    &FILLER
                        .replace("{n}", &n.to_string())
                        .replace("{i}", &i.to_string()),
                );
            }
        } else {
            for i in 0..25 {
                text.push_str(&format!(
                    "\n// line {i} of padding so files have realistic length\n"
                ));
            }
        }
        let dir = root.join(format!("module{}", n / 100));
        std::fs::create_dir_all(&dir).expect("temporary directory is writable");
        std::fs::write(dir.join(format!("file{n}.{extension}")), text)
            .expect("temporary file is writable");
    }
    let start = Instant::now();
    let report = scan_paths(
        std::slice::from_ref(&root),
        &ScanOptions {
            threads,
            ..Default::default()
        },
    )
    .expect("generated tree exists");
    let elapsed = start.elapsed().as_secs_f64();
    println!(
        "scanned {} files, {} lines, {} findings in {:.3} s: {:.0} files/s, {:.0} lines/s (threads: {})",
        report.files_scanned,
        report.lines_scanned,
        report.findings.len(),
        elapsed,
        report.files_scanned as f64 / elapsed,
        report.lines_scanned as f64 / elapsed,
        if threads == 0 { "one per core".to_string() } else { threads.to_string() },
    );
    std::fs::remove_dir_all(&root).expect("temporary tree can be removed");
}
