/*
 * runstate.pml — a Promela model of the run state word
 * (Sources/Flare/Engine/Producer/RunState.swift, `_RunState`) as its three
 * users drive it: a starter, INTERRUPTERS interrupters, and, once the run is
 * live, the domain that delivers to a relayed run.
 *
 *   beginStart        CAS idle -> starting
 *   endStart          CAS starting -> live          (LIVE=1: a relay, an
 *                                                    action's execution)
 *   endStartDone      CAS starting -> done, else store done|requested
 *                                                   (LIVE=0: a synchronous
 *                                                    source)
 *   requestInterrupt  load; CAS to done|requested (from idle) or
 *                     |requested (from starting, live); done or requested:
 *                     return
 *   isInterruptRequested  load, before each value the source delivers
 *   finish            CAS loop or-ing done while requested is clear
 *
 * Who delivers, as the Swift code does: the starter, while starting (its
 * first values; after a failed endStart, `interrupted`; a synchronous
 * source, everything, then `interrupted` if endStartDone reports a
 * request); an interrupter that moved idle -> done|requested
 * (`interrupted`); the domain, once live (its values, then `completed`,
 * or `interrupted` once it reads the request). An interrupter that finds
 * the run live asks the domain to detach it; the domain's check before its
 * next value reads the request and delivers `interrupted` (the detach then
 * finds the chain gone), so the detach itself is not modelled.
 *
 * Granularity: every atomic instruction is one step. Memory model:
 * sequential consistency; the C11 argument is the orderings table
 * (docs/core-algorithm.md §11, `_RunState`).
 *
 * Checked: deliveries never overlap (the state word and the domain
 * designate one deliverer at a time); exactly one terminal event reaches
 * the chain and nothing after it; once an interrupter has returned, at
 * most the delivery already starting lands before `interrupted` (no value
 * check that starts after the request passes it); no thread is left
 * waiting (invalid end states).
 *
 * MUTATION (each must make the check fail; Tests/Model/run.sh checks it):
 *   1  an interrupter that finds the run idle only sets `requested` and
 *      leaves `interrupted` to the start, which then does nothing (no
 *      terminal event)
 *   2  endStart is a plain store of live (the request of an interrupter
 *      that found the run starting is lost: no terminal event)
 *   3  the source does not check the request before each value
 */

#ifndef INTERRUPTERS
#define INTERRUPTERS 2
#endif
#ifndef LIVE
#define LIVE 1
#endif
#ifndef VALUES
#define VALUES 2
#endif
#ifndef MUTATION
#define MUTATION 0
#endif

#define IDLE 0
#define STARTING 1
#define RLIVE 2
#define DONE 4
#define REQ 8

byte st = IDLE;
byte inside = 0;          /* threads inside a delivery to the chain */
byte terminals = 0;       /* terminal events delivered */
byte values = 0;          /* values delivered */
bool returned = false;    /* an interrupter has returned */

inline deliverValue() {
    inside++;
    assert(inside == 1);
    assert(terminals == 0);
    values++;
    inside--
}

inline deliverTerminal() {
    inside++;
    assert(inside == 1);
    assert(terminals == 0);
    terminals++;
    inside--
}

/* The source's check before a value (R4), then the value. A check that
 * begins after an interrupter has returned must read the request: such a
 * value is not "the delivery already starting" (contract 4). */
inline checkedValue(stop) {
    late = returned;
#if MUTATION == 3
    stop = false;
#else
    stop = (st & REQ) != 0;
#endif
    if
    :: !stop -> assert(!late); deliverValue()
    :: else -> skip
    fi
}

#if LIVE
/* The domain's deliveries to a live relay (attached by the starter, which
 * held the domain until its endStart succeeded): its values, each
 * checked, then its terminal event through finish (or `interrupted` once
 * it reads the request; a queued detach then finds the chain gone). */
proctype Domain() {
    bool stop, late;
    byte i = 0;
    do
    :: i < VALUES ->
        checkedValue(stop);
        if
        :: stop -> deliverTerminal(); break
        :: else -> i++
        fi
    :: i == VALUES ->
        /* finish: or in done while requested is clear */
        atomic { if :: (st & REQ) == 0 -> st = st | DONE :: else -> skip fi };
        deliverTerminal();
        break
    od
}
#endif

proctype Starter() {
    bool began, stop, req, late, term = false;
    byte i;
    atomic { began = (st == IDLE); if :: began -> st = STARTING :: else -> skip fi };
    if
    :: !began -> goto end
    :: else -> skip
    fi;
#if LIVE
    /* The start's own first value (a property's current value). */
    checkedValue(stop);
#if MUTATION == 2
    st = RLIVE; req = false;
#else
    atomic { req = (st != STARTING); if :: !req -> st = RLIVE :: else -> skip fi };
#endif
    if
    :: req -> deliverTerminal()      /* the starter carries out the request */
    :: else -> run Domain()
    fi;
#else
    /* A synchronous source: its values, then completed, each checked
     * (`emit`); then endSynchronousDelivery. */
    i = 0;
    stop = false;
    do
    :: i < VALUES && !stop -> checkedValue(stop); i++
    :: else -> break
    od;
    if
    :: !stop ->
        late = returned;
        stop = (st & REQ) != 0;
        if
        :: !stop -> assert(!late); deliverTerminal(); term = true
        :: else -> skip
        fi
    :: else -> skip
    fi;
    atomic { req = (st != STARTING); if :: req -> st = DONE | REQ :: else -> st = DONE fi };
    if
    :: req && !term -> deliverTerminal()
    :: else -> skip
    fi;
#endif
end:
    skip
}

proctype Interrupter() {
    byte cur, desired;
    bool over = false;
    cur = st;
    do
    :: (cur & (DONE | REQ)) != 0 -> over = true; break
    :: else ->
#if MUTATION == 1
        desired = cur | REQ;
#else
        if
        :: cur == IDLE -> desired = DONE | REQ
        :: else -> desired = cur | REQ
        fi;
#endif
        atomic {
            if
            :: st == cur -> st = desired; break
            :: else -> cur = st
            fi
        }
    od;
    if
    :: over -> skip
#if MUTATION == 1
    :: !over -> skip
#else
    :: !over && cur == IDLE -> deliverTerminal()
    :: !over && cur != IDLE -> skip   /* starting: the starter's; live: a detach */
#endif
    fi;
    returned = true
}

init {
    byte k;
    atomic {
        run Starter();
        k = 0;
        do
        :: k < INTERRUPTERS -> run Interrupter(); k++
        :: else -> break
        od
    }
    /* Every thread has ended: exactly one terminal event, whatever the
     * interleaving (an interrupted run, or one that ended on its own). */
    (_nr_pr == 1);
    assert(terminals == 1)
}
