/*
 * flatten.pml — a Promela model of how a flatten's node serves one inner
 * after another while the events of earlier inners, which name the node
 * unretained, may still be queued on the funnel
 * (Sources/Flare/Engine/Flatten/FlattenEngine.swift, `reusableNode`,
 * `unlink`, `handle`; FlattenInner.swift, `send`).
 *
 *   sender of inner k   while its chain holds the node: reads `generation`,
 *                       then pushes (k, generation) on the funnel (two
 *                       steps); at the end lets go of the node
 *   drainer             handles a queued tag: takes it as the current
 *                       inner's event if the node is active and the tag's
 *                       generation is the node's; or unlinks the current
 *                       inner (it ended, or the strategy dropped it); or,
 *                       with no inner active, reuses the node for the next
 *                       inner if no chain holds it (`isKnownUniquelyReferenced`),
 *                       bumping `generation`, then starts that inner's
 *                       sender
 *
 * One node, INNERS inners served one after another, EVENTS events sent by
 * each (an inner may be unlinked before, between or after them).
 * Granularity: every load, store and push is one step. Memory model:
 * sequential consistency; the acquire fence after the uniqueness check,
 * which rules out a late read of the new generation (load-buffering) on a
 * weakly ordered machine, is argued in docs/core-algorithm.md §6 and §11.
 *
 * Checked: an event taken as the current inner's was sent by it (no event
 * of an earlier inner is delivered as a later one's); no process is left
 * waiting (invalid end states).
 *
 * MUTATION (each must make the check fail; Tests/Model/run.sh checks it):
 *   1  the drainer does not compare generations (only `isActive`)
 *   2  the node is reused while an earlier inner's chain still holds it
 *   3  the reuse does not bump the generation
 */
#ifndef INNERS
#define INNERS 3
#endif
#ifndef EVENTS
#define EVENTS 2
#endif
#ifndef MUTATION
#define MUTATION 0
#endif

chan funnel = [INNERS * EVENTS] of { byte, byte };
byte generation = 0;
bool isActive = false;
byte current = 0;       /* the inner the node serves (1 ... INNERS) */
byte started = 0;
bool holds[INNERS + 1]; /* inner k's chain holds the node */

proctype Sender(byte k) {
    byte g;
    byte sent = 0;
    do
    :: sent < EVENTS ->
        g = generation;
        funnel!k, g;
        sent++
    :: break
    od;
    holds[k] = false
}

/* No chain holds the node: the engine's reference is the only one. */
#define UNIQUE (!holds[1] && !holds[2] && !holds[3])
#if MUTATION == 2
#define REUSABLE true
#else
#define REUSABLE UNIQUE
#endif

active proctype Drainer() {
    byte k, g;
    do
    :: funnel?k, g ->
#if MUTATION == 1
        if
        :: isActive -> assert(k == current)
        :: else -> skip
        fi
#else
        if
        :: isActive && g == generation -> assert(k == current)
        :: else -> skip
        fi
#endif
    :: isActive -> isActive = false
    :: !isActive && started < INNERS && REUSABLE ->
        started++;
#if MUTATION != 3
        generation++;
#endif
        current = started;
        isActive = true;
        holds[started] = true;
        run Sender(started)
    :: !isActive && started == INNERS && UNIQUE && len(funnel) == 0 -> break
    od
}
