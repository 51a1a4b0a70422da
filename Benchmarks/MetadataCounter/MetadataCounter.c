// Interposes two of the Swift runtime's type look-ups for the bench
// executable, so that the scenarios can count them per event beside heap
// allocations: swift_getGenericMetadata (a generic type's metadata, from the
// runtime's cache: what unspecialized generic code asks for at every call)
// and swift_getWitnessTable (a conformance, for the same reason).
//
// The bench is linked statically with Flare, so every call that Flare's and
// the bench's code make to these entry points binds, at link time, to the
// definitions below, which count and forward to libswiftCore's own (found
// with dlsym(RTLD_NEXT)). Calls the runtime and the standard library make
// from inside libswiftCore stay bound to their own definitions and are not
// counted: a look-up that unspecialized standard-library code makes on
// behalf of ours is missed (perf with a uprobe on libswiftCore sees those;
// Benchmarks/README.md).
//
// Both entry points use the Swift calling convention; with these argument
// and result types (three pointer-sized integers in, one pointer or a pair
// of them out) it assigns the same registers as the C convention on x86-64
// and arm64, and `swiftcall` says so to clang explicitly.
//
// Counting is off until md_set_counting(1); elsewhere the wrappers cost a
// relaxed load and an indirect call.
#define _GNU_SOURCE
#include "MetadataCounter.h"

#if defined(__linux__) && defined(__clang__)

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct metadata_response {
    const void *value;
    size_t state;
} metadata_response;

typedef metadata_response (*get_generic_metadata_fn)(size_t request, const void *const *arguments,
                                                     const void *description) __attribute__((swiftcall));
typedef const void *(*get_witness_table_fn)(const void *conformance, const void *type,
                                            const void *const *instantiation_arguments);

static uint64_t generic_metadata_lookups;
static uint64_t witness_table_lookups;
static int counting;

static void *next_definition(const char *name) {
    void *p = dlsym(RTLD_NEXT, name);
    if (!p) {
        fprintf(stderr, "MetadataCounter: cannot find the runtime's %s\n", name);
        abort();
    }
    return p;
}

__attribute__((swiftcall)) metadata_response swift_getGenericMetadata(size_t request, const void *const *arguments,
                                                                      const void *description) {
    static get_generic_metadata_fn real;
    get_generic_metadata_fn f = __atomic_load_n(&real, __ATOMIC_RELAXED);
    if (__builtin_expect(!f, 0)) {
        f = (get_generic_metadata_fn)next_definition("swift_getGenericMetadata");
        __atomic_store_n(&real, f, __ATOMIC_RELAXED);
    }
    if (__builtin_expect(__atomic_load_n(&counting, __ATOMIC_RELAXED), 0))
        __atomic_fetch_add(&generic_metadata_lookups, 1, __ATOMIC_RELAXED);
    return f(request, arguments, description);
}

const void *swift_getWitnessTable(const void *conformance, const void *type,
                                  const void *const *instantiation_arguments) {
    static get_witness_table_fn real;
    get_witness_table_fn f = __atomic_load_n(&real, __ATOMIC_RELAXED);
    if (__builtin_expect(!f, 0)) {
        f = (get_witness_table_fn)next_definition("swift_getWitnessTable");
        __atomic_store_n(&real, f, __ATOMIC_RELAXED);
    }
    if (__builtin_expect(__atomic_load_n(&counting, __ATOMIC_RELAXED), 0))
        __atomic_fetch_add(&witness_table_lookups, 1, __ATOMIC_RELAXED);
    return f(conformance, type, instantiation_arguments);
}

int md_is_active(void) { return 1; }

#else

int md_is_active(void) { return 0; }

static uint64_t generic_metadata_lookups;
static uint64_t witness_table_lookups;
static int counting;

#endif

void md_set_counting(int on) { __atomic_store_n(&counting, on, __ATOMIC_RELAXED); }

uint64_t md_generic_metadata_lookups(void) { return __atomic_load_n(&generic_metadata_lookups, __ATOMIC_RELAXED); }

uint64_t md_witness_table_lookups(void) { return __atomic_load_n(&witness_table_lookups, __ATOMIC_RELAXED); }
