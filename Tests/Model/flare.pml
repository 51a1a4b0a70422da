/*
 * flare.pml — a Promela model of Flare's C core as SerialDriver.swift drives it:
 * the serial word (try_acquire / push / release / close), the observer bag
 * (additions stack, drainer-private array, splice, compaction, seal), entry
 * claims and reference counts, and disposal with deferred reclamation of the
 * observer context (flare_entry_dispose: an entry no drain has spliced is
 * released by its disposer, and retracted if still on top of the additions;
 * a spliced one is handed to the drainer by a removal node).
 *
 * Threads (all concurrent, every interleaving explored):
 *   Sender(0)  sends S0_VALUES values, then a terminal event (`completed`)
 *   Sender(1)  sends S1_VALUES values
 *   Disposer   disposes observer 0 (attached before the threads start) from
 *              outside, then drops its handle
 *   Attacher   attaches observer 1 while all this runs, optionally disposes
 *              it (ATTACHER_DISPOSES), then drops its handle
 * Observer 2 is attached before the threads start and never disposed; on
 * value (0,0) it sends a value reentrantly from inside its callback.
 * A thread that acquires the serial word becomes the drainer and runs the
 * drain loop (drain / finishTermination) exactly as _SerialDriver does.
 *
 * Which C code each step models. The drain protocol is written once, as the
 * `static inline` steps of Sources/CFlare/include/flare_deliver.h and
 * flare_drain.h, which SerialDriver.swift and the C test client
 * (Tests/CFlareTests/client.c, run by the C tests and the fuzzer) follow;
 * spin cannot call C, so this model restates them. Change a step there, change it here:
 *   Sender, try_acquire step        flare_serial_try_acquire
 *   Sender, sendQueued checks       flare_queue_kind (CLOSED: drop; for
 *                                   `interrupted`, flare_core_request_interrupt;
 *                                   the limit's reserve is in overload.pml)
 *   push                            flare_serial_push (on ACQUIRED,
 *                                   flare_serial_return_own_slot: no limit here)
 *   deliver                         flare_core_begin_delivery (splice),
 *                                   flare_entry_observer per entry,
 *                                   flare_core_note_dead (compact)
 *   deliver_terminal                flare_core_begin_termination,
 *                                   flare_entry_take_done per entry,
 *                                   flare_core_end_termination (drop_items,
 *                                   seal), flare_late_next per late entry
 *   the drain loop, "take the next  flare_drain_next: a removal
 *   node" step                      (complete_removal = flare_drain_removal
 *                                   and the caller's release), the interrupt
 *                                   check (FLARE_DRAIN_INTERRUPT), an event
 *                                   (FLARE_DRAIN_DELIVER)
 *   the drain loop, release step    flare_drain_next at the end of a batch
 *                                   (flare_serial_release / flare_serial_take)
 *   finishTermination (t)       flare_drain_close (flare_serial_close),
 *                                   then flare_drain_next_closed (DROP,
 *                                   RELEASE, END)
 *   Disposer, Attacher              flare_entry_dispose, flare_core_attach
 *                                   (not drain steps: called directly)
 *
 * Granularity: every atomic instruction of the C code (CAS, RMW, the plain
 * loads of an entry's state) is one step; a CAS loop whose failed attempts
 * have no side effect is one step (its successful attempt); code touching
 * only a thread's private data is folded into the neighbouring step.
 * Memory model: sequential consistency. The model checks the protocol, not
 * the fences: the C code relies on locked RMWs (x86) / acq_rel CAS on the
 * one serial word for the orderings; the stress tests and TSan cover those.
 * Not modelled: derived cores, retainer counting (dropRetainer), destroy.
 *
 * Safety properties (assertions; spin also reports invalid end states, i.e.
 * any thread stuck forever):
 *   - no use after release: an observer is never called, and its context is
 *     never released, after its context was released; a context is released
 *     exactly once, and never while a call to it is in progress;
 *   - no use after free of an entry (reference counts), and every entry is
 *     freed at the end (zero live entries);
 *   - serialized delivery: at most one drainer, at most one call at a time
 *     from drains (STRICT_OBSERVE also counts observe()'s direct call);
 *   - exactly once and FIFO: each observer receives each sender's values in
 *     order with no duplicate and no gap (a late-attached observer may begin
 *     anywhere), nothing after its terminal event, at most one terminal;
 *   - no lost event: the permanent observer receives exactly the values whose
 *     send was linearized (acquire or push on the word) before the terminal;
 *   - contract 4: after dispose returns, at most one call (the one already
 *     starting) reaches the observer;
 *   - every pushed event node is drained (delivered or dropped at close).
 */

#ifndef S0_VALUES
#define S0_VALUES 2
#endif
#ifndef S1_VALUES
#define S1_VALUES 1
#endif
#ifndef ATTACHER_DISPOSES
#define ATTACHER_DISPOSES 1
#endif
#ifndef REENTRANT
#define REENTRANT 1
#endif
#ifndef WITH_DISPOSER
#define WITH_DISPOSER 1
#endif
#ifndef WITH_ATTACHER
#define WITH_ATTACHER 1
#endif
#ifndef STRICT_OBSERVE
#define STRICT_OBSERVE 0
#endif
/* Sender 0's terminal event is `interrupted` instead of `completed`: it
 * must overtake every event still queued (contract 8). */
#ifndef INTERRUPT
#define INTERRUPT 0
#endif

/* serial word */
#define IDLE 0
#define BUSY 1
#define CLOSED 2
#define STACK 3
/* push results */
#define P_QUEUED 0
#define P_ACQ 1
#define P_IDLE 2
#define P_CLOSED 3
/* entry states */
#define ACTIVE 0
#define DISPOSED 1
#define DONE 2
/* core states */
#define ALIVE 0
#define TERMINATING 1
#define TERMINATED 2

#define NENT 3
#define LATE_ENTRY 1
#define PERM_ENTRY 2
#define NSEND 3           /* senders 0, 1 and the reentrant one (2) */
/* Values: v = sender * 4 + seq. Event node ids: v + 1. */
#define TERM 100
#define INTR 101
#define TERM_NODE 99
#define INTR_NODE 98
#define REMOVAL_BASE 120
#define REENTRANT_VALUE 8 /* sender 2, seq 0 */
#define MAXN 12

byte word = IDLE;
byte stk[MAXN];           /* pending nodes, in push order */
byte stkn = 0;

byte estate[NENT];
bool spliced[NENT];       /* FLARE_ENTRY_SPLICED */
byte refs[NENT];
bool freed[NENT];
bool released[NENT];
byte in_call[NENT];
bool dispose_returned[NENT];
byte late_calls[NENT];
byte next_seq[NENT * NSEND];
bool seen_sender[NENT * NSEND];
byte values_recv[NENT];
byte terminals[NENT];

byte core_state = ALIVE;
byte adds[NENT];          /* additions, in attach order */
byte addsn = 0;
bool adds_closed = false;
byte items[NENT];         /* the drainer-private array */
byte count = 0;

byte drainers = 0;        /* threads holding the word */
byte calls = 0;           /* calls in progress from drains */
byte obs_calls = 0;       /* calls in progress from observe() */
byte pushed = 0;          /* event nodes queued */
byte consumed = 0;        /* event nodes taken by a drainer */
byte expected = 0;        /* values linearized before the terminal */
bool term_linearized = false;
bool intr_flag = false;   /* flare_core's `interrupt` word */
bool intr_returned = false; /* sender 0's `interrupted` send has returned */

/* Scratch used only inside one atomic step: not part of the state. */
hidden byte snd, seq, hj;

inline linearize(n) {
    if
    :: n == TERM_NODE || n == INTR_NODE -> term_linearized = true
    :: n < INTR_NODE && !term_linearized -> expected++
    :: else -> skip
    fi
}

inline unref(x) {
    atomic {
        assert(!freed[x] && refs[x] > 0);
        refs[x]--;
        if
        :: refs[x] == 0 -> freed[x] = true
        :: else -> skip
        fi
    }
}

inline release_ctx(x) {
    atomic {
        assert(!released[x]);   /* exactly once */
        assert(in_call[x] == 0); /* no delivery still using it */
        released[x] = true
    }
}

inline claim(x, st, won) {
    atomic {
        assert(!freed[x]);
        if
        :: estate[x] == ACTIVE -> estate[x] = st; won = true
        :: else -> won = false
        fi
    }
}

/* flare_serial_push: one step (the CAS that succeeds, or the read that
 * returns). `node->next` is the pusher's private write before it. */
inline push(n, acquire_if_idle, r) {
    atomic {
        if
        :: word == CLOSED -> r = P_CLOSED
        :: word == IDLE && acquire_if_idle ->
            word = BUSY; r = P_ACQ; drainers++; assert(drainers == 1);
            assert(n >= INTR_NODE || !intr_returned); /* contract 8 */
            linearize(n)
        :: word == IDLE && !acquire_if_idle -> r = P_IDLE
        :: word == BUSY || word == STACK ->
            assert(stkn < MAXN);
            stk[stkn] = n; stkn++; word = STACK; r = P_QUEUED;
            if
            :: n < REMOVAL_BASE -> pushed++; linearize(n)
            :: else -> skip
            fi
        fi
    }
}

/* The start of a call into an observer (`action(event)`), and its end. */
inline call_begin(x, v, from_drain) {
    atomic {
        assert(!freed[x]);
        assert(!released[x]);                 /* no use after release */
        if
        :: from_drain -> assert(calls == 0 && (!STRICT_OBSERVE || obs_calls == 0)); calls++
        :: else -> assert(!STRICT_OBSERVE || (calls == 0 && obs_calls == 0)); obs_calls++
        fi;
        in_call[x]++;
        if
        :: dispose_returned[x] -> late_calls[x]++; assert(late_calls[x] <= 1)
        :: else -> skip
        fi;
        assert(terminals[x] == 0);            /* nothing after a terminal */
        if
        :: v == TERM || v == INTR -> terminals[x]++
        :: else ->
            snd = v / 4; seq = v % 4;
            if
            :: x == LATE_ENTRY && !seen_sender[x * NSEND + snd] -> skip
            :: else -> assert(seq == next_seq[x * NSEND + snd]) /* _FIFO, once, no gap */
            fi;
            seen_sender[x * NSEND + snd] = true;
            next_seq[x * NSEND + snd] = seq + 1;
            values_recv[x]++
        fi
    }
}

inline call_end(x, from_drain) {
    atomic {
        assert(!released[x]);
        in_call[x]--;
        if
        :: from_drain -> calls--
        :: else -> obs_calls--
        fi
    }
}

/* A drain's call: observer 2 sends reentrantly on value (0,0). */
inline call(x, v) {
    call_begin(x, v, true);
    if
    :: REENTRANT && x == PERM_ENTRY && v == 0 ->
        push(REENTRANT_VALUE + 1, true, r2);
        assert(r2 == P_QUEUED);             /* we hold the word: queued */
        r2 = 0
    :: else -> skip
    fi;
    call_end(x, true)
}

/* flare_entry_dispose + _SignalCore.dispose, then Observation.deinit. The
 * claim's CAS also reads the entry's SPLICED mark (one word). */
inline dispose_and_drop(x) {
    atomic { claim(x, DISPOSED, won); was_spliced = spliced[x] };
    if
    :: won && !was_spliced ->
        /* Retraction: the CAS that takes the entry back off the top of the
         * additions, if no drain has taken the stack since it was pushed. */
        atomic {
            if
            :: addsn > 0 && adds[addsn - 1] == x ->
                addsn--; adds[addsn] = 0; retracted = true
            :: else -> retracted = false
            fi
        };
        if
        :: retracted -> unref(x)                /* the stack's reference */
        :: else -> skip                         /* a splice or seal drops it */
        fi;
        release_ctx(x)                          /* RELEASE: no drain will call it */
    :: won && was_spliced ->
        atomic { w = word };                    /* the RMW of zero */
        if
        :: w == IDLE || w == CLOSED -> release_ctx(x)          /* RELEASE */
        :: else ->
            /* The removal's reference, then the push: one step, as nothing
             * can observe the count in between (the handle holds one). */
            atomic { assert(!freed[x]); refs[x]++; push(REMOVAL_BASE + x, false, r) };
            if
            :: r == P_QUEUED -> skip                           /* DEFERRED */
            :: else -> unref(x); release_ctx(x)                /* RELEASE */
            fi
        fi
    :: else -> skip                                            /* NOOP */
    fi;
    atomic { dispose_returned[x] = true; unref(x) }             /* the handle's */
}

/* flare_core_splice: an acquire load, then the exchange and private work. */
inline splice() {
    if
    :: addsn > 0 ->
        atomic {
            hj = 0;
            do
            :: hj < addsn -> sp[hj] = adds[hj]; adds[hj] = 0; hj++
            :: else -> break
            od;
            nsp = addsn; addsn = 0; j = 0
        };
        do
        :: j < nsp ->
            atomic { x = sp[j]; sp[j] = 0; j++; assert(!freed[x]) };
            /* The marking CAS: only an ACTIVE entry is marked and kept. */
            atomic {
                if
                :: estate[x] == ACTIVE -> spliced[x] = true; items[count] = x; count++; kept = true
                :: else -> kept = false
                fi
            };
            if
            :: kept -> skip
            :: else -> unref(x)      /* disposed before it saw an event */
            fi
        :: else -> break
        od;
        atomic { j = 0; nsp = 0; x = 0 }
    :: else -> skip
    fi
}

inline compact() {
    j = 0; m = 0;
    do
    :: m < count ->
        atomic { x = items[m]; items[m] = 0; m++; assert(!freed[x]) };
        if
        :: estate[x] == ACTIVE -> items[j] = x; j++
        :: else -> unref(x)
        fi
    :: else -> break
    od;
    atomic { count = j; j = 0; m = 0; x = 0 }
}

/* deliverTerminal: claim each observer DONE, call, release; seal; interrupt
 * the late ones. */
inline deliver_terminal(ev, t) {
    atomic {
        if
        :: core_state == ALIVE -> core_state = TERMINATING; t = true
        :: else -> t = false
        fi
    };
    if
    :: t ->
        i = 0; cnt = count;
        do
        :: i < cnt ->
            atomic { x = items[i]; i++ };
            claim(x, DONE, won);
            if
            :: won -> call(x, ev); release_ctx(x)
            :: else -> skip
            fi
        :: else -> break
        od;
        /* flare_core_drop_items */
        i = 0;
        do
        :: i < count -> unref(items[i]); items[i] = 0; i++
        :: else -> break
        od;
        atomic { count = 0; i = 0 };
        /* flare_core_seal: one step closes the stack, marks the core
         * TERMINATED and takes the late entries; then interrupt them. */
        atomic {
            hj = 0;
            do
            :: hj < addsn -> sp[hj] = adds[hj]; adds[hj] = 0; hj++
            :: else -> break
            od;
            nsp = addsn; addsn = 0;
            core_state = TERMINATED; adds_closed = true
        };
        i = 0;
        do
        :: i < nsp ->
            atomic { x = sp[i]; sp[i] = 0; i++ };
            claim(x, DONE, won);
            if
            :: won -> call(x, INTR); release_ctx(x)
            :: else -> skip
            fi;
            unref(x)
        :: else -> break
        od;
        atomic { i = 0; nsp = 0; x = 0; cnt = 0; won = false }
    :: else -> skip
    fi
}

/* _SignalCore.deliver */
inline deliver(v, t) {
    t = false;
    splice();
    if
    :: v == TERM || v == INTR -> deliver_terminal(v, t)
    :: else ->
        i = 0; dead = 0; cnt = count;
        do
        :: i < cnt ->
            atomic { x = items[i]; i++; assert(!freed[x]) };
            if
            :: estate[x] == ACTIVE -> call(x, v)    /* flare_entry_is_active */
            :: else -> dead++
            fi
        :: else -> break
        od;
        if
        :: dead > 0 -> compact()
        :: else -> skip
        fi;
        atomic { i = 0; cnt = 0; dead = 0; x = 0 }
    fi
}

inline node_value(n, v) {
    if
    :: n == TERM_NODE -> v = TERM
    :: n == INTR_NODE -> v = INTR
    :: else -> v = n - 1
    fi
}

/* flare_drain_removal, then the caller's release of the context it
 * returns (FLARE_DRAIN_RELEASE): the node's reference goes first, the
 * context was read before. */
inline complete_removal(x) {
    unref(x);
    release_ctx(x)
}

proctype Sender(byte sid; byte nvals; bool terminal) {
    byte k = 0, v, n, r, r2, i, j, m, cnt, dead, x, nsp, bi, nb;
    bool ok, t, won, kept, overtaken;
    byte sp[NENT];
    byte batch[MAXN];

    do
    :: k < nvals + terminal ->
        if
        :: k < nvals -> v = sid * 4 + k; n = v + 1
        :: else -> v = (INTERRUPT -> INTR : TERM); n = (INTERRUPT -> INTR_NODE : TERM_NODE)
        fi;
        k++;
        bi = 0; nb = 0;
        /* send: flare_serial_try_acquire */
        atomic {
            if
            :: word == IDLE ->
                word = BUSY; ok = true; drainers++; assert(drainers == 1);
                assert(n >= INTR_NODE || !intr_returned);   /* contract 8 */
                linearize(n)
            :: else -> ok = false
            fi
        };
        if
        :: ok -> skip
        :: else ->
            /* sendQueued */
            if
            :: word == CLOSED -> goto next_send           /* flare_serial_peek */
            :: else -> skip
            fi;
            /* flare_core_request_interrupt, before the push */
            if
            :: n == INTR_NODE -> intr_flag = true
            :: else -> skip
            fi;
            push(n, true, r);
            if
            :: r == P_ACQ -> skip
            :: else -> goto next_send                     /* queued, or dropped */
            fi
        fi;
        /* We hold the word: deliver, then drain until released or closed. */
        deliver(v, t);
        do
        :: t ->
            /* finishTermination: close, then the rest of the batch and
             * the closed stack, in order. */
            atomic {
                hj = 0;
                do
                :: hj < stkn -> assert(nb < MAXN); batch[nb] = stk[hj]; stk[hj] = 0; nb++; hj++
                :: else -> break
                od;
                stkn = 0; word = CLOSED; drainers--
            };
            do
            :: bi < nb ->
                atomic { n = batch[bi]; batch[bi] = 0; bi++ };
                if
                :: n >= REMOVAL_BASE -> complete_removal(n - REMOVAL_BASE)
                :: else -> consumed++                     /* dropped */
                fi
            :: else -> break
            od;
            break
        :: !t && bi < nb ->
            /* drain: take the next node; for an event, the check of the
             * interrupt flag, where its delivery begins (contract 8: none
             * begins once the interrupting send has returned). */
            atomic {
                n = batch[bi]; batch[bi] = 0; bi++;
                overtaken = (n < REMOVAL_BASE && intr_flag);
                if
                :: n < REMOVAL_BASE -> consumed++
                :: else -> skip
                fi;
                assert(n >= INTR_NODE || overtaken || !intr_returned)
            };
            if
            :: n >= REMOVAL_BASE -> complete_removal(n - REMOVAL_BASE)
            :: n < REMOVAL_BASE && overtaken ->
                /* interruptPromptly: `interrupted` now, the rest dropped */
                overtaken = false; deliver(INTR, t); assert(t)
            :: n < REMOVAL_BASE && !overtaken -> node_value(n, v); deliver(v, t)
            fi
        :: !t && bi >= nb ->
            /* flare_serial_release: BUSY -> IDLE, or take the stack (FIFO) */
            atomic {
                if
                :: word == BUSY -> word = IDLE; drainers--; ok = false; bi = 0; nb = 0
                :: else ->
                    assert(word == STACK);
                    hj = 0;
                    do
                    :: hj < stkn -> batch[hj] = stk[hj]; stk[hj] = 0; hj++
                    :: else -> break
                    od;
                    nb = stkn; bi = 0; stkn = 0; word = BUSY; ok = true
                fi
            };
            if
            :: ok -> skip
            :: else -> break
            fi
        od;
next_send:
        atomic {
            if
            :: n == INTR_NODE -> intr_returned = true
            :: else -> skip
            fi;
            v = 0; n = 0; r = 0; ok = false; t = false; bi = 0; nb = 0
        }
    :: else -> break
    od
}

proctype Disposer() {
    byte r, w;
    bool won, retracted, was_spliced;
    dispose_and_drop(0)
}

proctype Attacher() {
    byte r, w;
    bool won, attached, retracted, was_spliced;
    /* observe: flare_entry_new (refs: bag + handle), flare_core_attach */
    atomic {
        if
        :: adds_closed -> attached = false
        :: else -> adds[addsn] = LATE_ENTRY; addsn++; attached = true
        fi
    };
    if
    :: attached ->
        if
        :: ATTACHER_DISPOSES -> dispose_and_drop(LATE_ENTRY)
        :: else -> unref(LATE_ENTRY)
        fi
    :: else ->
        unref(LATE_ENTRY);                              /* the bag's: never pushed */
        claim(LATE_ENTRY, DONE, won);
        if
        :: won ->
            call_begin(LATE_ENTRY, INTR, false);
            call_end(LATE_ENTRY, false);
            release_ctx(LATE_ENTRY)
        :: else -> skip
        fi;
        unref(LATE_ENTRY)                               /* the handle's */
    fi
}

init {
    byte e;
    /* Observers 0 and 2 attached before the threads start; 1 is allocated. */
    atomic {
        e = 0;
        do
        :: e < NENT -> estate[e] = ACTIVE; refs[e] = 2; e++
        :: else -> break
        od;
        adds[0] = 0; adds[1] = PERM_ENTRY; addsn = 2;
        if
        :: !WITH_ATTACHER -> refs[LATE_ENTRY] = 0; freed[LATE_ENTRY] = true; released[LATE_ENTRY] = true
        :: else -> skip
        fi;
        run Sender(0, S0_VALUES, true);
        if
        :: S1_VALUES > 0 -> run Sender(1, S1_VALUES, false)
        :: else -> skip
        fi;
        if
        :: WITH_DISPOSER -> run Disposer()
        :: else -> skip
        fi;
        if
        :: WITH_ATTACHER -> run Attacher()
        :: else -> skip
        fi
    };
    (_nr_pr == 1);
    unref(PERM_ENTRY);                                  /* its handle */
    if
    :: !WITH_DISPOSER -> unref(0)                       /* observer 0's handle */
    :: else -> skip
    fi;
    /* Every thread finished: check the end state. */
    assert(word == CLOSED && stkn == 0 && drainers == 0 && calls == 0 && obs_calls == 0);
    assert(pushed == consumed);                         /* every pushed node drained */
    assert(terminals[PERM_ENTRY] == 1);
    /* No lost event; with INTERRUPT, values still queued when it was sent
     * may be overtaken (the FIFO assertions keep what is lost a suffix). */
    assert(values_recv[PERM_ENTRY] == expected || (INTERRUPT && values_recv[PERM_ENTRY] < expected));
    assert(core_state == TERMINATED && adds_closed && addsn == 0 && count == 0);
    e = 0;
    do
    :: e < NENT -> assert(released[e] && freed[e] && in_call[e] == 0); e++
    :: else -> break
    od
}
