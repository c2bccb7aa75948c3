#!/usr/bin/env bash
# compare_with_peers.sh — one comparison round of dualperf against iperf3 and the C references
# of ../shared/bench on the veth pair that `peers.sh up` builds (namespaces dpb-a / dpb-b),
# each pair of figures measured back to back so that they share the machine's state.
#
#   cargo build --release -p dualperf
#   ../shared/bench/peers.sh up            # builds the pair and the C references in /tmp/dualperf-peers
#   ip netns exec dpb-b target/release/dualperf serve &
#   crates/dualperf-engine/bench/compare_with_peers.sh
#   kill %1; ../shared/bench/peers.sh down
#
# Rows: TCP 1 stream goodput; UDP 64 B unlimited delivered packet rate and loss; 64 B TCP and
# UDP request/response median RTT with both ends pinned to CPU 0 (C references under taskset -c 0,
# dualperf with --pin).
set -u
B=${DUALPERF:-$(dirname "$0")/../../../target/release/dualperf}; W=${TMPDIR:-/tmp}/dualperf-peers
for fam in v4 v6; do
  dst=$([ $fam = v4 ] && echo 10.201.0.2 || echo fd20:1::2); n=${fam#v}
  ip netns exec dpb-b iperf3 -s -1 -B $dst -p 5342 >/dev/null 2>&1 & sleep 0.3
  echo "$fam iperf3 TCP: $(ip netns exec dpb-a iperf3 -c $dst -p 5342 -t 3 -J | python3 -c 'import json,sys; d=json.load(sys.stdin); print("%.2f Gbit/s" % (d["end"]["sum_received"]["bits_per_second"]/1e9))')"; wait
  echo "$fam dualperf TCP: $(ip netns exec dpb-a $B run --$fam $dst -$n --tests tcp-stream -t 3 --warmup 0.5 --repeat 1 2>&1 | grep goodput)"
  ip netns exec dpb-b iperf3 -s -1 -B $dst -p 5341 >/dev/null 2>&1 & sleep 0.3
  echo "$fam iperf3 UDP64: $(ip netns exec dpb-a iperf3 -c $dst -p 5341 -u -b 0 -l 64 -t 3 -J | python3 -c 'import json,sys; d=json.load(sys.stdin)["end"]["sum"]; rx=d["packets"]-d["lost_packets"]; print("%.1f kpps received, loss %.2f %%" % (rx/d["seconds"]/1e3, d["lost_percent"]))')"; wait
  ip netns exec dpb-b $W/udp_blast -r $dst 5351 1000 > /tmp/dpe-blast-rx 2>&1 & sleep 0.3
  ip netns exec dpb-a $W/udp_blast -t $dst 5351 3 64 >/dev/null 2>&1; wait; echo "$fam C blast UDP64: $(grep -o 'rx_pps=[0-9]*' /tmp/dpe-blast-rx)"
  echo "$fam dualperf UDP64: $(ip netns exec dpb-a $B run --$fam $dst -$n --tests udp-stream --sizes 64 -t 3 --warmup 0.5 --repeat 1 2>&1 | grep -E 'packets received|loss' | tr -s ' ' | tr '\n' ' ')"
  ip netns exec dpb-b taskset -c 0 $W/udp_pingpong -s $dst 5361 >/dev/null 2>&1 & p1=$!
  ip netns exec dpb-b taskset -c 0 $W/tcp_pingpong -s $dst 5371 >/dev/null 2>&1 & p2=$!
  sleep 0.3
  echo "$fam C pinned UDP RR: $(ip netns exec dpb-a taskset -c 0 $W/udp_pingpong -c $dst 5361 50000 64 | grep -o 'rtt_p50_us=[0-9.]*')"
  echo "$fam C pinned TCP RR: $(ip netns exec dpb-a taskset -c 0 $W/tcp_pingpong -c $dst 5371 50000 64 | grep -o 'rtt_p50_us=[0-9.]*')"
  kill $p1 $p2 2>/dev/null; wait $p1 $p2 2>/dev/null
  echo "$fam dualperf pinned RR: $(ip netns exec dpb-a $B run --$fam $dst -$n --tests tcp-rr,udp-rr --pin -t 2 --warmup 0.3 --repeat 1 2>&1 | grep -E '^(tcp|udp)-rr|RTT p50' | tr -s ' ' | tr '\n' ' ')"
done
