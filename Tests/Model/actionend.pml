/*
 * actionend.pml — a Promela model of how an Action's execution ends
 * (Sources/Flare/Engine/Action/ActionExecution.swift, `endWord`,
 * `askToEnd`): exactly once, never while the work's start is on the stack
 * and never before someone asked for it, as ReactiveSwift's order
 * requires (it ends an execution in the start's lifetime, which it
 * watches only once the work's start has returned).
 *
 *   Starter   starts the work (the work may deliver meanwhile), then ors
 *             in RET; if ASK was set, ends the execution
 *   Work      its values, then either `interrupted` after reading the
 *             request (the disposer asks; the work does not) or its own
 *             terminal event: ors in ASK; if the old word was exactly
 *             RET, ends the execution
 *   Disposer  requests the interruption, disposes the work, ors in ASK;
 *             if the old word was exactly RET, ends the execution
 *
 * The run state word's own protocol is runstate.pml's (the starter has
 * published the live run before the work starts); here the request is one
 * flag the work reads before each event (R4). Granularity: every atomic
 * instruction is one step. Memory model: sequential consistency; each
 * fetch-or is acquire-release.
 *
 * Checked: the execution ends exactly once; only after the work's start
 * returned, and after someone asked (the work's terminal event or the
 * disposer); no thread is left waiting.
 *
 * MUTATION (each must make the check fail; Tests/Model/run.sh checks it):
 *   1  an asker ends the execution whenever RET is set (ignoring an
 *      earlier ask): two ends
 *   2  the starter ends the execution when the work's start returns,
 *      asked or not: an end before anyone asked, or two
 */

#ifndef VALUES
#define VALUES 2
#endif
#ifndef DISPOSER
#define DISPOSER 1
#endif
#ifndef MUTATION
#define MUTATION 0
#endif

#define RET 1
#define ASK 2

byte word = 0;
bool requested = false;
byte ends = 0;
byte finished = 0;

inline endExecution() {
    assert((word & RET) != 0 && (word & ASK) != 0);
    ends++
}

inline askToEnd() {
    atomic { old = word; word = word | ASK };
#if MUTATION == 1
    if
    :: (old & RET) != 0 -> endExecution()
    :: else -> skip
    fi
#else
    if
    :: old == RET -> endExecution()
    :: else -> skip
    fi
#endif
}

proctype Starter() {
    byte old;
    /* the work's start is on the stack: Work may run meanwhile */
    atomic { old = word; word = word | RET };
#if MUTATION == 2
    endExecution();
#else
    if
    :: (old & ASK) != 0 -> endExecution()
    :: else -> skip
    fi;
#endif
    finished++
}

proctype Work() {
    byte old;
    byte i = 0;
    do
    :: i < VALUES && !requested -> i++           /* a value */
    :: requested -> break                        /* interrupted: the disposer asks */
    :: !requested -> askToEnd(); break           /* its own terminal event */
    od;
    finished++
}

proctype Disposer() {
    byte old;
    requested = true;
    /* work.dispose(): the request is what the work reads */
    askToEnd();
    finished++
}

init {
    atomic {
        run Starter(); run Work();
#if DISPOSER
        run Disposer()
#endif
    };
    finished == 2 + DISPOSER;
    assert(ends == 1)
}
