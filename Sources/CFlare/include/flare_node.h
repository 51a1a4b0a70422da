/*
 * flare_node.h — queue nodes and their memory (part of flare.h).
 *
 * A node is what waits on a serial word's stack (flare_serial.h): a queued
 * event, whose payload the caller lays out after the header, or the removal
 * node of an entry disposed during a drain (flare_bag.h). Event nodes'
 * memory is recycled by pool.c.
 */
#ifndef FLARE_NODE_H
#define FLARE_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Queue nodes                                                               */
/* ------------------------------------------------------------------------ */

/**
 * The kind of an event node: EVENT for one that holds no slot of the queue
 * limit (a reentrant send, a terminal event, a domain without a limit),
 * COUNTED for one whose sender was admitted by `flare_serial_reserve` (the
 * drainer returns its slot with `flare_serial_return_slots`). Any other kind
 * is the removal node of an entry disposed while a drain was running: its
 * kind word is the entry's observer context, a pointer, never 0, 1 or 2 (see
 * `flare_entry`). BATCH is a batch of events (flare_batch.h).
 */
enum { FLARE_NODE_EVENT = 0, FLARE_NODE_COUNTED = 1, FLARE_NODE_BATCH = 2 };

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
static inline bool flare_node_is_removal(const flare_node *node) { return node->kind > FLARE_NODE_BATCH; }

/** Whether `node` is a batch (flare_batch.h). */
static inline bool flare_node_is_batch(const flare_node *node) { return node->kind == FLARE_NODE_BATCH; }

/** Whether `node` is an event that holds a slot of the queue limit. */
static inline bool flare_node_is_counted(const flare_node *node) { return node->kind == FLARE_NODE_COUNTED; }

/* ------------------------------------------------------------------------ */
/* Node memory                                                               */
/* ------------------------------------------------------------------------ */

/**
 * The pool's sizes. Nodes up to FLARE_POOL_MAX_SIZE bytes are recycled;
 * larger ones go straight to malloc. Per size class, a thread keeps at most
 * FLARE_POOL_MAGAZINE free nodes, and the shared depot at most
 * FLARE_POOL_DEPOT_MAX_BYTES (far more than a domain's default queue limit,
 * 2,048 events, needs to recycle); free nodes beyond that go back to malloc.
 */
enum {
    FLARE_POOL_MAX_SIZE = 256,
    FLARE_POOL_MAGAZINE = 128,
    FLARE_POOL_DEPOT_MAX_BYTES = 1 << 20,
};

/**
 * Memory for a queued event node of `size` bytes (header and payload),
 * 16-byte aligned. Recycled through per-thread magazines and a lock-free
 * depot (pool.c), so the producer/consumer pattern of a contended signal
 * does not hit malloc's cross-thread free path.
 */
flare_node *flare_node_alloc(size_t size);

/** Returns a node obtained from `flare_node_alloc` with the same `size`. */
void flare_node_free(flare_node *node, size_t size);

/**
 * Bytes of pooled nodes the pool holds, in use and free (taken from malloc
 * and not given back): at most the nodes live at once plus the bounds
 * above. Tests and the soak read it to tell the pool's growth from the
 * allocator's. Nodes larger than FLARE_POOL_MAX_SIZE are not counted.
 */
size_t flare_node_pool_bytes(void);

#ifdef __cplusplus
}
#endif

#endif /* FLARE_NODE_H */
