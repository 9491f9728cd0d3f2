#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One problem found in a config or an API call: a code, a message a person can act on, and where.
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem this is.
    public var code: ErrorCode
    /// The problem in words, without the location prefix.
    public var message: String {
        get { text.string }
        set { text = .string(newValue) }
    }
    /// The message as stored: a `String`, or bytes written once for a load's many problems.
    fileprivate var text: MessageText
    /// Where the problem is, when it comes from a config file.
    public var location: SourceLocation?
    /// A name the user probably meant ("did you mean 'X'"), when the problem is a name that does not
    /// resolve and a close one exists; nil otherwise. The message may mention it too; this field
    /// lets hosts offer it without parsing the text (the C ABI's `cr_problem.suggestion`).
    public var suggestion: String?
    /// The names along the problem's path, for tools that draw it: a cycle closed on its first
    /// entry (`A, B, A`), or a singleton's path to the `graph` entry it would keep; empty for
    /// other problems. At most `maxPathNames` (the first ones of a longer path).
    public var path: [String] = []

    /// The most names `path` keeps.
    public static let maxPathNames = 1024

    /// The longest message kept whole, in UTF-8 bytes; a longer one (a hostile 1 MB name quoted in
    /// it) keeps its first and last parts around a note of how much was left out.
    public static let maxMessageBytes = 4096

    /// Creates a diagnostic (a message longer than `maxMessageBytes` is shortened in the middle; a
    /// NUL byte in it, from a name it quotes, is written `\0`).
    public init(_ code: ErrorCode, _ message: String, at location: SourceLocation? = nil, suggestion: String? = nil) {
        self.code = code
        self.text = .string(Diagnostic.capped(Diagnostic.withoutNul(message)))
        self.location = location
        self.suggestion = suggestion
    }

    /// A diagnostic whose message is what `text` holds (kept without a `String`: `keptMessage`).
    package init(_ code: ErrorCode, written text: TextBuffer, at location: SourceLocation? = nil, suggestion: String? = nil) {
        self.code = code
        self.text = text.keptMessage()
        self.location = location
        self.suggestion = suggestion
    }

    /// Equal code, message text (as `String`s compare), place, suggestion and path.
    public static func == (a: Diagnostic, b: Diagnostic) -> Bool {
        a.code == b.code && a.location == b.location && a.suggestion == b.suggestion && a.path == b.path
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
        var d = self
        d.path = Array(names.prefix(Diagnostic.maxPathNames))
        return d
    }

    /// `file:line:column: message`, or the message alone when there is no location.
    public var description: String {
        if let location { return "\(location): \(message)" }
        return message
    }

    /// Calls `body` with `text`'s UTF-8 bytes (in place when they are contiguous).
    @inline(__always)
    static func withBytes(of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        if text.utf8.withContiguousStorageIfAvailable(body) == nil { Array(text.utf8).withUnsafeBufferPointer(body) }
    }

    /// Whether this problem's place is at or before `other`'s (both located).
    fileprivate func isPlaced(atOrBefore other: Diagnostic) -> Bool {
        guard let a = location, let b = other.location else { return false }
        return a.file == b.file ? (a.line, a.column) <= (b.line, b.column) : a.file < b.file
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
        var lowest = diagnostics[0].code
        for d in diagnostics where d.code.rawValue < lowest.rawValue { lowest = d.code }
        return lowest
    }

    /// One problem per line; more than one is preceded by a count.
    public var description: String {
        if diagnostics.count == 1 { return diagnostics[0].description }
        let text = TextBuffer(capacity: 64 + diagnostics.count * 128)
        write(into: text)
        return text.string
    }

    /// Writes `description` into `text` (the C ABI's last-error message is written from here
    /// too): one buffer for every problem's line, no string per line.
    package func write(into text: TextBuffer) {
        write(into: text) { _ in }
    }

    /// One problem's parts as bytes read where they are stored (valid during the call): what the
    /// C ABI's problem records copy, with no `Diagnostic` or `String` copied per problem.
    package struct ProblemParts {
        package var code: ErrorCode
        /// The file's name ("" when the problem has no place), line and column (0 without a place).
        package var file: UnsafeBufferPointer<UInt8>
        package var line: Int
        package var column: Int
        package var message: UnsafeBufferPointer<UInt8>
        package var suggestion: UnsafeBufferPointer<UInt8>?
    }

    /// Writes `description` into `text`, calling `body` with the parts of each problem, in order,
    /// as its line is written (one pass for the text and what the C ABI's records copy; the
    /// message's bytes are those just written into `text`).
    package func write(into text: TextBuffer, eachProblem body: (ProblemParts) -> Void) {
        let many = diagnostics.count > 1
        if many {
            text.append(diagnostics.count)
            text.append(" problems:")
        }
        // Each problem read where it lies (binding it copies it: four retains and releases), the
        // file's name copied once while consecutive problems share it.
        var file = FileBytes()
        defer { file.free() }
        diagnostics.withUnsafeBufferPointer { all in
            for i in all.indices {
                if many { text.append("\n  ") }
                var parts = ProblemParts(
                    code: all[i].code, file: UnsafeBufferPointer(start: nil, count: 0), line: 0, column: 0,
                    message: UnsafeBufferPointer(start: nil, count: 0), suggestion: nil)
                if let location = all[i].location {
                    parts.file = file.bytes(of: location.file)
                    parts.line = location.line
                    parts.column = location.column
                    text.append(parts.file)
                    if location.line == 0 {
                        text.append(":byte ")
                    } else {
                        text.append(byte: UInt8(ascii: ":"))
                        text.append(location.line)
                        text.append(byte: UInt8(ascii: ":"))
                    }
                    text.append(location.column)
                    text.append(": ")
                }
                let start = text.count
                if let kept = all[i].text.keptBytes {
                    text.append(kept)
                } else {
                    all[i].text.withBytes { text.append($0) }
                }
                parts.message = UnsafeBufferPointer(rebasing: text.bytes[start...])
                if let s = all[i].suggestion {
                    Diagnostic.withBytes(of: s) { suggestion in
                        parts.suggestion = suggestion
                        body(parts)
                    }
                } else {
                    body(parts)
                }
            }
        }
    }

    private static func sorted(_ list: [Diagnostic]) -> [Diagnostic] {
        // Problems are mostly found in the order they are written: a list already in order is
        // kept as it is (one comparison per problem instead of a sort).
        if isSorted(list) { return list }
        return list.enumerated().sorted { a, b in
            switch (a.element.location, b.element.location) {
            case let (x?, y?): return x == y ? a.offset < b.offset : x < y
            case (.some, .none): return true
            case (.none, .some): return false
            case (.none, .none): return a.offset < b.offset
            }
        }.map(\.element)
    }

    /// Whether `sorted` would keep `list` as it is: each problem's location at or after the one
    /// before it (equal ones keep their order), unlocated ones last.
    private static func isSorted(_ list: [Diagnostic]) -> Bool {
        list.withUnsafeBufferPointer { all in
            var previous = -1
            var unlocatedSeen = false
            for i in all.indices {
                guard all[i].location != nil else {
                    unlocatedSeen = true
                    continue
                }
                if unlocatedSeen { return false }
                if previous >= 0 && !all[previous].isPlaced(atOrBefore: all[i]) { return false }
                previous = i
            }
            return true
        }
    }
}

/// A file name's UTF-8 bytes, copied once while consecutive problems name the same file. Every
/// copy stays until `free` (a caller may compare the bytes of one file with the next one's).
private struct FileBytes {
    private var name: String?
    private var copies: [UnsafeMutablePointer<UInt8>] = []
    private var count = 0

    /// The bytes of `file` (valid until `free`).
    mutating func bytes(of file: String) -> UnsafeBufferPointer<UInt8> {
        if let copy = copies.last, name == file { return UnsafeBufferPointer(start: copy, count: count) }
        count = file.utf8.count
        let c = UnsafeMutablePointer<UInt8>.allocate(capacity: max(count, 1))
        _ = UnsafeMutableBufferPointer(start: c, count: count).initialize(from: file.utf8)
        copies.append(c)
        name = file
        return UnsafeBufferPointer(start: c, count: count)
    }

    func free() {
        for c in copies { c.deallocate() }
    }
}
