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
 *   flare_drain.h   the drain protocol: what a delivering thread does, step
 *                   by step, built on the structures above.
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
 * (flare_drain.h).
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
 *     flare_queue_kind (flare_drain.h), flare_entry_claim by an
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
 *     flare_drain.h (flare_serial_return_own_slot,
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
#include "flare_drain.h"
#include "flare_trace.h"

#endif /* FLARE_H */
