/*
 * held.pml — a Promela model of contract 9's rule that no thread waits for a
 * queue limit while it holds a serial word, on the two domains that feed
 * each other inside a flatten (docs/core-algorithm.md §8, "No wait while
 * holding any word"):
 *
 *   - A is flatten's funnel. Thread T holds A: it delivers the outer value,
 *     and the flatten runs the inner's start handler inside that delivery,
 *     which sends K values into B;
 *   - B is the inner run's word. Its observer forwards each value into A;
 *   - thread U (the handler's second thread) sends K values into B.
 *
 * Each domain has a queue limit of LIMIT counted nodes. A sender that finds
 * the word held reserves a slot (flare_serial_reserve): it queues uncounted
 * if it must not wait, else it waits until a slot is free (the wait itself,
 * spinning and parking without lost wake-ups, is overload.pml's subject:
 * here it is one blocking step), then pushes. A sender that finds the word
 * idle acquires it, delivers, and drains what was queued before releasing.
 *
 * RULE 1 (the code): a sender never waits while it holds any word
 *   (`flare_words_held != 0`). RULE 0 (the mutation): it never waits only
 *   for the word it holds itself (`owner == me`), as before; the model then
 *   finds the deadlock (an invalid end state: T and U both waiting).
 *
 * Memory model: sequential consistency; each atomic block is one step of
 * the code's CASes (acquire, push, the releasing CAS that finds the queue
 * empty).
 *
 * Checked: every thread ends (no deadlock), every value reaches A exactly
 * once, and nothing stays queued, counted or held.
 */

#ifndef LIMIT
#define LIMIT 1
#endif
#ifndef K
#define K 2
#endif
#ifndef RULE
#define RULE 1
#endif

#define NONE 255
#define T 0
#define U 1

byte holder[2] = NONE;   /* [0]: A, [1]: B */
byte queued[2];          /* nodes queued on each word */
byte queuedCounted[2];   /* of which counted (they hold a slot) */
byte counted[2];         /* counted nodes alive (slots taken) */
byte held[2];            /* flare_words_held of T and U */
byte atA = 0;            /* values delivered by A's observer */

/* flare_serial_reserve for domain x by thread me: sets `slot`. */
inline reserve(x) {
    if
#if RULE
    :: held[me] > 0 -> slot = 0
#else
    :: holder[x] == me -> slot = 0
#endif
    :: else ->
        /* wait for a slot: blocks until the holder has freed one */
        atomic { counted[x] < LIMIT -> counted[x]++ };
        slot = 1
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
    :: atomic { queued[0] == 0 -> holder[0] = NONE; held[me]-- }; break
    od
}

/* A send into A by thread me (from B's observer: me holds B). */
inline sendA() {
    atomic {
        if
        :: holder[0] == NONE -> holder[0] = me; held[me]++; acquiredA = 1
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
                holder[0] = me; held[me]++; acquiredA = 1;
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
    :: atomic { queued[1] == 0 -> holder[1] = NONE; held[me]-- }; break
    od
}

/* A send into B by thread me. */
inline sendB() {
    atomic {
        if
        :: holder[1] == NONE -> holder[1] = me; held[me]++; acquiredB = 1
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
                holder[1] = me; held[me]++; acquiredB = 1;
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
    if
    :: me == T ->
        /* the outer value's delivery holds A; the start handler runs in it */
        atomic { holder[0] == NONE -> holder[0] = me; held[me]++ }
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
    assert(held[T] == 0 && held[U] == 0)
}
