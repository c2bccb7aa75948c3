#!/bin/bash
# Stand-in for `dualperf serve` / `dualperf run --plan PLAN --measure-only RAW`,
# built on iperf3, so the lab's traffic step can be tested independently of the
# engine. It reads the arms' targets from the plan, runs iperf3 to each, and
# writes a minimal raw result (no trials) whose config is the plan it was given.
set -e
cmd=$1; shift
if [ "$cmd" = serve ]; then exec iperf3 -s -p "$2"; fi
while [ $# -gt 0 ]; do case $1 in --plan) plan=$2; shift;; --measure-only) raw=$2; shift;; esac; shift; done
port=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["port"])' "$plan")
for target in $(python3 -c 'import json,sys; print(" ".join(a["target"] for a in json.load(open(sys.argv[1]))["arms"]))' "$plan"); do
  echo "fake run: $target port $port"
  iperf3 -c "$target" -p "$port" -t 1 | tail -3
  sleep 0.2
done
python3 - "$plan" "$raw" <<'PY'
import json, sys
config = json.load(open(sys.argv[1]))
host = {"tool_version": "x", "hostname": "h", "kernel": "k", "os": "o", "cpu_model": "c", "cpu_count": 2,
        "memory_bytes": 1, "tcp_congestion_control": "cubic", "default_qdisc": "noqueue", "interfaces": [], "netns": None}
result = {"schema": "dualperf.run", "schema_version": 2, "run_id": "child", "started_at_unix_ms": 0,
          "finished_at_unix_ms": 0, "config": config, "client_host": host, "server_host": None, "testbed": None,
          "trials": [], "analysis": None, "complete": True, "errors": []}
json.dump(result, open(sys.argv[2], "w"))
PY
