/// Why a producer returned by ``Action/apply(_:)`` failed.
public enum ActionError<Error: Swift.Error>: Swift.Error {
    /// The producer was started while the action was disabled: by its
    /// state, or because another execution was running. Nothing was
    /// executed; the action sent a value on
    /// ``Action/disabledErrors``.
    case disabled

    /// The execution failed with this error (also sent on
    /// ``Action/errors``).
    case producerFailed(Error)
}

extension ActionError: Equatable where Error: Equatable {}
