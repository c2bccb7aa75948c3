#!/usr/bin/env bash
# dualperf scan against ripgrep on a real tree (issue 17): curl's sources from
# the Debian source package, ripgrep from Debian. Prints the median wall time
# and CPU time of each over R runs (interleaved, so both see the same load)
# and their ratio, for the whole tree and for C/C++ only.
#
#   bench/scan/speed.sh                     # builds target/release/dualperf if needed
#   R=9 DUALPERF=path/to/dualperf bench/scan/speed.sh
#
# ripgrep searches the tree for the API names the scanner's rules start from,
# as fixed strings (its fastest mode, so the ratio is the demanding one).
# Downloads go to $DUALPERF_CORPUS_CACHE (default target/scan-corpus), never
# into the repository.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="${DUALPERF_CORPUS_CACHE:-$repo/target/scan-corpus}"
runs="${R:-7}"
dualperf="${DUALPERF:-$repo/target/release/dualperf}"

command -v rg >/dev/null || { echo "ripgrep is needed: apt-get install ripgrep" >&2; exit 2; }
if [ ! -x "$dualperf" ]; then
    (cd "$repo" && cargo build --release -p dualperf)
fi

tree="$cache/curl/src"
if [ ! -d "$tree" ]; then
    mkdir -p "$cache/curl/download"
    # CURL_SOURCE=curl=7.88.1-10+deb12u15 pins a version; default: apt's choice.
    (cd "$cache/curl/download" && apt-get source --download-only -q "${CURL_SOURCE:-curl}" >/dev/null)
    dsc="$(ls "$cache"/curl/download/curl_*.dsc | head -n 1)"
    dpkg-source --skip-patches -x "$dsc" "$tree" >/dev/null
fi

names=(inet_addr inet_aton inet_ntoa gethostbyname gethostbyaddr sockaddr_in in_addr
       AF_INET PF_INET INADDR_ANY INADDR_LOOPBACK INADDR_BROADCAST INADDR_NONE
       INET_ADDRSTRLEN IP_TOS IP_TTL IP_ADD_MEMBERSHIP IP_MULTICAST_IF s_addr h_addr
       To4 tcp4 udp4 Inet4Address Ipv4Addr SocketAddrV4 isIPv4 resolve4)
patterns=()
for name in "${names[@]}"; do patterns+=(-e "$name"); done

# One timed run: prints "wall cpu" in seconds.
timed() {
    local out
    out="$(mktemp)"
    /usr/bin/time -o "$out" -f '%e %U %S' "$@" >/dev/null 2>&1 || true
    tail -n 1 "$out" | awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }'
    rm -f "$out"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

compare() {
    local label="$1"; shift
    local rg_args=("$@")
    local rg_wall=() rg_cpu=() scan_wall=() scan_cpu=() files=""
    for _ in $(seq "$runs"); do
        read -r w c < <(timed rg -c -F "${patterns[@]}" "${rg_args[@]}" "$tree")
        rg_wall+=("$w"); rg_cpu+=("$c")
        read -r w c < <(timed "$dualperf" scan --summary "${SCAN_ARGS[@]}" "$tree")
        scan_wall+=("$w"); scan_cpu+=("$c")
    done
    files="$("$dualperf" scan --json "${SCAN_ARGS[@]}" "$tree" | python3 -c 'import json,sys; s=json.load(sys.stdin)["summary"]; print(s["files_scanned"], s["lines_scanned"], s["findings"])' || true)"
    local rw rc sw sc
    rw="$(printf '%s\n' "${rg_wall[@]}" | median)"; rc="$(printf '%s\n' "${rg_cpu[@]}" | median)"
    sw="$(printf '%s\n' "${scan_wall[@]}" | median)"; sc="$(printf '%s\n' "${scan_cpu[@]}" | median)"
    read -r nfiles nlines nfindings <<<"$files"
    printf '%-9s %6s files %8s lines %5s findings | rg %6.3f s wall %6.3f s cpu | scan %6.3f s wall %6.3f s cpu | ratio %5.1fx wall %5.1fx cpu\n' \
        "$label" "$nfiles" "$nlines" "$nfindings" "$rw" "$rc" "$sw" "$sc" \
        "$(awk -v a="$sw" -v b="$rw" 'BEGIN { print (b > 0 ? a / b : 0) }')" \
        "$(awk -v a="$sc" -v b="$rc" 'BEGIN { print (b > 0 ? a / b : 0) }')"
}

echo "tree: $(basename "$(ls "$cache"/curl/download/curl_*.dsc | head -n 1)" .dsc) in $tree ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)); medians of $runs interleaved runs"
SCAN_ARGS=()
compare "all" 
SCAN_ARGS=(--language c,cpp)
compare "C/C++" -t c -t cpp
