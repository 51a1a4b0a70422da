/*
 * test_client.c — the core driven the way SignalCore.swift drives it (through
 * the reference client), one thread: reentrancy, disposal inside callbacks,
 * termination, observing late, retainers, derived signals.
 */
#include "client.h"
#include "harness.h"

#include <stdlib.h>
#include <string.h>

HARNESS_STATE;

/* A log of (observer id, event) in delivery order, across observers. */
typedef struct record {
    int observer;
    int kind;
    long value;
} record;

static record log_[256];
static int log_count;

static void log_reset(void) { log_count = 0; }

/* Scripted reactions, run inside a callback when it sees `on_value`. */
typedef struct script {
    int id;
    long on_value;
    client_signal *signal;
    long send[3];              /* values to send reentrantly (0 = none) */
    int send_terminal;         /* a terminal kind to send after them (0 = none) */
    client_observation **dispose; /* a handle to dispose */
    flare_dispose_result disposed_with;
    client_observer *attach;   /* an observer to attach */
    client_observation *attached;
    bool attach_done;
    bool attach_on_terminal;   /* attach when the terminal event arrives instead */
} script;

static void record_action(client_observer *o, client_event ev) {
    script *sc = o->user;
    log_[log_count++] = (record){sc->id, ev.kind, ev.value};
    if (ev.kind != CLIENT_VALUE && sc->attach_on_terminal && !sc->attach_done) {
        sc->attach_done = true;
        sc->attached = client_observe(sc->signal, sc->attach);
    }
    if (ev.kind != CLIENT_VALUE || ev.value != sc->on_value) return;
    for (int i = 0; i < 3 && sc->send[i]; i++) client_send(sc->signal, client_value(sc->send[i]));
    if (sc->send_terminal) client_send(sc->signal, client_terminal(sc->send_terminal));
    if (sc->dispose) sc->disposed_with = client_dispose(*sc->dispose);
    if (sc->attach && !sc->attach_on_terminal && !sc->attach_done) {
        sc->attach_done = true;
        sc->attached = client_observe(sc->signal, sc->attach);
    }
}

static script scripts[8];

static client_observer *recorder(int id, client_signal *s) {
    memset(&scripts[id], 0, sizeof scripts[id]);
    scripts[id].id = id;
    scripts[id].on_value = -1;
    scripts[id].signal = s;
    return client_observer_new(record_action, &scripts[id]);
}

#define CHECK_LOG(i, obs, k, v)                                                        \
    do {                                                                               \
        CHECK((i) < log_count);                                                        \
        CHECK_EQ(log_[i].observer, obs);                                               \
        CHECK_EQ(log_[i].kind, k);                                                     \
        if ((k) == CLIENT_VALUE) CHECK_EQ(log_[i].value, v);                           \
    } while (0)

/* Everything allocated was given back: entries, nodes, observer contexts. */
static void check_balanced(void) {
    client_stats st = client_get_stats();
    CHECK_EQ(flare_debug_live_entries(), 0);
    CHECK_EQ(st.nodes_created, st.nodes_freed);
    CHECK_EQ(st.observers_created, st.observers_released);
}

static void reentrant_sends_are_queued_fifo(void) {
    client_signal s;
    client_signal_init_root(&s);
    log_reset();
    client_observer *a = recorder(0, &s), *b = recorder(1, &s);
    scripts[0].on_value = 1;
    scripts[0].send[0] = 2;
    scripts[0].send[1] = 3;
    client_observation *ha = client_observe(&s, a), *hb = client_observe(&s, b);
    client_send(&s, client_value(1));
    CHECK_EQ(log_count, 6);
    for (int i = 0; i < 3; i++) {
        CHECK_LOG(2 * i, 0, CLIENT_VALUE, i + 1);
        CHECK_LOG(2 * i + 1, 1, CLIENT_VALUE, i + 1); /* b gets 1 before anyone gets 2 */
    }
    CHECK_EQ(flare_serial_peek(s.serial), FLARE_SERIAL_IDLE);
    client_send(&s, client_terminal(CLIENT_COMPLETED));
    CHECK_LOG(6, 0, CLIENT_COMPLETED, 0);
    CHECK_LOG(7, 1, CLIENT_COMPLETED, 0);
    client_observation_free(ha);
    client_observation_free(hb);
    client_signal_destroy(&s);
    check_balanced();
}

static void terminal_is_last_and_late_observers_are_interrupted(void) {
    client_signal s;
    client_signal_init_root(&s);
    log_reset();
    client_observer *a = recorder(0, &s);
    scripts[0].on_value = 1;
    scripts[0].send[0] = 2;
    scripts[0].send_terminal = CLIENT_FAILED;
    client_observation *ha = client_observe(&s, a);
    client_send(&s, client_value(1));
    /* 1, then 2, then failed; the send of 3 below and a second terminal are dropped. */
    client_send(&s, client_value(3));
    client_send(&s, client_terminal(CLIENT_COMPLETED));
    CHECK_EQ(log_count, 3);
    CHECK_LOG(0, 0, CLIENT_VALUE, 1);
    CHECK_LOG(1, 0, CLIENT_VALUE, 2);
    CHECK_LOG(2, 0, CLIENT_FAILED, 0);
    CHECK_EQ(s.lifetime_ended, 1);
    CHECK_EQ(flare_serial_peek(s.serial), FLARE_SERIAL_CLOSED);
    CHECK_EQ(client_dispose(ha), FLARE_DISPOSE_NOOP); /* done, not disposable */
    /* Observing a terminated signal: interrupted at once, no handle. */
    client_observation *hb = client_observe(&s, recorder(1, &s));
    CHECK(hb == NULL);
    CHECK_LOG(3, 1, CLIENT_INTERRUPTED, 0);
    client_observation_free(ha);
    client_signal_destroy(&s);
    check_balanced();
}

static void attach_during_terminal_delivery_is_interrupted(void) {
    client_signal s;
    client_signal_init_root(&s);
    log_reset();
    client_observer *a = recorder(0, &s);
    client_observer *late = recorder(1, &s);
    scripts[0].attach = late;
    scripts[0].attach_on_terminal = true;
    client_observation *ha = client_observe(&s, a);
    client_send(&s, client_terminal(CLIENT_COMPLETED));
    /* `late` attached from inside the terminal delivery, by its drainer:
     * refused (no handle) and interrupted before `observe` returned. */
    CHECK(scripts[0].attached == NULL);
    CHECK_EQ(log_count, 2);
    CHECK_LOG(0, 0, CLIENT_COMPLETED, 0);
    CHECK_LOG(1, 1, CLIENT_INTERRUPTED, 0);
    client_observation_free(ha);
    client_signal_destroy(&s);
    check_balanced();
}

static void dispose_inside_a_callback_is_deferred_and_immediate(void) {
    client_signal s;
    client_signal_init_root(&s);
    log_reset();
    client_observer *a = recorder(0, &s), *b = recorder(1, &s);
    client_observation *ha = client_observe(&s, a), *hb = client_observe(&s, b);
    scripts[0].on_value = 2;
    scripts[0].dispose = &hb;
    client_send(&s, client_value(1));
    client_send(&s, client_value(2)); /* a disposes b: b misses 2 */
    client_send(&s, client_value(3));
    CHECK_EQ(scripts[0].disposed_with, FLARE_DISPOSE_DEFERRED);
    CHECK_EQ(b->magic, CLIENT_OBSERVER_RELEASED); /* released once the drain moved on */
    CHECK_EQ(log_count, 4);
    CHECK_LOG(0, 0, CLIENT_VALUE, 1);
    CHECK_LOG(1, 1, CLIENT_VALUE, 1);
    CHECK_LOG(2, 0, CLIENT_VALUE, 2);
    CHECK_LOG(3, 0, CLIENT_VALUE, 3);
    client_send(&s, client_terminal(CLIENT_COMPLETED));
    client_observation_free(ha);
    client_observation_free(hb);
    client_signal_destroy(&s);
    check_balanced();
}

static void dispose_self_inside_callback(void) {
    client_signal s;
    client_signal_init_root(&s);
    log_reset();
    client_observer *a = recorder(0, &s), *b = recorder(1, &s);
    client_observation *ha = client_observe(&s, a), *hb = client_observe(&s, b);
    scripts[0].on_value = 1;
    scripts[0].dispose = &ha;
    scripts[0].send[0] = 7;
    client_send(&s, client_value(1));
    CHECK_EQ(scripts[0].disposed_with, FLARE_DISPOSE_DEFERRED);
    CHECK_EQ(log_count, 3); /* a:1 b:1 b:7 */
    CHECK_LOG(0, 0, CLIENT_VALUE, 1);
    CHECK_LOG(1, 1, CLIENT_VALUE, 1);
    CHECK_LOG(2, 1, CLIENT_VALUE, 7);
    CHECK_EQ(client_dispose(ha), FLARE_DISPOSE_NOOP);
    CHECK_EQ(client_dispose(hb), FLARE_DISPOSE_RELEASE); /* idle: at once */
    CHECK_EQ(b->magic, CLIENT_OBSERVER_RELEASED);
    client_observation_free(ha);
    client_observation_free(hb);
    client_drop_retainer(&s); /* last retainer: interrupted, nobody to tell */
    CHECK_EQ(s.lifetime_ended, 1);
    client_signal_destroy(&s);
    check_balanced();
}

static void attach_inside_callback_sees_next_event(void) {
    client_signal s;
    client_signal_init_root(&s);
    log_reset();
    client_observer *a = recorder(0, &s);
    scripts[0].on_value = 1;
    scripts[0].attach = recorder(1, &s);
    client_observation *ha = client_observe(&s, a);
    client_send(&s, client_value(1));
    client_send(&s, client_value(2));
    CHECK_EQ(log_count, 3);
    CHECK_LOG(0, 0, CLIENT_VALUE, 1);
    CHECK_LOG(1, 0, CLIENT_VALUE, 2);
    CHECK_LOG(2, 1, CLIENT_VALUE, 2);
    client_observation_free(ha);
    client_observation_free(scripts[0].attached);
    client_drop_retainer(&s); /* 2 observers still hold it: nothing yet */
    CHECK_EQ(s.lifetime_ended, 0);
    client_signal_destroy(&s); /* releases both observers, like deinit */
    check_balanced();
}

static void last_retainer_interrupts_root(void) {
    client_signal s;
    client_signal_init_root(&s);
    log_reset();
    client_observation *ha = client_observe(&s, recorder(0, &s));
    client_drop_retainer(&s); /* the handle */
    CHECK_EQ(s.lifetime_ended, 0);
    client_send(&s, client_value(4));
    CHECK_EQ(client_dispose(ha), FLARE_DISPOSE_RELEASE); /* the last one */
    CHECK_EQ(s.lifetime_ended, 1);
    CHECK_EQ(flare_serial_peek(s.serial), FLARE_SERIAL_CLOSED);
    CHECK_EQ(log_count, 1);
    client_observation_free(ha);
    client_signal_destroy(&s);
    check_balanced();
}

/* Observer a of the test below: on value 1 it sends 2, `completed` and 3
 * (queued behind the drain in progress) and disposes b in between; on the
 * terminal event it disposes c. */
static client_observation *queued_removal_b, *queued_removal_c;
static flare_dispose_result queued_removal_b_with, queued_removal_c_with;

static void dispose_around_terminal_action(client_observer *o, client_event ev) {
    record_action(o, ev);
    script *sc = o->user;
    if (ev.kind == CLIENT_VALUE && ev.value == 1) {
        client_send(sc->signal, client_value(2));
        client_send(sc->signal, client_terminal(CLIENT_COMPLETED));
        queued_removal_b_with = client_dispose(queued_removal_b);
        client_send(sc->signal, client_value(3));
    } else if (ev.kind == CLIENT_COMPLETED) {
        queued_removal_c_with = client_dispose(queued_removal_c);
    }
}

/*
 * Removals still queued when the terminal event closes the word are completed
 * by the terminating drainer (flare_drain_next_closed): b's removal, queued
 * behind `completed` in the same batch, and c's, pushed on the word while
 * `completed` is being delivered (returned by the close). Each observer's
 * context is released exactly once (the client aborts on a second release or
 * a call after it), neither gets an event after its disposal, the value sent
 * after `completed` is dropped, and nothing leaks.
 */
static void removals_queued_at_close_are_released(void) {
    client_signal s;
    client_signal_init_root(&s);
    log_reset();
    client_observer *b = recorder(1, &s), *c = recorder(2, &s);
    memset(&scripts[0], 0, sizeof scripts[0]);
    scripts[0].on_value = -1;
    scripts[0].signal = &s;
    client_observer *a = client_observer_new(dispose_around_terminal_action, &scripts[0]);
    queued_removal_b = client_observe(&s, b);
    client_observation *ha = client_observe(&s, a);
    queued_removal_c = client_observe(&s, c);
    client_stats before = client_get_stats();
    client_send(&s, client_value(1));
    CHECK_EQ(queued_removal_b_with, FLARE_DISPOSE_DEFERRED);
    CHECK_EQ(queued_removal_c_with, FLARE_DISPOSE_DEFERRED);
    client_stats after = client_get_stats();
    CHECK_EQ(after.observers_released - before.observers_released, 3); /* a (done), b, c */
    CHECK_EQ(a->magic, CLIENT_OBSERVER_RELEASED);
    CHECK_EQ(b->magic, CLIENT_OBSERVER_RELEASED);
    CHECK_EQ(c->magic, CLIENT_OBSERVER_RELEASED);
    CHECK_EQ(after.nodes_created - before.nodes_created, 3); /* 2, completed, 3 */
    CHECK_EQ(after.nodes_freed - before.nodes_freed, 3);     /* 2 and completed taken, 3 dropped */
    CHECK_EQ(log_count, 6); /* b1 a1 c1 a2 c2 a-completed */
    CHECK_LOG(0, 1, CLIENT_VALUE, 1);
    CHECK_LOG(1, 0, CLIENT_VALUE, 1);
    CHECK_LOG(2, 2, CLIENT_VALUE, 1);
    CHECK_LOG(3, 0, CLIENT_VALUE, 2);
    CHECK_LOG(4, 2, CLIENT_VALUE, 2);
    CHECK_LOG(5, 0, CLIENT_COMPLETED, 0);
    CHECK_EQ(s.lifetime_ended, 1);
    CHECK_EQ(flare_serial_peek(s.serial), FLARE_SERIAL_CLOSED);
    CHECK_EQ(client_dispose(queued_removal_b), FLARE_DISPOSE_NOOP);
    CHECK_EQ(client_dispose(queued_removal_c), FLARE_DISPOSE_NOOP);
    client_observation_free(ha);
    client_observation_free(queued_removal_b);
    client_observation_free(queued_removal_c);
    client_signal_destroy(&s);
    check_balanced();
}

/* A derived signal: its forwarding observer on the root delivers held. */
static void forward_action(client_observer *o, client_event ev) { client_deliver_held(o->user, ev); }

static void derived_signal_shares_serialization(void) {
    client_signal root, d;
    client_signal_init_root(&root);
    client_signal_init_derived(&d, &root);
    log_reset();
    client_observation *hf = client_observe(&root, client_observer_new(forward_action, &d));
    client_observer *a = recorder(0, &root), *b = recorder(1, &root);
    client_observation *ha = client_observe(&d, a), *hb = client_observe(&d, b);
    scripts[0].on_value = 2;
    scripts[0].dispose = &hb; /* a derived entry disposed inside the root's drain */
    scripts[0].send[0] = 9;
    client_send(&root, client_value(1));
    client_send(&root, client_value(2));
    CHECK_EQ(scripts[0].disposed_with, FLARE_DISPOSE_DEFERRED);
    client_send(&root, client_terminal(CLIENT_COMPLETED));
    CHECK_EQ(log_count, 5); /* a1 b1 a2 a9 a-completed */
    CHECK_LOG(0, 0, CLIENT_VALUE, 1);
    CHECK_LOG(1, 1, CLIENT_VALUE, 1);
    CHECK_LOG(2, 0, CLIENT_VALUE, 2);
    CHECK_LOG(3, 0, CLIENT_VALUE, 9);
    CHECK_LOG(4, 0, CLIENT_COMPLETED, 0);
    CHECK_EQ(root.lifetime_ended, 1);
    CHECK_EQ(d.lifetime_ended, 1);
    client_observation_free(hf);
    client_observation_free(ha);
    client_observation_free(hb);
    client_signal_destroy(&d);
    client_signal_destroy(&root);
    check_balanced();
}

static void derived_signal_abandoned(void) {
    client_signal root, d;
    client_signal_init_root(&root);
    client_signal_init_derived(&d, &root);
    log_reset();
    client_observation *hf = client_observe(&root, client_observer_new(forward_action, &d));
    client_observation *ha = client_observe(&d, recorder(0, &root));
    client_send(&root, client_value(1));
    client_drop_retainer(&d); /* d's handle */
    CHECK_EQ(client_dispose(ha), FLARE_DISPOSE_RELEASE);
    CHECK_EQ(d.lifetime_ended, 1); /* abandoned */
    client_send(&root, client_value(2)); /* reaches d, which delivers nothing */
    client_send(&root, client_terminal(CLIENT_COMPLETED));
    CHECK_EQ(d.lifetime_ended, 1); /* not ended twice */
    CHECK_EQ(log_count, 1);
    client_observation_free(hf);
    client_observation_free(ha);
    client_signal_destroy(&d);
    client_signal_destroy(&root);
    check_balanced();
}

int main(void) {
    client_keep_released = true;
    RUN(reentrant_sends_are_queued_fifo);
    RUN(terminal_is_last_and_late_observers_are_interrupted);
    RUN(attach_during_terminal_delivery_is_interrupted);
    RUN(dispose_inside_a_callback_is_deferred_and_immediate);
    RUN(dispose_self_inside_callback);
    RUN(attach_inside_callback_sees_next_event);
    RUN(last_retainer_interrupts_root);
    RUN(removals_queued_at_close_are_released);
    RUN(derived_signal_shares_serialization);
    RUN(derived_signal_abandoned);
    client_reap();
    return harness_finish();
}
