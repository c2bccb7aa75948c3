#!/usr/bin/env bash
# Benchmark (not a timed test; issue 23): how precisely does the default
# `dualperf lab` resolve IPv6 against IPv4 on this machine, and how long
# does it take?
#
# Runs `dualperf lab` (the default `router` testbed, links shaped to the
# default link rate) with any extra arguments given, then reads the stored
# result (result.json) and prints, per test kind, the median over its
# points of the half-width of the 95 % CI of the IPv6 − IPv4 relative
# difference of the headline metric (goodput for streams, RTT p50 for
# request/response, connect p50 for tcp-connect), the points' regimes,
# and the wall time.
#
# Exit status: 0 when goodput ≤ 3 %, RTT p50 ≤ 5 % and the wall time ≤ 6
# minutes; 1 when a target is missed; 2 when the run itself failed.
# Needs root (network namespaces) and python3. Run it on a quiet machine.
#
# Usage:  bench/lab-precision.sh [LAB ARGS…]
#   e.g.  bench/lab-precision.sh --repeat 5
#   DUALPERF=path/to/dualperf   the binary (default: target/release/dualperf,
#                               else target/debug/dualperf, else `dualperf`)
#   KEEP=1                      keep the results folder (printed)
set -uo pipefail

GOODPUT_TARGET=0.03     # median CI half-width of goodput, relative
RTT_TARGET=0.05         # median CI half-width of RTT p50, relative
WALL_TARGET_S=360       # 6 minutes

here=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${DUALPERF:-}" ]; then
    for candidate in "$here/target/release/dualperf" "$here/target/debug/dualperf"; do
        if [ -x "$candidate" ]; then DUALPERF=$candidate; break; fi
    done
fi
DUALPERF=${DUALPERF:-$(command -v dualperf || true)}
if [ -z "$DUALPERF" ] || [ ! -x "$DUALPERF" ]; then
    echo "lab-precision: no dualperf binary (build it: cargo build --release -p dualperf, or set DUALPERF)" >&2
    exit 2
fi
command -v python3 >/dev/null || { echo "lab-precision: needs python3" >&2; exit 2; }

out=$(mktemp -d /tmp/dualperf-lab-precision.XXXXXX)
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$out"' EXIT; fi

echo "lab-precision: $DUALPERF lab $* (load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs)"
start=$(date +%s.%N)
"$DUALPERF" lab --results "$out" --no-store "$@"
status=$?
end=$(date +%s.%N)
result=$(find "$out" -name result.json | head -n 1)
if [ -z "$result" ]; then
    echo "lab-precision: the run wrote no result.json (dualperf exited $status)" >&2
    exit 2
fi
[ -n "${KEEP:-}" ] && echo "lab-precision: results kept in $(dirname "$result")"

python3 - "$result" "$start" "$end" "$status" "$GOODPUT_TARGET" "$RTT_TARGET" "$WALL_TARGET_S" <<'PY'
import json, statistics, sys

path, start, end, status = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
goodput_target, rtt_target, wall_target = map(float, sys.argv[5:8])
result = json.load(open(path))
config, analysis = result["config"], result.get("analysis") or {}
headline = {"tcp-stream": "goodput_bps", "udp-stream": "goodput_bps",
            "tcp-rr": "rtt_p50_ns", "udp-rr": "rtt_p50_ns", "tcp-connect": "connect_p50_ns"}
baseline = config["baseline"]
regimes = {}
for r in analysis.get("regimes", []):
    regimes.setdefault(r["point"], []).append(r["regime"])
per_kind = {}
for c in analysis.get("comparisons", []):
    point = config["points"][c["point"]]
    kind = point["kind"]
    if c["baseline"] != baseline or c["metric"] != headline.get(kind):
        continue
    ci = c.get("relative_difference_ci95")
    if ci is None:
        continue
    half = (ci[1] - ci[0]) / 2
    per_kind.setdefault(kind, []).append((half, point["size_bytes"], c["relative_difference"], regimes.get(c["point"], [])))

wall = end - start
testbed = result.get("testbed") or {}
print(f"link rate: {testbed.get('link_rate')}; repetitions per arm: {config['repeat']}")
print(f"{'test kind':<12} {'metric':<15} {'points':>6} {'median CI half-width':>21}  per point (size: half-width, difference, regimes)")
failed = []
for kind in ["tcp-stream", "udp-stream", "tcp-rr", "udp-rr", "tcp-connect"]:
    rows = per_kind.get(kind)
    if not rows:
        continue
    median = statistics.median(h for h, *_ in rows)
    detail = ", ".join(f"{s} B: ±{h*100:.2f} % ({d*100:+.2f} %, {'/'.join(sorted(set(r))) or '?'})"
                       for h, s, d, r in sorted(rows, key=lambda row: row[1]))
    target = goodput_target if kind.endswith("stream") else rtt_target if kind.endswith("rr") else None
    verdict = "" if target is None else (" ok" if median <= target else f" MISSED (target {target*100:.0f} %)")
    if target is not None and median > target:
        failed.append(kind)
    print(f"{kind:<12} {headline[kind]:<15} {len(rows):>6} {median*100:>20.2f}%{verdict}  {detail}")
print(f"wall time: {wall:.0f} s ({wall/60:.1f} min){'' if wall <= wall_target else f' MISSED (target {wall_target/60:.0f} min)'}")
if wall > wall_target:
    failed.append("wall time")
if status != 0:
    print(f"dualperf lab exited {status} (a failed trial or a finding)")
if not per_kind:
    print("no IPv6 − IPv4 comparisons in the result")
    sys.exit(2)
sys.exit(1 if failed else 0)
PY
