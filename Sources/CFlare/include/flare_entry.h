/*
 * flare_entry.h — one attached observer (part of flare.h).
 *
 * flare_entry is an observer attached to a core's bag (flare_bag.h): its
 * exactly-once state (active → disposed | done), the mark of the drain
 * that moved it into its array, and a reference count for its owners. Its
 * disposal, which decides with the bag's serial word who releases the
 * observer, is `flare_entry_dispose` (flare_bag.h). The out-of-line halves
 * are in bag.c.
 */
#ifndef FLARE_ENTRY_H
#define FLARE_ENTRY_H

#include <atomic_ops.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flare_node.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#endif /* FLARE_ENTRY_H */
