#!/usr/bin/env bash
# Benchmark of the lab's user-space delay line (needs root; best on idle CPUs).
# 100 kpps at three frame sizes: 64 B (~85 Mbit/s), 500 B (~430 Mbit/s),
# 1200 B (~1 Gbit/s) payloads, 10 ms delay; prints the delay line's own loss.
# Usage: crates/dualperf-lab/bench/delay-line.sh [PPS] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../../.."
pps="${1:-100000}"
seconds="${2:-3}"
cargo build --release -q -p dualperf-lab --example delay_line_bench
for payload in 64 500 1200; do
  target/release/examples/delay_line_bench "$pps" "$payload" "$seconds" 10ms
done
