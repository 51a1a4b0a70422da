/*
 * flare_bag.h — a signal's observer bag and lifecycle, and its entries
 * (part of flare.h).
 *
 * flare_entry is one attached observer: its exactly-once state (active →
 * disposed | done) and a reference count for its owners. flare_core is a
 * signal's bag: an atomic stack of additions, spliced by the drainer into a
 * drainer-private array that it iterates, compacts and grows alone; and the
 * signal's lifecycle. The out-of-line halves are in bag.c.
 */
#ifndef FLARE_BAG_H
#define FLARE_BAG_H

#include <atomic_ops.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flare_debug.h"
#include "flare_node.h"
#include "flare_serial.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Checks that the caller may act as `core`'s drainer (`flare_core_may_deliver`). */
#define FLARE_CORE_DRAINER_ONLY(core) \
    FLARE_DEBUG_CHECK(flare_core_may_deliver(core), "a drainer-only call on a core without holding its serial word")

/* ------------------------------------------------------------------------ */
/* Entries: one attached observer                                            */
/* ------------------------------------------------------------------------ */

/** Entry states, in the low two bits of `flare_entry.word`. */
enum {
    FLARE_ENTRY_ACTIVE = 0,   /**< receives events */
    FLARE_ENTRY_DISPOSED = 1, /**< removed by its handle; receives nothing more */
    FLARE_ENTRY_DONE = 2,     /**< got its terminal event (or interrupted) */
};
enum {
    FLARE_ENTRY_STATE_MASK = 3,
    /** Set by the drainer that moves the entry into its array, while it is
     * still ACTIVE; never cleared. A drain delivers only to entries it has
     * marked, so one disposed while unmarked can never be called. */
    FLARE_ENTRY_SPLICED = 4,
    FLARE_ENTRY_FLAGS_MASK = 7,
    FLARE_ENTRY_REF = 8,
};

/**
 * One observer attached to a core.
 *
 * `word` = state | SPLICED | refs * 8. The state leaves ACTIVE exactly once,
 * by CAS: whoever wins owns the observer context (`ctx`) from then on and
 * releases it. SPLICED is set, by CAS and only on an ACTIVE entry, when a
 * drain moves the entry into its array: the one word orders it against the
 * claim, so a disposer knows from the word it replaced whether any drain can
 * ever call the observer. The references are the owners of the entry's
 * memory: the bag (from attach until the drainer drops it), the handle (until
 * the Swift disposable is deinitialized) and, while it is pending, the
 * removal node.
 */
typedef struct flare_entry {
    volatile AO_t word;
    /** The next entry in the core's stack of additions; written before the push. */
    struct flare_entry *add_next;
    /**
     * Pushed on the serial word when disposed during a drain. Its `kind`
     * word holds the observer context (`flare_entry_ctx`): a pointer above
     * every node kind (flare_node.h; flare_entry_new checks it). Sharing the
     * word keeps an entry at five words with `owner`. Written once, before
     * the entry is published.
     */
    flare_node removal;
    /** The handle's: opaque to the core, which never reads it (Swift keeps
     * the signal's core there, retained while the handle lives, so that the
     * handle itself is one word). Written before the entry is published. */
    void *owner;
} flare_entry;

/** The observer: opaque to the core, owned as the entry's state says. */
static inline void *flare_entry_ctx(const flare_entry *e) { return (void *)e->removal.kind; }

/** A new ACTIVE entry with two references (the bag's and the handle's).
 * `ctx` must not be NULL; `owner` is the handle's (see `flare_entry`). */
flare_entry *flare_entry_new(void *ctx, void *owner);

/** Drops one reference; frees the entry with the last. */
void flare_entry_unref(flare_entry *e);

/**
 * The delivery check, once per observer per event: a relaxed load. The
 * drainer acts on what it reads only by calling an observer it owns the
 * right to call or by skipping it; it needs no write of another thread to
 * be visible. A thread disposing inside a callback is the drainer itself,
 * so program order makes it skip the entry at once; for one disposing from
 * another thread, contract 4 (docs/contracts.md) allows "at most the
 * delivery already starting": the claim and this load are accesses to one
 * atomic object, so coherence orders them, and a load that does not yet
 * read the claim belongs to a delivery that began before it. Reclamation
 * never relies on this load (see flare_entry_dispose).
 */
static inline bool flare_entry_is_active(const flare_entry *e) {
    return (AO_load((volatile AO_t *)&e->word) & FLARE_ENTRY_STATE_MASK) == FLARE_ENTRY_ACTIVE;
}

/**
 * Whether the entry has left ACTIVE (disposed, or done), for its handle's
 * `isDisposed`: an acquire load, unlike `flare_entry_is_active`. The claim
 * that ended the entry is a releasing CAS, so a thread that sees it sees
 * everything the claimer did before: for a disposal, whatever the disposing
 * thread wrote before calling `dispose()`, as `Disposable` promises.
 */
static inline bool flare_entry_is_claimed(const flare_entry *e) {
    return (AO_load_acquire((volatile AO_t *)&e->word) & FLARE_ENTRY_STATE_MASK) != FLARE_ENTRY_ACTIVE;
}

/**
 * If `e` is ACTIVE, sets the bits `set` (a state, or SPLICED) in its word and
 * returns true with the word it replaced in `*replaced`; otherwise returns
 * false. A CAS loop, lock-free: it retries only when a reference count moved
 * or another flag was set. The CAS is acq_rel (not seq_cst): claims and the
 * splice mark are RMWs on one word, so its modification order orders them,
 * which is what a disposer reads SPLICED for. The first load is relaxed: it
 * only seeds the CAS, and a caller that finds the entry no longer ACTIVE
 * gives up without touching anything.
 */
static inline bool flare_entry_set_if_active(flare_entry *e, AO_t set, AO_t *replaced) {
    AO_t old = AO_load(&e->word);
    for (;;) {
        if ((old & FLARE_ENTRY_STATE_MASK) != FLARE_ENTRY_ACTIVE) return false;
        /* acq_rel (AO's _full CAS): the winner acquires the entry as its
         * publisher left it; a disposer's claim releases what it did
         * before dispose() to `flare_entry_is_claimed` (acquire). */
        AO_t seen = AO_fetch_compare_and_swap_full(&e->word, old, old | set);
        if (seen == old) {
            *replaced = old;
            return true;
        }
        old = seen;
    }
}

/**
 * Moves an ACTIVE entry to `state` (DISPOSED or DONE). Returns true for the
 * one caller that wins: it now owns `ctx`.
 */
static inline bool flare_entry_claim(flare_entry *e, unsigned state) {
    AO_t replaced;
    return flare_entry_set_if_active(e, state, &replaced);
}

/** The entry whose removal node this is. */
static inline flare_entry *flare_entry_of_removal(flare_node *node) {
    return (flare_entry *)((char *)node - offsetof(flare_entry, removal));
}

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

/* ------------------------------------------------------------------------ */
/* Debug accounting                                                          */
/* ------------------------------------------------------------------------ */

/**
 * Entries allocated and not yet freed (for leak tests), or -1 if this build
 * does not count them. Counted only where FLARE_DEBUG_ACCOUNTING is defined
 * (SwiftPM debug builds, the C tests, the fuzzer): the count is one
 * process-wide word that every observe and dispose would otherwise write.
 */
long flare_debug_live_entries(void);

#ifdef __cplusplus
}
#endif

#endif /* FLARE_BAG_H */
