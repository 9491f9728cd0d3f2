#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Problems kept as small fixed-size records: code, place (a file's index, 32-bit line and
/// column), and where the message's and the suggestion's bytes are (or, for the kinds a load
/// reports by the thousand, the pieces its message is written from when it is read:
/// `MessageForm`). A `Diagnostic` is a store and
/// a record's index: a load that reports thousands of problems keeps one record and the message's
/// bytes per problem (no `String`, no struct of references each), and the joined text and the C
/// ABI's records are written from the records' bytes.
///
/// Records are kept in chunks that double in size and bytes in chunks that never move, so adding
/// one copies nothing already kept. Written by one thread while a load (or one call) reports its
/// problems; records are only ever added, never changed, so the diagnostics handed out read the
/// same bytes from any thread once the failure is thrown.
package final class ProblemStore: @unchecked Sendable {
    /// One problem.
    struct Record {
        var code: Int32
        /// Index into `files`, or `none`.
        var file: UInt32
        /// Line and column (`wide` holds them when one does not fit 32 bits: `wideMark`).
        var line: UInt32
        var column: UInt32
        /// The message's bytes.
        var message: UnsafePointer<UInt8>?
        var messageCount: UInt32
        /// The suggestion's byte count (`none`: no suggestion).
        var suggestionCount: UInt32
        var suggestion: UnsafePointer<UInt8>?
        /// How the message is kept (`MessageForm`): its bytes, or the pieces it is written from
        /// (three 32-bit counts, then the pieces' bytes).
        var form: UInt8
    }

    /// "None" in a record's file and suggestion fields.
    static let none = UInt32.max
    /// A line written here means the place is in `wide`.
    static let wideMark = UInt32.max
    /// The bytes of a chunk of text (a longer piece gets a chunk of its own size).
    private static let chunkBytes = 64 * 1024
    /// Records per chunk (the first chunk grows up to this many by `realloc`).
    private static let chunkShift = 10
    private static let chunkRecords = 1 << chunkShift

    /// Kept out of the object (a class's `var`s are checked for exclusive access at every use).
    private struct State {
        /// Record chunks of `chunkRecords` (the first one holds `firstCapacity` until it is full).
        var chunks: UnsafeMutablePointer<UnsafeMutablePointer<Record>>
        var chunkCount = 1
        var chunkCapacity = 1
        var firstCapacity: Int
        var count = 0
        /// Where the next bytes go, and how many the current byte chunk has left.
        var cursor: UnsafeMutablePointer<UInt8>?
        var left = 0
        var byteChunks: [UnsafeMutablePointer<UInt8>] = []
        /// The files problems are placed in, and each name's bytes.
        var files: [String] = []
        var fileBytes: [UnsafeBufferPointer<UInt8>] = []
        /// Paths of the records that have one (cycles, lifetimes: a few per load): the record's
        /// index and its names packed (`PathNames`, in the byte chunks), in the order of the
        /// indices (a record is given its path as it is added).
        var paths: [(index: Int, names: UnsafeBufferPointer<UInt8>)] = []
        /// Lines and columns that do not fit 32 bits, by record index.
        var wide: [Int: (line: Int, column: Int)] = [:]
        /// The size of the first byte chunk.
        var firstBytes: Int
    }
    private let state: UnsafeMutablePointer<State>

    /// An empty store with room for `capacity` records and `bytes` bytes of text before it
    /// allocates more.
    package init(capacity: Int = 64, bytes: Int = 4096) {
        let first = min(max(capacity, 1), ProblemStore.chunkRecords)
        let chunks = ProblemStore.allocate(1, of: UnsafeMutablePointer<Record>.self)
        chunks.initialize(to: ProblemStore.allocate(first, of: Record.self))
        state = .allocate(capacity: 1)
        state.initialize(to: State(chunks: chunks, firstCapacity: first, firstBytes: max(bytes, 16)))
    }

    private static func allocate<T>(_ n: Int, of: T.Type) -> UnsafeMutablePointer<T> {
        guard let p = malloc(n * MemoryLayout<T>.stride) else {
            fatalError("controllerreg: out of memory (\(n) problem records)")
        }
        return p.bindMemory(to: T.self, capacity: n)
    }

    deinit {
        for k in 0..<state.pointee.chunkCount { free(state.pointee.chunks[k]) }
        free(state.pointee.chunks)
        for c in state.pointee.byteChunks { free(c) }
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// The number of records.
    var count: Int { state.pointee.count }

    /// Where record `i` is.
    @inline(__always) private func slot(_ i: Int) -> UnsafeMutablePointer<Record> {
        state.pointee.chunks[i >> ProblemStore.chunkShift] + (i & (ProblemStore.chunkRecords - 1))
    }

    /// Record `i`.
    @inline(__always) func record(_ i: Int) -> Record { slot(i).pointee }

    /// Bytes of a record.
    @inline(__always) func bytes(at p: UnsafePointer<UInt8>?, count: UInt32) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: p, count: Int(count))
    }

    /// Room for `n` bytes that never moves.
    @inline(__always) private func room(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        if n > state.pointee.left || state.pointee.cursor == nil { newByteChunk(n) }
        let at = state.pointee.cursor!
        state.pointee.cursor = at + n
        state.pointee.left -= n
        return at
    }

    @inline(never)
    private func newByteChunk(_ n: Int) {
        let size = max(state.pointee.byteChunks.isEmpty ? state.pointee.firstBytes : ProblemStore.chunkBytes, n)
        guard let c = malloc(size) else { fatalError("controllerreg: out of memory (\(size) bytes of problem text)") }
        let p = c.assumingMemoryBound(to: UInt8.self)
        state.pointee.byteChunks.append(p)
        state.pointee.cursor = p
        state.pointee.left = size
    }

    /// Copies `b` in; where the copy is.
    private func keep(_ b: UnsafeBufferPointer<UInt8>) -> UnsafePointer<UInt8> {
        let n = b.count
        let at = room(n)
        if n > 0, let p = b.baseAddress { memcpy(at, p, n) }
        return UnsafePointer(at)
    }

    /// Copies `b` in if it is a message kept as it is (at most `Diagnostic.maxMessageBytes`, well-formed UTF-8, no NUL), a
    /// word at a time, checked as it is copied; nil (nothing kept) otherwise.
    func keepMessage(_ b: UnsafeBufferPointer<UInt8>) -> UnsafePointer<UInt8>? {
        let n = b.count
        guard n <= Diagnostic.maxMessageBytes else { return nil }
        guard n >= 8, let p = b.baseAddress else {
            return TextBuffer.isKeepable(b) ? keep(b) : nil
        }
        if n > state.pointee.left || state.pointee.cursor == nil { newByteChunk(n) }
        let to = state.pointee.cursor!
        let ones: UInt64 = 0x0101_0101_0101_0101
        var flags: UInt64 = 0
        var i = 0
        let from = UnsafeRawPointer(p), out = UnsafeMutableRawPointer(to)
        while i < n - 8 {
            let w = from.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            out.storeBytes(of: w, toByteOffset: i, as: UInt64.self)
            flags |= w | ((w &- ones) & ~w)
            i += 8
        }
        let w = from.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
        out.storeBytes(of: w, toByteOffset: n - 8, as: UInt64.self)
        flags |= w | ((w &- ones) & ~w)
        // Not all ASCII without NUL: kept only when it is well-formed UTF-8 without NUL.
        if flags & 0x8080_8080_8080_8080 != 0 && !TextBuffer.isKeepable(b) { return nil }
        state.pointee.cursor = to + n
        state.pointee.left -= n
        return UnsafePointer(to)
    }

    /// Room for one more record.
    @inline(__always) private func nextSlot() -> UnsafeMutablePointer<Record> {
        let i = state.pointee.count
        if i == state.pointee.firstCapacity || (i > state.pointee.firstCapacity && i & (ProblemStore.chunkRecords - 1) == 0) {
            newRecordChunk(i)
        }
        return slot(i)
    }

    /// Room for record `i`: the first chunk grown to `chunkRecords`, or a new chunk.
    @inline(never)
    private func newRecordChunk(_ i: Int) {
        let size = MemoryLayout<Record>.stride
        if i < ProblemStore.chunkRecords {
            let n = min(ProblemStore.chunkRecords, max(i * 4, 64))
            guard let c = realloc(state.pointee.chunks[0], n * size) else {
                fatalError("controllerreg: out of memory (\(n) problem records)")
            }
            state.pointee.chunks[0] = c.bindMemory(to: Record.self, capacity: n)
            state.pointee.firstCapacity = n
            return
        }
        if state.pointee.chunkCount == state.pointee.chunkCapacity {
            let c = state.pointee.chunkCapacity * 2
            guard let bigger = realloc(state.pointee.chunks, c * MemoryLayout<UnsafeMutablePointer<Record>>.stride) else {
                fatalError("controllerreg: out of memory (\(c) problem record chunks)")
            }
            state.pointee.chunks = bigger.assumingMemoryBound(to: UnsafeMutablePointer<Record>.self)
            state.pointee.chunkCapacity = c
        }
        state.pointee.chunks[state.pointee.chunkCount] = ProblemStore.allocate(ProblemStore.chunkRecords, of: Record.self)
        state.pointee.chunkCount += 1
    }

    /// The index of `file` in `files` (the last one is tried first: a load's problems are in
    /// one file, or in a few, one after another).
    private func fileIndex(_ file: String) -> UInt32 {
        let n = state.pointee.files.count
        if n > 0 && state.pointee.files[n - 1] == file { return UInt32(n - 1) }
        if let i = state.pointee.files.firstIndex(of: file) { return UInt32(i) }
        let at = Diagnostic.withBytes(of: file) { keep($0) }
        state.pointee.files.append(file)
        state.pointee.fileBytes.append(UnsafeBufferPointer(start: at, count: file.utf8.count))
        return UInt32(n)
    }

    /// Adds a problem whose message is `message`'s bytes as they are (the caller has capped
    /// and checked them); its index.
    package func add(
        _ code: ErrorCode, message: UnsafeBufferPointer<UInt8>, file: String?, line: Int, column: Int,
        suggestion: String?, path: [String] = []
    ) -> Int {
        let i = add(
            code, kept: keep(message), count: message.count, file: file, line: line, column: column, suggestion: suggestion)
        if !path.isEmpty { setPath(i, PathNames(path)) }
        return i
    }

    /// Gives record `i` the names of `path` (copied in as they are packed).
    package func setPath(_ i: Int, _ path: PathNames) {
        guard path.count > 0 else { return }
        let names = UnsafeBufferPointer(start: keep(path.buffer.bytes), count: path.buffer.count)
        if let last = state.pointee.paths.last, last.index >= i {
            // (Not the newest record: kept in index order all the same.)
            state.pointee.paths.removeAll { $0.index == i }
            let at = state.pointee.paths.firstIndex { $0.index > i } ?? state.pointee.paths.count
            state.pointee.paths.insert((i, names), at: at)
        } else {
            state.pointee.paths.append((i, names))
        }
    }

    /// The index problems of `file` record it by (`add(_:form:entry:key:name:file:line:column:suggestion:)`:
    /// a caller adding many problems of one file asks once, not once per problem).
    package func fileIndex(of file: String) -> UInt32 { fileIndex(file) }

    /// Adds a problem whose message is the `count` bytes at `kept` (kept in this store); its index.
    func add(
        _ code: ErrorCode, kept: UnsafePointer<UInt8>, count: Int, file: String?, line: Int, column: Int,
        suggestion: String?
    ) -> Int {
        add(
            code, kept: kept, count: count, file: file.map { fileIndex($0) } ?? ProblemStore.none, line: line, column: column,
            suggestion: suggestion)
    }

    /// `add(_:kept:count:file:line:column:suggestion:)` with the file's index (`fileIndex(of:)`;
    /// `none`: no place).
    private func add(
        _ code: ErrorCode, kept: UnsafePointer<UInt8>, count: Int, file: UInt32, line: Int, column: Int,
        suggestion: String?
    ) -> Int {
        let i = state.pointee.count
        let slot = nextSlot()
        var r = Record(
            code: code.rawValue, file: ProblemStore.none, line: 0, column: 0, message: kept,
            messageCount: UInt32(truncatingIfNeeded: count), suggestionCount: ProblemStore.none, suggestion: nil,
            form: MessageForm.text.rawValue)
        if file != ProblemStore.none {
            r.file = file
            if line >= 0 && line < Int(ProblemStore.wideMark) && column >= 0 && column <= Int(UInt32.max) {
                r.line = UInt32(truncatingIfNeeded: line)
                r.column = UInt32(truncatingIfNeeded: column)
            } else {
                r.line = ProblemStore.wideMark
                state.pointee.wide[i] = (line, column)
            }
        }
        if let suggestion {
            r.suggestion = Diagnostic.withBytes(of: suggestion) { keep($0) }
            r.suggestionCount = UInt32(truncatingIfNeeded: suggestion.utf8.count)
        }
        slot.initialize(to: r)
        state.pointee.count = i + 1
        return i
    }

    /// Adds a problem whose message is written from `entry`, `key` and `name` when it is read
    /// (`form`); its index. The pieces are copied as they are: the checks a message gets are
    /// made when it is written (`writeMessage`).
    package func add(
        _ code: ErrorCode, form: MessageForm, entry: UnsafeBufferPointer<UInt8>, key: UnsafeBufferPointer<UInt8>,
        name: UnsafeBufferPointer<UInt8>, file: String?, line: Int, column: Int, suggestion: String?
    ) -> Int {
        add(
            code, form: form, entry: entry, key: key, name: name, file: file.map { fileIndex($0) } ?? ProblemStore.none,
            line: line, column: column, suggestion: suggestion)
    }

    /// `add(_:form:entry:key:name:file:line:column:suggestion:)` with the file's index
    /// (`fileIndex(of:)`; `none`: no place).
    package func add(
        _ code: ErrorCode, form: MessageForm, entry: UnsafeBufferPointer<UInt8>, key: UnsafeBufferPointer<UInt8>,
        name: UnsafeBufferPointer<UInt8>, file: UInt32, line: Int, column: Int, suggestion: String?
    ) -> Int {
        let header = 3 * MemoryLayout<UInt32>.size
        let n = header + entry.count + key.count + name.count
        let at = room(n)
        let raw = UnsafeMutableRawPointer(at)
        raw.storeBytes(of: UInt32(truncatingIfNeeded: entry.count), as: UInt32.self)
        raw.storeBytes(of: UInt32(truncatingIfNeeded: key.count), toByteOffset: 4, as: UInt32.self)
        raw.storeBytes(of: UInt32(truncatingIfNeeded: name.count), toByteOffset: 8, as: UInt32.self)
        _ = ProblemStore.copy(name, to: ProblemStore.copy(key, to: ProblemStore.copy(entry, to: at + header)))
        let i = add(code, kept: UnsafePointer(at), count: n, file: file, line: line, column: column, suggestion: suggestion)
        slot(i).pointee.form = form.rawValue
        return i
    }

    /// The high bit of each byte of a word.
    fileprivate static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// A word's bytes looked at: a byte with its high bit set, or one a subtraction borrows
    /// through (a zero), sets that byte's high bit.
    @inline(__always) private static func flags(_ w: UInt64) -> UInt64 {
        w | ((w &- 0x0101_0101_0101_0101) & ~w)
    }

    /// The same for 4 bytes.
    @inline(__always) private static func flags(_ w: UInt32) -> UInt64 {
        UInt64(w | ((w &- 0x0101_0101) & ~w)) & 0x8080_8080
    }

    /// `b`'s bytes looked at (into `flags`), a word at a time: none of them is a NUL or non-ASCII
    /// when `flags & highBits` stays 0 (`TextBuffer.isKeepable` too).
    @inline(__always) fileprivate static func flag(_ b: UnsafeBufferPointer<UInt8>, _ flags: inout UInt64) {
        guard let p = b.baseAddress, b.count > 0 else { return }
        let from = UnsafeRawPointer(p), n = b.count
        if n >= 8 {
            var i = 0
            while i < n - 8 {
                flags |= ProblemStore.flags(from.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                i += 8
            }
            flags |= ProblemStore.flags(from.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self))
        } else if n >= 4 {
            flags |= ProblemStore.flags(from.loadUnaligned(as: UInt32.self))
            flags |= ProblemStore.flags(from.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self))
        } else {
            for k in 0..<n { flags |= UInt64(p[k]) | (p[k] == 0 ? 0x80 : 0) }
        }
    }

    /// Copies `piece` to `to`; where the next piece goes.
    @inline(__always)
    private static func copy(_ piece: UnsafeBufferPointer<UInt8>, to: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8>
    {
        guard let p = piece.baseAddress, piece.count > 0 else { return to }
        if piece.count <= 16 { TextBuffer.copySmall(to, p, piece.count) } else { memcpy(to, p, piece.count) }
        return to + piece.count
    }

    /// Writes record `i`'s message into `text`: its bytes, or the words of its form written from
    /// its pieces now, with the checks `Diagnostic(_:written:)` makes of a message written at once
    /// (kept as written when it is at most `Diagnostic.maxMessageBytes` of well-formed UTF-8
    /// without NUL; otherwise what `Diagnostic(_:_:)` makes of it). The words are ASCII, so a
    /// message whose pieces are ASCII without NUL and whose longest wording fits the cap is kept
    /// without a look at the bytes written (a host reading every record of a load writes
    /// thousands).
    package func writeMessage(_ i: Int, into text: TextBuffer) { writeMessage(of: record(i), into: text) }

    /// `writeMessage(_:into:)` of a record already read.
    @inline(__always)
    func writeMessage(of r: Record, into text: TextBuffer) {
        let all = bytes(at: r.message, count: r.messageCount)
        guard r.form != MessageForm.text.rawValue, let form = MessageForm(rawValue: r.form), let p = all.baseAddress else {
            text.append(all)
            return
        }
        let raw = UnsafeRawPointer(p)
        let e = Int(raw.loadUnaligned(as: UInt32.self))
        let k = Int(raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        let n = Int(raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        let start = text.count
        let pieces = p + 12
        let suggestion = r.suggestionCount == ProblemStore.none ? nil : bytes(at: r.suggestion, count: r.suggestionCount)
        let bound = form.write(
            entry: UnsafeBufferPointer(start: pieces, count: e), key: UnsafeBufferPointer(start: pieces + e, count: k),
            name: UnsafeBufferPointer(start: pieces + e + k, count: n), suggestion: suggestion, into: text)
        // Pieces of ASCII without NUL (the pieces are one run of bytes, the suggestion another),
        // set in words of ASCII, no longer than the cap: the message is kept as written, its
        // bytes not looked at again.
        if bound <= Diagnostic.maxMessageBytes {
            var flags: UInt64 = 0
            ProblemStore.flag(UnsafeBufferPointer(start: pieces, count: e + k + n), &flags)
            if let suggestion { ProblemStore.flag(suggestion, &flags) }
            if flags & ProblemStore.highBits == 0 { return }
        }
        let written = UnsafeBufferPointer(rebasing: text.bytes[start...])
        if written.count <= Diagnostic.maxMessageBytes && TextBuffer.isKeepable(written) { return }
        let repaired = Diagnostic.capped(Diagnostic.withoutNul(String(decoding: written, as: UTF8.self)))
        text.truncate(to: start)
        text.append(repaired)
    }

    /// Record `i`'s message (written now when it is kept as pieces).
    func message(_ i: Int) -> String {
        let r = record(i)
        if r.form == MessageForm.text.rawValue {
            return String(decoding: bytes(at: r.message, count: r.messageCount), as: UTF8.self)
        }
        let text = TextBuffer(capacity: 128)
        writeMessage(i, into: text)
        return text.string
    }

    /// Record `i`'s suggestion bytes, if it has one.
    @inline(__always) func suggestion(_ i: Int) -> UnsafeBufferPointer<UInt8>? {
        let r = record(i)
        return r.suggestionCount == ProblemStore.none ? nil : bytes(at: r.suggestion, count: r.suggestionCount)
    }

    /// The bytes of file name `f` (an index from a record).
    @inline(__always) func fileName(_ f: UInt32) -> UnsafeBufferPointer<UInt8> { state.pointee.fileBytes[Int(f)] }

    /// The file name `f` (an index from a record).
    func file(_ f: UInt32) -> String { state.pointee.files[Int(f)] }

    /// Record `i`'s line and column (for a record with a place).
    @inline(__always) func lineAndColumn(_ i: Int) -> (line: Int, column: Int) { lineAndColumn(of: record(i), i) }

    /// The line and column of `r`, record `i`.
    @inline(__always) func lineAndColumn(of r: Record, _ i: Int) -> (line: Int, column: Int) {
        if r.line == ProblemStore.wideMark { return state.pointee.wide[i] ?? (0, 0) }
        return (Int(r.line), Int(r.column))
    }

    /// Record `i`'s path (empty for most).
    func path(_ i: Int) -> [String] {
        let paths = state.pointee.paths
        // Binary search by record index.
        var lo = 0, hi = paths.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if paths[mid].index < i { lo = mid + 1 } else { hi = mid }
        }
        guard lo < paths.count, paths[lo].index == i else { return [] }
        return PathNames.strings(paths[lo].names)
    }
}

extension TextBuffer {
    /// Whether `b` is well-formed UTF-8 without a NUL byte.
    static func isKeepable(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let p = b.baseAddress else { return true }
        return isASCIIWithoutNul(p, b.count) || (memchr(p, 0, b.count) == nil && isWellFormed(p, b.count))
    }

    /// Whether the `n` bytes at `p` are all ASCII and none is NUL (most messages), a word at a
    /// time (`ProblemStore.flag`).
    private static func isASCIIWithoutNul(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        var flags: UInt64 = 0
        ProblemStore.flag(UnsafeBufferPointer(start: p, count: n), &flags)
        return flags & ProblemStore.highBits == 0
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
