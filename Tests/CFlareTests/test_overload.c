/*
 * test_overload.c — the queue limit (contract 9) through the reference
 * client: senders on other threads outpacing a slow observer never have more
 * than `limit` counted events queued (client.c checks it at every admission),
 * every value is delivered exactly once and in per-sender order, senders that
 * wait are woken (a lost wake-up hangs a sender: the watchdog fails the
 * test), sends from the delivering thread never wait, and closing releases
 * every waiting sender.
 *
 * FLARE_STRESS_SCALE (default 1.0) scales the iteration counts; the valgrind
 * run uses a small one.
 */
#include "stress.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

HARNESS_STATE;

enum { SENDERS = 3, MAX_TID = SENDERS + 1, REENTRANT_TID = SENDERS };

static long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* Slow for about `ns`, yielding meanwhile: the senders get to run even on
 * one core or under valgrind, which runs one thread at a time. */
static void busy(long ns) {
    long until = now_ns() + ns;
    while (now_ns() < until) sched_yield();
}

/* The observer. Touched only inside deliveries (serialized), so plain fields. */
typedef struct tracker {
    client_signal *signal;
    long next_seq[MAX_TID];
    long values;
    long fifo_violations;
    int terminals;
    int after_terminal;
    long delay_ns;           /* work per value */
    long hiccup_every;       /* a 300 µs pause every so many values */
    long reentrant_every;    /* a reentrant send every so many values */
    long reentrant_sent;
    /* reentrant_burst: on the first value of sender 0, wait until the queue
     * is full and a sender waits, then send this many values reentrantly. */
    long reentrant_burst;
    volatile AO_t *gate;     /* if set: the first value waits until it is 1 */
} tracker;

static void track(client_observer *o, client_event ev) {
    tracker *t = o->user;
    if (t->terminals) t->after_terminal++;
    if (ev.kind != CLIENT_VALUE) {
        t->terminals++;
        return;
    }
    long tid = tid_of(ev.value), seq = seq_of(ev.value);
    if (tid < 0 || tid >= MAX_TID || seq != t->next_seq[tid]) {
        t->fifo_violations++;
    } else {
        t->next_seq[tid]++;
    }
    bool first = t->values++ == 0;
    if (first && t->gate) {
        while (!AO_load_acquire(t->gate)) sched_yield();
    }
    if (first && t->reentrant_burst) {
        /* The domain is full and another thread waits for a slot: sends from
         * the delivering thread must still never wait. */
        while (flare_serial_debug_waits(t->signal->serial) == 0) sched_yield();
        for (long i = 0; i < t->reentrant_burst; i++)
            client_send(t->signal, client_value(encode(REENTRANT_TID, t->reentrant_sent++)));
    }
    if (t->reentrant_every && tid != REENTRANT_TID && t->values % t->reentrant_every == 0)
        client_send(t->signal, client_value(encode(REENTRANT_TID, t->reentrant_sent++)));
    if (t->delay_ns) busy(t->delay_ns);
    /* A hiccup now and then: long enough that waiting senders park. */
    if (t->hiccup_every && t->values % t->hiccup_every == 0) busy(300000);
}

typedef struct sender_arg {
    client_signal *signal;
    long tid;
    long count;
} sender_arg;

static void *sender(void *p) {
    sender_arg *a = p;
    for (long i = 0; i < a->count; i++) client_send(a->signal, client_value(encode(a->tid, i)));
    return NULL;
}

/* Starts SENDERS threads sending `per_sender` values each, joins them. */
static void run_senders(client_signal *s, long per_sender) {
    pthread_t threads[SENDERS];
    sender_arg args[SENDERS];
    for (long i = 0; i < SENDERS; i++) {
        args[i] = (sender_arg){s, i, per_sender};
        REQUIRE(pthread_create(&threads[i], NULL, sender, &args[i]) == 0);
    }
    for (int i = 0; i < SENDERS; i++) pthread_join(threads[i], NULL);
}

/* Three senders against an observer that is slower than all of them, with
 * reentrant sends mixed in: the queue never holds more than the limit, every
 * value arrives once and in order, and the senders had to wait. (Parking is
 * forced, and checked, by the tests below.) */
static void overload_stays_bounded(void) {
    baseline = client_get_stats();
    enum { LIMIT = 8 };
    client_signal s;
    client_signal_init_root_limited(&s, LIMIT);
    tracker tr = {.signal = &s, .delay_ns = 20000, .reentrant_every = 7, .hiccup_every = 500};
    client_observation *h = client_observe(&s, client_observer_new(track, &tr));
    long per_sender = scaled(3000);
    run_senders(&s, per_sender);
    client_send(&s, client_terminal(CLIENT_COMPLETED));
    printf("     %ld values, %ld waits, %ld parks, peak %ld of %d\n", tr.values,
           flare_serial_debug_waits(s.serial), flare_serial_debug_parks(s.serial),
           (long)AO_load(&s.counted_peak), LIMIT);
    CHECK_EQ(tr.fifo_violations, 0);
    CHECK_EQ(tr.terminals, 1);
    CHECK_EQ(tr.after_terminal, 0);
    for (int i = 0; i < SENDERS; i++) CHECK_EQ(tr.next_seq[i], per_sender);
    CHECK_EQ(tr.next_seq[REENTRANT_TID], tr.reentrant_sent);
    CHECK_EQ(tr.values, SENDERS * per_sender + tr.reentrant_sent);
    CHECK(AO_load(&s.counted_peak) <= LIMIT); /* also required at every admission */
    CHECK_EQ(AO_load(&s.counted_peak), LIMIT); /* the limit was reached */
    CHECK(flare_serial_debug_waits(s.serial) > 0);
    CHECK_EQ(AO_load(&s.counted_live), 0);
    client_observation_free(h);
    client_drop_retainer(&s);
    client_signal_destroy(&s);
    check_balanced();
}

typedef struct burst_arg {
    client_signal *signal;
    long count;
} burst_arg;

static void *first_value(void *p) {
    burst_arg *a = p;
    client_send(a->signal, client_value(encode(0, 0)));
    return NULL;
}

/* The observer of the first value waits until the domain is full and a
 * sender on another thread waits for a slot, then sends 100,000 values from
 * inside its delivery: none of them waits (they would wait for themselves),
 * and all are delivered, after everything queued before them. */
static void reentrant_sends_into_a_full_domain_complete(void) {
    baseline = client_get_stats();
    enum { LIMIT = 4 };
    client_signal s;
    client_signal_init_root_limited(&s, LIMIT);
    tracker tr = {.signal = &s, .reentrant_burst = 100000};
    client_observation *h = client_observe(&s, client_observer_new(track, &tr));
    pthread_t drainer;
    burst_arg arg = {&s, 0};
    REQUIRE(pthread_create(&drainer, NULL, first_value, &arg) == 0);
    while (tr.values == 0 && flare_serial_peek(s.serial) == FLARE_SERIAL_IDLE) sched_yield();
    /* Sender 1 fills the queue (LIMIT values) and waits with the next. */
    sender_arg filler = {&s, 1, LIMIT + 3};
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, sender, &filler) == 0);
    pthread_join(drainer, NULL);
    pthread_join(t, NULL);
    client_send(&s, client_terminal(CLIENT_COMPLETED));
    CHECK_EQ(tr.fifo_violations, 0);
    CHECK_EQ(tr.next_seq[0], 1);
    CHECK_EQ(tr.next_seq[1], LIMIT + 3);
    CHECK_EQ(tr.next_seq[REENTRANT_TID], 100000);
    CHECK_EQ(tr.terminals, 1);
    CHECK(flare_serial_debug_waits(s.serial) > 0);
    client_observation_free(h);
    client_drop_retainer(&s);
    client_signal_destroy(&s);
    check_balanced();
}

/* Senders parked on a full queue when the signal terminates are all
 * released: `completed` queued behind them (terminal events never wait),
 * and `interrupted`, which overtakes the queue. Each sender's delivered
 * values are a gap-free prefix of what it sent; nothing follows the
 * terminal event. */
static void termination_releases_waiting_senders(int terminal) {
    baseline = client_get_stats();
    enum { LIMIT = 2 };
    client_signal s;
    client_signal_init_root_limited(&s, LIMIT);
    volatile AO_t gate = 0;
    tracker tr = {.signal = &s, .gate = &gate};
    client_observation *h = client_observe(&s, client_observer_new(track, &tr));
    pthread_t drainer;
    burst_arg arg = {&s, 0};
    REQUIRE(pthread_create(&drainer, NULL, first_value, &arg) == 0);
    while (flare_serial_peek(s.serial) == FLARE_SERIAL_IDLE) sched_yield();
    pthread_t threads[SENDERS - 1];
    sender_arg args[SENDERS - 1];
    long per_sender = scaled(1000);
    for (long i = 0; i < SENDERS - 1; i++) {
        args[i] = (sender_arg){&s, i + 1, per_sender};
        REQUIRE(pthread_create(&threads[i], NULL, sender, &args[i]) == 0);
    }
    /* Wait until at least one sender has parked in the kernel. */
    while (flare_serial_debug_parks(s.serial) == 0) sched_yield();
    client_send(&s, client_terminal(terminal));
    AO_store_release(&gate, 1);
    for (int i = 0; i < SENDERS - 1; i++) pthread_join(threads[i], NULL);
    pthread_join(drainer, NULL);
    CHECK_EQ(tr.fifo_violations, 0);
    CHECK_EQ(tr.terminals, 1);
    CHECK_EQ(tr.after_terminal, 0);
    if (terminal == CLIENT_COMPLETED) {
        /* Queued before `completed`: at least what filled the queue. */
        CHECK(tr.values >= 1 + LIMIT);
    } else {
        CHECK_EQ(tr.values, 1); /* interrupted overtakes the queue */
    }
    CHECK(tr.values < 1 + (SENDERS - 1) * per_sender);
    CHECK_EQ(AO_load(&s.counted_live), 0);
    client_observation_free(h);
    client_drop_retainer(&s);
    client_signal_destroy(&s);
    check_balanced();
}

static void completion_releases_waiting_senders(void) { termination_releases_waiting_senders(CLIENT_COMPLETED); }
static void interruption_releases_waiting_senders(void) { termination_releases_waiting_senders(CLIENT_INTERRUPTED); }

/* Lost wake-ups: many short rounds in which two senders park on a queue of
 * one while a slow observer drains it, so that the drainer's wake races the
 * senders' parking at every phase. A lost wake-up leaves a sender asleep
 * with nothing left to wake it: the round never ends and the watchdog fails
 * the test. */
static void no_lost_wakeups(void) {
    baseline = client_get_stats();
    long rounds = scaled(300);
    long parks = 0;
    for (long r = 0; r < rounds; r++) {
        client_signal s;
        client_signal_init_root_limited(&s, 1);
        static const long delays[] = {0, 5000, 15000, 30000, 60000, 120000};
        tracker tr = {.signal = &s, .delay_ns = delays[r % 6]};
        client_observation *h = client_observe(&s, client_observer_new(track, &tr));
        run_senders(&s, 40);
        client_send(&s, client_terminal(CLIENT_COMPLETED));
        CHECK_EQ(tr.fifo_violations, 0);
        CHECK_EQ(tr.values, SENDERS * 40);
        CHECK(AO_load(&s.counted_peak) <= 1);
        parks += flare_serial_debug_parks(s.serial);
        client_observation_free(h);
        client_drop_retainer(&s);
        client_signal_destroy(&s);
    }
    printf("     %ld rounds, %ld parks\n", rounds, parks);
    CHECK(parks > 0);
    check_balanced();
}

/* Two limited domains that feed each other, as a flatten's funnel (A) and
 * an inner run (B): A's first value is delivered on thread T, and its
 * observer, like a start handler, starts thread U sending into B and sends
 * into B itself once U waits for a slot of A; B's observer forwards every
 * value into A. T holds A while it sends into B; U holds B while it
 * forwards into A. Past both limits
 * each would wait for the other's word: the wait that would close the
 * cycle is not taken (waits.h), every value reaches A once, in each
 * sender's order. A deadlock fails the test through the watchdog. */
typedef struct cycle_state {
    client_signal a, b;
    tracker at_a;
    long per_thread;
    pthread_t second;
} cycle_state;

static void *send_into_b(void *p) {
    cycle_state *c = p;
    for (long i = 0; i < c->per_thread; i++) client_send(&c->b, client_value(encode(1, i)));
    return NULL;
}

static void cycle_at_a(client_observer *o, client_event ev) {
    cycle_state *c = o->user;
    track(&(client_observer){.user = &c->at_a}, ev);
    if (ev.kind == CLIENT_VALUE && tid_of(ev.value) == 2) {
        REQUIRE(pthread_create(&c->second, NULL, send_into_b, c) == 0);
        /* Until U, holding B, waits for a slot of A (which T holds). */
        while (flare_serial_debug_waits(c->a.serial) == 0) sched_yield();
        for (long i = 0; i < c->per_thread; i++) client_send(&c->b, client_value(encode(0, i)));
    }
}

static void forward_to_a(client_observer *o, client_event ev) {
    cycle_state *c = o->user;
    client_send(&c->a, ev);
}

static void a_cycle_of_waits_is_broken(void) {
    baseline = client_get_stats();
    long rounds = scaled(20), cycles = 0;
    for (long r = 0; r < rounds; r++) {
        cycle_state c = {.per_thread = scaled(20000)};
        client_signal_init_root_limited(&c.a, 1 + (unsigned)(r % 3));
        client_signal_init_root_limited(&c.b, 1 + (unsigned)(r % 2));
        c.at_a.signal = &c.a;
        client_observation *ha = client_observe(&c.a, client_observer_new(cycle_at_a, &c));
        client_observation *hb = client_observe(&c.b, client_observer_new(forward_to_a, &c));
        client_send(&c.a, client_value(encode(2, 0)));
        pthread_join(c.second, NULL);
        CHECK_EQ(c.at_a.fifo_violations, 0);
        CHECK_EQ(c.at_a.next_seq[0], c.per_thread);
        CHECK_EQ(c.at_a.next_seq[1], c.per_thread);
        CHECK_EQ(c.at_a.values, 1 + 2 * c.per_thread);
        CHECK_EQ(AO_load(&c.a.counted_live), 0);
        CHECK_EQ(AO_load(&c.b.counted_live), 0);
        cycles += flare_serial_debug_cycles(c.a.serial) + flare_serial_debug_cycles(c.b.serial);
        client_observation_free(ha);
        client_observation_free(hb);
        client_drop_retainer(&c.a);
        client_drop_retainer(&c.b);
        client_signal_destroy(&c.a);
        client_signal_destroy(&c.b);
    }
    printf("     %ld rounds, %ld waits queued at once to break a cycle\n", rounds, cycles);
    CHECK(cycles > 0);
    check_balanced();
}

static void watchdog(int sig) {
    (void)sig;
    static const char msg[] = "test_overload: watchdog: a sender never woke (lost wake-up or deadlock)\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(1);
}

int main(void) {
    stress_read_scale();
    client_keep_released = true;
    setvbuf(stdout, NULL, _IONBF, 0);
    signal(SIGALRM, watchdog);
    const char *limit = getenv("FLARE_WATCHDOG_SECONDS");
    alarm(limit ? (unsigned)atoi(limit) : 240);
    printf("scale %g\n", scale);
    RUN(overload_stays_bounded);
    RUN(reentrant_sends_into_a_full_domain_complete);
    RUN(completion_releases_waiting_senders);
    RUN(interruption_releases_waiting_senders);
    RUN(no_lost_wakeups);
    RUN(a_cycle_of_waits_is_broken);
    client_reap();
    return harness_finish();
}
