/*
 * park.c — parking spots (see flare_park.h).
 *
 * Each spot is a futex word on a cache line of its own, so that waiters on
 * different keys do not share a line. The key's address is hashed
 * (Fibonacci hashing of the address without its alignment bits) to a spot.
 */
#include "flare_park.h"

#include "futex.h"

#include <atomic_ops.h>
#include <stdint.h>

#define SPOT_LINE 64

typedef struct spot {
    volatile unsigned int sequence;
    char pad[SPOT_LINE - sizeof(unsigned int)];
} spot;

_Static_assert((FLARE_PARK_SPOTS & (FLARE_PARK_SPOTS - 1)) == 0, "FLARE_PARK_SPOTS: a power of two");

static _Alignas(SPOT_LINE) spot spots[FLARE_PARK_SPOTS];

static inline spot *spot_of(const void *key) {
    uint64_t h = ((uint64_t)(uintptr_t)key >> 4) * UINT64_C(0x9E3779B97F4A7C15);
    return &spots[h >> (64 - 6)];
}

_Static_assert(FLARE_PARK_SPOTS == 1 << 6, "spot_of takes the hash's top 6 bits");

unsigned int flare_park_ticket(const void *key) {
    return AO_int_load_acquire(&spot_of(key)->sequence);
}

void flare_park(const void *key, unsigned int ticket) {
    futex_wait(&spot_of(key)->sequence, ticket);
}

void flare_unpark_all(const void *key) {
    spot *s = spot_of(key);
    /* Release: a waiter whose ticket load reads this increment sees the
     * condition its waker made true before calling us (flare_park.h). */
    AO_int_fetch_and_add_release(&s->sequence, 1);
    futex_wake_all(&s->sequence);
}
