#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A nonzero number identifying the calling thread while it runs.
///
/// Used to recognise a reentrant call (a send from inside an observer on the
/// thread that holds the delivery lock), which a non-recursive mutex would
/// otherwise deadlock on.
@inlinable
@inline(__always)
public func baselineThreadID() -> UInt {
    #if os(Linux)
    return UInt(pthread_self())
    #else
    return UInt(bitPattern: pthread_self())
    #endif
}
