#!/usr/bin/env bash
# Goodput of the transition mechanisms against native paths on the same
# testbed, with iperf3 (a benchmark, not a test: figures vary with the load
# of the machine). For each preset it builds the testbed once, then runs
# every arm REPS times, interleaved (arm 1, arm 2, …, arm 1, …), each a
# SECONDS-long TCP stream from the client node to the arm's target in the
# server node, and prints the median receiver goodput per arm, plus for NAT64
# how much of one core TAYGA ran and wanted (ran + waited for a CPU, from
# /proc/PID/task/*/schedstat): a TAYGA that wants ~100 % is the bottleneck.
#
#   sudo crates/dualperf-lab/bench/transition-goodput.sh            # tunnels four-in-six nat64
#   sudo REPS=5 SECONDS_PER_RUN=3 crates/dualperf-lab/bench/transition-goodput.sh tunnels
#   sudo PER_PACKET=1 crates/dualperf-lab/bench/transition-goodput.sh tunnels four-in-six
#
# PER_PACKET=1 limits GSO and GRO to one segment on every testbed interface
# (`ip link set … gso_max_size 1500 gro_max_size 1500`): veth otherwise
# carries 64 KB super-packets, which hide the per-packet cost of the
# encapsulation (kernel-recipes §1.4).
#
# Needs root, iperf3, python3 and what the presets need (dev/install-deps).
# Everything it builds is named dsp-<run>-… and removed when it ends, also on
# Ctrl-C; traffic stays inside the testbed's namespaces.
set -euo pipefail
cd "$(dirname "$0")/../../.."
REPS="${REPS:-3}"
SECONDS_PER_RUN="${SECONDS_PER_RUN:-3}"
PORT="${PORT:-5299}"
presets=("$@")
[ ${#presets[@]} -gt 0 ] || presets=(tunnels four-in-six nat64)

CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-1}" cargo build -q -p dualperf-lab --example hold
hold=target/debug/examples/hold

echo "# transition goodput: TCP, ${SECONDS_PER_RUN} s per run, median of ${REPS} interleaved runs"
echo "# $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), iperf3 $(iperf3 --version | head -1 | awk '{print $2}')"

goodput() { # client-netns server-netns target family -> Mbit/s (receiver)
  local client=$1 server=$2 target=$3 family=$4 out
  ip netns exec "$server" iperf3 -s -1 -p "$PORT" >/dev/null 2>&1 &
  local server_pid=$!
  for _ in $(seq 50); do
    ip netns exec "$server" ss -ltn "sport = :$PORT" | grep -q LISTEN && break
    sleep 0.05
  done
  out=$(ip netns exec "$client" timeout $((SECONDS_PER_RUN + 10)) \
    iperf3 -"${family#v}" -c "$target" -p "$PORT" -t "$SECONDS_PER_RUN" -J 2>/dev/null || true)
  wait "$server_pid" 2>/dev/null || true
  python3 -c 'import json,sys
try: print("%.0f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e6))
except Exception: print("nan")' <<<"$out"
}

# nanoseconds a process ran and waited to run (every thread): /proc/PID/task/*/schedstat
schedstat() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{r += $1; w += $2} END {printf "%.0f %.0f\n", r, w}'; }

for preset in "${presets[@]}"; do
  coproc HOLD { "$hold" "$preset"; }
  hold_pid=$HOLD_PID
  # shellcheck disable=SC2064
  trap "kill $hold_pid 2>/dev/null || true" EXIT
  declare -A netns=()
  arms=() families=() targets=() labels=() daemons=() mechanisms=()
  while read -r -u "${HOLD[0]}" kind rest; do
    case "$kind" in
      node) netns[${rest%% *}]=${rest#* } ;;
      arm) read -r id family target label <<<"$rest"
           arms+=("$id"); families+=("$family"); targets+=("$target"); labels+=("$label") ;;
      mechanism) mechanisms+=("$rest") ;;
      daemon) daemons+=("$rest") ;;
      ready) break ;;
    esac
  done
  if [ -n "${PER_PACKET:-}" ]; then
    for ns in "${netns[@]}"; do
      for dev in $(ip -n "$ns" -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | grep '^dsp'); do
        ip -n "$ns" link set dev "$dev" gso_max_size 1500 gro_max_size 1500
      done
    done
  fi
  echo
  echo "## $preset (${mechanisms[*]:-no mechanism})${PER_PACKET:+, per packet (GSO/GRO off)}"
  declare -A results=() tayga=()
  for rep in $(seq "$REPS"); do
    for i in "${!arms[@]}"; do
      sched0="0 0"; [ ${#daemons[@]} -gt 0 ] && sched0=$(schedstat "${daemons[0]}")
      t0=$(date +%s%N)
      mbit=$(goodput "${netns[client]}" "${netns[server]}" "${targets[$i]}" "${families[$i]}")
      t1=$(date +%s%N)
      results[${arms[$i]}]+="$mbit "
      if [ ${#daemons[@]} -gt 0 ]; then
        sched1=$(schedstat "${daemons[0]}")
        # ran / wanted (ran + waited for a CPU), in % of one core over the run
        tayga[${arms[$i]}]+="$(python3 -c "import sys
r0, w0, r1, w1, wall = map(float, sys.argv[1:])
print('%.0f/%.0f' % (100 * (r1 - r0) / wall, 100 * (r1 - r0 + w1 - w0) / wall))" $sched0 $sched1 $((t1 - t0))) "
      fi
    done
  done
  printf '| %-24s | %-36s | %14s | %s\n' arm label "median Mbit/s" "runs"
  for i in "${!arms[@]}"; do
    id=${arms[$i]}
    median=$(python3 -c 'import sys,statistics
v=[float(x) for x in sys.argv[1:] if x!="nan"]
print("%.0f" % statistics.median(v) if v else "failed")' ${results[$id]})
    extra=""
    [ -n "${tayga[$id]:-}" ] && extra="; TAYGA % of a core ran/wanted: ${tayga[$id]}"
    printf '| %-24s | %-36s | %14s | %s%s\n' "$id" "${labels[$i]}" "$median" "${results[$id]}" "$extra"
  done
  eval "exec ${HOLD[1]}>&-"   # closing the holder's stdin removes the testbed
  wait "$hold_pid" || true
  trap - EXIT
  unset netns results tayga
done
