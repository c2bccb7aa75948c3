#!/usr/bin/env python3
"""Prints compare.sh's table: medians per figure and family, then the issue-2 target ratios.

Usage: compare_table.py FIGURES PIN REPETITIONS [DUALPERF_PROBLEM]

FIGURES holds "NAME FAMILY VALUE" lines, one per figure, family and repetition (written by
compare.sh and dualperf_figures.py). Exit status: 1 when a target that could be evaluated was
missed, else 0 (targets without figures show "n/a").
"""
import statistics
import sys


def load(path):
    values, errors = {}, []
    for line in open(path):
        parts = line.split(maxsplit=2)
        if len(parts) < 3:
            continue
        name, family, value = parts
        if name.startswith("dualperf_error_"):
            errors.append((name[len("dualperf_error_"):], family, value.strip()))
            continue
        try:
            values.setdefault((name, family), []).append(float(value))
        except ValueError:
            errors.append((name, family, "unreadable value %r" % value.strip()))
    return values, errors


ROWS = [
    ("iperf3 TCP 1 stream, Gbit/s", "iperf3_tcp_gbps"),
    ("dualperf tcp-stream, Gbit/s", "dualperf_tcp_gbps"),
    ("iperf3 UDP 64 B received, pps", "iperf3_udp_pps"),
    ("iperf3 UDP 64 B loss, %", "iperf3_udp_loss_pct"),
    ("  receive-buffer overflows (RcvbufErrors)", "iperf3_udp_rcvbuf_errors"),
    ("C sendmmsg/recvmmsg 64 B received, pps", "c_udp_pps"),
    ("C sendmmsg/recvmmsg 64 B loss, %", "c_udp_loss_pct"),
    ("  receive-buffer overflows (RcvbufErrors)", "c_udp_rcvbuf_errors"),
    ("dualperf udp-stream 64 B received, pps", "dualperf_udp_pps"),
    ("dualperf udp-stream 64 B loss, %", "dualperf_udp_loss_pct"),
    ("  receive-buffer overflows (RcvbufErrors)", "dualperf_udp_rcvbuf_errors"),
    ("C UDP ping-pong 64 B p50, us", "c_udp_rr_p50_us"),
    ("dualperf udp-rr 64 B p50, us", "dualperf_udp_rr_p50_us"),
    ("C TCP ping-pong 64 B p50, us", "c_tcp_rr_p50_us"),
    ("dualperf tcp-rr 64 B p50, us", "dualperf_tcp_rr_p50_us"),
]

# (label, comparison, bound, numerator, denominator or None for a plain value)
TARGETS = [
    ("dualperf/iperf3 TCP goodput", ">=", 1.0, "dualperf_tcp_gbps", "iperf3_tcp_gbps"),
    ("dualperf/iperf3 UDP 64 B pps", ">=", 1.1, "dualperf_udp_pps", "iperf3_udp_pps"),
    ("dualperf/C UDP 64 B pps", ">=", 0.9, "dualperf_udp_pps", "c_udp_pps"),
    ("dualperf UDP 64 B loss, %", "<", 0.1, "dualperf_udp_loss_pct", None),
    ("dualperf/C UDP RR p50", "<=", 1.1, "dualperf_udp_rr_p50_us", "c_udp_rr_p50_us"),
    ("dualperf/C TCP RR p50", "<=", 1.1, "dualperf_tcp_rr_p50_us", "c_tcp_rr_p50_us"),
]


def main(argv):
    if len(argv) < 4:
        raise SystemExit(__doc__)
    values, errors = load(argv[1])
    pin, repetitions = argv[2], argv[3]
    problem = argv[4] if len(argv) > 4 else ""

    def median(name, family):
        samples = values.get((name, family))
        return statistics.median(samples) if samples else None

    def show(value):
        if value is None:
            return "n/a"
        if value.is_integer():
            return "%.0f" % value
        return "%.3f" % value if value < 100 else "%.0f" % value

    place = "RR: both ends on CPU 0" if pin == "1" else "RR: unpinned"
    print("medians of %s repetition(s); %s" % (repetitions, place))
    print("%-44s %12s %12s" % ("measurement", "IPv4", "IPv6"))
    for label, key in ROWS:
        print("%-44s %12s %12s" % (label, show(median(key, "v4")), show(median(key, "v6"))))
    for test, family, error in errors:
        print("dualperf %s over %s failed: %s" % (test, family, error))

    print()
    print("%-44s %12s %12s" % ("target (issue 2)", "IPv4", "IPv6"))
    missed = False
    for label, op, bound, numerator, denominator in TARGETS:
        cells = []
        for family in ("v4", "v6"):
            top = median(numerator, family)
            if denominator is None:
                value = top
            else:
                bottom = median(denominator, family)
                value = None if top is None or not bottom else top / bottom
            if value is None:
                cells.append("n/a")
                continue
            ok = {">=": value >= bound, "<": value < bound, "<=": value <= bound}[op]
            missed |= not ok
            cells.append("%.3f %s" % (value, "ok" if ok else "MISS"))
        print("%-44s %12s %12s" % ("%s %s %s" % (label, op, bound), cells[0], cells[1]))
    if problem:
        print("\ndualperf not measured: %s" % problem)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
