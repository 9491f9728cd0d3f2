import ControllerReg
import Synchronization

import struct CControllerRegHeader.cr_problem

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The problem records (`cr_problem`) of one failure with several problems, written once, at the
/// first request for any of them, and shared by the thread's last error and every `cr_error` kept
/// from it: one writer for `cr_last_error_problem` and `cr_error_problem`, whichever is called first.
///
/// The failure (`ConfigError`, self-contained: its problem store holds every byte its records are
/// written from) is kept until then and dropped once the records are written. Any thread may ask
/// (a kept `cr_error` travels with a binding's exception): the first request writes under the lock,
/// later ones read what it wrote.
final class ProblemRecords: @unchecked Sendable {
    /// How many problems the failure has.
    let count: Int
    /// Kept out of the object (a class's `var`s are checked for exclusive access at every use).
    private struct State {
        /// The failure, until its records are written.
        var error: ConfigError?
        /// The records and their strings (the records' `file`, `message` and `suggestion` point
        /// there), and how many were written (`count` unless memory ran short).
        var problems: UnsafeMutablePointer<cr_problem>?
        var strings: UnsafeMutableRawPointer?
        var written = 0
    }
    private let state: UnsafeMutablePointer<State>
    /// Whether the records are written (set, releasing, once they are; read, acquiring, without the
    /// lock: after the first request a read takes no lock).
    private let ready: Atomic<Bool>
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// Records of `error`, written when first asked for.
    init(pending error: ConfigError) {
        count = error.diagnostics.count
        state = .allocate(capacity: 1)
        state.initialize(to: State(error: error))
        ready = Atomic(false)
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    /// Records already written: `problems` (`count` of them) and `strings` become this object's.
    init(problems: UnsafeMutablePointer<cr_problem>, strings: UnsafeMutableRawPointer?, count: Int) {
        self.count = count
        state = .allocate(capacity: 1)
        state.initialize(to: State(problems: problems, strings: strings, written: count))
        ready = Atomic(true)
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        free(state.pointee.problems)
        free(state.pointee.strings)
        state.deinitialize(count: 1)
        state.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Record `index`, every record written now if none is yet; nil when `index` is out of range.
    func problem(_ index: Int) -> UnsafePointer<cr_problem>? {
        guard index >= 0, index < count else { return nil }
        if !ready.load(ordering: .acquiring) { writeOnce() }
        guard let problems = state.pointee.problems, index < state.pointee.written else { return nil }
        return UnsafePointer(problems + index)
    }

    /// The records and how many there are, once they are written (nil before).
    var written: (UnsafePointer<cr_problem>, Int)? {
        guard ready.load(ordering: .acquiring), let p = state.pointee.problems else { return nil }
        return (UnsafePointer(p), state.pointee.written)
    }

    /// Writes every record (the first caller; a caller that waited on the lock finds them written).
    private func writeOnce() {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard !ready.load(ordering: .relaxed), let error = state.pointee.error else { return }
        state.pointee.error = nil
        let out = LastError.Written(count: count)
        // Each message written straight into the records' strings.
        error.writeEachRecord(into: out.strings) { out.addWritten($0, message: $1, suggestion: $2) }
        let (p, s, n) = out.take()
        state.pointee.problems = p
        state.pointee.strings = UnsafeMutableRawPointer(s)
        state.pointee.written = n
        ready.store(true, ordering: .releasing)
    }

    /// A copy of `count` records already written (`cr_problem`s whose strings are anywhere): the
    /// records of a one-problem failure, whose thread record holds them itself.
    static func copying(_ source: UnsafePointer<cr_problem>, count: Int) -> ProblemRecords? {
        var bytes = 0
        for i in 0..<count {
            bytes += strlen(source[i].file) + 1 + strlen(source[i].message) + 1
            if let s = source[i].suggestion { bytes += strlen(s) + 1 }
        }
        guard let p = malloc(max(count, 1) * MemoryLayout<cr_problem>.stride), let raw = malloc(max(bytes, 1)) else {
            return nil
        }
        let problems = p.bindMemory(to: cr_problem.self, capacity: max(count, 1))
        var at = raw.assumingMemoryBound(to: CChar.self)
        func copy(_ s: UnsafePointer<CChar>) -> UnsafePointer<CChar> {
            let n = strlen(s) + 1
            memcpy(at, s, n)
            defer { at += n }
            return UnsafePointer(at)
        }
        for i in 0..<count {
            let q = source[i]
            (problems + i).initialize(
                to: cr_problem(
                    code: q.code, file: copy(q.file), line: q.line, column: q.column, message: copy(q.message),
                    suggestion: q.suggestion.map { copy($0) }))
        }
        return ProblemRecords(problems: problems, strings: raw, count: count)
    }
}

/// A `cr_error`: a failure taken from the thread's last error, the caller's until `cr_error_free`.
/// Its code and message are copies; its records are shared with the thread's last error (the same
/// `ProblemRecords`), so taking one writes none and a record is written once for both.
final class KeptError {
    let code: Int32
    let message: UnsafeMutablePointer<CChar>
    /// nil: the failure has no problem record (an out-of-memory failure).
    let records: ProblemRecords?

    init(code: Int32, message: UnsafeMutablePointer<CChar>, records: ProblemRecords?) {
        self.code = code
        self.message = message
        self.records = records
    }

    deinit { free(message) }

    /// The error behind a `cr_error` pointer.
    static func from(_ p: OpaquePointer?) -> KeptError? {
        guard let p else { return nil }
        return Unmanaged<KeptError>.fromOpaque(UnsafeRawPointer(p)).takeUnretainedValue()
    }
}

@_cdecl("cr_last_error_keep")
public func cr_last_error_keep() -> OpaquePointer? {
    guard let kept = LastError.keep() else { return nil }
    return OpaquePointer(Unmanaged.passRetained(kept).toOpaque())
}

@_cdecl("cr_error_code")
public func cr_error_code(_ error: OpaquePointer?) -> Int32 {
    KeptError.from(error)?.code ?? 0
}

private let noMessage: StaticString = ""

@_cdecl("cr_error_message")
public func cr_error_message(_ error: OpaquePointer?) -> UnsafePointer<CChar> {
    if let e = KeptError.from(error) { return UnsafePointer(e.message) }
    return UnsafeRawPointer(noMessage.utf8Start).assumingMemoryBound(to: CChar.self)
}

@_cdecl("cr_error_count")
public func cr_error_count(_ error: OpaquePointer?) -> Int {
    KeptError.from(error)?.records?.count ?? 0
}

@_cdecl("cr_error_problem")
public func cr_error_problem(_ error: OpaquePointer?, _ index: Int) -> UnsafePointer<cr_problem>? {
    KeptError.from(error)?.records?.problem(index)
}

@_cdecl("cr_error_free")
public func cr_error_free(_ error: OpaquePointer?) {
    guard let error else { return }
    Unmanaged<KeptError>.fromOpaque(UnsafeRawPointer(error)).release()
}
