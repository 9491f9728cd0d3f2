/// Lets a host callback say why it failed: the message it reports on its thread is attached to
/// the error of the call that invoked the callback.
public enum HostFailure {
    private final class Slot { var message: String? }

    private static let slot = ThreadLocal { Slot() }

    /// Records why the current callback fails (the last report before it returns wins).
    public static func report(_ message: String) { slot.value.message = message }

    /// Takes the reported message, if any, and clears it.
    static func take() -> String? {
        guard let s = slot.existing else { return nil }
        defer { s.message = nil }
        return s.message
    }

    /// Clears a stale message before a callback runs.
    static func clear() {
        slot.existing?.message = nil
    }
}
