/*
 * trace.c — the `flare` USDT provider's semaphores and probe sites
 * (flare_trace.h: T1–T6), and the labels that name signals.
 *
 * Each firing function holds the one site of its probe (T2). They are
 * `noinline` so that the site exists once whatever inlines its caller, and
 * `cold` so that the compiler lays them, and the code that sets up their
 * arguments, away from the paths that test the semaphores.
 */
#include "flare_trace.h"

#include <stdlib.h>
#include <string.h>

#ifdef FLARE_TRACE_USDT
/* Must precede <sys/sdt.h>: each probe's note then records the address of
 * its semaphore, which the tracer increments while attached. */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

/* One definition per probe, in the section tracers look for; event_sent's
 * and value_sent's are the halves of one word (flare_trace_events_on), and
 * their symbols, which the probes' notes name, are defined on it. */
#define FLARE_TRACE_DEFINE_SEMAPHORE(probe) \
    volatile unsigned short flare_##probe##_semaphore __attribute__((section(".probes"), used)) = 0;
FLARE_TRACE_OTHER_PROBES(FLARE_TRACE_DEFINE_SEMAPHORE)

volatile flare_trace_event_semaphores flare_event_semaphores __attribute__((section(".probes"), used, aligned(4))) = {
    .any = 0};
_Static_assert(offsetof(flare_trace_event_semaphores, probe.value_sent) == 2, "value_sent's half of the word");
__asm__(".globl flare_event_sent_semaphore\n\t"
        ".set flare_event_sent_semaphore, flare_event_semaphores\n\t"
        ".globl flare_value_sent_semaphore\n\t"
        ".set flare_value_sent_semaphore, flare_event_semaphores + 2");

/* FIREn(probe, n arguments): the probe site. sdt.h's numbered macros,
 * not its variadic one, which needs GNU's `, ## __VA_ARGS__`. */
#define FIRE2(p, a, b) STAP_PROBE2(flare, p, a, b)
#define FIRE3(p, a, b, c) STAP_PROBE3(flare, p, a, b, c)
#define FIRE4(p, a, b, c, d) STAP_PROBE4(flare, p, a, b, c, d)
#define FIRE5(p, a, b, c, d, e) STAP_PROBE5(flare, p, a, b, c, d, e)
#else
/* T3: no probes, and no caller passes a check to get here. */
#define FIRE2(...) ((void)0)
#define FIRE3(...) ((void)0)
#define FIRE4(...) ((void)0)
#define FIRE5(...) ((void)0)
#endif

#define COLD __attribute__((noinline, cold))

/* ------------------------------------------------------------------------ */
/* Labels                                                                    */
/* ------------------------------------------------------------------------ */

flare_trace_label *flare_trace_label_new(const char *name, void *describe) {
    size_t n = strlen(name) + 1;
    flare_trace_label *l = malloc(sizeof *l + n);
    if (!l) abort();
    l->previous = NULL;
    l->describe = describe;
    memcpy(l->name, name, n);
    return l;
}

void flare_core_set_label(flare_core *c, flare_trace_label *label) {
    AO_t old = AO_load(&c->label);
    for (;;) {
        label->previous = (flare_trace_label *)old;
        /* Release: publishes the label's name, describe and `previous` to
         * the acquiring readers (flare_core_label). A failed attempt only
         * retries; what it read is written into `previous` again. */
        AO_t seen = AO_fetch_compare_and_swap_release(&c->label, old, (AO_t)label);
        if (seen == old) break;
        old = seen;
    }
#ifdef FLARE_TRACE_USDT
    if (FLARE_TRACE_ON(signal_named)) FIRE2(signal_named, (const void *)c, (const char *)label->name);
#endif
}

/* Called by flare_core_destroy (bag.c), with nothing else left to read
 * the labels. */
void flare_trace_free_labels(flare_core *c, void (*release_ctx)(void *ctx)) {
    flare_trace_label *l = (flare_trace_label *)AO_load(&c->label);
    AO_store(&c->label, 0);
    while (l) {
        flare_trace_label *previous = l->previous;
        if (l->describe && release_ctx) release_ctx(l->describe);
        free(l);
        l = previous;
    }
}

uint64_t flare_trace_next_id(void) {
    static volatile AO_t next = 0;
    /* Relaxed: only uniqueness matters. */
    return (uint64_t)AO_fetch_and_add1(&next) + 1;
}

/* ------------------------------------------------------------------------ */
/* Probe sites                                                               */
/* ------------------------------------------------------------------------ */

/* Unused parameters when the probes compile to nothing (T3). */
#ifdef FLARE_TRACE_USDT
#define UNUSED(...)
#else
#define UNUSED(...) UNUSED_(__VA_ARGS__, 0, 0, 0, 0)
#define UNUSED_(a, b, c, d, ...) ((void)(a), (void)(b), (void)(c), (void)(d))
#endif

#ifdef FLARE_TRACE_USDT
/* Slots of the queue limit held by queued events, or 0 without a limit. */
static unsigned int queue_outstanding(const flare_serial *s) {
    if (AO_int_load((volatile unsigned int *)&s->limit) == 0) return 0;
    return AO_int_load((volatile unsigned int *)&s->tickets) - AO_int_load((volatile unsigned int *)&s->freed);
}
#endif

COLD void flare_trace_signal_created(const flare_core *c) {
    UNUSED(c);
    FIRE2(signal_created, (const void *)c, (const void *)c->serial);
}

COLD void flare_trace_signal_ended(const flare_core *c, int how, size_t observers) {
    UNUSED(c, how, observers);
    FIRE4(signal_ended, (const void *)c, flare_core_name(c), how, (unsigned long)observers);
}

COLD void flare_trace_signal_freed(const flare_core *c) {
    UNUSED(c);
    FIRE2(signal_freed, (const void *)c, flare_core_name(c));
}

/* Called by the drainer (delivery), so `count`, drainer-private, is its to
 * read. */
COLD void flare_trace_event_sent(const flare_core *c, int kind) {
    UNUSED(c, kind);
    FIRE4(event_sent, (const void *)c, flare_core_name(c), kind, (unsigned long)c->count);
}

COLD void flare_trace_value_sent(const flare_core *c, const char *description) {
    UNUSED(c, description);
    FIRE3(value_sent, (const void *)c, flare_core_name(c), description);
}

COLD void flare_trace_observer_attached(const flare_core *c, const flare_entry *e) {
    UNUSED(c, e);
    FIRE3(observer_attached, (const void *)c, (const void *)e, flare_core_name(c));
}

COLD void flare_trace_observer_disposed(const flare_core *c, const flare_entry *e) {
    UNUSED(c, e);
    FIRE3(observer_disposed, (const void *)c, (const void *)e, flare_core_name(c));
}

COLD void flare_trace_event_queued(const flare_serial *s, const flare_core *c, int kind, bool reentrant) {
    UNUSED(s, c, kind, reentrant);
    /* Relaxed loads, a racy snapshot: tickets taken minus slots returned,
     * both wrapping (flare_limit.h). */
    FIRE5(event_queued, (const void *)s, (const void *)c, kind, (int)reentrant,
          queue_outstanding(s));
}

COLD void flare_trace_batch_handed(const flare_serial *s, const void *batch, unsigned int events) {
    UNUSED(s, batch, events);
    FIRE3(batch_handed, (const void *)s, batch, events);
}

COLD void flare_trace_sender_waiting(const flare_serial *s, unsigned int ticket) {
    UNUSED(s, ticket);
    FIRE4(sender_waiting, (const void *)s, ticket, ticket - AO_int_load((volatile unsigned int *)&s->freed),
          AO_int_load((volatile unsigned int *)&s->limit));
}

COLD void flare_trace_sender_released(const flare_serial *s, unsigned int ticket, int result, unsigned int rounds) {
    UNUSED(s, ticket, result, rounds);
    FIRE4(sender_released, (const void *)s, ticket, result, rounds);
}

COLD void flare_trace_drain_started(const flare_serial *s, const flare_core *c) {
    UNUSED(s, c);
    FIRE2(drain_started, (const void *)s, (const void *)c);
}

COLD void flare_trace_drain_ended(const flare_serial *s, unsigned int delivered) {
    UNUSED(s, delivered);
    FIRE2(drain_ended, (const void *)s, delivered);
}

COLD void flare_trace_run_started(uint64_t run, const char *name) {
    UNUSED(run, name);
    FIRE2(run_started, run, name);
}

COLD void flare_trace_run_ended(uint64_t run, const char *name, int how) {
    UNUSED(run, name, how);
    FIRE3(run_ended, run, name, how);
}

COLD void flare_trace_run_event_sent(uint64_t run, const char *name, int kind) {
    UNUSED(run, name, kind);
    /* The same probe as a signal's: a named producer's events count with
     * the signals' (flare_trace.h). No observers: a run has one. */
    FIRE4(event_sent, (const void *)(uintptr_t)run, name, kind, 1UL);
}

COLD void flare_trace_run_value_sent(uint64_t run, const char *name, const char *description) {
    UNUSED(run, name, description);
    FIRE3(value_sent, (const void *)(uintptr_t)run, name, description);
}

COLD void flare_trace_inner_started(const void *flatten, const void *inner, uint64_t generation, int strategy) {
    UNUSED(flatten, inner, generation, strategy);
    FIRE4(inner_started, flatten, inner, generation, strategy);
}

COLD void flare_trace_inner_ended(const void *flatten, const void *inner, uint64_t generation, int how) {
    UNUSED(flatten, inner, generation, how);
    FIRE4(inner_ended, flatten, inner, generation, how);
}
