#!/usr/bin/env bash
# usage: Benchmarks/trace-cost.sh [ROUNDS]    (A/B: what the trace probes cost while nobody traces)
#
# Builds the bench twice, with the probes (A: the default build) and with
# them compiled out (B: -Xcc -DFLARE_NO_TRACE, in .build/notrace), then
# runs the hot-path scenarios (fan-out, chains, contention) ROUNDS times
# (default 6), A and B alternating and the order flipped each round, and
# prints, per row, the median over rounds of Flare's median, A against B,
# and the fastest round of each against the other's.
# Set A=path B=path to use binaries built already. With TRACED=1, also
# runs A under bpftrace counting event_sent (as root), for the cost of a
# firing probe.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-6}
filters=(--filter fanout --filter chain --filter contention)
if [ -z "${A:-}" ]; then
    swift build -c release --product bench >/dev/null
    A=$(swift build -c release --show-bin-path)/bench
fi
if [ -z "${B:-}" ]; then
    swift build -c release --product bench --scratch-path .build/notrace -Xcc -DFLARE_NO_TRACE >/dev/null
    B=.build/notrace/release/bench
fi
readelf -n "$B" | grep -q 'Provider: flare' && { echo "trace-cost: $B has probes"; exit 1; }
out=$(mktemp -d)
echo "trace-cost: $rounds rounds into $out, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$rounds"); do
    if [ $((r % 2)) -eq 1 ]; then order="A B"; else order="B A"; fi
    for which in $order; do
        bin=$A; [ "$which" = B ] && bin=$B
        "$bin" "${filters[@]}" --reps 5 --json "$out/$which.$r.json" >/dev/null 2>&1
    done
    echo "  round $r done ($order)"
done
if [ "${TRACED:-0}" = 1 ]; then
    # The probe attached and counting: every event fires event_sent.
    for r in $(seq 1 "$rounds"); do
        bpftrace -e "usdt:$A:flare:event_sent { @events = count(); }" \
            -c "$A --filter fanout --filter chain --reps 5 --json $out/T.$r.json" >/dev/null 2>&1
        "$A" --filter fanout --filter chain --reps 5 --json "$out/U.$r.json" >/dev/null 2>&1
    done
fi
python3 - "$out" "$rounds" <<'PY'
import glob, json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
rows = {"fanout": "ns/delivery", "chain": "ns/event", "contention": "events/s"}
def rounds(prefix):
    by = {}
    for path in glob.glob(f"{out}/{prefix}.*.json"):
        for r in json.load(open(path))["results"]:
            if rows.get(r["scenario"]) != r["metric"]: continue
            by.setdefault((r["scenario"], r["case"], r["metric"], r["lowerIsBetter"]), []).append(r["contenders"]["Flare"]["median"])
    return by
def medians(prefix):
    return {k: statistics.median(v) for k, v in rounds(prefix).items()}
def best(prefix):
    # The fastest round: runs are bimodal per process on a shared machine,
    # and a median over few rounds lands on either mode.
    return {k: (min(v) if k[3] else max(v)) for k, v in rounds(prefix).items()}
a, b = medians("A"), medians("B")
ba, bb = best("A"), best("B")
print(f"{'row':34} {'A: probes, untraced':>20} {'B: compiled out':>16} {'A vs B':>8} {'fastest rounds':>15}")
for k in sorted(a, key=lambda k: (list(rows).index(k[0]), k[1])):
    scenario, case, metric, lower = k
    cost = (a[k] / b[k] - 1) if lower else (b[k] / a[k] - 1)
    bcost = (ba[k] / bb[k] - 1) if lower else (bb[k] / ba[k] - 1)
    print(f"{scenario + ' ' + case + ' (' + metric + ')':34} {a[k]:>20.4g} {b[k]:>16.4g} {cost * 100:>+7.1f}% {bcost * 100:>+14.1f}%")
t, u = medians("T"), medians("U")
if t:
    print(f"\n{'row (A)':34} {'traced':>20} {'untraced':>16} {'per event':>10}")
    for k in sorted(t, key=lambda k: (list(rows).index(k[0]), k[1])):
        if k in u:
            print(f"{k[0] + ' ' + k[1] + ' (' + k[2] + ')':34} {t[k]:>20.4g} {u[k]:>16.4g} {t[k] - u[k]:>+9.1f}")
PY
