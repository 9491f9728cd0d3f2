import CThreadRecord
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
/// nothing: the message goes into the record's inline buffer. Other failures keep the buffers
/// their message and problems were written into (`TextBuffer.takeCString`), not copies. A thread
/// whose record cannot be allocated at all keeps the `outOfMemoryMarker` instead, which reads as
/// CR_ERR_NO_MEMORY.
enum LastError {
    /// The record's header; `inlineBytes` of message buffer follow it. Its message, problems and
    /// their strings are three allocations from `malloc`, replaced whole by the next failure.
    struct Record {
        var code: Int32 = 0
        /// The message, or nil when it is in the inline buffer.
        var heapMessage: UnsafeMutablePointer<CChar>?
        /// The problems (`count` of them), in an allocation of their own.
        var problems: UnsafeMutablePointer<cr_problem>?
        var count = 0
        /// The problems' strings, one after another.
        var strings: UnsafeMutableRawPointer?
        /// The records of a failure with several problems (a retained `ProblemRecords`, shared
        /// with every `cr_error` kept from it): written at the first `cr_last_error_problem` or
        /// `cr_error_problem`, most callers reading only the message and the count.
        var pending: UnsafeMutableRawPointer?
        /// `pending`'s records once they are written (theirs, not freed here), and how many:
        /// read directly by the requests after the first.
        var written: UnsafePointer<cr_problem>?
        var writtenCount = 0
    }

    static let inlineBytes = 240

    /// Stored instead of a record when none could be allocated.
    @inline(__always) static var outOfMemoryMarker: UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: 1)! }

    private static let markerMessage: StaticString = "out of memory (the error record could not be allocated)"

    private static let key: pthread_key_t = {
        var k = pthread_key_t()
        let rc = pthread_key_create(&k) { raw in
            guard let raw, raw != LastError.outOfMemoryMarker else { return }
            controllerreg_last_error_set(nil)
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
        free(r.pointee.problems)
        free(r.pointee.strings)
        if let p = r.pointee.pending { Unmanaged<ProblemRecords>.fromOpaque(p).release() }
        r.pointee = Record()
        inline(r).pointee = 0
    }

    /// This thread's record, if it has one (not the out-of-memory marker): from the thread-local
    /// cache (`CThreadRecord`), else from the key (and cached then).
    @inline(__always) static var existing: UnsafeMutablePointer<Record>? {
        if let cached = controllerreg_last_error_get() { return cached.assumingMemoryBound(to: Record.self) }
        return keyed
    }

    /// `existing` read from the key.
    private static var keyed: UnsafeMutablePointer<Record>? {
        guard let raw = pthread_getspecific(key), raw != outOfMemoryMarker else { return nil }
        controllerreg_last_error_set(raw)
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
        controllerreg_last_error_set(raw)
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
        let written = Written(count: 1)
        ConfigError([Diagnostic(code, message)]).write(into: TextBuffer()) { written.add($0) }
        // The message whole (the problem's copy is capped, as every diagnostic's is).
        let text = TextBuffer(capacity: message.utf8.count + 1)
        text.append(message)
        store(code, message: text, written)
    }

    /// Records a library error that C function `function` met, each problem that has no place
    /// (no file:line:column) named by the function instead: "cr_add_entry: an entry name must not
    /// be empty; ...", as a config's problems are named by their place and the C ABI's own
    /// refusals by their function. `everyCode` false (a create's failure, which names its entry and
    /// the chain to it: "cannot create 'A' (A -> B): ..."): only a refused argument (one
    /// CR_ERR_INVALID_ARGUMENT problem: a class name, a template, props that are not a map, a
    /// registry already freed, ...) is named so. A message that already names a C function is left
    /// as it is.
    @discardableResult
    @inline(never)
    static func set(_ error: ConfigError, from function: StaticString, everyCode: Bool = false) -> Int32 {
        func unnamed(_ d: Diagnostic) -> Bool { !d.hasPlace && !d.message.hasPrefix("cr_") }
        guard everyCode else {
            guard error.diagnostics.count == 1, var d = error.diagnostics.first, d.code == .invalidArgument, unnamed(d)
            else { return set(error) }
            d.message = "\(function): \(d.message)"
            return set(ConfigError([d]))
        }
        // Problems without a place sort last (`ConfigError.init`): when the last one has a place,
        // every one has, and a failing load's thousands of problems are not read one by one (that
        // cost ~60 instructions a problem, more than the load's own error path saves).
        guard let last = error.diagnostics.last, !last.hasPlace, error.diagnostics.contains(where: unnamed) else {
            return set(error)
        }
        return set(
            ConfigError(
                error.diagnostics.map { d in
                    guard unnamed(d) else { return d }
                    var named = d
                    named.message = "\(function): \(d.message)"
                    return named
                }))
    }

    /// Records a library error: the lowest code of its problems, the first
    /// `ConfigError.maxListedProblems` in the message (the rest counted), every problem in the
    /// structured list.
    @discardableResult
    static func set(_ error: ConfigError) -> Int32 {
        let count = error.diagnostics.count
        // (Read once: the code is the lowest of every problem's.)
        let code = error.code
        guard count > 1 else {
            let text = TextBuffer(capacity: 192)
            // One pass: the message, and the problem's strings as its line is written.
            let written = Written(count: count)
            error.write(into: text) { written.add($0) }
            store(code, message: text, written)
            return code.rawValue
        }
        // The message now (the first `ConfigError.maxListedProblems`, the rest counted); every
        // problem's record when one is asked for (`problem(_:)`).
        let text = TextBuffer(capacity: 64 + error.listedCount * 128)
        error.write(into: text)
        guard let r = record() else { return code.rawValue }
        reset(r)
        r.pointee.code = code.rawValue
        r.pointee.heapMessage = text.takeCString()
        r.pointee.count = count
        r.pointee.pending = Unmanaged.passRetained(ProblemRecords(pending: error)).toOpaque()
        return code.rawValue
    }

    /// Problem `index` of this thread's record (its records written now if they are pending).
    static func problem(_ index: Int) -> UnsafePointer<cr_problem>? {
        guard let r = existing, index >= 0, index < r.pointee.count else { return nil }
        if let w = r.pointee.written { return index < r.pointee.writtenCount ? w + index : nil }
        if let p = r.pointee.pending {
            let records = Unmanaged<ProblemRecords>.fromOpaque(p).takeUnretainedValue()
            let q = records.problem(index)
            if let (w, n) = records.written {
                r.pointee.written = w
                r.pointee.writtenCount = n
            }
            return q
        }
        guard let problems = r.pointee.problems else { return nil }
        return UnsafePointer(problems + index)
    }

    /// This thread's failure as a `cr_error` of its own (`cr_last_error_keep`), the record left as
    /// it is; nil without a failure or when memory ran out. The records are shared, not copied,
    /// when they are pending; a one-problem failure's record is copied.
    static func keep() -> KeptError? {
        guard let r = existing, r.pointee.code != 0, let message = strdup(UnsafePointer(r.pointee.heapMessage ?? inline(r)))
        else { return nil }
        var records: ProblemRecords?
        if let p = r.pointee.pending {
            records = Unmanaged<ProblemRecords>.fromOpaque(p).takeUnretainedValue()
        } else if let problems = r.pointee.problems, r.pointee.count > 0 {
            records = ProblemRecords.copying(problems, count: r.pointee.count)
            if records == nil {
                free(message)
                return nil
            }
        }
        return KeptError(code: r.pointee.code, message: message, records: records)
    }

    /// Makes `code`, the text of `message` and the problems `written` this thread's record: the
    /// buffers become the record's as they are (a load with thousands of problems copies no
    /// block of them again).
    private static func store(_ code: ErrorCode, message: TextBuffer, _ written: Written) {
        guard let r = record() else { return }
        reset(r)
        r.pointee.code = code.rawValue
        r.pointee.heapMessage = message.takeCString()
        let (problems, strings, count) = written.take()
        r.pointee.problems = problems
        r.pointee.strings = UnsafeMutableRawPointer(strings)
        r.pointee.count = count
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

    /// The problems of a failure as their records will hold them, gathered in one pass: their
    /// strings (NUL-terminated, one copy of a file's name for consecutive problems of that file)
    /// one after another in `strings`, and each record with its strings' offsets in place of
    /// pointers (made pointers by `take`, when the strings have their final place).
    final class Written {
        let count: Int
        let problems: UnsafeMutablePointer<cr_problem>
        private(set) var added = 0
        let strings: TextBuffer
        private var lastFile: UnsafeBufferPointer<UInt8>?
        private var lastFileAt = 0

        private var taken = false

        init(count: Int) {
            self.count = count
            guard let p = malloc(max(count, 1) * MemoryLayout<cr_problem>.stride) else {
                fatalError("controllerreg: out of memory (\(count) error records)")
            }
            problems = p.bindMemory(to: cr_problem.self, capacity: max(count, 1))
            strings = TextBuffer(capacity: 64 + count * 112)
        }

        deinit { if !taken { free(problems) } }

        /// The records (their strings' offsets made pointers), the strings, and how many records
        /// were added: the caller's to `free`, both.
        func take() -> (UnsafeMutablePointer<cr_problem>, UnsafeMutablePointer<CChar>, Int) {
            taken = true
            let base = UnsafeMutableRawPointer(strings.takeCString()).assumingMemoryBound(to: UInt8.self)
            for i in 0..<added {
                problems[i].file = Written.pointer(problems[i].file, in: base)
                problems[i].message = Written.pointer(problems[i].message, in: base)
                if let s = problems[i].suggestion { problems[i].suggestion = Written.pointer(s, in: base) }
            }
            return (problems, UnsafeMutableRawPointer(base).assumingMemoryBound(to: CChar.self), added)
        }

        /// Copies a problem's parts.
        func add(_ p: ConfigError.ProblemParts) {
            guard added < count else { return }
            if !LastError.sameBytes(p.file, lastFile) {
                lastFile = p.file
                lastFileAt = copy(p.file)
            }
            let message = copy(p.message)
            let suggestion = p.suggestion.map { copy($0) }
            (problems + added).initialize(
                to: cr_problem(
                    code: p.code.rawValue, file: Written.offset(lastFileAt), line: UInt32(clamping: p.line),
                    column: UInt32(clamping: p.column), message: Written.offset(message),
                    suggestion: suggestion.map { Written.offset($0) }))
            added += 1
        }

        /// Adds a problem whose message and suggestion (-1: none) were written into `strings` at
        /// those offsets (`ConfigError.writeEachRecord`), not copied again.
        func addWritten(_ p: ConfigError.ProblemParts, message: Int, suggestion: Int) {
            guard added < count else { return }
            if !LastError.sameBytes(p.file, lastFile) {
                lastFile = p.file
                lastFileAt = copy(p.file)
            }
            (problems + added).initialize(
                to: cr_problem(
                    code: p.code.rawValue, file: Written.offset(lastFileAt), line: UInt32(clamping: p.line),
                    column: UInt32(clamping: p.column), message: Written.offset(message),
                    suggestion: suggestion < 0 ? nil : Written.offset(suggestion)))
            added += 1
        }

        /// Appends `u` and a NUL to `strings`; where it starts.
        private func copy(_ u: UnsafeBufferPointer<UInt8>) -> Int {
            let at = strings.count
            strings.append(u)
            strings.append(byte: 0)
            return at
        }

        /// An offset into `strings` held where a pointer goes (1 added: never NULL).
        private static func offset(_ at: Int) -> UnsafePointer<CChar> { UnsafePointer(bitPattern: at + 1)! }

        /// The pointer into `base` (the copy of `strings`) an `offset` stands for.
        static func pointer(_ p: UnsafePointer<CChar>, in base: UnsafeMutablePointer<UInt8>) -> UnsafePointer<CChar> {
            UnsafeRawPointer(base + (Int(bitPattern: p) - 1)).assumingMemoryBound(to: CChar.self)
        }
    }

    /// Whether two byte ranges hold the same bytes (nil: none yet).
    @inline(__always)
    fileprivate static func sameBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>?) -> Bool {
        guard let b, a.count == b.count else { return false }
        if a.baseAddress == b.baseAddress || a.count == 0 { return true }
        guard let x = a.baseAddress, let y = b.baseAddress else { return false }
        return memcmp(x, y, a.count) == 0
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

/// Runs a fallible call for the int-returning C function `function`: 0, or the code after
/// recording the error, its problems without a place named by the function
/// (`LastError.set(_:from:everyCode:)`). `everyCode` false for the create family (cr_inject).
@inline(__always)
func status(_ function: StaticString, everyCode: Bool = true, _ body: () throws(ConfigError) -> Void) -> Int32 {
    do throws(ConfigError) {
        try body()
        return 0
    } catch {
        return LastError.set(error, from: function, everyCode: everyCode)
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
    LastError.problem(index)
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
