/*
 * serial.c — the slow halves of the serial word (see flare_serial.h) and
 * of its queue limit (flare_limit.h).
 *
 * Invariant: only the drainer (the thread that moved the word out of IDLE)
 * moves it from a pending stack back to BUSY, to IDLE or to CLOSED. Pushers
 * only ever replace a busy value by a longer stack. So the drainer's
 * exchange loops below can only fail because of pushes, and each retry sees
 * a longer stack: they are lock-free.
 *
 * The waiting half of the queue limit lives here too: a sender that found
 * the queue full spins, yields, then parks on `freed`; the holder of the
 * word wakes it (flare_serial_wake) and closing releases everyone.
 */
#include "flare_limit.h"
#include "flare_serial.h"
#include "flare_trace.h"

#include "futex.h"
#include "waits.h"

#include <sched.h>

/* Reverses a LIFO chain: the stack's top is the newest node. */
static flare_node *reverse(flare_node *n) {
    flare_node *fifo = NULL;
    while (n) {
        flare_node *next = n->next;
        n->next = fifo;
        fifo = n;
        n = next;
    }
    return fifo;
}

/* Replaces the word with `replacement`, returning what it held. A CAS loop:
 * libatomic_ops has no exchange for AO_t. Full ordering: acquire to take the
 * pushers' nodes, release to publish the drainer's work before a release or
 * close. */
static AO_t exchange(flare_serial *s, AO_t replacement) {
    AO_t old = AO_load(&s->word);
    for (;;) {
        AO_t seen = AO_fetch_compare_and_swap_full(&s->word, old, replacement);
        if (seen == old) return old;
        old = seen;
    }
}

flare_node *flare_serial_take(flare_serial *s) {
    /* Called only after the releasing CAS failed, or by the holder that
     * read a stack (flare_serial_take_pushed), so the word holds a stack,
     * and only pushes can change it until we do. We still hold the word:
     * record it again (flare_serial_release cleared it). */
    AO_store(&s->owner, flare_thread_tag());
    return reverse((flare_node *)exchange(s, FLARE_SERIAL_BUSY));
}

flare_node *flare_serial_close(flare_serial *s) {
    FLARE_DRAINER_ONLY(s);
    AO_store(&s->owner, 0);
    AO_t top = exchange(s, FLARE_SERIAL_CLOSED);
    /* Release every waiting sender. First the limit drops to 0, which
     * admits no ticket still waiting (it needs t - freed < 0, and a waiting
     * t is at least `freed` + 1 even after the step below): a sender let in
     * now would make a counted node beside those still queued, which our
     * caller has yet to drop. Then `freed` moves one step forward (we are
     * its last writer: nobody holds the word again), released: a sender
     * that reads the new value (acquire) also sees the word closed and the
     * limit 0, and a parker that read an older value returns from the futex
     * instead of sleeping, since `freed` only ever moves forward (no value
     * comes back); then the same handshake as for a returned slot wakes the
     * parked ones. */
    AO_int_store(&s->limit, 0);
    flare_serial_return_slots(s, 1);
    return top > FLARE_SERIAL_CLOSED ? reverse((flare_node *)top) : NULL;
}

/* ------------------------------------------------------------------------ */
/* Waiting for a slot                                                        */
/* ------------------------------------------------------------------------ */

enum {
    /* Polls with a pause in between before yielding: a slot usually comes
     * back within a few deliveries (the drainer returns them in batches of
     * up to 32), far sooner than a context switch. */
    WAIT_SPINS = 256,
    /* Then sched_yield: lets the drainer run if it shares our core. */
    WAIT_YIELDS = 16,
    /* Spins between two checks for a cycle of waits (waits.h). */
    WAITS_RECHECK = 64,
};

/* How long a parked sender sleeps before it checks for a cycle of waits
 * again (waits.h): a cycle that its first check missed (a stale owner) is
 * found within this time. A slot returned wakes it at once. */
static const long WAITS_SLEEP_NS = 2 * 1000 * 1000;

void flare_serial_wake(flare_serial *s) {
    futex_wake_all(&s->freed);
}

/* Whether ticket `ticket` is admitted, or the word closed (checked after
 * `freed`: a closer changes `freed` after closing the word, so a sender that
 * reads the changed value with acquire also sees the word closed). */
static inline flare_reserve_result admission(flare_serial *s, unsigned int ticket, unsigned int *freed) {
    *freed = AO_int_load_acquire(&s->freed);
    if (flare_serial_admits(ticket, *freed, AO_int_load(&s->limit))) return FLARE_RESERVE_COUNTED;
    if (AO_load(&s->word) == FLARE_SERIAL_CLOSED) return FLARE_RESERVE_CLOSED;
    return FLARE_RESERVE_UNCOUNTED; /* not yet */
}

/* Whether the caller, waiting for ticket `ticket`, should instead queue at
 * once: its wait would close a cycle of waits (waits.h). It keeps its ticket
 * and queues a counted node over the limit: the holder returns that slot
 * when it takes the node, as for any other, so `freed` stays exact and the
 * queue is back under its limit once the cycle's events are drained. */
static inline bool breaks_cycle(flare_serial *s, volatile AO_t *entry) {
    if (!flare_waits_would_cycle(entry, s)) return false;
    AO_fetch_and_add(&s->debug_cycles, 1);
    return true;
}

flare_reserve_result flare_serial_wait(flare_serial *s, unsigned int ticket) {
    AO_fetch_and_add(&s->debug_waits, 1);
    if (FLARE_TRACE_ON(sender_waiting)) flare_trace_sender_waiting(s, ticket);
    volatile AO_t *entry = flare_waits_entry();
    flare_reserve_result r;
    unsigned int freed;
    unsigned int round;
    for (round = 0;; round++) {
        r = admission(s, ticket, &freed);
        if (r != FLARE_RESERVE_UNCOUNTED) break;
        if (round % WAITS_RECHECK == 0 && breaks_cycle(s, entry)) {
            r = FLARE_RESERVE_COUNTED;
            break;
        }
        if (round < WAIT_SPINS) {
            flare_cpu_relax();
        } else if (round < WAIT_SPINS + WAIT_YIELDS) {
            sched_yield();
        } else {
            /* Announce, fence, look again, and sleep only on the value of
             * `freed` we looked at (see flare_serial_return_slots); wake up
             * in time to look for a cycle again. */
            AO_int_fetch_and_add_full(&s->parked, 1);
            AO_nop_full();
            r = admission(s, ticket, &freed);
            if (r == FLARE_RESERVE_UNCOUNTED) {
                AO_fetch_and_add(&s->debug_parks, 1);
                futex_wait_for(&s->freed, freed, WAITS_SLEEP_NS);
            }
            AO_int_fetch_and_add_full(&s->parked, (unsigned int)-1);
            if (r != FLARE_RESERVE_UNCOUNTED) break;
            if (breaks_cycle(s, entry)) {
                r = FLARE_RESERVE_COUNTED;
                break;
            }
        }
    }
    flare_waits_leave(entry);
    /* `round` counts the passes that did not admit: 0 when the first look
     * after the fast path's already did. */
    if (FLARE_TRACE_ON(sender_released)) flare_trace_sender_released(s, ticket, (int)r, round);
    return r;
}

void flare_serial_debug_note_queued(flare_serial *s, long delta) {
    AO_t now = AO_fetch_and_add_full(&s->debug_queued, (AO_t)delta) + (AO_t)delta;
    AO_t peak = AO_load(&s->debug_peak);
    while ((long)now > (long)peak) {
        AO_t seen = AO_fetch_compare_and_swap_full(&s->debug_peak, peak, now);
        if (seen == peak) break;
        peak = seen;
    }
}
