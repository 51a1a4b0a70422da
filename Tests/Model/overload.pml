/*
 * overload.pml — a Promela model of the queue limit (contract 9) on the
 * serial word, as SerialDriver.swift drives it (send, sendQueued, drain,
 * finishTermination) with flare_limit.h's flare_serial_reserve / wait /
 * return_slots and flare_serial.h's close:
 *
 *   - a value sent from a thread that does not hold the word takes a ticket
 *     and may push once ticket - freed < LIMIT; otherwise it polls (the spin
 *     and yield phases: POLLS attempts), then parks: parked++, look again,
 *     and sleep only if `freed` still holds the value it looked at (the
 *     futex's compare, atomic with going to sleep);
 *   - the holder of the word returns a slot after taking each counted node
 *     (return batch 1, the limit's smallest groups) and after acquiring the
 *     word with a counted node of its own, then wakes every parked sender if
 *     `parked` is not 0; closing drops the limit to 0, then moves `freed`
 *     forward and wakes them too, before the queued nodes are dropped;
 *   - a send from the holder (the observer's reentrant send) and a terminal
 *     event never take a ticket.
 *
 * The drainer's part follows flare_deliver.h and flare_drain.h (see
 * flare.pml's header): the sender's admission is flare_queue_kind
 * (flare_serial_reserve), the slot of a counted node that acquired the word
 * is flare_serial_return_own_slot, a slot returned after taking a counted
 * node is flare_drain_taken (group 1 here), and the close is
 * flare_drain_close.
 *
 * Threads: Sender(0) sends S0_VALUES values then, with TERMINAL, a terminal
 * event; Sender(1) sends S1_VALUES values; with REENTRANT the observer sends
 * one value from inside the delivery of sender 0's first value.
 *
 * Granularity: every atomic instruction is one step; the futex compare and
 * sleep is one step (the kernel makes it atomic), a wake one step.
 * Memory model: sequential consistency (the C code gets the store-buffering
 * order it needs from seq_cst fences on both sides; see core-algorithm.md).
 *
 * Checked (assertions, and spin's invalid end states: a sender asleep or
 * waiting with nothing left to wake it is a thread that never ends):
 *   - at most LIMIT counted nodes exist at any time;
 *   - every value is delivered exactly once, in per-sender order, and none
 *     after the terminal event; without TERMINAL, every value is delivered;
 *   - no lost wake-up and no deadlock: every sender returns.
 */

#ifndef LIMIT
#define LIMIT 1
#endif
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
#ifndef POLLS
#define POLLS 1
#endif
/* CLOSE_ADMITS: closing moves `freed` forward without first dropping the
 * limit to 0 (a waiter is then let in beside the counted nodes still
 * queued: the bound breaks). The real close drops the limit first. */
#ifndef CLOSE_ADMITS
#define CLOSE_ADMITS 0
#endif

#define IDLE 0
#define BUSY 1
#define CLOSED 2

#define NSEND 3            /* senders 0, 1 and the reentrant one (2) */
#define MAXN 8
/* A node: sender * 16 + seq, plus 128 if counted; TERM_NODE is the terminal. */
#define TERM_NODE 127
#define COUNTED_BIT 128

byte word = IDLE;          /* IDLE, BUSY or CLOSED; `stk` holds the stack */
byte owner = 255;          /* thread holding the word, 255: none */
byte stk[MAXN];
byte stkn = 0;
byte lim = LIMIT;          /* the serial word's `limit`; 0 once closed */
byte tickets = 0;
byte freed = 0;
byte parked = 0;
bool asleep[2];            /* in the futex */
byte counted_live = 0;     /* counted nodes made and not yet freed */
byte next_seq[NSEND];      /* the observer's next expected seq per sender */
byte received = 0;
bool terminated = false;

inline wake_all() {
    atomic { asleep[0] = false; asleep[1] = false }
}

/* flare_serial_return_slots(s, 1): store, fence, load `parked`, wake. */
inline return_slot() {
    freed++;
    if
    :: parked > 0 -> wake_all()
    :: else -> skip
    fi
}

/* flare_serial_reserve for a value (flare_serial_wait when full): sets
 * `counted`, or `gone` if the word was closed while waiting. */
inline reserve() {
    counted = false; gone = false;
    if
    :: owner != me ->
        atomic { t_ticket = tickets; tickets++ };
        polls = 0;
        do
        :: lim != 0 && (t_ticket - freed) < lim -> counted = true; break  /* admitted (signed: freed may be past it) */
        :: else ->
            if
            :: word == CLOSED -> gone = true; break               /* released by the close */
            :: else -> skip
            fi;
            if
            :: polls < POLLS -> polls++                          /* spin / yield */
            :: else ->
                /* park: announce, look again, sleep on the value seen */
                parked++;
                seen = freed;
                if
                :: (lim != 0 && (t_ticket - seen) < lim) || word == CLOSED -> skip
                :: else ->
                    atomic {
                        if
                        :: freed == seen -> asleep[me] = true      /* futex: compare and sleep */
                        :: else -> skip                           /* EAGAIN */
                        fi
                    };
                    !asleep[me]                                   /* until woken */
                fi;
                parked--
            fi
        od
    :: else -> skip                                              /* the holder: never waits */
    fi
}

/* The observer: checks exactly once, FIFO per sender, nothing after the
 * terminal; with REENTRANT, sends (0,0)'s follower from inside. */
inline observe(n) {
    atomic {
        assert(!terminated);
        if
        :: n == TERM_NODE -> terminated = true
        :: else ->
            snd = (n & 127) / 16; seq = (n & 127) % 16;
            assert(seq == next_seq[snd]);
            next_seq[snd]++;
            received++
        fi
    };
    if
    :: REENTRANT && n != TERM_NODE && (n & 127) == 0 ->
        /* sendQueued from the holder: flare_serial_reserve sees that the
         * caller holds the word and returns UNCOUNTED (were it to wait, it
         * would wait for itself: an invalid end state); the push finds the
         * word busy (we hold it) and queues. */
        reserve();
        if
        :: counted -> atomic { counted_live++; assert(counted_live <= LIMIT) }
        :: else -> skip
        fi;
        atomic {
            assert(word == BUSY);
            assert(stkn < MAXN);
            if
            :: counted -> stk[stkn] = 2 * 16 | COUNTED_BIT
            :: else -> stk[stkn] = 2 * 16
            fi;
            stkn++
        }
    :: else -> skip
    fi
}

/* Delivers `n` while holding the word, then drains until released or
 * closed (deliverAndLeave + drain + finishTermination). */
inline hold_and_drain(n) {
    observe(n);
    t = (n == TERM_NODE);
    do
    :: t ->
        /* finishTermination: close (exchange → CLOSED), drop the rest,
         * then return a slot's worth of change to `freed` and wake. */
        atomic {
            /* the exchange: the queued nodes are ours, not yet dropped */
            word = CLOSED; owner = 255;
            hj = 0;
            do
            :: hj < stkn -> assert(nb < MAXN); batch[nb] = stk[hj]; stk[hj] = 0; nb++; hj++
            :: else -> break
            od;
            stkn = 0
        };
        /* then the limit drops to 0 (admitting nobody), `freed` moves
         * forward, and parked senders are woken, before the dropped nodes
         * are freed */
        if
        :: !CLOSE_ADMITS -> lim = 0
        :: else -> skip
        fi;
        return_slot();
        /* the batch already taken: dropped as well */
        do
        :: bi < nb ->
            atomic {
                if
                :: batch[bi] & COUNTED_BIT -> counted_live--
                :: else -> skip
                fi;
                batch[bi] = 0; bi++
            }
        :: else -> break
        od;
        break
    :: !t && bi < nb ->
        atomic { n = batch[bi]; batch[bi] = 0; bi++ };
        if
        :: n & COUNTED_BIT -> counted_live--; return_slot()   /* _EventNode.take, then the slot */
        :: else -> skip
        fi;
        observe(n);
        t = (n == TERM_NODE)
    :: !t && bi >= nb ->
        /* flare_serial_release: clear owner, then CAS BUSY → IDLE or take */
        owner = 255;
        atomic {
            if
            :: stkn == 0 -> word = IDLE; released = true
            :: else ->
                hj = 0;
                do
                :: hj < stkn -> batch[hj] = stk[hj]; stk[hj] = 0; hj++
                :: else -> break
                od;
                nb = stkn; bi = 0; stkn = 0; owner = me; released = false
            fi
        };
        if
        :: released -> break
        :: else -> skip
        fi
    od;
    atomic { bi = 0; nb = 0; t = false; released = false }
}

proctype Sender(byte me; byte nvals; bool terminal) {
    byte k = 0, n, t_ticket, seen, polls, r, hj, bi, nb, snd, seq;
    bool ok, counted, gone, t, released;
    byte batch[MAXN];

    do
    :: k < nvals + terminal ->
        if
        :: k < nvals -> n = me * 16 + k
        :: else -> n = TERM_NODE
        fi;
        k++;
        /* send: flare_serial_try_acquire (owner recorded after the CAS) */
        atomic {
            if
            :: word == IDLE -> word = BUSY; ok = true
            :: else -> ok = false
            fi
        };
        if
        :: ok -> owner = me; hold_and_drain(n); goto next
        :: else -> skip
        fi;
        /* sendQueued */
        if
        :: word == CLOSED -> goto next
        :: else -> skip
        fi;
        counted = false;
        if
        :: n != TERM_NODE ->
            reserve();
            if
            :: gone -> goto next
            :: else -> skip
            fi
        :: else -> skip
        fi;
        /* _EventNode.make: a counted node exists from here on */
        if
        :: counted -> atomic { counted_live++; assert(counted_live <= LIMIT) }
        :: else -> skip
        fi;
        /* flare_serial_push(acquire_if_idle = true) */
        atomic {
            if
            :: word == CLOSED -> r = 3                                /* dropped */
            :: word == IDLE -> word = BUSY; r = 1
            :: else ->
                assert(stkn < MAXN);
                if
                :: counted -> stk[stkn] = n | COUNTED_BIT
                :: else -> stk[stkn] = n
                fi;
                stkn++; r = 0
            fi
        };
        if
        :: r == 1 ->
            owner = me;
            if
            :: counted -> counted_live--; return_slot()   /* _EventNode.take, and the slot back */
            :: else -> skip
            fi;
            hold_and_drain(n)
        :: r == 3 && counted -> counted_live--                       /* destroyEvent */
        :: else -> skip
        fi;
next:
        atomic { n = 0; r = 0; ok = false; counted = false; polls = 0; seen = 0; t_ticket = 0 }
    :: else -> break
    od
}

init {
    atomic {
        run Sender(0, S0_VALUES, TERMINAL);
        run Sender(1, S1_VALUES, false)
    };
    (_nr_pr == 1);
    assert(counted_live == 0 && stkn == 0 && parked == 0);
    assert(!asleep[0] && !asleep[1]);
    if
    :: TERMINAL -> assert(word == CLOSED && terminated)
    :: else ->
        assert(word == IDLE);
        assert(received == S0_VALUES + S1_VALUES + REENTRANT);   /* nothing lost */
        assert(next_seq[0] == S0_VALUES && next_seq[1] == S1_VALUES)
    fi
}
