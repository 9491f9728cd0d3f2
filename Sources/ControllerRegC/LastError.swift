#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ControllerReg
import struct CControllerRegHeader.cr_problem

/// The calling thread's error record behind cr_last_error_code / _message / _count / _problem.
enum LastError {
    /// One thread's record. Its problems and all their strings live in one allocation (`block`),
    /// replaced whole by the next failure.
    final class Record {
        var code: Int32 = 0
        var message: UnsafeMutablePointer<CChar>?
        var problems: UnsafeMutablePointer<cr_problem>?
        var count = 0
        var block: UnsafeMutableRawPointer?
        deinit { reset() }

        func reset() {
            free(message)
            free(block)
            message = nil
            block = nil
            problems = nil
            count = 0
            code = 0
        }
    }

    private static let records = ThreadLocal { Record() }

    /// This thread's record, if it has ever had an error.
    static var existing: Record? { records.existing }

    /// Records a failure with one problem that has no place.
    static func set(_ code: ErrorCode, _ message: String) {
        record(code, flattened: message, [Diagnostic(code, message)])
    }

    /// Records a library error: the code of its first problem, every problem in the message and
    /// in the structured list.
    static func set(_ error: ConfigError) { record(error.code, flattened: error.description, error.diagnostics) }

    private static func record(_ code: ErrorCode, flattened: String, _ diagnostics: [Diagnostic]) {
        let r = records.value
        r.reset()
        r.code = code.rawValue
        r.message = strdup(flattened)
        // One block: the cr_problem array, then every string NUL-terminated. If it cannot be
        // allocated, the code and message stand and the list is empty.
        let head = diagnostics.count * MemoryLayout<cr_problem>.stride
        var bytes = head
        for d in diagnostics {
            bytes += (d.location?.file.utf8.count ?? 0) + 1 + d.message.utf8.count + 1 + (d.suggestion.map { $0.utf8.count + 1 } ?? 0)
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
            (problems + i).initialize(to: cr_problem(
                code: d.code.rawValue, file: file,
                line: UInt32(clamping: d.location?.line ?? 0), column: UInt32(clamping: d.location?.column ?? 0),
                message: message, suggestion: suggestion))
        }
        r.block = block
        r.problems = problems
        r.count = diagnostics.count
    }

    /// Resets the record.
    static func clear() { existing?.reset() }
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
    LastError.existing?.code ?? 0
}

private let emptyMessage: StaticString = ""

@_cdecl("cr_last_error_message")
public func cr_last_error_message() -> UnsafePointer<CChar> {
    if let m = LastError.existing?.message { return UnsafePointer(m) }
    return UnsafeRawPointer(emptyMessage.utf8Start).assumingMemoryBound(to: CChar.self)
}

@_cdecl("cr_last_error_count")
public func cr_last_error_count() -> Int {
    LastError.existing?.count ?? 0
}

@_cdecl("cr_last_error_problem")
public func cr_last_error_problem(_ index: Int) -> UnsafePointer<cr_problem>? {
    guard let r = LastError.existing, let problems = r.problems, index >= 0, index < r.count else { return nil }
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
private nonisolated(unsafe) let statusNames: [UnsafePointer<CChar>] = ErrorCode.allCases.map { UnsafePointer(strdup($0.description)!) }
private let unknownStatus: StaticString = "unknown status"

@_cdecl("cr_status_name")
public func cr_status_name(_ status: Int32) -> UnsafePointer<CChar> {
    guard let code = ErrorCode(rawValue: status) else {
        return UnsafeRawPointer(unknownStatus.utf8Start).assumingMemoryBound(to: CChar.self)
    }
    return statusNames[ErrorCode.allCases.firstIndex(of: code)!]
}
