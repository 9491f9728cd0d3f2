#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ControllerReg

/// The calling thread's error record behind cr_last_error_code / cr_last_error_message.
enum LastError {
    final class Record {
        var code: Int32 = 0
        var message: UnsafeMutablePointer<CChar>?
        deinit { free(message) }
    }

    private static let records = ThreadLocal { Record() }

    /// This thread's record, if it has ever had an error.
    static var existing: Record? { records.existing }

    private static var record: Record { records.value }

    /// Records a failure.
    static func set(_ code: ErrorCode, _ message: String) {
        let r = record
        free(r.message)
        r.code = code.rawValue
        r.message = strdup(message)
    }

    /// Records a library error (code of its first problem, all problems in the message).
    static func set(_ error: ConfigError) { set(error.code, error.description) }

    /// Resets the record.
    static func clear() {
        guard let r = existing else { return }
        free(r.message)
        r.message = nil
        r.code = 0
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
    LastError.existing?.code ?? 0
}

private let emptyMessage: StaticString = ""

@_cdecl("cr_last_error_message")
public func cr_last_error_message() -> UnsafePointer<CChar> {
    if let m = LastError.existing?.message { return UnsafePointer(m) }
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
