/*
 * batch.c — the sender's half of the batched hand-off (see flare_batch.h:
 * steps B1–B5 and invariants I1–I7).
 *
 * Each thread keeps FLARE_BATCH_CACHE entries (word, batch), behind a
 * pthread key whose destructor drops the thread's references when it exits
 * (as pool.c's magazines: heap memory, not `_Thread_local` variables, which
 * Darwin may tear down before key destructors run; `mine` only caches the
 * key's value). An entry's batch is the thread's reference (I6): the open
 * batch on `serial` if it is not sealed, else a batch kept for reuse.
 * Only the owning thread touches its entries.
 */
#include "flare_batch.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct cache_entry {
    /** The word the batch was last pushed on, or NULL (its event moved to
     *  another batch): the thread appends to it only while this names the
     *  word and the word's top is the batch (I4). */
    flare_serial *serial;
    flare_batch *batch;
    /** The batch pushed before `batch`, which its drainer may still be
     *  delivering, kept for reuse once it is done (I6), or NULL. */
    flare_batch *spare;
} cache_entry;

typedef struct batch_cache {
    cache_entry entries[FLARE_BATCH_CACHE];
    /** The entry a word without one takes next, round robin. */
    unsigned int victim;
} batch_cache;

static _Thread_local batch_cache *mine;
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

void flare_batch_unref(flare_batch *b) {
    /* Full: the last one to drop frees, after every access of the other
     * (the drainer's reads of the slots, the sender's writes). */
    if (AO_fetch_and_sub1_full(&b->refs) == 1) free(b);
}

static void on_thread_exit(void *value) {
    batch_cache *c = value;
    for (unsigned int i = 0; i < FLARE_BATCH_CACHE; i++)
    {
        if (c->entries[i].batch) flare_batch_unref(c->entries[i].batch);
        if (c->entries[i].spare) flare_batch_unref(c->entries[i].spare);
    }
    free(c);
    mine = NULL;
}

static void create_key(void) {
    if (pthread_key_create(&exit_key, on_thread_exit) != 0) {
        fputs("flare: pthread_key_create failed\n", stderr);
        abort();
    }
}

/* The calling thread's cache, or NULL if there is no memory for one (the
 * caller then takes the node path). */
static batch_cache *cache(void) {
    if (mine) return mine;
    pthread_once(&exit_once, create_key);
    batch_cache *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    if (pthread_setspecific(exit_key, c) != 0) {
        free(c);
        return NULL;
    }
    mine = c;
    return c;
}

/* The entry for `s`: the one that names it, or another one renamed
 * (`*renamed`: its batch, if any, is not open for `s`, whatever its state:
 * it was pushed on another word). */
static unsigned int entry_for(batch_cache *c, flare_serial *s, bool *renamed) {
    unsigned int free_one = FLARE_BATCH_CACHE;
    *renamed = false;
    for (unsigned int i = 0; i < FLARE_BATCH_CACHE; i++) {
        if (c->entries[i].serial == s) return i;
        if (!c->entries[i].serial && free_one == FLARE_BATCH_CACHE) free_one = i;
    }
    if (free_one == FLARE_BATCH_CACHE) {
        free_one = c->victim;
        c->victim = (c->victim + 1) % FLARE_BATCH_CACHE;
    }
    c->entries[free_one].serial = s;
    *renamed = true;
    return free_one;
}

static flare_batch *allocate(void) {
    flare_batch *b = aligned_alloc(FLARE_BATCH_HEADER, FLARE_BATCH_HEADER + FLARE_BATCH_BYTES);
    if (!b) {
        fputs("flare: out of memory for a batch\n", stderr);
        abort();
    }
    b->node.kind = FLARE_NODE_BATCH;
    AO_store(&b->refs, 1);
    return b;
}

/* Whether the thread alone holds `b` (I6): its drainer dropped its
 * reference (acquire: after its last read of a slot), or it was never
 * published. */
static bool owned_alone(flare_batch *b) { return AO_load_acquire(&b->refs) == 1; }

/* A batch the thread owns alone, unpublished, for events of `size` bytes,
 * or NULL (the caller takes the node path). The entry's two batches take
 * turns: while the drainer delivers the one pushed before, the sender fills
 * the other, and the drainer is done with the older one by the time it
 * takes the newer one (it takes the word's stack only once it has moved
 * past everything it took before, D3). A batch is reused once its drainer
 * dropped its reference. If neither is free, a dense batch (`dense`: the
 * entry's batch holds a quarter of its capacity or more) is followed by a
 * new one, the entry dropping its reference to the older (its drainer
 * frees it): a dense batch costs less per event than nodes. A sparser
 * batch that lost its turn to other senders' pushes is followed by nodes,
 * not by a third batch: a thread keeps at most two batches per word that
 * are not dense, whatever the interleaving (I6). */
static flare_batch *fresh(flare_serial *s, cache_entry *e, unsigned int size, bool dense) {
    flare_batch *b = e->batch;
    if (b && !owned_alone(b)) {
        flare_batch *other = e->spare;
        if (other && !owned_alone(other)) {
            if (!dense) return NULL;
            flare_batch_unref(other);
            other = NULL;
        }
        e->spare = b;
        b = other;
    }
    if (!b) b = allocate();
    e->batch = b;
    AO_store(&b->state, FLARE_BATCH_SEALED); /* not open until published (B5) */
    b->size = size;
    b->capacity = FLARE_BATCH_BYTES / size;
    b->done = 0;
    b->counted = AO_int_load(&s->limit) != 0;
    return b;
}

/* B2: `n` credits for a counted batch with `count` events, or CLOSED. */
static flare_reserve_result take_credits(flare_serial *s, flare_batch *b, unsigned int count, unsigned int *credits) {
    unsigned int n = flare_serial_return_batch(s);
    if (n > b->capacity - count) n = b->capacity - count;
    flare_reserve_result r = flare_serial_reserve_n(s, n);
    if (r == FLARE_RESERVE_COUNTED) *credits = n;
    return r;
}

flare_batch_result flare_batch_begin(flare_serial *s, size_t size, flare_batch_send *tx) {
    if (size > FLARE_BATCH_MAX_SLOT || flare_serial_held_by_caller(s)) return FLARE_BATCH_NODE;
    batch_cache *c = cache();
    if (!c) return FLARE_BATCH_NODE;
    /* 16-byte slots at least (an event of no bytes still takes one), and
     * 16-byte aligned: the header is FLARE_BATCH_HEADER bytes of a block
     * aligned to it. */
    unsigned int slot_size = size == 0 ? 16 : (unsigned int)((size + 15) & ~(size_t)15);
    bool renamed;
    unsigned int i = entry_for(c, s, &renamed);
    cache_entry *e = &c->entries[i];
    tx->serial = s;
    tx->size = slot_size;
    tx->entry = i;
    tx->credits = 0;
    tx->moved_to = NULL;
    tx->old = NULL;
    /* B1. Relaxed: the state is the thread's own last write, or the
     * drainer's seal, which only stops the thread from appending. The
     * word is read relaxed too: a push that happens before this send is
     * ordered before the read (write-read coherence), so the read shows it
     * or a later value, never `b` (I4). */
    flare_batch *b = e->batch;
    AO_t st = b && !renamed ? AO_load(&b->state) : FLARE_BATCH_SEALED;
    if (!(st & FLARE_BATCH_SEALED) && flare_batch_count(st) < b->capacity && b->size == slot_size &&
        AO_load(&s->word) == (AO_t)b) {
        tx->seen = st;
    } else {
        b = fresh(s, e, slot_size, b && !renamed && flare_batch_count(st) >= b->capacity / 4);
        if (!b) return FLARE_BATCH_NODE;
        st = 0;
        tx->seen = 0;
    }
    tx->batch = b;
    tx->slot = flare_batch_slot(b, flare_batch_count(st));
    /* B2: a counted batch needs a credit per event. */
    if (b->counted && flare_batch_credits(st) == flare_batch_count(st) &&
        take_credits(s, b, flare_batch_count(st), &tx->credits) == FLARE_RESERVE_CLOSED)
        return FLARE_BATCH_CLOSED;
    return FLARE_BATCH_SLOT;
}

flare_batch_result flare_batch_commit(flare_batch_send *tx) {
    flare_serial *s = tx->serial;
    cache_entry *e = &mine->entries[tx->entry];
    flare_batch *b = tx->batch;
    if (tx->seen != 0) {
        /* B4. Release: the slot's event, before the count that covers it. */
        if (AO_compare_and_swap_release(&b->state, tx->seen, tx->seen + 1 + tx->credits * FLARE_BATCH_CREDIT))
            return FLARE_BATCH_SLOT;
        /* Sealed meanwhile (I1). A credit counted on in b (none taken for
         * this send) went back with b's unused ones: take one again. The
         * thread keeps its reference to b (the entry's) until the event has
         * moved out of its slot. */
        flare_batch *next = allocate();
        next->size = tx->size;
        next->capacity = FLARE_BATCH_BYTES / tx->size;
        next->done = 0;
        next->counted = b->counted;
        if (next->counted && tx->credits == 0 && take_credits(s, next, 0, &tx->credits) == FLARE_RESERVE_CLOSED) {
            free(next);
            return FLARE_BATCH_CLOSED;
        }
        e->serial = NULL; /* named again below, once the event has moved */
        tx->old = b;
        tx->batch = next;
        tx->seen = 0;
        tx->moved_to = flare_batch_slot(next, 0);
        return FLARE_BATCH_MOVE;
    }
    /* B5: a fresh batch, first event in slot 0. After a MOVE, the event
     * has left the old batch: the entry drops it for the fresh one. */
    if (tx->old) {
        flare_batch_unref(tx->old);
        tx->old = NULL;
        e->batch = b;
        tx->slot = tx->moved_to;
    }
    e->serial = s;
    AO_store(&b->state, 1 + tx->credits * FLARE_BATCH_CREDIT);
    AO_store(&b->refs, 2);
    switch (flare_serial_push(s, &b->node, true)) {
    case FLARE_PUSH_QUEUED:
        return FLARE_BATCH_SLOT;
    case FLARE_PUSH_ACQUIRED:
        AO_store(&b->state, FLARE_BATCH_SEALED);
        AO_store(&b->refs, 1);
        return FLARE_BATCH_ACQUIRED;
    default:
        AO_store(&b->state, FLARE_BATCH_SEALED);
        AO_store(&b->refs, 1);
        return FLARE_BATCH_CLOSED;
    }
}
