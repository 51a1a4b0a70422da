/*
 * flare_limit.h — the queue limit of a serial word (contract 9; part of
 * flare.h).
 *
 * Its counters live in the serial word's block (flare_serial.h), on the
 * line the word already moves between senders and the drainer. The waiting
 * half (spin, yield, park; closing releases every waiter) is in serial.c;
 * the table of waits, which keeps a wait from closing a cycle of waits, in
 * waits.c.
 */
#ifndef FLARE_LIMIT_H
#define FLARE_LIMIT_H

#include <atomic_ops.h>
#include <stdbool.h>

#include "flare_serial.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What is queued behind a delivery is bounded by `limit` events per domain.
 * A ticket lock's two counters, without the lock: a sender from another
 * thread takes ticket t (`tickets`, fetch-and-add) and may push its node once
 * t - freed < limit; the holder of the word adds to `freed` as it takes
 * counted nodes off the queue. So at most `limit` admitted tickets are not
 * yet returned, and each counted node lives between its ticket's admission
 * and its return: at most `limit` counted nodes exist at any time. Admission
 * is in ticket order, and a sender waits before it pushes, so each sender's
 * own events stay in its program order (FIFO per sender).
 *
 * Never waiting, by construction (no deadlock of a domain with itself):
 *   - a send from the thread that holds the word (a reentrant send, or one
 *     from inside the domain's delivery through an operator): its node is
 *     not counted (`owner` says who holds the word);
 *   - a terminal event, and a removal node: not counted;
 *   - a domain without a limit.
 * A sender that waits spins, then yields, then parks on `freed` (futex /
 * __ulock_wait): the holder wakes parked senders after it returns slots,
 * and `flare_serial_close` releases all of them.
 */

/** Largest queue limit: tickets and slots are compared in wrapping 32-bit
 * arithmetic, which needs outstanding tickets below 2^31. */
#define FLARE_SERIAL_MAX_LIMIT (1u << 30)

/**
 * Sets the queue limit (1 … FLARE_SERIAL_MAX_LIMIT events, or 0 for none)
 * of a word not yet shared with another thread.
 */
static inline void flare_serial_set_limit(flare_serial *s, unsigned int limit) { AO_int_store(&s->limit, limit); }

/**
 * Whether `s` has no queue limit (or no longer has one: closing drops it).
 * Relaxed: the limit is set before the word is shared and only dropped to
 * 0 by `flare_serial_close`, after which nothing is queued. A domain's
 * commands, which must never wait (a property's changes are queued under
 * its gate), go through a batch only when this holds: a batch of a limited
 * word takes credits, and may wait for them.
 */
static inline bool flare_serial_is_unlimited(const flare_serial *s) {
    return AO_int_load((volatile unsigned int *)&s->limit) == 0;
}

/** What `flare_serial_reserve` decided. */
typedef enum flare_reserve_result {
    /** Queue without a slot: the domain has no limit, or the caller holds the word. */
    FLARE_RESERVE_UNCOUNTED = 0,
    /** A slot is the caller's: queue a FLARE_NODE_COUNTED node. */
    FLARE_RESERVE_COUNTED = 1,
    /** The word was closed while the caller waited: drop the event. */
    FLARE_RESERVE_CLOSED = 2,
} flare_reserve_result;

/**
 * Whether ticket `ticket` may queue once `freed` slots were returned: fewer
 * than `limit` tickets before it are outstanding. The difference is signed:
 * later tickets may have been admitted and returned before this one looked
 * (`freed` is then past it), and it must not read that as a huge distance.
 * Wrapping 32-bit arithmetic is exact while fewer than 2^31 tickets are
 * outstanding: at most `limit` (≤ 2^30) admitted plus one per waiting thread.
 */
static inline bool flare_serial_admits(unsigned int ticket, unsigned int freed, unsigned int limit) {
    return limit != 0 && (int)(ticket - freed) < (int)limit; /* 0: closed, nobody */
}

/** Slow half of `flare_serial_reserve`: waits for ticket `ticket`. */
flare_reserve_result flare_serial_wait(flare_serial *s, unsigned int ticket);

/**
 * Called before queueing a value event (the word was found busy): takes a
 * slot of the limit, waiting for one if the queue is full, unless the
 * caller must never wait (no limit; the caller holds the word).
 *
 * Ordering: the ticket's fetch-and-add needs none (it only has to be
 * atomic: tickets are totally ordered by it). The load of `freed` is
 * acquire, pairing with the holder's release store, so the nodes whose
 * slots were returned were freed before this sender allocates its own.
 */
static inline flare_reserve_result flare_serial_reserve(flare_serial *s) {
    if (AO_int_load(&s->limit) == 0 || flare_serial_held_by_caller(s)) return FLARE_RESERVE_UNCOUNTED;
    unsigned int ticket = AO_int_fetch_and_add(&s->tickets, 1);
    unsigned int freed = AO_int_load_acquire(&s->freed);
    /* The limit again, after `freed`: a close drops it to 0 before it moves
     * `freed`, so whoever sees the moved `freed` sees 0 here. */
    if (flare_serial_admits(ticket, freed, AO_int_load(&s->limit))) return FLARE_RESERVE_COUNTED;
    return flare_serial_wait(s, ticket);
}

/**
 * `flare_serial_reserve` for `n` values at once (1 ≤ n ≤ limit), for a
 * batch sender (flare_batch.h, B2) that does not hold the word and found a
 * limit: takes n tickets with one fetch-and-add and waits until the last
 * of them is admitted, so all n are. COUNTED: n slots are the caller's.
 * CLOSED: the word was closed while it waited. Same orderings as
 * `flare_serial_reserve`.
 */
static inline flare_reserve_result flare_serial_reserve_n(flare_serial *s, unsigned int n) {
    unsigned int last = AO_int_fetch_and_add(&s->tickets, n) + n - 1;
    unsigned int freed = AO_int_load_acquire(&s->freed);
    if (flare_serial_admits(last, freed, AO_int_load(&s->limit))) return FLARE_RESERVE_COUNTED;
    return flare_serial_wait(s, last);
}

/** Slow half of `flare_serial_return_slots`: wakes the parked senders. */
void flare_serial_wake(flare_serial *s);

/**
 * Called by the holder of the word (only) to return `n` slots: after it
 * took `n` counted nodes off the queue, or, with n = 1, after a counted
 * sender acquired the word instead of queueing.
 *
 * Ordering: `freed` is written only by holders, which the word's CASes
 * order, so a plain read and a release store update it. Then a full fence
 * and a load of `parked`: with the parker's fence between its increment of
 * `parked` and its load of `freed` (store-buffering with seq_cst fences on
 * both sides), either the parker sees the new `freed`, or we see it parked
 * and wake it; and the futex compares `freed` with the value the parker saw,
 * so a wake that comes before it sleeps makes it return at once.
 */
static inline void flare_serial_return_slots(flare_serial *s, unsigned int n) {
    AO_int_store_release(&s->freed, AO_int_load(&s->freed) + n);
    AO_nop_full();
    if (AO_int_load(&s->parked) != 0) flare_serial_wake(s);
}

/**
 * Counted nodes a drainer takes before it returns their slots (it also
 * returns them at the end of each batch): fewer fences than one per event,
 * and a waiting sender is admitted while the batch is still being delivered.
 */
static inline unsigned int flare_serial_return_batch(const flare_serial *s) {
    unsigned int half = AO_int_load((volatile unsigned int *)&s->limit) / 2;
    return half == 0 ? 1 : half < 32 ? half : 32;
}

/**
 * Debug accounting (for tests; callers do this only in debug builds): a
 * counted node made (+1) or taken off the queue (-1). Tracks the peak.
 */
void flare_serial_debug_note_queued(flare_serial *s, long delta);

/** Peak of counted nodes queued at once (debug accounting). */
static inline long flare_serial_debug_peak(const flare_serial *s) { return (long)AO_load((volatile AO_t *)&s->debug_peak); }

/** Times a sender found the queue full and waited (counted by `flare_serial_wait`). */
static inline long flare_serial_debug_waits(const flare_serial *s) { return (long)AO_load((volatile AO_t *)&s->debug_waits); }

/** Times a waiting sender parked in the kernel (counted by `flare_serial_wait`). */
static inline long flare_serial_debug_parks(const flare_serial *s) { return (long)AO_load((volatile AO_t *)&s->debug_parks); }

/** Times a sender queued over the limit because waiting would have closed a
 *  cycle of waits (counted by `flare_serial_wait`; see waits.h). */
static inline long flare_serial_debug_cycles(const flare_serial *s) { return (long)AO_load((volatile AO_t *)&s->debug_cycles); }

/** The tag of the thread that the thread tagged `tag` waits for, as it last
 *  published it in the table of waits (waits.h), or 0: it is not waiting, or
 *  never waited. For diagnostics: a test that finds a thread stuck tells a
 *  wait for a full queue (the holder it waits for) from anything else. */
AO_t flare_waits_debug_waiting_for(AO_t tag);

/** The serial word of the last wait of the thread tagged `tag` (whether or
 *  not it still waits), or 0. For diagnostics only: the word may be gone
 *  unless the thread is known to be inside that wait. */
AO_t flare_waits_debug_waiting_on(AO_t tag);

/** The counters of `s`'s queue limit, for diagnostics: the word, its
 *  holder's tag, tickets taken, slots returned, the limit and the senders
 *  parked, in that order. */
static inline void flare_serial_debug_state(const flare_serial *s, AO_t out[6]) {
    out[0] = AO_load((volatile AO_t *)&s->word);
    out[1] = AO_load((volatile AO_t *)&s->owner);
    out[2] = AO_int_load((volatile unsigned int *)&s->tickets);
    out[3] = AO_int_load((volatile unsigned int *)&s->freed);
    out[4] = AO_int_load((volatile unsigned int *)&s->limit);
    out[5] = AO_int_load((volatile unsigned int *)&s->parked);
}

#ifdef __cplusplus
}
#endif

#endif /* FLARE_LIMIT_H */
