/*
 * waits.c — the table of who waits for whom (see waits.h).
 *
 * Layout: WAITS_ENTRIES pairs (tag, waits_for, on), open addressing with
 * linear probing on the tag. A pair's tag is written once, by the CAS that
 * claims it (0 → tag), and never changes; its waits_for and on are written
 * only by the thread whose tag it holds. `on` (the word of the thread's
 * last wait) is for diagnostics only: nothing reads it to decide.
 */
#include "waits.h"

#include <stddef.h>

typedef struct waits_pair {
    volatile AO_t tag;
    volatile AO_t waits_for;
    volatile AO_t on;
} waits_pair;

static waits_pair table[WAITS_ENTRIES];

static inline size_t home(AO_t tag) {
    /* Thread pointers are page-aligned or nearly so: mix the high bits in. */
    uint64_t h = (uint64_t)tag * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 32) & (WAITS_ENTRIES - 1);
}

/* The pair of `tag`, or NULL if no thread with that tag ever waited.
 * Relaxed: a pair's tag never changes once claimed, and a reader that does
 * not see a claim yet reads "not waiting", as it would just before it. */
static waits_pair *find(AO_t tag) {
    size_t i = home(tag);
    for (size_t n = 0; n < WAITS_ENTRIES; n++, i = (i + 1) & (WAITS_ENTRIES - 1)) {
        AO_t seen = AO_load(&table[i].tag);
        if (seen == tag) return &table[i];
        if (seen == 0) return NULL;
    }
    return NULL;
}

static _Thread_local volatile AO_t *own_entry;

volatile AO_t *flare_waits_entry(void) {
    if (own_entry) return own_entry;
    AO_t tag = flare_thread_tag();
    size_t i = home(tag);
    for (size_t n = 0; n < WAITS_ENTRIES; n++, i = (i + 1) & (WAITS_ENTRIES - 1)) {
        AO_t seen = AO_load(&table[i].tag);
        /* A thread that exited with this tag left its pair, with 0 in it. */
        if (seen == tag || (seen == 0 && AO_compare_and_swap(&table[i].tag, 0, tag))) {
            own_entry = &table[i].waits_for;
            return own_entry;
        }
        /* The CAS lost to another thread's claim of this pair: it may be
         * ours only if that thread had our tag, which no live thread has. */
    }
    return NULL;
}

bool flare_waits_would_cycle(volatile AO_t *entry, const flare_serial *s) {
    if (!entry) return true;
    AO_t me = flare_thread_tag();
    AO_nop_full();
    AO_t holder = AO_load((volatile AO_t *)&s->owner);
    /* The pair holding `entry` (its waits_for field). */
    ((waits_pair *)((char *)entry - offsetof(waits_pair, waits_for)))->on = (AO_t)s;
    AO_store(entry, holder);
    AO_nop_full();
    /* Follow the chain of waits from the holder. 0: the word is idle or
     * changing hands, or someone in the chain is not waiting: no cycle now,
     * and the next check looks again. */
    AO_t at = holder;
    for (int hop = 0; hop < WAITS_MAX_HOPS; hop++) {
        if (at == 0) return false;
        if (at == me) return true;
        waits_pair *p = find(at);
        if (!p) return false;
        at = AO_load(&p->waits_for);
    }
    return false;
}

AO_t flare_waits_debug_waiting_for(AO_t tag) {
    waits_pair *p = find(tag);
    return p ? AO_load(&p->waits_for) : 0;
}

AO_t flare_waits_debug_waiting_on(AO_t tag) {
    waits_pair *p = find(tag);
    return p ? AO_load(&p->on) : 0;
}
