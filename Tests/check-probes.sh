#!/usr/bin/env bash
# Checks the `flare` USDT probes (Sources/CFlare/include/flare_trace.h):
#  0. a build without them (FLARE_NO_TRACE, as without <sys/sdt.h>) is
#     clean and has none;
#  1. the build has them: `readelf -n` of Tests/TraceDemo lists every probe
#     of the provider, each with a semaphore (a probe without one would
#     cost its arguments on every call);
#  2. they fire with the right arguments: as root, where bpftrace can
#     attach, runs Tests/TraceDemo under Tests/check-probes.bt and compares
#     the counts and arguments it saw with the ones the demo's scenarios
#     must cause; and checks that value descriptions are computed only
#     while value_sent is traced (0 without a tracer, 1000 with one).
# Part 2 is skipped, with the reason printed, where bpftrace cannot attach.
# Without <sys/sdt.h> the probes compile out and part 1 fails: install
# systemtap-sdt-dev (CI does).
set -euo pipefail
cd "$(dirname "$0")/.."

probes=(signal_created signal_named signal_ended signal_freed event_sent value_sent
        observer_attached observer_disposed event_queued batch_handed sender_waiting
        sender_released drain_started drain_ended run_started run_ended inner_started inner_ended)

# 0. Without the probes (as without <sys/sdt.h>): the C core builds clean
#    and defines no probe and no semaphore.
nosdt=$(mktemp -d)
for c in Sources/CFlare/*.c; do
    cc -std=c11 -D_GNU_SOURCE -DFLARE_NO_TRACE -Wall -Wextra -Werror -ISources/CFlare/include \
        $(pkg-config --cflags atomic_ops) -c "$c" -o "$nosdt/$(basename "$c" .c).o"
done
if readelf -n "$nosdt"/*.o | grep -q stapsdt || nm "$nosdt"/*.o | grep -q '_semaphore$'; then
    echo "check-probes: a build with FLARE_NO_TRACE still has probes"; exit 1
fi
rm -rf "$nosdt"
echo "no-sdt build: the C core compiles clean without probes or semaphores"

swift build --product TraceDemo >/dev/null
bin=$(swift build --show-bin-path)/TraceDemo
failed=0
fail() { echo "check-probes: $*"; failed=1; }

# 1. Every probe is in the binary, with a semaphore.
notes=$(readelf -n "$bin" | awk '/Provider: flare/ { p = 1; next }
    p && /Name:/ { name = $2; next }
    p && /Semaphore:/ { print name, $NF; p = 0 }')
for probe in "${probes[@]}"; do
    sem=$(awk -v n="$probe" '$1 == n { print $2; exit }' <<<"$notes")
    if [ -z "$sem" ]; then
        fail "probe flare:$probe is not in $bin (readelf -n)"
    elif [ $((sem)) -eq 0 ]; then
        fail "probe flare:$probe has no semaphore"
    fi
done
listed=$(awk '{ print $1 }' <<<"$notes" | sort -u | wc -l)
[ "$listed" -eq "${#probes[@]}" ] || fail "$listed distinct flare probes in the binary, expected ${#probes[@]}: update the list"
[ "$failed" -eq 0 ] && echo "readelf: ${#probes[@]} flare probes, each with a semaphore"

# Untraced, no description is computed.
out=$("$bin")
grep -q ", 0 value description(s) computed" <<<"$out" || fail "descriptions computed without a tracer: $out"

# 2. Under bpftrace.
skip=""
if ! command -v bpftrace >/dev/null; then
    skip="bpftrace is not installed"
elif [ "$(id -u)" -ne 0 ]; then
    skip="not root"
elif ! bpftrace -e 'BEGIN { exit(); }' >/dev/null 2>&1; then
    skip="bpftrace cannot load a program here (no BPF in this kernel or sandbox)"
fi
if [ -n "$skip" ]; then
    echo "check-probes: SKIPPED the bpftrace part: $skip"
else
    script=$(mktemp)
    log=$(mktemp)
    trap 'rm -f "$script" "$log"' EXIT
    sed "s|@BIN@|$bin|g" Tests/check-probes.bt >"$script"
    # bpftrace starts the program and attaches before it runs; its own
    # warnings (memlock, detach) go to stderr, kept for a failure report.
    timeout 120 bpftrace "$script" -c "$bin" >"$log" 2>"$log.err" || fail "bpftrace exited with $? ($(tail -n 3 "$log.err"))"
    expected=(
        "trace-demo: 1 round(s), 1000 value description(s) computed, probes built in"
        # prices: 2 observers, 1000 values, one observer disposed, completed.
        "@named[prices]: 1" "@attached[prices]: 2" "@sent[prices, 0]: 1000" "@values[prices]: 1000"
        "@described[p=1]: 1" "@described[p=1000]: 1" "@disposed[prices]: 1" "@sent[prices, 2]: 1"
        "@ended[prices, 2, 2]: 1" "@freed[prices]: 1"
        # echo: 10 reentrant sends, each drained after its delivery.
        "@sent[echo, 0]: 20" "@queued[echo, 0, 1]: 10" "@drains[echo]: 10" "@drain_ends[echo]: 10"
        "@drained[echo]: 10" "@sent[echo, 3]: 1" "@ended[echo, 3, 1]: 1"
        # busy: 100 contended sends behind one delivery, one drain.
        "@sent[busy, 0]: 101" "@queued[busy, 0, 0]: 100" "@drains[busy]: 1" "@drained[busy]: 100"
        "@ended[busy, 3, 1]: 1"
        # limited: the same under a limit of 2: all delivered.
        "@sent[limited, 0]: 101" "@ended[limited, 3, 1]: 1"
        # derived: abandoned when its last observer went.
        "@sent[derived, 0]: 1" "@disposed[derived]: 1" "@ended[derived, 4, 0]: 1"
        # job: completed (3 values), failed, disposed (1 value).
        "@runs[job]: 3" "@run_ends[job, 2]: 1" "@run_ends[job, 1]: 1" "@run_ends[job, 4]: 1"
        "@sent[job, 0]: 4" "@values[job]: 4" "@sent[job, 2]: 1" "@sent[job, 1]: 1" "@sent[job, 3]: 1"
        # latest: 2 inners (strategy 2), one dropped (4), one completed (2).
        "@inners[2]: 2" "@inner_ends[4]: 1" "@inner_ends[2]: 1" "@sent[latest-outer, 0]: 2"
    )
    for line in "${expected[@]}"; do
        grep -qxF "$line" "$log" || fail "bpftrace did not print: $line"
    done
    # Timing decides how the busy sender's values are batched and how
    # often the limited one waits: some batches, and at least one wait,
    # every one of which ends admitted.
    count() { awk -v k="$1" 'index($0, k) == 1 { print $NF }' "$log"; }
    batches=$(count "@batches[busy]:")
    waits=$(count "@waits[limited]:")
    released=$(count "@released[limited, 1]:")
    [ -n "$batches" ] && [ "$batches" -ge 1 ] || fail "busy: no batch_handed"
    [ -n "$waits" ] && [ "$waits" -ge 1 ] || fail "limited: no sender_waiting"
    [ "$waits" = "$released" ] || fail "limited: $waits sender_waiting, ${released:-0} sender_released (admitted)"
    if [ "$failed" -eq 0 ]; then
        echo "bpftrace: ${#expected[@]} exact counts and arguments as expected; busy: $batches batches; limited: $waits waits"
    else
        echo "check-probes: what bpftrace printed:"
        grep '^@' "$log" | sed 's/^/    /'
    fi
    rm -f "$log.err"
fi

if [ "$failed" -ne 0 ]; then
    echo "check-probes: FAILED"
    exit 1
fi
echo "check-probes: passed"
