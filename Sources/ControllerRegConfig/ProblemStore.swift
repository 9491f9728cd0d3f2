#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Problems kept as small fixed-size records: code, place (a file's index, 32-bit line and
/// column), and 32-bit offsets of the message's and the suggestion's bytes in one byte buffer. A
/// `Diagnostic` is a store and a record's index: a load that reports thousands of problems keeps
/// one record and the message's bytes per problem (no `String`, no struct of references each), and
/// the joined text and the C ABI's records are written from the records' bytes.
///
/// Written by one thread while a load (or one call) reports its problems; records are only ever
/// added, never changed, so the diagnostics handed out read the same bytes from any thread once
/// the failure is thrown.
package final class ProblemStore: @unchecked Sendable {
    /// One problem.
    struct Record {
        var code: Int32
        /// Index into `files`, or `noPlace`.
        var file: UInt32
        /// Line and column (`wide` holds them when one does not fit 32 bits: `wideMark`).
        var line: UInt32
        var column: UInt32
        /// The message's bytes.
        var message: UInt32
        var messageCount: UInt32
        /// The suggestion's bytes (`suggestionCount == noPlace`: none).
        var suggestion: UInt32
        var suggestionCount: UInt32
    }

    /// "None" in a record's file, suggestion and path fields.
    static let none = UInt32.max
    /// A line written here means the place is in `wide`.
    static let wideMark = UInt32.max

    /// Kept out of the object (a class's `var`s are checked for exclusive access at every use).
    private struct State {
        var records: UnsafeMutablePointer<Record>
        var count: Int
        var capacity: Int
        var bytes: UnsafeMutablePointer<UInt8>
        var byteCount: Int
        var byteCapacity: Int
        /// The files problems are placed in, and where each name's bytes are in `bytes`.
        var files: [String] = []
        var fileBytes: [(at: UInt32, count: UInt32)] = []
        /// Paths of the records that have one (cycles, lifetimes: a few per load), by index.
        var paths: [Int: [String]] = [:]
        /// Lines and columns that do not fit 32 bits, by record index.
        var wide: [Int: (line: Int, column: Int)] = [:]
    }
    private let state: UnsafeMutablePointer<State>

    /// An empty store with room for `capacity` records and `bytes` bytes of text.
    package init(capacity: Int = 16, bytes: Int = 1024) {
        let c = max(capacity, 1), b = max(bytes, 16)
        state = .allocate(capacity: 1)
        state.initialize(
            to: State(
                records: ProblemStore.allocate(c, of: Record.self), count: 0, capacity: c,
                bytes: ProblemStore.allocate(b, of: UInt8.self), byteCount: 0, byteCapacity: b))
    }

    /// The store in `slot`, made at its first use (most changes record no problem).
    package static func made(_ slot: inout ProblemStore?) -> ProblemStore {
        if let s = slot { return s }
        let s = ProblemStore()
        slot = s
        return s
    }

    deinit {
        free(state.pointee.records)
        free(state.pointee.bytes)
        state.deinitialize(count: 1)
        state.deallocate()
    }

    private static func allocate<T>(_ n: Int, of: T.Type) -> UnsafeMutablePointer<T> {
        guard let p = malloc(n * MemoryLayout<T>.stride) else {
            fatalError("controllerreg: out of memory (\(n) problem records)")
        }
        return p.bindMemory(to: T.self, capacity: n)
    }

    /// The number of records.
    var count: Int { state.pointee.count }

    /// Record `i`.
    @inline(__always) func record(_ i: Int) -> Record { state.pointee.records[i] }

    /// Bytes at `at` (valid until the next record is added).
    @inline(__always) func bytes(at: UInt32, count: UInt32) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: state.pointee.bytes + Int(at), count: Int(count))
    }

    /// Copies `b` in; where it starts.
    private func keep(_ b: UnsafeBufferPointer<UInt8>) -> UInt32 {
        let n = b.count
        if state.pointee.byteCount + n > state.pointee.byteCapacity { growBytes(state.pointee.byteCount + n) }
        let at = state.pointee.byteCount
        if n > 0, let p = b.baseAddress { memcpy(state.pointee.bytes + at, p, n) }
        state.pointee.byteCount = at + n
        return UInt32(truncatingIfNeeded: at)
    }

    @inline(never)
    private func growBytes(_ needed: Int) {
        var c = state.pointee.byteCapacity
        while c < needed { c *= 2 }
        guard needed <= Int(UInt32.max), let bigger = realloc(state.pointee.bytes, c) else {
            fatalError("controllerreg: out of memory (\(c) bytes of problem text)")
        }
        state.pointee.bytes = bigger.assumingMemoryBound(to: UInt8.self)
        state.pointee.byteCapacity = c
    }

    @inline(never)
    private func growRecords() {
        let c = state.pointee.capacity * 2
        guard let bigger = realloc(state.pointee.records, c * MemoryLayout<Record>.stride) else {
            fatalError("controllerreg: out of memory (\(c) problem records)")
        }
        state.pointee.records = bigger.assumingMemoryBound(to: Record.self)
        state.pointee.capacity = c
    }

    /// The index of `file` in `files` (the last one is tried first: a load's problems are in
    /// one file, or in a few, one after another).
    private func fileIndex(_ file: String) -> UInt32 {
        let n = state.pointee.files.count
        if n > 0 && state.pointee.files[n - 1] == file { return UInt32(n - 1) }
        if let i = state.pointee.files.firstIndex(of: file) { return UInt32(i) }
        let at = Diagnostic.withBytes(of: file) { keep($0) }
        state.pointee.files.append(file)
        state.pointee.fileBytes.append((at, UInt32(truncatingIfNeeded: file.utf8.count)))
        return UInt32(n)
    }

    /// Adds a problem whose message is `message`'s bytes as they are (the caller has capped
    /// and checked them); its index.
    package func add(
        _ code: ErrorCode, message: UnsafeBufferPointer<UInt8>, file: String?, line: Int, column: Int,
        suggestion: String?, path: [String] = []
    ) -> Int {
        let i = state.pointee.count
        if i == state.pointee.capacity { growRecords() }
        var r = Record(
            code: code.rawValue, file: ProblemStore.none, line: 0, column: 0, message: 0, messageCount: 0,
            suggestion: 0, suggestionCount: ProblemStore.none)
        if let file {
            r.file = fileIndex(file)
            if line >= 0 && line < Int(ProblemStore.wideMark) && column >= 0 && column <= Int(UInt32.max) {
                r.line = UInt32(truncatingIfNeeded: line)
                r.column = UInt32(truncatingIfNeeded: column)
            } else {
                r.line = ProblemStore.wideMark
                state.pointee.wide[i] = (line, column)
            }
        }
        r.message = keep(message)
        r.messageCount = UInt32(truncatingIfNeeded: message.count)
        if let suggestion {
            r.suggestion = Diagnostic.withBytes(of: suggestion) { keep($0) }
            r.suggestionCount = UInt32(truncatingIfNeeded: suggestion.utf8.count)
        }
        if !path.isEmpty { state.pointee.paths[i] = path }
        (state.pointee.records + i).initialize(to: r)
        state.pointee.count = i + 1
        return i
    }

    /// Record `i`'s message bytes.
    @inline(__always) func message(_ i: Int) -> UnsafeBufferPointer<UInt8> {
        let r = state.pointee.records[i]
        return bytes(at: r.message, count: r.messageCount)
    }

    /// Record `i`'s suggestion bytes, if it has one.
    @inline(__always) func suggestion(_ i: Int) -> UnsafeBufferPointer<UInt8>? {
        let r = state.pointee.records[i]
        return r.suggestionCount == ProblemStore.none ? nil : bytes(at: r.suggestion, count: r.suggestionCount)
    }

    /// The bytes of file name `f` (an index from a record).
    @inline(__always) func fileName(_ f: UInt32) -> UnsafeBufferPointer<UInt8> {
        let b = state.pointee.fileBytes[Int(f)]
        return bytes(at: b.at, count: b.count)
    }

    /// The file name `f` (an index from a record).
    func file(_ f: UInt32) -> String { state.pointee.files[Int(f)] }

    /// Record `i`'s line and column (for a record with a place).
    @inline(__always) func lineAndColumn(_ i: Int) -> (line: Int, column: Int) {
        let r = state.pointee.records[i]
        if r.line == ProblemStore.wideMark { return state.pointee.wide[i] ?? (0, 0) }
        return (Int(r.line), Int(r.column))
    }

    /// Record `i`'s path (empty for most).
    func path(_ i: Int) -> [String] { state.pointee.paths.isEmpty ? [] : state.pointee.paths[i] ?? [] }
}

extension TextBuffer {
    /// Whether the bytes written can be kept as a message as they are: at most
    /// `Diagnostic.maxMessageBytes`, well-formed UTF-8, no NUL byte.
    func isKeepableMessage() -> Bool {
        let b = bytes
        guard b.count <= Diagnostic.maxMessageBytes else { return false }
        guard let p = b.baseAddress else { return true }
        return TextBuffer.isASCIIWithoutNul(p, b.count) || (memchr(p, 0, b.count) == nil && TextBuffer.isWellFormed(p, b.count))
    }

    /// Whether the `n` bytes at `p` are all ASCII and none is NUL (most messages), a word at a
    /// time: a byte with its high bit set, or one a subtraction borrows through (a zero), sets a
    /// high bit of `flags`.
    private static func isASCIIWithoutNul(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        var flags: UInt64 = 0
        if n < 8 {
            for i in 0..<n { flags |= UInt64(p[i]) | (p[i] == 0 ? 0x80 : 0) }
            return flags & 0x80 == 0
        }
        var i = 0
        while i < n - 8 {
            let w = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
            flags |= w | ((w &- ones) & ~w)
            i += 8
        }
        // The last 8 bytes (overlapping the word before: read again, no byte loop).
        let w = UnsafeRawPointer(p + n - 8).loadUnaligned(as: UInt64.self)
        flags |= w | ((w &- ones) & ~w)
        return flags & 0x8080_8080_8080_8080 == 0
    }

    /// Whether the `n` bytes at `p` are well-formed UTF-8 (ASCII checked a word at a time).
    private static func isWellFormed(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        var i = 0
        var high: UInt64 = 0
        while i + 8 <= n {
            high |= UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
            i += 8
        }
        while i < n {
            high |= UInt64(p[i])
            i += 1
        }
        if high & 0x8080_8080_8080_8080 == 0 { return true }
        return firstInvalidUTF8(p, from: 0, to: n) == nil
    }
}
