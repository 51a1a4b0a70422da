/*
 * batch.pml — a Promela model of the batched hand-off (flare_batch.h) on the
 * serial word, as client.c / SignalCore drive it: senders that find the word
 * held append values to a batch of their own (steps B1–B5 of
 * flare_batch.h, batch.c), the drainer delivers batches whole, FIFO with the
 * nodes around them, and seals each when it has caught up (D1–D3,
 * flare_drain_next / flare_drain_next_closed), and the queue limit's
 * credits are taken in groups and returned per delivered slot and at the
 * seal (I7, flare_serial_reserve_n, flare_drain_taken).
 *
 * Threads: Sender(0) sends S0_VALUES values, then with TERMINAL a terminal
 * event (1: completed, 2: interrupted) and one more value (which must be
 * dropped: it was sent after the terminal event); Sender(1) sends S1_VALUES
 * values. With REENTRANT, the observer sends a value from inside the
 * delivery of sender 0's first value: the holder takes the node path.
 * With IN_PLACE, that value is sent instead as an inner being started
 * sends it (flatten's funnel, `_FlattenEngine.queueStartingEvent`): the
 * holder drains in place (flare_drain_next_in_place: what its drain holds,
 * then what was pushed since, until the word reads BUSY, keeping the
 * word), then delivers the value itself; sender 0's first value takes the
 * node path, so that it is delivered by a holder's first step or from a
 * node of its drain, with other items in hand. With IN_PLACE=2 the drain
 * in place may also stop before any item (FLARE_DRAIN_STOP: an
 * interruption, a terminal event or the removal of the delivering bag's
 * entry is next): what it holds stays in the drain state, which the holder
 * resumes after the delivery (the drain loop's, or `leaveResuming` after a
 * first step), and the value is queued behind it as a reentrant send.
 * A batch holds CAP slots; each sender owns NBS batch memories (the
 * allocator: a fresh batch is one with no reference left) and keeps two in
 * its cache entry, `cur` and `spare` (batch.c `fresh`): a fresh batch is
 * whichever of them its drainer released, a new one if the entry's batch
 * is dense (DENSE events or more: the C code's capacity / 4; here a full
 * batch, so that the fallback below is reached), else the value takes the
 * node path (reserving a credit of the queue limit as flare_queue_kind
 * does, a counted node returning it when delivered).
 *
 * Granularity: every atomic instruction of the C code is one step (the
 * state's CAS, the push, the take, a reference drop); a slot's write and
 * read are steps of their own, so the order of a slot's write and the CAS
 * that counts it is explored. Memory model: sequential consistency; the
 * orderings the C code needs (release on the count and the push, acquire
 * where they are read) are what makes these steps happen in this order on
 * ARM64, and the mutations below take them away.
 *
 * Checked (assertions, and invalid end states: a sender waiting for
 * credits for ever):
 *   - every value delivered exactly once, FIFO per sender, none after the
 *     terminal event; without TERMINAL all of them; a slot is never read
 *     before its event was written (I1, I2);
 *   - the order of sends (I4): a value whose send began after another
 *     sender's value's send returned (the reentrant one's too) is
 *     delivered after it (`snap`: what each send saw completed when it
 *     began);
 *   - `interrupted` overtakes: no value delivery begins after the
 *     interrupting send returned (contract 8);
 *   - a batch is never touched after it was freed, and every batch is
 *     freed at the end (I6); a sender never appends to a batch its drainer
 *     has moved past (I3);
 *   - credits outstanding never exceed LIMIT; all return (I7).
 *
 * Mutations (run.sh checks that each is caught):
 *   MUT_FENCE  the slot's write becomes visible after the CAS that counts
 *              it (the release dropped from B4);
 *   MUT_EARLY  a fresh batch is pushed before its state counts the first
 *              event (taken before it is published, B5);
 *   MUT_ORDER  the drainer moves past a batch and drops its reference
 *              before it seals it (D3 before D2);
 *   MUT_LAST   B1 appends to an open batch that is no longer the word's
 *              top (I4): caught by the order of sends, with a reentrant
 *              send or a terminal event pushed after the batch.
 *   MUT_IN_HAND  the drain in place ends as soon as the word reads BUSY,
 *              leaving what the drain holds to the drain: caught by the
 *              order of sends (a value held is delivered after the one the
 *              drain in place made way for).
 *   MUT_STOP_HAND  (IN_PLACE=2) after a stop, the value is delivered at
 *              once instead of queued behind what the drain holds: caught
 *              the same way.
 */

#ifndef S0_VALUES
#define S0_VALUES 2
#endif
#ifndef S1_VALUES
#define S1_VALUES 2
#endif
#ifndef TERMINAL
#define TERMINAL 0
#endif
#ifndef REENTRANT
#define REENTRANT 0
#endif
#ifndef LIMIT
#define LIMIT 0
#endif
#ifndef GROUP
#define GROUP 1
#endif
#ifndef CAP
#define CAP 2
#endif
#ifndef MUT_FENCE
#define MUT_FENCE 0
#endif
#ifndef MUT_EARLY
#define MUT_EARLY 0
#endif
#ifndef MUT_ORDER
#define MUT_ORDER 0
#endif
#ifndef MUT_LAST
#define MUT_LAST 0
#endif
#ifndef IN_PLACE
#define IN_PLACE 0
#endif
#ifndef MUT_IN_HAND
#define MUT_IN_HAND 0
#endif
#ifndef MUT_STOP_HAND
#define MUT_STOP_HAND 0
#endif
#ifndef DENSE
#define DENSE CAP
#endif

#define IDLE 0
#define BUSY 1
#define CLOSED 2
#define NONE 255

#define NBS 4              /* batch memories per sender */
#define NB 8
#define MAXN 10
/* Items: a value is 1 + sender * 16 + seq (sender 2: the reentrant one);
 * COUNTED + value a value's counted node; TERM and INTR are terminal
 * nodes; BATCH + id a batch. */
#define COUNTED 64
#define TERM 120
#define INTR 121
#define BATCH 128

byte word = IDLE;
byte owner = NONE;
byte stk[MAXN];            /* pushed items, in push order (the take reverses the LIFO) */
byte stkn = 0;
byte lim = LIMIT;
byte tickets = 0;
byte freed = 0;
byte outstanding = 0;      /* credits admitted and not returned */
bool intr = false;         /* flare_core_request_interrupt */
bool intr_returned = false;

/* Batches: state (count, credits, sealed), references, slots. */
byte cnt[NB];
byte cred[NB];
bool sealed[NB];
byte refs[NB];
bool counted[NB];
byte slot[NB * CAP];

/* Each sender's cache entry: its batch and the one before (its
 * references), and whether the entry names the word. */
byte cur[2];
byte spare[2];
bool named[2];

byte next_seq[3];
/* Values whose sends returned, per sender (2: the reentrant one); and, per
 * value of senders 0 and 1 (sender * 4 + seq), the other sender's count
 * and the reentrant one's (* 16) when its send began. */
byte completed[3];
byte snap[8];
byte received = 0;
bool terminated = false;
byte in_snap;

/* The taken items (the drainer's `d->next`) */
#define TAKE_ALL() hj = 0; do :: hj < stkn -> assert(nb < MAXN); took[nb] = stk[hj]; stk[hj] = 0; nb++; hj++ :: else -> break od; stkn = 0

inline unref(b) {
    atomic {
        assert(refs[b] > 0);
        refs[b]--
    }
}

/* The observer's checks: exactly once, FIFO per sender, nothing after the
 * terminal, the order of sends. */
inline check_delivery(v) {
    atomic {
        assert(!terminated);
        if
        :: v == TERM || v == INTR -> terminated = true
        :: else ->
            snd = (v - 1) / 16; seq = (v - 1) % 16;
            assert(seq == next_seq[snd]);
            if
            :: snd < 2 ->
                assert(next_seq[1 - snd] >= snap[snd * 4 + seq] % 16);
                assert(next_seq[2] >= snap[snd * 4 + seq] / 16)
            :: else -> skip
            fi;
            next_seq[snd]++;
            received++
        fi
    }
}

/* The drain in place's delivery of an item `x` it took (a value node,
 * counted or not). */
inline in_place_node(x) {
    if
    :: x > COUNTED -> x = x - COUNTED; give_back(1)
    :: else -> skip
    fi;
    check_delivery(x)
}

/* D1–D3 for batch `b`, delivering, inside the drain in place (run_batch's
 * steps; no interrupt: IN_PLACE runs without TERMINAL). */
inline in_place_batch(b) {
    ib = 0; ibn = 0;
    do
    :: ib < ibn ->
        atomic {
            assert(refs[b] > 0);
            x = slot[b * CAP + ib];
            assert(x != 0);
            slot[b * CAP + ib] = 0; ib++
        };
        if
        :: counted[b] -> give_back(1)
        :: else -> skip
        fi;
        check_delivery(x)
    :: ib >= ibn ->
        atomic {
            assert(refs[b] > 0);
            if
            :: cnt[b] > ib -> ibn = cnt[b]
            :: else -> sealed[b] = true; unused = cred[b] - cnt[b]; done = true
            fi
        };
        if
        :: done ->
            if
            :: counted[b] && unused > 0 -> give_back(unused)
            :: else -> skip
            fi;
            unref(b);
            done = false; unused = 0;
            break
        :: else -> skip
        fi
    od
}

/* Drain in place (flare_drain_next_in_place): the items the drain holds
 * (took[ti..nb)), then what was pushed since (the take keeps the word),
 * until the word reads BUSY with nothing in hand; with IN_PLACE=2, or
 * until it stops before an item (`stopped`). */
inline drain_in_place() {
    do
    :: ti < nb && MUT_IN_HAND -> break
    :: ti < nb && IN_PLACE == 2 -> stopped = true; break
    :: ti < nb && !MUT_IN_HAND ->
        if
        :: took[ti] >= BATCH -> xb = took[ti] - BATCH; ti++; in_place_batch(xb)
        :: else -> x = took[ti]; ti++; in_place_node(x)
        fi
    :: ti >= nb ->
        /* flare_serial_take_pushed: BUSY, or take (owner stays) */
        atomic {
            assert(word != IDLE && word != CLOSED && owner == me);
            if
            :: stkn == 0 -> done = true
            :: else -> nb = 0; ti = 0; TAKE_ALL()
            fi
        };
        if
        :: done -> done = false; break
        :: else -> skip
        fi
    od
}

/* The observer: check_delivery; with REENTRANT, sends (2,0) from inside
 * the delivery of (0,0): the holder takes the node path
 * (flare_batch_begin: NODE), uncounted; with IN_PLACE, drains in place and
 * delivers (2,0) itself, after every value whose send returned before its
 * send began (`in_snap`). */
inline observe(v) {
    check_delivery(v);
    if
    :: IN_PLACE && v == 1 ->
        in_snap = completed[0] + 16 * completed[1];
        drain_in_place();
        if
        :: stopped && !MUT_STOP_HAND ->
            /* queued behind what the drain still holds */
            atomic {
                assert(word == BUSY && owner == me && stkn < MAXN);
                stk[stkn] = 1 + 2 * 16; stkn++
            };
            stopped = false
        :: else ->
            stopped = false;
            assert(next_seq[0] >= in_snap % 16 && next_seq[1] >= in_snap / 16);
            check_delivery(1 + 2 * 16)
        fi;
        completed[2]++
    :: else -> skip
    fi;
    if
    :: REENTRANT && v == 1 ->
        atomic {
            assert(word == BUSY && owner == me && stkn < MAXN);
            stk[stkn] = 1 + 2 * 16; stkn++
        };
        completed[2]++
    :: else -> skip
    fi
}

/* Returns `n` credits (flare_serial_return_slots; the holder only). */
inline give_back(n) {
    atomic { freed = freed + n; outstanding = outstanding - n }
}


/* D1–D3 for batch `b` at took[ti], from slot `bi` on (0 for a batch just
 * reached), delivering (closing = false) or dropping (closing = true).
 * Sets `stop` if an interrupt was requested before a slot's delivery: the
 * batch stays at the head, and the termination goes on from `bi`. */
inline run_batch(b, closing) {
    do
    :: bi < bn ->
        atomic {
            if
            :: !closing && intr -> stop = true
            :: else ->
                assert(refs[b] > 0);
                w = slot[b * CAP + bi];
                assert(w != 0);                      /* written before counted */
                slot[b * CAP + bi] = 0; bi++;
                assert(closing || !intr_returned)    /* contract 8 */
            fi
        };
        if
        :: stop -> break
        :: else -> skip
        fi;
        if
        :: !closing && counted[b] -> give_back(1)    /* flare_drain_taken, group 1 */
        :: else -> skip
        fi;
        if
        :: !closing -> observe(w)
        :: else -> skip                              /* DROP_SLOT */
        fi;
        w = 0
    :: bi >= bn && !MUT_ORDER ->
        /* D1 re-reads the count; D2 seals when caught up (one CAS). The
         * drainer's extra reads before D2 (FLARE_SEAL_SPINS) are D1
         * again, covered by the interleavings between these steps. */
        atomic {
            assert(refs[b] > 0);
            if
            :: cnt[b] > bi -> bn = cnt[b]
            :: else -> sealed[b] = true; unused = cred[b] - cnt[b]; done = true
            fi
        };
        if
        :: done ->
            if
            :: !closing && counted[b] && unused > 0 -> give_back(unused)
            :: else -> skip
            fi;
            unref(b);                                /* D3 */
            done = false; unused = 0;
            break
        :: else -> skip
        fi
    :: bi >= bn && MUT_ORDER ->
        atomic {
            if
            :: cnt[b] > bi -> bn = cnt[b]
            :: else -> done = true
            fi
        };
        if
        :: done ->
            unref(b);                                /* D3 first */
            atomic { sealed[b] = true; unused = cred[b] - cnt[b] };
            if
            :: !closing && counted[b] && unused > 0 -> give_back(unused)
            :: else -> skip
            fi;
            done = false; unused = 0;
            break
        :: else -> skip
        fi
    od
}

/* Delivers `v0` holding the word, then drains until released or closed
 * (deliverAndLeave, drain, interruptPromptly, finishRootTermination). */
inline hold_and_drain(v0) {
    observe(v0);
    t = (v0 == TERM || v0 == INTR);
    do
    :: t || stop ->
        if
        :: stop -> observe(INTR)                     /* INTERRUPT: `interrupted` now */
        :: else -> skip
        fi;
        /* flare_drain_close: exchange → CLOSED; limit 0; freed moves */
        atomic {
            word = CLOSED; owner = NONE;
            TAKE_ALL()
        };
        lim = 0;
        freed++;
        /* flare_drain_next_closed: the batch left at the head first, from
         * its slot `bi`, then the rest */
        if
        :: stop && inb -> stop = false; bb = took[ti] - BATCH; run_batch(bb, true); ti++
        :: else -> stop = false
        fi;
        do
        :: ti < nb ->
            if
            :: took[ti] >= BATCH -> bb = took[ti] - BATCH; bi = 0; bn = 0; run_batch(bb, true)
            :: else -> skip                          /* DROP a node */
            fi;
            ti++
        :: else -> break
        od;
        break
    :: !t && !stop && ti < nb ->
        if
        :: took[ti] >= BATCH ->
            bb = took[ti] - BATCH; bi = 0; bn = 0;
            run_batch(bb, false);
            if
            :: stop -> inb = true                    /* the batch stays at the head */
            :: else -> ti++
            fi
        :: else ->
            /* an event node: the interrupt check first (the INTR node
             * itself is dropped by it: intr was set before its push) */
            atomic {
                if
                :: intr -> stop = true; ti++
                :: else -> v = took[ti]; ti++; assert(!intr_returned)
                fi
            };
            if
            :: !stop && v > COUNTED && v < TERM -> v = v - COUNTED; give_back(1)
            :: else -> skip
            fi;
            if
            :: !stop -> observe(v); t = (v == TERM)
            :: else -> skip
            fi
        fi
    :: !t && !stop && ti >= nb ->
        /* flare_serial_release: CAS BUSY → IDLE, or take */
        owner = NONE;
        atomic {
            if
            :: stkn == 0 -> word = IDLE; released = true
            :: else -> nb = 0; ti = 0; TAKE_ALL(); owner = me; released = false
            fi
        };
        if
        :: released -> break
        :: else -> skip
        fi
    od;
    atomic { ti = 0; nb = 0; t = false; stop = false; inb = false; released = false; bi = 0; bn = 0 }
}

/* A batch memory of sender `me` with no reference left (the allocator). */
inline allocate(b) {
    b = me * NBS;
    do
    :: refs[b] == 0 -> break
    :: else -> b++; assert(b < me * NBS + NBS)
    od
}

/* B2: takes GROUP credits (fewer if the batch is nearly full) for batch
 * `b` with `c` events, waiting while the queue is full; `gone` if closed. */
inline take_credits(b, c) {
    n = GROUP;
    if
    :: n > CAP - c -> n = CAP - c
    :: else -> skip
    fi;
    atomic { tk = tickets; tickets = tickets + n };
    do
    :: atomic { lim != 0 && tk + n - 1 - freed < lim -> got = n; outstanding = outstanding + n; assert(outstanding <= LIMIT) }; break
    :: word == CLOSED -> gone = true; break
    od
}

proctype Sender(byte me; byte nvals) {
    byte k = 0, v, w, bb, snd, seq, b, b2, b3, seen, got, n, tk, bi, bn, unused, hj, ti, nb, x, xb, ib, ibn;
    bool ok, gone, t, stop, inb, done, released, open, stopped;
    byte took[MAXN];
    byte r;

    do
    :: k < nvals + (me == 0 && TERMINAL != 0) * 2 ->
        if
        :: me == 0 && TERMINAL != 0 && k == nvals -> v = (TERMINAL == 1 -> TERM : INTR)
        :: else -> v = 1 + me * 16 + k - (k > nvals)   /* the value after the terminal: seq nvals */
        fi;
        k++;
        if
        :: v < TERM -> snap[me * 4 + (v - 1) % 16] = completed[1 - me] + 16 * completed[2]
        :: else -> skip
        fi;
        /* send: flare_serial_try_acquire */
        atomic {
            if
            :: word == IDLE -> word = BUSY; owner = me; ok = true
            :: else -> ok = false
            fi
        };
        if
        :: ok -> hold_and_drain(v); goto next
        :: else -> skip
        fi;
        if
        :: v == TERM || v == INTR ->
            /* flare_queue_kind: request the interrupt, push */
            if
            :: v == INTR -> intr = true
            :: else -> skip
            fi;
            atomic {
                if
                :: word == CLOSED -> r = 3
                :: word == IDLE -> word = BUSY; owner = me; r = 1
                :: else -> assert(stkn < MAXN); stk[stkn] = v; stkn++; r = 0
                fi
            };
            if
            :: r == 1 -> hold_and_drain(v)
            :: else -> skip
            fi;
            if
            :: v == INTR -> intr_returned = true
            :: else -> skip
            fi;
            goto next
        :: else -> skip
        fi;
        /* B1: the open batch (not sealed, not full, the word's top), or a
         * fresh one, or the node path */
        got = 0; gone = false;
        if
        :: IN_PLACE && v == 1 -> goto node
        :: else -> skip
        fi;
        b = cur[me];
        atomic {
            open = named[me] && b != NONE && !sealed[b] && cnt[b] < CAP &&
                   (MUT_LAST || (stkn > 0 && stk[stkn - 1] == BATCH + b));
            if
            :: open -> seen = cnt[b]
            :: else -> seen = 0
            fi
        };
        if
        :: !open ->
            /* batch.c fresh */
            if
            :: b != NONE && refs[b] != 1 ->
                b3 = spare[me];
                if
                :: b3 != NONE && refs[b3] != 1 && named[me] && cnt[b] >= DENSE -> unref(b3); b3 = NONE
                :: b3 != NONE && refs[b3] != 1 && !(named[me] && cnt[b] >= DENSE) -> goto node
                :: else -> skip
                fi;
                spare[me] = b; b = b3; b3 = 0
            :: else -> skip
            fi;
            if
            :: b == NONE -> allocate(b); refs[b] = 1
            :: else -> skip
            fi;
            cur[me] = b; named[me] = false;
            sealed[b] = true; cnt[b] = 0; cred[b] = 0; counted[b] = (lim != 0)
        :: else -> skip
        fi;
        /* B2 */
        if
        :: counted[b] && cred[b] == seen -> take_credits(b, seen)
        :: else -> skip
        fi;
        if
        :: gone -> goto next
        :: else -> skip
        fi;
        /* B3 */
        if
        :: !MUT_FENCE || !open -> slot[b * CAP + seen] = v
        :: else -> skip
        fi;
        if
        :: open ->
            /* B4: CAS the state */
            atomic {
                if
                :: !sealed[b] -> assert(cnt[b] == seen); cnt[b]++; cred[b] = cred[b] + got; ok = true
                :: else -> ok = false
                fi
            };
            if
            :: ok && MUT_FENCE -> slot[b * CAP + seen] = v
            :: else -> skip
            fi;
            if
            :: ok -> goto next
            :: else -> skip
            fi;
            /* MOVE: a fresh batch; a credit again if the one counted on
             * went back with the seal */
            allocate(b2); refs[b2] = 1;
            sealed[b2] = true; cnt[b2] = 0; cred[b2] = 0; counted[b2] = counted[b];
            if
            :: counted[b2] && got == 0 -> take_credits(b2, 0)
            :: else -> skip
            fi;
            if
            :: gone -> refs[b2] = 0; slot[b * CAP + seen] = 0; goto next
            :: else -> skip
            fi;
            slot[b2 * CAP] = v; slot[b * CAP + seen] = 0;
            unref(b);
            b = b2; cur[me] = b2
        :: else -> skip
        fi;
        /* B5: publish a fresh batch */
        named[me] = true;
        if
        :: !MUT_EARLY -> cnt[b] = 1; cred[b] = got; sealed[b] = false; refs[b] = 2
        :: else -> refs[b] = 2
        fi;
        atomic {
            if
            :: word == CLOSED -> r = 3
            :: word == IDLE -> word = BUSY; owner = me; r = 1
            :: else -> assert(stkn < MAXN); stk[stkn] = BATCH + b; stkn++; r = 0
            fi
        };
        if
        :: MUT_EARLY -> cnt[b] = 1; cred[b] = got; sealed[b] = false
        :: else -> skip
        fi;
        if
        :: r == 1 ->
            atomic { sealed[b] = true; refs[b] = 1; slot[b * CAP] = 0 };
            if
            :: got > 0 -> give_back(got)
            :: else -> skip
            fi;
            hold_and_drain(v)
        :: r == 3 -> atomic { sealed[b] = true; refs[b] = 1; slot[b * CAP] = 0 }
        :: else -> skip
        fi;
        goto next;
node:
        /* The node path for a value (flare_queue_kind, flare_serial_push):
         * a credit first if the queue has a limit, then the push. */
        b3 = 0;
        if
        :: lim != 0 ->
            atomic { tk = tickets; tickets++ };
            do
            :: atomic { lim != 0 && tk - freed < lim -> got = 1; outstanding++; assert(outstanding <= LIMIT) }; break
            :: word == CLOSED -> gone = true; break
            od
        :: else -> skip
        fi;
        if
        :: gone -> goto next
        :: else -> skip
        fi;
        atomic {
            if
            :: word == CLOSED -> r = 3
            :: word == IDLE -> word = BUSY; owner = me; r = 1
            :: else -> assert(stkn < MAXN); stk[stkn] = v + got * COUNTED; stkn++; r = 0
            fi
        };
        if
        :: r == 1 ->
            if
            :: got > 0 -> give_back(got)
            :: else -> skip
            fi;
            hold_and_drain(v)
        :: else -> skip
        fi;
next:
        if
        :: v != 0 && v < TERM -> completed[me]++
        :: else -> skip
        fi;
        atomic { v = 0; ok = false; open = false; got = 0; gone = false; seen = 0; b = NONE; b2 = 0; n = 0; tk = 0; r = 0 }
    :: else -> break
    od;
    /* the thread exits: its cache drops its batches (batch.c on_thread_exit) */
    if
    :: cur[me] != NONE -> unref(cur[me])
    :: else -> skip
    fi;
    if
    :: spare[me] != NONE -> unref(spare[me])
    :: else -> skip
    fi
}

init {
    atomic {
        cur[0] = NONE; cur[1] = NONE; spare[0] = NONE; spare[1] = NONE;
        run Sender(0, S0_VALUES);
        run Sender(1, S1_VALUES)
    };
    (_nr_pr == 1);
    byte i = 0;
    do
    :: i < NB -> assert(refs[i] == 0); i++
    :: else -> break
    od;
    assert(stkn == 0);
    if
    :: TERMINAL -> assert(word == CLOSED && terminated && next_seq[0] <= S0_VALUES)
    :: else ->
        assert(word == IDLE && outstanding == 0);
        assert(received == S0_VALUES + S1_VALUES + REENTRANT + (IN_PLACE != 0));
        assert(next_seq[0] == S0_VALUES && next_seq[1] == S1_VALUES)
    fi
}
