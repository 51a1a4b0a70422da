import CFlare
import Synchronization

/// A property's current value, read from any thread without a lock.
///
/// Writers are ordered by the property's `_WriteGate` (one at a time); readers
/// never wait for them. Two schemes, chosen per type:
///
/// - **Plain bytes** (`_isPOD`, at most 32 bytes, alignment at most 8: `Int`,
///   `Bool`, `Double`, small structs of them): the value's words live in a
///   two-slot versioned cell (`flare_cell.h`). A read is two loads of the
///   version around a copy of the words, retried only if a write completed
///   meanwhile; nothing is allocated or freed, so there is nothing to
///   reclaim.
/// - **Anything else** (values with references): each value is in an
///   immutable heap box, published through one word holding the box's
///   address (low 48 bits) and a count of readers pinning it (high 16 bits),
///   the split reference count. A reader pins with one fetch-and-add, copies
///   the value (retaining what it references), and unpins: a CAS on the same
///   word while the box is still the published one, otherwise (the writer
///   swapped it out and moved the pins it found onto the box) an increment of
///   the box's `settled` count. The writer swaps the word (acquire-release),
///   subtracts the pins it took over from `settled`; whoever brings `settled`
///   to zero frees the box. A box is therefore freed exactly once, after the
///   last reader that pinned it has copied its value, and its address cannot
///   be reused while a pin on it is outstanding (no ABA on the word).
///
/// Orderings (boxes): the writer initializes the box before its releasing
/// exchange; the reader's pin is acquiring, so it sees the contents. A
/// reader's unpin is releasing (CAS) or acquire-release (`settled`), and the
/// free happens after an acquire-release RMW on the same location that reads
/// from it, so every copy of the value happens before the box is freed.
/// Limits: 65,535 readers pinning one box at the same instant; user-space
/// addresses below 2^48 (x86-64 and arm64 Linux and Darwin), checked.
@usableFromInline
final class _ValueCell<Value>: @unchecked Sendable {
    @usableFromInline
    final class Box {
        @usableFromInline let value: Value
        @usableFromInline let settled = Atomic<Int>(0)
        @inlinable init(_ value: Value) { self.value = value }
    }

    @usableFromInline static var pinUnit: UInt { 1 &<< 48 }
    @usableFromInline static var addressMask: UInt { (1 &<< 48) &- 1 }

    /// Whether values live in the two-slot cell rather than in boxes.
    @inlinable
    static var isInline: Bool {
        _isPOD(Value.self) && MemoryLayout<Value>.size <= Int(FLARE_CELL_WORDS) * MemoryLayout<UInt>.size
            && MemoryLayout<Value>.alignment <= MemoryLayout<UInt>.alignment
    }

    @inlinable
    static var wordCount: Int {
        (MemoryLayout<Value>.size + MemoryLayout<UInt>.size - 1) / MemoryLayout<UInt>.size
    }

    /// The two-slot cell, for plain-bytes values.
    @usableFromInline
    let cell: UnsafeMutablePointer<flare_cell>?

    /// The boxed scheme's word: pins in the high 16 bits, the box's address
    /// in the low 48.
    @usableFromInline
    let word = Atomic<UInt>(0)

    @usableFromInline
    init(_ value: Value) {
        if Self.isInline {
            let cell = allocateLineAligned(flare_cell.self)
            Self.withWords(of: value) { flare_cell_init(cell, $0, Self.wordCount) }
            self.cell = cell
        } else {
            cell = nil
            word.store(Self.publish(value), ordering: .releasing)
        }
    }

    deinit {
        if let cell {
            cell.deallocate()
        } else {
            Self.retire(word.load(ordering: .acquiring))
        }
    }

    /// The latest value. Any thread; no lock, no wait.
    @inlinable
    func load() -> Value {
        if Self.isInline {
            var words: (UInt, UInt, UInt, UInt) = (0, 0, 0, 0)
            return withUnsafeMutableBytes(of: &words) { raw in
                flare_cell_load(cell.unsafelyUnwrapped, raw.baseAddress!.assumingMemoryBound(to: UInt.self), Self.wordCount)
                return raw.load(as: Value.self)
            }
        }
        return loadBoxed()
    }

    /// Publishes `value`. The caller holds the property's write gate.
    @inlinable
    func store(_ value: Value) {
        if Self.isInline {
            Self.withWords(of: value) { flare_cell_store(cell.unsafelyUnwrapped, $0, Self.wordCount) }
        } else {
            Self.retire(word.exchange(Self.publish(value), ordering: .acquiringAndReleasing))
        }
    }

    @inlinable
    static func withWords(of value: Value, _ body: (UnsafePointer<UInt>) -> Void) {
        var words: (UInt, UInt, UInt, UInt) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { raw in
            raw.storeBytes(of: value, as: Value.self)
            body(UnsafePointer(raw.baseAddress!.assumingMemoryBound(to: UInt.self)))
        }
    }

    /// A new box holding `value`, as the word's address bits.
    @inlinable
    static func publish(_ value: Value) -> UInt {
        let bits = UInt(bitPattern: Unmanaged.passRetained(Box(value)).toOpaque())
        flarePrecondition(bits & ~addressMask == 0, "MutableProperty: a heap address above 2^48 (\(bits)) leaves no room for the reader count")
        return bits
    }

    /// The writer has swapped out the word `old`: the pins it held move onto
    /// the box, which is freed once they have all settled.
    @inlinable
    static func retire(_ old: UInt) {
        let pins = Int(old >> 48)
        let box = Unmanaged<Box>.fromOpaque(UnsafeRawPointer(bitPattern: old & addressMask).unsafelyUnwrapped)
        let left = box._withUnsafeGuaranteedRef { $0.settled.wrappingAdd(-pins, ordering: .acquiringAndReleasing).newValue }
        if left == 0 { box.release() }
    }

    @inlinable
    func loadBoxed() -> Value {
        let pinned = word.wrappingAdd(Self.pinUnit, ordering: .acquiring).oldValue
        let bits = pinned & Self.addressMask
        let box = Unmanaged<Box>.fromOpaque(UnsafeRawPointer(bitPattern: bits).unsafelyUnwrapped)
        let value = box._withUnsafeGuaranteedRef { $0.value }
        var current = pinned &+ Self.pinUnit
        while current & Self.addressMask == bits {
            let (done, now) = word.compareExchange(
                expected: current, desired: current &- Self.pinUnit, ordering: .releasing)
            if done { return value }
            current = now
        }
        // Swapped out: the writer moved this pin onto the box.
        let left = box._withUnsafeGuaranteedRef { $0.settled.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue }
        if left == 0 { box.release() }
        return value
    }
}
