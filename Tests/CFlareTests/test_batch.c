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
 * their values: each of them found the word held, so each went into its
 * thread's batch, and each thread's batches reached the drainer whole. */
static void every_contended_value_batched(void) {
    for (int senders = 2; senders <= MAX_SENDERS; senders *= 2) {
        baseline = client_get_stats();
        long per_thread = scaled(3000);
        tracker t = {.gate_sends = (senders - 1) * per_thread};
        run_senders(senders, 0, &t, per_thread, 0);
        client_stats st = client_get_stats();
        CHECK_EQ(t.fifo_violations, 0);
        CHECK_EQ(t.values, senders * per_thread);
        CHECK(st.sends_batched - baseline.sends_batched >= (senders - 1) * per_thread);
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

int main(void) {
    stress_read_scale();
    client_keep_released = true;
    printf("scale %g\n", scale);
    RUN(senders_into_batches);
    RUN(every_contended_value_batched);
    RUN(terminal_during_batches);
    client_stats st = client_get_stats();
    printf("sends queued behind a drainer: %ld, into batches: %ld\n", st.sends_queued, st.sends_batched);
    client_reap();
    return harness_finish();
}
