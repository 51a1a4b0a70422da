/*
 * flare.h — the lock-free core of Flare.
 *
 * This umbrella header includes one header per structure, each with its
 * invariants and memory orderings stated next to the code
 * (docs/core-algorithm.md has the whole argument):
 *
 *   flare_serial.h  flare_serial: one word that serializes delivery for a
 *                   signal and every signal derived from it (its domain):
 *                   idle, busy (a drainer is delivering), busy with a LIFO
 *                   stack of pending nodes, or closed (the root
 *                   terminated).
 *   flare_limit.h   the queue limit on that stack (contract 9): the slots a
 *                   sender takes before it queues, and waits for.
 *   flare_entry.h   flare_entry: one attached observer, its exactly-once
 *                   state (active → disposed | done) and a reference count
 *                   for its owners.
 *   flare_bag.h     flare_core: a signal's observer bag and lifecycle, an
 *                   atomic stack of additions spliced by the drainer into a
 *                   drainer-private array that it iterates, compacts and
 *                   grows alone; and an entry's disposal.
 *   flare_batch.h   flare_batch: the batched hand-off, a sending thread's
 *                   block of queued values, pushed on the word once and
 *                   appended to by its sender while the drainer delivers.
 *   flare_node.h    flare_node: a queued event or removal, and the pool that
 *                   recycles event nodes' memory.
 *   flare_deliver.h the drain protocol's steps for one event: queueing a
 *                   send that found the word busy, delivering to a bag,
 *                   delivering a terminal event.
 *   flare_drain.h   flare_drain: the drainer's position in what it took
 *                   from the word, and the steps that drain it (the drain
 *                   loop, the drain in place, the finish after the close).
 *   flare_debug.h   the debug checks.
 *   flare_trace.h   the `flare` USDT probes (production tracing), free
 *                   while nobody traces, and the labels naming signals.
 *
 * Two more headers stand apart, used by the Swift layer only:
 * flare_cell.h (a property's lock-free value cell) and flare_park.h
 * (parking spots for the property's write gate).
 *
 * Every hot-path function is `static inline` so Swift inlines it. The event
 * payloads and the calls into observers live in the caller (Swift, or the C
 * test client): the core never calls back into an observer itself. What the
 * caller does between those calls is decided by the drain protocol's steps
 * (below).
 *
 * The drain protocol. A client of the core (the Swift driver
 * Sources/Flare/Engine/Signal/SerialDriver.swift, with
 * SignalCore+Delivery.swift for a root's bag, and the C test client
 * Tests/CFlareTests/client.c that the C tests and the fuzzer drive) holds
 * the event payloads and calls the observers; everything else a delivering
 * thread decides is decided by the protocol's steps, written once:
 * flare_deliver.h for one event, flare_drain.h for what was queued. Each
 * step is a `static inline` function that does the core's part and returns
 * what the caller must do next, as `flare_serial_push` returns a
 * `flare_push_result`: the caller only moves events in and out of nodes,
 * calls observers and releases observer contexts where a step says so. The
 * spin model (Tests/Model/flare.pml) cannot call C; its header says which
 * of these functions each of its steps models.
 *
 * The steps, in the order a sender that finds the word busy, or acquires it,
 * goes through them (docs/core-algorithm.md §2–§5):
 *
 *   queue      flare_queue_kind: the kind of node a send that found the
 *              word busy queues, or that it must drop its event (word
 *              closed). Then flare_serial_push; on FLARE_PUSH_ACQUIRED the
 *              sender delivers its own event and gives back the slot its
 *              node held (flare_serial_return_own_slot).
 *   deliver    flare_core_begin_delivery (splice), then per entry of the
 *              private array flare_entry_observer (the context to call, or
 *              NULL: skip and count it dead), then flare_core_note_dead.
 *   terminate  a terminal event instead: flare_core_begin_termination (false:
 *              not the first terminal event, nothing to do), per entry
 *              flare_entry_take_done (the context to send the terminal event
 *              and release, or NULL), flare_core_end_termination (drop the
 *              array, seal), then flare_late_next until NULL (each context:
 *              send `interrupted`, release).
 *   leave      after the event the sender delivered itself: if it
 *              terminated a root, finish termination (below); otherwise
 *              flare_serial_release, and drain what it returns, if anything.
 *   drain      flare_drain_begin, then flare_drain_next until it says
 *              FLARE_DRAIN_END (the word released): DELIVER the node's event
 *              (take it, free the node, flare_drain_taken, deliver; if that
 *              terminated the root, finish termination), RELEASE a removed
 *              observer's context, or INTERRUPT (drop the node's event,
 *              deliver `interrupted`, finish termination).
 *   in place   the holder, from inside a delivery: flare_drain_next_in_place,
 *              as drain (from the drain's own state if it is in one, else
 *              flare_drain_begin over flare_serial_take_pushed), until
 *              FLARE_DRAIN_END with the word still held, or FLARE_DRAIN_STOP
 *              before a step that would end what the delivery uses (an
 *              interruption, a terminal event, the removal of one of the
 *              delivering bag's entries): what the drain state still holds
 *              goes to the drain that follows the delivery.
 *   finish     flare_drain_close (close the word), then
 *              flare_drain_next_closed until FLARE_DRAIN_END: DROP each
 *              event queued after the terminal one, RELEASE each removed
 *              observer's context; then the caller ends the generator's
 *              lifetime.
 *
 * All of it runs on the drainer ("Who may call what", below), except
 * flare_queue_kind, flare_serial_push and the caller's delivery of its own
 * event, which precede holding the word.
 *
 * Atomics are libatomic_ops' (MIT core only). Double-width CAS is never used,
 * so the header means the same with or without -mcx16.
 *
 * Who may call what. Three roles, and what may run concurrently:
 *
 *   any thread, at any time (concurrently with everything below):
 *     flare_serial_try_acquire, flare_serial_push, flare_serial_reserve,
 *     flare_serial_wait, flare_serial_peek, flare_serial_is_idle_acquire,
 *     flare_serial_is_unlimited,
 *     flare_serial_held_by_caller,
 *     flare_entry_new, flare_entry_unref (one call per reference held),
 *     flare_entry_dispose, flare_entry_is_claimed, flare_core_attach,
 *     flare_core_retain, flare_core_release, flare_core_abandon (the caller
 *     that dropped the last retainer), flare_core_request_interrupt,
 *     flare_core_is_alive, flare_node_alloc, flare_node_free,
 *     flare_node_pool_bytes, flare_serial_reserve_n, flare_batch_begin
 *     and flare_batch_commit (each thread on its own batches),
 *     flare_queue_kind (flare_deliver.h), flare_entry_claim by an
 *     attacher on its own entry that flare_core_attach refused, and the
 *     diagnostics flare_serial_debug_state, flare_waits_debug_waiting_for
 *     and flare_waits_debug_waiting_on (racy snapshots).
 *
 *   the drainer: the thread holding the domain's serial word (from a
 *   successful try_acquire, or an ACQUIRED push or batch commit, until
 *   flare_serial_release returns NULL or flare_serial_close returns). At
 *   most one thread per domain; its calls run concurrently with the first
 *   group only:
 *     flare_core_splice, flare_core_splice_slow, flare_core_compact,
 *     flare_core_note_dead, flare_core_begin_termination, flare_core_seal,
 *     flare_core_drop_items, flare_core_interrupt_requested,
 *     flare_core_check_invariants, flare_entry_is_active and
 *     flare_entry_claim on entries of its private arrays,
 *     flare_serial_release, flare_serial_take, flare_serial_take_pushed,
 *     flare_serial_close,
 *     flare_serial_return_slots, flare_serial_return_batch,
 *     flare_serial_debug_note_queued; and the drain protocol's steps in
 *     flare_deliver.h and flare_drain.h (flare_serial_return_own_slot,
 *     flare_core_begin_delivery, flare_entry_observer,
 *     flare_entry_take_done, flare_core_end_termination, flare_late_next,
 *     flare_drain_begin, flare_drain_next, flare_drain_next_in_place,
 *     flare_drain_put_back, flare_drain_current, flare_drain_publish,
 *     flare_drain_removal,
 *     flare_drain_taken, flare_drain_close, flare_drain_next_closed,
 *     flare_drain_batch_more, flare_drain_leave_batch,
 *     flare_batch_return_own_credits after an ACQUIRED commit);
 *     flare_batch_unref by the drainer that took the batch.
 *
 *   the last owner, once no other thread can reach the structure:
 *     flare_serial_init, flare_serial_set_limit (before the word is
 *     shared), flare_core_init, flare_core_destroy.
 *
 * In builds with FLARE_DEBUG_CHECKS (the package's debug configuration and
 * every CMake build of the C tests), the drainer-only functions that are
 * compiled out of line check that the caller holds the word, and the steps
 * that change a bag (splice, compact, seal) check its invariants
 * (flare_core_check_invariants) before they return; a failed check prints
 * what and where, and aborts. Release builds compile the checks out.
 */
#ifndef FLARE_H
#define FLARE_H

#include "flare_debug.h"
#include "flare_node.h"
#include "flare_serial.h"
#include "flare_limit.h"
#include "flare_batch.h"
#include "flare_entry.h"
#include "flare_bag.h"
#include "flare_deliver.h"
#include "flare_drain.h"
#include "flare_trace.h"

#endif /* FLARE_H */
