/// An operator's state between events: the variable that the closure of
/// its `attach` keeps (a running result, the previous value, a count).
///
/// A variable captured by an escaping closure lives in a box whose every
/// access Swift checks dynamically for exclusivity: a thread-local look-up
/// and an entry in the thread's access set, per access, per event. The
/// state of an operator needs none: the closure runs only inside its
/// input's serialized delivery (`_EventSink`), one event at a time, and a
/// send from inside it is queued behind the current event (contract 3),
/// never nested. So the state is a class's variable with the checks off,
/// in one allocation, as the box was.
///
/// Invariant: `value` is touched only by the operator's closure, and only
/// inside the serialized delivery that calls it.
@usableFromInline
final class _DeliveryState<Value> {
    @usableFromInline
    @exclusivity(unchecked)
    var value: Value

    @inlinable
    init(_ value: Value) {
        self.value = value
    }
}
