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
/// nothing: the message goes into the record's inline buffer; other messages are copied into the
/// record's block with the problems, or truncated into the inline buffer when that fails. A thread whose record cannot be
/// allocated at all keeps the `outOfMemoryMarker` instead, which reads as CR_ERR_NO_MEMORY.
enum LastError {
    /// The record's header; `inlineBytes` of message buffer follow it. Its problems and all their
    /// strings live in one allocation (`block`), replaced whole by the next failure.
    struct Record {
        var code: Int32 = 0
        /// A message allocated alone, or nil when it is in `block` or the inline buffer.
        var heapMessage: UnsafeMutablePointer<CChar>?
        /// The message inside `block` (not freed alone).
        var blockMessage: UnsafeMutablePointer<CChar>?
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
        return UnsafePointer(r.pointee.heapMessage ?? r.pointee.blockMessage ?? inline(r))
    }

    /// Records a failure with one problem that has no place.
    static func set(_ code: ErrorCode, _ message: String) {
        // The message whole (the problem's copy is capped, as every diagnostic's is).
        let text = TextBuffer(capacity: message.utf8.count)
        text.append(message)
        record(code, flattened: text.bytes, ConfigError([Diagnostic(code, message)]))
    }

    /// Records a library error: the code of its first problem, every problem in the message and
    /// in the structured list.
    static func set(_ error: ConfigError) {
        let text = TextBuffer(capacity: 64 + error.diagnostics.count * 128)
        error.write(into: text)
        record(error.code, flattened: text.bytes, error)
    }

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

    /// Copies at most `inlineBytes - 1` bytes of `text` (cut at a UTF-8 character boundary; a
    /// NUL byte in it ends the message, as C reads it).
    private static func copyInline(_ text: UnsafeBufferPointer<UInt8>, into r: UnsafeMutablePointer<Record>) {
        let length = text.firstIndex(of: 0) ?? text.count
        var n = min(length, inlineBytes - 1)
        if n < length {
            while n > 0, text[n] & 0xC0 == 0x80 { n -= 1 }
        }
        if let p = text.baseAddress { memcpy(inline(r), p, n) }
        inline(r)[n] = 0
    }

    /// Records `code`, the message `flattened` (its UTF-8 bytes) and the problems of `error`. The
    /// problems, their strings and the message share one allocation (a load with thousands of
    /// problems makes one block, not a string per problem). If it cannot be allocated, the code and
    /// message stand (the message alone allocated, else cut into the inline buffer) and the list
    /// is empty.
    private static func record(_ code: ErrorCode, flattened: UnsafeBufferPointer<UInt8>, _ error: ConfigError) {
        guard let r = record() else { return }
        reset(r)
        r.pointee.code = code.rawValue
        let count = error.diagnostics.count
        let head = count * MemoryLayout<cr_problem>.stride
        var bytes = head + flattened.count + 1
        // Consecutive problems of one file share one copy of its name.
        var lastFile: UnsafeBufferPointer<UInt8>?
        // Each problem's parts read where they lie (no `Diagnostic` or `String` copied).
        error.forEachProblem { p in
            if !sameBytes(p.file, lastFile) { bytes += p.file.count + 1 }
            lastFile = p.file
            bytes += p.message.count + 1 + (p.suggestion.map { $0.count + 1 } ?? 0)
        }
        guard let block = malloc(bytes) else {
            if let m = malloc(flattened.count + 1) {
                let out = m.assumingMemoryBound(to: CChar.self)
                if let p = flattened.baseAddress { memcpy(out, p, flattened.count) }
                out[flattened.count] = 0
                r.pointee.heapMessage = out
            } else {
                copyInline(flattened, into: r)
            }
            return
        }
        let problems = block.bindMemory(to: cr_problem.self, capacity: count)
        var strings = StringWriter(cursor: (block + head).assumingMemoryBound(to: UInt8.self))
        lastFile = nil
        var lastFileCopy: UnsafePointer<CChar>?
        var i = 0
        error.forEachProblem { p in
            let file: UnsafePointer<CChar>
            if let copied = lastFileCopy, sameBytes(p.file, lastFile) {
                file = copied
            } else {
                file = strings.copy(p.file)
                lastFile = p.file
                lastFileCopy = file
            }
            let message = strings.copy(p.message)
            let suggestion = p.suggestion.map { strings.copy($0) }
            (problems + i).initialize(
                to: cr_problem(
                    code: p.code.rawValue, file: file, line: UInt32(clamping: p.line), column: UInt32(clamping: p.column),
                    message: message, suggestion: suggestion))
            i += 1
        }
        r.pointee.blockMessage = UnsafeMutablePointer(mutating: strings.copy(flattened))
        r.pointee.block = block
        r.pointee.problems = problems
        r.pointee.count = count
    }

    /// Whether two byte ranges hold the same bytes (nil: none yet).
    private static func sameBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>?) -> Bool {
        guard let b, a.count == b.count else { return false }
        if a.baseAddress == b.baseAddress || a.count == 0 { return true }
        guard let x = a.baseAddress, let y = b.baseAddress else { return false }
        return memcmp(x, y, a.count) == 0
    }

    /// Writes NUL-terminated strings one after another (into a record's block).
    private struct StringWriter {
        var cursor: UnsafeMutablePointer<UInt8>

        /// Copies `u` and a NUL; where the copy starts.
        mutating func copy(_ u: UnsafeBufferPointer<UInt8>) -> UnsafePointer<CChar> {
            let start = cursor
            if let base = u.baseAddress, u.count > 0 { cursor.update(from: base, count: u.count) }
            cursor[u.count] = 0
            cursor += u.count + 1
            return UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self)
        }
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
