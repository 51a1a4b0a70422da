// The allocator's figures for the memory soak tests, which Swift cannot
// read itself: glibc's <malloc.h> is not part of the Glibc module.
#define _GNU_SOURCE
#include "HeapStats.h"

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>

uint64_t heap_stats_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}

#else

uint64_t heap_stats_in_use(void) { return 0; }

#endif
