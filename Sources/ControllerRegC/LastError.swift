import ControllerReg

import struct CControllerRegHeader.cr_problem

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The calling thread's error record behind cr_last_error_code / _message / _count / _problem.
///
/// The record is plain C memory (no Swift object), so recording "out of memory" allocates
/// nothing: the message goes into the record's inline buffer; other messages are copied with
/// strdup, or truncated into the inline buffer when that fails. A thread whose record cannot be
/// allocated at all keeps the `outOfMemoryMarker` instead, which reads as CR_ERR_NO_MEMORY.
enum LastError {
    /// The record's header; `inlineBytes` of message buffer follow it. Its problems and all their
    /// strings live in one allocation (`block`), replaced whole by the next failure.
    struct Record {
        var code: Int32 = 0
        /// A strdup'ed message, or nil when the message is in the inline buffer.
        var heapMessage: UnsafeMutablePointer<CChar>?
        var problems: UnsafeMutablePointer<cr_problem>?
        var count = 0
        var block: UnsafeMutableRawPointer?
    }

    static let inlineBytes = 240

    /// Stored instead of a record when none could be allocated.
    @inline(__always) static var outOfMemoryMarker: UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: 1)! }

    private static let markerMessage: StaticString = "out of memory (the error record could not be allocated)"

    private static let key: pthread_key_t = {
        var k = pthread_key_t()
        let rc = pthread_key_create(&k) { raw in
            guard let raw, raw != LastError.outOfMemoryMarker else { return }
            LastError.reset(raw.assumingMemoryBound(to: LastError.Record.self))
            free(raw)
        }
        precondition(rc == 0, "controllerreg: pthread_key_create for the last-error record failed (\(rc))")
        return k
    }()

    @inline(__always) private static func inline(_ r: UnsafeMutablePointer<Record>) -> UnsafeMutablePointer<CChar> {
        (UnsafeMutableRawPointer(r) + MemoryLayout<Record>.stride).assumingMemoryBound(to: CChar.self)
    }

    /// Frees what the record holds and empties it.
    private static func reset(_ r: UnsafeMutablePointer<Record>) {
        free(r.pointee.heapMessage)
        free(r.pointee.block)
        r.pointee = Record()
        inline(r).pointee = 0
    }

    /// This thread's record, if it has one (not the out-of-memory marker).
    static var existing: UnsafeMutablePointer<Record>? {
        guard let raw = pthread_getspecific(key), raw != outOfMemoryMarker else { return nil }
        return raw.assumingMemoryBound(to: Record.self)
    }

    /// This thread's record, made now if needed; nil when memory ran out (the marker is stored).
    private static func record() -> UnsafeMutablePointer<Record>? {
        if let r = existing { return r }
        guard let raw = malloc(MemoryLayout<Record>.stride + inlineBytes) else {
            pthread_setspecific(key, outOfMemoryMarker)
            return nil
        }
        let r = raw.bindMemory(to: Record.self, capacity: 1)
        r.initialize(to: Record())
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

    /// Records a failure with one problem that has no place.
    static func set(_ code: ErrorCode, _ message: String) {
        record(code, flattened: message, [Diagnostic(code, message)])
    }

    /// Records a library error: the code of its first problem, every problem in the message and
    /// in the structured list.
    static func set(_ error: ConfigError) { record(error.code, flattened: error.description, error.diagnostics) }

    /// Records CR_ERR_NO_MEMORY for `function` ("cr_map_new: out of memory") without allocating;
    /// the problem list is empty.
    static func outOfMemory(_ function: StaticString) -> Int32 {
        guard let r = record() else { return ErrorCode.noMemory.rawValue }
        reset(r)
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
    private static func copyInline(_ text: UnsafePointer<CChar>, into r: UnsafeMutablePointer<Record>) {
        let length = strlen(text)
        var n = min(length, inlineBytes - 1)
        if n < length {
            while n > 0, UInt8(bitPattern: text[n]) & 0xC0 == 0x80 { n -= 1 }
        }
        memcpy(inline(r), text, n)
        inline(r)[n] = 0
    }

    private static func record(_ code: ErrorCode, flattened: String, _ diagnostics: [Diagnostic]) {
        guard let r = record() else { return }
        reset(r)
        r.pointee.code = code.rawValue
        r.pointee.heapMessage = flattened.withCString { strdup($0) }
        if r.pointee.heapMessage == nil { flattened.withCString { copyInline($0, into: r) } }
        // One block: the cr_problem array, then every string NUL-terminated. If it cannot be
        // allocated, the code and message stand and the list is empty.
        let head = diagnostics.count * MemoryLayout<cr_problem>.stride
        var bytes = head
        for d in diagnostics {
            bytes +=
                (d.location?.file.utf8.count ?? 0) + 1 + d.message.utf8.count + 1 + (d.suggestion.map { $0.utf8.count + 1 } ?? 0)
        }
        guard let block = malloc(max(bytes, 1)) else { return }
        let problems = block.bindMemory(to: cr_problem.self, capacity: diagnostics.count)
        var cursor = block + head
        func copy(_ s: String) -> UnsafePointer<CChar> {
            let start = cursor
            var s = s
            s.withUTF8 { u in
                if let base = u.baseAddress { cursor.copyMemory(from: base, byteCount: u.count) }
                cursor += u.count
            }
            cursor.storeBytes(of: 0, as: UInt8.self)
            cursor += 1
            return UnsafePointer(start.assumingMemoryBound(to: CChar.self))
        }
        for (i, d) in diagnostics.enumerated() {
            let file = copy(d.location?.file ?? "")
            let message = copy(d.message)
            let suggestion = d.suggestion.map(copy)
            (problems + i).initialize(
                to: cr_problem(
                    code: d.code.rawValue, file: file,
                    line: UInt32(clamping: d.location?.line ?? 0), column: UInt32(clamping: d.location?.column ?? 0),
                    message: message, suggestion: suggestion))
        }
        r.pointee.block = block
        r.pointee.problems = problems
        r.pointee.count = diagnostics.count
    }

    /// Resets the record (the out-of-memory marker too).
    static func clear() {
        guard let raw = pthread_getspecific(key) else { return }
        if raw == outOfMemoryMarker {
            pthread_setspecific(key, nil)
            return
        }
        reset(raw.assumingMemoryBound(to: Record.self))
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

@_cdecl("cr_last_error_count")
public func cr_last_error_count() -> Int {
    LastError.existing?.pointee.count ?? 0
}

@_cdecl("cr_last_error_problem")
public func cr_last_error_problem(_ index: Int) -> UnsafePointer<cr_problem>? {
    guard let r = LastError.existing?.pointee, let problems = r.problems, index >= 0, index < r.count else { return nil }
    return UnsafePointer(problems + index)
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
private nonisolated(unsafe) let statusNames: [UnsafePointer<CChar>] = ErrorCode.allCases.map {
    UnsafePointer(strdup($0.description)!)
}
private let unknownStatus: StaticString = "unknown status"

@_cdecl("cr_status_name")
public func cr_status_name(_ status: Int32) -> UnsafePointer<CChar> {
    guard let code = ErrorCode(rawValue: status) else {
        return UnsafeRawPointer(unknownStatus.utf8Start).assumingMemoryBound(to: CChar.self)
    }
    return statusNames[ErrorCode.allCases.firstIndex(of: code)!]
}
