import Foundation

extension NotificationCenter: ReactiveExtensionsProvider {}

extension Reactive where Base: NotificationCenter {
    /// A signal of the notifications posted to this center named `name`
    /// (any name if `nil`) and sent by `object` (any sender if `nil`).
    ///
    /// The center is observed from when the signal is made until it ends:
    /// the signal never completes by itself, so it ends when it loses its
    /// last observer and its last reference, and then stops observing the
    /// center. Values arrive on the thread that posts the notification,
    /// synchronously, as `NotificationCenter` delivers them.
    public func notifications(forName name: Notification.Name?, object: AnyObject? = nil) -> Signal<Notification, Never> {
        let center = base
        return Signal { observer, lifetime in
            let token = center.addObserver(forName: name, object: object, queue: nil) { notification in
                observer.send(value: notification)
            }
            // The token is an opaque object from Foundation; `removeObserver`
            // is thread-safe, so the signal may end on any thread.
            nonisolated(unsafe) let registration = token
            lifetime.observeEnded {
                center.removeObserver(registration)
            }
        }
    }
}
