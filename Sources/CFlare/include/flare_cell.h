/**
 * flare_cell.h — the lock-free read side of a property's value, for values
 * that are plain bytes (no references): two slots and a version.
 *
 * One writer at a time (the property's write gate orders writers); any
 * number of readers, which never wait for the writer: a reader copies the
 * slot of the version it loaded and retries only if a write *completed*
 * meanwhile, so every retry means the writer made progress (lock-free).
 *
 * Version v's bytes are in slot v & 1. Writing version v + 1 overwrites
 * slot (v + 1) & 1, the slot of version v - 1, while readers of version v
 * read the other one. A reader of version v - 1 still copying that slot
 * overlaps the write; it then sees a newer version and retries:
 *
 * - writer: a release fence, then the data stores (relaxed), then the
 *   version store (release). The fence orders the writer's earlier store
 *   of version v before the data stores of v + 1.
 * - reader: version load (acquire), the data loads (relaxed), an acquire
 *   fence, the version load again. If any data load read a store of the
 *   write of v + 1, the fence pair makes the version store v (and so any
 *   later one) visible to the second load: it differs from v - 1, and the
 *   reader retries. If both loads return the same version, no write of the
 *   slot it read began before its second load.
 *
 * Every access is atomic (AO_load/AO_store), so the copy is race-free for
 * ThreadSanitizer as for the C11 model; the value is rebuilt from the
 * copied words only once they are known to be consistent.
 */
#ifndef FLARE_CELL_H
#define FLARE_CELL_H

#include <atomic_ops.h>
#include <stddef.h>
#include <stdint.h>

/** Words per slot: values up to 32 bytes use the cell. */
#define FLARE_CELL_WORDS 4

typedef struct flare_cell {
    AO_t version;
    AO_t slots[2][FLARE_CELL_WORDS];
} flare_cell;

/** Stores version 0 from `src` (`words` words). Before any reader. */
static inline void flare_cell_init(flare_cell *c, const uintptr_t *src, size_t words) {
    for (size_t i = 0; i < words; i++) {
        AO_store(&c->slots[0][i], (AO_t)src[i]);
        AO_store(&c->slots[1][i], (AO_t)src[i]);
    }
    AO_store_release(&c->version, 0);
}

/** Publishes the next version. One writer at a time. */
static inline void flare_cell_store(flare_cell *c, const uintptr_t *src, size_t words) {
    AO_t next = AO_load(&c->version) + 1;
    AO_t *slot = c->slots[next & 1];
    AO_nop_write();
    for (size_t i = 0; i < words; i++) AO_store(&slot[i], (AO_t)src[i]);
    AO_store_release(&c->version, next);
}

/** Copies the latest consistent version into `dst`. Any thread. */
static inline void flare_cell_load(flare_cell *c, uintptr_t *dst, size_t words) {
    AO_t v = AO_load_acquire(&c->version);
    for (;;) {
        const AO_t *slot = c->slots[v & 1];
        for (size_t i = 0; i < words; i++) dst[i] = (uintptr_t)AO_load(&slot[i]);
        AO_nop_read();
        AO_t again = AO_load_acquire(&c->version);
        if (again == v) return;
        v = again;
    }
}

#endif
