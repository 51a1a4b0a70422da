/*
 * flare_serial.h — the serial word and its queue (part of flare.h).
 *
 * One word serializes delivery for a signal and every signal derived from it
 * (a domain): idle, busy (a drainer is delivering), busy with a LIFO stack of
 * pending nodes, or closed (the root terminated). Its cache-line block also
 * holds the drainer's identity and the counters of the queue limit
 * (contract 9), whose steps are in flare_limit.h. The slow halves (taking
 * the stack, closing, a limited sender's wait) are in serial.c.
 */
#ifndef FLARE_SERIAL_H
#define FLARE_SERIAL_H

#include <atomic_ops.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "flare_debug.h"
#include "flare_node.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Checks that the caller holds `serial` (debug builds: flare_debug.h). */
#define FLARE_DRAINER_ONLY(serial) \
    FLARE_DEBUG_CHECK(flare_serial_held_by_caller(serial), "a drainer-only call without holding the serial word")

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
 * queue limit's counters (contract 9, flare_limit.h): a queued send writes
 * the word and `tickets`, the drainer the word and `freed`, so the counters
 * ride on the one line the word already moves between them.
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
    /** The holder's drain state while it may hold events taken from the
     * word behind the one it delivers, else NULL (flare_drain.h, drain in
     * place: `flare_drain_current`). Read and written only by the holder:
     * published when a drain begins or takes more, withdrawn before the
     * word is released or closed. */
    struct flare_drain *drain;
    char pad[FLARE_CACHE_LINE - 7 * sizeof(AO_t) - 4 * sizeof(unsigned int) - sizeof(void *)];
} flare_serial;

/** The pause of a spin loop: lets the sibling hardware thread run, and
 * keeps a spinning read from flooding the line it watches. */
static inline void flare_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

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
    s->drain = NULL;
}


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
 * against, so if the word holds that value again `next` is still right.
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
 * The holder, from inside a delivery (flare_drain.h, drain in place): the
 * nodes pushed since it last took or acquired the word, FIFO, the word
 * staying held; NULL if there are none (the word reads BUSY). The load is
 * relaxed: a push that happens before the caller's current step is ordered
 * before it (write-read coherence), so it is seen; the exchange that takes
 * what it sees is the same as `flare_serial_release`'s take (acquire).
 */
static inline flare_node *flare_serial_take_pushed(flare_serial *s) {
    FLARE_DRAINER_ONLY(s);
    if (AO_load(&s->word) == FLARE_SERIAL_BUSY) return NULL;
    return flare_serial_take(s);
}

#ifdef __cplusplus
}
#endif

#endif /* FLARE_SERIAL_H */
