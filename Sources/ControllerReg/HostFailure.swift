import Synchronization

/// Lets a host callback say why it failed: the message it reports on its thread is attached to
/// the error of the call that invoked the callback.
package enum HostFailure {
    private final class Slot {
        var message: String?
        deinit { if message != nil { HostFailure.pending.subtract(1, ordering: .relaxed) } }
    }

    private static let slot = ThreadLocal { Slot() }

    /// How many threads hold a reported message not yet taken or cleared. A thread always sees its
    /// own increment, so when this is 0 the calling thread has nothing to clear, and `clear` (run
    /// before every create callback) skips the thread-specific lookup.
    private static let pending = Atomic<Int>(0)

    /// Records why the current callback fails (the last report before it returns wins). An empty
    /// message says nothing, so it is ignored: the failure keeps its default wording ("returned
    /// NULL") or an earlier report rather than ending in ": ".
    package static func report(_ message: String) {
        if message.isEmpty { return }
        let s = slot.value
        if s.message == nil { pending.add(1, ordering: .relaxed) }
        s.message = message
    }

    /// Takes the reported message, if any, and clears it.
    static func take() -> String? {
        guard let s = slot.existing, let message = s.message else { return nil }
        s.message = nil
        pending.subtract(1, ordering: .relaxed)
        return message
    }

    /// Clears a stale message before a callback runs.
    @inline(__always)
    static func clear() {
        if pending.load(ordering: .relaxed) == 0 { return }
        clearSlow()
    }

    private static func clearSlow() {
        guard let s = slot.existing, s.message != nil else { return }
        s.message = nil
        pending.subtract(1, ordering: .relaxed)
    }
}
