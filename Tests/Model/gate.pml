/*
 * gate.pml — a Promela model of a property's write gate
 * (Sources/Flare/Engine/Property/WriteGate.swift) and the parking spots it sleeps
 * on (Sources/CFlare/park.c, flare_park.h):
 *
 *   - enter: CAS owner 0 -> me; if that fails, poll: take the gate when it
 *     is open; else (after POLLS polls) read the ticket of the spot keyed by
 *     the holder `seen`, CAS owner seen -> seen | SLEEPERS (fails if the
 *     holder changed), and if it succeeded park on the ticket; look again;
 *   - leave: exchange owner -> 0; if the old word had SLEEPERS, move the
 *     holder's spot forward and wake every writer parked on it.
 *
 * Threads: WRITERS writers, each entering and leaving ROUNDS times.
 * With SHARED_SPOT every key hashes to one spot (collisions: spurious
 * wake-ups of other keys' sleepers).
 *
 * Granularity: every atomic instruction is one step; the futex compare and
 * sleep is one step (the kernel makes it atomic), a wake one step.
 * Memory model: sequential consistency. The C11 argument (the releasing
 * announcement read by the holder's acquire-release exchange orders the
 * sleeper's ticket load before the holder's increment) is in
 * WriteGate.swift and flare_park.h.
 *
 * Checked: mutual exclusion (assertion); no lost wake-up and no deadlock
 * (spin's invalid end states: a writer asleep with nobody left to wake it
 * never ends). The gate is not fair: a writer may lose the race for it
 * to others any number of times, as with any lock without a queue.
 *
 * MUTATION (each must make the check fail; Tests/Model/run.sh checks it):
 *   1  leave stores 0 without looking for sleepers (no wake)
 *   2  a waiter reads its ticket after announcing itself (steps reordered)
 *   3  a waiter announces itself with a plain store of seen | SLEEPERS
 *      instead of a CAS (it may mark a holder that has already left)
 */

#ifndef WRITERS
#define WRITERS 3
#endif
#ifndef ROUNDS
#define ROUNDS 1
#endif
#ifndef POLLS
#define POLLS 1
#endif
#ifndef SHARED_SPOT
#define SHARED_SPOT 0
#endif
#ifndef MUTATION
#define MUTATION 0
#endif

#define SLEEPERS 8
#define HOLDER(w) ((w) & 7)
#if SHARED_SPOT
#define SPOT(h) 0
#else
#define SPOT(h) (h)
#endif

byte owner = 0;               /* 0, or the holder's id (1..WRITERS) | SLEEPERS */
byte seq[WRITERS + 1];        /* the spots' sequence numbers (wrapping) */
bool asleep[WRITERS + 1];     /* writer i sleeps in the futex */
byte parkedOn[WRITERS + 1];   /* the spot writer i sleeps on */
byte inside = 0;              /* writers between enter and leave */

inline wake_all(s) {
    atomic {
        byte j = 1;
        do
        :: j <= WRITERS ->
            if
            :: asleep[j] && parkedOn[j] == s -> asleep[j] = 0
            :: else -> skip
            fi;
            j++
        :: else -> break
        od
    }
}

proctype Writer(byte me) {
    byte round = 0, seen, key, ticket, prev, polled;
    bool got;
    do
    :: round < ROUNDS ->
        /* enter: the fast CAS */
        atomic { if :: owner == 0 -> owner = me; got = 1 :: else -> got = 0 fi }
        polled = 0;
        do
        :: got -> break
        :: else ->
            seen = owner;
            if
            :: seen == 0 ->
                atomic { if :: owner == 0 -> owner = me; got = 1 :: else -> skip fi }
            :: seen != 0 && polled < POLLS -> polled++
            :: seen != 0 && polled >= POLLS ->
                key = SPOT(HOLDER(seen));
#if MUTATION == 2
                atomic { if :: owner == seen -> owner = seen | SLEEPERS; got = 1 :: else -> got = 0 fi }
                ticket = seq[key];
#elif MUTATION == 3
                ticket = seq[key];
                owner = seen | SLEEPERS;
                got = 1;
#else
                ticket = seq[key];
                atomic { if :: owner == seen -> owner = seen | SLEEPERS; got = 1 :: else -> got = 0 fi }
#endif
                if
                :: got ->
                    got = 0;
                    /* futex_wait: sleeps only while the spot still holds the ticket */
                    atomic {
                        if
                        :: seq[key] == ticket -> parkedOn[me] = key; asleep[me] = 1
                        :: else -> skip
                        fi
                    }
                    (asleep[me] == 0)
                :: else -> skip
                fi
            fi
        od;

        /* the critical section */
        inside++;
        assert(inside == 1);
        assert(HOLDER(owner) == me);
        inside--;

        /* leave */
#if MUTATION == 1
        owner = 0;
#else
        atomic { prev = owner; owner = 0 }
        if
        :: prev & SLEEPERS ->
            seq[SPOT(HOLDER(prev))]++;
            wake_all(SPOT(HOLDER(prev)))
        :: else -> skip
        fi;
#endif
        round++
    :: else -> break
    od
}

init {
    atomic {
        byte i = 1;
        do
        :: i <= WRITERS -> run Writer(i); i++
        :: else -> break
        od
    }
}
