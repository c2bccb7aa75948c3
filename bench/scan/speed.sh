#!/usr/bin/env bash
# dualperf scan against ripgrep on real trees (issues 17 and 28). Prints, per
# tree, the median wall time and CPU time of each over R runs (interleaved,
# so both see the same load) and their ratio. Target (issue 28): at most 5x
# ripgrep's wall time on a large C tree and a large Java tree.
#
#   bench/scan/speed.sh                        # trees: redis (C), rocketmq (Java), curl (C)
#   TREES="redis rocketmq" R=9 bench/scan/speed.sh
#   DUALPERF=path/to/dualperf bench/scan/speed.sh
#
# The scanner is `dualperf scan --summary` when target/release/dualperf is
# built (or DUALPERF names it), else the scanner-only example
# `scan_summary` (same scan, same options; built with
# `cargo build --release -p dualperf-scan --example scan_summary`, which is
# what this script does when neither exists).
#
# ripgrep searches each tree for the API names the scanner's rules start
# from, as fixed strings (its fastest mode, so the ratio is the demanding
# one), with its default threads, as the scanner uses its own.
#
# Trees: redis and rocketmq at the newest commit of a local clone
# ($DUALPERF_CORPUS_MIRROR/<owner>+<name>/repo, default /work/.mirror, else
# a shallow clone from GitHub into the cache), written out with `git
# archive`; curl from the Debian source package. Everything goes to
# $DUALPERF_CORPUS_CACHE (default target/scan-corpus), never into the
# repository.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="${DUALPERF_CORPUS_CACHE:-$repo/target/scan-corpus}"
mirror="${DUALPERF_CORPUS_MIRROR:-/work/.mirror}"
target="${CARGO_TARGET_DIR:-$repo/target}"
runs="${R:-7}"
trees="${TREES:-redis rocketmq curl}"

command -v rg >/dev/null || { echo "ripgrep is needed: apt-get install ripgrep" >&2; exit 2; }
if [ -n "${DUALPERF:-}" ] || [ -x "$target/release/dualperf" ]; then
    scanner=("${DUALPERF:-$target/release/dualperf}" scan --summary)
    scanner_name="dualperf scan --summary"
else
    if [ ! -x "$target/release/examples/scan_summary" ]; then
        (cd "$repo" && cargo build -q --release -p dualperf-scan --example scan_summary)
    fi
    scanner=("$target/release/examples/scan_summary")
    scanner_name="scan_summary (dualperf-scan example)"
fi

# A git tree: the newest commit of owner/name, written out once.
git_tree() {
    local slug="$1" dir="$cache/speed/${1//\//+}"
    if [ ! -d "$dir" ]; then
        local git_dir="$mirror/${slug//\//+}/repo"
        if [ ! -d "$git_dir" ]; then
            git_dir="$cache/speed/${slug//\//+}.git"
            [ -d "$git_dir" ] || git clone -q --bare --depth 1 "https://github.com/$slug.git" "$git_dir"
        fi
        mkdir -p "$dir.tmp"
        git --git-dir "$git_dir" archive HEAD | tar -x -C "$dir.tmp"
        mv "$dir.tmp" "$dir"
    fi
    echo "$dir"
}

curl_tree() {
    local dir="$cache/curl/src"
    if [ ! -d "$dir" ]; then
        mkdir -p "$cache/curl/download"
        # CURL_SOURCE=curl=7.88.1-10+deb12u15 pins a version; default: apt's choice.
        (cd "$cache/curl/download" && apt-get source --download-only -q "${CURL_SOURCE:-curl}" >/dev/null)
        dpkg-source --skip-patches -x "$(ls "$cache"/curl/download/curl_*.dsc | head -n 1)" "$dir" >/dev/null
    fi
    echo "$dir"
}

names=(inet_addr inet_aton inet_ntoa gethostbyname gethostbyaddr sockaddr_in in_addr
       AF_INET PF_INET INADDR_ANY INADDR_LOOPBACK INADDR_BROADCAST INADDR_NONE
       INET_ADDRSTRLEN IP_TOS IP_TTL IP_ADD_MEMBERSHIP IP_MULTICAST_IF s_addr h_addr
       To4 tcp4 udp4 Inet4Address Ipv4Addr SocketAddrV4 isIPv4 resolve4)
patterns=()
for name in "${names[@]}"; do patterns+=(-e "$name"); done

# One timed run: prints "wall cpu" in seconds, to the millisecond
# (/usr/bin/time's %e counts hundredths, too coarse for ripgrep's 40 ms:
# one hundredth moved the ratio by a whole 1x).
timed() {
    python3 -c '
import resource, subprocess, sys, time
start = time.perf_counter()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{wall:.4f} {usage.ru_utime + usage.ru_stime:.4f}")
' "$@"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# compare LABEL TREE [rg type args...] -- [scanner args...]
compare() {
    local label="$1" tree="$2"; shift 2
    local rg_args=() scan_args=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do rg_args+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    scan_args=("$@")
    local rg_wall=() rg_cpu=() scan_wall=() scan_cpu=()
    for _ in $(seq "$runs"); do
        read -r w c < <(timed rg -c -F "${patterns[@]}" "${rg_args[@]}" "$tree")
        rg_wall+=("$w"); rg_cpu+=("$c")
        read -r w c < <(timed "${scanner[@]}" "${scan_args[@]}" "$tree")
        scan_wall+=("$w"); scan_cpu+=("$c")
    done
    local counts=""
    if [ "${scanner_name#scan_summary}" != "$scanner_name" ]; then
        counts="$("${scanner[@]}" "${scan_args[@]}" "$tree")"
    else
        counts="$("${scanner[0]}" scan --json "${scan_args[@]}" "$tree" | python3 -c 'import json,sys; s=json.load(sys.stdin)["summary"]; print(s["files_scanned"], s["lines_scanned"], s["findings"])' || true)"
    fi
    local rw rc sw sc nfiles nlines nfindings
    rw="$(printf '%s\n' "${rg_wall[@]}" | median)"; rc="$(printf '%s\n' "${rg_cpu[@]}" | median)"
    sw="$(printf '%s\n' "${scan_wall[@]}" | median)"; sc="$(printf '%s\n' "${scan_cpu[@]}" | median)"
    read -r nfiles nlines nfindings <<<"$counts"
    printf '%-16s %6s files %8s lines %5s findings | rg %6.4f s wall %6.4f s cpu | scan %6.4f s wall %6.4f s cpu | ratio %5.1fx wall %5.1fx cpu\n' \
        "$label" "$nfiles" "$nlines" "$nfindings" "$rw" "$rc" "$sw" "$sc" \
        "$(awk -v a="$sw" -v b="$rw" 'BEGIN { print (b > 0 ? a / b : 0) }')" \
        "$(awk -v a="$sc" -v b="$rc" 'BEGIN { print (b > 0 ? a / b : 0) }')"
}

echo "scanner: $scanner_name; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); medians of $runs interleaved runs"
for name in $trees; do
    case "$name" in
        redis)
            tree="$(git_tree redis/redis)"
            compare "redis (C)" "$tree" -t c -t cpp -- --language c,cpp
            ;;
        rocketmq)
            tree="$(git_tree apache/rocketmq)"
            compare "rocketmq (Java)" "$tree" -t java -- --language java
            ;;
        curl)
            tree="$(curl_tree)"
            compare "curl (all)" "$tree" --
            compare "curl (C/C++)" "$tree" -t c -t cpp -- --language c,cpp
            ;;
        *) echo "unknown tree $name (redis, rocketmq, curl)" >&2; exit 2 ;;
    esac
done
