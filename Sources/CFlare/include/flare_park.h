/**
 * flare_park.h — parking spots: where a thread sleeps until another thread
 * says the thing it waits for may have changed, keyed by an address.
 *
 * A waiter whose condition lives in memory the C core cannot address (a
 * Swift `Atomic` in a class: the property's write gate, `_WriteGate`) sleeps
 * on one of FLARE_PARK_SPOTS futex words chosen by hashing a key (any
 * address that stands for the condition, such as the object owning it).
 * Each spot holds a sequence number; the protocol, for a condition C:
 *
 *   waiter                                   waker
 *   t = flare_park_ticket(key)  (acquire)    make C true (an RMW on C's word:
 *   read C; if true, stop                       acquire-release)
 *   announce itself on C's word (an RMW,     if someone announced itself:
 *     release), re-checking that C is           flare_unpark_all(key)
 *     still false                               (sequence + 1, release; then
 *   flare_park(key, t)                           wake every sleeper on the spot)
 *
 * No lost wake-up: the waiter sleeps only while the spot's sequence is still
 * `t` (the kernel compares and sleeps atomically). If the waker's increment
 * came first, the futex returns at once. Otherwise the waiter's ticket load
 * happens before the waker's increment (the waiter's releasing announcement
 * is read by the waker's acquiring RMW on C's word, which is sequenced
 * before the increment), so the increment is later in the spot's order, and
 * the wake that follows it finds the waiter asleep. A waiter that read a
 * ticket *after* an increment had already made C true sees C true (the
 * increment is releasing, the ticket load acquiring): it does not sleep.
 *
 * Keys that share a spot only cost spurious wake-ups: every waiter checks
 * its condition again after flare_park returns, which it may do at any time.
 *
 * May run concurrently: any of these with any other, on any keys.
 */
#ifndef FLARE_PARK_H
#define FLARE_PARK_H

#include <stdint.h>

/** Number of parking spots (a power of two), one cache line each. */
#define FLARE_PARK_SPOTS 64

/** The spot's sequence number, with acquire ordering: the ticket to pass to
 *  `flare_park`. Read it before checking the condition. */
unsigned int flare_park_ticket(const void *key);

/** Sleeps until the spot of `key` moves past `ticket` (returns at once if it
 *  has already); may return spuriously. */
void flare_park(const void *key, unsigned int ticket);

/** Moves the spot of `key` forward (release) and wakes every thread parked
 *  on it. Call after making the condition true. */
void flare_unpark_all(const void *key);

#endif
