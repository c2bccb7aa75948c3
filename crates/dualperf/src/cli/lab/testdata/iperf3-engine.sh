#!/bin/bash
# Stand-in for `dualperf serve` / `dualperf run` with the same arguments, built on
# iperf3, so the lab main job can be tested before (and independently of) the engine.
# It writes a minimal but valid RunResult JSON (no trials).
set -e
cmd=$1; shift
if [ "$cmd" = serve ]; then exec iperf3 -s -p "$2"; fi
while [ $# -gt 0 ]; do case $1 in --v4) v4=$2; shift;; --v6) v6=$2; shift;; -p) port=$2; shift;; --json) json=$2; shift;; esac; shift; done
echo "fake run: v4 $v4 v6 $v6 port $port"
iperf3 -c $v4 -p $port -t 1 | tail -3
sleep 0.2
iperf3 -c $v6 -p $port -t 1 | tail -3
host='{"tool_version":"x","hostname":"h","kernel":"k","os":"o","cpu_model":"c","cpu_count":2,"memory_bytes":1,"tcp_congestion_control":"cubic","default_qdisc":"noqueue","interfaces":[],"netns":null}'
cat > "$json" <<JSON
{"schema":"dualperf.run","schema_version":1,"run_id":"fake","started_at_unix_ms":0,"finished_at_unix_ms":0,
"config":{"points":[],"families":["v4","v6"],"repeat":1,"order":"interleaved","targets":{"v4":"$v4","v6":"$v6"},"host":null,"port":$port,"client_cpus":[],"server_cpus":[],"command_line":[]},
"client_host":$host,"server_host":null,"testbed":null,"trials":[],"analysis":null,"complete":true,"errors":[]}
JSON
