#!/usr/bin/env bash
# Runs `dualperf lab calibrate` N times (default 10) into a scratch
# database and tallies what the calibrations found: the A/A false-positive
# rate over every A/A comparison, and how often the 5 % known effect was
# detected and covered by its CI. Exits 1 when the issue's targets are
# missed: the effect detected (significant, CI covering the truth) at
# tcp-stream in at least 9 of 10 calibrations, A/A significant in at most
# 5 % of the A/A comparisons (at least 40).
#
# Usage: bench/calibrate.sh [N] [extra lab flags, e.g. --quick]
# Needs root. About 2 minutes per calibration (50 s with --quick).
# KEEP=1 keeps the scratch database and each calibration's output (the
# path is printed); otherwise they are removed.
set -euo pipefail
count="${1:-10}"
shift || true
dualperf="${DUALPERF:-$(command -v dualperf || echo target/release/dualperf)}"
work="$(mktemp -d /tmp/dualperf-calibrate.XXXXXX)"
if [ "${KEEP:-0}" = 1 ]; then
  echo "keeping $work" >&2
else
  trap 'rm -rf "$work"' EXIT
fi
started=$(date +%s)
for i in $(seq 1 "$count"); do
  echo "calibration $i of $count" >&2
  "$dualperf" lab calibrate --db "$work/results.sqlite" --results "$work/results" "$@" \
    >"$work/calibration-$i.txt" 2>"$work/calibration-$i.err" || {
      echo "calibration $i failed:" >&2; tail -5 "$work/calibration-$i.err" >&2; }
done
python3 - "$work/results.sqlite" "$count" "$(( $(date +%s) - started ))" <<'PY'
import sqlite3, sys
db, wanted, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
c = sqlite3.connect(db)
calibrations = c.execute("SELECT COUNT(*) FROM calibrations").fetchone()[0]
aa, aa_sig = c.execute(
    "SELECT COUNT(*), COALESCE(SUM(replica_significant), 0) FROM calibration_points").fetchone()
print(f"{calibrations} calibrations in {seconds} s")
print(f"A/A comparisons significant: {aa_sig} of {aa} ({100.0 * aa_sig / max(aa, 1):.1f} %)")
ok = calibrations >= wanted and aa >= 40 and aa_sig <= 0.05 * aa
print("each calibration's known effect (IPv6 - IPv4, %): estimate [95 % CI] vs truth, pairs")
for cal, kind, size, pairs, est, lo, hi, truth, sig in c.execute(
        "SELECT calibration_id, kind, size_bytes, pairs, effect_relative, effect_ci95_low, "
        "effect_ci95_high, effect_truth, effect_significant FROM calibration_points "
        "WHERE effect_truth IS NOT NULL ORDER BY kind, calibration_id"):
    covered = lo is not None and lo <= truth <= hi
    print(f"  #{cal:<3} {kind:<11} {size:>6} B  {100 * est:+7.2f} "
          f"[{100 * (lo or 0):+7.2f}, {100 * (hi or 0):+7.2f}] vs {100 * truth:+6.2f}  n={pairs:<3}"
          f"{'' if sig else ' not significant'}{'' if covered else ' MISSES the truth'}")
for kind, n, detected, covered, bias, mde in c.execute(
        "SELECT kind, COUNT(*), SUM(effect_significant), "
        "SUM(effect_ci95_low <= effect_truth AND effect_truth <= effect_ci95_high), "
        "AVG(effect_relative - effect_truth), AVG(paired_sd_ratio) "
        "FROM calibration_points WHERE effect_truth IS NOT NULL GROUP BY kind"):
    both = c.execute(
        "SELECT COUNT(*) FROM calibration_points WHERE kind = ? AND effect_significant = 1 "
        "AND effect_ci95_low <= effect_truth AND effect_truth <= effect_ci95_high",
        (kind,)).fetchone()[0]
    print(f"{kind}: known effect detected {detected} of {n}, CI covered the truth {covered} of {n}, "
          f"both {both} of {n}; mean bias {100 * bias:+.2f} points; paired sd {100 * mde:.2f} %")
    if kind == "tcp-stream" and both < 0.9 * n:
        ok = False
print("targets met" if ok else "targets NOT met (tcp-stream effect in >= 9 of 10, A/A <= 5 % of >= 40)")
sys.exit(0 if ok else 1)
PY
