/*
 * stress.h — what the threaded C tests share: the FLARE_STRESS_SCALE factor,
 * values that carry their sending thread and sequence number, and the check
 * that every node, observer context and entry a test made came back.
 */
#ifndef FLARE_TEST_STRESS_H
#define FLARE_TEST_STRESS_H

#include "client.h"
#include "harness.h"

#include <stdlib.h>

#define TID_SHIFT 40

/* FLARE_STRESS_SCALE (default 1.0) scales the iteration counts; the valgrind
 * run uses a small one. Read by stress_read_scale. */
static double scale = 1.0;

static inline void stress_read_scale(void) {
    const char *env = getenv("FLARE_STRESS_SCALE");
    if (env) scale = atof(env);
}

static inline long scaled(long n) {
    long v = (long)(n * scale);
    return v < 1 ? 1 : v;
}

static inline long encode(long tid, long seq) { return (tid << TID_SHIFT) | seq; }
static inline long tid_of(long v) { return v >> TID_SHIFT; }
static inline long seq_of(long v) { return v & ((1L << TID_SHIFT) - 1); }

/* The client's counters when the current test began. */
static client_stats baseline;

/* Every node, observer context and entry made since `baseline` is gone. */
static inline void check_balanced(void) {
    client_stats st = client_get_stats();
    /* -1: a core built without the accounting (the ThreadSanitizer run, where
     * its shared counter would order threads); valgrind checks leaks there. */
    if (flare_debug_live_entries() != -1) CHECK_EQ(flare_debug_live_entries(), 0);
    CHECK_EQ(st.nodes_created - baseline.nodes_created, st.nodes_freed - baseline.nodes_freed);
    CHECK_EQ(st.observers_created - baseline.observers_created,
             st.observers_released - baseline.observers_released);
}

#endif
