#!/bin/sh
# Model-checks Tests/Model/flare.pml, Tests/Model/overload.pml (the queue
# limit, contract 9), Tests/Model/batch.pml (the batched hand-off),
# Tests/Model/waits.pml (no cycle of waits for full
# queues: two domains feeding each other), Tests/Model/gate.pml (a
# property's write gate and the parking spots its writers sleep on) and
# Tests/Model/runstate.pml (the run state word of producer runs),
# Tests/Model/actionend.pml (an Action execution's one end),
# Tests/Model/flatten.pml (a flatten's node serving one inner after
# another) and Tests/Model/stack.pml (the disposable stack of a
# CompositeDisposable and a Lifetime) with spin: every configuration below is
# an exhaustive search (no bitstate hashing; -DCOLLAPSE only compresses), and
# any assertion violation, invalid end state (a thread stuck forever) or
# non-progress cycle fails the script. Prints pan's state counts.
#
# Usage: Tests/Model/run.sh [extra spin -D flags for one custom run]
# Needs: spin, a C compiler (cc). Takes about a minute; ~1.2 GB of RAM for
# the largest configuration.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/flare-model.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$here/flare.pml" "$here/overload.pml" "$here/waits.pml" "$here/gate.pml" "$here/pool.pml" "$here/batch.pml" "$here/runstate.pml" "$here/flatten.pml" "$here/stack.pml" "$here/actionend.pml" "$work/"
cd "$work"

status=0

# check NAME PAN_CFLAGS PAN_ARGS SPIN_DEFINES... (the model is $model)
model=flare.pml
check() {
    name=$1 cflags=$2 args=$3
    shift 3
    spin "$@" -a $model >/dev/null
    # shellcheck disable=SC2086
    cc -O2 $cflags -o pan pan.c
    start=$(date +%s)
    # shellcheck disable=SC2086
    ./pan $args >pan.out 2>&1 || true
    secs=$(($(date +%s) - start))
    errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' pan.out)
    stored=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' pan.out)
    depth=$(sed -n 's/.*depth reached \([0-9]*\).*/\1/p' pan.out)
    if [ "$errors" = "0" ] && ! grep -q "search not completed\|max search depth too small" pan.out; then
        echo "ok   $name: $stored states, depth $depth, ${secs}s"
    else
        echo "FAIL $name (errors: ${errors:-?})"
        cat pan.out
        if [ -f $model.trail ]; then
            spin "$@" -t -p $model | tail -60
            rm -f $model.trail
        fi
        status=1
    fi
}

safety="-DSAFETY -DCOLLAPSE"
# caught NAME SPIN_DEFINES...: the mutation of $model that SPIN_DEFINES
# turn on must fail its search (an assertion, an invalid end state).
caught() {
    name=$1
    shift
    spin "$@" -a $model >/dev/null
    # shellcheck disable=SC2086
    cc -O2 -w $safety -o pan pan.c
    if ./pan -m200000 2>&1 | grep -q 'errors: 0'; then
        echo "FAIL $name was not caught"
        status=1
    else
        echo "ok   $name caught"
    fi
    rm -f $model.trail
}

# FLARE_MODEL=overload runs only overload.pml's configurations (seconds);
# FLARE_MODEL=flare only flare.pml's; FLARE_MODEL=waits, FLARE_MODEL=gate,
# FLARE_MODEL=batch only that model's, FLARE_MODEL=pool the pool's,
# FLARE_MODEL=runstate the run state word's, FLARE_MODEL=flatten the
# flatten node's, FLARE_MODEL=stack the disposable stack's,
# FLARE_MODEL=actionend an Action execution's end.
only=${FLARE_MODEL:-all}
if [ $# -gt 0 ]; then
    check "custom $*" "$safety" "-m200000" "$@"
    exit $status
fi

if [ "$only" = all ] || [ "$only" = flare ]; then
# Senders 0 (S0_VALUES values, then completed) and 1 (S1_VALUES values);
# Disposer disposes observer 0; Attacher attaches observer 1 and disposes it;
# observer 2 sends reentrantly (REENTRANT).
check "all four threads: 1+terminal / 1 value, dispose, attach+dispose, reentrant" \
    "$safety" "-m200000" -DS0_VALUES=1 -DS1_VALUES=1
check "two senders 2+terminal / 1, dispose, reentrant" \
    "$safety" "-m200000" -DS0_VALUES=2 -DS1_VALUES=1 -DWITH_ATTACHER=0
check "two senders 1+terminal / 2, attach+dispose, reentrant" \
    "$safety" "-m200000" -DS0_VALUES=1 -DS1_VALUES=2 -DWITH_DISPOSER=0
check "two senders 2+terminal / 2, dispose, no reentrancy" \
    "$safety" "-m200000" -DS0_VALUES=2 -DS1_VALUES=2 -DWITH_ATTACHER=0 -DREENTRANT=0
check "attach racing termination, observer kept (interrupted, not disposed)" \
    "$safety" "-m200000" -DS0_VALUES=1 -DS1_VALUES=1 -DWITH_DISPOSER=0 -DATTACHER_DISPOSES=0
# STRICT_OBSERVE: observe()'s own call of `interrupted` (on a sealed core)
# must not overlap any call from a drain either. The seal comes after the
# drain's last call to an observer attached before the terminal event; the
# drain's `interrupted` to observers attached later may overlap an attacher's
# own (contract 5), which takes two late attachers: this model has one.
check "attach racing termination, strict: no overlap with observe's own interrupt" \
    "$safety" "-m200000" -DS0_VALUES=1 -DS1_VALUES=1 -DWITH_DISPOSER=0 -DSTRICT_OBSERVE=1
# INTERRUPT: sender 0 ends with `interrupted`, which overtakes every event
# still queued when it is sent (contract 8): no value delivery begins after
# the interrupting send has returned, and nothing else is lost.
check "interrupt: all four threads, 1+interrupted / 1, dispose, attach+dispose, reentrant" \
    "$safety" "-m200000" -DS0_VALUES=1 -DS1_VALUES=1 -DINTERRUPT=1
check "interrupt: two senders 2+interrupted / 2, dispose, reentrant" \
    "$safety" "-m200000" -DS0_VALUES=2 -DS1_VALUES=2 -DWITH_ATTACHER=0 -DINTERRUPT=1
# Liveness: no cycle in which no thread makes progress (all CAS loops are
# single steps here, so this shows the protocol itself never livelocks).
check "non-progress cycles (-DNP), two senders 1+terminal / 1, dispose, reentrant" \
    "-DNP -DCOLLAPSE" "-l -m200000" -DS0_VALUES=1 -DS1_VALUES=1 -DWITH_ATTACHER=0

fi

# The queue limit (overload.pml): two senders outpacing the drainer on a
# limit of 1 or 2, waiting (POLLS polls, then parking on the futex word) and
# woken by the holder; a reentrant send from inside a delivery into the full
# domain (it must not wait: it would wait for itself); a terminal event that
# must release every waiter. An invalid end state here is a sender asleep or
# waiting forever: a lost wake-up or a deadlock.
if [ "$only" = all ] || [ "$only" = overload ]; then
model=overload.pml
check "limit: two senders 2 / 2, limit 1" \
    "$safety" "-m200000" -DLIMIT=1
check "limit: reentrant send into a full domain, then completed, limit 1" \
    "$safety" "-m200000" -DLIMIT=1 -DREENTRANT=1 -DTERMINAL=1
check "limit: park at once (no polls), two senders 3 / 3, limit 1" \
    "$safety" "-m200000" -DLIMIT=1 -DPOLLS=0 -DS0_VALUES=3 -DS1_VALUES=3
check "limit: two senders 2+completed / 3, limit 1 (closing admits nobody)" \
    "$safety" "-m200000" -DLIMIT=1 -DTERMINAL=1 -DS0_VALUES=2 -DS1_VALUES=3
check "limit: two senders 3+completed / 3, reentrant, limit 2" \
    "$safety" "-m200000" -DLIMIT=2 -DTERMINAL=1 -DREENTRANT=1 -DS0_VALUES=3 -DS1_VALUES=3
check "limit: non-progress cycles (-DNP), two senders 2 / 2, reentrant, limit 1" \
    "-DNP -DCOLLAPSE" "-l -m200000" -DLIMIT=1 -DREENTRANT=1
fi

# The batched hand-off (batch.pml): two senders appending to batches of
# two slots behind each other's deliveries, with the queue limit's credits
# taken in groups, a reentrant send from inside a delivery (node path), a
# drain in place from inside a delivery, a terminal event or an interrupt
# while batches are queued (sender 0 sends one value after it, which must
# be dropped). Each mutation (see
# batch.pml's header) must be caught.
if [ "$only" = all ] || [ "$only" = batch ]; then
model=batch.pml
check "batch: two senders 2 / 2, no limit" "$safety -w" "-m200000"
check "batch: two senders 3 / 3, limit 2 (moves to fresh batches, waits)" \
    "$safety -w" "-m200000" -DS0_VALUES=3 -DS1_VALUES=3 -DLIMIT=2
check "batch: limit 4, credits in groups of 2" "$safety -w" "-m200000" -DLIMIT=4 -DGROUP=2
check "batch: reentrant send, completed, limit 1" "$safety -w" "-m200000" -DTERMINAL=1 -DLIMIT=1 -DREENTRANT=1
check "batch: interrupted during batches, limit 2" "$safety -w" "-m200000" -DTERMINAL=2 -DLIMIT=2
check "batch: interrupted during batches, reentrant, 2 / 3" \
    "$safety -w" "-m200000" -DTERMINAL=2 -DREENTRANT=1 -DS1_VALUES=3
# The reentrant push ends sender 1's batch's turn while its other batch is
# in flight: its next value takes the node path, counted.
check "batch: reentrant send, limit 2, 2 / 3 (counted nodes)" \
    "$safety -w" "-m200000" -DREENTRANT=1 -DS1_VALUES=3 -DLIMIT=2
# Drain in place (flare_drain_next_in_place): the holder of (0,0) delivers
# what its drain holds and what was pushed since, keeping the word, then
# the value an inner being started sends; or it stops before any item
# (IN_PLACE=2 includes the runs that never stop), leaves the rest to the
# drain after the delivery and queues the value behind it.
check "batch: drain in place, may stop, 2 / 2" "$safety -w" "-m200000" -DIN_PLACE=2
check "batch: drain in place, may stop, limit 2, groups of 2, 3 / 3" \
    "$safety -w" "-m200000" -DIN_PLACE=2 -DS0_VALUES=3 -DS1_VALUES=3 -DLIMIT=2 -DGROUP=2
for mutation in "MUT_FENCE=1" "MUT_EARLY=1" "MUT_ORDER=1" "MUT_LAST=1 -DREENTRANT=1" "MUT_LAST=1 -DTERMINAL=1" \
    "MUT_IN_HAND=1 -DIN_PLACE=1" "MUT_STOP_HAND=1 -DIN_PLACE=2"; do
    # shellcheck disable=SC2086
    caught "batch: mutation $mutation" -D$mutation
done
fi

# A flatten's node (flatten.pml): queued events name it unretained, so it
# serves one inner after another under a new generation once no chain
# holds it. Each mutation (see flatten.pml's header) must be caught.
if [ "$only" = all ] || [ "$only" = flatten ]; then
model=flatten.pml
check "flatten: one node, three inners, two events each" "$safety -w" "-m200000"
check "flatten: one node, three inners, three events each" "$safety -w" "-m200000" -DEVENTS=3
for mutation in 1 2 3; do
    caught "flatten: mutation $mutation" -DMUTATION=$mutation
done
fi

# No cycle of waits (waits.pml): flatten's funnel A, held by the thread
# running an inner's start handler, which sends into the run's word B; a
# second thread sends into B, whose observer forwards into A. Each mutation
# (see waits.pml's header) must be caught: without the check, or without
# publishing, both threads wait for each other.
if [ "$only" = all ] || [ "$only" = waits ]; then
model=waits.pml
check "waits: funnel and run, limit 1, two values per thread" "$safety -w" "-m200000" -DK=2 -DLIMIT=1
check "waits: funnel and run, limit 1, three values per thread" "$safety -w" "-m200000" -DK=3 -DLIMIT=1
check "waits: funnel and run, limit 2, four values per thread" "$safety -w" "-m200000" -DK=4 -DLIMIT=2
# The same shape with batch senders (flare_batch.h): credits in groups,
# unused ones back at the seal, a cycle break admitting a whole group.
check "waits: batches, limit 1, two values per thread" "$safety -w" "-m200000" -DK=2 -DLIMIT=1 -DBATCH=1
check "waits: batches, limit 2, groups of 2, three values per thread" "$safety -w" "-m200000" -DK=3 -DLIMIT=2 -DBATCH=1 -DGROUP=2
check "waits: batches, limit 2, four values per thread" "$safety -w" "-m200000" -DK=4 -DLIMIT=2 -DBATCH=1
for batch in 0 1; do
for mutation in CHECK PUBLISH CLEAR; do
    caught "waits: mutation $mutation=0 (BATCH=$batch)" -D$mutation=0 -DK=2 -DLIMIT=1 -DBATCH=$batch
done
done
fi

# The write gate (gate.pml): writers that find the gate held poll, then
# announce themselves on the holder's word and sleep on the holder's
# parking spot; the holder wakes them as it leaves. An invalid end state is
# a writer asleep for ever: a lost wake-up. (pan's generated C draws
# spurious -Wstringop-overflow warnings from gcc here: -w.)
if [ "$only" = all ] || [ "$only" = gate ]; then
model=gate.pml
check "gate: three writers, one round, one poll" "$safety -w" "-m200000"
check "gate: three writers on one parking spot (collisions)" "$safety -w" "-m200000" -DSHARED_SPOT=1
check "gate: two writers, two rounds each, park at once" "$safety -w" "-m200000" -DWRITERS=2 -DROUNDS=2 -DPOLLS=0
check "gate: three writers, two rounds each, one spot, park at once" \
    "$safety -w" "-m200000" -DWRITERS=3 -DROUNDS=2 -DPOLLS=0 -DSHARED_SPOT=1
# Each mutation of the protocol (see gate.pml's header) must be caught.
for mutation in 1 2 3; do
    caught "gate: mutation $mutation" -DMUTATION=$mutation
done
fi

# The node pool's depot (pool.pml): threads flush batches and refill one
# batch each, giving the rest back. A lost, shared or looping batch, a
# magazine of two batches, or a depot count below the depot fails it.
if [ "$only" = all ] || [ "$only" = pool ]; then
model=pool.pml
check "pool: two threads, two rounds, one batch on the depot" "$safety -w" "-m200000" -DROUNDS=2 -DEXTRA=1
check "pool: two threads, three rounds, one batch on the depot" "$safety -w" "-m200000" -DROUNDS=3 -DEXTRA=1
check "pool: two threads, two rounds, two batches on the depot" "$safety -w" "-m200000" -DROUNDS=2 -DEXTRA=2
# Each mutation of the protocol (see pool.pml's header) must be caught.
for mutation in 1 2 3; do
    caught "pool: mutation $mutation" -DMUTATION=$mutation -DROUNDS=2
done
fi

# The run state word (runstate.pml): a starter, interrupters and, once the
# run is live, the domain delivering to it; a synchronous source (LIVE=0)
# or a relayed run (LIVE=1). Deliveries never overlap, exactly one terminal
# event, nothing after an interrupter returned but the delivery already
# starting.
if [ "$only" = all ] || [ "$only" = runstate ]; then
model=runstate.pml
check "runstate: relay, two interrupters, two values" "$safety -w" "-m200000" -DLIVE=1
check "runstate: synchronous, two interrupters, two values" "$safety -w" "-m200000" -DLIVE=0
check "runstate: relay, three interrupters, three values" "$safety -w" "-m200000" -DLIVE=1 -DINTERRUPTERS=3 -DVALUES=3
check "runstate: synchronous, three interrupters, three values" "$safety -w" "-m200000" -DLIVE=0 -DINTERRUPTERS=3 -DVALUES=3
# Each mutation (see runstate.pml's header) must be caught; the second
# concerns endStart, which only a live run has.
for mutation in "1 -DLIVE=1" "1 -DLIVE=0" "2 -DLIVE=1" "3 -DLIVE=1" "3 -DLIVE=0"; do
    # shellcheck disable=SC2086
    caught "runstate: mutation $mutation" -DMUTATION=$mutation
done
fi

# How an Action's execution ends (actionend.pml): the starter returning
# from the work's start, the work's own terminal event and the thread that
# disposes the start, in any order; one word decides who ends it: exactly
# once, after the work's start returned and after someone asked.
if [ "$only" = all ] || [ "$only" = actionend ]; then
model=actionend.pml
check "actionend: starter, work of two values, disposer" "$safety -w" "-m200000"
check "actionend: starter, work of four values, disposer" "$safety -w" "-m200000" -DVALUES=4
check "actionend: starter and work, no disposer" "$safety -w" "-m200000" -DDISPOSER=0
for mutation in 1 2; do
    caught "actionend: mutation $mutation" -DMUTATION=$mutation
done
fi

# The disposable stack (stack.pml): an adder pushing and pruning, a
# handle removing, a disposer, on a stack holding removed nodes. When
# dispose() returns, every addition made before is disposed, oldest first;
# no node is touched after it is released, none is lost. Each mutation (see
# stack.pml's header) must be caught: the old take-all-then-push-back
# pruning among them.
if [ "$only" = all ] || [ "$only" = stack ]; then
model=stack.pml
check "stack: prune under a push, dispose" "$safety -w" "-m200000"
check "stack: two prunings, a handle racing, the adder removing" \
    "$safety -w" "-m200000" -DREMOVE=4 -DADDER_REMOVES=1 -DPRUNES=2
check "stack: two adders, pruning while the other pushes" \
    "$safety -w" "-m200000" -DADDERS=2 -DADDS=1 -DPRE=2 -DPRE_REMOVED=1
check "stack: the pruner descheduled for good, a handle racing" \
    "$safety -w" "-m200000" -DSTALL=1 -DREMOVE=2 -DPRE_REMOVED=4
for mutation in 1 2 3 5; do
    caught "stack: mutation $mutation" -DMUTATION=$mutation
done
caught "stack: mutation 4" -DMUTATION=4 -DADDERS=2 -DADDS=1 -DPRE=2 -DPRE_REMOVED=1
caught "stack: mutation 6" -DMUTATION=6 -DSTALL=1
fi

exit $status
