/*
 * flare_batch.h — the batched hand-off (part of flare.h).
 *
 * A value sent from a thread that finds the word held by another thread
 * goes, instead of into a node of its own pushed on the word, into a batch:
 * a block of slots owned by the sending thread. The batch is pushed on the
 * word once, as one node, when it gets its first event; later events of the
 * same thread are appended to it with a CAS on the batch's own `state`,
 * a line the drainer reads only when it has caught up with the batch, for
 * as long as the batch is the word's top: nothing was pushed on the word
 * since, and the drainer has not taken it. The drainer takes the batch
 * whole, with the stack that holds it, delivers its slots in order and,
 * when it has caught up, seals it; a sender whose batch is no longer the
 * top starts a new one. So a contended event costs a write into a slot, a
 * read of the word and a CAS on a line its sender already holds, and its
 * ticket of the queue limit is taken in groups; while one thread delivers,
 * each other sender fills one batch per stack the drainer takes.
 *
 * The order of delivery is the order of the sends (I4): an event whose
 * send began after another's returned, on any thread, is delivered after
 * it, as on the node path. An append to a batch that was no longer the
 * top would overtake what was pushed since, some of which may happen
 * before it (flatten's funnel receives an inner's values from whichever
 * thread delivers that inner).
 *
 * The protocol, each step once (batch.c: the sender's part; flare_drain.h:
 * the drainer's):
 *
 *   sender, a value, the word held by another thread (flare_batch_begin):
 *     B1  if the thread's cache has an open batch b for this word (not
 *         sealed, not full, and the word's top: the word reads b), its
 *         next slot is count(b.state); else a fresh batch (never
 *         published, or sealed and released by its drainer: the sender
 *         owns it alone) with slot 0.
 *     B2  if the queue has a limit and b has no unused credit (credits ==
 *         count), take n tickets at once (flare_serial_reserve_n), waiting
 *         as any limited sender (flare_serial_wait, waits.h).
 *     B3  the caller writes the event into the slot.
 *   (flare_batch_commit)
 *     B4  open batch: CAS b.state from the value B1 read to count + 1 and
 *         the credits of B2 added (release: the slot's event). It fails
 *         only if the drainer sealed b meanwhile: then a fresh batch (B1),
 *         taking a credit again if the one counted on was in b (B2), and
 *         the caller moves the event into the fresh slot (MOVE), and
 *         commits again.
 *     B5  fresh batch: state = 1 with the credits, refs = 2, then
 *         flare_serial_push (release: the header and the slot). QUEUED:
 *         the batch is the cache's open batch for this word. ACQUIRED: the
 *         word was idle; the caller takes the event back, returns its
 *         credits (it holds the word now) and delivers it. CLOSED: drop.
 *
 *   drainer, a batch node reached in FIFO order (flare_drain_next):
 *     D1  deliver slots [done, count) with count read from state
 *         (acquire); the interrupt check (contract 8) before each.
 *     D2  caught up, and still so after FLARE_SEAL_SPINS more reads of
 *         state with a pause between (D1 again if one sees an append):
 *         CAS state → state | SEALED (acq_rel). It fails only if the
 *         sender appended: back to D1.
 *     D3  sealed: return the unused credits (credits - count), move past
 *         the batch, drop the drainer's reference (the last one frees).
 *   closed (flare_drain_next_closed): D1 with each slot dropped, D2, D3.
 *
 * Invariants:
 *   I1  state is written by the sender (B4, B5 before publication) and by
 *       the drainer (D2) only; the sender only raises count (and credits)
 *       of an unsealed batch, the drainer only sets SEALED, once: so a
 *       sealed batch never changes, and a slot below count(state) holds an
 *       event written before the CAS that counted it.
 *   I2  a batch is published (pushed on the word) at most once per fill,
 *       with its first event counted: the drainer never sees an empty
 *       batch, and never reads a slot before the release that counted it.
 *   I3  the drainer seals every batch it took before it releases or
 *       closes the word (D2 precedes moving past the batch; release is
 *       reached only with nothing left). Hence a sender whose open batch
 *       is unsealed finds the word held by someone else, and a thread that
 *       holds the word has no open batch on it.
 *   I4  order of sends: a thread appends only to the batch that B1 read
 *       as the word's top. Every node and batch pushed on the word later
 *       in the word's modification order is delivered after b's slots, so
 *       the append is ordered as a push at B1's read would be, and that
 *       read lies inside the send. A push that happens before the send
 *       precedes that read in the word's modification order (write-read
 *       coherence), so B1 does not read b and the send starts a batch
 *       pushed after it: a send that began after another returned is
 *       delivered after it. This covers the sender's own other sends (a
 *       terminal event, an interrupt, a reentrant send: each pushes a
 *       node or holds the word, so the word no longer reads b) and the
 *       drainer's take (the word reads BUSY). A send that acquires the
 *       word finds its batches sealed and delivered (I3).
 *   I5  exactly once: each slot below the sealed count is delivered or
 *       dropped once (D1 advances `done` past it); a slot above it was
 *       never counted, and its event was moved (B4) or dropped.
 *   I6  memory: refs counts the sender's cache and the word/drainer; the
 *       last to drop frees. A sender reuses a batch it finds sealed with
 *       refs == 1 (acquire: the drainer is done with its slots). A thread
 *       holds at most FLARE_BATCH_CACHE batches, dropped when it exits.
 *   I7  the queue limit (contract 9): every event in a counted batch holds
 *       a credit, an admitted ticket; the drainer returns one per slot it
 *       delivered (in groups, flare_drain_taken) and the unused ones when
 *       it seals. So credits outstanding never exceed `limit` (plus the
 *       tickets a cycle break admitted, waits.h), and a sender waits for
 *       tickets only while its own batch holds no unused credit. An event
 *       whose batch was sealed before its commit (B4) had counted on one of
 *       the unused credits the seal returned: it takes a credit again
 *       before it is queued, as a sender waits for a slot with its event in
 *       hand.
 */
#ifndef FLARE_BATCH_H
#define FLARE_BATCH_H

#include "flare_limit.h"
#include "flare_serial.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes of slots in a batch (the header comes before them). */
#define FLARE_BATCH_BYTES 2048
/** Bytes of the header; slots start there, 16-byte aligned. */
#define FLARE_BATCH_HEADER 64
/** Largest slot: a bigger event takes the node path. */
#define FLARE_BATCH_MAX_SLOT 256
/** Batches a thread keeps (one per word it sends to under contention). */
#define FLARE_BATCH_CACHE 4

/* state: count in bits 0-15, credits in bits 16-30, SEALED bit 31. */
#define FLARE_BATCH_SEALED ((AO_t)1 << 31)
#define FLARE_BATCH_CREDIT ((AO_t)1 << 16)

/**
 * D2's grace: the reads of a caught-up batch's state the drainer makes,
 * a pause apart, before it seals the batch. A drainer that delivers
 * faster than a sender appends (one cheap observer, as flatten's funnel
 * has) catches up after almost every event: sealing at once makes each
 * event cost the sender a fresh batch and a push on the word, and the
 * drainer a take and a seal, four or five transfers of contended lines.
 * Waiting a few pauses lets the sender's next append land in the same
 * batch. Bounded (no wait on another thread's progress: the drainer seals
 * after the last read whatever the sender does), and spent only by a
 * drainer that holds a batch, so never on an uncontended send.
 */
#define FLARE_SEAL_SPINS 8
static inline unsigned int flare_batch_count(AO_t state) { return (unsigned int)(state & 0xffff); }
static inline unsigned int flare_batch_credits(AO_t state) { return (unsigned int)((state >> 16) & 0x7fff); }

typedef struct flare_batch {
    /** Kind FLARE_NODE_BATCH; `next` links it on the word's stack. */
    flare_node node;
    /** count | credits | SEALED (I1). */
    volatile AO_t state;
    /** 2 while published and cached, else 1 (I6). */
    volatile AO_t refs;
    /** Slot bytes and slots; set by the sender before publication. */
    unsigned int size, capacity;
    /** Slots the drainer delivered, written by the drainer only when it
     *  leaves the batch unfinished (an interrupt), for the terminating drain
     *  that goes on from there; 0 when published. */
    unsigned int done;
    /** Whether its events hold credits of the queue limit. */
    bool counted;
} flare_batch;

_Static_assert(sizeof(flare_batch) <= FLARE_BATCH_HEADER, "the batch header must fit before the slots");

/** Slot `i` of `b`. */
static inline void *flare_batch_slot(flare_batch *b, unsigned int i) {
    return (char *)b + FLARE_BATCH_HEADER + (size_t)i * b->size;
}

/** What `flare_batch_begin` and `flare_batch_commit` tell the sender. */
typedef enum flare_batch_result {
    /** begin: write the event into `tx->slot`, then commit. commit: the
     *  event is queued (nothing more to do). */
    FLARE_BATCH_SLOT = 0,
    /** Use the node path (flare_queue_kind, flare_serial_push): the caller
     *  holds the word (a reentrant send), or the event is too big. Nothing
     *  changed. */
    FLARE_BATCH_NODE = 1,
    /** The word is closed: drop the event (commit: destroy it in `tx->slot`). */
    FLARE_BATCH_CLOSED = 2,
    /** commit: move the event from `tx->slot` to `tx->moved_to`, then commit again. */
    FLARE_BATCH_MOVE = 3,
    /** commit: the word was idle and the caller now holds it; move the event
     *  out of `tx->slot`, call `flare_batch_return_own_credits`, deliver it
     *  (the protocol's "leave" follows, flare.h). */
    FLARE_BATCH_ACQUIRED = 4,
} flare_batch_result;

/** One send's progress through begin and commit: a local of the caller. */
typedef struct flare_batch_send {
    flare_serial *serial;
    flare_batch *batch;
    /** Where the event is written (begin), or, after MOVE, now is. */
    void *slot;
    /** After MOVE: where the event goes, and the sealed batch it leaves,
     *  which the thread holds until the event has moved. */
    void *moved_to;
    flare_batch *old;
    /** The state B1 read (an open batch), or 0 (a fresh batch). */
    AO_t seen;
    /** Credits taken for this send and not yet recorded in a state (B2). */
    unsigned int credits;
    /** Slot bytes. */
    unsigned int size;
    /** Index of the thread's cache entry for this word. */
    unsigned int entry;
} flare_batch_send;

/**
 * B1–B2 for a value event of `size` bytes sent into `s` after
 * try_acquire failed. SLOT: write the event into `tx->slot` and call
 * `flare_batch_commit`. NODE: take the node path. CLOSED: drop the event.
 * May wait for tickets of the queue limit (contract 9) like
 * `flare_serial_reserve`.
 */
flare_batch_result flare_batch_begin(flare_serial *s, size_t size, flare_batch_send *tx);

/**
 * B4–B5: publishes the event written into `tx->slot`. SLOT: queued.
 * MOVE: move it to `tx->moved_to` and call again. ACQUIRED: the caller
 * holds the word; take the event out of `tx->slot`, return its credits
 * (`flare_batch_return_own_credits`) and deliver it. CLOSED: destroy the
 * event in `tx->slot`.
 */
flare_batch_result flare_batch_commit(flare_batch_send *tx);

/**
 * After ACQUIRED, once the caller has taken the event out of its slot: the
 * credits taken for it go back (the caller holds the word), as
 * `flare_serial_return_own_slot` does for a node.
 */
static inline void flare_batch_return_own_credits(const flare_batch_send *tx) {
    if (tx->credits != 0) flare_serial_return_slots(tx->serial, tx->credits);
}

/**
 * D3: the drainer is done with `b` (sealed, every slot delivered or
 * dropped): drops its reference, freeing `b` if the sender dropped its own.
 */
void flare_batch_unref(flare_batch *b);

#ifdef __cplusplus
}
#endif

#endif /* FLARE_BATCH_H */
