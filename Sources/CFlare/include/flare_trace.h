/*
 * flare_trace.h — production tracing: the `flare` USDT provider (part of
 * flare.h).
 *
 * Every point where the core already is (a signal made, named, ended and
 * freed; an event delivered; an observer attached and disposed; an event
 * queued behind a delivery; a batch handed over; a sender waiting under the
 * queue limit; a drain) and the points the Swift layer adds (a producer's
 * run started and ended, a flatten's inner started and ended) fire a probe
 * of the provider `flare`, readable by bpftrace, perf and SystemTap on a
 * running process (docs: Flare.docc/Tracing.md; scripts: Tools/trace/).
 *
 * Invariants:
 *
 * T1. Free when nobody listens. Each probe has a semaphore,
 *     `flare_<probe>_semaphore`, in the `.probes` section (defined once, in
 *     trace.c), which a tracer increments while it is attached to the
 *     probe (the kernel's uprobe reference counter, or the tracer itself).
 *     A probe point is `if (FLARE_TRACE_ON(probe)) flare_trace_<probe>(…)`:
 *     one relaxed load of a word that nothing writes while untraced (so it
 *     stays in every core's cache, shared) and a branch predicted not
 *     taken. Arguments are computed, and the out-of-line firing function
 *     called, only behind that branch: a disabled probe allocates nothing,
 *     retains nothing, and takes no lock.
 * T2. The probe sites are in trace.c only, in functions that are never
 *     inlined: whatever the Swift compiler inlines or specializes,
 *     `readelf -n` of a binary lists each probe once with its semaphore
 *     (event_sent and value_sent twice: a signal's site and a named
 *     producer's), and the checks stay small enough to inline.
 * T3. Builds without the headers. Without <sys/sdt.h> (Debian's
 *     systemtap-sdt-dev), off Linux/ELF, or with FLARE_NO_TRACE defined,
 *     FLARE_TRACE_USDT is undefined: FLARE_TRACE_ON is the constant 0, so
 *     every probe point compiles to nothing, no semaphore exists, and the
 *     firing functions are empty. The same header decides it for the C
 *     build and for Swift's importer, which see the same include paths.
 * T4. Stable ids. A signal is identified by the address of its C core
 *     from `signal_created` to `signal_freed` (an address may be reused
 *     after that); a domain (a root and its derived signals) by the address
 *     of its serial word; a producer's run by an id from
 *     `flare_trace_next_id` (never 0, never reused in a process), taken
 *     only while a run probe is traced; a flatten's inner by its node and
 *     the node's generation.
 * T5. Names. A signal's name is its core's label (`flare_core_set_label`):
 *     a C string copied once, when the signal is named, and kept until the
 *     core is destroyed (a later name is pushed in front, the older ones
 *     stay, so a reader never sees freed memory). Readers load it with
 *     acquire, only behind a probe's check; every probe passes "" when
 *     there is no name, never NULL.
 * T6. Values. `value_sent` is the only probe that carries a description of
 *     an event's value; the Swift layer computes it (the label's
 *     description closure, else String(describing:)) only when that
 *     probe's own semaphore is set, so counting events (`event_sent`) never
 *     pays for descriptions.
 *
 * The probes, their arguments (in order, as bpftrace's arg0, arg1, …):
 *
 *   signal_created   core, serial
 *   signal_named     core, name
 *   signal_ended     core, name, how (FLARE_TRACE_FAILED / COMPLETED /
 *                    INTERRUPTED, or FLARE_TRACE_ABANDONED: a derived signal
 *                    whose last observer went), observers (in the private
 *                    array, as event_sent; 0 when abandoned, which any
 *                    thread may do: it does not read the array)
 *   signal_freed     core, name
 *   event_sent       core, name, kind (FLARE_TRACE_VALUE … INTERRUPTED),
 *                    observers (in the private array, disposed ones
 *                    included until the next compaction); fired as the
 *                    core delivers the event, in delivery order
 *   value_sent       core, name, description
 *   observer_attached core, entry, name
 *   observer_disposed core, entry, name
 *   event_queued     serial, core, kind, reentrant (1: sent by the thread
 *                    delivering; 0: contended), outstanding (events
 *                    holding slots of the queue limit, 0 without a limit)
 *   batch_handed     serial, batch, events (delivered from one sending
 *                    thread's batch, flare_batch.h)
 *   sender_waiting   serial, ticket, outstanding, limit
 *   sender_released  serial, ticket, result (flare_reserve_result:
 *                    1 admitted, 2 closed), rounds (spins, yields and
 *                    sleeps it waited)
 *   drain_started    serial, core: a holder, after its own delivery,
 *                    starts delivering what was queued behind it
 *   drain_ended      serial, delivered (queued events taken for delivery
 *                    since the drain began): the drain released the word
 *                    (a drain that terminates the signal ends with
 *                    signal_ended instead)
 *   run_started      run, name
 *   run_ended        run, name, how (FLARE_TRACE_FAILED / COMPLETED /
 *                    INTERRUPTED, or FLARE_TRACE_DISPOSED)
 *   inner_started    flatten (its internal signal's core), inner (its
 *                    node), generation, strategy (FLARE_TRACE_MERGE …
 *                    RACE); an inner is (inner, generation): nodes are
 *                    reused, each use with a new generation
 *   inner_ended      flatten, inner, generation, how (as run_ended)
 *
 * `event_sent` and `value_sent` of a named producer carry the run's id in
 * place of a core.
 */
#ifndef FLARE_TRACE_H
#define FLARE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flare_bag.h"
#include "flare_serial.h"

#ifdef __cplusplus
extern "C" {
#endif

#if !defined(FLARE_NO_TRACE) && defined(__linux__) && defined(__ELF__) && defined(__has_include)
#if __has_include(<sys/sdt.h>)
#define FLARE_TRACE_USDT 1
#endif
#endif

/** Event kinds and ends, as the probes report them. */
enum {
    FLARE_TRACE_VALUE = 0,
    FLARE_TRACE_FAILED = 1,
    FLARE_TRACE_COMPLETED = 2,
    FLARE_TRACE_INTERRUPTED = 3,
    /** signal_ended: a derived signal lost its last observer. */
    FLARE_TRACE_ABANDONED = 4,
    /** run_ended, inner_ended: disposed (a run's `dispose()`, an inner
     *  dropped by its flatten). */
    FLARE_TRACE_DISPOSED = 4,
};

/** Flatten strategies, as inner_started reports them. */
enum {
    FLARE_TRACE_MERGE = 0,
    FLARE_TRACE_CONCAT = 1,
    FLARE_TRACE_LATEST = 2,
    FLARE_TRACE_CONCURRENT = 3,
    FLARE_TRACE_THROTTLE = 4,
    FLARE_TRACE_RACE = 5,
};

/** Whether this build has the probes (T3): 1 with USDT, else 0. */
static inline int flare_trace_available(void) {
#ifdef FLARE_TRACE_USDT
    return 1;
#else
    return 0;
#endif
}

#ifdef FLARE_TRACE_USDT
/* The semaphores (T1), defined in trace.c. Volatile: a tracer writes them
 * from outside the program, and each check must read the word again. */
#define FLARE_TRACE_SEMAPHORE(probe) extern volatile unsigned short flare_##probe##_semaphore;
#define FLARE_TRACE_ON(probe) __builtin_expect(flare_##probe##_semaphore != 0, 0)
#else
#define FLARE_TRACE_SEMAPHORE(probe)
#define FLARE_TRACE_ON(probe) 0
#endif

/* X-macros of every probe, so that the semaphores and this list cannot
 * drift apart: the two whose semaphores share a word (below), the rest,
 * and all of them. */
#define FLARE_TRACE_EVENT_PROBES(X) X(event_sent) X(value_sent)
#define FLARE_TRACE_OTHER_PROBES(X)                                                                           \
    X(signal_created) X(signal_named) X(signal_ended) X(signal_freed) X(observer_attached)                    \
        X(observer_disposed) X(event_queued) X(batch_handed) X(sender_waiting) X(sender_released)              \
            X(drain_started) X(drain_ended) X(run_started) X(run_ended) X(inner_started) X(inner_ended)
#define FLARE_TRACE_PROBES(X) FLARE_TRACE_EVENT_PROBES(X) FLARE_TRACE_OTHER_PROBES(X)

FLARE_TRACE_PROBES(FLARE_TRACE_SEMAPHORE)

#ifdef FLARE_TRACE_USDT
/**
 * event_sent's and value_sent's semaphores, as one aligned 32-bit word
 * (trace.c defines the two semaphore symbols at its halves): the check on
 * the value path of every delivery, `flare_trace_events_on`, is one load
 * of it and one branch, whichever of the two probes is traced.
 */
typedef union flare_trace_event_semaphores {
    struct {
        unsigned short event_sent, value_sent;
    } probe;
    uint32_t any;
} flare_trace_event_semaphores;
extern volatile flare_trace_event_semaphores flare_event_semaphores;
#endif

/* ------------------------------------------------------------------------ */
/* Labels: a signal's name (T5)                                              */
/* ------------------------------------------------------------------------ */

/** A name given to a core; see T5. */
typedef struct flare_trace_label {
    /** The label this one replaced, kept until the core goes. */
    struct flare_trace_label *previous;
    /** The Swift layer's description of values (a retained object), or
     *  NULL: String(describing:). Released by `flare_core_destroy` through
     *  its `release_ctx`. */
    void *describe;
    char name[];
} flare_trace_label;

/** A label with a copy of `name` and the retained `describe` (or NULL),
 *  not yet attached to a core. */
flare_trace_label *flare_trace_label_new(const char *name, void *describe);

/** Names `c` (any thread, any time): pushes `label` in front of the
 *  current one by a releasing CAS, and fires signal_named. */
void flare_core_set_label(flare_core *c, flare_trace_label *label);

/** The current label of `c`, or NULL (acquire: its name and describe
 *  were written before the push that published it). */
static inline flare_trace_label *flare_core_label(const flare_core *c) {
    return (flare_trace_label *)AO_load_acquire((volatile AO_t *)&c->label);
}

/** The current name of `c`, or "". */
static inline const char *flare_core_name(const flare_core *c) {
    flare_trace_label *l = flare_core_label(c);
    return l ? l->name : "";
}

/** Frees `c`'s labels, releasing their `describe` objects through
 *  `release_ctx` (if not NULL); `flare_core_destroy` calls it. */
void flare_trace_free_labels(flare_core *c, void (*release_ctx)(void *ctx));

/** A fresh id for a run or an inner (T4): never 0 nor reused. */
uint64_t flare_trace_next_id(void);

/* ------------------------------------------------------------------------ */
/* Firing functions (T2): call only behind FLARE_TRACE_ON of the same probe  */
/* ------------------------------------------------------------------------ */

void flare_trace_signal_created(const flare_core *c);
void flare_trace_signal_ended(const flare_core *c, int how, size_t observers);
void flare_trace_signal_freed(const flare_core *c);
void flare_trace_event_sent(const flare_core *c, int kind);
void flare_trace_value_sent(const flare_core *c, const char *description);
void flare_trace_observer_attached(const flare_core *c, const flare_entry *e);
void flare_trace_observer_disposed(const flare_core *c, const flare_entry *e);
void flare_trace_event_queued(const flare_serial *s, const flare_core *c, int kind, bool reentrant);
void flare_trace_batch_handed(const flare_serial *s, const void *batch, unsigned int events);
void flare_trace_sender_waiting(const flare_serial *s, unsigned int ticket);
void flare_trace_sender_released(const flare_serial *s, unsigned int ticket, int result, unsigned int rounds);
void flare_trace_drain_started(const flare_serial *s, const flare_core *c);
void flare_trace_drain_ended(const flare_serial *s, unsigned int delivered);
void flare_trace_run_started(uint64_t run, const char *name);
void flare_trace_run_ended(uint64_t run, const char *name, int how);
void flare_trace_run_event_sent(uint64_t run, const char *name, int kind);
void flare_trace_run_value_sent(uint64_t run, const char *name, const char *description);
void flare_trace_inner_started(const void *flatten, const void *inner, uint64_t generation, int strategy);
void flare_trace_inner_ended(const void *flatten, const void *inner, uint64_t generation, int how);

/* ------------------------------------------------------------------------ */
/* Checks for the Swift layer (T1): the probe points it owns                 */
/* ------------------------------------------------------------------------ */

/** Whether event_sent or value_sent is traced: the one test on the value
 *  path of every delivery (one load of both semaphores, one branch). */
static inline bool flare_trace_events_on(void) {
#ifdef FLARE_TRACE_USDT
    return __builtin_expect(flare_event_semaphores.any != 0, 0);
#else
    return false;
#endif
}

/** Whether value_sent is traced: only then is a description computed (T6). */
static inline bool flare_trace_values_on(void) { return FLARE_TRACE_ON(value_sent); }

/** Whether event_sent is traced. */
static inline bool flare_trace_event_sent_on(void) { return FLARE_TRACE_ON(event_sent); }

/** Whether signal_ended is traced. */
static inline bool flare_trace_signal_ended_on(void) { return FLARE_TRACE_ON(signal_ended); }

/** Whether event_queued is traced. */
static inline bool flare_trace_event_queued_on(void) { return FLARE_TRACE_ON(event_queued); }

/** Whether drain_started is traced. */
static inline bool flare_trace_drain_started_on(void) { return FLARE_TRACE_ON(drain_started); }

/** Whether any run probe is traced: a named producer's run takes an id
 *  and reports its start, events and end only then. */
static inline bool flare_trace_runs_on(void) {
    return FLARE_TRACE_ON(run_started) || FLARE_TRACE_ON(run_ended) || FLARE_TRACE_ON(event_sent) ||
           FLARE_TRACE_ON(value_sent);
}

/** Whether run_ended is traced. */
static inline bool flare_trace_run_ended_on(void) { return FLARE_TRACE_ON(run_ended); }

/** Whether run_started is traced. */
static inline bool flare_trace_run_started_on(void) { return FLARE_TRACE_ON(run_started); }

/** Whether inner_started or inner_ended is traced. */
static inline bool flare_trace_inners_on(void) { return FLARE_TRACE_ON(inner_started) || FLARE_TRACE_ON(inner_ended); }

#ifdef __cplusplus
}
#endif

#endif /* FLARE_TRACE_H */
