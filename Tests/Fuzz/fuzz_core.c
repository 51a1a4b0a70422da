/*
 * fuzz_core.c — libFuzzer target: random single-threaded operation sequences
 * (send, reentrant send, observe, observe from inside a callback, dispose from
 * outside and inside callbacks, terminal events, dropping the signal handle)
 * run through the reference client (Tests/CFlareTests/client.c, i.e. the C
 * core driven as SignalCore.swift drives it) and through a plain reference
 * model of the contracts in docs/contracts.md. The delivered logs (which observer
 * got which event, in which order) and every dispose result must match, and
 * afterwards nothing may be left allocated. Released observer contexts are
 * freed at once, so a late call is a use-after-free for ASan.
 *
 * Input: pairs of bytes (op, arg). Reactions ("when observer k is next
 * called, do X") are armed by the input and fire inside callbacks.
 */
#include "client.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_OBS = 12, MAX_LOG = 4096, MAX_QUEUE = 1024 };

/* ---- the script, shared by both systems ------------------------------------ */

enum { R_NONE, R_SEND, R_DISPOSE, R_OBSERVE, R_TERMINATE, R_DROP_HANDLE, R_KINDS };

typedef struct reaction {
    int kind;
    int arg;
} reaction;

typedef struct entry {
    int observer;
    int kind;
    long value;
} entry;

/* One system under test (the client over the core, or the reference). */
typedef struct sys {
    bool is_ref;
    entry log[MAX_LOG];
    int log_n;
    int dispose_results[MAX_LOG]; /* NOOP / RELEASE / DEFERRED, in call order */
    int dispose_n;
    int nobs;
    reaction armed[MAX_OBS];
    bool handle_dropped;
    /* client */
    client_signal sig;
    client_observation *handles[MAX_OBS];
    /* reference model */
    int ref_state[MAX_OBS]; /* 0 active, 1 disposed, 2 done */
    bool ref_has_handle[MAX_OBS];
    bool ref_spliced[MAX_OBS]; /* entered the array: a drain may call it */
    int items[MAX_OBS], items_n;
    int adds[MAX_OBS], adds_n;
    client_event queue[MAX_QUEUE];
    int q_head, q_tail;
    bool delivering, term_started, sealed, closed;
    /* `interrupted` was sent while delivering: it overtakes the queue. */
    bool interrupt_requested;
    long retainers;
} sys;

static sys systems[2];

static void sys_send(sys *s, client_event ev);
static void sys_observe(sys *s);
static void sys_dispose(sys *s, int k);
static void sys_drop_handle(sys *s);

static void run_reaction(sys *s, int id) {
    reaction r = s->armed[id];
    s->armed[id] = (reaction){R_NONE, 0};
    switch (r.kind) {
    case R_SEND: sys_send(s, client_value(100000 + id * 1000 + r.arg)); break;
    case R_DISPOSE: if (s->nobs) sys_dispose(s, r.arg % s->nobs); break;
    case R_OBSERVE: sys_observe(s); break;
    case R_TERMINATE: sys_send(s, client_terminal(1 + r.arg % 3)); break;
    case R_DROP_HANDLE: sys_drop_handle(s); break;
    default: break;
    }
}

static void record(sys *s, int id, client_event ev) {
    if (s->log_n < MAX_LOG) s->log[s->log_n++] = (entry){id, ev.kind, ev.value};
    run_reaction(s, id);
}

/* ---- system 1: the client over the core ---------------------------------------- */

typedef struct obs_user {
    sys *s;
    int id;
} obs_user;

static obs_user users[MAX_OBS];

static void client_action_fn(client_observer *o, client_event ev) {
    obs_user *u = o->user;
    record(u->s, u->id, ev);
}

/* ---- system 2: the reference model --------------------------------------------- */

static void ref_call(sys *s, int id, client_event ev) { record(s, id, ev); }

static void ref_process(sys *s, client_event ev) {
    /* splice: additions still active join the array, in attach order */
    for (int i = 0; i < s->adds_n; i++) {
        if (s->ref_state[s->adds[i]] == 0) {
            s->ref_spliced[s->adds[i]] = true;
            s->items[s->items_n++] = s->adds[i];
        }
    }
    s->adds_n = 0;
    if (ev.kind == CLIENT_VALUE) {
        int n = s->items_n; /* callbacks only add to the additions */
        for (int i = 0; i < n; i++) {
            if (s->ref_state[s->items[i]] == 0) ref_call(s, s->items[i], ev);
        }
        return;
    }
    s->term_started = true;
    int n = s->items_n;
    for (int i = 0; i < n; i++) {
        int id = s->items[i];
        if (s->ref_state[id] == 0) {
            s->ref_state[id] = 2;
            ref_call(s, id, ev);
        }
    }
    s->items_n = 0;
    /* The seal closes the stack and takes the late observers in one step,
     * then they are interrupted. Observers attached from inside the
     * terminal delivery were refused (see sys_observe), so only those
     * attached before it and not spliced yet are late here; one attached
     * by one of those callbacks is interrupted by its own `observe`. */
    int late[MAX_OBS], late_n = s->adds_n;
    memcpy(late, s->adds, sizeof late);
    s->adds_n = 0;
    s->sealed = true;
    s->closed = true;
    for (int i = 0; i < late_n; i++) {
        if (s->ref_state[late[i]] == 0) {
            s->ref_state[late[i]] = 2;
            ref_call(s, late[i], client_terminal(CLIENT_INTERRUPTED));
        }
    }
    s->q_head = s->q_tail = 0;
}

static void ref_send(sys *s, client_event ev) {
    if (s->closed) return;
    if (s->delivering) {
        if (ev.kind == CLIENT_INTERRUPTED) s->interrupt_requested = true;
        if (s->q_tail < MAX_QUEUE) s->queue[s->q_tail++] = ev;
        return;
    }
    s->delivering = true;
    ref_process(s, ev);
    while (!s->closed && s->q_head < s->q_tail) {
        /* Contract 8: the current event has finished; `interrupted` comes
         * next, and nothing still queued is delivered. */
        if (s->interrupt_requested) {
            ref_process(s, client_terminal(CLIENT_INTERRUPTED));
            break;
        }
        ref_process(s, s->queue[s->q_head++]);
    }
    s->q_head = s->q_tail = 0;
    s->delivering = false;
}

static void ref_drop_retainer(sys *s) {
    if (--s->retainers == 0) ref_send(s, client_terminal(CLIENT_INTERRUPTED));
}

/* ---- the operations, on either system ----------------------------------------- */

static void sys_send(sys *s, client_event ev) {
    if (s->is_ref) ref_send(s, ev);
    else client_send(&s->sig, ev);
}

static void sys_observe(sys *s) {
    if (s->nobs == MAX_OBS) return;
    int id = s->nobs++;
    if (!s->is_ref) {
        users[id] = (obs_user){s, id};
        s->handles[id] = client_observe(&s->sig, client_observer_new(client_action_fn, &users[id]));
        return;
    }
    s->retainers++;
    /* Sealed, or observed from inside the terminal delivery (this
     * single-threaded script's only thread is then its drainer): refused,
     * and interrupted at once by `observe` itself (contract 5). */
    if (s->sealed || s->term_started) {
        s->ref_state[id] = 2;
        s->ref_has_handle[id] = false;
        ref_call(s, id, client_terminal(CLIENT_INTERRUPTED));
        ref_drop_retainer(s);
        return;
    }
    s->ref_state[id] = 0;
    s->ref_has_handle[id] = true;
    s->ref_spliced[id] = false;
    s->adds[s->adds_n++] = id;
}

static void sys_dispose(sys *s, int k) {
    int result;
    if (!s->is_ref) {
        if (!s->handles[k]) return;
        result = client_dispose(s->handles[k]);
    } else {
        if (!s->ref_has_handle[k]) return;
        if (s->ref_state[k] != 0) {
            result = FLARE_DISPOSE_NOOP;
        } else {
            s->ref_state[k] = 1;
            /* Never spliced into the array: released at once even
             * mid-delivery (no drain will call it), and retracted if it is
             * still the newest addition; otherwise a splice or seal drops it. */
            if (s->adds_n > 0 && s->adds[s->adds_n - 1] == k) s->adds_n--;
            bool deferred = s->delivering && !s->closed && s->ref_spliced[k];
            result = deferred ? FLARE_DISPOSE_DEFERRED : FLARE_DISPOSE_RELEASE;
            ref_drop_retainer(s);
        }
    }
    if (s->dispose_n < MAX_LOG) s->dispose_results[s->dispose_n++] = result;
}

static void sys_drop_handle(sys *s) {
    if (s->handle_dropped) return;
    s->handle_dropped = true;
    if (s->is_ref) ref_drop_retainer(s);
    else client_drop_retainer(&s->sig);
}

/* ---- one run ----------------------------------------------------------------------- */

static void run(sys *s, const uint8_t *data, size_t size) {
    long next_value = 0;
    for (size_t i = 0; i + 1 < size; i += 2) {
        uint8_t op = data[i], arg = data[i + 1];
        switch (op % 8) {
        case 0:
        case 1: sys_send(s, client_value(next_value++)); break;
        case 2: sys_observe(s); break;
        case 3: if (s->nobs) sys_dispose(s, arg % s->nobs); break;
        case 4: sys_send(s, client_terminal(1 + arg % 3)); break;
        case 5:
            if (s->nobs) {
                int kind = 1 + (arg >> 4) % (R_KINDS - 1);
                s->armed[arg % s->nobs] = (reaction){kind, arg};
            }
            break;
        case 6: sys_drop_handle(s); break;
        case 7: /* a burst of sends */
            for (int k = 0; k < arg % 8; k++) sys_send(s, client_value(next_value++));
            break;
        }
    }
    sys_send(s, client_terminal(CLIENT_COMPLETED));
}

static void fail(const char *what, int at) {
    fprintf(stderr, "fuzz_core: %s differ at %d\n", what, at);
    for (int k = 0; k < 2; k++) {
        sys *s = &systems[k];
        fprintf(stderr, "%s log (%d):", k ? "reference" : "client", s->log_n);
        for (int i = 0; i < s->log_n; i++) {
            fprintf(stderr, " %d:%d/%ld", s->log[i].observer, s->log[i].kind, s->log[i].value);
        }
        fprintf(stderr, "\n%s disposes:", k ? "reference" : "client");
        for (int i = 0; i < s->dispose_n; i++) fprintf(stderr, " %d", s->dispose_results[i]);
        fprintf(stderr, "\n");
    }
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    client_keep_released = false; /* late calls are use-after-free: ASan sees them */
    client_stats before = client_get_stats();
    long live = flare_debug_live_entries();

    sys *c = &systems[0], *r = &systems[1];
    memset(systems, 0, sizeof systems);
    r->is_ref = true;
    r->retainers = 1;
    client_signal_init_root(&c->sig);
    run(c, data, size);
    run(r, data, size);

    if (c->log_n != r->log_n) fail("log lengths", c->log_n < r->log_n ? c->log_n : r->log_n);
    for (int i = 0; i < c->log_n; i++) {
        entry a = c->log[i], b = r->log[i];
        if (a.observer != b.observer || a.kind != b.kind || (a.kind == CLIENT_VALUE && a.value != b.value)) {
            fail("logs", i);
        }
    }
    if (c->dispose_n != r->dispose_n) fail("dispose counts", 0);
    for (int i = 0; i < c->dispose_n; i++) {
        if (c->dispose_results[i] != r->dispose_results[i]) fail("dispose results", i);
    }
    if (AO_load(&c->sig.lifetime_ended) != 1) fail("lifetime endings", 0);
    if (flare_serial_peek(c->sig.serial) != FLARE_SERIAL_CLOSED) fail("serial word states", 0);

    for (int i = 0; i < c->nobs; i++) client_observation_free(c->handles[i]);
    if (!c->handle_dropped) client_drop_retainer(&c->sig);
    client_signal_destroy(&c->sig);

    client_stats after = client_get_stats();
    if (flare_debug_live_entries() != live) fail("live entries", 0);
    if (after.nodes_created - before.nodes_created != after.nodes_freed - before.nodes_freed) {
        fail("nodes created and freed", 0);
    }
    if (after.observers_created - before.observers_created !=
        after.observers_released - before.observers_released) {
        fail("observers created and released", 0);
    }
    return 0;
}
