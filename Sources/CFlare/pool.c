/*
 * pool.c — recycling of queued-event nodes (see flare_node.h).
 *
 * Under contention one thread drains and frees every node while the others
 * allocate them. With malloc that is the worst pattern there is: each free
 * returns a chunk to another thread's arena. Nodes are therefore recycled
 * through per-thread magazines and a global depot per size class:
 *
 *  - a thread allocates from, and frees to, its own magazine (thread-local,
 *    no atomics: the common case costs a few loads and stores);
 *  - a magazine that grows to FLUSH nodes is pushed whole onto the depot
 *    with one CAS (release: the nodes' `next` pointers and the freeing
 *    thread's last writes to them are published);
 *  - an empty magazine takes one batch (at most FLUSH nodes) from the
 *    depot: it takes the whole depot with one exchange (acquire), keeps the
 *    top batch and pushes the others back (`give_back`).
 *
 * The depot is a stack of batches (flushed magazines) that is only ever
 * pushed and taken whole, so there is no ABA: a push derives its
 * `next_batch` from the value its CAS compares against, and a take is a
 * CAS to empty, after which the taker reads what it took. A batch's first
 * node carries the batch's tail and count, so batches are moved without
 * touching the nodes inside them (memory last written by another thread).
 *
 * What the pool holds is bounded, whatever the threads' timing:
 *  - a magazine holds at most FLUSH nodes (a refill adds one batch of at
 *    most FLUSH to an empty magazine, a free flushes at FLUSH);
 *  - the depot holds at most FLARE_POOL_DEPOT_MAX_BYTES per class
 *    (`depot_nodes` counts it); a flush that would pass that returns its
 *    nodes to malloc.
 * So pooled memory is at most the nodes live at once, plus FLUSH nodes per
 * thread and class, plus FLARE_POOL_DEPOT_MAX_BYTES per class. A refill
 * keeps one batch because a magazine that took the whole depot would hold
 * every free node until its thread's next free: a thread that allocates
 * rarely (a scheduler's thread sending into a busy signal) would keep them
 * out of reach while every other thread, finding the depot empty, called
 * malloc, and the pool would grow with the number of events sent under
 * contention instead of their peak (test_stress `pool_stays_bounded`; the
 * soak, `swift run -c release soak`).
 *
 * Free nodes stay reachable (leak checkers see them through the depot and
 * the magazines) and are reused.
 *
 * A thread's magazines go back to the depot when the thread exits, flushed
 * by a pthread key's destructor. They live on the heap, behind the key's
 * value, and the destructor flushes what it is handed: not `_Thread_local`
 * variables, which on Darwin may already be torn down when key destructors
 * run. The thread-local pointer `mine` is only a cache of the key's value,
 * cleared by the destructor. An allocation or free from a destructor that
 * runs after ours (another library's, or the caller's own) finds the cache
 * empty and adopts a fresh set of magazines, setting the key again; the
 * system then runs the destructors another round (up to
 * PTHREAD_DESTRUCTOR_ITERATIONS, 4 on glibc) and that set is flushed too.
 */
#include "flare_node.h"

#include <atomic_ops.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum {
    GRAIN = 32,
    CLASSES = FLARE_POOL_MAX_SIZE / GRAIN,
    FLUSH = FLARE_POOL_MAGAZINE,
};

/* A free node. `next` chains a magazine's (or a batch's) nodes; the other
 * fields are meaningful only in the first node of a batch in the depot. All
 * four fit in the smallest class (GRAIN bytes). */
typedef struct free_node {
    struct free_node *next;
    struct free_node *next_batch;
    struct free_node *batch_tail;
    size_t batch_count;
} free_node;

_Static_assert(sizeof(free_node) <= GRAIN, "a free node must fit the smallest size class");

typedef struct magazine {
    free_node *head;
    free_node *tail;
    size_t count;
} magazine;

/* One thread's magazines, one per size class: the value of `exit_key`. */
typedef struct magazines {
    magazine by_class[CLASSES];
} magazines;

static volatile AO_t depot[CLASSES];
/* Nodes in each depot: added before a batch is pushed, subtracted after it
 * is taken, so it never goes below the true count. Only bounds the depot. */
static volatile AO_t depot_nodes[CLASSES];
/* Bytes of pooled nodes taken from malloc and not given back: what the pool
 * holds, in use or free (flare_node_pool_bytes). */
static volatile AO_t pool_bytes;
static _Thread_local magazines *mine;
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

static size_t class_size(size_t c) { return (c + 1) * GRAIN; }


/* Gives the magazine's nodes back to malloc (the depot is full). */
static void release_to_malloc(size_t c, magazine *m) {
    free_node *n = m->head;
    while (n) {
        free_node *next = n == m->tail ? NULL : n->next;
        free(n);
        n = next;
    }
    /* Relaxed: a statistic (see flare_node_pool_bytes). */
    AO_fetch_and_add(&pool_bytes, (AO_t)0 - (AO_t)(m->count * class_size(c)));
}

static void flush(size_t c, magazine *m) {
    if (!m->head) return;
    size_t limit = FLARE_POOL_DEPOT_MAX_BYTES / class_size(c);
    /* Relaxed: the count only bounds the depot; a stale read lets at most
     * one batch per racing flusher past the bound, or frees one early. */
    if ((size_t)AO_load(&depot_nodes[c]) + m->count > limit) {
        release_to_malloc(c, m);
    } else {
        free_node *batch = m->head;
        m->tail->next = NULL;
        batch->batch_tail = m->tail;
        batch->batch_count = m->count;
        /* Counted before the push, so the refill that takes the batch (after
         * the push: release/acquire) subtracts after this add. */
        AO_fetch_and_add(&depot_nodes[c], (AO_t)m->count);
        AO_t old = AO_load(&depot[c]);
        for (;;) {
            batch->next_batch = (free_node *)old;
            /* Release: publishes the batch's `next` pointers and this
             * thread's last writes to its nodes to the refill that takes
             * them. A failure only reseeds `next_batch` (relaxed failure
             * ordering is enough). */
            AO_t seen = AO_fetch_compare_and_swap_release(&depot[c], old, (AO_t)batch);
            if (seen == old) break;
            old = seen;
        }
    }
    m->head = m->tail = NULL;
    m->count = 0;
}

/* The key's destructor: `value` is the exiting thread's magazines. */
static void on_thread_exit(void *value) {
    magazines *set = value;
    for (size_t c = 0; c < CLASSES; c++) flush(c, &set->by_class[c]);
    free(set);
    mine = NULL;
}

static void create_key(void) {
    if (pthread_key_create(&exit_key, on_thread_exit) != 0) {
        fputs("flare: pthread_key_create failed\n", stderr);
        abort();
    }
}

/* Gives this thread its magazines, flushed when it exits: a key's
 * destructor runs for the threads that set a non-NULL value. */
static magazines *adopt(void) {
    pthread_once(&exit_once, create_key);
    magazines *set = calloc(1, sizeof *set);
    if (!set || pthread_setspecific(exit_key, set) != 0) {
        fputs("flare: cannot set up a thread's node magazines\n", stderr);
        abort();
    }
    mine = set;
    return set;
}

/* This thread's magazine for size class `c`. A thread that takes nodes
 * must give back what it still holds when it exits, even if it never frees
 * one (a thread that only sends): allocating adopts magazines too. */
static inline magazine *local(size_t c) {
    magazines *set = mine;
    if (!set) set = adopt();
    return &set->by_class[c];
}

/* Takes the depot whole (acquire), returns it with `rest` under it: the
 * batches pushed since `rest` was taken (usually none) go on top of it, and
 * only they are walked. */
static void give_back(size_t c, free_node *rest) {
    for (;;) {
        /* Release: republishes the batches this thread acquired. */
        AO_t seen = AO_fetch_compare_and_swap_release(&depot[c], 0, (AO_t)rest);
        if (seen == 0) return;
        if (AO_fetch_compare_and_swap_acquire(&depot[c], seen, 0) != seen) continue;
        free_node *top = (free_node *)seen;
        free_node *bottom = top;
        while (bottom->next_batch) bottom = bottom->next_batch;
        bottom->next_batch = rest;
        rest = top;
    }
}

/* Fills the empty magazine `m` with one batch from the depot, if any. */
static void refill(size_t c, magazine *m) {
    AO_t top = AO_load(&depot[c]);
    for (;;) {
        if (top == 0) return;
        /* Acquire: takes every flushed batch with the writes its flusher
         * released (the flushes form one release sequence on the word). */
        AO_t seen = AO_fetch_compare_and_swap_acquire(&depot[c], top, 0);
        if (seen == top) break;
        top = seen;
    }
    free_node *batch = (free_node *)top;
    m->head = batch;
    m->tail = batch->batch_tail;
    m->count = batch->batch_count;
    AO_fetch_and_add(&depot_nodes[c], (AO_t)0 - (AO_t)m->count);
    if (batch->next_batch) give_back(c, batch->next_batch);
}

flare_node *flare_node_alloc(size_t size) {
    if (size == 0 || size > FLARE_POOL_MAX_SIZE) {
        flare_node *p = malloc(size ? size : 1);
        if (!p) abort();
        return p;
    }
    size_t c = (size - 1) / GRAIN;
    magazine *m = local(c);
    if (!m->head) refill(c, m);
    free_node *n = m->head;
    if (n) {
        m->head = n->next;
        if (!m->head) m->tail = NULL;
        m->count--;
        return (flare_node *)n;
    }
    flare_node *p = malloc(class_size(c));
    if (!p) abort();
    /* Relaxed: a statistic, read by tests and the soak; orders nothing. */
    AO_fetch_and_add(&pool_bytes, (AO_t)class_size(c));
    return p;
}

size_t flare_node_pool_bytes(void) { return (size_t)AO_load(&pool_bytes); }

void flare_node_free(flare_node *node, size_t size) {
    if (size == 0 || size > FLARE_POOL_MAX_SIZE) {
        free(node);
        return;
    }
    size_t c = (size - 1) / GRAIN;
    magazine *m = local(c);
    free_node *n = (free_node *)node;
    n->next = m->head;
    m->head = n;
    if (!m->tail) m->tail = n;
    if (++m->count >= FLUSH) flush(c, m);
}
