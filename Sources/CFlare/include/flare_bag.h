/*
 * flare_bag.h — a signal's observer bag and lifecycle (part of flare.h).
 *
 * flare_core is a signal's bag: an atomic stack of additions, spliced by the
 * drainer into a drainer-private array that it iterates, compacts and grows
 * alone; and the signal's lifecycle. What it holds are entries, one per
 * attached observer (flare_entry.h). The out-of-line halves are in bag.c.
 */
#ifndef FLARE_BAG_H
#define FLARE_BAG_H

#include <atomic_ops.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flare_debug.h"
#include "flare_entry.h"
#include "flare_node.h"
#include "flare_serial.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Checks that the caller may act as `core`'s drainer (`flare_core_may_deliver`). */
#define FLARE_CORE_DRAINER_ONLY(core) \
    FLARE_DEBUG_CHECK(flare_core_may_deliver(core), "a drainer-only call on a core without holding its serial word")

/* ------------------------------------------------------------------------ */
/* Cores: a signal's bag and lifecycle                                       */
/* ------------------------------------------------------------------------ */

/** Lifecycle of a core. Moves forward only. */
enum {
    FLARE_CORE_ALIVE = 0,
    FLARE_CORE_TERMINATING = 1, /**< the drainer is delivering the terminal event */
    FLARE_CORE_TERMINATED = 2,
};

/** The additions stack once the core has terminated: pushes fail. */
enum { FLARE_ADDS_CLOSED = 1 };

typedef struct flare_core {
    /*
     * Three FLARE_CACHE_LINE blocks (when allocated at such a boundary), by
     * who writes them, so that observers attaching and disposing on other
     * threads do not take away the lines a sender reads for every event.
     */
    /** 0, FLARE_ADDS_CLOSED, or the top entry of a LIFO stack of additions.
     * Written by attachers; the drainer loads it before every event. */
    volatile AO_t adds;
    char pad0[FLARE_CACHE_LINE - sizeof(AO_t)];
    /**
     * Observers attached and not disposed, plus one while the Signal handle
     * exists. Reaching zero means nothing can ever observe the signal again:
     * the owner interrupts it. Written by every observe and dispose.
     */
    volatile AO_t retainers;
    /** ALIVE → TERMINATING → TERMINATED, by CAS. */
    volatile AO_t state;
    /** The signal's name for tracing: 0 or a `flare_trace_label *`
     * (flare_trace.h, T5), pushed by a releasing CAS, read with acquire
     * only by a traced probe, freed by `flare_core_destroy`. Here because
     * this block had room: no delivery reads it untraced. */
    volatile AO_t label;
    char pad1[FLARE_CACHE_LINE - 3 * sizeof(AO_t)];
    /** The domain's serial word: the core's own, or its upstream root's. */
    flare_serial *serial;
    /** 0, or 1 once `interrupted` was sent to this root while a delivery
     * was in progress (`flare_core_request_interrupt`). Written at most
     * once per signal, in the block the drainer reads for every event, so
     * the check costs it nothing. */
    volatile AO_t interrupt;
    /** The thread tag of the thread that initialized the core, until
     * `flare_core_publish`; then 0. While it is set, that thread may act as
     * the core's drainer without holding the word (see
     * `flare_core_may_deliver`). Read by the debug checks and by
     * `flare_core_attach`. */
    volatile AO_t creator;
    /* Drainer-private (touched only while holding `serial`, or after the
     * last reference to the core is gone): */
    flare_entry **items;
    size_t count;
    size_t capacity;
} flare_core;

/** A live core in `serial`'s domain, with one retainer (the handle). */
void flare_core_init(flare_core *c, flare_serial *serial);

/**
 * Ends the creator's exception of `flare_core_may_deliver`: call it once the
 * core may be reached by other threads. A relaxed store: only the creator
 * ever reads its own tag here (as for `owner`).
 */
static inline void flare_core_publish(flare_core *c) { AO_store(&c->creator, 0); }

/**
 * Whether the calling thread may make the drainer's calls on `c`: it holds
 * the domain's serial word, or it created the core and has not published it
 * yet. The second case is a derived signal lifted from one that had
 * already terminated: `observe` interrupts the operator's observer at once
 * on the lifting thread, which forwards `interrupted` to the new core
 * before any other thread can reach it (docs/core-algorithm.md §5).
 * For the debug checks, and for `flare_core_attach` to recognise an attach
 * from inside the terminal event's delivery.
 */
static inline bool flare_core_may_deliver(const flare_core *c) {
    return flare_serial_held_by_caller(c->serial) ||
           AO_load((volatile AO_t *)&c->creator) == flare_thread_tag();
}

/**
 * Releases everything the core still holds, once nothing else can reach it.
 * `release_ctx` is called for each observer context the core still owns.
 */
void flare_core_destroy(flare_core *c, void (*release_ctx)(void *ctx));

/** Result of attaching an entry. */
typedef enum flare_attach_result {
    /** Attached: the entry receives every event delivered from now on. */
    FLARE_ATTACHED = 0,
    /**
     * The core has terminated. The caller claims the entry DONE (which may
     * fail if the terminating drainer got it first) and, if it wins, sends
     * the observer `interrupted` and releases `ctx`.
     */
    FLARE_ATTACH_TERMINATED = 1,
} flare_attach_result;

/**
 * Attaches `e`: pushes it on the additions stack (a CAS, release), where the
 * next event's drainer splices it into the private array. The push fails on a
 * closed stack, so attach and termination are decided by one word: either the
 * terminating drainer's closing exchange takes the entry (and interrupts it),
 * or the attach sees the stack closed. It sees it by an acquire load (or a
 * failed CAS, whose failure ordering is acquire too) reading the drainer's
 * releasing close, so the terminal event's delivery to every observer
 * attached before it happens before the caller interrupts its own observer.
 * The terminating drainer itself (an attach from inside the terminal
 * event's delivery) is refused without pushing: its observer is
 * interrupted at once, before the delivery goes on (contract 5).
 */
flare_attach_result flare_core_attach(flare_core *c, flare_entry *e);

/** Slow half of `flare_core_splice`. */
void flare_core_splice_slow(flare_core *c);

/**
 * Called by the drainer before delivering each event: moves the pending
 * additions, in attach order, to the end of the private array, marking each
 * SPLICED, and drops those already disposed (their disposer has released
 * them: no drain will call them). The common case is one acquire load of an
 * empty stack.
 */
static inline void flare_core_splice(flare_core *c) {
    AO_t top = AO_load_acquire(&c->adds);
    if (top > FLARE_ADDS_CLOSED) flare_core_splice_slow(c);
}

/**
 * Drops the entries that are no longer active from the private array, order
 * preserved. O(count).
 */
void flare_core_compact(flare_core *c);

/**
 * Called by the drainer after an event during which it skipped `dead`
 * entries that are no longer active: if it skipped any, compacts at once.
 * The pass costs no more than the walk that found them (the same entries,
 * just loaded), so a delivery stays O(count), and no event reads an entry
 * that an earlier event found inactive. Waiting until they were half the
 * array made every later event walk them again: with 100 observers and
 * another thread observing and disposing, up to 100 dead entries per event,
 * each a load from memory the disposing thread allocated (see the churn
 * figures in docs/core-algorithm.md).
 */
static inline void flare_core_note_dead(flare_core *c, size_t dead) {
    if (dead != 0) flare_core_compact(c);
}

/** What the caller of `flare_entry_dispose` must do. */
typedef enum flare_dispose_result {
    /** Already disposed or done: nothing. */
    FLARE_DISPOSE_NOOP = 0,
    /** Disposed, no drain can reach the observer: release `ctx` now. */
    FLARE_DISPOSE_RELEASE = 1,
    /** Disposed during a drain: the drainer releases `ctx` when it has moved on. */
    FLARE_DISPOSE_DEFERRED = 2,
} flare_dispose_result;

/**
 * Disposes `e`, attached to `c`. Lock-free, O(1), never waits for a drain.
 *
 * The claim (ACTIVE → DISPOSED) makes every delivery not yet begun skip the
 * entry. Then the observer context may be released only when no drain can
 * still be calling it. If the word the claim replaced was not SPLICED, no
 * drain has the entry in its array, and the drain that splices it will find
 * it disposed and drop it: the result is RELEASE even during a drain, and
 * the serial word is not touched. If the entry is also still the top of the
 * additions, one CAS on `adds` takes it back, so that no drain sees it at
 * all. For a SPLICED entry, the disposer reads the serial word with an RMW
 * (a fetch-and-add of zero), so the read is ordered in the word's
 * modification order with every drainer's acquiring and releasing CAS:
 *   - idle (or closed): the last drain released before our RMW (we acquire
 *     its calls) and the next acquires after it (it sees our claim): release
 *     now;
 *   - busy: push the entry's removal node behind the drainer, who releases
 *     the context when it reaches the node, i.e. after the event in progress.
 */
flare_dispose_result flare_entry_dispose(flare_core *c, flare_entry *e);

/** Adds a retainer (an observer being attached). */
static inline void flare_core_retain(flare_core *c) {
    /* Relaxed: a new retainer is added by someone who already holds one
     * (the handle, or an observer's entry being made), so the count cannot
     * reach zero meanwhile; only atomicity matters, as for any reference
     * count increment. */
    AO_fetch_and_add1(&c->retainers);
}

/** Drops a retainer; true for the caller that dropped the last one. */
static inline bool flare_core_release(flare_core *c) {
    /* acq_rel needed (each retainer's last use happens before the last
     * one's interrupt): libatomic_ops has no acq_rel fetch-and-add, and
     * _full (seq_cst) is the nearest stronger one. */
    return AO_fetch_and_add_full(&c->retainers, (AO_t)-1) == 1;
}

/**
 * Moves ALIVE → TERMINATING. Only one caller wins; it delivers the terminal
 * event to the private array's active entries, drops the array, and then
 * calls `flare_core_seal` once and interrupts what it returns.
 */
static inline bool flare_core_begin_termination(flare_core *c) {
    /* Relaxed: only atomicity decides (one CAS leaves ALIVE). The winner
     * reads nothing the loser wrote: a terminating drainer already holds
     * the serial word, an abandoning thread has dropped the last retainer,
     * and neither touches the other's data after the race. */
    return AO_compare_and_swap(&c->state, FLARE_CORE_ALIVE, FLARE_CORE_TERMINATING) != 0;
}

/**
 * Moves ALIVE → TERMINATED directly, for a derived core that lost its last
 * retainer: it has no observer and no handle, so nothing is delivered and
 * nothing can attach; its array is freed by `flare_core_destroy`. A drain
 * that reaches the core afterwards sees it is not alive and skips it.
 */
static inline bool flare_core_abandon(flare_core *c) {
    /* Relaxed: see flare_core_begin_termination. */
    return AO_compare_and_swap(&c->state, FLARE_CORE_ALIVE, FLARE_CORE_TERMINATED) != 0;
}

static inline bool flare_core_is_alive(const flare_core *c) {
    return AO_load((volatile AO_t *)&c->state) == FLARE_CORE_ALIVE;
}

/**
 * Whether an observer is attached to the core (or being attached, or
 * disposed but not yet dropped): more retainers than the handle. Meaningful
 * only to a caller that keeps the signal's handle alive, so that one
 * retainer is the handle. A sender that finds no observer may skip an event
 * nobody could receive (an `Action` skips its `events` and unobserved
 * property changes).
 *
 * Relaxed: an attach that happens before the load is seen by it (coherence
 * of the counter; `observe` counts the retainer before it returns); an
 * attach concurrent with it may be missed, and the event skipped is then
 * one the observer could equally have missed by attaching a moment later.
 */
static inline bool flare_core_has_observers(const flare_core *c) {
    return AO_load((volatile AO_t *)&c->retainers) > 1;
}

/**
 * `flare_core_has_observers` for a caller that keeps `own` observers of
 * its own attached for as long as it keeps the handle: whether any other
 * observer is (an `Action` feeds its `values`, `errors` and `completed`
 * from the first observer of its `events`). Relaxed, as it.
 */
static inline bool flare_core_has_observers_beyond(const flare_core *c, AO_t own) {
    return AO_load((volatile AO_t *)&c->retainers) > 1 + own;
}

/**
 * Finishes termination; the terminating drainer calls it once, after
 * delivering the terminal event to the spliced entries and dropping the
 * array. In one step it closes the additions stack, marks the core
 * TERMINATED and returns, in attach order, the entries attached since the
 * terminal event's splice (the caller claims each DONE, sends it
 * `interrupted`, releases its context and unrefs it). From then on
 * `flare_core_attach` fails and the attacher interrupts its own observer on
 * its own thread. Returns NULL if nothing was pending (or the stack was
 * already closed).
 *
 * Closing at once bounds the drainer's work by what is pending at that
 * moment: an attacher in a tight loop cannot keep `sendCompleted()` from
 * returning. The price is stated in contract 5: the `interrupted` calls to
 * observers attached after the terminal event began (the chain returned
 * here, and attachers that find the stack closed) are not serialized with
 * one another; every call to an observer attached before it happens before
 * all of them (the close is a release, read with acquire by attachers).
 * One CAS on `adds` decides each race with an attacher, so nothing is lost
 * and nothing is delivered twice.
 */
flare_entry *flare_core_seal(flare_core *c);

/**
 * Prompt interruption (contract 8). A sender of `interrupted` to a root that
 * finds a delivery in progress calls this before it pushes its own node:
 * from then on the drainer delivers `interrupted` before any event still
 * queued, instead of in FIFO order, and drops the rest (their removal nodes
 * are still processed). The delivery in progress finishes first.
 *
 * Ordering: a relaxed store is enough. The store is sequenced before the
 * releasing CAS that pushes the interrupter's node, so a drainer that takes
 * that node (an acquiring exchange) happens after the store and, by
 * write-read coherence, its next `flare_core_interrupt_requested` reads 1:
 * the interrupter's own node can never be reached with the flag unseen.
 * Before that, a drainer may read either value; the interrupt is then
 * concurrent with the event it checks, and either order is a linearization.
 * No data travels with the flag (the event has no payload), so nothing
 * needs to be acquired with it.
 */
static inline void flare_core_request_interrupt(flare_core *c) { AO_store(&c->interrupt, 1); }

/**
 * Checked by a root's drainer before each queued event it takes from the
 * serial word (never on the uncontended path): true once an interrupt was
 * requested. Relaxed: see `flare_core_request_interrupt`.
 */
static inline bool flare_core_interrupt_requested(const flare_core *c) {
    return AO_load((volatile AO_t *)&c->interrupt) != 0;
}

/** Drops the private array's entries (after the terminal event was delivered). */
void flare_core_drop_items(flare_core *c);

/**
 * Checks the invariants of `c` listed at the top of bag.c, as far as the
 * drainer can see them without racing attachers (it does not walk the
 * additions stack, which disposers may retract from): the private array is
 * consistent with its count and capacity, each of its entries is SPLICED,
 * referenced and in a valid state, `adds` is 0, closed or an entry pointer,
 * and a live core's stack is open. Drainer-only. Does nothing without
 * FLARE_DEBUG_CHECKS.
 */
void flare_core_check_invariants(const flare_core *c);

#ifdef __cplusplus
}
#endif

#endif /* FLARE_BAG_H */
