/*
 * waits.h — who waits for whom: the table a sender consults before it waits
 * for a full queue, so that no set of threads waits for each other for ever.
 * Internal (serial.c's queue limit).
 *
 * A sender waiting for a slot of word X waits for X's holder (the thread
 * whose tag is in X's `owner`) to take nodes off the queue. If that holder
 * is itself waiting, through a chain of such waits, for a word the sender
 * holds, nobody moves: a cycle of waits. Library structure can make one
 * without a cycle in the user's graph (a flatten runs an inner's start
 * handler while its thread holds the flatten's funnel word; a second thread
 * holding the inner run's word forwards into the funnel). So before it
 * waits, and again while it waits, a sender publishes whom it waits for and
 * follows the chain; if the chain comes back to itself, it does not wait
 * but queues at once (over the limit: see flare_serial_wait).
 *
 * The table maps a thread tag (flare_thread_tag) to the tag of the thread it
 * is waiting for, or 0. Entries are claimed on a thread's first wait and
 * never freed, so a reader never touches freed memory; a tag is reused by a
 * later thread with the same thread pointer, which inherits the entry (a
 * thread leaves no wait behind: it clears its entry before it stops
 * waiting). Only tags are stored and compared: following a chain never
 * dereferences another thread's serial word, which may be gone.
 *
 * Why a cycle is seen (C11): each step of a check is
 *     fence(seq_cst); o = owner(X); entry(me) = o; fence(seq_cst);
 *     walk: entry(o), entry(entry(o)), ... until 0, me, or a bound.
 * Two threads T and U that start waiting for each other (T for a word U
 * holds, U for one T holds) each stored its owner tag before its first
 * fence (they acquired their words before they sent). Of their first
 * fences, the later in the single total order S reads the other's owner
 * store, so at least one of them reads the right holder; and of their
 * second fences, the later one's walk reads the other's entry (the
 * store-buffering pattern with seq_cst fences on both sides). One of them
 * may still read a stale owner (its first fence came first): it publishes a
 * wrong entry, and the other's walk misses the cycle. Hence the checks while
 * waiting: a waiter checks again every WAITS_RECHECK spins and after each
 * timed sleep (flare_serial_wait), and a cycle, once formed, does not change
 * (every thread in it is stuck, holding what it holds): each check's fences
 * come later in S than the stores that formed it, so the next check of any
 * of its threads reads the right owners and entries, and finds it. A longer
 * cycle is found the same way, up to WAITS_MAX_HOPS threads (nothing in the
 * library makes one longer than two: the flatten's funnel and an inner's
 * run). A chain that does not come back within that bound is not taken for
 * a cycle: it may be a cycle of other threads, which they find and break
 * themselves.
 *
 * What may be wrong, and what it costs: a stale entry (its thread stopped
 * waiting and has not cleared it yet, or the owner moved on) makes a walk
 * see a cycle that is gone; that sender queues one node over the limit.
 * Nothing is lost and every event is still delivered once, in order.
 *
 * May run concurrently: any of these, from any threads.
 */
#ifndef FLARE_WAITS_H
#define FLARE_WAITS_H

#include "flare_limit.h"
#include "flare_serial.h"

/** Entries in the table (a power of two): threads that ever waited at once
 *  or in turn with distinct thread pointers. */
#define WAITS_ENTRIES 4096

/** Links of a chain a check follows before it takes the chain for a cycle. */
#define WAITS_MAX_HOPS 16

/** The calling thread's entry, claimed on first use; NULL if the table is
 *  full (the caller then treats every check as a cycle: it never waits). */
volatile AO_t *flare_waits_entry(void);

/**
 * Publishes that the caller (whose entry is `entry`) waits for the holder of
 * `s`, and returns whether that wait would close a cycle of waits. The entry
 * stays published until `flare_waits_leave`.
 */
bool flare_waits_would_cycle(volatile AO_t *entry, const flare_serial *s);

/** The caller stopped waiting: clears its entry. */
static inline void flare_waits_leave(volatile AO_t *entry) {
    if (entry) AO_store_release(entry, 0);
}

#endif
