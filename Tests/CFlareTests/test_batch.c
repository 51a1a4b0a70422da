/*
 * test_batch.c — the batched hand-off (flare_batch.h) through the reference
 * client: 2, 4 and 8 threads sending into one signal while another thread
 * delivers, with and without a queue limit, with a reentrant sender, and
 * with an interrupt or a terminal event arriving while batches are queued.
 * Checked: every value delivered exactly once, FIFO per sending thread,
 * nothing after the terminal event, deliveries never overlap (client.c),
 * the limit's bound at every admission (client.c), and nothing leaks
 * (valgrind: the batches of exited threads are freed).
 */
#include "stress.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

HARNESS_STATE;

enum { MAX_SENDERS = 8, REENTRANT_TID = MAX_SENDERS, MAX_TID = MAX_SENDERS + 1 };

/* Touched only inside deliveries, which the core serializes. */
typedef struct tracker {
    client_signal *signal;
    long next_seq[MAX_TID];
    long values;
    int terminals;
    int after_terminal;
    int fifo_violations;
    /* Sends one value from inside the delivery of every so many values. */
    long reentrant_every;
    long reentrant_sent;
    /* The first delivery waits until `gate_sends` values were sent. */
    volatile AO_t *sent;
    long gate_sends;
    bool gated;
} tracker;

static void track(client_observer *o, client_event ev) {
    tracker *t = o->user;
    if (t->gate_sends && !t->gated) {
        t->gated = true;
        while ((long)AO_load_acquire(t->sent) < t->gate_sends) sched_yield();
    }
    if (t->terminals) t->after_terminal++;
    if (ev.kind != CLIENT_VALUE) {
        t->terminals++;
        return;
    }
    long tid = tid_of(ev.value), seq = seq_of(ev.value);
    if (tid < 0 || tid >= MAX_TID || seq != t->next_seq[tid]) {
        t->fifo_violations++;
        return;
    }
    t->next_seq[tid]++;
    t->values++;
    if (t->reentrant_every && t->values % t->reentrant_every == 0)
        client_send(t->signal, client_value(encode(REENTRANT_TID, t->reentrant_sent++)));
}

typedef struct run {
    client_signal *signal;
    long per_thread;
    volatile AO_t go;
    volatile AO_t sent;
    /* Sender 0 ends with this event after its values (0: none). */
    int last_kind;
} run;

typedef struct sender_arg {
    run *r;
    long tid;
} sender_arg;

static void *sender(void *p) {
    sender_arg *a = p;
    run *r = a->r;
    while (!AO_load_acquire(&r->go)) sched_yield();
    for (long i = 0; i < r->per_thread; i++) {
        client_send(r->signal, client_value(encode(a->tid, i)));
        AO_fetch_and_add_full(&r->sent, 1);
        if (a->tid == 0 && r->last_kind && i == r->per_thread / 2) client_send(r->signal, client_terminal(r->last_kind));
    }
    return NULL;
}

/* Runs `senders` threads on a fresh signal with `limit` and one tracker;
 * returns after joining them, with the signal completed and destroyed. */
static void run_senders(int senders, unsigned int limit, tracker *t, long per_thread, int last_kind) {
    client_signal s;
    client_signal_init_root_limited(&s, limit);
    run r = {.signal = &s, .per_thread = per_thread, .last_kind = last_kind};
    t->signal = &s;
    t->sent = &r.sent;
    client_observation *h = client_observe(&s, client_observer_new(track, t));
    REQUIRE(h);
    pthread_t th[MAX_SENDERS];
    sender_arg args[MAX_SENDERS];
    for (int i = 0; i < senders; i++) {
        args[i] = (sender_arg){&r, i};
        REQUIRE(pthread_create(&th[i], NULL, sender, &args[i]) == 0);
    }
    AO_store_release(&r.go, 1);
    for (int i = 0; i < senders; i++) pthread_join(th[i], NULL);
    if (!last_kind) client_send(&s, client_terminal(CLIENT_COMPLETED));
    CHECK_EQ(flare_serial_peek(s.serial), FLARE_SERIAL_CLOSED);
    CHECK_EQ(s.lifetime_ended, 1);
    CHECK(s.counted_peak <= limit || limit == 0);
    client_observation_free(h);
    client_signal_destroy(&s);
}

/* 2, 4 and 8 senders, unlimited and with limits of 3 and 64, a reentrant
 * sender inside the deliveries: everything delivered once, in order. */
static void senders_into_batches(void) {
    static const unsigned int limits[] = {0, 3, 64};
    for (int senders = 2; senders <= MAX_SENDERS; senders *= 2) {
        for (size_t l = 0; l < sizeof limits / sizeof *limits; l++) {
            baseline = client_get_stats();
            long per_thread = scaled(20000);
            tracker t = {.reentrant_every = 97};
            run_senders(senders, limits[l], &t, per_thread, 0);
            CHECK_EQ(t.fifo_violations, 0);
            CHECK_EQ(t.after_terminal, 0);
            CHECK_EQ(t.terminals, 1);
            for (int i = 0; i < senders; i++) CHECK_EQ(t.next_seq[i], per_thread);
            CHECK_EQ(t.next_seq[REENTRANT_TID], t.reentrant_sent);
            CHECK_EQ(t.values, senders * per_thread + t.reentrant_sent);
            check_balanced();
        }
    }
}

/* The first delivery holds the word until the other threads sent all
 * their values: each of them found the word held and was queued, and each
 * thread's values reached the drainer in order. */
static void every_contended_value_batched(void) {
    for (int senders = 2; senders <= MAX_SENDERS; senders *= 2) {
        baseline = client_get_stats();
        long per_thread = scaled(3000);
        tracker t = {.gate_sends = (senders - 1) * per_thread};
        run_senders(senders, 0, &t, per_thread, 0);
        client_stats st = client_get_stats();
        CHECK_EQ(t.fifo_violations, 0);
        CHECK_EQ(t.values, senders * per_thread);
        /* One thread queued behind the held word: its batch stays the
         * word's top, so every value of it is batched. With more, each
         * push ends the other threads' turns, and a thread whose two
         * batches are both in flight sends nodes (batch.c `fresh`). */
        if (senders == 2) CHECK_EQ(st.sends_batched - baseline.sends_batched, per_thread);
        check_balanced();
    }
}

/* Sender 0 ends with `interrupted` (or `failed`) halfway while the others'
 * batches are queued: one terminal event, nothing after it, FIFO before it,
 * and every slot left in a batch is dropped (nothing leaks). */
static void terminal_during_batches(void) {
    static const int kinds[] = {CLIENT_INTERRUPTED, CLIENT_FAILED};
    for (size_t k = 0; k < 2; k++) {
        for (int senders = 2; senders <= MAX_SENDERS; senders *= 2) {
            for (long round = 0; round < scaled(20); round++) {
                baseline = client_get_stats();
                long per_thread = 2000;
                tracker t = {.reentrant_every = 13};
                run_senders(senders, round % 2 ? 0 : 8, &t, per_thread, kinds[k]);
                CHECK_EQ(t.fifo_violations, 0);
                CHECK_EQ(t.after_terminal, 0);
                CHECK_EQ(t.terminals, 1);
                /* `failed` is FIFO after sender 0's values before it. */
                if (kinds[k] == CLIENT_FAILED) CHECK_EQ(t.next_seq[0], per_thread / 2 + 1);
                check_balanced();
            }
        }
    }
}

/* The order of sends across threads (I4). Two threads send 0, 1, 2, …
 * in turn, each waiting for the other's send of the value before to
 * return, while a third thread's delivery holds the word: every value is
 * queued, each thread's in its own batch. Value k + 2 is sent after value
 * k + 1's send returned, so it must be delivered after it; appended to the
 * batch its thread pushed before k + 1's, it would overtake it. */
typedef struct relay {
    client_signal *signal;
    long count;
    volatile AO_t turn;
    volatile AO_t released;
    long next;
    long out_of_order;
    bool held;
} relay;

static void relay_observe(client_observer *o, client_event ev) {
    relay *r = o->user;
    if (ev.kind != CLIENT_VALUE) return;
    if (!r->held) {
        r->held = true;
        while (!AO_load_acquire(&r->released)) sched_yield();
        return;
    }
    if (ev.value != r->next) r->out_of_order++;
    r->next = ev.value + 1;
}

typedef struct relay_arg {
    relay *r;
    long parity;
} relay_arg;

static void *relay_sender(void *p) {
    relay_arg *a = p;
    relay *r = a->r;
    for (long k = a->parity; k < r->count; k += 2) {
        while ((long)AO_load_acquire(&r->turn) != k) sched_yield();
        client_send(r->signal, client_value(k));
        AO_store_release(&r->turn, (AO_t)(k + 1));
    }
    return NULL;
}

static void *relay_holder(void *p) {
    relay *r = p;
    client_send(r->signal, client_value(-1));
    return NULL;
}

static void batches_keep_the_order_of_sends(void) {
    for (long round = 0; round < scaled(20); round++) {
        baseline = client_get_stats();
        client_signal s;
        client_signal_init_root_limited(&s, round % 2 ? 0 : 64);
        relay r = {.signal = &s, .count = 1000};
        client_observation *h = client_observe(&s, client_observer_new(relay_observe, &r));
        REQUIRE(h);
        pthread_t holder, th[2];
        relay_arg args[2] = {{&r, 0}, {&r, 1}};
        REQUIRE(pthread_create(&holder, NULL, relay_holder, &r) == 0);
        while (flare_serial_peek(s.serial) == FLARE_SERIAL_IDLE) sched_yield();
        for (int i = 0; i < 2; i++) REQUIRE(pthread_create(&th[i], NULL, relay_sender, &args[i]) == 0);
        /* Releases the holder once every value is queued, or, with a
         * limit, once the senders wait for credits (no progress for 20 ms). */
        for (long seen = -1, still = 0; (long)AO_load_acquire(&r.turn) < r.count && still < 20;) {
            long now = (long)AO_load_acquire(&r.turn);
            still = now == seen ? still + 1 : 0;
            seen = now;
            usleep(1000);
        }
        AO_store_release(&r.released, 1);
        for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
        pthread_join(holder, NULL);
        client_send(&s, client_terminal(CLIENT_COMPLETED));
        CHECK_EQ(r.out_of_order, 0);
        CHECK_EQ(r.next, r.count);
        client_observation_free(h);
        client_signal_destroy(&s);
        check_balanced();
    }
}

int main(void) {
    stress_read_scale();
    client_keep_released = true;
    printf("scale %g\n", scale);
    RUN(senders_into_batches);
    RUN(every_contended_value_batched);
    RUN(terminal_during_batches);
    RUN(batches_keep_the_order_of_sends);
    client_stats st = client_get_stats();
    printf("sends queued behind a drainer: %ld, into batches: %ld\n", st.sends_queued, st.sends_batched);
    client_reap();
    return harness_finish();
}
