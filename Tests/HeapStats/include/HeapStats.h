#ifndef FLARE_HEAP_STATS_H
#define FLARE_HEAP_STATS_H

#include <stdint.h>

/// Bytes the C allocator has handed out and not taken back (glibc's
/// mallinfo2: uordblks + hblkhd, every arena); 0 where glibc's malloc is
/// not the allocator (other platforms).
uint64_t heap_stats_in_use(void);

#endif
