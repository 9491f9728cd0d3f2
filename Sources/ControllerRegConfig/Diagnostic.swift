#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One problem found in a config or an API call: a code, a message a person can act on, and where.
///
/// Kept as a record of a `ProblemStore` (a load's problems share one: a record and the message's
/// bytes each); the properties read the record, and setting one makes the diagnostic a record of
/// its own.
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    /// The store holding this problem's record, and the record's index.
    package let store: ProblemStore
    package let index: Int

    /// What kind of problem this is.
    public var code: ErrorCode {
        get { ErrorCode(rawValue: store.record(index).code) ?? .invalidArgument }
        set { self = Diagnostic(newValue, raw: message, at: location, suggestion: suggestion, path: path) }
    }
    /// The problem in words, without the location prefix.
    public var message: String {
        get { store.message(index) }
        set { self = Diagnostic(code, raw: newValue, at: location, suggestion: suggestion, path: path) }
    }
    /// Where the problem is, when it comes from a config file.
    public var location: SourceLocation? {
        get {
            let f = store.record(index).file
            guard f != ProblemStore.none else { return nil }
            let (line, column) = store.lineAndColumn(index)
            return SourceLocation(file: store.file(f), line: line, column: column)
        }
        set { self = Diagnostic(code, raw: message, at: newValue, suggestion: suggestion, path: path) }
    }
    /// Whether the problem has a place (`location` is not nil), read without making the location.
    package var hasPlace: Bool { store.record(index).file != ProblemStore.none }
    /// A name the user probably meant ("did you mean 'X'"), when the problem is a name that does not
    /// resolve and a close one exists; nil otherwise. The message may mention it too; this field
    /// lets hosts offer it without parsing the text (the C ABI's `cr_problem.suggestion`).
    public var suggestion: String? {
        get { store.suggestion(index).map { String(decoding: $0, as: UTF8.self) } }
        set { self = Diagnostic(code, raw: message, at: location, suggestion: newValue, path: path) }
    }
    /// The names along the problem's path, for tools that draw it: a cycle closed on its first
    /// entry (`A, B, A`), or a singleton's path to the `graph` entry it would keep; empty for
    /// other problems. At most `maxPathNames` (the first ones of a longer path).
    public var path: [String] {
        get { store.path(index) }
        set { self = Diagnostic(code, raw: message, at: location, suggestion: suggestion, path: newValue) }
    }

    /// The most names `path` keeps.
    public static let maxPathNames = 1024

    /// The longest message kept whole, in UTF-8 bytes; a longer one (a hostile 1 MB name quoted in
    /// it) keeps its first and last parts around a note of how much was left out.
    public static let maxMessageBytes = 4096

    /// Creates a diagnostic (a message longer than `maxMessageBytes` is shortened in the middle; a
    /// NUL byte in it, from a name it quotes, is written `\0`).
    public init(_ code: ErrorCode, _ message: String, at location: SourceLocation? = nil, suggestion: String? = nil) {
        self.init(code, raw: Diagnostic.capped(Diagnostic.withoutNul(message)), at: location, suggestion: suggestion)
    }

    /// A diagnostic with `path` (its first `maxPathNames` names), made in one go (no second
    /// record, as `withPath` on a new diagnostic makes).
    /// `store`: where it is recorded (a change's many share one; nil: a store of its own).
    package init(
        _ code: ErrorCode, _ message: String, at location: SourceLocation?, path: [String], in store: ProblemStore? = nil
    ) {
        let kept = Diagnostic.capped(Diagnostic.withoutNul(message))
        let names = path.count > Diagnostic.maxPathNames ? Array(path.prefix(Diagnostic.maxPathNames)) : path
        let store = store ?? ProblemStore(capacity: 1, bytes: kept.utf8.count + (location?.file.utf8.count ?? 0))
        self.store = store
        self.index = Diagnostic.withBytes(of: kept) { b in
            store.add(
                code, message: b, file: location?.file, line: location?.line ?? 0, column: location?.column ?? 0, suggestion: nil,
                path: names)
        }
    }

    /// A diagnostic of its own store whose message is `message` as it is.
    private init(_ code: ErrorCode, raw message: String, at location: SourceLocation?, suggestion: String?, path: [String] = []) {
        let s = ProblemStore(
            capacity: 1, bytes: message.utf8.count + (suggestion?.utf8.count ?? 0) + (location?.file.utf8.count ?? 0))
        self.store = s
        self.index = Diagnostic.withBytes(of: message) { b in
            s.add(
                code, message: b, file: location?.file, line: location?.line ?? 0, column: location?.column ?? 0,
                suggestion: suggestion, path: path)
        }
    }

    /// A diagnostic whose message is what `text` holds, recorded in the buffer's store (its
    /// bytes kept as they are when they are short, well-formed and hold no NUL; else the
    /// `String` `init(_:_:at:suggestion:)` would make of them).
    package init(_ code: ErrorCode, written text: TextBuffer, at location: SourceLocation? = nil, suggestion: String? = nil) {
        self.init(
            code, written: text, file: location?.file, line: location?.line ?? 0, column: location?.column ?? 0,
            suggestion: suggestion)
    }

    /// `init(_:written:at:suggestion:)` with the place's parts (nil `file`: no place).
    package init(_ code: ErrorCode, written text: TextBuffer, file: String?, line: Int, column: Int, suggestion: String? = nil) {
        let store = text.problemStore
        self.store = store
        index = Diagnostic.record(code, written: text, in: store, file: file, line: line, column: column, suggestion: suggestion)
    }

    /// The problem of a map key equal to an earlier key of the same map (`key` its bytes, at
    /// `location`; the earlier one at `firstLine`, `firstColumn` of the same file): the one rule of
    /// a repeated key, whoever finds it (`DocumentBuilder` for every map, or a pair sink that
    /// checks the top-level keys itself). Written into `text` (reused) and kept as bytes: a
    /// document that repeats its names reports every repetition.
    package static func duplicateKey(
        _ key: UnsafeBufferPointer<UInt8>, at location: SourceLocation, firstLine: Int, firstColumn: Int, text: TextBuffer
    ) -> Diagnostic {
        text.clear()
        text.append("duplicate key '")
        text.append(key)
        text.append("' (first defined at line ")
        text.append(firstLine)
        text.append(", column ")
        text.append(firstColumn)
        text.append("); remove one of them")
        return Diagnostic(.duplicate, written: text, at: location)
    }

    /// Records in `store` a problem whose message is what `text` holds: its bytes kept as they are
    /// when they are short, well-formed and hold no NUL, else the `String` made of them (capped,
    /// NULs replaced). Its index.
    private static func record(
        _ code: ErrorCode, written text: TextBuffer, in store: ProblemStore, file: String?, line: Int, column: Int,
        suggestion: String?
    ) -> Int {
        let b = text.bytes
        if let kept = store.keepMessage(b) {
            return store.add(code, kept: kept, count: b.count, file: file, line: line, column: column, suggestion: suggestion)
        }
        let kept = Diagnostic.capped(Diagnostic.withoutNul(text.string))
        return Diagnostic.withBytes(of: kept) { b in
            store.add(code, message: b, file: file, line: line, column: column, suggestion: suggestion)
        }
    }

    /// A diagnostic recorded in `store` whose message is what `text` holds (as
    /// `init(_:written:at:suggestion:)` keeps it) and whose path is `path`'s names: a cycle or
    /// lifetime problem written from names' bytes, no `String` per name.
    package init(
        _ code: ErrorCode, written text: TextBuffer, at location: SourceLocation?, path: PathNames, in store: ProblemStore
    ) {
        self.store = store
        index = Diagnostic.record(
            code, written: text, in: store, file: location?.file, line: location?.line ?? 0, column: location?.column ?? 0,
            suggestion: nil)
        store.setPath(index, path)
    }

    /// A diagnostic recorded in `store` whose message is written from `entry`, `key` and `name`
    /// when it is read (`form`: a kind a load reports by the thousand).
    package init(
        _ code: ErrorCode, form: MessageForm, entry: UnsafeBufferPointer<UInt8>, key: UnsafeBufferPointer<UInt8>,
        name: UnsafeBufferPointer<UInt8>, at location: SourceLocation?, suggestion: String? = nil, in store: ProblemStore
    ) {
        self.store = store
        index = store.add(
            code, form: form, entry: entry, key: key, name: name, file: location?.file, line: location?.line ?? 0,
            column: location?.column ?? 0, suggestion: suggestion)
    }

    /// `init(_:form:entry:key:name:at:suggestion:in:)` at `line` and `column` of the file `store`
    /// records by `file` (`ProblemStore.fileIndex(of:)`: asked once for a file's many problems).
    package init(
        _ code: ErrorCode, form: MessageForm, entry: UnsafeBufferPointer<UInt8>, key: UnsafeBufferPointer<UInt8>,
        name: UnsafeBufferPointer<UInt8>, file: UInt32, line: Int, column: Int, suggestion: borrowing String? = nil,
        in store: borrowing ProblemStore
    ) {
        // (Borrowed: a caller adding thousands passes its own, neither retained nor released per
        // problem; the suggestion's bytes are copied into the store.)
        self.store = copy store
        index = store.add(
            code, form: form, entry: entry, key: key, name: name, file: file, line: line, column: column,
            suggestion: suggestion)
    }

    /// Whether this problem is recorded in `store` (compared without taking a reference).
    @inline(__always) func isIn(_ store: ProblemStore) -> Bool { self.store === store }

    /// Equal code, message text (as `String`s compare), place, suggestion and path.
    public static func == (a: Diagnostic, b: Diagnostic) -> Bool {
        if a.store === b.store && a.index == b.index { return true }
        return a.code == b.code && a.location == b.location && a.suggestion == b.suggestion && a.path == b.path
            && a.message == b.message
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(location)
        hasher.combine(suggestion)
        hasher.combine(path)
    }

    /// `message` with each NUL byte written as the two characters `\0`, so a reader of C strings
    /// (`cr_last_error_message`, `cr_problem.message`) sees the whole message, not the part before
    /// a NUL in a quoted name (`entry name 'A\0B' contains a NUL byte`).
    static func withoutNul(_ message: String) -> String {
        let found =
            message.utf8.withContiguousStorageIfAvailable { b in
                b.count > 0 && memchr(b.baseAddress!, 0, b.count) != nil
            } ?? message.utf8.contains(0)
        guard found else { return message }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(message.utf8.count + 8)
        for byte in message.utf8 {
            if byte == 0 {
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(UInt8(ascii: "0"))
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `message` itself, or its first and last parts when it is longer than `maxMessageBytes`
    /// (cut on character boundaries).
    static func capped(_ message: String) -> String {
        guard message.utf8.count > maxMessageBytes else { return message }
        let bytes = Array(message.utf8)
        let keep = maxMessageBytes / 2 - 64
        var head = keep, tail = bytes.count - keep
        while head > 0 && bytes[head] & 0xC0 == 0x80 { head -= 1 }
        while tail < bytes.count && bytes[tail] & 0xC0 == 0x80 { tail += 1 }
        return String(decoding: bytes[..<head], as: UTF8.self) + " ... (\(tail - head) bytes left out) ... "
            + String(decoding: bytes[tail...], as: UTF8.self)
    }

    /// This diagnostic with `names` (the first `maxPathNames` of them) as its path.
    public func withPath(_ names: some Collection<String>) -> Diagnostic {
        Diagnostic(code, raw: message, at: location, suggestion: suggestion, path: Array(names.prefix(Diagnostic.maxPathNames)))
    }

    /// `file:line:column: message`, or the message alone when there is no location.
    public var description: String {
        if let location { return "\(location): \(message)" }
        return message
    }

    /// Calls `body` with `text`'s UTF-8 bytes (in place when they are contiguous).
    @inline(__always)
    static func withBytes<R>(of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let r = text.utf8.withContiguousStorageIfAvailable(body) { return r }
        return Array(text.utf8).withUnsafeBufferPointer(body)
    }
}

/// A failure carrying every problem found (a load reports all of them, not only the first).
public struct ConfigError: Error, Sendable, Hashable, CustomStringConvertible {
    /// All problems, in the order of their location.
    public var diagnostics: [Diagnostic]

    /// Creates an error from diagnostics (sorted by location, unlocated ones last; never empty).
    public init(_ diagnostics: [Diagnostic]) {
        self.diagnostics =
            diagnostics.isEmpty
            ? [Diagnostic(.invalidArgument, "unknown error")]
            : ConfigError.sorted(diagnostics)
    }

    /// Creates an error from a single problem.
    public init(_ code: ErrorCode, _ message: String, at location: SourceLocation? = nil) {
        self.diagnostics = [Diagnostic(code, message, at: location)]
    }

    /// The code of the whole failure: the lowest-numbered code among its problems (I/O before
    /// syntax before schema before duplicate before missing reference before cycle, …), so it never
    /// depends on where in the input the problems are written.
    public var code: ErrorCode {
        diagnostics.withUnsafeBufferPointer { all in
            var lowest = Int32.max
            for i in all.indices {
                let c = all[i].store.record(all[i].index).code
                if c < lowest { lowest = c }
            }
            return ErrorCode(rawValue: lowest) ?? .invalidArgument
        }
    }

    /// The most problems the joined text (`description`, the C ABI's last error message) lists:
    /// past this many it lists the first ones and counts the rest, as a compiler stops listing
    /// errors (clang's `-ferror-limit`). Every problem stays in `diagnostics` (and in the C ABI's
    /// problem records, and in `controllerreg check`'s report), each message written when it is read.
    public static let maxListedProblems = 100

    /// One problem per line; more than one is preceded by a count. At most `maxListedProblems`
    /// are listed (all of them when one more would be left: the count's line would take its
    /// place), then a line counts the rest.
    public var description: String {
        if diagnostics.count == 1 { return diagnostics[0].description }
        let text = TextBuffer(capacity: 64 + min(diagnostics.count, ConfigError.maxListedProblems + 1) * 128)
        write(into: text)
        return text.string
    }

    /// How many problems the joined text lists (`description`).
    package var listedCount: Int {
        let n = diagnostics.count
        return n <= ConfigError.maxListedProblems + 1 ? n : ConfigError.maxListedProblems
    }

    /// Writes `description` into `text` (the C ABI's last-error message is written from here
    /// too): one buffer for every listed problem's line, no string per line.
    package func write(into text: TextBuffer) {
        write(into: text, every: false) { _ in }
    }

    /// One problem's parts as bytes read where they are stored (valid during the call): what the
    /// C ABI's records copy, with no `Diagnostic` or `String` copied per problem.
    package struct ProblemParts {
        package var code: ErrorCode
        /// The file's name ("" when the problem has no place), line and column (0 without a place).
        package var file: UnsafeBufferPointer<UInt8>
        package var line: Int
        package var column: Int
        package var message: UnsafeBufferPointer<UInt8>
        package var suggestion: UnsafeBufferPointer<UInt8>?
    }

    /// Writes `description` into `text`, calling `body` with the parts of every problem (the
    /// listed ones and the rest), in order: one pass for the text and what the C ABI's records
    /// copy. A listed problem's message is the bytes just written into `text`; the others' are
    /// written into a scratch buffer, valid during the call.
    package func write(into text: TextBuffer, eachProblem body: (ProblemParts) -> Void) {
        write(into: text, every: true, body)
    }

    /// Writes every problem's message and suggestion into `text` as C strings, one after another
    /// (each followed by a NUL; no place, no count, no joining words), calling `body` with each
    /// problem's parts and where in `text` its message and suggestion start (-1: none) once they
    /// are written. What the C ABI's records are written from: each message straight into the
    /// buffer the records keep (the joined text is not written again, no message is copied). The
    /// parts' `message` and `suggestion` are left empty: the offsets say where they are.
    package func writeEachRecord(into text: TextBuffer, _ body: (ProblemParts, _ message: Int, _ suggestion: Int) -> Void) {
        diagnostics.withUnsafeBufferPointer { all in
            guard let first = all.first else { return }
            // The store read once while problems share it (a load's do), not once per problem.
            var store = first.store
            var parts = ProblemParts(
                code: .invalidArgument, file: UnsafeBufferPointer(start: nil, count: 0), line: 0, column: 0,
                message: UnsafeBufferPointer(start: nil, count: 0), suggestion: nil)
            for i in all.indices {
                if i > 0 && !all[i].isIn(store) { store = all[i].store }
                let k = all[i].index
                let r = store.record(k)
                parts.code = ErrorCode(rawValue: r.code) ?? .invalidArgument
                if r.file != ProblemStore.none {
                    let (line, column) = store.lineAndColumn(of: r, k)
                    parts.file = store.fileName(r.file)
                    parts.line = line
                    parts.column = column
                } else {
                    parts.file = UnsafeBufferPointer(start: nil, count: 0)
                    parts.line = 0
                    parts.column = 0
                }
                let message = text.count
                store.writeMessage(of: r, into: text)
                text.append(byte: 0)
                var suggestion = -1
                if r.suggestionCount != ProblemStore.none {
                    suggestion = text.count
                    text.append(store.bytes(at: r.suggestion, count: r.suggestionCount))
                    text.append(byte: 0)
                }
                body(parts, message, suggestion)
            }
        }
    }

    /// `every`: whether `body` is called for every problem (the records), or the listed ones only
    /// are written (the text).
    private func write(into text: TextBuffer, every: Bool, _ body: (ProblemParts) -> Void) {
        let n = diagnostics.count
        let many = n > 1
        let listed = listedCount
        if many {
            text.append(n)
            text.append(" problems:")
        }
        // Each problem read where it lies, its parts from its record's bytes.
        var scratch: TextBuffer?
        diagnostics.withUnsafeBufferPointer { all in
            for i in all.indices {
                let inText = i < listed
                guard inText || every else { break }
                let out: TextBuffer
                if inText {
                    out = text
                    if many { text.append("\n  ") }
                } else {
                    if scratch == nil { scratch = TextBuffer() }
                    out = scratch!
                    out.clear()
                }
                let store = all[i].store, k = all[i].index
                let r = store.record(k)
                var parts = ProblemParts(
                    code: ErrorCode(rawValue: r.code) ?? .invalidArgument, file: UnsafeBufferPointer(start: nil, count: 0),
                    line: 0, column: 0, message: UnsafeBufferPointer(start: nil, count: 0), suggestion: nil)
                if r.file != ProblemStore.none {
                    let (line, column) = store.lineAndColumn(of: r, k)
                    parts.file = store.fileName(r.file)
                    parts.line = line
                    parts.column = column
                    if inText {
                        text.append(parts.file)
                        if line == 0 {
                            text.append(":byte ")
                        } else {
                            text.append(byte: UInt8(ascii: ":"))
                            text.append(line)
                            text.append(byte: UInt8(ascii: ":"))
                        }
                        text.append(column)
                        text.append(": ")
                    }
                }
                let start = out.count
                store.writeMessage(k, into: out)
                if every {
                    parts.message = UnsafeBufferPointer(rebasing: out.bytes[start...])
                    if r.suggestionCount != ProblemStore.none {
                        parts.suggestion = store.bytes(at: r.suggestion, count: r.suggestionCount)
                    }
                    body(parts)
                }
            }
        }
        if listed < n {
            text.append("\n  ")
            text.append(n - listed)
            text.append(" more problems not listed (the first ")
            text.append(listed)
            text.append(" are; the error's list of problems holds every one)")
        }
    }

    private static func sorted(_ list: [Diagnostic]) -> [Diagnostic] {
        // Problems are mostly found in the order they are written: a list already in order is
        // kept as it is (one comparison per problem instead of a sort).
        if isSorted(list) { return list }
        if let order = orderInOneFile(list) { return order.map { list[$0] } }
        return list.enumerated().sorted { a, b in
            switch (a.element.location, b.element.location) {
            case let (x?, y?): return x == y ? a.offset < b.offset : x < y
            case (.some, .none): return true
            case (.none, .some): return false
            case (.none, .none): return a.offset < b.offset
            }
        }.map(\.element)
    }

    /// The order `sorted` gives problems whose placed ones share one store and one file (a load's,
    /// the common case; unplaced ones last), read from their records as integers: nil for any
    /// other list. (Reading each place as a `SourceLocation` per comparison cost several times the
    /// sort; a load's cycles come in the order they are found, not written.)
    private static func orderInOneFile(_ list: [Diagnostic]) -> [Int]? {
        var store: ProblemStore?
        var file = ProblemStore.none
        let keys = UnsafeMutableBufferPointer<(Int, Int, Int, Int)>.allocate(capacity: list.count)
        defer { keys.deallocate() }
        for i in list.indices {
            let s = list[i].store, k = list[i].index
            let r = s.record(k)
            if r.file == ProblemStore.none {
                keys[i] = (1, 0, 0, i)
                continue
            }
            if let store {
                guard store === s && r.file == file else { return nil }
            } else {
                store = s
                file = r.file
            }
            let (line, column) = s.lineAndColumn(of: r, k)
            keys[i] = (0, line, column, i)
        }
        mergeSort(keys)
        return keys.map(\.3)
    }

    /// Sorts distinct keys in place: runs of 8 by insertion, then merged pairwise (written by hand:
    /// the standard library's sort made its run list's generic type at the first sort of a
    /// process, more than sorting a hundred problems).
    private static func mergeSort(_ keys: UnsafeMutableBufferPointer<(Int, Int, Int, Int)>) {
        let n = keys.count
        guard n > 1, var src = keys.baseAddress else { return }
        let scratch = UnsafeMutablePointer<(Int, Int, Int, Int)>.allocate(capacity: n)
        defer { scratch.deallocate() }
        var dst = scratch
        var start = 0
        while start < n {
            let end = min(start + 8, n)
            var i = start + 1
            while i < end {
                let x = src[i]
                var j = i
                while j > start && x < src[j - 1] {
                    src[j] = src[j - 1]
                    j -= 1
                }
                src[j] = x
                i += 1
            }
            start = end
        }
        var width = 8
        while width < n {
            var lo = 0
            while lo < n {
                let mid = min(lo + width, n), hi = min(lo + 2 * width, n)
                var a = lo, b = mid, out = lo
                while a < mid && b < hi {
                    if src[b] < src[a] {
                        dst[out] = src[b]
                        b += 1
                    } else {
                        dst[out] = src[a]
                        a += 1
                    }
                    out += 1
                }
                while a < mid {
                    dst[out] = src[a]
                    a += 1
                    out += 1
                }
                while b < hi {
                    dst[out] = src[b]
                    b += 1
                    out += 1
                }
                lo = hi
            }
            swap(&src, &dst)
            width *= 2
        }
        if src != keys.baseAddress! { keys.baseAddress!.update(from: src, count: n) }
    }

    /// Whether `sorted` would keep `list` as it is: each problem's location at or after the one
    /// before it (equal ones keep their order), unlocated ones last.
    private static func isSorted(_ list: [Diagnostic]) -> Bool {
        list.withUnsafeBufferPointer { all in
            // The last placed problem (its index in `all`), and its file, line and column, read
            // from its record once; stores are read where they lie in the list (none is held, so
            // none is retained per problem).
            var previous = -1
            var previousFile: UInt32 = 0
            var previousPlace = (line: 0, column: 0)
            var unlocatedSeen = false
            for i in all.indices {
                let k = all[i].index
                let r = all[i].store.record(k)
                let file = r.file
                guard file != ProblemStore.none else {
                    unlocatedSeen = true
                    continue
                }
                if unlocatedSeen { return false }
                let place = all[i].store.lineAndColumn(of: r, k)
                if previous >= 0 {
                    if all[previous].store === all[i].store && previousFile == file {
                        if previousPlace > place { return false }
                    } else {
                        let x = all[previous].store.file(previousFile), y = all[i].store.file(file)
                        if x == y ? previousPlace > place : x > y { return false }
                    }
                }
                previous = i
                previousFile = file
                previousPlace = place
            }
            return true
        }
    }
}
