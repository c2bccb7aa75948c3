#!/usr/bin/env bash
# compare.sh — dualperf against iperf3 and the minimal C references, in one run, on one veth pair.
#
#   bench/compare.sh            build two namespaces, measure everything, print figures and ratios
#
# Builds its own namespaces dpy-bench-a-PID (client) and dpy-bench-b-PID (server) joined by a veth
# pair (10.203.0.1/24 fd20:3::1/64 <-> 10.203.0.2/24 fd20:3::2/64), compiles the C references of
# ../shared/bench/*.c into a temporary directory, and measures, per family and back to back so
# that both sides of each ratio see the same machine:
#   TCP goodput       iperf3 -c (1 stream)             | dualperf tcp-stream (128 KiB writes, as iperf3)
#   UDP 64 B rate     iperf3 -u -b 0 -l 64; C udp_blast (sendmmsg/recvmmsg) | dualperf udp-stream
#   UDP 64 B RR p50   C udp_pingpong                   | dualperf udp-rr
#   TCP 64 B RR p50   C tcp_pingpong                   | dualperf tcp-rr
# then prints medians over the repetitions and the ratios issue 2 demands:
#   dualperf/iperf3 TCP goodput >= 1;  dualperf/iperf3 UDP 64 B delivered pps >= 1.1;
#   dualperf/C UDP 64 B pps >= 0.9 with dualperf loss < 0.1 %;  RR p50 dualperf/C <= 1.1 (same CPUs).
# Everything it starts (namespaces, processes, files) is removed on exit, also on failure or Ctrl-C.
#
# Environment:
#   DUALPERF=path      the dualperf binary (default target/release/dualperf)
#   T=seconds          per stream measurement (default 5)
#   N=count            round trips per C ping-pong run (default 50000)
#   R=count            repetitions of the whole sequence; the table shows medians (default 1)
#   PIN=1|0            pin both ends of every request/response test to CPU 0 (default 1): on a small
#                      VM a cross-CPU wake-up dominates the RTT (see ../shared/bench/RESULTS.md)
#   SKIP_DUALPERF=1    measure only iperf3 and the C references
#   DUALPERF_UDP_ARGS  extra `dualperf run` arguments for udp-stream (default none: without -b,
#                      dualperf sends UDP unlimited, like iperf3 -b 0)
#   TCP_WRITE_BYTES    dualperf tcp-stream write size (default 131072, iperf3's default -l for TCP)
#   KEEP=dir           copy the raw outputs (iperf3/dualperf JSON, C output, figures) into dir
# Exit status: 0 all targets met; 1 a target missed or a run failed; 2 usage; 3 missing root,
# tools, or dualperf subcommands (the iperf3 and C figures are still measured and printed).
# Needs root, iproute2, gcc, iperf3, python3, taskset.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
refs=${REFS:-$repo/../shared/bench}
[ -f "$refs/udp_blast.c" ] || refs=/work/shared/bench
DUALPERF=${DUALPERF:-$repo/target/release/dualperf}
case $DUALPERF in /*) ;; *) DUALPERF=$PWD/$DUALPERF ;; esac   # absolute: ip netns exec runs it
T=${T:-5}
N=${N:-50000}
R=${R:-1}
PIN=${PIN:-1}
DUALPERF_UDP_ARGS=${DUALPERF_UDP_ARGS:-}
TCP_WRITE_BYTES=${TCP_WRITE_BYTES:-131072}

case "${1:-}" in
  -h|--help) sed -n "2,/^set -euo/p" "$0" | sed '$ d'; exit 0 ;;
  "") ;;
  *) echo "compare.sh takes no arguments (see --help)" >&2; exit 2 ;;
esac

# --- preconditions --------------------------------------------------------------------------------
need() { command -v "$1" >/dev/null 2>&1 || { echo "compare.sh: '$1' is missing (apt-get install -y $2)" >&2; exit 3; }; }
[ "$(id -u)" = 0 ] || { echo "compare.sh: needs root to create network namespaces" >&2; exit 3; }
need ip iproute2; need ss iproute2; need gcc gcc; need iperf3 iperf3; need python3 python3; need taskset util-linux
[ -f "$refs/udp_blast.c" ] || { echo "compare.sh: C references not found in $refs (set REFS=dir)" >&2; exit 3; }

# Which dualperf, if any, can take part: it needs `serve -B` and these `run` options.
dualperf_problem=""
if [ "${SKIP_DUALPERF:-0}" = 1 ]; then
  dualperf_problem="skipped (SKIP_DUALPERF=1)"
elif [ ! -x "$DUALPERF" ]; then
  dualperf_problem="no dualperf binary at $DUALPERF (build it: cargo build --release -p dualperf, or set DUALPERF=path)"
else
  serve_help=$("$DUALPERF" serve --help 2>&1 || true)
  run_help=$("$DUALPERF" run --help 2>&1 || true)
  missing=()
  grep -q -- '-B' <<<"$serve_help" || missing+=("serve -B ADDR")
  for option in --v4 --v6 -4 -6 --tests --sizes --repeat --json --client-cpus --server-cpus; do
    grep -q -- "$option\b" <<<"$run_help" || missing+=("run $option")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    list=$(printf '`%s`, ' "${missing[@]}"); list=${list%, }
    dualperf_problem="$DUALPERF lacks $list: build a dualperf with the engine (issue 2) merged"
  fi
fi
[ -z "$dualperf_problem" ] || echo "compare.sh: dualperf will not be measured: $dualperf_problem" >&2

# --- resources this script owns ------------------------------------------------------------------
A=dpy-bench-a-$$ B=dpy-bench-b-$$
VA=dpyb$$a VB=dpyb$$b          # at most 15 characters (IFNAMSIZ)
V4A=10.203.0.1 V4B=10.203.0.2 V6A=fd20:3::1 V6B=fd20:3::2
work=$(mktemp -d "${TMPDIR:-/tmp}/dpy-bench-XXXXXX")
pids=()

cleanup() {
  local status=$?
  set +e
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  # Anything still inside our namespaces was started by this script: stop it by pid.
  for ns in $A $B; do
    if ip netns list 2>/dev/null | grep -q "^$ns\b"; then
      for pid in $(ip netns pids "$ns" 2>/dev/null); do kill "$pid" 2>/dev/null; done
    fi
  done
  sleep 0.2
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null; done
  ip netns del $A 2>/dev/null; ip netns del $B 2>/dev/null
  if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp -r "$work"/. "$KEEP"/; fi
  rm -rf "$work"
  exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ip netns add $A; ip netns add $B
ip link add $VA type veth peer name $VB
ip link set $VA netns $A; ip link set $VB netns $B
ip -n $A addr add $V4A/24 dev $VA; ip -n $B addr add $V4B/24 dev $VB
ip -n $A addr add $V6A/64 dev $VA nodad; ip -n $B addr add $V6B/64 dev $VB nodad
for ns in $A $B; do ip -n $ns link set lo up; done
ip -n $A link set $VA up; ip -n $B link set $VB up
for c in udp_blast udp_pingpong tcp_pingpong; do gcc -O2 -Wall -o "$work/$c" "$refs/$c.c"; done
echo "namespaces $A ($V4A, $V6A) <-> $B ($V4B, $V6B); T=${T}s N=$N R=$R PIN=$PIN; load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

pin() { if [ "$PIN" = 1 ]; then echo "taskset -c 0"; fi; }

# serve ADDR PORT NS CMD...: starts a server in namespace NS, remembers its pid, and waits (up to
# 10 s) until something in NS listens on ADDR:PORT (TCP or UDP).
serve() {
  local addr=$1 port=$2 ns=$3
  ip netns exec "$ns" "${@:4}" >"$work/server-$RANDOM.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do
    if ip netns exec "$ns" ss -Hlntu "sport = :$port" 2>/dev/null | grep -qF "$addr"; then return; fi
    kill -0 "${pids[-1]}" 2>/dev/null || { echo "server '${*:4}' exited at start" >&2; exit 1; }
    sleep 0.1
  done
  echo "server '${*:4}' did not listen on $addr port $port within 10 s" >&2
  exit 1
}

stop_last_server() {
  local pid=${pids[-1]}
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  unset 'pids[-1]'
}

# rcvbuf_errors FAMILY: the server namespace's UDP receive-buffer overflow counter (RcvbufErrors
# of /proc/net/snmp, Udp6RcvbufErrors of /proc/net/snmp6): tells receiver overflow from path loss.
rcvbuf_errors() {
  if [ "$1" = v4 ]; then
    ip netns exec $B awk '/^Udp:/ { if (seen) print $6; seen = 1 }' /proc/net/snmp
  else
    ip netns exec $B awk '$1 == "Udp6RcvbufErrors" { print $2 }' /proc/net/snmp6
  fi
}

# One "NAME FAMILY VALUE" line per figure and repetition goes to $work/figures.
record() { echo "$1 $2 $3" >> "$work/figures"; }
touch "$work/figures"

# dualperf_run FAMILY TEST REP [extra args...]: one dualperf run of TEST over one family, its
# figures appended to $work/figures. A failed run is reported and marks the whole script failed.
dualperf_status=0
dualperf_run() {
  local fam=$1 test=$2 rep=$3 size=64 flag
  local json="$work/dualperf-$test-$fam-$rep.json" out="$work/dualperf-$test-$fam-$rep.out"
  [ -z "$dualperf_problem" ] || return 0
  [ "$test" = tcp-stream ] && size=$TCP_WRITE_BYTES
  flag=$([ "$fam" = v4 ] && echo -4 || echo -6)
  if ! ip netns exec $A "$DUALPERF" run --v4 "$V4B" --v6 "$V6B" "$flag" "${dualperf_port[@]}" \
       --tests "$test" --sizes "$size" -t "$T" --repeat 1 "${@:4}" --no-store --json "$json" > "$out" 2>&1; then
    echo "dualperf run $test over $fam failed; its output:" >&2
    sed 's/^/  /' "$out" >&2
    dualperf_status=1
  fi
  if [ -s "$json" ]; then python3 "$here/dualperf_figures.py" "$json" "$test" >> "$work/figures"; fi
}

dualperf_port=()
if [ -z "$dualperf_problem" ]; then
  # One server per family, bound to that family's address only; both stay up throughout.
  dualperf_port=(-p 5441)
  serve "$V4B" 5441 $B "$DUALPERF" serve -B "$V4B" -p 5441
  serve "$V6B" 5441 $B "$DUALPERF" serve -B "$V6B" -p 5441
fi
rr_cpus=()
if [ "$PIN" = 1 ]; then rr_cpus=(--client-cpus 0 --server-cpus 0); fi
read -r -a udp_args <<<"$DUALPERF_UDP_ARGS" || true

# --- measurements --------------------------------------------------------------------------------
for rep in $(seq "$R"); do
for fam in v4 v6; do
  if [ $fam = v4 ]; then dst=$V4B; else dst=$V6B; fi
  echo "repetition $rep/$R, $fam: TCP goodput ..." >&2
  port=$([ $fam = v4 ] && echo 5401 || echo 5402)
  serve "$dst" $port $B iperf3 -s -B "$dst" -p $port
  ip netns exec $A iperf3 -c "$dst" -p $port -t "$T" -J > "$work/iperf3-tcp-$fam-$rep.json"
  record iperf3_tcp_gbps $fam "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%.3f" % (d["end"]["sum_received"]["bits_per_second"]/1e9))' "$work/iperf3-tcp-$fam-$rep.json")"
  dualperf_run $fam tcp-stream "$rep"

  echo "repetition $rep/$R, $fam: UDP 64 B packet rate ..." >&2
  overflows=$(rcvbuf_errors $fam)
  ip netns exec $A iperf3 -c "$dst" -p $port -u -b 0 -l 64 -t "$T" -J > "$work/iperf3-udp-$fam-$rep.json"
  record iperf3_udp_rcvbuf_errors $fam $(( $(rcvbuf_errors $fam) - overflows ))
  # iperf3's "packets" is the highest sequence number seen; received = packets - lost (RESULTS.md).
  read -r pps loss < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["end"]["sum"]; rx=d["packets"]-d["lost_packets"]; print("%.0f %.3f" % (rx/d["seconds"], d["lost_percent"]))' "$work/iperf3-udp-$fam-$rep.json")
  record iperf3_udp_pps $fam "$pps"; record iperf3_udp_loss_pct $fam "$loss"
  stop_last_server

  bport=$([ $fam = v4 ] && echo 5411 || echo 5412)
  overflows=$(rcvbuf_errors $fam)
  ip netns exec $B "$work/udp_blast" -r "$dst" $bport 1000 > "$work/blast-rx-$fam-$rep" 2>&1 &
  rxpid=$!; pids+=($rxpid)
  for _ in $(seq 50); do grep -q ready "$work/blast-rx-$fam-$rep" && break; sleep 0.1; done
  ip netns exec $A "$work/udp_blast" -t "$dst" $bport "$T" 64 > "$work/blast-tx-$fam-$rep" 2>&1
  wait $rxpid || true
  unset 'pids[-1]'
  read -r pps loss < <(python3 - "$work/blast-tx-$fam-$rep" "$work/blast-rx-$fam-$rep" <<'EOF'
import re, sys
def kv(path):
    return dict(re.findall(r"(\w+)=([\w.]+)", open(path).read()))
tx, rx = kv(sys.argv[1]), kv(sys.argv[2])
sent, got = int(tx["tx_pkts"]), int(rx["rx_pkts"])
print("%s %.3f" % (rx["rx_pps"], 100.0 * (sent - got) / sent if sent else 0.0))
EOF
)
  record c_udp_pps $fam "$pps"; record c_udp_loss_pct $fam "$loss"
  record c_udp_rcvbuf_errors $fam $(( $(rcvbuf_errors $fam) - overflows ))
  if [ -z "$dualperf_problem" ]; then
    overflows=$(rcvbuf_errors $fam)
    dualperf_run $fam udp-stream "$rep" "${udp_args[@]}"
    record dualperf_udp_rcvbuf_errors $fam $(( $(rcvbuf_errors $fam) - overflows ))
  fi

  echo "repetition $rep/$R, $fam: UDP 64 B request/response ..." >&2
  uport=$([ $fam = v4 ] && echo 5421 || echo 5422)
  serve "$dst" $uport $B $(pin) "$work/udp_pingpong" -s "$dst" $uport
  out=$(ip netns exec $A $(pin) "$work/udp_pingpong" -c "$dst" $uport "$N" 64)
  echo "$out" > "$work/udp-pingpong-$fam-$rep"
  record c_udp_rr_p50_us $fam "$(sed -n 's/.*rtt_p50_us=\([0-9.]*\).*/\1/p' <<<"$out")"
  stop_last_server
  dualperf_run $fam udp-rr "$rep" "${rr_cpus[@]}"

  echo "repetition $rep/$R, $fam: TCP 64 B request/response ..." >&2
  tport=$([ $fam = v4 ] && echo 5431 || echo 5432)
  serve "$dst" $tport $B $(pin) "$work/tcp_pingpong" -s "$dst" $tport
  out=$(ip netns exec $A $(pin) "$work/tcp_pingpong" -c "$dst" $tport "$N" 64)
  echo "$out" > "$work/tcp-pingpong-$fam-$rep"
  record c_tcp_rr_p50_us $fam "$(sed -n 's/.*rtt_p50_us=\([0-9.]*\).*/\1/p' <<<"$out")"
  stop_last_server
  dualperf_run $fam tcp-rr "$rep" "${rr_cpus[@]}"
done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# --- table and ratios ----------------------------------------------------------------------------
table_status=0
python3 "$here/compare_table.py" "$work/figures" "$PIN" "$R" "$dualperf_problem" || table_status=$?
if [ -n "$dualperf_problem" ] && [ "${SKIP_DUALPERF:-0}" != 1 ]; then exit 3; fi
if [ $dualperf_status != 0 ] || [ $table_status != 0 ]; then exit 1; fi
exit 0
