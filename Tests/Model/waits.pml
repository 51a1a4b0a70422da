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
 * BATCH=1: the senders queue through batches (flare_batch.h): a sender
 * without an unused credit for the domain takes GROUP at once (waiting, and
 * checking for a cycle, as above; a cycle break admits the whole group);
 * its next values use them while its batch is open. When the drainer has
 * taken every value of a sender's batch it seals it and returns the
 * batch's unused credits; the sender's next value takes fresh ones.
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
#ifndef BATCH
#define BATCH 0
#endif
#ifndef GROUP
#define GROUP 1
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
/* BATCH: per domain and thread, the values of its open batch still queued,
 * its unused credits, and whether the drainer sealed it. */
byte inBatch[4];
byte unused[4];
bit sealed[4];
#define BX(x, t) ((x) * 2 + (t))

/* flare_serial_reserve for domain x by thread me: sets `slot`. With
 * BATCH, flare_serial_reserve_n: GROUP credits, one for this value and the
 * rest left unused in the sender's fresh batch. */
inline reserve(x) {
    if
    :: holder[x] == me -> slot = 0
    :: else ->
        atomic {
            if
            :: counted[x] + GROUP <= LIMIT ->
                counted[x] = counted[x] + GROUP; slot = 1;
                if
                :: BATCH -> sealed[BX(x, me)] = 0; unused[BX(x, me)] = unused[BX(x, me)] + GROUP - 1
                :: else -> skip
                fi
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
                   atomic {
                       counted[x] = counted[x] + GROUP;
                       if
                       :: BATCH -> sealed[BX(x, me)] = 0; unused[BX(x, me)] = unused[BX(x, me)] + GROUP - 1
                       :: else -> skip
                       fi
                   };
                   break
               :: else ->
                   if
                   :: atomic {
                          counted[x] + GROUP <= LIMIT ->
                          counted[x] = counted[x] + GROUP;
                          if
                          :: BATCH -> sealed[BX(x, me)] = 0; unused[BX(x, me)] = unused[BX(x, me)] + GROUP - 1
                          :: else -> skip
                          fi
                      }; break
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

/* Takes one queued value off x (the holder's step). With BATCH, from a
 * node or from either thread's batch; a batch the drainer has caught up
 * with is sealed, and its unused credits go back (D2, D3). */
inline take(x) {
    atomic {
        if
        :: !BATCH || queued[x] > inBatch[BX(x, 0)] + inBatch[BX(x, 1)] ->
            queued[x]--;
            if
            :: !BATCH && queuedCounted[x] > 0 -> queuedCounted[x]--; counted[x]--
            :: else -> skip                      /* a node (BATCH: uncounted) */
            fi
        :: BATCH && inBatch[BX(x, 0)] > 0 -> tb = 0
        :: BATCH && inBatch[BX(x, 1)] > 0 -> tb = 1
        fi;
        if
        :: tb != NONE ->
            queued[x]--; queuedCounted[x]--; counted[x]--;
            inBatch[BX(x, tb)]--;
            if
            :: inBatch[BX(x, tb)] == 0 ->
                sealed[BX(x, tb)] = 1;
                counted[x] = counted[x] - unused[BX(x, tb)];
                unused[BX(x, tb)] = 0
            :: else -> skip
            fi;
            tb = NONE
        :: else -> skip
        fi
    }
}

/* Drains A (the holder: me) until its queue is empty, then releases it. */
inline drainA() {
    do
    :: queued[0] > 0 -> take(0); deliverA()
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
        /* BATCH: append to the open batch with one of its unused credits
         * (the state's CAS: it fails once the drainer has sealed it) */
        atomic {
            if
            :: BATCH && holder[0] != me && holder[0] != NONE && !sealed[BX(0, me)] && unused[BX(0, me)] > 0 ->
                unused[BX(0, me)]--; inBatch[BX(0, me)]++; queued[0]++; queuedCounted[0]++; appended = 1
            :: else -> skip
            fi
        };
        if
        :: appended -> goto done0
        :: else -> skip
        fi;
        reserve(0);
        atomic {
            if
            :: holder[0] == NONE ->
                holder[0] = me; acquiredA = 1;
                if
                :: slot && BATCH ->                  /* all its credits back */
                    counted[0] = counted[0] - 1 - unused[BX(0, me)];
                    unused[BX(0, me)] = 0; sealed[BX(0, me)] = 1
                :: slot && !BATCH -> counted[0]--      /* its slot back: no node */
                :: else -> skip
                fi
            :: else ->
                queued[0]++;
                if
                :: slot -> queuedCounted[0]++;
                    if
                    :: BATCH -> inBatch[BX(0, me)]++      /* the fresh batch, pushed */
                    :: else -> skip
                    fi
                :: else -> skip
                fi
            fi
        }
        if
        :: acquiredA -> deliverA(); drainA()
        :: else -> skip
        fi
    fi;
done0:
    acquiredA = 0; appended = 0
}

/* B's observer forwards into A. */
inline deliverB() {
    sendA()
}

inline drainB() {
    do
    :: queued[1] > 0 -> take(1); deliverB()
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
        /* BATCH: append to the open batch with one of its unused credits
         * (the state's CAS: it fails once the drainer has sealed it) */
        atomic {
            if
            :: BATCH && holder[1] != me && holder[1] != NONE && !sealed[BX(1, me)] && unused[BX(1, me)] > 0 ->
                unused[BX(1, me)]--; inBatch[BX(1, me)]++; queued[1]++; queuedCounted[1]++; appended = 1
            :: else -> skip
            fi
        };
        if
        :: appended -> goto done1
        :: else -> skip
        fi;
        reserve(1);
        atomic {
            if
            :: holder[1] == NONE ->
                holder[1] = me; acquiredB = 1;
                if
                :: slot && BATCH ->                  /* all its credits back */
                    counted[1] = counted[1] - 1 - unused[BX(1, me)];
                    unused[BX(1, me)] = 0; sealed[BX(1, me)] = 1
                :: slot && !BATCH -> counted[1]--
                :: else -> skip
                fi
            :: else ->
                queued[1]++;
                if
                :: slot -> queuedCounted[1]++;
                    if
                    :: BATCH -> inBatch[BX(1, me)]++      /* the fresh batch, pushed */
                    :: else -> skip
                    fi
                :: else -> skip
                fi
            fi
        }
        if
        :: acquiredB -> deliverB(); drainB()
        :: else -> skip
        fi
    fi;
done1:
    acquiredB = 0; appended = 0
}

proctype Thread(byte me) {
    byte k = 0;
    bit slot, acquiredA, acquiredB, appended;
    byte o, tb = NONE;
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
    assert(unused[0] + unused[1] + unused[2] + unused[3] == 0);
    assert(waitsFor[T] == NONE && waitsFor[U] == NONE)
}
