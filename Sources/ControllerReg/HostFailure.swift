#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Lets a host callback say why it failed: the message it reports on its thread is attached to
/// the error of the call that invoked the callback.
public enum HostFailure {
    private final class Slot { var message: String? }

    /// How many threads hold a reported message not yet taken or cleared. A thread always sees its
    /// own increment, so when this is 0 the calling thread has nothing to clear, and `clear` (run
    /// before every create callback) skips the thread-specific lookup.
    private static let pending = Atomic<Int>(0)

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { raw in
            guard let raw else { return }
            let slot = Unmanaged<Slot>.fromOpaque(raw)
            if slot.takeUnretainedValue().message != nil { HostFailure.pending.subtract(1, ordering: .relaxed) }
            slot.release()
        }
        return key
    }()

    private static var slot: Slot {
        if let raw = pthread_getspecific(key) {
            return Unmanaged<Slot>.fromOpaque(raw).takeUnretainedValue()
        }
        let slot = Slot()
        pthread_setspecific(key, Unmanaged.passRetained(slot).toOpaque())
        return slot
    }

    /// Records why the current callback fails (the last report before it returns wins).
    public static func report(_ message: String) {
        let s = slot
        if s.message == nil { pending.add(1, ordering: .relaxed) }
        s.message = message
    }

    /// Takes the reported message, if any, and clears it.
    static func take() -> String? {
        guard let raw = pthread_getspecific(key) else { return nil }
        let slot = Unmanaged<Slot>.fromOpaque(raw).takeUnretainedValue()
        guard let message = slot.message else { return nil }
        slot.message = nil
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
        guard let raw = pthread_getspecific(key) else { return }
        let slot = Unmanaged<Slot>.fromOpaque(raw).takeUnretainedValue()
        if slot.message != nil {
            slot.message = nil
            pending.subtract(1, ordering: .relaxed)
        }
    }
}
