/*
 * flare_drain.h — draining a serial word's queue (part of flare.h): the
 * drainer's position in the nodes it took from the word (flare_drain), and
 * the protocol's steps that walk them: the drain loop, the drain in place
 * (the holder, from inside a delivery) and the finish after the close. The
 * steps for one event are in flare_deliver.h; the protocol as a whole,
 * step by step, is in flare.h.
 */
#ifndef FLARE_DRAIN_H
#define FLARE_DRAIN_H

#include <stdbool.h>

#include "flare_bag.h"
#include "flare_batch.h"
#include "flare_entry.h"
#include "flare_limit.h"
#include "flare_node.h"
#include "flare_serial.h"
#include "flare_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Draining the queue                                                        */
/* ------------------------------------------------------------------------ */

/** What the drainer does next (`flare_drain_next`, `flare_drain_next_closed`). */
typedef enum flare_drain_action {
    /** Take the event out of `node`, free the node, call `flare_drain_taken`,
     * deliver the event; if it terminated the root, finish termination. */
    FLARE_DRAIN_DELIVER = 0,
    /** A removal: release `ctx`, a disposed observer's context that no drain
     * can call any more (the entry is already dropped). */
    FLARE_DRAIN_RELEASE = 1,
    /** An interrupt was requested (contract 8): drop the event in `node`
     * (free it), deliver `interrupted` now, and finish termination. */
    FLARE_DRAIN_INTERRUPT = 2,
    /** After the close: drop the event in `node` (sent after the terminal
     * one) and free the node. */
    FLARE_DRAIN_DROP = 3,
    /** `flare_drain_next`: the word is released, the drain is over.
     * `flare_drain_next_closed`: nothing is left; end the lifetime. */
    FLARE_DRAIN_END = 4,
    /** As DELIVER, for an event in a batch's slot (flare_batch.h): move it
     * out of `slot` (the slot is not freed), call `flare_drain_taken`,
     * deliver. */
    FLARE_DRAIN_DELIVER_SLOT = 5,
    /** As DROP, for an event in a batch's slot: destroy it in `slot`. */
    FLARE_DRAIN_DROP_SLOT = 6,
    /** `flare_drain_next_in_place`: the next step must wait for the drain
     * that follows the delivery in progress; nothing was done. */
    FLARE_DRAIN_STOP = 7,
} flare_drain_action;

/**
 * A drainer's position in the nodes it took from the serial word: a local
 * of the draining function, touched only through the functions below.
 */
typedef struct flare_drain {
    flare_serial *serial;
    /** The root whose word this is (for the interrupt check). */
    const flare_core *core;
    /** The rest of the current batch, FIFO. */
    flare_node *next;
    /** After `flare_drain_close`: what the closing exchange took. */
    flare_node *closed;
    /** The node of the last DELIVER, INTERRUPT or DROP; NULL after an
     * INTERRUPT that came before a batch's slot (nothing to drop: the slot
     * stays queued, and the termination drops it). */
    flare_node *node;
    /** The slot of the last DELIVER_SLOT or DROP_SLOT. */
    void *slot;
    /** When `next` is a batch: its slots delivered (or dropped), and the
     * count last read from its state (D1). */
    unsigned int bi, bn;
    /** The context of the last RELEASE. */
    void *ctx;
    /** Counted nodes taken whose slots are not yet returned, the group
     * they are returned in, and whether the last DELIVER was counted. */
    unsigned int taken, group;
    /** Events taken for delivery since the drain began (wrapping): what
     * drain_ended reports (flare_trace.h). */
    unsigned int delivered;
    bool counted;
} flare_drain;

/**
 * Starts draining root `c`'s word from `first`, the nodes that
 * `flare_serial_release` returned (NULL for a drainer that only finishes a
 * termination), and publishes `d` as the holder's drain state
 * (`flare_drain_current`) until the word is released or closed: `d` must
 * stay where it is until then, or be published again where it moved.
 */
static inline void flare_drain_begin(flare_drain *d, const flare_core *c, flare_node *first) {
    FLARE_DRAINER_ONLY(c->serial);
    d->serial = c->serial;
    d->core = c;
    d->next = first;
    d->closed = NULL;
    d->node = NULL;
    d->slot = NULL;
    d->ctx = NULL;
    /* A batch at the head was left unfinished by an interrupt (its `done`),
     * or is fresh (0). */
    d->bi = d->bn = first && flare_node_is_batch(first) ? ((flare_batch *)first)->done : 0;
    d->taken = 0;
    d->delivered = 0;
    d->group = flare_serial_return_batch(c->serial);
    d->counted = false;
    c->serial->drain = d;
}

/**
 * The drain state of `s`'s holder while it may hold events taken from the
 * word behind the one it delivers (the drain loop's, from
 * `flare_drain_begin` until the word is released or closed), else NULL:
 * what a drain in place resumes (`flare_drain_next_in_place`). Holder only.
 */
static inline flare_drain *flare_drain_current(flare_serial *s) {
    FLARE_DRAINER_ONLY(s);
    return s->drain;
}

/**
 * Makes `d` the holder's drain state (`flare_drain_current`): a state moved
 * to another place, to outlive the frame that began it; NULL withdraws the
 * current one, once it holds nothing. Holder only.
 */
static inline void flare_drain_publish(flare_serial *s, flare_drain *d) {
    FLARE_DRAINER_ONLY(s);
    s->drain = d;
}

/**
 * Removal node `node`: drops the node's reference to its entry and returns
 * the context the disposer handed over. The drain has moved past every
 * delivery that could call it (§4), so the caller releases it.
 */
static inline void *flare_drain_removal(flare_node *node) {
    flare_entry *e = flare_entry_of_removal(node);
    void *ctx = flare_entry_ctx(e);
    flare_entry_unref(e);
    return ctx;
}

/**
 * Takes the next node of the batch in progress, FIFO, or returns NULL when
 * the batch is done. A removal node is completed at once: `d->node` is NULL
 * and `d->ctx` the context to release (RELEASE). Otherwise `d->node` is the
 * event's node. Shared by `flare_drain_next` and `flare_drain_next_closed`.
 */
static inline flare_node *flare_drain_pop(flare_drain *d) {
    flare_node *n = d->next;
    if (!n) return NULL;
    d->next = n->next;
    if (flare_node_is_removal(n)) {
        d->node = NULL;
        d->ctx = flare_drain_removal(n);
    } else {
        d->node = n;
    }
    return n;
}

/**
 * D1–D2 for the batch `b` at the head of the drain: whether a slot is left
 * to deliver (`d->bi` < `d->bn`, re-reading the count when caught up, up to
 * FLARE_SEAL_SPINS more times, a pause apart), or `b` is sealed and done
 * (false): then its unused credits join those to return (I7), and the
 * caller moves past it (`flare_drain_leave_batch`). The load of the state
 * is acquire, pairing with the sender's release CAS (B4) or push (B5): the
 * slots below the count it reads hold their events. The seal is a full
 * CAS: acquire for the same reason, release so that the drainer's reads of
 * the slots come before a sender that sees the seal.
 */
static inline bool flare_drain_batch_more(flare_drain *d, flare_batch *b) {
    if (d->bi < d->bn) return true;
    unsigned int reads = 0;
    for (;;) {
        AO_t st = AO_load_acquire(&b->state);
        unsigned int count = flare_batch_count(st);
        if (count > d->bi) {
            d->bn = count;
            return true;
        }
        if (reads++ < FLARE_SEAL_SPINS) {
            flare_cpu_relax();
            continue;
        }
        if (AO_compare_and_swap_full(&b->state, st, st | FLARE_BATCH_SEALED)) {
            if (b->counted) d->taken += flare_batch_credits(st) - count;
            return false;
        }
    }
}

/** D3: past the sealed batch `b` at the head; drops the drainer's reference.
 * `d->bi` is then the number of its events delivered (or dropped): what
 * batch_handed reports. */
static inline void flare_drain_leave_batch(flare_drain *d, flare_batch *b) {
    if (FLARE_TRACE_ON(batch_handed)) flare_trace_batch_handed(d->serial, b, d->bi);
    d->next = b->node.next;
    d->bi = d->bn = 0;
    flare_batch_unref(b);
}

/**
 * `flare_drain_next` and `flare_drain_next_in_place`: the step, with what it
 * does once nothing taken is left (`in_place`: take what was pushed since,
 * keeping the word; else release it or take what was pushed), and, in
 * place, where it stops (FLARE_DRAIN_STOP, see `flare_drain_next_in_place`;
 * `keep` is the owner word of the entries whose removal it leaves alone).
 */
static inline flare_drain_action flare_drain_step(flare_drain *d, bool in_place, const void *keep) {
    for (;;) {
        /* In place, a requested interruption is left to the drain that
         * follows the delivery in progress, before any other step. */
        if (in_place && d->next && flare_core_interrupt_requested(d->core)) return FLARE_DRAIN_STOP;
        if (d->next && flare_node_is_batch(d->next)) {
            flare_batch *b = (flare_batch *)d->next;
            if (!flare_drain_batch_more(d, b)) {
                flare_drain_leave_batch(d, b);
                continue;
            }
            if (flare_core_interrupt_requested(d->core)) {
                if (in_place) return FLARE_DRAIN_STOP;
                /* The termination goes on from this slot (flare_drain_begin). */
                b->done = d->bi;
                d->node = NULL;
                return FLARE_DRAIN_INTERRUPT;
            }
            d->slot = flare_batch_slot(b, d->bi++);
            d->counted = b->counted;
            return FLARE_DRAIN_DELIVER_SLOT;
        }
        if (in_place && d->next && flare_node_is_removal(d->next) &&
            flare_entry_of_removal(d->next)->owner == keep)
            return FLARE_DRAIN_STOP;
        flare_node *n = flare_drain_pop(d);
        if (n) {
            if (!d->node) return FLARE_DRAIN_RELEASE;
            if (flare_core_interrupt_requested(d->core)) {
                if (in_place) {
                    d->next = n; /* back: the check above raced with the request */
                    return FLARE_DRAIN_STOP;
                }
                return FLARE_DRAIN_INTERRUPT;
            }
            d->counted = flare_node_is_counted(n);
            return FLARE_DRAIN_DELIVER;
        }
        if (d->taken != 0) {
            flare_serial_return_slots(d->serial, d->taken);
            d->taken = 0;
        }
        if (in_place) {
            d->next = flare_serial_take_pushed(d->serial);
            if (!d->next) return FLARE_DRAIN_END;
        } else {
            /* Withdrawn while this thread still holds the word: the next
             * holder publishes its own. */
            d->serial->drain = NULL;
            d->next = flare_serial_release(d->serial);
            if (!d->next) {
                if (FLARE_TRACE_ON(drain_ended)) flare_trace_drain_ended(d->serial, d->delivered);
                return FLARE_DRAIN_END;
            }
            d->serial->drain = d;
        }
    }
}

/**
 * The drain loop's step: what to do with the next queued node, FIFO, taking
 * the next batch from the word (`flare_serial_release`) when this one is
 * done, until the word is released (FLARE_DRAIN_END). An `interrupted` sent
 * meanwhile overtakes every event still queued: the check before each
 * queued event is where a delivery begins (contract 8). Before it releases
 * or takes a batch, it returns the slots of the counted nodes taken so far,
 * so that nothing is owed once the word is released.
 */
static inline flare_drain_action flare_drain_next(flare_drain *d) { return flare_drain_step(d, false, NULL); }

/**
 * Drain in place: the step for a holder that, from inside the delivery of
 * one event, delivers what is queued behind it before it goes on with that
 * delivery (flatten's funnel, while an inner it starts sends: see
 * `_FlattenEngine.queueStartingEvent`). The verdicts of `flare_drain_next`,
 * in its order, from the same drain state (the drain loop's own when the
 * holder is in one), taking what was pushed since when nothing taken is
 * left (`flare_serial_take_pushed`): FLARE_DRAIN_END when nothing is queued
 * any more, the word still held (BUSY), and the delivery goes on.
 *
 * It never ends anything that the delivery in progress may be using:
 * FLARE_DRAIN_STOP, with the node still at the head of `d` (nothing done),
 * before an interruption (`flare_core_interrupt_requested`: the
 * termination walks and ends the bag) and before the removal of an entry
 * whose owner word is `keep` (releasing its context could free the
 * observer being called: the caller passes the owner of the bag whose
 * delivery is on its stack). The caller then leaves what `d` holds to the
 * drain that follows the delivery in progress. The same goes for a
 * terminal event, which the caller puts back (`flare_drain_put_back`).
 * Other removals are completed (RELEASE): none of their observers is being
 * called.
 *
 * It adds no step to the protocol: taking what was pushed while holding
 * the word is the take of `flare_serial_release`'s slow half, made at
 * another moment; batches taken are sealed before the word is released, by
 * this loop or the outer one (I3, flare_batch.h).
 */
static inline flare_drain_action flare_drain_next_in_place(flare_drain *d, const void *keep) {
    return flare_drain_step(d, true, keep);
}

/**
 * After FLARE_DRAIN_DELIVER from `flare_drain_next_in_place`, before the
 * event is taken out of `d->node`: puts the node back at the head of `d`,
 * for the drain that follows the delivery in progress (a terminal event:
 * see `flare_drain_next_in_place`).
 */
static inline void flare_drain_put_back(flare_drain *d) {
    d->next = d->node;
    d->node = NULL;
}

/**
 * After DELIVER, once the caller has freed the node and before it delivers
 * the event: the slot a counted node held is returned, in groups of
 * `flare_serial_return_batch` (fewer fences than one per event, and a
 * waiting sender is admitted while the batch is still being delivered).
 * The node is freed first, so at most `limit` counted nodes exist at once.
 */
static inline void flare_drain_taken(flare_drain *d) {
    d->delivered++;
    if (d->counted && ++d->taken >= d->group) {
        flare_serial_return_slots(d->serial, d->taken);
        d->taken = 0;
    }
}

/**
 * After the root delivered its terminal event (or `interrupted`, after
 * INTERRUPT): closes the serial word for good (`flare_serial_close`), which
 * releases every waiting sender, so the slots still owed are not returned.
 * Then call `flare_drain_next_closed` until FLARE_DRAIN_END.
 */
static inline void flare_drain_close(flare_drain *d) {
    d->serial->drain = NULL;
    d->closed = flare_serial_close(d->serial);
    d->taken = 0;
}

/**
 * After `flare_drain_close`: the rest of the batch in progress, then what
 * the close took, FIFO. Events sent after the terminal one are dropped
 * (DROP); removals are still completed (RELEASE); FLARE_DRAIN_END when
 * nothing is left, after which the caller ends the generator's lifetime.
 */
static inline flare_drain_action flare_drain_next_closed(flare_drain *d) {
    for (;;) {
        if (d->next && flare_node_is_batch(d->next)) {
            /* A sender may still append until the seal; what it appends is
             * dropped here, what it sends after the seal finds the word closed. */
            flare_batch *b = (flare_batch *)d->next;
            if (!flare_drain_batch_more(d, b)) {
                flare_drain_leave_batch(d, b);
                continue;
            }
            d->slot = flare_batch_slot(b, d->bi++);
            d->counted = b->counted;
            return FLARE_DRAIN_DROP_SLOT;
        }
        if (flare_drain_pop(d)) return d->node ? FLARE_DRAIN_DROP : FLARE_DRAIN_RELEASE;
        if (!d->closed) return FLARE_DRAIN_END;
        d->next = d->closed;
        d->closed = NULL;
    }
}

#ifdef __cplusplus
}
#endif

#endif /* FLARE_DRAIN_H */
