/*
 * bag.c — observer entries and the bag of a core (see flare_entry.h and
 * flare_bag.h).
 *
 * Invariants:
 *  - `adds` is 0, FLARE_ADDS_CLOSED, or the newest entry of a LIFO chain
 *    linked by `add_next`. Attachers push with a releasing CAS; the drainer
 *    takes the whole chain with an acquiring exchange; the terminating
 *    drainer swaps in FLARE_ADDS_CLOSED, after which no push succeeds.
 *  - `items[0 .. count)` are entries in attach order. Only the drainer (the
 *    holder of the domain's serial word) reads or writes them, so they need no
 *    atomics; handing the serial word from drainer to drainer (release, then
 *    acquire) carries them across threads.
 *  - Each entry in `items` or in the `adds` chain holds the bag's reference.
 */
#include "flare_bag.h"
#include "flare_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef FLARE_DEBUG_ACCOUNTING
/* One counter for the whole process: two full-fence RMWs on one shared line
 * per attached observer, so release builds go without it. */
static volatile AO_t live_entries;

long flare_debug_live_entries(void) { return (long)AO_load(&live_entries); }
#define COUNT_ENTRY(delta) AO_fetch_and_add_full(&live_entries, (AO_t)(delta))
#else
long flare_debug_live_entries(void) { return -1; }
#define COUNT_ENTRY(delta) ((void)0)
#endif

void flare_debug_check_failed(const char *what, const char *file, int line) {
    fprintf(stderr, "flare: debug check failed at %s:%d: %s\n", file, line, what);
    abort();
}

void flare_core_check_invariants(const flare_core *c) {
#ifdef FLARE_DEBUG_CHECKS
    FLARE_CORE_DRAINER_ONLY(c);
    FLARE_DEBUG_CHECK(c->count <= c->capacity, "bag: count exceeds capacity");
    FLARE_DEBUG_CHECK((c->items != NULL) == (c->capacity != 0), "bag: items and capacity disagree");
    for (size_t i = 0; i < c->count; i++) {
        const flare_entry *e = c->items[i];
        FLARE_DEBUG_CHECK(e != NULL, "bag: a NULL entry in the private array");
        AO_t word = AO_load((volatile AO_t *)&e->word);
        FLARE_DEBUG_CHECK(word & FLARE_ENTRY_SPLICED, "bag: an entry in the array is not marked SPLICED");
        FLARE_DEBUG_CHECK(word >= FLARE_ENTRY_REF, "bag: an entry in the array has no reference");
        FLARE_DEBUG_CHECK((word & 3) != 3, "bag: an entry in an invalid state");
        FLARE_DEBUG_CHECK(flare_entry_ctx(e) != NULL, "bag: an entry without an observer context");
    }
    AO_t adds = AO_load((volatile AO_t *)&c->adds);
    FLARE_DEBUG_CHECK(adds <= FLARE_ADDS_CLOSED || adds % sizeof(void *) == 0,
                      "bag: the additions word is neither 0, closed, nor an entry");
    AO_t state = AO_load((volatile AO_t *)&c->state);
    FLARE_DEBUG_CHECK(state <= FLARE_CORE_TERMINATED, "core: an invalid lifecycle state");
    FLARE_DEBUG_CHECK(state != FLARE_CORE_ALIVE || adds != FLARE_ADDS_CLOSED,
                      "core: the additions are closed on a live core");
#else
    (void)c;
#endif
}

static void *checked(void *p) {
    if (!p) {
        fputs("flare: out of memory\n", stderr);
        abort();
    }
    return p;
}

flare_entry *flare_entry_new(void *ctx, void *owner) {
    if ((uintptr_t)ctx <= FLARE_NODE_BATCH) { /* a pointer: never a node kind (flare_node.h) */
        fputs("flare: an entry needs a non-NULL observer context\n", stderr);
        abort();
    }
    flare_entry *e = checked(malloc(sizeof *e));
    e->word = FLARE_ENTRY_ACTIVE | 2 * FLARE_ENTRY_REF;
    e->add_next = NULL;
    e->removal.next = NULL;
    e->removal.kind = (uintptr_t)ctx; /* see flare_entry_ctx */
    e->owner = owner;
    COUNT_ENTRY(1);
    return e;
}

void flare_entry_unref(flare_entry *e) {
    /* A seq_cst RMW, of which acquire and release are used: every write to
     * the word is an RMW, so each decrement is in the release sequence the
     * last one reads, and every owner's last use of the entry happens
     * before the free performed by the owner that drops the final
     * reference. */
    AO_t old = AO_fetch_and_add_full(&e->word, (AO_t)0 - FLARE_ENTRY_REF);
    if ((old & ~(AO_t)FLARE_ENTRY_FLAGS_MASK) == FLARE_ENTRY_REF) {
        free(e);
        COUNT_ENTRY(-1);
    }
}

void flare_core_init(flare_core *c, flare_serial *serial) {
    c->serial = serial;
    c->state = FLARE_CORE_ALIVE;
    c->retainers = 1;
    c->adds = 0;
    c->interrupt = 0;
    c->creator = flare_thread_tag();
    c->items = NULL;
    c->count = 0;
    c->capacity = 0;
    c->label = 0;
    if (FLARE_TRACE_ON(signal_created)) flare_trace_signal_created(c);
}

/* Swaps the additions stack for `replacement` (CAS loop; AO has no exchange).
 * acq_rel (AO's _full CAS): every caller acquires the entries it takes; the
 * seal's close also releases the terminal event's deliveries to attachers
 * that find the stack closed. */
static AO_t take_adds(flare_core *c, AO_t replacement) {
    AO_t old = AO_load(&c->adds);
    for (;;) {
        if (old == FLARE_ADDS_CLOSED) return old;
        AO_t seen = AO_fetch_compare_and_swap_full(&c->adds, old, replacement);
        if (seen == old) return old;
        old = seen;
    }
}

/* Reverses an additions chain into attach order. */
static flare_entry *in_attach_order(AO_t top) {
    flare_entry *fifo = NULL;
    flare_entry *e = top > FLARE_ADDS_CLOSED ? (flare_entry *)top : NULL;
    while (e) {
        flare_entry *next = e->add_next;
        /* A disposer's retraction may read `add_next` of the top entry
         * concurrently (its CAS then fails and the value is unused). */
        AO_store((volatile AO_t *)&e->add_next, (AO_t)fifo);
        fifo = e;
        e = next;
    }
    return fifo;
}

flare_attach_result flare_core_attach(flare_core *c, flare_entry *e) {
    /* Acquire: finding the stack closed, the caller goes on to call its own
     * observer (`interrupted`), outside any drain. The close is the
     * terminating drainer's releasing CAS (flare_core_seal), made after it
     * delivered the terminal event to every observer attached before it;
     * reading it with acquire makes every such call happen before ours
     * (contracts 1 and 5
     * (docs/contracts.md)). A relaxed load here let the caller read what the
     * last callbacks wrote without any ordering: on arm64 a stale value. */
    AO_t old = AO_load_acquire(&c->adds);
    /* An attach from inside the terminal event's own delivery (the caller
     * holds the domain's word while the core is TERMINATING: it is that
     * delivery's drainer, in an observer's callback) is refused at once,
     * so that the observer hears `interrupted` before `observe` returns, as
     * in ReactiveSwift: a producer started there whose input is this signal
     * learns that it ended before it starts its next input. The state is
     * the caller's own write (begin_termination, sequenced before the
     * delivery), so a relaxed load reads it; another thread never passes
     * the ownership test and takes the path below. */
    if (AO_load(&c->state) != FLARE_CORE_ALIVE && flare_core_may_deliver(c)) {
        flare_entry_unref(e);
        return FLARE_ATTACH_TERMINATED;
    }
    for (;;) {
        if (old == FLARE_ADDS_CLOSED) {
            /* Never pushed: the bag's reference is dropped here. */
            flare_entry_unref(e);
            return FLARE_ATTACH_TERMINATED;
        }
        e->add_next = old == 0 ? NULL : (flare_entry *)old;
        /* Release: publishes the entry (context, owner, `add_next`) to the drain
         * that takes the stack. Its failure ordering is relaxed, so a failed
         * attempt looks again with acquire: it may find the stack closed. */
        if (AO_fetch_compare_and_swap_release(&c->adds, old, (AO_t)e) == old) {
            if (FLARE_TRACE_ON(observer_attached)) flare_trace_observer_attached(c, e);
            return FLARE_ATTACHED;
        }
        old = AO_load_acquire(&c->adds);
    }
}

static void reserve(flare_core *c, size_t needed) {
    if (needed <= c->capacity) return;
    size_t cap = c->capacity ? c->capacity : 4;
    while (cap < needed) cap *= 2;
    c->items = checked(realloc(c->items, cap * sizeof *c->items));
    c->capacity = cap;
}

void flare_core_splice_slow(flare_core *c) {
    FLARE_CORE_DRAINER_ONLY(c);
    /* Acquire: the attachers' writes to their entries happen before. */
    flare_entry *e = in_attach_order(take_adds(c, 0));
    while (e) {
        flare_entry *next = e->add_next;
        AO_t replaced;
        if (flare_entry_set_if_active(e, FLARE_ENTRY_SPLICED, &replaced)) {
            reserve(c, c->count + 1);
            c->items[c->count++] = e;
        } else {
            /* Disposed before it ever saw an event: its disposer, who saw
             * it unmarked, has released it. */
            flare_entry_unref(e);
        }
        e = next;
    }
    flare_core_check_invariants(c);
}

void flare_core_compact(flare_core *c) {
    FLARE_CORE_DRAINER_ONLY(c);
    size_t kept = 0;
    for (size_t i = 0; i < c->count; i++) {
        flare_entry *e = c->items[i];
        if (flare_entry_is_active(e)) {
            c->items[kept++] = e;
        } else {
            flare_entry_unref(e);
        }
    }
    c->count = kept;
    /* Give memory back after a mass disposal, keeping room to grow. */
    if (c->capacity > 64 && kept * 4 < c->capacity) {
        size_t cap = c->capacity / 2;
        flare_entry **shrunk = realloc(c->items, cap * sizeof *c->items);
        if (shrunk) {
            c->items = shrunk;
            c->capacity = cap;
        }
    }
    flare_core_check_invariants(c);
}

flare_dispose_result flare_entry_dispose(flare_core *c, flare_entry *e) {
    AO_t claimed;
    if (!flare_entry_set_if_active(e, FLARE_ENTRY_DISPOSED, &claimed)) return FLARE_DISPOSE_NOOP;
    /* Once per disposal: only the claim's winner gets here. */
    if (FLARE_TRACE_ON(observer_disposed)) flare_trace_observer_disposed(c, e);
    if (!(claimed & FLARE_ENTRY_SPLICED)) {
        /* No drain has the entry in its array, and none will deliver to it:
         * a splice marks only ACTIVE entries, and our claim came first on
         * the entry's word. Seals and destroy call an entry only after
         * winning a claim, which now fails. So the context is released here,
         * on this thread, even mid-drain, without touching the serial word.
         * Retraction: if the entry is still the top of the additions (the
         * usual case for an observer disposed right after it attached), one
         * CAS takes it back, and the stack's reference is dropped here
         * too: no drain ever sees it. Drains, seals and destroy take the
         * stack only whole, by a CAS or exchange of `adds`, so if ours
         * succeeds the entry is ours. `adds == e` cannot be an ABA: an entry
         * is pushed once, and the caller's handle keeps it from being freed
         * and reused. Otherwise the next splice drops it. */
        if (AO_load(&c->adds) == (AO_t)e) {
            AO_t below = AO_load((volatile AO_t *)&e->add_next);
            /* Relaxed: the CAS only decides who owns the stack's reference
             * (atomicity). It publishes nothing: the entries below were
             * published by their own releasing pushes, and as an RMW this
             * CAS continues their release sequence, so the splice that
             * takes `below` still acquires them. */
            if (AO_compare_and_swap(&c->adds, (AO_t)e, below)) flare_entry_unref(e);
        }
        return FLARE_DISPOSE_RELEASE;
    }
    flare_serial *s = c->serial;
    /* An RMW that changes nothing, so that it is ordered against the
     * drainers' CAS on the same word (see flare_entry_dispose, flare_bag.h). */
    AO_t word = AO_fetch_and_add_full(&s->word, 0); /* acq_rel needed; AO has none for fetch-and-add */
    if (word == FLARE_SERIAL_IDLE || word == FLARE_SERIAL_CLOSED) return FLARE_DISPOSE_RELEASE;
    /* The removal node's reference. Relaxed: taken while the handle's keeps
     * the entry alive, as any reference count increment. */
    AO_fetch_and_add(&e->word, FLARE_ENTRY_REF);
    switch (flare_serial_push(s, &e->removal, false)) {
    case FLARE_PUSH_QUEUED:
        return FLARE_DISPOSE_DEFERRED;
    case FLARE_PUSH_IDLE:
    case FLARE_PUSH_CLOSED:
    case FLARE_PUSH_ACQUIRED:
    default:
        /* The drain ended meanwhile; the push's CAS attempts ordered us after
         * it exactly as the RMW above would have. */
        flare_entry_unref(e);
        return FLARE_DISPOSE_RELEASE;
    }
}

flare_entry *flare_core_seal(flare_core *c) {
    FLARE_CORE_DRAINER_ONLY(c);
    /* One exchange closes the stack and takes what was pushed since the
     * terminal event's splice. Full ordering: acquire takes the attachers'
     * entries (their releasing push CAS); release publishes every call the
     * drain has made into an observer (the terminal event to the spliced
     * ones) to the attachers that find the stack closed (their acquire load
     * or failed CAS). Lock-free: the CAS fails only when a push lands, and
     * after it succeeds no push can, so the drainer's work from here on is
     * the finite chain it took, whatever attachers keep doing. */
    AO_t taken = take_adds(c, FLARE_ADDS_CLOSED);
    if (taken == FLARE_ADDS_CLOSED) return NULL;
    AO_store_release(&c->state, FLARE_CORE_TERMINATED);
    flare_core_check_invariants(c);
    return in_attach_order(taken);
}

/* drop_items without the check: destroy runs with nobody holding the word. */
static void drop_items(flare_core *c) {
    for (size_t i = 0; i < c->count; i++) flare_entry_unref(c->items[i]);
    free(c->items);
    c->items = NULL;
    c->count = 0;
    c->capacity = 0;
}

void flare_core_drop_items(flare_core *c) {
    FLARE_CORE_DRAINER_ONLY(c);
    drop_items(c);
}

void flare_core_destroy(flare_core *c, void (*release_ctx)(void *ctx)) {
    if (FLARE_TRACE_ON(signal_freed)) flare_trace_signal_freed(c);
    flare_trace_free_labels(c, release_ctx);
    flare_entry *late = in_attach_order(take_adds(c, FLARE_ADDS_CLOSED));
    for (size_t i = 0; i < c->count; i++) {
        flare_entry *e = c->items[i];
        if (flare_entry_claim(e, FLARE_ENTRY_DONE) && release_ctx) release_ctx(flare_entry_ctx(e));
    }
    drop_items(c);
    while (late) {
        flare_entry *next = late->add_next;
        if (flare_entry_claim(late, FLARE_ENTRY_DONE) && release_ctx) release_ctx(flare_entry_ctx(late));
        flare_entry_unref(late);
        late = next;
    }
}
