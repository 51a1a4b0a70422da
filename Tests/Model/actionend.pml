/*
 * actionend.pml — a Promela model of how an Action's execution ends
 * (Sources/Flare/Engine/Action/ActionExecution.swift, `endExecution`):
 * exactly once, by whichever comes first of the work's own terminal event
 * and the thread that asked for an interruption of the live start.
 *
 *   Work       its values, then (if it read the request before its
 *              terminal event) `interrupted`, which `forward` sends on
 *              `events` without ending the execution; else its own
 *              terminal event (`completed`, or a self-interruption):
 *              `forward` claims `ended`, ends the execution if it won,
 *              then sends on `events`
 *   Disposer   requests the interruption (the run state word: the start
 *              is live), disposes the work, claims `ended` and ends the
 *              execution if it won; returns
 *
 * The run state word's own protocol is runstate.pml's; here the request is
 * one flag the work reads before each event (R4). Granularity: every
 * atomic instruction is one step. Memory model: sequential consistency;
 * the claim is one exchange (acquire-release).
 *
 * Checked: the execution ends exactly once; when the disposer returns,
 * `ended` has been claimed (the action is enabled once the winner, the
 * disposer itself unless the work ended on its own at that moment, has
 * called `end`); no thread is left waiting.
 *
 * MUTATION (each must make the check fail; Tests/Model/run.sh checks it):
 *   1  the claim is a load, then a store (two threads may both win)
 *   2  `forward` ends the execution at the work's own terminal event
 *      without claiming (and the disposer ends it too)
 */

#ifndef VALUES
#define VALUES 2
#endif
#ifndef MUTATION
#define MUTATION 0
#endif

bool requested = false;
bool ended = false;        /* the claim */
byte ends = 0;             /* `_ExecutionControl.end` calls */
byte finished = 0;         /* processes done */

inline claimAndEnd() {
#if MUTATION == 1
    won = !ended;
    ended = true;
#else
    atomic { won = !ended; ended = true };
#endif
    if
    :: won -> ends++
    :: else -> skip
    fi
}

proctype Work() {
    bool won;
    byte i = 0;
    do
    :: i < VALUES && !requested -> i++           /* a value */
    :: requested -> break                        /* reads the request: interrupted */
    :: i == VALUES && !requested ->              /* its own terminal event */
#if MUTATION == 2
        ends++;
#else
        claimAndEnd();
#endif
        goto done
    od;
    /* `interrupted` of a requested start: events only */
    skip;
done:
    finished++
}

proctype Disposer() {
    bool won;
    requested = true;
    /* work.dispose(): the request is what the work reads */
    claimAndEnd();
    assert(ended);
    finished++
}

init {
    atomic { run Work(); run Disposer() };
    finished == 2;
    assert(ends == 1)
}
