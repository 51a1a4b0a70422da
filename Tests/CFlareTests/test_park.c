/*
 * test_park.c — the parking spots (flare_park.h), driven by a writers' gate
 * that follows Sources/Flare/Engine/Property/WriteGate.swift step for step:
 * writers that find the gate held poll, announce themselves on the holder's
 * word and park on the holder's spot; the holder wakes them as it leaves.
 * Holders sometimes sleep inside, so that waiters really park. A lost
 * wake-up hangs a writer: the alarm fails the test.
 *
 * FLARE_STRESS_SCALE (default 1.0) scales the iteration counts; the valgrind
 * run uses a small one.
 */
#include "harness.h"

#include "flare.h"
#include "flare_park.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

HARNESS_STATE;

enum { SLEEPERS_BIT = 2, POLLS = 64 };

typedef struct gate {
    volatile AO_t owner;
} gate;

static void gate_enter(gate *g) {
    AO_t me = flare_thread_tag();
    if (AO_compare_and_swap_acquire(&g->owner, 0, me)) return;
    for (int polled = 0;;) {
        AO_t seen = AO_load(&g->owner);
        if (seen == 0) {
            if (AO_compare_and_swap_acquire(&g->owner, 0, me)) return;
            continue;
        }
        if (polled < POLLS) {
            polled++;
            continue;
        }
        const void *key = (const void *)(seen & ~(AO_t)SLEEPERS_BIT);
        unsigned int ticket = flare_park_ticket(key);
        if (AO_compare_and_swap_release(&g->owner, seen, seen | SLEEPERS_BIT)) flare_park(key, ticket);
    }
}

static void gate_leave(gate *g) {
    AO_t previous = AO_load(&g->owner);
    while (!AO_compare_and_swap_full(&g->owner, previous, 0)) previous = AO_load(&g->owner);
    if (previous & SLEEPERS_BIT) flare_unpark_all((const void *)(previous & ~(AO_t)SLEEPERS_BIT));
}

static double scale(void) {
    const char *s = getenv("FLARE_STRESS_SCALE");
    return s ? atof(s) : 1.0;
}

static void stale_ticket_returns_at_once(void) {
    int key = 0;
    unsigned int ticket = flare_park_ticket(&key);
    flare_unpark_all(&key);
    flare_park(&key, ticket); /* the spot moved on: returns (or the alarm fires) */
    CHECK(flare_park_ticket(&key) != ticket);
}

enum { WRITERS = 4 };

typedef struct shared {
    gate g;
    long counter;          /* plain: only touched under the gate */
    volatile AO_t inside;  /* writers between enter and leave */
    long rounds;
} shared;

static void *writer(void *arg) {
    shared *s = arg;
    for (long i = 0; i < s->rounds; i++) {
        gate_enter(&s->g);
        REQUIRE(AO_fetch_and_add_full(&s->inside, 1) == 0);
        s->counter++;
        /* Now and then a holder takes its time (a slow modify closure). */
        if (i % 256 == 0) usleep(200);
        AO_fetch_and_add_full(&s->inside, (AO_t)-1);
        gate_leave(&s->g);
    }
    return NULL;
}

static void writers_exclude_each_other_and_sleepers_are_woken(void) {
    shared s = {.g = {0}, .counter = 0, .inside = 0, .rounds = (long)(20000 * scale()) + 256};
    pthread_t threads[WRITERS];
    for (int i = 0; i < WRITERS; i++) REQUIRE(pthread_create(&threads[i], NULL, writer, &s) == 0);
    for (int i = 0; i < WRITERS; i++) REQUIRE(pthread_join(threads[i], NULL) == 0);
    CHECK_EQ(s.counter, WRITERS * s.rounds);
    CHECK_EQ(AO_load(&s.g.owner), 0);
}

static void on_alarm(int sig) {
    (void)sig;
    static const char message[] = "test_park: a writer still waits after 120 s (lost wake-up?)\n";
    if (write(2, message, sizeof message - 1) < 0) _exit(3);
    _exit(2);
}

int main(void) {
    signal(SIGALRM, on_alarm);
    alarm(120);
    RUN(stale_ticket_returns_at_once);
    RUN(writers_exclude_each_other_and_sleepers_are_woken);
    return harness_finish();
}
