#!/usr/bin/env python3
"""Extracts the figures compare.sh compares from a `dualperf run --json` file.

Usage: dualperf_figures.py RUN.json TEST      (TEST: tcp-stream, udp-stream, tcp-rr, udp-rr)
       dualperf_figures.py --self-test         (checks itself on fixtures/dualperf-run-sample.json)

Prints one `NAME FAMILY VALUE` line per figure and family (the format of compare.sh's figures
file). The JSON is the RunResult schema of crates/dualperf-model (result.rs, observation.rs):
trials[].family is "v4"/"v6"; trials[].outcome has "status" ("ok" or "failed") and, when ok,
the Observations fields beside it (serde's internally tagged enum), or under "observations".
"""
import json
import os
import sys


def median_ns(latency):
    """Median from the HDR histogram buckets (all samples), else from the raw prefix."""
    buckets = latency.get("histogram") or []
    total = sum(b["count"] for b in buckets)
    if total:
        seen = 0
        for bucket in buckets:
            seen += bucket["count"]
            if 2 * seen >= total:
                return bucket["value_ns"]
    raw = sorted(latency.get("raw_ns") or [])
    return raw[(len(raw) - 1) // 2] if raw else None


def figures(run, test):
    """Yields (name, family, value-as-text) for one run of one test."""
    key = test.replace("-", "_")
    for trial in run.get("trials", []):
        family, outcome = trial["family"], trial["outcome"]
        if outcome.get("status") != "ok":
            error = str(outcome.get("error", "unknown error")).replace("\n", " ")
            yield ("dualperf_error_" + key, family, error)
            continue
        obs = outcome.get("observations", outcome)
        seconds = obs["measured_ns"] / 1e9
        if seconds <= 0:
            yield ("dualperf_error_" + key, family, "measured_ns is 0")
            continue
        if test == "tcp-stream":
            yield ("dualperf_tcp_gbps", family, "%.3f" % (obs["receiver"]["bytes"] * 8 / seconds / 1e9))
        elif test == "udp-stream":
            yield ("dualperf_udp_pps", family, "%.0f" % (obs["receiver"]["packets"] / seconds))
            udp = obs.get("udp") or {}
            sent = udp.get("sent") or obs["sender"]["packets"]
            lost = udp.get("lost", sent - obs["receiver"]["packets"])
            yield ("dualperf_udp_loss_pct", family, "%.3f" % (100.0 * lost / sent if sent else 0.0))
        elif test in ("tcp-rr", "udp-rr"):
            median = median_ns(obs.get("latency") or {})
            if median is not None:
                yield ("dualperf_%s_rr_p50_us" % test[:3], family, "%.3f" % (median / 1e3))
        else:
            raise SystemExit("unknown test %r" % test)


def self_test():
    here = os.path.dirname(os.path.abspath(__file__))
    run = json.load(open(os.path.join(here, "fixtures", "dualperf-run-sample.json")))
    got = list(figures(run, "udp-stream"))
    # v4: 2 500 000 packets in 10 s = 250 000 pps; 100 lost of 2 500 100 sent.
    assert got[0] == ("dualperf_udp_pps", "v4", "250000"), got
    assert got[1] == ("dualperf_udp_loss_pct", "v4", "0.004"), got
    assert got[2] == ("dualperf_error_udp_stream", "v6", "connection refused"), got
    got = list(figures(run, "tcp-rr"))
    # Buckets 13000 x3, 14000 x1, 70000 x1: the 3rd of 5 samples is 13000 ns.
    assert got[0] == ("dualperf_tcp_rr_p50_us", "v4", "13.000"), got
    assert median_ns({"histogram": [], "raw_ns": [5, 1, 3]}) == 3
    assert list(figures({"trials": []}, "tcp-stream")) == []
    print("dualperf_figures.py self-test: 5 passed, 0 failed")


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        self_test()
    elif len(sys.argv) == 3:
        with open(sys.argv[1]) as handle:
            for name, family, value in figures(json.load(handle), sys.argv[2]):
                print(name, family, value)
    else:
        raise SystemExit(__doc__)
