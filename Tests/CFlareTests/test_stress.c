/*
 * test_stress.c — the core under contention, through the reference client:
 * threads sending, observers attaching and disposing from other threads and
 * from inside callbacks, reentrant sends, and termination racing with all of
 * it. Checked: every event delivered exactly once, FIFO per sending thread,
 * all observers see one order, deliveries never overlap (client.c checks
 * that and use-after-release at every call), and nothing leaks.
 *
 * FLARE_STRESS_SCALE (default 1.0) scales the iteration counts; the valgrind
 * run uses a small one.
 */
#include "stress.h"

#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

HARNESS_STATE;

enum { SENDERS = 4, REENTRANT_TID = SENDERS, MAX_TID = SENDERS + 1 };

/* A permanent observer. Its fields are touched only inside deliveries, which
 * the core serializes (and orders across drainers), so they need no atomics. */
typedef struct tracker {
    client_signal *signal;
    long next_seq[MAX_TID]; /* _FIFO and exactly once: the next expected seq */
    bool late;              /* attached mid-stream: the first seq per thread is free */
    bool seen[MAX_TID];
    long values;
    unsigned long hash; /* of the order of delivery */
    int terminals;
    int terminal_kind;
    int after_terminal; /* deliveries after the terminal event: must be 0 */
    int fifo_violations;
    long reentrant_every; /* send a reentrant value every so many thread-0 values */
    long reentrant_sent;
} tracker;

static void track(client_observer *o, client_event ev) {
    tracker *t = o->user;
    if (t->terminals) t->after_terminal++;
    if (ev.kind != CLIENT_VALUE) {
        t->terminals++;
        t->terminal_kind = ev.kind;
        return;
    }
    long tid = tid_of(ev.value), seq = seq_of(ev.value);
    if (tid < 0 || tid >= MAX_TID) {
        t->fifo_violations++;
        return;
    }
    if (t->late && !t->seen[tid]) t->next_seq[tid] = seq;
    t->seen[tid] = true;
    if (seq != t->next_seq[tid]) t->fifo_violations++;
    else t->next_seq[tid]++;
    t->values++;
    t->hash = t->hash * 1000003u ^ (unsigned long)ev.value;
    if (t->reentrant_every && tid == 0 && seq % t->reentrant_every == 0) {
        client_send(t->signal, client_value(encode(REENTRANT_TID, t->reentrant_sent++)));
    }
}

/* Churn observers: attached and disposed continuously from other threads. */
static volatile AO_t churn_deliveries;
static void churn_action(client_observer *o, client_event ev) {
    (void)o;
    (void)ev;
    AO_fetch_and_add_full(&churn_deliveries, 1);
}

/* Disposes itself from inside its own callback after a few events, racing
 * with the attacher disposing it from outside. Preallocated: the observer may
 * still be running the one delivery that had started when the outside
 * dispose returned, so its state must outlive the test's threads. */
typedef struct self_disposer {
    volatile AO_t handle; /* client_observation *, published after observe returns */
    long seen;
    int disposed;
} self_disposer;

enum { SELF_DISPOSERS = 2048 };
static self_disposer self_disposers[SELF_DISPOSERS];
static long self_disposers_used;

static void self_dispose_action(client_observer *o, client_event ev) {
    (void)ev;
    self_disposer *sd = o->user;
    sd->seen++;
    client_observation *h = (client_observation *)AO_load_acquire(&sd->handle);
    if (h && sd->seen >= 3 && !sd->disposed) {
        /* Inside a drain: deferred, or a no-op if the outside dispose won. */
        REQUIRE(client_dispose(h) != FLARE_DISPOSE_RELEASE);
        sd->disposed = 1;
    }
}

typedef struct shared {
    client_signal *signal;
    long per_thread;
    volatile AO_t stop;
    volatile AO_t mailbox; /* a handle passed from the attacher to the disposer */
    long churn_cycles;
} shared;

typedef struct sender_arg {
    shared *sh;
    long tid;
} sender_arg;

static void *sender(void *p) {
    sender_arg *a = p;
    for (long i = 0; i < a->sh->per_thread; i++) {
        client_send(a->sh->signal, client_value(encode(a->tid, i)));
        if ((i & 255) == 0) sched_yield();
    }
    return NULL;
}

/* Attaches churn observers; disposes half itself, mails the other half. */
static void *attacher(void *p) {
    shared *sh = p;
    long n = 0;
    while (!AO_load_acquire(&sh->stop)) {
        client_observation *h = client_observe(sh->signal, client_observer_new(churn_action, NULL));
        if (!h) break; /* terminated */
        if (n++ & 1) {
            if (n & 2) sched_yield();
            (void)client_dispose(h);
            client_observation_free(h);
        } else {
            while (AO_compare_and_swap_full(&sh->mailbox, 0, (AO_t)h) == 0) {
                if (AO_load_acquire(&sh->stop)) {
                    (void)client_dispose(h);
                    client_observation_free(h);
                    h = NULL;
                    break;
                }
                sched_yield();
            }
        }
        /* A self-disposer now and then. */
        if (n % 32 == 0 && self_disposers_used < SELF_DISPOSERS) {
            self_disposer *sd = &self_disposers[self_disposers_used++];
            client_observation *h2 = client_observe(sh->signal, client_observer_new(self_dispose_action, sd));
            if (!h2) break;
            AO_store_release(&sd->handle, (AO_t)h2);
            for (int y = 0; y < (int)(n % 5); y++) sched_yield();
            (void)client_dispose(h2); /* races with the self-dispose: one wins */
            /* The callback may still be reading the handle: freed at the end. */
        }
    }
    sh->churn_cycles = n;
    return NULL;
}

static void *disposer(void *p) {
    shared *sh = p;
    for (;;) {
        client_observation *h = (client_observation *)AO_load_acquire(&sh->mailbox);
        if (h) {
            AO_store_release(&sh->mailbox, 0);
            (void)client_dispose(h);
            client_observation_free(h);
            continue;
        }
        if (AO_load_acquire(&sh->stop)) return NULL;
        sched_yield();
    }
}

static void senders_churn_and_reentrancy(void) {
    baseline = client_get_stats();
    client_signal s;
    client_signal_init_root(&s);
    enum { TRACKERS = 3 };
    tracker tr[TRACKERS];
    client_observation *th[TRACKERS];
    memset(tr, 0, sizeof tr);
    for (int i = 0; i < TRACKERS; i++) {
        tr[i].signal = &s;
        th[i] = client_observe(&s, client_observer_new(track, &tr[i]));
        CHECK(th[i] != NULL);
    }
    tr[1].reentrant_every = 7;
    shared sh = {.signal = &s, .per_thread = scaled(200000)};
    pthread_t threads[SENDERS + 2];
    sender_arg args[SENDERS];
    for (int i = 0; i < SENDERS; i++) {
        args[i] = (sender_arg){&sh, i};
        REQUIRE(pthread_create(&threads[i], NULL, sender, &args[i]) == 0);
    }
    REQUIRE(pthread_create(&threads[SENDERS], NULL, attacher, &sh) == 0);
    REQUIRE(pthread_create(&threads[SENDERS + 1], NULL, disposer, &sh) == 0);
    for (int i = 0; i < SENDERS; i++) pthread_join(threads[i], NULL);
    AO_store_release(&sh.stop, 1);
    pthread_join(threads[SENDERS], NULL);
    pthread_join(threads[SENDERS + 1], NULL);
    CHECK(sh.churn_cycles > 0);
    /* Mailed after the disposer's last look. */
    client_observation *left = (client_observation *)AO_load(&sh.mailbox);
    if (left) {
        (void)client_dispose(left);
        client_observation_free(left);
    }

    long expected = SENDERS * sh.per_thread + tr[1].reentrant_sent;
    CHECK(tr[1].reentrant_sent > 0);
    for (int i = 0; i < TRACKERS; i++) {
        CHECK_EQ(tr[i].fifo_violations, 0);
        CHECK_EQ(tr[i].values, expected);
        for (int t = 0; t < SENDERS; t++) CHECK_EQ(tr[i].next_seq[t], sh.per_thread);
        CHECK_EQ(tr[i].next_seq[REENTRANT_TID], tr[1].reentrant_sent);
        CHECK_EQ(tr[i].hash, tr[0].hash); /* one order for everyone */
    }
    client_send(&s, client_terminal(CLIENT_COMPLETED));
    for (int i = 0; i < TRACKERS; i++) {
        CHECK_EQ(tr[i].terminals, 1);
        CHECK_EQ(tr[i].terminal_kind, CLIENT_COMPLETED);
        CHECK_EQ(tr[i].after_terminal, 0);
        client_observation_free(th[i]);
    }
    CHECK_EQ(s.lifetime_ended, 1);
    CHECK_EQ(s.delivering, 0);
    for (long i = 0; i < self_disposers_used; i++) {
        client_observation_free((client_observation *)self_disposers[i].handle);
    }
    client_drop_retainer(&s);
    client_signal_destroy(&s);
    check_balanced();
}

/* Termination racing with senders, attachers and disposers. */
typedef struct race {
    client_signal *signal;
    volatile AO_t go;
    long sends;
} race;

typedef struct race_sender_arg {
    race *r;
    long tid;
} race_sender_arg;

static void *race_sender(void *p) {
    race_sender_arg *a = p;
    race *r = a->r;
    while (!AO_load_acquire(&r->go)) sched_yield();
    for (long i = 0; i < r->sends; i++) {
        client_send(r->signal, client_value(encode(a->tid, i)));
        if (a->tid == 1 && i == r->sends / 2) client_send(r->signal, client_terminal(CLIENT_FAILED));
    }
    return NULL;
}

enum { RACE_OBSERVERS = 64 };

typedef struct race_observers {
    race *r;
    tracker tr[RACE_OBSERVERS];
    client_observation *h[RACE_OBSERVERS];
} race_observers;

/* Attaches observers while the signal terminates; disposes a third of them
 * at once and another third after. The trackers are read only after the
 * signal has terminated and every thread was joined. */
static void *race_observer(void *p) {
    race_observers *ro = p;
    race *r = ro->r;
    while (!AO_load_acquire(&r->go)) sched_yield();
    for (int i = 0; i < RACE_OBSERVERS; i++) {
        ro->tr[i].signal = r->signal;
        ro->tr[i].late = true;
        ro->h[i] = client_observe(r->signal, client_observer_new(track, &ro->tr[i]));
        if (i % 3 == 1 && ro->h[i]) (void)client_dispose(ro->h[i]);
    }
    for (int i = 0; i < RACE_OBSERVERS; i++) {
        if (i % 3 == 2 && ro->h[i]) (void)client_dispose(ro->h[i]);
    }
    return NULL;
}

static void termination_races(void) {
    baseline = client_get_stats();
    long rounds = scaled(500);
    race_observers *ro = calloc(2, sizeof *ro);
    for (long round = 0; round < rounds; round++) {
        client_signal s;
        client_signal_init_root(&s);
        race r = {.signal = &s, .sends = 200};
        tracker first = {.signal = &s};
        client_observation *hf = client_observe(&s, client_observer_new(track, &first));
        memset(ro, 0, 2 * sizeof *ro);
        ro[0].r = ro[1].r = &r;
        pthread_t t[4];
        race_sender_arg args[2] = {{&r, 0}, {&r, 1}};
        REQUIRE(pthread_create(&t[0], NULL, race_sender, &args[0]) == 0);
        REQUIRE(pthread_create(&t[1], NULL, race_sender, &args[1]) == 0);
        REQUIRE(pthread_create(&t[2], NULL, race_observer, &ro[0]) == 0);
        REQUIRE(pthread_create(&t[3], NULL, race_observer, &ro[1]) == 0);
        AO_store_release(&r.go, 1);
        for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
        /* Thread 1 sent FAILED after value sends/2: the signal is closed. */
        CHECK_EQ(flare_serial_peek(s.serial), FLARE_SERIAL_CLOSED);
        CHECK_EQ(s.lifetime_ended, 1);
        CHECK_EQ(first.terminals, 1);
        CHECK_EQ(first.terminal_kind, CLIENT_FAILED);
        CHECK_EQ(first.fifo_violations, 0);
        CHECK_EQ(first.after_terminal, 0);
        CHECK_EQ(first.next_seq[1], r.sends / 2 + 1); /* all thread 1 sent before */
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < RACE_OBSERVERS; i++) {
                tracker *x = &ro[k].tr[i];
                CHECK_EQ(x->fifo_violations, 0);
                CHECK_EQ(x->after_terminal, 0);
                /* Never disposed: exactly one terminal (failed, or interrupted
                 * if it attached too late). Disposed: at most one. */
                if (i % 3 == 0) CHECK_EQ(x->terminals, 1);
                CHECK(x->terminals <= 1);
                client_observation_free(ro[k].h[i]);
            }
        }
        client_observation_free(hf);
        client_drop_retainer(&s);
        client_signal_destroy(&s);
    }
    free(ro);
    check_balanced();
}

/* Two threads dispose the same observer while a third terminates: exactly one
 * of them owns the context. */
typedef struct duel {
    client_signal *signal;
    client_observation *h;
    volatile AO_t go;
    volatile AO_t wins;
} duel;

static void *duel_dispose(void *p) {
    duel *d = p;
    while (!AO_load_acquire(&d->go)) sched_yield();
    flare_dispose_result r = client_dispose(d->h);
    if (r != FLARE_DISPOSE_NOOP) AO_fetch_and_add_full(&d->wins, 1);
    return NULL;
}

static void *duel_terminate(void *p) {
    duel *d = p;
    while (!AO_load_acquire(&d->go)) sched_yield();
    client_send(d->signal, client_terminal(CLIENT_COMPLETED));
    return NULL;
}

static void dispose_duels(void) {
    baseline = client_get_stats();
    long rounds = scaled(3000);
    for (long round = 0; round < rounds; round++) {
        client_signal s;
        client_signal_init_root(&s);
        tracker tr = {.signal = &s};
        duel d = {.signal = &s};
        d.h = client_observe(&s, client_observer_new(track, &tr));
        client_send(&s, client_value(encode(0, 0))); /* spliced into the array */
        pthread_t t[3];
        REQUIRE(pthread_create(&t[0], NULL, duel_dispose, &d) == 0);
        REQUIRE(pthread_create(&t[1], NULL, duel_dispose, &d) == 0);
        REQUIRE(pthread_create(&t[2], NULL, duel_terminate, &d) == 0);
        AO_store_release(&d.go, 1);
        for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
        /* The context went to exactly one owner: a disposer or the terminal. */
        CHECK_EQ(AO_load(&d.wins) + tr.terminals, 1);
        CHECK_EQ(tr.values, 1);
        client_observation_free(d.h);
        client_drop_retainer(&s);
        client_signal_destroy(&s);
    }
    check_balanced();
}

/* An observer attached after the signal terminated is sent `interrupted` by
 * its own `observe`, outside any drain. That call must happen after every
 * delivery the signal made (contract 1 (docs/contracts.md): the terminal
 * event is the last thing delivered), so it sees what the last callbacks
 * wrote: plain fields here, which ThreadSanitizer reports if the attach that
 * finds the additions closed does not acquire the terminating drainer's
 * close. The late observers' handles are dropped at once, as a Swift caller
 * drops an unused disposable. */
typedef struct late_round {
    client_signal *signal;
    volatile AO_t go;
    long last;    /* the first observer's last value; plain */
    int finished; /* the first observer got its terminal event; plain */
    volatile AO_t progress; /* 1 from halfway, 2 terminated; relaxed: orders nothing (see late_attacher) */
    /* Counted by every late observer's `interrupted`: the drainer's (late
     * entries it took when sealing) and the attacher's own (found the signal
     * sealed) may overlap (contract 5), so relaxed RMWs, which order nothing
     * and hide nothing from TSan. */
    volatile AO_t late_interrupted, late_mismatches;
} late_round;

enum { LATE_VALUES = 64 };

static void record_last(client_observer *o, client_event ev) {
    late_round *r = o->user;
    if (ev.kind == CLIENT_VALUE) {
        r->last = ev.value;
        if (ev.value == LATE_VALUES / 2) AO_store(&r->progress, 1);
    } else {
        r->finished = 1;
        AO_store(&r->progress, 2);
    }
}

static void check_last(client_observer *o, client_event ev) {
    late_round *r = o->user;
    if (ev.kind != CLIENT_INTERRUPTED) return;
    AO_fetch_and_add1(&r->late_interrupted);
    if (!r->finished || r->last != LATE_VALUES) AO_fetch_and_add1(&r->late_mismatches);
}

static void *late_sender(void *p) {
    late_round *r = p;
    while (!AO_load_acquire(&r->go)) sched_yield();
    for (long v = 1; v <= LATE_VALUES; v++) client_send(r->signal, client_value(v));
    client_send(r->signal, client_terminal(CLIENT_COMPLETED));
    return NULL;
}

/* Attaches, from halfway through the values, until `observe` finds the
 * signal terminated. Each observer stays attached (freeing the handle does
 * not dispose it) and is called for every later value, so before the
 * terminal event the attacher stops at LATE_ATTACHES: a tight loop of
 * attaches makes every delivery longer, and under TSan the sender falls
 * behind without end. From the terminal event on it attaches in a tight
 * loop, racing the seal. That loop used to keep the terminating drainer
 * going (it closed the additions only when it found none pending, and
 * under TSan ran past ctest's timeout); the seal now closes at once, and
 * the loop ends soon after. `progress` is read relaxed, so it adds no
 * ordering that would hide the one under test. */
enum { LATE_ATTACHES = 256 };

static void *late_attacher(void *p) {
    late_round *r = p;
    while (!AO_load_acquire(&r->go)) sched_yield();
    while (AO_load(&r->progress) == 0) sched_yield();
    for (long attached = 0;; attached++) {
        while (attached >= LATE_ATTACHES && AO_load(&r->progress) < 2) sched_yield();
        client_observation *h = client_observe(r->signal, client_observer_new(check_last, r));
        if (!h) return NULL;
        client_observation_free(h);
    }
}

static void late_observer_sees_last_delivery(void) {
    baseline = client_get_stats();
    long rounds = scaled(300), self_interrupted = 0;
    for (long round = 0; round < rounds; round++) {
        client_signal s;
        client_signal_init_root(&s);
        late_round r = {.signal = &s};
        client_observation *h = client_observe(&s, client_observer_new(record_last, &r));
        CHECK(h != NULL);
        pthread_t t[2];
        REQUIRE(pthread_create(&t[0], NULL, late_sender, &r) == 0);
        REQUIRE(pthread_create(&t[1], NULL, late_attacher, &r) == 0);
        AO_store_release(&r.go, 1);
        for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
        CHECK_EQ(r.finished, 1);
        CHECK_EQ(r.last, LATE_VALUES);
        CHECK(AO_load(&r.late_interrupted) >= 1); /* at least the attach that found it closed */
        CHECK_EQ(AO_load(&r.late_mismatches), 0);
        self_interrupted += (long)AO_load(&r.late_interrupted);
        client_observation_free(h);
        client_drop_retainer(&s);
        client_signal_destroy(&s);
    }
    CHECK(self_interrupted >= rounds);
    check_balanced();
}

/* A thread that takes nodes from the pool but never frees one (a thread
 * that only sends, under contention) must give back what its magazine still
 * holds when it exits: otherwise those nodes are lost. The loss shows as a
 * leak under valgrind (ctest -L memcheck), which fails this test there. */
enum { POOL_NODE = 64 };

static void *take_one_node(void *p) {
    *(flare_node **)p = flare_node_alloc(POOL_NODE); /* refills a whole batch */
    return NULL;
}

static void pool_allocating_thread_gives_back(void) {
    flare_node *batch[200];
    for (int i = 0; i < 200; i++) batch[i] = flare_node_alloc(POOL_NODE);
    for (int i = 0; i < 200; i++) flare_node_free(batch[i], POOL_NODE); /* a batch reaches the depot */
    flare_node *taken = NULL;
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, take_one_node, &taken) == 0);
    pthread_join(t, NULL);
    REQUIRE(taken != NULL);
    flare_node_free(taken, POOL_NODE);
}

/* A thread whose own TLS destructor, running after the pool's flush, takes
 * and frees nodes: they must reach the depot too. Before the magazines lived
 * behind the pool key's value, the flush had already run and marked the
 * thread done, so the nodes left in its magazine were lost. A size class no
 * other test uses, so that the depot of that class holds exactly what this
 * thread gave back: this thread, whose magazine of the class is empty, then
 * gets every one of those nodes back. */
enum { EXIT_POOL_NODE = 200, EXIT_POOL_NODES = 300 }; /* not a multiple of the flush size */

static pthread_key_t exit_pool_key;
static flare_node *exit_pool_nodes[EXIT_POOL_NODES];

static void allocate_on_exit(void *round) {
    if ((uintptr_t)round == 1) {
        /* Destructors run in an unspecified order: come back in the next
         * round, after the pool's flush has certainly run once. */
        REQUIRE(pthread_setspecific(exit_pool_key, (void *)2) == 0);
        return;
    }
    for (int i = 0; i < EXIT_POOL_NODES; i++) exit_pool_nodes[i] = flare_node_alloc(EXIT_POOL_NODE);
    for (int i = 0; i < EXIT_POOL_NODES; i++) flare_node_free(exit_pool_nodes[i], EXIT_POOL_NODE);
}

static void *allocating_until_exit(void *unused) {
    flare_node_free(flare_node_alloc(EXIT_POOL_NODE), EXIT_POOL_NODE); /* the pool knows this thread */
    REQUIRE(pthread_setspecific(exit_pool_key, (void *)1) == 0);
    return unused;
}

static void pool_allocation_in_a_thread_destructor(void) {
    REQUIRE(pthread_key_create(&exit_pool_key, allocate_on_exit) == 0);
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, allocating_until_exit, NULL) == 0);
    pthread_join(t, NULL);
    pthread_key_delete(exit_pool_key);
    flare_node *again[EXIT_POOL_NODES];
    for (int i = 0; i < EXIT_POOL_NODES; i++) again[i] = flare_node_alloc(EXIT_POOL_NODE);
    int recovered = 0;
    for (int i = 0; i < EXIT_POOL_NODES; i++) {
        for (int j = 0; j < EXIT_POOL_NODES; j++) {
            if (again[j] == exit_pool_nodes[i]) {
                recovered++;
                break;
            }
        }
    }
    for (int i = 0; i < EXIT_POOL_NODES; i++) flare_node_free(again[i], EXIT_POOL_NODE);
    CHECK_EQ(recovered, EXIT_POOL_NODES);
}


/* The pool holds the nodes live at once plus a bounded reserve, whatever
 * the threads' timing. A script of three threads, one step at a time: X
 * allocates a batch's worth and D frees it (a batch in the depot); then,
 * each round, Y allocates one node, X a batch's worth, D frees X's nodes
 * and Y its node. If a refill took the whole depot, Y's single allocation
 * would take every free node, X would find the depot empty and call
 * malloc, and Y's free would flush everything back, leaving its magazine
 * empty for the next round: one more batch held per round, with at most a
 * batch and one node live. A size class no other test uses (160 bytes). */
enum { BOUND_NODE = 160, BOUND_ROUNDS = 300 };

typedef struct script_thread {
    pthread_t thread;
    sem_t go, done;
    void (*step)(void);
} script_thread;

static void *script_loop(void *p) {
    script_thread *t = p;
    for (;;) {
        while (sem_wait(&t->go) != 0) {}
        if (!t->step) return NULL;
        t->step();
        sem_post(&t->done);
    }
}

static void script_start(script_thread *t) {
    REQUIRE(sem_init(&t->go, 0, 0) == 0 && sem_init(&t->done, 0, 0) == 0);
    REQUIRE(pthread_create(&t->thread, NULL, script_loop, t) == 0);
}

/* Runs `step` on `t` and waits until it has returned. */
static void script_run(script_thread *t, void (*step)(void)) {
    t->step = step;
    sem_post(&t->go);
    while (sem_wait(&t->done) != 0) {}
}

static void script_stop(script_thread *t) {
    t->step = NULL;
    sem_post(&t->go);
    pthread_join(t->thread, NULL);
    sem_destroy(&t->go);
    sem_destroy(&t->done);
}

static flare_node *bound_batch[FLARE_POOL_MAGAZINE];
static flare_node *bound_single;

static void bound_take_batch(void) {
    for (int i = 0; i < FLARE_POOL_MAGAZINE; i++) bound_batch[i] = flare_node_alloc(BOUND_NODE);
}
static void bound_free_batch(void) {
    for (int i = 0; i < FLARE_POOL_MAGAZINE; i++) flare_node_free(bound_batch[i], BOUND_NODE);
}
static void bound_take_one(void) { bound_single = flare_node_alloc(BOUND_NODE); }
static void bound_free_one(void) { flare_node_free(bound_single, BOUND_NODE); }

static void pool_stays_bounded(void) {
    script_thread x, y, d;
    script_start(&x);
    script_start(&y);
    script_start(&d);
    size_t before = flare_node_pool_bytes();
    script_run(&x, bound_take_batch);
    script_run(&d, bound_free_batch);
    for (int round = 0; round < BOUND_ROUNDS; round++) {
        script_run(&y, bound_take_one);
        script_run(&x, bound_take_batch);
        script_run(&d, bound_free_batch);
        script_run(&y, bound_free_one);
    }
    size_t grown = flare_node_pool_bytes() - before;
    /* Live at once: a batch and one node; free: a magazine per thread (4
     * with this one) and the depot, which this script fills with at most
     * two batches. */
    size_t bound = (size_t)(FLARE_POOL_MAGAZINE + 1 + 4 * FLARE_POOL_MAGAZINE + 2 * FLARE_POOL_MAGAZINE) * BOUND_NODE;
    if (grown > bound) fprintf(stderr, "  pool grew by %zu bytes over %d rounds (bound %zu)\n", grown, BOUND_ROUNDS, bound);
    CHECK(grown <= bound);
    script_stop(&x);
    script_stop(&y);
    script_stop(&d);
}

/* Free nodes beyond the depot's bound go back to malloc: one thread frees
 * three times the bound's worth of nodes of one class, and the pool keeps
 * at most the bound plus its own magazine. */
static void pool_returns_what_the_depot_cannot_keep(void) {
    enum { NODES = 3 * FLARE_POOL_DEPOT_MAX_BYTES / BOUND_NODE };
    flare_node **nodes = malloc(NODES * sizeof *nodes);
    REQUIRE(nodes != NULL);
    size_t before = flare_node_pool_bytes();
    for (int i = 0; i < NODES; i++) nodes[i] = flare_node_alloc(BOUND_NODE);
    for (int i = 0; i < NODES; i++) flare_node_free(nodes[i], BOUND_NODE);
    free(nodes);
    size_t kept = flare_node_pool_bytes() - before;
    CHECK(kept <= (size_t)FLARE_POOL_DEPOT_MAX_BYTES + FLARE_POOL_MAGAZINE * BOUND_NODE);
}

int main(void) {
    stress_read_scale();
    client_keep_released = true; /* a late call hits a poisoned context, not freed memory */
    printf("scale %g\n", scale);
    RUN(senders_churn_and_reentrancy);
    RUN(termination_races);
    RUN(dispose_duels);
    RUN(late_observer_sees_last_delivery);
    RUN(pool_allocating_thread_gives_back);
    RUN(pool_allocation_in_a_thread_destructor);
    RUN(pool_stays_bounded);
    RUN(pool_returns_what_the_depot_cannot_keep);
    client_stats st = client_get_stats();
    printf("sends queued behind a drainer: %ld; disposals released at once: %ld, deferred: %ld\n",
           st.sends_queued, st.disposals_released, st.disposals_deferred);
    client_reap();
    return harness_finish();
}
