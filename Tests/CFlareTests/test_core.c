/*
 * test_core.c — single-threaded tests of the core's three structures, driven
 * directly through flare.h: the serial word, entries, the bag, and the
 * drain protocol's closed step (flare_drain_next_closed).
 */
#include "flare.h"
#include "harness.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

HARNESS_STATE;

static flare_node nodes[8];

/* An entry's reference count. */
static AO_t refs(const flare_entry *e) { return e->word / FLARE_ENTRY_REF; }

/* Runs a drainer-only call holding the (idle) serial word, as a drain
 * would: debug builds check it (FLARE_DRAINER_ONLY). */
#define AS_DRAINER(s, call)                         \
    do {                                            \
        CHECK(flare_serial_try_acquire(s));         \
        call;                                       \
        CHECK(flare_serial_release(s) == NULL);     \
    } while (0)

static void init_nodes(void) {
    for (int i = 0; i < 8; i++) nodes[i] = (flare_node){NULL, FLARE_NODE_EVENT};
}

/* ---- serial word ---------------------------------------------------------- */

static void serial_acquire_and_release_idle(void) {
    flare_serial s;
    flare_serial_init(&s);
    CHECK_EQ(flare_serial_peek(&s), FLARE_SERIAL_IDLE);
    CHECK(flare_serial_try_acquire(&s));
    CHECK_EQ(flare_serial_peek(&s), FLARE_SERIAL_BUSY);
    CHECK(!flare_serial_try_acquire(&s)); /* exactly one drainer */
    CHECK(flare_serial_release(&s) == NULL);
    CHECK_EQ(flare_serial_peek(&s), FLARE_SERIAL_IDLE);
    CHECK(flare_serial_try_acquire(&s));
    CHECK(flare_serial_release(&s) == NULL);
}

static void serial_push_on_idle(void) {
    flare_serial s;
    flare_serial_init(&s);
    init_nodes();
    CHECK_EQ(flare_serial_push(&s, &nodes[0], false), FLARE_PUSH_IDLE);
    CHECK_EQ(flare_serial_peek(&s), FLARE_SERIAL_IDLE);
    CHECK_EQ(flare_serial_push(&s, &nodes[0], true), FLARE_PUSH_ACQUIRED);
    CHECK_EQ(flare_serial_peek(&s), FLARE_SERIAL_BUSY); /* node not pushed */
    CHECK(flare_serial_release(&s) == NULL);
}

static void serial_release_returns_fifo(void) {
    flare_serial s;
    flare_serial_init(&s);
    init_nodes();
    CHECK(flare_serial_try_acquire(&s));
    for (int i = 0; i < 5; i++) CHECK_EQ(flare_serial_push(&s, &nodes[i], true), FLARE_PUSH_QUEUED);
    flare_node *n = flare_serial_release(&s);
    CHECK_EQ(flare_serial_peek(&s), FLARE_SERIAL_BUSY); /* still held */
    for (int i = 0; i < 5; i++) {
        CHECK(n == &nodes[i]);
        n = n->next;
    }
    CHECK(n == NULL);
    /* Pushed while the batch is processed: the next batch, again FIFO. */
    CHECK_EQ(flare_serial_push(&s, &nodes[5], false), FLARE_PUSH_QUEUED);
    CHECK_EQ(flare_serial_push(&s, &nodes[6], false), FLARE_PUSH_QUEUED);
    n = flare_serial_release(&s);
    CHECK(n == &nodes[5] && n->next == &nodes[6] && nodes[6].next == NULL);
    CHECK(flare_serial_release(&s) == NULL);
    CHECK_EQ(flare_serial_peek(&s), FLARE_SERIAL_IDLE);
}

static void serial_close_returns_pending_and_stays_closed(void) {
    flare_serial s;
    flare_serial_init(&s);
    init_nodes();
    CHECK(flare_serial_try_acquire(&s));
    CHECK_EQ(flare_serial_push(&s, &nodes[0], true), FLARE_PUSH_QUEUED);
    CHECK_EQ(flare_serial_push(&s, &nodes[1], true), FLARE_PUSH_QUEUED);
    flare_node *n = flare_serial_close(&s);
    CHECK(n == &nodes[0] && n->next == &nodes[1] && nodes[1].next == NULL);
    CHECK_EQ(flare_serial_peek(&s), FLARE_SERIAL_CLOSED);
    CHECK(!flare_serial_try_acquire(&s));
    CHECK_EQ(flare_serial_push(&s, &nodes[2], true), FLARE_PUSH_CLOSED);
    CHECK_EQ(flare_serial_push(&s, &nodes[2], false), FLARE_PUSH_CLOSED);
    CHECK_EQ(flare_serial_peek(&s), FLARE_SERIAL_CLOSED);
}

static void serial_close_with_nothing_pending(void) {
    flare_serial s;
    flare_serial_init(&s);
    CHECK(flare_serial_try_acquire(&s));
    CHECK(flare_serial_close(&s) == NULL);
    CHECK_EQ(flare_serial_peek(&s), FLARE_SERIAL_CLOSED);
}

/* ---- entries -------------------------------------------------------------- */

static int ctx_a;
static int ctx_b;

static void entry_claim_exactly_once(void) {
    long live = flare_debug_live_entries();
    flare_entry *e = flare_entry_new(&ctx_a, NULL);
    CHECK_EQ(flare_debug_live_entries(), live + 1);
    CHECK(flare_entry_ctx(e) == &ctx_a);
    CHECK(flare_entry_is_active(e));
    CHECK(flare_entry_claim(e, FLARE_ENTRY_DONE));
    CHECK(!flare_entry_is_active(e));
    CHECK(!flare_entry_claim(e, FLARE_ENTRY_DONE));
    CHECK(!flare_entry_claim(e, FLARE_ENTRY_DISPOSED));
    CHECK_EQ(e->word & FLARE_ENTRY_STATE_MASK, FLARE_ENTRY_DONE);
    flare_entry_unref(e);
    flare_entry_unref(e);
    CHECK_EQ(flare_debug_live_entries(), live);
}

static void entry_refcount_frees_with_last(void) {
    long live = flare_debug_live_entries();
    flare_entry *e = flare_entry_new(&ctx_a, NULL);
    CHECK_EQ(refs(e), 2); /* the bag's and the handle's */
    CHECK(flare_entry_claim(e, FLARE_ENTRY_DISPOSED));
    CHECK_EQ(refs(e), 2); /* a claim keeps the count */
    flare_entry_unref(e);
    CHECK_EQ(flare_debug_live_entries(), live + 1);
    CHECK_EQ(e->word & FLARE_ENTRY_STATE_MASK, FLARE_ENTRY_DISPOSED); /* unref keeps the state */
    flare_entry_unref(e);
    CHECK_EQ(flare_debug_live_entries(), live);
}

/* Attaches `e` and splices it in, as the next event's drain would. */
static void attach_and_splice(flare_core *c, flare_serial *s, flare_entry *e) {
    CHECK_EQ(flare_core_attach(c, e), FLARE_ATTACHED);
    CHECK(!(e->word & FLARE_ENTRY_SPLICED));
    CHECK(flare_serial_try_acquire(s));
    flare_core_splice(c);
    CHECK(e->word & FLARE_ENTRY_SPLICED); /* marked as it enters the array */
    CHECK(flare_serial_release(s) == NULL);
}

static void entry_dispose_idle_releases(void) {
    flare_serial s;
    flare_core c;
    flare_serial_init(&s);
    flare_core_init(&c, &s);
    flare_entry *e = flare_entry_new(&ctx_a, NULL);
    attach_and_splice(&c, &s, e);
    CHECK_EQ(flare_entry_dispose(&c, e), FLARE_DISPOSE_RELEASE);
    CHECK_EQ(flare_serial_peek(&s), FLARE_SERIAL_IDLE); /* nothing pushed */
    CHECK_EQ(flare_entry_dispose(&c, e), FLARE_DISPOSE_NOOP); /* idempotent */
    CHECK_EQ(refs(e), 2);
    flare_entry_unref(e);            /* the handle's */
    flare_core_destroy(&c, NULL);    /* the bag's */
}

/* A core with entries a then b attached (b on top of the additions, neither
 * spliced) and a drain in progress. */
typedef struct two_unspliced {
    flare_serial s;
    flare_core c;
    flare_entry *a, *b;
} two_unspliced;

static void attach_two_then_drain(two_unspliced *t) {
    flare_serial_init(&t->s);
    flare_core_init(&t->c, &t->s);
    t->a = flare_entry_new(&ctx_a, NULL);
    t->b = flare_entry_new(&ctx_b, NULL);
    CHECK_EQ(flare_core_attach(&t->c, t->a), FLARE_ATTACHED);
    CHECK_EQ(flare_core_attach(&t->c, t->b), FLARE_ATTACHED);
    CHECK(flare_serial_try_acquire(&t->s));
}

/* An entry disposed before any drain took it, while it is the top of the
 * additions, is taken back: released at once even during a drain, and the
 * stack's reference dropped; nothing is pushed on the serial word. */
static void entry_dispose_retracts_unspliced_top(void) {
    long live = flare_debug_live_entries();
    two_unspliced t;
    attach_two_then_drain(&t);
    CHECK_EQ(flare_entry_dispose(&t.c, t.b), FLARE_DISPOSE_RELEASE);
    CHECK_EQ(refs(t.b), 1);           /* only the handle's is left */
    CHECK(t.c.adds == (AO_t)t.a);          /* b is off the stack */
    CHECK_EQ(flare_entry_dispose(&t.c, t.a), FLARE_DISPOSE_RELEASE); /* now the top */
    CHECK_EQ(t.c.adds, 0);
    CHECK(flare_serial_release(&t.s) == NULL); /* no removal node */
    flare_entry_unref(t.a);
    flare_entry_unref(t.b);
    CHECK_EQ(flare_debug_live_entries(), live);
    CHECK(flare_serial_try_acquire(&t.s));
    flare_core_splice(&t.c);
    CHECK_EQ(t.c.count, 0);
    CHECK(flare_serial_release(&t.s) == NULL);
    flare_core_destroy(&t.c, NULL);
}

/* Below the top of the additions, an entry no drain has spliced is still
 * released at once during a drain (it stays on the stack; the next splice
 * drops it); once spliced, its disposal is deferred to the drainer. */
static void entry_dispose_unspliced_below_top_releases(void) {
    long live = flare_debug_live_entries();
    two_unspliced t;
    attach_two_then_drain(&t);
    CHECK_EQ(flare_entry_dispose(&t.c, t.a), FLARE_DISPOSE_RELEASE);
    CHECK(t.c.adds == (AO_t)t.b);          /* not retracted: b is on top */
    CHECK_EQ(refs(t.a), 2);                /* the stack's and the handle's */
    flare_core_splice(&t.c);               /* drops a (disposed), keeps b */
    CHECK_EQ(refs(t.a), 1);
    CHECK(!(t.a->word & FLARE_ENTRY_SPLICED));
    CHECK_EQ(t.c.count, 1);
    CHECK(t.c.items[0] == t.b);
    CHECK(t.b->word & FLARE_ENTRY_SPLICED);
    CHECK_EQ(flare_entry_dispose(&t.c, t.b), FLARE_DISPOSE_DEFERRED);
    flare_node *n = flare_serial_release(&t.s);
    CHECK(n == &t.b->removal && n->next == NULL); /* b's removal only */
    flare_entry_unref(t.b); /* the drainer, after releasing ctx */
    CHECK(flare_serial_release(&t.s) == NULL);
    flare_entry_unref(t.a); /* handle: a is freed */
    CHECK_EQ(flare_debug_live_entries(), live + 1);
    flare_entry_unref(t.b);
    flare_core_destroy(&t.c, NULL);
    CHECK_EQ(flare_debug_live_entries(), live);
}

static void entry_dispose_during_drain_defers(void) {
    long live = flare_debug_live_entries();
    flare_serial s;
    flare_core c;
    flare_serial_init(&s);
    flare_core_init(&c, &s);
    flare_entry *e = flare_entry_new(&ctx_a, NULL);
    CHECK_EQ(flare_core_attach(&c, e), FLARE_ATTACHED);
    CHECK(flare_serial_try_acquire(&s));
    flare_core_splice(&c);
    CHECK_EQ(c.count, 1);
    CHECK_EQ(flare_entry_dispose(&c, e), FLARE_DISPOSE_DEFERRED);
    CHECK(!flare_entry_is_active(e));
    CHECK_EQ(refs(e), 3); /* plus the removal node's */
    CHECK_EQ(flare_entry_dispose(&c, e), FLARE_DISPOSE_NOOP);
    flare_node *n = flare_serial_release(&s);
    CHECK(n == &e->removal);
    CHECK(flare_node_is_removal(n));
    CHECK(n->kind == (uintptr_t)flare_entry_ctx(e)); /* the kind word is the context */
    CHECK(n->next == NULL);
    CHECK(flare_entry_of_removal(n) == e);
    flare_entry_unref(flare_entry_of_removal(n)); /* the drainer, after releasing ctx */
    CHECK(flare_serial_release(&s) == NULL);
    flare_entry_unref(e); /* handle */
    CHECK_EQ(flare_debug_live_entries(), live + 1);
    flare_core_destroy(&c, NULL); /* bag */
    CHECK_EQ(flare_debug_live_entries(), live);
}

static void entry_dispose_after_close_releases(void) {
    flare_serial s;
    flare_core c;
    flare_serial_init(&s);
    flare_core_init(&c, &s);
    flare_entry *e = flare_entry_new(&ctx_a, NULL);
    attach_and_splice(&c, &s, e);
    CHECK(flare_serial_try_acquire(&s));
    CHECK(flare_serial_close(&s) == NULL);
    CHECK_EQ(flare_entry_dispose(&c, e), FLARE_DISPOSE_RELEASE);
    CHECK_EQ(refs(e), 2); /* no removal reference left behind */
    flare_entry_unref(e);
    flare_core_destroy(&c, NULL);
}

/* ---- bag ------------------------------------------------------------------ */

static int ctxs[256];

static void bag_attach_order(void) {
    long live = flare_debug_live_entries();
    flare_serial s;
    flare_core c;
    flare_serial_init(&s);
    flare_core_init(&c, &s);
    flare_entry *e[6];
    for (int i = 0; i < 3; i++) {
        e[i] = flare_entry_new(&ctxs[i], NULL);
        CHECK_EQ(flare_core_attach(&c, e[i]), FLARE_ATTACHED);
    }
    AS_DRAINER(&s, flare_core_splice(&c));
    for (int i = 3; i < 6; i++) {
        e[i] = flare_entry_new(&ctxs[i], NULL);
        CHECK_EQ(flare_core_attach(&c, e[i]), FLARE_ATTACHED);
    }
    AS_DRAINER(&s, flare_core_splice(&c));
    CHECK_EQ(c.count, 6);
    for (int i = 0; i < 6; i++) CHECK(c.items[i] == e[i]);
    AS_DRAINER(&s, flare_core_splice(&c)); /* empty additions: no change */
    CHECK_EQ(c.count, 6);
    for (int i = 0; i < 6; i++) flare_entry_unref(e[i]);
    flare_core_destroy(&c, NULL);
    CHECK_EQ(flare_debug_live_entries(), live);
}

static void bag_splice_drops_entries_disposed_before(void) {
    long live = flare_debug_live_entries();
    flare_serial s;
    flare_core c;
    flare_serial_init(&s);
    flare_core_init(&c, &s);
    flare_entry *e[3];
    for (int i = 0; i < 3; i++) {
        e[i] = flare_entry_new(&ctxs[i], NULL);
        CHECK_EQ(flare_core_attach(&c, e[i]), FLARE_ATTACHED);
    }
    CHECK_EQ(flare_entry_dispose(&c, e[1]), FLARE_DISPOSE_RELEASE);
    flare_entry_unref(e[1]); /* handle gone: only the bag holds it */
    CHECK_EQ(flare_debug_live_entries(), live + 3);
    CHECK(flare_serial_try_acquire(&s));
    flare_core_splice(&c);
    CHECK(flare_serial_release(&s) == NULL);
    CHECK_EQ(c.count, 2);
    CHECK(c.items[0] == e[0] && c.items[1] == e[2]);
    CHECK_EQ(flare_debug_live_entries(), live + 2); /* freed by the splice */
    flare_entry_unref(e[0]);
    flare_entry_unref(e[2]);
    flare_core_destroy(&c, NULL);
    CHECK_EQ(flare_debug_live_entries(), live);
}

static void bag_compaction_preserves_order(void) {
    long live = flare_debug_live_entries();
    flare_serial s;
    flare_core c;
    flare_serial_init(&s);
    flare_core_init(&c, &s);
    enum { N = 200 };
    flare_entry *e[N];
    for (int i = 0; i < N; i++) {
        e[i] = flare_entry_new(&ctxs[i], NULL);
        CHECK_EQ(flare_core_attach(&c, e[i]), FLARE_ATTACHED);
    }
    AS_DRAINER(&s, flare_core_splice(&c));
    CHECK_EQ(c.count, N);
    size_t cap = c.capacity;
    /* Dispose all but every 17th: few enough survivors to shrink the array. */
    size_t dead = 0;
    for (int i = 0; i < N; i++) {
        if (i % 17 == 0) continue;
        CHECK_EQ(flare_entry_dispose(&c, e[i]), FLARE_DISPOSE_RELEASE);
        dead++;
    }
    AS_DRAINER(&s, flare_core_note_dead(&c, 0)); /* the walk skipped nothing: no pass */
    CHECK_EQ(c.count, N);
    CHECK(dead > 0);
    AS_DRAINER(&s, flare_core_note_dead(&c, 1)); /* it skipped one: every dead one goes */
    CHECK_EQ(c.count, (N + 16) / 17);
    CHECK(c.capacity < cap);
    for (size_t k = 0; k < c.count; k++) CHECK(c.items[k] == e[k * 17]);
    /* The bag's references of the dropped entries are gone; handles remain. */
    for (int i = 0; i < N; i++) CHECK_EQ(refs(e[i]), i % 17 == 0 ? 2 : 1);
    for (int i = 0; i < N; i++) flare_entry_unref(e[i]);
    flare_core_destroy(&c, NULL);
    CHECK_EQ(flare_debug_live_entries(), live);
}

/* An attach made by another thread than this one, which holds the word in
 * the tests below: the attacher the seal protocol serves. The drainer's
 * own attach during the terminal delivery is refused at once instead
 * (bag_drainer_attach_during_termination_is_refused). */
struct attach_call {
    flare_core *c;
    flare_entry *e;
    flare_attach_result result;
};

static void *attach_call_run(void *p) {
    struct attach_call *call = p;
    call->result = flare_core_attach(call->c, call->e);
    return NULL;
}

static flare_attach_result attach_from_another_thread(flare_core *c, flare_entry *e) {
    struct attach_call call = {c, e, FLARE_ATTACHED};
    pthread_t t;
    if (pthread_create(&t, NULL, attach_call_run, &call) != 0 || pthread_join(t, NULL) != 0) {
        perror("attach_from_another_thread");
        abort();
    }
    return call.result;
}

static void bag_attach_after_seal_fails(void) {
    long live = flare_debug_live_entries();
    flare_serial s;
    flare_core c;
    flare_serial_init(&s);
    flare_core_init(&c, &s);
    flare_entry *early = flare_entry_new(&ctxs[0], NULL);
    CHECK_EQ(flare_core_attach(&c, early), FLARE_ATTACHED);
    CHECK(flare_serial_try_acquire(&s));
    flare_core_splice(&c);
    CHECK(flare_core_begin_termination(&c));
    CHECK(!flare_core_begin_termination(&c)); /* one terminator */
    CHECK(!flare_core_is_alive(&c));
    /* Attached by other threads during the terminal delivery: returned by
     * seal, in order. */
    flare_entry *late[3];
    for (int i = 0; i < 3; i++) {
        late[i] = flare_entry_new(&ctxs[1 + i], NULL);
        CHECK_EQ(attach_from_another_thread(&c, late[i]), FLARE_ATTACHED);
    }
    CHECK(flare_entry_claim(early, FLARE_ENTRY_DONE));
    flare_core_drop_items(&c);
    flare_entry *l = flare_core_seal(&c);
    for (int i = 0; i < 3; i++) {
        CHECK(l == late[i]);
        flare_entry *next = l->add_next;
        CHECK(flare_entry_claim(l, FLARE_ENTRY_DONE));
        flare_entry_unref(l);
        l = next;
    }
    CHECK(l == NULL);
    CHECK(flare_core_seal(&c) == NULL);
    flare_entry *after = flare_entry_new(&ctxs[9], NULL);
    CHECK_EQ(flare_core_attach(&c, after), FLARE_ATTACH_TERMINATED);
    CHECK_EQ(refs(after), 1); /* the bag's reference was dropped */
    CHECK(flare_entry_claim(after, FLARE_ENTRY_DONE));
    flare_entry_unref(after);
    flare_entry_unref(early);
    for (int i = 0; i < 3; i++) flare_entry_unref(late[i]);
    flare_core_destroy(&c, NULL);
    CHECK_EQ(flare_debug_live_entries(), live);
}

/* The terminating drainer's own attach (an observer attaching from inside
 * the terminal event's delivery) is refused without being pushed, so its
 * observer is interrupted before `observe` returns, ahead of the observers
 * the terminal event has not reached (contract 5). */
static void bag_drainer_attach_during_termination_is_refused(void) {
    long live = flare_debug_live_entries();
    flare_serial s;
    flare_core c;
    flare_serial_init(&s);
    flare_core_init(&c, &s);
    CHECK(flare_serial_try_acquire(&s));
    flare_core_splice(&c);
    CHECK(flare_core_begin_termination(&c));
    flare_entry *mine = flare_entry_new(&ctxs[0], NULL);
    CHECK_EQ(flare_core_attach(&c, mine), FLARE_ATTACH_TERMINATED);
    CHECK_EQ(refs(mine), 1); /* never pushed: the bag's reference was dropped */
    CHECK(flare_entry_claim(mine, FLARE_ENTRY_DONE));
    flare_core_drop_items(&c);
    CHECK(flare_core_seal(&c) == NULL); /* nothing late */
    flare_entry_unref(mine);
    flare_core_destroy(&c, NULL);
    CHECK_EQ(flare_debug_live_entries(), live);
}

/* Regression: the seal closes the stack in the same step that takes the late
 * entries, so that the terminating drainer's work is bounded by what was
 * pending then. It used to leave the stack open while it interrupted them
 * and close only when it found it empty: an attacher in a loop kept the
 * drainer (and `sendCompleted()`) going for as long as it ran (the C stress
 * test under TSan timed out on it). Here an attach that comes while the
 * drainer is still interrupting the first late entry is refused, and its
 * attacher interrupts its own observer. */
static void bag_seal_closes_at_once(void) {
    long live = flare_debug_live_entries();
    flare_serial s;
    flare_core c;
    flare_serial_init(&s);
    flare_core_init(&c, &s);
    CHECK(flare_serial_try_acquire(&s));
    flare_core_splice(&c);
    CHECK(flare_core_begin_termination(&c));
    flare_core_drop_items(&c);
    flare_entry *first = flare_entry_new(&ctxs[0], NULL);
    CHECK_EQ(attach_from_another_thread(&c, first), FLARE_ATTACHED);
    flare_entry *batch = flare_core_seal(&c);
    CHECK(batch == first && batch->add_next == NULL);
    CHECK_EQ(c.state, FLARE_CORE_TERMINATED);
    /* While `first` is being interrupted, another observer tries to attach. */
    flare_entry *second = flare_entry_new(&ctxs[1], NULL);
    CHECK_EQ(flare_core_attach(&c, second), FLARE_ATTACH_TERMINATED);
    CHECK_EQ(refs(second), 1); /* the bag's reference was dropped */
    CHECK(flare_entry_claim(second, FLARE_ENTRY_DONE));
    CHECK(flare_entry_claim(first, FLARE_ENTRY_DONE));
    flare_entry_unref(first);
    /* Sealing again finds it closed. */
    CHECK(flare_core_seal(&c) == NULL);
    flare_entry_unref(first);
    flare_entry_unref(second);
    CHECK(flare_serial_close(&s) == NULL);
    flare_core_destroy(&c, NULL);
    CHECK_EQ(flare_debug_live_entries(), live);
}

static int released[8];
static void count_release(void *ctx) { released[(int *)ctx - ctxs]++; }

static void bag_destroy_releases_what_it_owns(void) {
    long live = flare_debug_live_entries();
    flare_serial s;
    flare_core c;
    flare_serial_init(&s);
    flare_core_init(&c, &s);
    flare_entry *e[4];
    for (int i = 0; i < 4; i++) {
        e[i] = flare_entry_new(&ctxs[i], NULL);
        CHECK_EQ(flare_core_attach(&c, e[i]), FLARE_ATTACHED);
        if (i == 1) AS_DRAINER(&s, flare_core_splice(&c));
    }
    /* 0,1 in the array, 2,3 still in the additions; 1 and 3 disposed. */
    CHECK_EQ(flare_entry_dispose(&c, e[1]), FLARE_DISPOSE_RELEASE);
    CHECK_EQ(flare_entry_dispose(&c, e[3]), FLARE_DISPOSE_RELEASE);
    for (int i = 0; i < 4; i++) flare_entry_unref(e[i]);
    for (int i = 0; i < 8; i++) released[i] = 0;
    flare_core_destroy(&c, count_release);
    CHECK(released[0] == 1 && released[1] == 0 && released[2] == 1 && released[3] == 0);
    CHECK_EQ(flare_debug_live_entries(), live);
}

/* ---- the drain protocol after the close ---------------------------------- */

/* A step of the closed drain, as test_core records it: the verdict, and the
 * node (DROP) or context (RELEASE) it came with. */
typedef struct closed_step {
    flare_drain_action action;
    const void *what;
} closed_step;

/* Runs flare_drain_next_closed until END, at most `max` steps (a loop that
 * never ends is a failure, not a hang). Returns the steps taken, END
 * included, or `max` + 1 if END never came. */
static int run_closed(flare_drain *d, closed_step *steps, int max) {
    for (int i = 0; i < max; i++) {
        flare_drain_action a = flare_drain_next_closed(d);
        steps[i].action = a;
        steps[i].what = a == FLARE_DRAIN_RELEASE ? d->ctx : a == FLARE_DRAIN_END ? NULL : (const void *)d->node;
        if (a == FLARE_DRAIN_END) return i + 1;
    }
    return max + 1;
}

/*
 * Observers disposed during a drain whose removal nodes are still queued when
 * a terminal event closes the word: the closed drain completes each removal
 * exactly once (RELEASE with that observer's context, the node's reference
 * to the entry dropped), in FIFO order among the events it drops. Both places
 * a queued removal can be at the close are covered: left in the batch in
 * progress behind the terminal event (b), and still on the word, returned by
 * flare_drain_close (x, disposed by an observer's callback while the
 * terminal event is being delivered).
 */
static void drain_closed_completes_queued_removals(void) {
    long live = flare_debug_live_entries();
    flare_serial s;
    flare_core c;
    flare_serial_init(&s);
    flare_core_init(&c, &s);
    flare_core_publish(&c); /* only the holder of the word may deliver */
    flare_entry *a = flare_entry_new(&ctxs[0], NULL);
    flare_entry *b = flare_entry_new(&ctxs[1], NULL);
    flare_entry *x = flare_entry_new(&ctxs[2], NULL);
    CHECK_EQ(flare_core_attach(&c, a), FLARE_ATTACHED);
    CHECK_EQ(flare_core_attach(&c, b), FLARE_ATTACHED);
    CHECK_EQ(flare_core_attach(&c, x), FLARE_ATTACHED);
    AS_DRAINER(&s, flare_core_splice(&c));
    CHECK_EQ(c.count, 3);

    /* A sender holds the word (delivering its own event); behind it are
     * queued: the terminal event, b's removal, a value. */
    init_nodes();
    flare_node *terminal = &nodes[0], *after1 = &nodes[1], *after2 = &nodes[2];
    CHECK(flare_serial_try_acquire(&s));
    CHECK_EQ(flare_queue_kind(&c, FLARE_EVENT_TERMINAL), FLARE_NODE_EVENT);
    CHECK_EQ(flare_serial_push(&s, terminal, true), FLARE_PUSH_QUEUED);
    CHECK_EQ(flare_entry_dispose(&c, b), FLARE_DISPOSE_DEFERRED);
    CHECK_EQ(refs(b), 3); /* bag, handle, removal node */
    CHECK_EQ(flare_serial_push(&s, after1, true), FLARE_PUSH_QUEUED);

    flare_drain d;
    flare_drain_begin(&d, &c, flare_serial_release(&s));
    CHECK_EQ(flare_drain_next(&d), FLARE_DRAIN_DELIVER);
    CHECK(d.node == terminal);

    /* The terminal event: a gets it; a's callback disposes x and a send
     * queues a value (the word is not closed yet); b and x get nothing. */
    flare_core_begin_delivery(&c);
    CHECK(flare_core_begin_termination(&c));
    CHECK(flare_entry_take_done(c.items[0]) == &ctxs[0]);
    CHECK_EQ(flare_entry_dispose(&c, x), FLARE_DISPOSE_DEFERRED);
    CHECK_EQ(flare_queue_kind(&c, FLARE_EVENT_VALUE), FLARE_NODE_EVENT);
    CHECK_EQ(flare_serial_push(&s, after2, true), FLARE_PUSH_QUEUED);
    CHECK(flare_entry_take_done(c.items[1]) == NULL); /* b: disposed */
    CHECK(flare_entry_take_done(c.items[2]) == NULL); /* x: disposed */
    flare_late late = flare_core_end_termination(&c);
    CHECK(flare_late_next(&late) == NULL);
    /* The array's references are gone; each removal node still holds one. */
    CHECK_EQ(refs(b), 2);
    CHECK_EQ(refs(x), 2);

    /* Finish: close, then the closed drain. */
    flare_drain_close(&d);
    CHECK_EQ(flare_serial_peek(&s), FLARE_SERIAL_CLOSED);
    CHECK_EQ(flare_queue_kind(&c, FLARE_EVENT_VALUE), FLARE_QUEUE_DROP);
    const closed_step expected[] = {
        {FLARE_DRAIN_RELEASE, &ctxs[1]}, /* the rest of the batch: b's removal, */
        {FLARE_DRAIN_DROP, after1},      /* the value behind it; */
        {FLARE_DRAIN_RELEASE, &ctxs[2]}, /* what the close took: x's removal, */
        {FLARE_DRAIN_DROP, after2},      /* the value sent during `completed`; */
        {FLARE_DRAIN_END, NULL},         /* then nothing */
    };
    enum { EXPECTED = sizeof expected / sizeof expected[0] };
    closed_step steps[2 * EXPECTED];
    int n = run_closed(&d, steps, 2 * EXPECTED);
    for (int i = 0; i < EXPECTED; i++) {
        CHECK(i < n);
        CHECK_EQ(steps[i].action, expected[i].action);
        CHECK(steps[i].what == expected[i].what);
    }
    CHECK_EQ(n, EXPECTED);
    CHECK_EQ(flare_drain_next_closed(&d), FLARE_DRAIN_END); /* and stays over */

    /* Each removal dropped its node's reference exactly once: the handles'
     * are the last, and with them every entry is freed. Nobody owns a
     * context any more (a DONE, b and x released above). */
    CHECK_EQ(refs(a), 1);
    CHECK_EQ(refs(b), 1);
    CHECK_EQ(refs(x), 1);
    CHECK_EQ(flare_debug_live_entries(), live + 3);
    flare_entry_unref(a);
    flare_entry_unref(b);
    flare_entry_unref(x);
    CHECK_EQ(flare_debug_live_entries(), live);
    for (int i = 0; i < 8; i++) released[i] = 0;
    flare_core_destroy(&c, count_release);
    for (int i = 0; i < 8; i++) CHECK_EQ(released[i], 0);
}

/* Whether `body` stops its process with abort() (a failed debug check),
 * run in a child so that the abort is observed, not suffered. */
static bool aborts(void (*body)(void)) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        freopen("/dev/null", "w", stderr); /* the check's message is expected */
        body();
        _exit(0);
    }
    int status = 0;
    REQUIRE(pid > 0 && waitpid(pid, &status, 0) == pid);
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

/* A published core, its serial word held by the caller or not. Static:
 * the aborting children below never clean up. */
static flare_serial misuse_serial;
static flare_core misuse_core;

static flare_core *published_core(bool held) {
    flare_serial_init(&misuse_serial);
    flare_core_init(&misuse_core, &misuse_serial);
    flare_core_publish(&misuse_core);
    if (held && !flare_serial_try_acquire(&misuse_serial)) abort();
    return &misuse_core;
}

static void splice_without_the_word(void) {
    flare_core *c = published_core(false);
    CHECK_EQ(flare_core_attach(c, flare_entry_new(&ctxs[0], NULL)), FLARE_ATTACHED);
    flare_core_splice(c);
}

static void bag_with_count_past_capacity(void) {
    flare_core *c = published_core(true);
    c->count = 1; /* no array */
    flare_core_check_invariants(c);
}

static void sealed_live_core(void) {
    flare_core *c = published_core(true);
    c->adds = FLARE_ADDS_CLOSED; /* closed, but never terminated */
    flare_core_check_invariants(c);
}

/* The debug checks (FLARE_DEBUG_CHECKS, on in every CMake build of these
 * tests) stop a drainer-only call made without the serial word on a
 * published core, and a bag whose invariants are broken; a correct drain
 * passes them. */
static void debug_checks_catch_misuse(void) {
#ifdef FLARE_DEBUG_CHECKS
    CHECK(aborts(splice_without_the_word));
    CHECK(aborts(bag_with_count_past_capacity));
    CHECK(aborts(sealed_live_core));
#else
    fputs("FLARE_DEBUG_CHECKS is off: the C tests must be built with it\n", stderr);
    CHECK(false);
#endif
}

static void no_entry_outlives_the_tests(void) { CHECK_EQ(flare_debug_live_entries(), 0); }

int main(void) {
    RUN(serial_acquire_and_release_idle);
    RUN(serial_push_on_idle);
    RUN(serial_release_returns_fifo);
    RUN(serial_close_returns_pending_and_stays_closed);
    RUN(serial_close_with_nothing_pending);
    RUN(entry_claim_exactly_once);
    RUN(entry_refcount_frees_with_last);
    RUN(entry_dispose_idle_releases);
    RUN(entry_dispose_during_drain_defers);
    RUN(entry_dispose_retracts_unspliced_top);
    RUN(entry_dispose_unspliced_below_top_releases);
    RUN(entry_dispose_after_close_releases);
    RUN(bag_attach_order);
    RUN(bag_splice_drops_entries_disposed_before);
    RUN(bag_compaction_preserves_order);
    RUN(bag_attach_after_seal_fails);
    RUN(bag_drainer_attach_during_termination_is_refused);
    RUN(bag_seal_closes_at_once);
    RUN(bag_destroy_releases_what_it_owns);
    RUN(drain_closed_completes_queued_removals);
    RUN(debug_checks_catch_misuse);
    RUN(no_entry_outlives_the_tests);
    return harness_finish();
}
