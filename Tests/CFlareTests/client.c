/*
 * client.c — the reference client (see client.h). Each function names the
 * Swift driver method (SerialDriver.swift, SignalCore.swift) it mirrors;
 * both follow the steps of
 * flare_deliver.h and flare_drain.h, so the control flow is the same
 * switch on the same verdicts.
 */
#include "client.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

bool client_keep_released = true;
bool client_batching = true;

/*
 * Statistics and released contexts are kept per thread and folded into the
 * totals when the thread exits. Shared counters bumped with full RMWs would
 * order every thread's bump after the previous one's, and a shared lock in
 * `client_observer_release` likewise: happens-before edges between threads
 * the core itself may leave unordered, which would hide a missing ordering
 * in the core from ThreadSanitizer (the stress tests run under it). The
 * totals are exact once every other thread has been joined, which is when
 * the tests read them. The block lives behind the key's value, so the exit
 * destructor owns what it folds (see pool.c).
 */
typedef struct client_thread {
    client_stats stats;
    client_observer **graveyard; /* released contexts kept poisoned until client_reap */
    size_t graveyard_count, graveyard_capacity;
} client_thread;

static pthread_mutex_t totals_lock = PTHREAD_MUTEX_INITIALIZER;
static client_thread totals; /* exited threads' blocks, folded; guarded by totals_lock */
static pthread_key_t thread_key;
static pthread_once_t thread_key_once = PTHREAD_ONCE_INIT;
static _Thread_local client_thread *current;

static void *must(void *p) {
    if (!p) {
        fputs("client: out of memory\n", stderr);
        abort();
    }
    return p;
}

#define CLIENT_REQUIRE(cond)                                                           \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: client invariant violated: %s\n", __FILE__,        \
                    __LINE__, #cond);                                                  \
            abort();                                                                   \
        }                                                                              \
    } while (0)

static void bury(client_thread *t, client_observer *o) {
    if (t->graveyard_count == t->graveyard_capacity) {
        t->graveyard_capacity = t->graveyard_capacity ? t->graveyard_capacity * 2 : 64;
        t->graveyard = must(realloc(t->graveyard, t->graveyard_capacity * sizeof *t->graveyard));
    }
    t->graveyard[t->graveyard_count++] = o;
}

static void add_stats(client_stats *into, const client_stats *from) {
    into->observers_created += from->observers_created;
    into->observers_released += from->observers_released;
    into->nodes_created += from->nodes_created;
    into->nodes_freed += from->nodes_freed;
    into->sends_queued += from->sends_queued;
    into->sends_batched += from->sends_batched;
    into->disposals_released += from->disposals_released;
    into->disposals_deferred += from->disposals_deferred;
}

/* Frees the contexts kept in `t`'s graveyard. */
static void empty_graveyard(client_thread *t) {
    for (size_t i = 0; i < t->graveyard_count; i++) free(t->graveyard[i]);
    free(t->graveyard);
    t->graveyard = NULL;
    t->graveyard_count = t->graveyard_capacity = 0;
}

static void thread_exit(void *block) {
    client_thread *t = block;
    pthread_mutex_lock(&totals_lock);
    add_stats(&totals.stats, &t->stats);
    for (size_t i = 0; i < t->graveyard_count; i++) bury(&totals, t->graveyard[i]);
    pthread_mutex_unlock(&totals_lock);
    free(t->graveyard);
    free(t);
    current = NULL;
}

static void make_thread_key(void) { CLIENT_REQUIRE(pthread_key_create(&thread_key, thread_exit) == 0); }

/* This thread's block, made on first use. */
static client_thread *me(void) {
    client_thread *t = current;
    if (t) return t;
    pthread_once(&thread_key_once, make_thread_key);
    t = must(calloc(1, sizeof *t));
    CLIENT_REQUIRE(pthread_setspecific(thread_key, t) == 0);
    current = t;
    return t;
}

client_stats client_get_stats(void) {
    client_stats sum = me()->stats;
    pthread_mutex_lock(&totals_lock);
    add_stats(&sum, &totals.stats);
    pthread_mutex_unlock(&totals_lock);
    return sum;
}

client_observer *client_observer_new(client_action action, void *user) {
    client_observer *o = must(malloc(sizeof *o));
    o->magic = CLIENT_OBSERVER_LIVE;
    o->action = action;
    o->user = user;
    o->in_call = 0;
    me()->stats.observers_created++;
    return o;
}

void client_observer_release(void *ctx) {
    client_observer *o = ctx;
    if (!o) return;
    CLIENT_REQUIRE(o->magic == CLIENT_OBSERVER_LIVE); /* released exactly once */
    CLIENT_REQUIRE(AO_load(&o->in_call) == 0);        /* never while it runs */
    o->magic = CLIENT_OBSERVER_RELEASED;
    client_thread *t = me();
    t->stats.observers_released++;
    if (client_keep_released) {
        bury(t, o);
    } else {
        free(o);
    }
}

void client_reap(void) {
    empty_graveyard(me());
    pthread_mutex_lock(&totals_lock);
    empty_graveyard(&totals);
    pthread_mutex_unlock(&totals_lock);
}

/* Calls an observer (`_withUnsafeGuaranteedRef { $0.action(event) }`). */
static void call(void *ctx, client_event ev) {
    client_observer *o = ctx;
    CLIENT_REQUIRE(o->magic == CLIENT_OBSERVER_LIVE); /* no use after release */
    CLIENT_REQUIRE(AO_fetch_compare_and_swap_full(&o->in_call, 0, 1) == 0);
    o->action(o, ev);
    CLIENT_REQUIRE(o->magic == CLIENT_OBSERVER_LIVE); /* not released under us */
    AO_store_release(&o->in_call, 0);
}

static void release_thunk(void *ctx) { client_observer_release(ctx); }

/* Event nodes: the C node header, then the event (_EventNode.make / take). */
typedef struct client_node {
    flare_node node;
    client_event ev;
} client_node;

/* Batch slots hold a client_event (flare_batch.h). A counted batch's
 * events count as counted nodes do, from their commit to their taking: at
 * most `limit` of them are queued, with the counted nodes. (Counted after
 * the commit, so a drainer may take one first: the count dips below zero
 * for a moment, never above the true number.) An event still in the
 * sender's hands (before its commit, or moving after a seal) is not queued:
 * it waits for a credit as a sender waits for a slot. */
static void note_counted(client_signal *s) {
    long live = (long)(AO_fetch_and_add_full(&s->counted_live, 1) + 1);
    /* A cycle break admits a whole group of credits (at most 32,
     * flare_serial_return_batch). */
    CLIENT_REQUIRE(live <= (long)s->limit + flare_serial_debug_cycles(s->serial) * 32);
    AO_t peak = AO_load(&s->counted_peak);
    while (live > (long)peak && AO_fetch_compare_and_swap_full(&s->counted_peak, peak, (AO_t)live) != peak)
        peak = AO_load(&s->counted_peak);
}

static flare_node *make_node(client_signal *s, client_event ev, AO_t kind) {
    client_node *n = must(malloc(sizeof *n));
    n->node.next = NULL;
    n->node.kind = kind;
    n->ev = ev;
    if (kind == FLARE_NODE_COUNTED) {
        /* The limit's invariant, checked at every admission: at most
         * `limit` counted nodes, plus those queued at once because waiting
         * would have closed a cycle of waits (waits.h). */
        note_counted(s);
    }
    me()->stats.nodes_created++;
    return &n->node;
}

/* _EventNode.take: frees the node; a counted one gives up its place in the count
 * before the caller returns its slot. */
static client_event take_event(client_signal *s, flare_node *node) {
    client_node *n = (client_node *)node;
    CLIENT_REQUIRE(node->kind == FLARE_NODE_EVENT || node->kind == FLARE_NODE_COUNTED);
    if (node->kind == FLARE_NODE_COUNTED) AO_fetch_and_add_full(&s->counted_live, (AO_t)-1);
    client_event ev = n->ev;
    free(n);
    me()->stats.nodes_freed++;
    return ev;
}

static client_event take_slot(client_signal *s, void *slot, bool counted) {
    client_event *p = slot;
    CLIENT_REQUIRE(p->kind == CLIENT_VALUE);
    client_event ev = *p;
    p->kind = -1; /* taken: a second take fails the check above */
    if (counted) AO_fetch_and_add_full(&s->counted_live, (AO_t)-1);
    return ev;
}

/* ---------------------------------------------------------------------------- */

void client_signal_init_root(client_signal *s) { client_signal_init_root_limited(s, 0); }

void client_signal_init_root_limited(client_signal *s, unsigned int limit) {
    flare_serial_init(&s->own_serial);
    flare_serial_set_limit(&s->own_serial, limit);
    s->limit = limit;
    s->serial = &s->own_serial;
    flare_core_init(&s->core, s->serial);
    flare_core_publish(&s->core); /* as _SignalCore: roots from the start */
    s->is_root = true;
    s->lifetime_ended = 0;
    s->delivering = 0;
    s->counted_live = 0;
    s->counted_peak = 0;
}

void client_signal_init_derived(client_signal *s, client_signal *upstream) {
    s->serial = upstream->serial;
    flare_core_init(&s->core, s->serial);
    s->is_root = false;
    s->lifetime_ended = 0;
    s->delivering = 0;
    s->counted_live = 0;
    s->counted_peak = 0;
}

void client_signal_destroy(client_signal *s) { flare_core_destroy(&s->core, release_thunk); }

static void end_lifetime(client_signal *s) { AO_fetch_and_add_full(&s->lifetime_ended, 1); }

static bool deliver(client_signal *s, client_event ev);
static void finish_root_termination(client_signal *s, flare_drain *d);

/* drain: follows flare_drain_next's verdicts. */
static void drain(client_signal *s, flare_node *first) {
    flare_drain d;
    flare_drain_begin(&d, &s->core, first);
    for (;;) {
        switch (flare_drain_next(&d)) {
        case FLARE_DRAIN_DELIVER: {
            client_event ev = take_event(s, d.node);
            flare_drain_taken(&d);
            if (deliver(s, ev)) {
                finish_root_termination(s, &d);
                return;
            }
            break;
        }
        case FLARE_DRAIN_DELIVER_SLOT: {
            client_event ev = take_slot(s, d.slot, d.counted);
            flare_drain_taken(&d);
            if (deliver(s, ev)) {
                finish_root_termination(s, &d);
                return;
            }
            break;
        }
        case FLARE_DRAIN_RELEASE:
            client_observer_release(d.ctx);
            break;
        case FLARE_DRAIN_INTERRUPT: /* interruptPromptly */
            if (d.node) (void)take_event(s, d.node);
            CLIENT_REQUIRE(deliver(s, client_terminal(CLIENT_INTERRUPTED)));
            finish_root_termination(s, &d);
            return;
        default: /* FLARE_DRAIN_END: the word is released */
            return;
        }
    }
}

/* finishTermination: follows flare_drain_next_closed's verdicts. */
static void finish_root_termination(client_signal *s, flare_drain *d) {
    flare_drain_close(d);
    for (;;) {
        switch (flare_drain_next_closed(d)) {
        case FLARE_DRAIN_DROP:
            (void)take_event(s, d->node);
            break;
        case FLARE_DRAIN_DROP_SLOT:
            (void)take_slot(s, d->slot, d->counted);
            break;
        case FLARE_DRAIN_RELEASE:
            client_observer_release(d->ctx);
            break;
        default:
            end_lifetime(s);
            return;
        }
    }
}

/* deliverAndLeave: after delivering its own event, the sender finishes the
 * termination it caused or releases the word and drains what is queued. */
static void deliver_and_leave(client_signal *s, client_event ev) {
    if (deliver(s, ev)) {
        flare_drain d;
        flare_drain_begin(&d, &s->core, NULL);
        finish_root_termination(s, &d);
    } else {
        flare_node *pending = flare_serial_release(s->serial);
        if (pending) drain(s, pending);
    }
}

static flare_event_class event_class(client_event ev) {
    return ev.kind == CLIENT_VALUE         ? FLARE_EVENT_VALUE
           : ev.kind == CLIENT_INTERRUPTED ? FLARE_EVENT_INTERRUPTED
                                           : FLARE_EVENT_TERMINAL;
}

/* sendQueued, a value: the batch path (flare_batch.h). False: take the
 * node path. */
static bool send_batched(client_signal *s, client_event ev) {
    flare_batch_send tx;
    switch (flare_batch_begin(s->serial, sizeof ev, &tx)) {
    case FLARE_BATCH_SLOT:
        break;
    case FLARE_BATCH_CLOSED:
        return true;
    default:
        return false;
    }
    *(client_event *)tx.slot = ev;
    for (;;) {
        switch (flare_batch_commit(&tx)) {
        case FLARE_BATCH_SLOT:
            if (tx.batch->counted) note_counted(s);
            me()->stats.sends_queued++;
            me()->stats.sends_batched++;
            return true;
        case FLARE_BATCH_MOVE:
            *(client_event *)tx.moved_to = *(client_event *)tx.slot;
            ((client_event *)tx.slot)->kind = -1;
            continue;
        case FLARE_BATCH_ACQUIRED: {
            client_event own = take_slot(s, tx.slot, false);
            flare_batch_return_own_credits(&tx);
            deliver_and_leave(s, own);
            return true;
        }
        default:
            (void)take_slot(s, tx.slot, false);
            return true;
        }
    }
}

/* sendQueued */
static void send_queued(client_signal *s, client_event ev) {
    if (ev.kind == CLIENT_VALUE && client_batching && send_batched(s, ev)) return;
    intptr_t kind = flare_queue_kind(&s->core, event_class(ev));
    if (kind == FLARE_QUEUE_DROP) return;
    flare_node *node = make_node(s, ev, (AO_t)kind);
    switch (flare_serial_push(s->serial, node, true)) {
    case FLARE_PUSH_QUEUED:
        me()->stats.sends_queued++;
        return;
    case FLARE_PUSH_ACQUIRED: {
        bool counted = flare_node_is_counted(node);
        client_event own = take_event(s, node);
        flare_serial_return_own_slot(s->serial, counted);
        deliver_and_leave(s, own);
        return;
    }
    default:
        (void)take_event(s, node);
    }
}

/* send */
void client_send(client_signal *s, client_event ev) {
    CLIENT_REQUIRE(s->is_root);
    if (flare_serial_try_acquire(s->serial)) {
        deliver_and_leave(s, ev);
    } else {
        send_queued(s, ev);
    }
}

/* deliverTerminal */
static bool deliver_terminal(client_signal *s, client_event ev) {
    if (!flare_core_begin_termination(&s->core)) return false;
    size_t count = s->core.count;
    flare_entry **items = s->core.items;
    for (size_t i = 0; i < count; i++) {
        void *ctx = flare_entry_take_done(items[i]);
        if (ctx) {
            call(ctx, ev);
            client_observer_release(ctx);
        }
    }
    flare_late late = flare_core_end_termination(&s->core);
    void *ctx;
    while ((ctx = flare_late_next(&late))) {
        call(ctx, client_terminal(CLIENT_INTERRUPTED));
        client_observer_release(ctx);
    }
    return true;
}

/* deliver (plus the serialization check) */
static bool deliver(client_signal *s, client_event ev) {
    CLIENT_REQUIRE(AO_fetch_and_add_full(&s->delivering, 1) == 0);
    FLARE_DRAINER_ONLY(s->serial);
    CLIENT_REQUIRE(flare_serial_peek(s->serial) != FLARE_SERIAL_IDLE &&
                   flare_serial_peek(s->serial) != FLARE_SERIAL_CLOSED);
    bool terminated = false;
    flare_core_begin_delivery(&s->core);
    if (ev.kind != CLIENT_VALUE) {
        terminated = deliver_terminal(s, ev);
    } else if (s->core.count != 0) {
        size_t count = s->core.count;
        flare_entry **items = s->core.items;
        size_t dead = 0;
        for (size_t i = 0; i < count; i++) {
            void *ctx = flare_entry_observer(items[i]);
            if (ctx) {
                call(ctx, ev);
            } else {
                dead++;
            }
        }
        flare_core_note_dead(&s->core, dead);
    }
    flare_core_check_invariants(&s->core); /* between steps (FLARE_DEBUG_CHECKS) */
    AO_fetch_and_add_full(&s->delivering, (AO_t)-1);
    return terminated;
}

/* deliverHeld */
void client_deliver_held(client_signal *s, client_event ev) {
    CLIENT_REQUIRE(!s->is_root);
    if (deliver(s, ev)) end_lifetime(s);
}

/* observe */
client_observation *client_observe(client_signal *s, client_observer *o) {
    flare_core_retain(&s->core);
    flare_entry *e = flare_entry_new(o, NULL);
    if (flare_core_attach(&s->core, e) == FLARE_ATTACHED) {
        client_observation *h = must(malloc(sizeof *h));
        h->signal = s;
        h->entry = e;
        return h;
    }
    if (flare_entry_claim(e, FLARE_ENTRY_DONE)) {
        call(o, client_terminal(CLIENT_INTERRUPTED));
        client_observer_release(flare_entry_ctx(e));
    }
    flare_entry_unref(e);
    client_drop_retainer(s);
    return NULL;
}

/* dispose */
flare_dispose_result client_dispose(client_observation *h) {
    flare_dispose_result r = flare_entry_dispose(&h->signal->core, h->entry);
    switch (r) {
    case FLARE_DISPOSE_RELEASE:
        me()->stats.disposals_released++;
        client_observer_release(flare_entry_ctx(h->entry));
        client_drop_retainer(h->signal);
        break;
    case FLARE_DISPOSE_DEFERRED:
        me()->stats.disposals_deferred++;
        client_drop_retainer(h->signal);
        break;
    default:
        break;
    }
    return r;
}

void client_observation_free(client_observation *h) {
    if (!h) return;
    flare_entry_unref(h->entry);
    free(h);
}

/* dropRetainer */
void client_drop_retainer(client_signal *s) {
    if (!flare_core_release(&s->core)) return;
    if (s->is_root) {
        client_send(s, client_terminal(CLIENT_INTERRUPTED));
    } else if (flare_core_abandon(&s->core)) {
        end_lifetime(s);
    }
}
