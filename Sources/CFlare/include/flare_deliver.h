/*
 * flare_deliver.h — the drain protocol's steps for one event (part of
 * flare.h): queueing a send that found the word busy, delivering an event
 * to a core's entries, and delivering a terminal event (flare_late: the
 * entries attached meanwhile, which the terminating drainer interrupts).
 * Draining what was queued is flare_drain.h; the protocol as a whole, step
 * by step, is in flare.h.
 */
#ifndef FLARE_DELIVER_H
#define FLARE_DELIVER_H

#include <stdbool.h>
#include <stdint.h>

#include "flare_bag.h"
#include "flare_entry.h"
#include "flare_limit.h"
#include "flare_node.h"
#include "flare_serial.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Queueing a send that found the word busy                                  */
/* ------------------------------------------------------------------------ */

/** The three kinds of event the protocol tells apart. */
typedef enum flare_event_class {
    FLARE_EVENT_VALUE = 0,
    /** `completed` or `failed`: kept in FIFO order. */
    FLARE_EVENT_TERMINAL = 1,
    /** `interrupted`: overtakes what is queued (contract 8). */
    FLARE_EVENT_INTERRUPTED = 2,
} flare_event_class;

/** `flare_queue_kind`'s verdict when the event must be dropped. */
enum { FLARE_QUEUE_DROP = -1 };

/**
 * Called by a send into root `c` that found the word busy (try_acquire
 * failed), before it makes a node: returns the node's kind
 * (FLARE_NODE_EVENT, or FLARE_NODE_COUNTED if a value took a slot of the
 * queue limit, waiting for one if the queue is full), or FLARE_QUEUE_DROP if
 * the word is closed (the signal terminated: contract 1). For `interrupted`
 * it first requests prompt interruption (`flare_core_request_interrupt`),
 * which the push that follows carries to the drainer. Terminal events never
 * wait.
 */
static inline intptr_t flare_queue_kind(flare_core *c, flare_event_class event) {
    flare_serial *s = c->serial;
    if (flare_serial_peek(s) == FLARE_SERIAL_CLOSED) return FLARE_QUEUE_DROP;
    if (event == FLARE_EVENT_VALUE) {
        switch (flare_serial_reserve(s)) {
        case FLARE_RESERVE_COUNTED:
            return FLARE_NODE_COUNTED;
        case FLARE_RESERVE_CLOSED:
            return FLARE_QUEUE_DROP;
        default:
            return FLARE_NODE_EVENT;
        }
    }
    if (event == FLARE_EVENT_INTERRUPTED) flare_core_request_interrupt(c);
    return FLARE_NODE_EVENT;
}

/**
 * After FLARE_PUSH_ACQUIRED: the sender holds the word and delivers its own
 * event instead of queueing it. Once it has freed the node (whose kind,
 * read before, was `counted`), it gives back the slot the node held.
 */
static inline void flare_serial_return_own_slot(flare_serial *s, bool counted) {
    if (counted) flare_serial_return_slots(s, 1);
}

/* ------------------------------------------------------------------------ */
/* Delivering one event to a core                                            */
/* ------------------------------------------------------------------------ */

/**
 * Before delivering each event to `c`: splices the pending additions into
 * the private array (`flare_core_splice`). Then the caller walks
 * `c->items[0 ..< c->count)` with `flare_entry_observer` (a value), or
 * terminates (`flare_core_begin_termination`, a terminal event). In debug
 * builds, checks that the caller may deliver to `c`.
 */
static inline void flare_core_begin_delivery(flare_core *c) {
    FLARE_CORE_DRAINER_ONLY(c);
    flare_core_splice(c);
}

/**
 * The observer context of `e` to call with a value, or NULL if the entry is
 * no longer active: the caller skips it and counts it dead, and after the
 * walk passes the count to `flare_core_note_dead`. One relaxed load (see
 * `flare_entry_is_active`).
 */
static inline void *flare_entry_observer(const flare_entry *e) {
    if (!flare_entry_is_active(e)) return NULL;
    void *ctx = flare_entry_ctx(e);
    /* Never NULL (flare_entry_new): telling the compiler lets the caller's
     * test of the result be the test of the state, one branch per entry. */
    if (!ctx) __builtin_unreachable();
    return ctx;
}

/**
 * For the terminal event, per entry of the private array (after
 * `flare_core_begin_termination` returned true): claims `e` DONE and
 * returns its context, which the caller now owns: it sends the terminal
 * event and releases the context. NULL if the entry was disposed first.
 */
static inline void *flare_entry_take_done(flare_entry *e) {
    return flare_entry_claim(e, FLARE_ENTRY_DONE) ? flare_entry_ctx(e) : NULL;
}

/**
 * The entries attached while a terminal event was being delivered, which
 * the terminating drainer sends `interrupted` (`flare_late_next`).
 */
typedef struct flare_late {
    /** The rest of the chain the seal returned, in attach order. */
    flare_entry *next;
    /** The entry whose context `flare_late_next` returned last: its
     * reference goes at the next call, once the caller is done with it. */
    flare_entry *done;
} flare_late;

/**
 * After the terminal event reached every entry of the private array: drops
 * the array and seals the core (`flare_core_seal`). Returns the entries
 * attached meanwhile, for `flare_late_next`.
 */
static inline flare_late flare_core_end_termination(flare_core *c) {
    flare_core_drop_items(c);
    flare_late late = {flare_core_seal(c), NULL};
    return late;
}

/**
 * The context of the next late entry, claimed DONE: the caller sends it
 * `interrupted` and releases it, then calls again. Entries disposed first
 * are dropped on the way; NULL once none is left. Each entry's reference
 * (handed over by the seal) is dropped after the caller is done with it, at
 * the next call.
 */
static inline void *flare_late_next(flare_late *l) {
    if (l->done) {
        flare_entry_unref(l->done);
        l->done = NULL;
    }
    while (l->next) {
        flare_entry *e = l->next;
        l->next = e->add_next;
        void *ctx = flare_entry_take_done(e);
        if (ctx) {
            l->done = e;
            return ctx;
        }
        flare_entry_unref(e);
    }
    return NULL;
}

#ifdef __cplusplus
}
#endif

#endif /* FLARE_DELIVER_H */
