/*
 * stack.pml — a Promela model of the disposable stack a CompositeDisposable
 * and a Lifetime hold (Sources/Flare/Disposables/DisposableStack.swift,
 * `_DisposableStack`): additions pushed on `head`, removal by a handle,
 * pruning of the removed nodes in place, and the disposal that seals the
 * stack and disposes what it holds, oldest first.
 *
 *   head      PTR(h) the newest node (0: none) | SEALED | PRUNING
 *   push      CAS head h -> node | (h & PRUNING), node.next = PTR(h);
 *             sealed: the addition is disposed at once
 *   remove    a handle's CAS state LIVE -> REMOVED
 *   prune     CAS h -> h | PRUNING (from no flags, a top); from the top it
 *             saw, unlink each REMOVED node (prev.next = node.next) onto a
 *             private garbage list (through `aux`), the top itself kept;
 *             leave: no SEALED: CAS PRUNING off, free the garbage;
 *             SEALED, a chain handed over: take it (store SEALED), free it
 *             and the garbage; SEALED alone: CAS to garbage | SEALED
 *             (hand the garbage to the disposer)
 *   dispose   CAS h -> SEALED | (h & PRUNING) (SEALED already: return);
 *             from the top, CAS each node's state LIVE -> TAKEN, linking
 *             the taken ones through `aux` (so they come oldest first);
 *             dispose them; no PRUNING seen: free the chain; else, PRUNING
 *             still set: CAS to top | SEALED | PRUNING (hand the chain to
 *             the pruner), or take the garbage handed over (exchange to
 *             SEALED) and free it and the chain
 *
 * An adder pushes ADDS nodes after PRE nodes pushed before the threads
 * start (PRE_REMOVED of them already removed, bit k for node k+1), removes
 * each addition whose bit is set in ADDER_REMOVES right after adding it,
 * and after any push may prune (at most PRUNES times); a second adder
 * (ADDERS=2) pushes and prunes as well, so two prunings may race; a
 * remover removes node REMOVE (if it was pushed) at any moment after its
 * addition returned; a disposer disposes. STALL=1: the pruner may stop for
 * good at any step of its traversal (a thread descheduled): the disposer
 * must still return having disposed everything, which it could not if it
 * waited for the pruner.
 *
 * Granularity: every atomic instruction is one step; so is each plain read
 * or write of a node's `next` (atomic in the code: the disposer may read
 * one while the pruner writes it) and `aux`. Memory model: sequential
 * consistency; the C11 argument is docs/core-algorithm.md's table for the
 * stack.
 *
 * Checked:
 *  - when dispose() returns, every addition whose add returned before
 *    dispose() was called is disposed, unless its handle removed it;
 *  - the disposer disposes in the order of the pushes, each taken node
 *    once, and a removed node never;
 *  - no node is touched by the stack's code after the stack released it,
 *    and none is released twice;
 *  - once every thread is done (none stalled), every node pushed was
 *    released exactly once, `head` is SEALED, and every addition is
 *    disposed exactly once unless removed (pushed after the seal: by its
 *    adder).
 *
 * MUTATION (each must make the check fail; Tests/Model/run.sh checks it):
 *   1  the old pruning: take the whole stack out of `head` (CAS to empty),
 *      drop the removed nodes, push the survivors back, and, if the stack
 *      was sealed meanwhile, dispose them itself (a dispose() in that
 *      window returns having disposed nothing)
 *   2  the pruner frees its garbage when it leaves even if the stack was
 *      sealed (the disposer may be on a node it unlinked)
 *   3  the disposer frees the chain even though a pruner is at work on it
 *   4  a push drops the PRUNING flag (the disposer then frees under the
 *      pruner)
 *   5  the pruner unlinks taken nodes too, writing the `aux` link the
 *      disposer threads them on
 *   6  the disposer waits for the pruner to leave (not lock-free: with
 *      STALL=1, it waits for ever)
 */

#ifndef PRE
#define PRE 3
#endif
#ifndef PRE_REMOVED
#define PRE_REMOVED 5
#endif
#ifndef ADDS
#define ADDS 2
#endif
#ifndef ADDER_REMOVES
#define ADDER_REMOVES 0
#endif
#ifndef ADDERS
#define ADDERS 1
#endif
#ifndef PRUNES
#define PRUNES 1
#endif
#ifndef REMOVE
#define REMOVE 0
#endif
#ifndef STALL
#define STALL 0
#endif
#ifndef MUTATION
#define MUTATION 0
#endif

#define N (PRE + ADDERS * ADDS)

#define LIVE 0
#define REMOVED 1
#define TAKEN 2

#define SEALED 1
#define PRUNING 2
#define FLAGS 3
#define PTR(h) ((h) / 4)
#define NODE(n) ((n) * 4)

byte head = 0;
byte next[N + 1];
byte aux[N + 1];
byte state[N + 1];
/* Ghosts. */
byte disposed[N + 1];     /* times the addition was disposed */
bool freed[N + 1];        /* the stack released the node */
bool pushed[N + 1];
byte order[N + 1];        /* the node's rank among the pushes */
byte pushes = 0;
bool added[N + 1];        /* its add has returned */
bool stalled = false;
byte finished = 0;

/* Every access of the stack's code to a node: not after it released it. */
#define TOUCH(n) assert(!freed[n])

inline releaseNode(n) {
    assert(!freed[n]);
    freed[n] = true
}

/* Releases the chain from `at`, following `next`. */
inline releaseChain(at, t) {
    do
    :: at != 0 -> TOUCH(at); t = next[at]; releaseNode(at); at = t
    :: else -> break
    od
}

/* Releases the garbage list from `at`, following `aux`. */
inline releaseGarbage(at, t) {
    do
    :: at != 0 -> TOUCH(at); t = aux[at]; releaseNode(at); at = t
    :: else -> break
    od
}

inline push(n, h, ok) {
    h = head;
    do
    :: (h & SEALED) != 0 -> disposed[n]++; break
    :: else ->
        next[n] = PTR(h);
        atomic {
            if
            :: head == h ->
#if MUTATION == 4
                head = NODE(n);
#else
                head = NODE(n) | (h & PRUNING);
#endif
                pushed[n] = true; pushes++; order[n] = pushes; ok = true
            :: else -> h = head; ok = false
            fi
        }
        if
        :: ok -> break
        :: else
        fi
    od;
    added[n] = true
}

inline handleRemove(n) {
    atomic { if :: state[n] == LIVE -> state[n] = REMOVED :: else fi }
}

/* A thread descheduled for good (STALL=1): a valid end state. Two
 * copies, as a label may appear once in a process. */
inline mayStall() {
    if
    :: STALL && !stalled -> stalled = true;
end_stalled_traversing:
        false
    :: true
    fi
}

inline mayStallLeaving() {
    if
    :: STALL && !stalled -> stalled = true;
end_stalled_leaving:
        false
    :: true
    fi
}

#if MUTATION == 1
/* The old pruning: take all, filter, push back. */
inline prune(h, ok, prev, cur, nxt, garbage, t, top, bottom) {
    h = head;
    if
    :: (h & SEALED) == 0 && PTR(h) != 0 ->
        atomic { if :: head == h -> head = 0; ok = true :: else -> ok = false fi };
        if
        :: ok ->
            top = 0; bottom = 0; cur = PTR(h);
            do
            :: cur != 0 ->
                TOUCH(cur); nxt = next[cur];
                if
                :: state[cur] == REMOVED -> releaseNode(cur)
                :: else ->
                    next[cur] = 0;
                    if :: bottom != 0 -> next[bottom] = cur :: else -> top = cur fi;
                    bottom = cur
                fi;
                cur = nxt
            :: else -> break
            od;
            if
            :: top != 0 ->
                h = head;
                do
                :: (h & SEALED) != 0 ->
                    /* Disposed meanwhile: dispose them here, oldest first
                     * (the order is not checked: the check at the
                     * disposer's return fails first). */
                    cur = top;
                    do
                    :: cur != 0 ->
                        nxt = next[cur];
                        atomic { if :: state[cur] == LIVE -> state[cur] = TAKEN; ok = true :: else -> ok = false fi };
                        if :: ok -> disposed[cur]++ :: else fi;
                        releaseNode(cur);
                        cur = nxt
                    :: else -> break
                    od;
                    break
                :: else ->
                    next[bottom] = PTR(h);
                    atomic { if :: head == h -> head = NODE(top); ok = true :: else -> h = head; ok = false fi };
                    if :: ok -> break :: else fi
                od
            :: else
            fi
        :: else
        fi
    :: else
    fi
}
#else
inline prune(h, ok, prev, cur, nxt, garbage, t, top, bottom) {
    h = head;
    if
    :: (h & FLAGS) == 0 && PTR(h) != 0 ->
        atomic { if :: head == h -> head = h | PRUNING; ok = true :: else -> ok = false fi };
        if
        :: ok ->
            garbage = 0;
            prev = PTR(h);
            TOUCH(prev); cur = next[prev];
            do
            :: cur != 0 ->
                mayStall();
                TOUCH(cur); nxt = next[cur];
#if MUTATION == 5
                if
                :: state[cur] != LIVE ->
#else
                if
                :: state[cur] == REMOVED ->
#endif
                    TOUCH(prev); next[prev] = nxt;
                    TOUCH(cur); aux[cur] = garbage; garbage = cur
                :: else -> prev = cur
                fi;
                cur = nxt
            :: else -> break
            od;
            mayStallLeaving();
            /* Leave. */
            h = head;
            do
            :: (h & SEALED) == 0 ->
                atomic { if :: head == h -> head = h - PRUNING; ok = true :: else -> h = head; ok = false fi };
                if :: ok -> releaseGarbage(garbage, t); break :: else fi
            :: (h & SEALED) != 0 && PTR(h) != 0 ->
                /* The disposer is done and handed its chain over. */
                atomic { top = PTR(h); head = SEALED };
                releaseGarbage(garbage, t);
                releaseChain(top, t);
                break
            :: (h & SEALED) != 0 && PTR(h) == 0 ->
#if MUTATION == 2
                atomic { if :: head == h -> head = SEALED; ok = true :: else -> h = head; ok = false fi };
                if :: ok -> releaseGarbage(garbage, t); break :: else fi
#else
                atomic { if :: head == h -> head = NODE(garbage) | SEALED; ok = true :: else -> h = head; ok = false fi };
                if :: ok -> break :: else fi
#endif
            od
        :: else
        fi
    :: else
    fi
}
#endif

proctype Adder(byte first) {
    byte i, n, h, prev, cur, nxt, garbage, t, top, bottom, prunes = 0;
    bool ok;
    i = 0;
    do
    :: i < ADDS ->
        n = first + i;
        push(n, h, ok);
        if
        :: pushed[n] && (ADDER_REMOVES & (1 << i)) != 0 -> handleRemove(n)
        :: else
        fi;
        if
        :: pushed[n] && prunes < PRUNES ->
            prunes++;
            prune(h, ok, prev, cur, nxt, garbage, t, top, bottom)
        :: true
        fi;
        i++
    :: else -> break
    od;
    finished++
}

proctype Remover() {
    added[REMOVE];
    if
    :: pushed[REMOVE] -> handleRemove(REMOVE)
    :: else
    fi;
    finished++
}

proctype Disposer() {
    byte h, top, cur, list, t, last = 0, g, k;
    bool ok, contended;
    bool before[N + 1];
    /* The moment dispose() is called: which additions were made before. */
    atomic {
        k = 1;
        do
        :: k <= N -> before[k] = added[k]; k++
        :: else -> break
        od
    }
    h = head;
    do
    :: (h & SEALED) != 0 -> goto done
    :: else ->
        atomic { if :: head == h -> head = SEALED | (h & PRUNING); ok = true :: else -> h = head; ok = false fi };
        if :: ok -> break :: else fi
    od;
    contended = (h & PRUNING) != 0;
    top = PTR(h);
    /* Take, newest first, linking the taken through aux: oldest first. */
    list = 0;
    cur = top;
    do
    :: cur != 0 ->
        TOUCH(cur);
        atomic { if :: state[cur] == LIVE -> state[cur] = TAKEN; ok = true :: else -> ok = false fi };
        if :: ok -> TOUCH(cur); aux[cur] = list; list = cur :: else fi;
        TOUCH(cur); cur = next[cur]
    :: else -> break
    od;
    do
    :: list != 0 ->
        TOUCH(list);
        assert(state[list] == TAKEN);
        assert(order[list] > last);
        last = order[list];
        t = aux[list];
        disposed[list]++;
        list = t
    :: else -> break
    od;
    if
    :: !contended -> releaseChain(top, t)
    :: else ->
#if MUTATION == 3
        releaseChain(top, t)
#elif MUTATION == 6
        (head & PRUNING) == 0;
        atomic { g = PTR(head); head = SEALED };
        releaseGarbage(g, t);
        releaseChain(top, t)
#else
        h = head;
        do
        :: (h & PRUNING) != 0 ->
            atomic { if :: head == h -> head = NODE(top) | SEALED | PRUNING; ok = true :: else -> h = head; ok = false fi };
            if :: ok -> break :: else fi
        :: else ->
            atomic { g = PTR(head); head = SEALED };
            releaseGarbage(g, t);
            releaseChain(top, t);
            break
        od
#endif
    fi;
done:
    /* Every addition made before the call is disposed, or was removed. */
    k = 1;
    do
    :: k <= N ->
        assert(!before[k] || state[k] == REMOVED || disposed[k] == 1);
        k++
    :: else -> break
    od;
    finished++
}

init {
    byte k, a;
    atomic {
        k = 1;
        do
        :: k <= PRE ->
            next[k] = PTR(head);
            head = NODE(k);
            pushed[k] = true; pushes++; order[k] = pushes; added[k] = true;
            if :: (PRE_REMOVED & (1 << (k - 1))) != 0 -> state[k] = REMOVED :: else fi;
            k++
        :: else -> break
        od;
        a = 0;
        do
        :: a < ADDERS -> run Adder(PRE + 1 + a * ADDS); a++
        :: else -> break
        od;
        if :: REMOVE != 0 -> run Remover() :: else -> finished++ fi;
        run Disposer()
    }
    /* A stalled pruner never finishes; the disposer has made its own
     * check. */
    (finished + stalled == ADDERS + 2);
    if
    :: stalled -> skip
    :: else ->
        assert(head == SEALED);
        k = 1;
        do
        :: k <= N ->
            assert(!pushed[k] || freed[k]);
            if
            :: !pushed[k] -> assert(disposed[k] == 1)
            :: pushed[k] && state[k] == REMOVED -> assert(disposed[k] == 0)
            :: pushed[k] && state[k] != REMOVED -> assert(state[k] == TAKEN && disposed[k] == 1)
            fi;
            k++
        :: else -> break
        od
    fi
}
