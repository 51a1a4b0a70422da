/*
 * pool.pml — the node pool's depot (Sources/CFlare/pool.c): a stack of
 * batches that threads push one batch onto (`flush`), take whole and give
 * back all but the top batch of (`refill`, `give_back`).
 *
 * Each of WORKERS threads starts holding one batch (EXTRA more start on
 * the depot) and, ROUNDS times, flushes the batch it holds (if any) and
 * refills (keeping one batch, if the depot has one). Every atomic step of pool.c is one step here: the
 * CASes on `depot` and the fetch-and-adds on `depot_nodes` (counted here in
 * batches); the plain reads and writes of a batch's `next_batch` between
 * them are steps of their own, so every interleaving of them is explored.
 * Spin's memory is sequentially consistent: the C11 orderings are argued in
 * docs/core-algorithm.md's table, not here.
 *
 * Checked:
 *  - conservation: once every worker is done, each batch is either held by
 *    exactly one worker or on the depot exactly once (no batch lost, none
 *    shared, no cycle in the stack);
 *  - a magazine holds at most one batch (a refill keeps the top one);
 *  - `depot_nodes` never reads below the batches on the depot, at any
 *    moment (the monitor), which is what bounds the depot.
 *
 * MUTATION (each must make the check fail; Tests/Model/run.sh checks it):
 *  1: give_back stores its batches over the depot instead of a CAS from
 *     empty, dropping batches pushed meanwhile;
 *  2: refill takes the depot with a load and a store instead of a CAS;
 *  3: flush counts its batch after pushing it instead of before.
 */
#ifndef WORKERS
#define WORKERS 2
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif
#ifndef EXTRA
#define EXTRA 1
#endif
#ifndef MUTATION
#define MUTATION 0
#endif

#define NIL 0
#define BATCHES (WORKERS + EXTRA)

byte depot = NIL;
byte next_batch[BATCHES + 1];
byte depot_nodes = EXTRA;
byte held[WORKERS];
byte finished = 0;

inline flush(w) {
    b = held[w];
    held[w] = NIL;
#if MUTATION != 3
    depot_nodes++;
#endif
    old = depot;
    do
    :: next_batch[b] = old;
       atomic {
           if
           :: depot == old -> depot = b; ok = 1
           :: else -> old = depot; ok = 0
           fi
       }
       if
       :: ok -> break
       :: else
       fi
    od;
#if MUTATION == 3
    depot_nodes++;
#endif
}

inline give_back(rest) {
    do
    ::
#if MUTATION == 1
       depot = rest; break
#else
       atomic {
           if
           :: depot == NIL -> depot = rest; ok = 1
           :: else -> seen = depot; ok = 0
           fi
       }
       if
       :: ok -> break
       :: else ->
          atomic {
              if
              :: depot == seen -> depot = NIL; ok = 1
              :: else -> ok = 0
              fi
          }
          if
          :: ok ->
             bottom = seen;
             do
             :: next_batch[bottom] != NIL -> bottom = next_batch[bottom]
             :: else -> break
             od;
             next_batch[bottom] = rest;
             rest = seen
          :: else
          fi
       fi
#endif
    od
}

inline refill(w) {
    top = depot;
    do
    :: top == NIL -> break
    :: else ->
#if MUTATION == 2
       top = depot;
       if
       :: top != NIL -> depot = NIL; break
       :: else
       fi
#else
       atomic {
           if
           :: depot == top -> depot = NIL; ok = 1
           :: else -> top = depot; ok = 0
           fi
       }
       if
       :: ok -> break
       :: else
       fi
#endif
    od;
    if
    :: top != NIL ->
       assert(held[w] == NIL);
       held[w] = top;
       depot_nodes--;
       rest = next_batch[top];
       if
       :: rest != NIL -> give_back(rest)
       :: else
       fi
    :: else
    fi
}

proctype worker(byte w) {
    byte b, old, ok, top, rest, seen, bottom, round;
    round = 0;
    do
    :: round < ROUNDS ->
       if
       :: held[w] != NIL -> flush(w)
       :: else
       fi;
       refill(w);
       round++
    :: else -> break
    od;
    finished++
}

/* At every moment the count is at least the batches on the stack. */
active proctype monitor() {
    byte n, at;
    do
    :: atomic {
           n = 0;
           at = depot;
           do
           :: at != NIL && n <= BATCHES -> n++; at = next_batch[at]
           :: else -> break
           od;
           assert(n <= depot_nodes)
       }
    :: finished == WORKERS -> break
    od
}

init {
    byte i, at, count, seen_mask, w;
    atomic {
        i = 0;
        do
        :: i < WORKERS -> held[i] = i + 1; next_batch[i + 1] = NIL; i++
        :: else -> break
        od;
        /* The extra batches, WORKERS + 1 up, stacked on the depot. */
        i = WORKERS + 1;
        do
        :: i <= BATCHES -> next_batch[i] = depot; depot = i; i++
        :: else -> break
        od;
        i = 0;
        do
        :: i < WORKERS -> run worker(i); i++
        :: else -> break
        od
    }
    finished == WORKERS;
    /* Conservation: each batch once, held or on the depot. */
    seen_mask = 0;
    count = 0;
    w = 0;
    do
    :: w < WORKERS ->
       if
       :: held[w] != NIL ->
          assert((seen_mask & (1 << held[w])) == 0);
          seen_mask = seen_mask | (1 << held[w]);
          count++
       :: else
       fi;
       w++
    :: else -> break
    od;
    at = depot;
    do
    :: at != NIL ->
       assert((seen_mask & (1 << at)) == 0);
       seen_mask = seen_mask | (1 << at);
       count++;
       at = next_batch[at]
    :: else -> break
    od;
    assert(count == BATCHES)
}
