/*
 * waits.pml — a Promela model of the check that keeps waits for a full
 * queue from closing a cycle (Sources/CFlare/waits.h; contract 9), on the
 * two domains that feed each other inside a flatten:
 *
 *   - A is flatten's funnel. Thread T holds A: it delivers the outer value,
 *     and the flatten runs the inner's start handler inside that delivery,
 *     which sends K values into B;
 *   - B is the inner run's word. Its observer forwards each value into A;
 *   - thread U (the handler's second thread) sends K values into B.
 *
 * Each domain has a queue limit of LIMIT counted nodes. A sender that finds
 * the word held by another thread takes a slot if one is free; else it
 * waits, and while it waits it checks for a cycle: it reads the word's
 * holder, publishes "I wait for that thread" in its entry, and reads the
 * holder's entry; if the holder waits for it, it stops waiting and queues a
 * counted node over the limit. The wait ends when a slot is free, or at a
 * check: the code checks on entry and again on a timer, modelled as a check
 * that may run whenever its outcome could differ from the last one (the
 * holder changed, or the holder's entry names this thread). Sends into a
 * word the sender holds never wait. A sender that finds the word idle
 * acquires it, delivers, and drains what was queued before releasing.
 *
 * Memory model: sequential consistency (the code's seq_cst fences around
 * the publication give the store-buffering guarantee used here; waits.h).
 *
 * Mutations, each of which the model must catch:
 *   CHECK=0    no cycle check: T and U wait for each other (invalid end
 *              state);
 *   PUBLISH=0  the check reads but never publishes: the same deadlock;
 *   CLEAR=0    a sender leaves its entry behind when it stops waiting: a
 *              later check takes a finished wait for a cycle (assertion:
 *              an entry that names a thread is read only while its owner
 *              is in the wait it published).
 *
 * Checked: every thread ends (no deadlock), every value reaches A exactly
 * once, and nothing stays queued, counted, held or published.
 */

#ifndef LIMIT
#define LIMIT 1
#endif
#ifndef K
#define K 2
#endif
#ifndef CHECK
#define CHECK 1
#endif
#ifndef PUBLISH
#define PUBLISH 1
#endif
#ifndef CLEAR
#define CLEAR 1
#endif

#define NONE 255
#define T 0
#define U 1

byte holder[2] = NONE;   /* [0]: A, [1]: B */
byte queued[2];          /* nodes queued on each word */
byte queuedCounted[2];   /* of which counted (they hold a slot) */
byte counted[2];         /* counted nodes alive (slots taken) */
byte waitsFor[2] = NONE; /* each thread's entry in the table of waits */
bit waiting[2];          /* ghost: the thread's entry may name a wait (from
                            the wait's start until the entry is cleared) */
byte atA = 0;            /* values delivered by A's observer */

/* flare_serial_reserve for domain x by thread me: sets `slot`. */
inline reserve(x) {
    if
    :: holder[x] == me -> slot = 0
    :: else ->
        atomic {
            if
            :: counted[x] < LIMIT -> counted[x]++; slot = 1
            :: else -> slot = 0
            fi
        }
        if
        :: slot -> skip
        :: else ->
            /* flare_serial_wait */
            waiting[me] = 1;
            do
            :: o = holder[x];
#if PUBLISH
               waitsFor[me] = o;
#endif
               if
               :: atomic { CHECK && o != NONE && waitsFor[o] == me -> assert(waiting[o]) } ->
                   /* the wait would close a cycle: queue over the limit */
                   atomic { counted[x]++ };
                   break
               :: else ->
                   if
                   :: atomic { counted[x] < LIMIT -> counted[x]++ }; break
                   :: CHECK && (holder[x] != o || (o != NONE && waitsFor[o] == me)) -> skip
                   fi
               fi
            od;
            atomic {
#if CLEAR
                waitsFor[me] = NONE;
#endif
                waiting[me] = 0
            };
            slot = 1
        fi
    fi
}

/* A's observer: counts the value (the funnel's logic). */
inline deliverA() {
    atomic { atA++ }
}

/* Drains A (the holder: me) until its queue is empty, then releases it. */
inline drainA() {
    do
    :: atomic {
           queued[0] > 0 ->
           queued[0]--;
           if
           :: queuedCounted[0] > 0 -> queuedCounted[0]--; counted[0]--
           :: else -> skip
           fi
       };
       deliverA()
    :: atomic { queued[0] == 0 -> holder[0] = NONE }; break
    od
}

/* A send into A by thread me (from B's observer: me holds B). */
inline sendA() {
    atomic {
        if
        :: holder[0] == NONE -> holder[0] = me; acquiredA = 1
        :: else -> acquiredA = 0
        fi
    }
    if
    :: acquiredA -> deliverA(); drainA()
    :: else ->
        reserve(0);
        atomic {
            if
            :: holder[0] == NONE ->
                holder[0] = me; acquiredA = 1;
                if
                :: slot -> counted[0]--      /* its slot back: no node */
                :: else -> skip
                fi
            :: else ->
                queued[0]++;
                if
                :: slot -> queuedCounted[0]++
                :: else -> skip
                fi
            fi
        }
        if
        :: acquiredA -> deliverA(); drainA()
        :: else -> skip
        fi
    fi;
    acquiredA = 0
}

/* B's observer forwards into A. */
inline deliverB() {
    sendA()
}

inline drainB() {
    do
    :: atomic {
           queued[1] > 0 ->
           queued[1]--;
           if
           :: queuedCounted[1] > 0 -> queuedCounted[1]--; counted[1]--
           :: else -> skip
           fi
       };
       deliverB()
    :: atomic { queued[1] == 0 -> holder[1] = NONE }; break
    od
}

/* A send into B by thread me. */
inline sendB() {
    atomic {
        if
        :: holder[1] == NONE -> holder[1] = me; acquiredB = 1
        :: else -> acquiredB = 0
        fi
    }
    if
    :: acquiredB -> deliverB(); drainB()
    :: else ->
        reserve(1);
        atomic {
            if
            :: holder[1] == NONE ->
                holder[1] = me; acquiredB = 1;
                if
                :: slot -> counted[1]--
                :: else -> skip
                fi
            :: else ->
                queued[1]++;
                if
                :: slot -> queuedCounted[1]++
                :: else -> skip
                fi
            fi
        }
        if
        :: acquiredB -> deliverB(); drainB()
        :: else -> skip
        fi
    fi;
    acquiredB = 0
}

proctype Thread(byte me) {
    byte k = 0;
    bit slot, acquiredA, acquiredB;
    byte o;
    if
    :: me == T ->
        /* the outer value's delivery holds A; the start handler runs in it */
        atomic { holder[0] == NONE -> holder[0] = me }
    :: else -> skip
    fi;
    do
    :: k < K -> sendB(); k++
    :: else -> break
    od;
    if
    :: me == T -> drainA()     /* the handler returned: A's queue drains */
    :: else -> skip
    fi
}

init {
    atomic {
        run Thread(T);
        run Thread(U)
    };
    (_nr_pr == 1);
    assert(atA == 2 * K);
    assert(holder[0] == NONE && holder[1] == NONE);
    assert(queued[0] == 0 && queued[1] == 0 && counted[0] == 0 && counted[1] == 0);
    assert(waitsFor[T] == NONE && waitsFor[U] == NONE)
}
