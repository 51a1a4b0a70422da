#ifndef FLARE_MALLOC_COUNTER_H
#define FLARE_MALLOC_COUNTER_H

#include <stdint.h>

/// Whether this process's malloc goes through the counting wrappers (false on
/// platforms where the wrappers are not built: the counters then stay zero).
int mc_is_active(void);

/// Turns counting on or off for the whole process (off at start). The
/// counters below only move while counting is on; read them as deltas.
void mc_set_counting(int on);

/// Calls to malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign
/// and valloc while counting was on.
uint64_t mc_allocations(void);

/// Calls to free with a non-null pointer while counting was on.
uint64_t mc_frees(void);

/// Usable bytes allocated minus usable bytes freed while counting was on
/// (malloc_usable_size of each block): a delta over a region is the change
/// in live heap bytes it caused.
int64_t mc_live_bytes(void);

/// glibc's bytes in use (mallinfo2: uordblks + hblkhd), all arenas; 0
/// where the wrappers are not built.
uint64_t mc_heap_in_use(void);

/// glibc's bytes taken from the system (mallinfo2: arena + hblkhd).
uint64_t mc_heap_system(void);

/// The number of malloc arenas (heaps in malloc_info's report).
int mc_heap_arenas(void);

/// malloc_trim(0): returns free memory at the top of every arena and free
/// whole pages inside them to the system.
void mc_trim(void);

#endif
