#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Lets a host callback say why it failed: the message it reports on its thread is attached to
/// the error of the call that invoked the callback.
public enum HostFailure {
    private final class Slot { var message: String? }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { raw in
            guard let raw else { return }
            Unmanaged<AnyObject>.fromOpaque(raw).release()
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
    public static func report(_ message: String) { slot.message = message }

    /// Takes the reported message, if any, and clears it.
    static func take() -> String? {
        guard let raw = pthread_getspecific(key) else { return nil }
        let slot = Unmanaged<Slot>.fromOpaque(raw).takeUnretainedValue()
        defer { slot.message = nil }
        return slot.message
    }

    /// Clears a stale message before a callback runs.
    static func clear() {
        guard let raw = pthread_getspecific(key) else { return }
        Unmanaged<Slot>.fromOpaque(raw).takeUnretainedValue().message = nil
    }
}
