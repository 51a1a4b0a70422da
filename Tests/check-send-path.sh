#!/bin/sh
# Guards the claim "no lock, no allocation, no reference counting per
# delivered event" where it can be checked exactly: in the machine code of
# a client's send, compiled in its own module as users compile theirs
# (Benchmarks/SendPathProbe, release). Every function on the steady-state
# path of a send and of a value through a `map` link must exist in that
# object and must call none of the Swift runtime's retain, release or
# allocation entry points. (The queued path and the drain may: they release
# the observers disposed during a delivery.) The other half of the claim,
# zero heap allocations per delivered event, is checked by
# `bench --selftest` with the malloc counter.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
swift build -c release --target SendPathProbe >/dev/null
object=$(find -L .build/release/SendPathProbe.build -name 'SendPathProbe.swift.o' | head -n 1)
[ -n "$object" ] || { echo "check-send-path: no object file for SendPathProbe"; exit 1; }
objdump -d --no-show-raw-insn -r "$object" | swift demangle --simplified > .build/send-path.s

python3 - .build/send-path.s <<'PY'
import re, sys
hot = [
    "probeSend(_:_:)",
    "partial apply for specialized closure #1 in static Signal.pipe(disposable:queueLimit:)",
    "specialized _SerialDriver.send(_:)",
    "specialized static _SignalCore.deliverLoop(value:raw:count:items:)",
    "specialized closure #1 in _MapOperator.attach<A>(to:)",
    "partial apply for specialized closure #1 in _MapOperator.attach<A>(to:)",
]
forbidden = re.compile(r"\b(swift_(retain|release|allocObject|bridgeObjectRetain|bridgeObjectRelease|unknownObjectRetain|unknownObjectRelease|retain_n|release_n)|swift_slowAlloc|malloc|calloc|swift_getGenericMetadata|_os_unfair_lock|pthread_mutex_lock)\b")
bodies, current = {}, None
for line in open(sys.argv[1]):
    m = re.match(r"^[0-9a-f]+ <(.*)>:$", line.strip())
    if m:
        current = m.group(1)
        bodies[current] = []
    elif current is not None:
        bodies[current].append(line.rstrip())
failed = False
for name in hot:
    if name not in bodies:
        print("check-send-path: %r is not in the object (renamed? inlined?): update the list" % name)
        failed = True
        continue
    calls = [l.strip() for l in bodies[name] if forbidden.search(l)]
    if calls:
        failed = True
        print("check-send-path: %s calls the runtime on the send path:" % name)
        for c in calls:
            print("    " + c)
# An operator's per-event closure keeps its state and its downstream sink
# as constants or in `_DeliveryState`: a captured variable would cost a
# dynamic exclusivity check (swift_beginAccess) per access, per event.
stateful = [n for n in bodies if re.match(r"(partial apply for )?specialized closure #1 in _\w+Operator\.attach<A>\(to:\)$", n)]
if len(stateful) < 7:
    print("check-send-path: only %d operator closures in the object (expected the 7 of probeStateful and map's)" % len(stateful))
    failed = True
for name in stateful:
    calls = [l.strip() for l in bodies[name] if "swift_beginAccess" in l]
    if calls:
        failed = True
        print("check-send-path: %s checks exclusivity per event (a captured variable):" % name)
        for c in calls:
            print("    " + c)
if failed:
    sys.exit(1)
print("send path: %d functions, no retain, release, allocation, lock or metadata lookup" % len(hot))
print("operators: %d per-event closures, no dynamic exclusivity check" % len(stateful))
PY
