/*
 * client.h — a reference client of the C core, for tests and the fuzzer.
 *
 * It drives flare.h the way Sources/Flare/Engine/Signal/SerialDriver.swift,
 * SignalCore.swift, SignalCore+Delivery.swift and HeldCore.swift do
 * (send, sendQueued, drain, deliver, deliverTerminal, finishTermination,
 * observe, dispose, dropRetainer, deliverHeld), with C structs in place of
 * Swift objects, so the core's protocol can be tested, stressed, fuzzed and
 * run under valgrind without the Swift runtime. The protocol itself (what a
 * delivering thread does after each step) is not restated here: like
 * SerialDriver.swift, the client follows the verdicts of the steps in
 * flare_deliver.h (flare_queue_kind, flare_core_begin_delivery,
 * flare_entry_observer, flare_entry_take_done, flare_core_end_termination,
 * flare_late_next) and flare_drain.h (flare_drain_next, flare_drain_taken,
 * flare_drain_close, flare_drain_next_closed), and only moves events in
 * and out of nodes and calls observers. So the C tests and the fuzzer run
 * the library's own protocol code; what is left to keep in step with
 * SerialDriver.swift is that shape (which step's verdict leads where), one
 * switch per loop.
 *
 * On top of the Swift behaviour it checks, at every call, what the Swift code
 * can only hope for: an observer is never called after its context was
 * released, a context is released exactly once, and no two deliveries of one
 * signal (or to one observer) overlap.
 */
#ifndef FLARE_TEST_CLIENT_H
#define FLARE_TEST_CLIENT_H

#include "flare.h"

#include <stdbool.h>
#include <stddef.h>

enum {
    CLIENT_VALUE = 0,
    CLIENT_COMPLETED = 1,
    CLIENT_FAILED = 2,
    CLIENT_INTERRUPTED = 3,
};

typedef struct client_event {
    int kind;
    long value;
} client_event;

static inline client_event client_value(long v) { return (client_event){CLIENT_VALUE, v}; }
static inline client_event client_terminal(int kind) { return (client_event){kind, 0}; }

enum {
    CLIENT_OBSERVER_LIVE = 0x0b5e1ea5u,
    CLIENT_OBSERVER_RELEASED = 0xdeadbeefu,
};

typedef struct client_observer client_observer;
typedef void (*client_action)(client_observer *self, client_event ev);

/** An observer context: what Swift's `Signal.Observer` object is. */
struct client_observer {
    unsigned magic;
    client_action action;
    void *user;
    /** Non-zero while a delivery to this observer runs (overlap detector). */
    volatile AO_t in_call;
};

/** A signal: a core plus the serial word of its domain. */
typedef struct client_signal {
    flare_serial *serial;
    flare_serial own_serial;
    flare_core core;
    bool is_root;
    /** Times the generator's lifetime ended; must end up 0 or 1. */
    volatile AO_t lifetime_ended;
    /** Threads inside `deliver` of this signal (serialization detector). */
    volatile AO_t delivering;
    /** Counted nodes alive (made after admission, not yet freed), and their
     * peak: the queue limit's invariant is peak <= limit (contract 9). */
    volatile AO_t counted_live;
    volatile AO_t counted_peak;
    /** The limit it was made with (the core drops its own to 0 on close). */
    unsigned int limit;
} client_signal;

/** What `observe` returns: Swift's `Observation` disposable. */
typedef struct client_observation {
    client_signal *signal;
    flare_entry *entry;
} client_observation;

/* Observer contexts ------------------------------------------------------- */

/** A retained observer context (Unmanaged.passRetained). */
client_observer *client_observer_new(client_action action, void *user);

/** Releases a context (_releaseObserverContext): exactly once per context. */
void client_observer_release(void *ctx);

/**
 * When true (the default), released contexts are kept, poisoned, until
 * `client_reap`, so a late call is caught by a check instead of being a
 * silent use-after-free. When false they are freed at once, for ASan and
 * valgrind to catch.
 */
extern bool client_keep_released;

/**
 * When true (the default), a value sent while another thread delivers goes
 * into the sending thread's batch (flare_batch.h), as Swift's sendQueued
 * does; when false, into a node of its own.
 */
extern bool client_batching;

/** Frees the contexts kept by `client_keep_released`. */
void client_reap(void);

typedef struct client_stats {
    long observers_created, observers_released;
    long nodes_created, nodes_freed;
    long sends_queued;                          /* behind another drainer */
    long sends_batched;                         /* of those, into a batch */
    long disposals_released, disposals_deferred; /* RELEASE vs DEFERRED */
} client_stats;

client_stats client_get_stats(void);

/* Signals ------------------------------------------------------------------ */

void client_signal_init_root(client_signal *s);
/** A root signal whose queue holds at most `limit` counted events (contract 9). */
void client_signal_init_root_limited(client_signal *s, unsigned int limit);
/** A derived signal in `upstream`'s domain (what a unary operator makes). */
void client_signal_init_derived(client_signal *s, client_signal *upstream);
/** _SignalCore.deinit: only once nothing else can reach the signal. */
void client_signal_destroy(client_signal *s);

/** _SerialDriver.send, for root signals, from any thread. */
void client_send(client_signal *s, client_event ev);

/** _SignalCore.deliverHeld: delivery to a derived signal from inside its upstream's. */
void client_deliver_held(client_signal *s, client_event ev);

/** _SignalCore.observe; NULL (after delivering `interrupted`) if terminated. */
client_observation *client_observe(client_signal *s, client_observer *o);

/** Observation.dispose / _SignalCore.dispose. Returns what the core said. */
flare_dispose_result client_dispose(client_observation *h);

/** Observation.deinit: drops the handle's reference to the entry. */
void client_observation_free(client_observation *h);

/** _SignalCore.dropRetainer, for the Signal handle going away. */
void client_drop_retainer(client_signal *s);

#endif
