// Interposes the allocator entry points for the bench executable so that the
// memory scenarios can count heap allocations and live bytes. The wrappers
// forward to glibc's own implementations (__libc_malloc & co.), which glibc
// exports for exactly this purpose, so no dlsym bootstrap is needed.
//
// Counting is off until mc_set_counting(1): the bench reads the counters as
// deltas around a measured region, and elsewhere the wrappers cost one
// relaxed load, so the time-based scenarios (observe/dispose allocate) are not
// slowed by two atomic adds and a malloc_usable_size per call.
#define _GNU_SOURCE
#include "MallocCounter.h"

#if defined(__linux__) && defined(__GLIBC__)

#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);

static uint64_t allocations;
static uint64_t frees;
static int64_t live_bytes;
static int counting;

static inline int is_counting(void) {
    return __atomic_load_n(&counting, __ATOMIC_RELAXED);
}

static inline void note_alloc(void *p) {
    if (p && is_counting()) {
        __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&live_bytes, (int64_t)malloc_usable_size(p), __ATOMIC_RELAXED);
    }
}

static inline void note_free(void *p) {
    if (p && is_counting()) {
        __atomic_fetch_add(&frees, 1, __ATOMIC_RELAXED);
        __atomic_fetch_sub(&live_bytes, (int64_t)malloc_usable_size(p), __ATOMIC_RELAXED);
    }
}

// malloc and free, the hot pair, are a test and a tail call when not
// counting, the counting path out of line: the wrapper then adds a load and
// a jump to each allocation of a timed loop rather than a call frame
// (measured: the depth-6 producer start, seven allocations and frees, cost
// 15-25 ns more with the frame).

__attribute__((noinline)) static void *malloc_counted(size_t size) {
    void *p = __libc_malloc(size);
    note_alloc(p);
    return p;
}

void *malloc(size_t size) {
    if (__builtin_expect(is_counting(), 0)) return malloc_counted(size);
    return __libc_malloc(size);
}

void *calloc(size_t n, size_t size) {
    void *p = __libc_calloc(n, size);
    note_alloc(p);
    return p;
}

void *realloc(void *old, size_t size) {
    // Counted as a free of the old block and an allocation of the new one,
    // unless it fails (the old block then stays live).
    int on = is_counting();
    size_t old_size = old && on ? malloc_usable_size(old) : 0;
    void *p = __libc_realloc(old, size);
    if (on && (p || size == 0)) {
        if (old) {
            __atomic_fetch_add(&frees, 1, __ATOMIC_RELAXED);
            __atomic_fetch_sub(&live_bytes, (int64_t)old_size, __ATOMIC_RELAXED);
        }
        note_alloc(p);
    }
    return p;
}

__attribute__((noinline)) static void free_counted(void *p) {
    note_free(p);
    __libc_free(p);
}

void free(void *p) {
    if (__builtin_expect(is_counting(), 0)) {
        free_counted(p);
        return;
    }
    __libc_free(p);
}

void *memalign(size_t alignment, size_t size) {
    void *p = __libc_memalign(alignment, size);
    note_alloc(p);
    return p;
}

void *aligned_alloc(size_t alignment, size_t size) {
    return memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *p = __libc_memalign(alignment, size);
    if (!p) return ENOMEM;
    note_alloc(p);
    *out = p;
    return 0;
}

void *valloc(size_t size) {
    void *p = __libc_valloc(size);
    note_alloc(p);
    return p;
}

int mc_is_active(void) { return 1; }
void mc_set_counting(int on) { __atomic_store_n(&counting, on ? 1 : 0, __ATOMIC_SEQ_CST); }
uint64_t mc_allocations(void) { return __atomic_load_n(&allocations, __ATOMIC_RELAXED); }
uint64_t mc_frees(void) { return __atomic_load_n(&frees, __ATOMIC_RELAXED); }
int64_t mc_live_bytes(void) { return __atomic_load_n(&live_bytes, __ATOMIC_RELAXED); }

uint64_t mc_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}

uint64_t mc_heap_system(void) {
    struct mallinfo2 info = mallinfo2();
    return info.arena + info.hblkhd;
}

int mc_heap_arenas(void) {
    char *text = NULL;
    size_t length = 0;
    FILE *stream = open_memstream(&text, &length);
    if (!stream) return -1;
    malloc_info(0, stream);
    fclose(stream);
    int count = 0;
    for (const char *p = text; (p = strstr(p, "<heap nr=")) != NULL; p++) count++;
    __libc_free(text);
    return count;
}

void mc_trim(void) { malloc_trim(0); }

#else

int mc_is_active(void) { return 0; }
void mc_set_counting(int on) { (void)on; }
uint64_t mc_allocations(void) { return 0; }
uint64_t mc_frees(void) { return 0; }
int64_t mc_live_bytes(void) { return 0; }
uint64_t mc_heap_in_use(void) { return 0; }
uint64_t mc_heap_system(void) { return 0; }
int mc_heap_arenas(void) { return 0; }
void mc_trim(void) {}

#endif
