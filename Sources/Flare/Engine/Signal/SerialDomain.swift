import CFlare

/// Owns a serial word: the serialization domain shared by a root signal and
/// every signal derived from it by single-input operators.
@usableFromInline
final class _SerialDomain: @unchecked Sendable {
    @usableFromInline
    let serial: UnsafeMutablePointer<flare_serial>

    init(queueLimit: QueueLimit) {
        serial = allocateLineAligned(flare_serial.self)
        flare_serial_init(serial)
        flare_serial_set_limit(serial, queueLimit._events)
    }

    deinit {
        serial.deallocate()
    }
}

/// Memory for one `T` starting on a `FLARE_CACHE_LINE` (128-byte) boundary,
/// as the C core's layout assumes. Freed with `deallocate()`.
func allocateLineAligned<T>(_: T.Type) -> UnsafeMutablePointer<T> {
    UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<T>.stride, alignment: Int(FLARE_CACHE_LINE))
        .bindMemory(to: T.self, capacity: 1)
}

/// Releases an observer context handed to the C core as a retained opaque
/// pointer. Observers of every type are released the same way.
@usableFromInline
func _releaseObserverContext(_ ctx: UnsafeMutableRawPointer?) {
    guard let ctx else { return }
    Unmanaged<AnyObject>.fromOpaque(ctx).release()
}
