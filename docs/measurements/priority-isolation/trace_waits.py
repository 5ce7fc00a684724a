#!/usr/bin/env python3
"""What the high-priority service's requests waited behind, from a trace.

Reads a `colo sim --trace` file (Chrome trace-event JSON, docs/traces.md) of
one run with a high-priority job and a best-effort job, and the trace of the
service alone (the same kernel table, `mode: exclusive`, as a training job of
a few iterations). The service launches its kernels one at a time, so its
completed kernel events, in order, cut into requests of as many kernels as
one iteration alone has, and the i-th kernel of a request is the i-th of an
iteration alone. Per request it counts:

  * delayed kernels: those whose event (launch reached the GPU -> last block
    ended) took more than --delayed-us longer than the same kernel alone;
  * long waits: delayed by at least --long-us (under time slicing, a wait
    for the other context's quantum and two switches);
  * the training kernels on the GPU when each delayed kernel was launched
    (what it waited behind), grouped by name and grid;
  * the span (first kernel launched -> last ended) against the span alone,
    and whether the request started at the end of the one before it
    (back-to-back: it had been queued behind its predecessor).

Usage:
  trace_waits.py TRACE.json SOLO.json [--iterations 5] [--run LABEL]
                 [--delayed-us 1] [--long-us 1000] [--top 5]
"""
import argparse
import bisect
import json
import statistics
import sys


def die(message):
    print(f"trace_waits.py: {message}", file=sys.stderr)
    sys.exit(2)


def load_events(path):
    try:
        with open(path) as f:
            return json.load(f)["traceEvents"]
    except OSError as e:
        die(f"{path}: cannot read it ({e.strerror})")
    except (ValueError, KeyError, TypeError) as e:
        die(f"{path}: expected a `colo sim --trace` JSON object with "
            f"traceEvents ({e})")


def kernels_of(events, pid):
    out = [e for e in events
           if e.get("ph") == "X" and e.get("cat") == "kernel" and
           e["pid"] == pid and e["args"].get("state") == "completed"]
    out.sort(key=lambda e: e["ts"])
    return out


def processes(events):
    return {e["pid"]: e["args"]["name"] for e in events
            if e.get("ph") == "M" and e.get("name") == "process_name"}


def pick(names, run, suffix):
    found = [p for p, n in names.items()
             if n.endswith(suffix) and (run is None or n.startswith(run + ":"))]
    if len(found) != 1:
        die(f"expected one process '{run or '*'}: ...{suffix}', found "
            f"{[names[p] for p in found]} (pass --run LABEL)")
    return found[0]


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(round(q * len(xs) + 0.5)) - 1))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("solo")
    ap.add_argument("--iterations", type=int, default=5,
                    help="iterations in the solo trace")
    ap.add_argument("--run", default=None, help="run label (process prefix)")
    ap.add_argument("--delayed-us", type=float, default=1.0)
    ap.add_argument("--long-us", type=float, default=1000.0)
    ap.add_argument("--top", type=int, default=5)
    a = ap.parse_args()

    solo_events = load_events(a.solo)
    solo_names = processes(solo_events)
    solo = kernels_of(solo_events, pick(solo_names, None, "(best-effort)"))
    if len(solo) % a.iterations:
        die(f"{a.solo}: {len(solo)} kernels is not {a.iterations} "
            "iterations of equal length")
    n = len(solo) // a.iterations
    solo_dur = [e["dur"] for e in solo[:n]]
    solo_span = solo[n - 1]["ts"] + solo[n - 1]["dur"] - solo[0]["ts"]

    events = load_events(a.trace)
    names = processes(events)
    hp_pid = pick(names, a.run, "(high)")
    be_pid = pick(names, a.run, "(best-effort)")
    hp = kernels_of(events, hp_pid)
    be = kernels_of(events, be_pid)
    be_start = [e["ts"] for e in be]
    for i, e in enumerate(hp):
        if e["name"] != solo[i % n]["name"]:
            die(f"service kernel {i} is '{e['name']}', alone "
                f"'{solo[i % n]['name']}': the trace does not cut into "
                f"requests of {n} kernels")

    # The training kernels on the GPU at time t: events that started by t and
    # end after it. colo sim's jobs launch one kernel at a time, so only the
    # last few events that started by t can still be running.
    def be_at(t):
        hi = bisect.bisect_right(be_start, t)
        return [be[j] for j in range(hi - 1, max(-1, hi - 8), -1)
                if be[j]["ts"] + be[j]["dur"] > t]

    requests = len(hp) // n
    rows = []
    behind = {}
    prev_end = None
    for r in range(requests):
        ks = hp[r * n:(r + 1) * n]
        delayed = longw = 0
        delay_sum = 0.0
        for i, e in enumerate(ks):
            d = e["dur"] - solo_dur[i]
            if d <= a.delayed_us:
                continue
            delayed += 1
            delay_sum += d
            if d >= a.long_us:
                longw += 1
            for b in be_at(e["ts"]):
                key = (b["name"][:60], b["args"].get("blocks"),
                       b["args"].get("form"))
                c = behind.setdefault(key, [0, 0.0, 0.0])
                c[0] += 1
                c[1] += d
                c[2] = max(c[2], b["dur"])
        start = ks[0]["ts"]
        end = ks[-1]["ts"] + ks[-1]["dur"]
        queued = prev_end is not None and start - prev_end < 1.0
        rows.append((delayed, longw, delay_sum, end - start, queued))
        prev_end = end

    label = names[hp_pid].split(":")[0]
    print(f"run {label}: {requests} complete requests of {n} kernels "
          f"(solo span {solo_span / 1000:.3f} ms); {len(be)} training kernels")

    def stat(i, scale=1.0):
        xs = [row[i] * scale for row in rows]
        return (f"mean {statistics.mean(xs):.1f}, p50 {pct(xs, 0.5):.1f}, "
                f"p99 {pct(xs, 0.99):.1f}, max {max(xs):.1f}")

    print(f"  per request, kernels delayed > {a.delayed_us:g} us: {stat(0)}")
    print(f"  per request, waits >= {a.long_us:g} us: {stat(1)}")
    print(f"  per request, summed delay ms: {stat(2, 1e-3)}")
    print(f"  per request, span ms: {stat(3, 1e-3)}")
    q = sum(1 for row in rows if row[4])
    print(f"  requests that started as the one before ended (queued): "
          f"{q} of {requests} ({100 * q / max(1, requests):.1f}%)")
    total = sum(row[2] for row in rows)
    print(f"  training kernels on the GPU when a delayed service kernel "
          f"launched, by summed delay (of {total / 1000:.1f} ms):")
    for key, (cnt, dsum, longest) in sorted(
            behind.items(), key=lambda kv: -kv[1][1])[:a.top]:
        print(f"    {cnt:7d} waits, {dsum / 1000:9.1f} ms  {key[0]} "
              f"blocks {key[1]} {key[2]} (its event up to {longest:.0f} us)")


if __name__ == "__main__":
    main()
