#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ControllerReg

/// The calling thread's error record behind cr_last_error_code / cr_last_error_message.
///
/// The record is plain C memory (no Swift object), so recording "out of memory" allocates
/// nothing: the message goes into the record's inline buffer; other messages are copied with
/// strdup, or truncated into the inline buffer when that fails. A thread whose record cannot be
/// allocated at all keeps the `outOfMemoryMarker` instead, which reads as CR_ERR_NO_MEMORY.
enum LastError {
    /// The record's header; `inlineBytes` of message buffer follow it.
    struct Record {
        var code: Int32
        /// A strdup'ed message, or nil when the message is in the inline buffer.
        var heapMessage: UnsafeMutablePointer<CChar>?
    }

    static let inlineBytes = 240

    /// Stored instead of a record when none could be allocated.
    @inline(__always) static var outOfMemoryMarker: UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: 1)! }

    private static let markerMessage: StaticString = "out of memory (the error record could not be allocated)"

    private static let key: pthread_key_t = {
        var k = pthread_key_t()
        let rc = pthread_key_create(&k) { raw in
            guard let raw, raw != LastError.outOfMemoryMarker else { return }
            free(raw.assumingMemoryBound(to: LastError.Record.self).pointee.heapMessage)
            free(raw)
        }
        precondition(rc == 0, "controllerreg: pthread_key_create for the last-error record failed (\(rc))")
        return k
    }()

    @inline(__always) private static func inline(_ r: UnsafeMutablePointer<Record>) -> UnsafeMutablePointer<CChar> {
        (UnsafeMutableRawPointer(r) + MemoryLayout<Record>.stride).assumingMemoryBound(to: CChar.self)
    }

    /// This thread's record, made now if needed; nil when memory ran out (the marker is stored).
    private static func record() -> UnsafeMutablePointer<Record>? {
        if let raw = pthread_getspecific(key), raw != outOfMemoryMarker {
            return raw.assumingMemoryBound(to: Record.self)
        }
        guard let raw = malloc(MemoryLayout<Record>.stride + inlineBytes) else {
            pthread_setspecific(key, outOfMemoryMarker)
            return nil
        }
        let r = raw.bindMemory(to: Record.self, capacity: 1)
        r.initialize(to: Record(code: 0, heapMessage: nil))
        inline(r).pointee = 0
        pthread_setspecific(key, raw)
        return r
    }

    /// This thread's code (0 when it has no error).
    static var code: Int32 {
        guard let raw = pthread_getspecific(key) else { return 0 }
        if raw == outOfMemoryMarker { return ErrorCode.noMemory.rawValue }
        return raw.assumingMemoryBound(to: Record.self).pointee.code
    }

    /// This thread's message, or nil when it has none.
    static var message: UnsafePointer<CChar>? {
        guard let raw = pthread_getspecific(key) else { return nil }
        if raw == outOfMemoryMarker { return UnsafeRawPointer(markerMessage.utf8Start).assumingMemoryBound(to: CChar.self) }
        let r = raw.assumingMemoryBound(to: Record.self)
        return UnsafePointer(r.pointee.heapMessage ?? inline(r))
    }

    /// Records a failure.
    static func set(_ code: ErrorCode, _ message: String) {
        guard let r = record() else { return }
        free(r.pointee.heapMessage)
        r.pointee.code = code.rawValue
        r.pointee.heapMessage = message.withCString { strdup($0) }
        if r.pointee.heapMessage == nil { message.withCString { copyInline($0, strlen($0), into: r) } }
    }

    /// Records a library error (code of its first problem, all problems in the message).
    static func set(_ error: ConfigError) { set(error.code, error.description) }

    /// Records CR_ERR_NO_MEMORY for `function` ("cr_map_new: out of memory") without allocating.
    static func outOfMemory(_ function: StaticString) -> Int32 {
        guard let r = record() else { return ErrorCode.noMemory.rawValue }
        free(r.pointee.heapMessage)
        r.pointee.heapMessage = nil
        r.pointee.code = ErrorCode.noMemory.rawValue
        let suffix: StaticString = ": out of memory"
        let out = inline(r)
        let n = min(function.utf8CodeUnitCount, inlineBytes - suffix.utf8CodeUnitCount - 1)
        memcpy(out, function.utf8Start, n)
        memcpy(out + n, suffix.utf8Start, suffix.utf8CodeUnitCount)
        out[n + suffix.utf8CodeUnitCount] = 0
        return ErrorCode.noMemory.rawValue
    }

    /// Copies at most `inlineBytes - 1` bytes of `text` (cut at a UTF-8 character boundary).
    private static func copyInline(_ text: UnsafePointer<CChar>, _ length: Int, into r: UnsafeMutablePointer<Record>) {
        var n = min(length, inlineBytes - 1)
        if n < length {
            while n > 0, UInt8(bitPattern: text[n]) & 0xC0 == 0x80 { n -= 1 }
        }
        memcpy(inline(r), text, n)
        inline(r)[n] = 0
    }

    /// Resets the record.
    static func clear() {
        guard let raw = pthread_getspecific(key) else { return }
        if raw == outOfMemoryMarker { pthread_setspecific(key, nil); return }
        let r = raw.assumingMemoryBound(to: Record.self)
        free(r.pointee.heapMessage)
        r.pointee.heapMessage = nil
        r.pointee.code = 0
        inline(r).pointee = 0
    }
}

/// Runs a fallible call for an int-returning C function: 0, or the code after recording the error.
@inline(__always)
func status(_ body: () throws(ConfigError) -> Void) -> Int32 {
    do throws(ConfigError) {
        try body()
        return 0
    } catch {
        LastError.set(error)
        return error.code.rawValue
    }
}

/// Records an error and returns its code (for early returns in C functions).
func fail(_ code: ErrorCode, _ message: String) -> Int32 {
    LastError.set(code, message)
    return code.rawValue
}

@_cdecl("cr_last_error_code")
public func cr_last_error_code() -> Int32 {
    LastError.code
}

private let emptyMessage: StaticString = ""

@_cdecl("cr_last_error_message")
public func cr_last_error_message() -> UnsafePointer<CChar> {
    if let m = LastError.message { return m }
    return UnsafeRawPointer(emptyMessage.utf8Start).assumingMemoryBound(to: CChar.self)
}

@_cdecl("cr_clear_error")
public func cr_clear_error() {
    LastError.clear()
}

@_cdecl("cr_report_error")
public func cr_report_error(_ message: UnsafePointer<CChar>?) {
    guard let message else { return }
    HostFailure.report(String(cString: message))
}

/// ErrorCode names as C strings with static storage, indexed by code.
private nonisolated(unsafe) let statusNames: [UnsafePointer<CChar>] = ErrorCode.allCases.map { UnsafePointer(strdup($0.description)!) }
private let unknownStatus: StaticString = "unknown status"

@_cdecl("cr_status_name")
public func cr_status_name(_ status: Int32) -> UnsafePointer<CChar> {
    guard let code = ErrorCode(rawValue: status) else {
        return UnsafeRawPointer(unknownStatus.utf8Start).assumingMemoryBound(to: CChar.self)
    }
    return statusNames[ErrorCode.allCases.firstIndex(of: code)!]
}

private let versionString: StaticString = "0.1.0"

@_cdecl("cr_version")
public func cr_version() -> UnsafePointer<CChar> {
    UnsafeRawPointer(versionString.utf8Start).assumingMemoryBound(to: CChar.self)
}
