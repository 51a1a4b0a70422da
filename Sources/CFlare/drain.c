/*
 * drain.c — the slow halves of the serial word (see flare.h).
 *
 * Invariant: only the drainer (the thread that moved the word out of IDLE)
 * moves it from a pending stack back to BUSY, to IDLE or to CLOSED. Pushers
 * only ever replace a busy value by a longer stack. So the drainer's
 * exchange loops below can only fail because of pushes, and each retry sees
 * a longer stack: they are lock-free.
 */
#include "flare.h"

/* Reverses a LIFO chain: the stack's top is the newest node. */
static flare_node *reverse(flare_node *n) {
    flare_node *fifo = NULL;
    while (n) {
        flare_node *next = n->next;
        n->next = fifo;
        fifo = n;
        n = next;
    }
    return fifo;
}

/* Replaces the word with `replacement`, returning what it held. A CAS loop:
 * libatomic_ops has no exchange for AO_t. Full ordering: acquire to take the
 * pushers' nodes, release to publish the drainer's work before a release or
 * close. */
static AO_t exchange(flare_serial *s, AO_t replacement) {
    AO_t old = AO_load(&s->word);
    for (;;) {
        AO_t seen = AO_fetch_compare_and_swap_full(&s->word, old, replacement);
        if (seen == old) return old;
        old = seen;
    }
}

flare_node *flare_serial_take(flare_serial *s) {
    /* Called only after the releasing CAS failed, so the word holds a stack,
     * and only pushes can change it until we do. */
    return reverse((flare_node *)exchange(s, FLARE_SERIAL_BUSY));
}

flare_node *flare_serial_close(flare_serial *s) {
    AO_t top = exchange(s, FLARE_SERIAL_CLOSED);
    return top > FLARE_SERIAL_CLOSED ? reverse((flare_node *)top) : NULL;
}
