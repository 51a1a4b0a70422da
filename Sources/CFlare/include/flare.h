/*
 * flare.h — the lock-free core of Flare.
 *
 * Three structures, each with its invariants and memory orderings stated next
 * to the code (docs/core-algorithm.md has the whole argument):
 *
 *   flare_serial  one word that serializes delivery for a signal and every
 *                 signal derived from it (a "domain"): idle, busy (a drainer
 *                 is delivering), busy with a LIFO stack of pending nodes, or
 *                 closed (the root terminated).
 *   flare_core    a signal's observer bag and lifecycle: an atomic stack of
 *                 additions, spliced by the drainer into a drainer-private
 *                 array that it iterates, compacts and grows alone.
 *   flare_entry   one attached observer: its exactly-once state (active →
 *                 disposed | done) and a reference count for its owners.
 *
 * Every hot-path function is `static inline` so Swift inlines it. The event
 * payloads and the calls into observers live in the caller (Swift, or the C
 * test client): the core never calls back into an observer itself. What the
 * caller does between those calls is decided by the drain protocol's steps,
 * flare_drain.h (included at the end of this header).
 *
 * Atomics are libatomic_ops' (MIT core only). Double-width CAS is never used,
 * so the header means the same with or without -mcx16.
 *
 * Who may call what. Three roles, and what may run concurrently:
 *
 *   any thread, at any time (concurrently with everything below):
 *     flare_serial_try_acquire, flare_serial_push, flare_serial_reserve,
 *     flare_serial_wait, flare_serial_peek, flare_serial_is_idle_acquire,
 *     flare_serial_held_by_caller,
 *     flare_entry_new, flare_entry_unref (one call per reference held),
 *     flare_entry_dispose, flare_entry_is_claimed, flare_core_attach,
 *     flare_core_retain, flare_core_release, flare_core_abandon (the caller
 *     that dropped the last retainer), flare_core_request_interrupt,
 *     flare_core_is_alive, flare_node_alloc, flare_node_free,
 *     flare_queue_kind (flare_drain.h), and flare_entry_claim by an
 *     attacher on its own entry that flare_core_attach refused.
 *
 *   the drainer: the thread holding the domain's serial word (from a
 *   successful try_acquire or an ACQUIRED push until flare_serial_release
 *   returns NULL or flare_serial_close returns). At most one thread per
 *   domain; its calls run concurrently with the first group only:
 *     flare_core_splice, flare_core_splice_slow, flare_core_compact,
 *     flare_core_note_dead, flare_core_begin_termination, flare_core_seal,
 *     flare_core_drop_items, flare_core_interrupt_requested,
 *     flare_core_check_invariants, flare_entry_is_active and
 *     flare_entry_claim on entries of its private arrays,
 *     flare_serial_release, flare_serial_take, flare_serial_close,
 *     flare_serial_return_slots, flare_serial_return_batch,
 *     flare_serial_debug_note_queued; and the drain protocol's steps in
 *     flare_drain.h (flare_serial_return_own_slot,
 *     flare_core_begin_delivery, flare_entry_observer,
 *     flare_entry_take_done, flare_core_end_termination, flare_late_next,
 *     flare_drain_begin, flare_drain_next, flare_drain_removal,
 *     flare_drain_taken, flare_drain_close, flare_drain_next_closed).
 *
 *   the last owner, once no other thread can reach the structure:
 *     flare_serial_init, flare_serial_set_limit (before the word is
 *     shared), flare_core_init, flare_core_destroy.
 *
 * In builds with FLARE_DEBUG_CHECKS (the package's debug configuration and
 * every CMake build of the C tests), the drainer-only functions that are
 * compiled out of line check that the caller holds the word, and the steps
 * that change a bag (splice, compact, seal) check its invariants
 * (flare_core_check_invariants) before they return; a failed check prints
 * what and where, and aborts. Release builds compile the checks out.
 */
#ifndef FLARE_H
#define FLARE_H

#include <atomic_ops.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Prints a failed debug check (`what`, at `file`:`line`) and aborts. */
void flare_debug_check_failed(const char *what, const char *file, int line);

#ifdef FLARE_DEBUG_CHECKS
#define FLARE_DEBUG_CHECK(cond, what) ((cond) ? (void)0 : flare_debug_check_failed(what, __FILE__, __LINE__))
#else
#define FLARE_DEBUG_CHECK(cond, what) ((void)0)
#endif

/** Checks that the caller holds `serial` (debug builds; see above). */
#define FLARE_DRAINER_ONLY(serial) \
    FLARE_DEBUG_CHECK(flare_serial_held_by_caller(serial), "a drainer-only call without holding the serial word")

/** Checks that the caller may act as `core`'s drainer (`flare_core_may_deliver`). */
#define FLARE_CORE_DRAINER_ONLY(core) \
    FLARE_DEBUG_CHECK(flare_core_may_deliver(core), "a drainer-only call on a core without holding its serial word")

/* ------------------------------------------------------------------------ */
/* Queue nodes                                                               */
/* ------------------------------------------------------------------------ */

/**
 * The kind of an event node: EVENT for one that holds no slot of the queue
 * limit (a reentrant send, a terminal event, a domain without a limit),
 * COUNTED for one whose sender was admitted by `flare_serial_reserve` (the
 * drainer returns its slot with `flare_serial_return_slots`). Any other kind
 * is the removal node of an entry disposed while a drain was running: its
 * kind word is the entry's observer context, a pointer, never 0 or 1 (see
 * `flare_entry`).
 */
enum { FLARE_NODE_EVENT = 0, FLARE_NODE_COUNTED = 1 };

/**
 * A pending item. `next` is written by the pusher before the CAS that
 * publishes the node (release) and read by the drainer after the CAS that
 * takes the stack (acquire); nobody else touches it.
 */
typedef struct flare_node {
    struct flare_node *next;
    uintptr_t kind;
} flare_node;

/** Whether `node` is an entry's removal node rather than an event. */
static inline bool flare_node_is_removal(const flare_node *node) { return node->kind > FLARE_NODE_COUNTED; }

/** Whether `node` is an event that holds a slot of the queue limit. */
static inline bool flare_node_is_counted(const flare_node *node) { return node->kind == FLARE_NODE_COUNTED; }

/* ------------------------------------------------------------------------ */
/* The serial word                                                           */
/* ------------------------------------------------------------------------ */

/**
 * States of a serial word. Any other value is a pointer to the top of a LIFO
 * stack of pending nodes, and also means busy.
 *
 * Transitions (all by CAS on the one word, so they are totally ordered):
 *   IDLE  → BUSY          a sender or drainer acquires (try_acquire, push)
 *   BUSY  → node          a pusher queues behind the drainer
 *   node  → node'         another pusher
 *   node  → BUSY          the drainer takes every pending node (release)
 *   BUSY  → IDLE          the drainer finds nothing pending and leaves
 *   any busy → CLOSED     the drainer delivered a terminal event (close)
 * Only the drainer moves the word out of a busy state, so exactly one thread
 * is delivering whenever the word is busy: that is the serialization.
 */
enum {
    FLARE_SERIAL_IDLE = 0,
    FLARE_SERIAL_BUSY = 1,
    FLARE_SERIAL_CLOSED = 2,
};

/**
 * Alignment and size of a block that keeps words written by different
 * threads from interfering: 128 bytes. Lines are 64 bytes on x86-64, but its
 * cores' adjacent-line prefetcher fetches them in 128-byte pairs, so a write
 * to one line of a pair still costs a reader of the other; Apple's arm64
 * cores have 128-byte lines.
 */
#define FLARE_CACHE_LINE 128

/**
 * Fills a block of its own (when allocated at a FLARE_CACHE_LINE boundary):
 * every send writes it twice, and nothing else should move with it between
 * cores. (Padding, not _Alignas: Swift does not import over-aligned C
 * structs.) Besides the word, the block holds the drainer's identity and the
 * queue limit's counters (contract 9, "The queue limit" below): a queued send
 * writes the word and `tickets`, the drainer the word and `freed`, so one
 * line moves between them, as before.
 */
typedef struct flare_serial {
    volatile AO_t word;
    /** `flare_thread_tag()` of the thread holding the word, or 0. Written
     * only by the holder: after its acquiring CAS, and cleared before its
     * releasing one. */
    volatile AO_t owner;
    /** Admission tickets taken by limited senders (wrapping). */
    volatile unsigned int tickets;
    /** Slots returned by the holder (wrapping); also the futex word that
     * parked senders wait on. Written only by the word's holder. */
    volatile unsigned int freed;
    /** Senders parked (or about to park) on `freed`. */
    volatile unsigned int parked;
    /** Events that may be queued behind a delivery, or 0: no limit. Set
     * before the word is shared; dropped to 0 by `flare_serial_close` (so
     * that closing admits nobody), before its release store of `freed`. */
    volatile unsigned int limit;
    /** Accounting for tests (`flare_serial_debug_*`): counted events
     * queued and their peak (written only by debug callers), and the times
     * a sender waited, parked, and queued at once instead because its wait
     * would have closed a cycle of waits (written by `flare_serial_wait`,
     * on its slow path). Always present, so the layout is the same in every
     * build. */
    volatile AO_t debug_queued;
    volatile AO_t debug_peak;
    volatile AO_t debug_waits;
    volatile AO_t debug_parks;
    volatile AO_t debug_cycles;
    char pad[FLARE_CACHE_LINE - 7 * sizeof(AO_t) - 4 * sizeof(unsigned int)];
} flare_serial;

/** An idle serial word without a queue limit. */
static inline void flare_serial_init(flare_serial *s) {
    AO_store(&s->word, FLARE_SERIAL_IDLE);
    AO_store(&s->owner, 0);
    AO_int_store(&s->tickets, 0);
    AO_int_store(&s->freed, 0);
    AO_int_store(&s->parked, 0);
    AO_int_store(&s->limit, 0);
    AO_store(&s->debug_queued, 0);
    AO_store(&s->debug_peak, 0);
    AO_store(&s->debug_waits, 0);
    AO_store(&s->debug_parks, 0);
    AO_store(&s->debug_cycles, 0);
}

/** Largest queue limit: tickets and slots are compared in wrapping 32-bit
 * arithmetic, which needs outstanding tickets below 2^31. */
#define FLARE_SERIAL_MAX_LIMIT (1u << 30)

/**
 * Sets the queue limit (1 … FLARE_SERIAL_MAX_LIMIT events, or 0 for none)
 * of a word not yet shared with another thread.
 */
static inline void flare_serial_set_limit(flare_serial *s, unsigned int limit) { AO_int_store(&s->limit, limit); }

/**
 * A word that identifies the calling thread among the live threads, never 0:
 * the thread pointer (one instruction) on Linux, `pthread_self()` elsewhere
 * (Darwin's arm64 user thread pointer is TPIDRRO_EL0, which the builtin does
 * not read; only Linux is tested here).
 */
static inline AO_t flare_thread_tag(void) {
#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
    return (AO_t)__builtin_thread_pointer() | 1;
#else
    return (AO_t)pthread_self() | 1;
#endif
}

/**
 * Acquires an idle serial word. On success the caller is the drainer: it
 * delivers and must then call `flare_serial_release` until it returns NULL.
 *
 * Ordering: the CAS is acquire, so the new drainer sees everything the
 * previous drainer did before its releasing CAS (observer and operator state,
 * the bag's private array). It is also the synchronization point for
 * disposers (see flare_entry_dispose). Then the holder records itself in
 * `owner` (relaxed: see `flare_serial_held_by_caller`), a store to the line
 * the CAS has just taken.
 */
static inline bool flare_serial_try_acquire(flare_serial *s) {
    /* Acquire, not acq_rel: writing BUSY publishes nothing (a disposer that
     * reads it only pushes a node), and as an RMW it continues the release
     * sequence of the previous drainer's release either way. */
    if (!AO_compare_and_swap_acquire(&s->word, FLARE_SERIAL_IDLE, FLARE_SERIAL_BUSY)) return false;
    AO_store(&s->owner, flare_thread_tag());
    return true;
}

/** What `flare_serial_push` did. */
typedef enum flare_push_result {
    /** The node is pending; the current drainer will take it. */
    FLARE_PUSH_QUEUED = 0,
    /** The word was idle and is now held by the caller; the node was not pushed. */
    FLARE_PUSH_ACQUIRED = 1,
    /** The word was idle and `acquire_if_idle` was false; nothing changed. */
    FLARE_PUSH_IDLE = 2,
    /** The word is closed; nothing changed. */
    FLARE_PUSH_CLOSED = 3,
} flare_push_result;

/**
 * Pushes `node` behind the current drainer, or, if nobody is draining, either
 * acquires the word (`acquire_if_idle`) or reports that it is idle.
 *
 * Lock-free: a failed CAS means another push or the drainer moved the word.
 * ABA-safe: the node's `next` is derived only from the value the CAS compares
 * against, so if the word holds that value again the link is still right.
 * Ordering: the CAS is release for `node->next` and the payload, acquire
 * when it acquires the word.
 */
static inline flare_push_result flare_serial_push(flare_serial *s, flare_node *node, bool acquire_if_idle) {
    /* Acquire: a disposer that finds the word IDLE here returns and releases
     * the observer context, so it must see every call of the drain that
     * released the word (its CAS heads a release sequence we read from:
     * every write to the word is an RMW). */
    AO_t old = AO_load_acquire(&s->word);
    for (;;) {
        if (old == FLARE_SERIAL_CLOSED) return FLARE_PUSH_CLOSED;
        if (old == FLARE_SERIAL_IDLE) {
            if (!acquire_if_idle) return FLARE_PUSH_IDLE;
            /* Acquire, as try_acquire; on failure acquire too (AO's failure
             * ordering for _acquire), since the value read is acted on. */
            old = AO_fetch_compare_and_swap_acquire(&s->word, FLARE_SERIAL_IDLE, FLARE_SERIAL_BUSY);
            if (old == FLARE_SERIAL_IDLE) {
                AO_store(&s->owner, flare_thread_tag());
                return FLARE_PUSH_ACQUIRED;
            }
            continue;
        }
        node->next = old == FLARE_SERIAL_BUSY ? NULL : (flare_node *)old;
        /* Release: publishes `node->next` and the payload to the drainer's
         * acquiring exchange. Its failure ordering is relaxed, so a failed
         * attempt looks again with acquire: it may find the word IDLE or
         * CLOSED and act on it (see the first load). */
        if (AO_fetch_compare_and_swap_release(&s->word, old, (AO_t)node) == old) return FLARE_PUSH_QUEUED;
        old = AO_load_acquire(&s->word);
    }
}

/** Slow half of `flare_serial_release`: takes the pending stack, returns it FIFO. */
flare_node *flare_serial_take(flare_serial *s);

/**
 * Called by the drainer after each batch. Returns NULL once it has released
 * the word (BUSY → IDLE, a releasing CAS), or the pending nodes in FIFO
 * order (the word stays held): deliver them and call again. The drainer
 * clears `owner` before the CAS (which orders the clear before its release);
 * `flare_serial_take` records it again if the word stays held.
 */
static inline flare_node *flare_serial_release(flare_serial *s) {
    AO_store(&s->owner, 0);
    /* Release: the drain's work happens before whoever next reads IDLE.
     * Failing (the word holds pushed nodes) reads nothing we act on: the
     * take's exchange acquires them. */
    if (AO_compare_and_swap_release(&s->word, FLARE_SERIAL_BUSY, FLARE_SERIAL_IDLE)) return NULL;
    return flare_serial_take(s);
}

/**
 * Called by the drainer after delivering a root signal's terminal event:
 * closes the word for good and returns the nodes still pending, FIFO. Their
 * events are dropped (they were sent after the terminal event); their
 * removals must still be processed. Every sender waiting for a slot is
 * released (and drops its event).
 */
flare_node *flare_serial_close(flare_serial *s);

/** Whether a drain is running or the word is closed (diagnostics and tests). */
static inline uintptr_t flare_serial_peek(const flare_serial *s) { return AO_load((volatile AO_t *)&s->word); }

/**
 * Whether the word is idle, read with acquire: finding it idle, the caller
 * sees everything the last holder did before it released the word (its
 * releasing CAS). A property's writer uses it, under its gate, to skip a
 * change nobody could receive (`stageHoldingGate`).
 */
static inline bool flare_serial_is_idle_acquire(const flare_serial *s) {
    return AO_load_acquire((volatile AO_t *)&s->word) == FLARE_SERIAL_IDLE;
}

/* ------------------------------------------------------------------------ */
/* The queue limit (contract 9)                                              */
/* ------------------------------------------------------------------------ */

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
 * Whether the calling thread holds the word. Relaxed suffices: `owner` is
 * written only by the holder (its tag after acquiring, 0 before releasing),
 * so a thread reads its own tag exactly while it holds the word: while it
 * holds, no other thread writes (they write only after acquiring, which
 * happens after our release), and coherence gives it its own last write;
 * once it released, its last write was 0, coherence forbids it to read its
 * older writes, and no other thread ever writes its tag.
 */
static inline bool flare_serial_held_by_caller(const flare_serial *s) {
    return AO_load((volatile AO_t *)&s->owner) == flare_thread_tag();
}

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
    /** Link in the core's stack of additions; written before the push. */
    struct flare_entry *add_next;
    /**
     * Pushed on the serial word when disposed during a drain. Its `kind`
     * word holds the observer context (`flare_entry_ctx`): non-NULL, so
     * never FLARE_NODE_EVENT. Sharing the word keeps an entry at five words
     * with `owner`. Written once, before the entry is published.
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
    char pad1[FLARE_CACHE_LINE - 2 * sizeof(AO_t)];
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
     * `flare_core_may_deliver`). Read only by the debug checks. */
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
 * For the debug checks and assertions only.
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
/* Node memory                                                               */
/* ------------------------------------------------------------------------ */

/** Largest node recycled by the pool; larger ones go straight to malloc. */
enum { FLARE_POOL_MAX_SIZE = 256 };

/**
 * Memory for a queued event node of `size` bytes (header and payload),
 * 16-byte aligned. Recycled through per-thread magazines and a lock-free
 * depot (pool.c), so the producer/consumer pattern of a contended signal
 * does not hit malloc's cross-thread free path.
 */
flare_node *flare_node_alloc(size_t size);

/** Returns a node obtained from `flare_node_alloc` with the same `size`. */
void flare_node_free(flare_node *node, size_t size);

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

/* The drain protocol's steps, built on the above. */
#include "flare_drain.h"

#endif /* FLARE_H */
