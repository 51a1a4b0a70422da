#ifndef FLARE_MALLOC_COUNTER_H
#define FLARE_MALLOC_COUNTER_H

#include <stdint.h>

/// Whether this process's malloc goes through the counting wrappers (false on
/// platforms where the wrappers are not built: the counters then stay zero).
int mc_is_active(void);

/// Calls to malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign
/// and valloc since the process started.
uint64_t mc_allocations(void);

/// Calls to free with a non-null pointer since the process started.
uint64_t mc_frees(void);

/// Usable bytes currently allocated through the wrappers (what
/// malloc_usable_size reports, summed over live blocks; blocks allocated
/// before the wrappers were reached are not counted).
int64_t mc_live_bytes(void);

#endif
