#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The structure of an XML property list: prolog, tags and the element tree, fed to a
/// `DocumentBuilder` in one forward pass over the bytes (text content is in XMLPlistText.swift).
///
/// Only what plists use is accepted: the XML declaration, comments, a `<!DOCTYPE plist …>` that is
/// skipped (nothing external is ever read; internal subsets and `<!ENTITY` are rejected), and one
/// `<plist>` root holding exactly one value.
struct XMLPlistParser {
    /// The input bytes.
    let p: UnsafePointer<UInt8>
    /// The input length.
    let end: Int
    /// The next byte to read.
    var pos = 0
    var builder: DocumentBuilder

    // Incremental line tracking: bytes before `linePos` have been counted into `line`/`lineStart`.
    var linePos = 0
    var line = 1
    var lineStart = 0

    /// The elements a plist may contain.
    enum Element {
        case plist, dict, array, string, key, integer, real, `true`, `false`, date, data, unknown
    }

    /// An open `<dict>` or `<array>`.
    struct Frame {
        var isDict: Bool
        /// Whether a dict has read a key that still waits for its value.
        var haveKey = false
    }

    static func parse(
        _ bytes: UnsafeRawBufferPointer, file: String, limits: ConfigLimits, pairs sink: TopLevelPairSink? = nil
    ) throws(ConfigError) -> ConfigDocument {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            throw ConfigError(.syntax, "expected <plist>, found end of input", at: SourceLocation(file: file, line: 1, column: 1))
        }
        return try DocumentBuilder.build(file: file, limits: limits, expectedBytes: bytes.count, sink: sink) {
            builder throws(ConfigError) in
            var parser = XMLPlistParser(p: base.assumingMemoryBound(to: UInt8.self), end: bytes.count, builder: builder)
            try parser.parseDocument()
            builder = parser.builder
        }
    }

    init(p: UnsafePointer<UInt8>, end: Int, builder: DocumentBuilder) {
        self.p = p
        self.end = end
        self.builder = builder
    }

    // MARK: - Document

    mutating func parseDocument() throws(ConfigError) {
        if end >= 2, p[0] == 0 || p[1] == 0 || p[0] >= 0xFE, let encoding = wideTextEncoding(p, end) {
            throw syntax(wideTextMessage(encoding, format: "XML property list"), at: 0)
        }
        if end >= 3, p[0] == 0xEF, p[1] == 0xBB, p[2] == 0xBF { pos = 3 }
        try skipProlog()
        guard pos < end else { throw endOfInput("expected <plist>, found end of input", at: pos) }
        guard p[pos] == UInt8(ascii: "<"), pos + 1 < end, p[pos + 1] != UInt8(ascii: "/") else {
            throw syntax("expected <plist>, found \(describeHere())", at: pos)
        }
        let tagPos = pos
        let tag = try readStartTag()
        guard element(tag.name, tag.length) == .plist else {
            throw syntax("expected <plist> as the root element, found <\(name(tag.name, tag.length))>", at: tagPos)
        }
        if tag.empty { throw syntax("<plist> is empty; it must contain exactly one value", at: tagPos) }
        try parseValue()
        try skipMisc()
        if pos + 1 < end, p[pos] == UInt8(ascii: "<"), p[pos + 1] != UInt8(ascii: "/"), p[pos + 1] != UInt8(ascii: "!") {
            let at = pos
            let second = try readStartTag()
            throw syntax("<plist> must contain exactly one value, found a second <\(name(second.name, second.length))>", at: at)
        }
        try expectEndTag(tag.name, tag.length)
        try skipMisc()
        if pos < end { throw syntax("unexpected content after </plist>", at: pos) }
    }

    /// Skips whitespace, the XML declaration and other processing instructions, comments and the
    /// DOCTYPE before the root element.
    mutating func skipProlog() throws(ConfigError) {
        let documentStart = pos
        while true {
            skipSpaces()
            if has("<?", at: pos) {
                if pos != documentStart, isXMLDeclaration(at: pos) { throw declarationNotFirst(documentStart) }
                var i = pos + 2
                while i + 1 < end, !(p[i] == UInt8(ascii: "?") && p[i + 1] == UInt8(ascii: ">")) { i += 1 }
                guard i + 1 < end else { throw endOfInput("unterminated processing instruction (expected '?>')", at: pos) }
                if let bad = firstInvalidUTF8(p, from: pos, to: i) { throw invalidUTF8(at: bad) }
                pos = i + 2
            } else if has("<!--", at: pos) {
                pos = try skipComment(at: pos)
            } else if has("<!DOCTYPE", at: pos) {
                try skipDoctype()
            } else if has("<!", at: pos) {
                throw markupError(at: pos, context: "before <plist>")
            } else {
                return
            }
        }
    }

    /// Whether the processing instruction at `at` (`<?`) is an XML declaration: its target is `xml`
    /// (in any case: the others are reserved), followed by a blank or `?>`.
    func isXMLDeclaration(at i: Int) -> Bool {
        guard i + 5 < end else { return false }
        let target = (p[i + 2] | 0x20, p[i + 3] | 0x20, p[i + 4] | 0x20)
        guard target == (UInt8(ascii: "x"), UInt8(ascii: "m"), UInt8(ascii: "l")) else { return false }
        let next = p[i + 5]
        return next == 0x20 || next == 0x09 || next == 0x0A || next == 0x0D || next == UInt8(ascii: "?")
    }

    /// The error for an XML declaration after other bytes (whitespace, a comment, another
    /// declaration): XML 1.0 allows it only as the very first bytes of the document (after a BOM),
    /// as expat and Python's plistlib enforce. Placed at the declaration.
    @inline(never)
    mutating func declarationNotFirst(_ documentStart: Int) -> ConfigError {
        let onlyBlanks = (documentStart..<pos).allSatisfy { p[$0] == 0x20 || p[$0] == 0x09 || p[$0] == 0x0A || p[$0] == 0x0D }
        let before = onlyBlanks ? "whitespace" : "other markup"
        return syntax(
            "the XML declaration (<?xml ...?>) comes after \(before): XML 1.0 allows it only as the very first bytes of the file; remove what comes before it (or the declaration)",
            at: pos)
    }

    /// Skips `<!DOCTYPE …>` (its public and system ids are never fetched); an internal subset is an error.
    mutating func skipDoctype() throws(ConfigError) {
        let start = pos
        var i = pos + 9
        while i < end {
            let b = p[i]
            if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                i += 1
                while i < end, p[i] != b { i += 1 }
                guard i < end else { break }
            } else if b == UInt8(ascii: "[") {
                throw syntax("DTD subsets and entity declarations are not supported", at: start)
            } else if b == UInt8(ascii: ">") {
                if let bad = firstInvalidUTF8(p, from: start, to: i) { throw invalidUTF8(at: bad) }
                pos = i + 1
                return
            } else if b == UInt8(ascii: "<") {
                break
            }
            i += 1
        }
        throw endOfInput("unterminated <!DOCTYPE> (expected '>')", at: start)
    }

    // MARK: - Values

    /// Reads exactly one value (with everything nested in it) at the current position.
    /// Iterative, so nesting depth never grows the call stack; the builder bounds it.
    mutating func parseValue() throws(ConfigError) {
        var stack: [Frame] = []
        while true {
            try skipMisc()
            guard pos < end else {
                if let top = stack.last {
                    throw endOfInput("expected </\(top.isDict ? "dict" : "array")>, found end of input", at: pos)
                }
                throw endOfInput("expected a value in <plist>, found end of input", at: pos)
            }
            let tagPos = pos
            guard p[pos] == UInt8(ascii: "<") else {
                throw syntax("unexpected text in <\(stack.last.map { $0.isDict ? "dict" : "array" } ?? "plist")>", at: pos)
            }
            if pos + 1 < end, p[pos + 1] == UInt8(ascii: "/") {
                let tag = try readEndTag()
                guard let top = stack.last else {
                    if element(tag.name, tag.length) == .plist {
                        throw syntax("<plist> is empty; it must contain exactly one value", at: tagPos)
                    }
                    throw syntax("expected a value in <plist>, found </\(name(tag.name, tag.length))>", at: tagPos)
                }
                let expected = top.isDict ? "dict" : "array"
                guard element(tag.name, tag.length) == (top.isDict ? .dict : .array) else {
                    throw syntax("expected </\(expected)>, found </\(name(tag.name, tag.length))>", at: tagPos)
                }
                if top.haveKey {
                    throw keyWithoutValue()
                }
                builder.endContainer()
                stack.removeLast()
                if stack.isEmpty { return }
                stack[stack.count - 1].haveKey = false
                continue
            }
            if pos + 1 < end, p[pos + 1] == UInt8(ascii: "!") || p[pos + 1] == UInt8(ascii: "?") {
                throw markupError(at: pos, context: "in <\(stack.last.map { $0.isDict ? "dict" : "array" } ?? "plist")>")
            }
            let tag = try readStartTag()
            let kind = element(tag.name, tag.length)
            let (line, column) = position(tagPos)
            if let top = stack.last, top.isDict, !top.haveKey {
                guard kind == .key else {
                    throw syntax("expected <key> in <dict>, found <\(name(tag.name, tag.length))>", at: tagPos)
                }
                try readString(tag, line: line, column: column)
                stack[stack.count - 1].haveKey = true
                continue
            }
            if kind == .key, let top = stack.last, top.isDict {
                // `<key>` is accepted as a string value elsewhere, but two keys in a row mean a missing value.
                throw keyWithoutValue()
            }
            switch kind {
            case .dict, .array:
                if kind == .dict {
                    try builder.beginMap(line: line, column: column)
                } else {
                    try builder.beginList(line: line, column: column)
                }
                if !tag.empty {
                    stack.append(Frame(isDict: kind == .dict))
                    continue
                }
                builder.endContainer()
            case .string, .key:
                try readString(tag, line: line, column: column)
            case .integer:
                let (start, stop) = try scalarText(tag, at: tagPos)
                switch PlistNumbers.parseInteger(p, start, stop) {
                case .value(let v): try builder.addInt(v, line: line, column: column)
                case .invalid: throw syntax("invalid integer '\(text(start, stop))'", at: tagPos)
                case .outOfRange: throw syntax("integer '\(text(start, stop))' is out of the 64-bit range", at: tagPos)
                }
            case .real:
                let (start, stop) = try scalarText(tag, at: tagPos)
                guard let v = PlistNumbers.parseReal(p, start, stop) else {
                    throw syntax("invalid real '\(text(start, stop))'", at: tagPos)
                }
                if v.isInfinite && !PlistNumbers.namesInfinity(p, start, stop) {
                    throw syntax(DecimalNumber.tooLargeText(text(start, stop)), at: tagPos)
                }
                try builder.addDouble(v, line: line, column: column)
            case .true, .false:
                if !tag.empty {
                    skipSpaces()
                    try expectEndTag(tag.name, tag.length)
                }
                try builder.addBool(kind == .true, line: line, column: column)
            case .date, .data:
                throw ConfigError(
                    .schema, PlistUnsupportedValue.message("<\(name(tag.name, tag.length))>"),
                    at: builder.location(line: line, column: column))
            case .plist:
                throw syntax("unexpected <plist> inside <plist>", at: tagPos)
            case .unknown:
                throw syntax("unknown element <\(name(tag.name, tag.length))>", at: tagPos)
            }
            if stack.isEmpty { return }
            stack[stack.count - 1].haveKey = false
        }
    }

    /// Reads a `<string>`/`<key>` (start tag already read) and adds it.
    mutating func readString(_ tag: (name: Int, length: Int, empty: Bool), line: Int, column: Int) throws(ConfigError) {
        if tag.empty {
            try builder.addString(UnsafeRawBufferPointer(start: nil, count: 0), line: line, column: column)
            return
        }
        try readStringContent(tag.name, tag.length, line: line, column: column)
        try expectEndTag(tag.name, tag.length)
    }

    /// Reads the text of an `<integer>`/`<real>` up to its end tag, which it consumes; returns the
    /// trimmed range.
    mutating func scalarText(_ tag: (name: Int, length: Int, empty: Bool), at tagPos: Int) throws(ConfigError) -> (Int, Int) {
        if tag.empty { return (pos, pos) }
        var i = pos
        while i < end, p[i] != UInt8(ascii: "<"), p[i] != UInt8(ascii: "&") { i += 1 }
        var start = pos, stop = i
        while start < stop, isSpace(p[start]) { start += 1 }
        while stop > start, isSpace(p[stop - 1]) { stop -= 1 }
        if i < end, p[i] == UInt8(ascii: "&") {
            throw syntax("entity references are not allowed in <\(name(tag.name, tag.length))>", at: i)
        }
        pos = i
        try expectEndTag(tag.name, tag.length)
        return (start, stop)
    }

    // MARK: - Tags

    /// Reads a start tag at `<` (name and attributes, which are checked and ignored).
    mutating func readStartTag() throws(ConfigError) -> (name: Int, length: Int, empty: Bool) {
        let tagPos = pos
        var i = pos + 1
        let nameStart = i
        while i < end, isNameByte(p[i]) { i += 1 }
        let length = i - nameStart
        if length == 0, i >= end { throw endOfInput("unterminated tag: '<' without an element name", at: tagPos) }
        if length == 0 { throw syntax("expected an element name after '<'", at: tagPos) }
        while true {
            let spaceStart = i
            while i < end, isSpace(p[i]) { i += 1 }
            guard i < end else {
                throw endOfInput("unterminated tag <\(name(nameStart, length))", at: tagPos)
            }
            let b = p[i]
            if b == UInt8(ascii: ">") {
                pos = i + 1
                return (nameStart, length, false)
            }
            if b == UInt8(ascii: "/") {
                guard i + 1 < end, p[i + 1] == UInt8(ascii: ">") else {
                    throw syntax("expected '>' after '/' in <\(name(nameStart, length))>", at: i)
                }
                pos = i + 2
                return (nameStart, length, true)
            }
            guard i > spaceStart, isNameByte(b) else {
                throw syntax("malformed tag <\(name(nameStart, length))>", at: i)
            }
            while i < end, isNameByte(p[i]) { i += 1 }
            while i < end, isSpace(p[i]) { i += 1 }
            guard i < end, p[i] == UInt8(ascii: "=") else {
                throw syntax("expected '=' after an attribute name in <\(name(nameStart, length))>", at: i)
            }
            i += 1
            while i < end, isSpace(p[i]) { i += 1 }
            guard i < end, p[i] == UInt8(ascii: "\"") || p[i] == UInt8(ascii: "'") else {
                throw syntax("expected a quoted attribute value in <\(name(nameStart, length))>", at: i)
            }
            let quote = p[i]
            let valueStart = i
            i += 1
            while i < end, p[i] != quote {
                if p[i] == UInt8(ascii: "<") { throw syntax("'<' in an attribute value", at: i) }
                i += 1
            }
            guard i < end else { throw endOfInput("unterminated attribute value", at: valueStart) }
            if let bad = firstInvalidUTF8(p, from: valueStart, to: i) { throw invalidUTF8(at: bad) }
            i += 1
        }
    }

    /// Reads an end tag at `</`.
    mutating func readEndTag() throws(ConfigError) -> (name: Int, length: Int) {
        let tagPos = pos
        var i = pos + 2
        let nameStart = i
        while i < end, isNameByte(p[i]) { i += 1 }
        let length = i - nameStart
        while i < end, isSpace(p[i]) { i += 1 }
        guard i < end else { throw endOfInput("unterminated end tag </\(name(nameStart, length))", at: tagPos) }
        guard p[i] == UInt8(ascii: ">"), length > 0 else {
            throw syntax("malformed end tag </\(name(nameStart, length))", at: tagPos)
        }
        pos = i + 1
        return (nameStart, length)
    }

    /// Consumes the end tag matching the start tag whose name is at `p[nameStart ..< nameStart + length]`.
    mutating func expectEndTag(_ nameStart: Int, _ length: Int) throws(ConfigError) {
        // Fast path: `</name>` exactly.
        if pos + length + 3 <= end, p[pos] == UInt8(ascii: "<"), p[pos + 1] == UInt8(ascii: "/"),
            p[pos + 2 + length] == UInt8(ascii: ">")
        {
            if XMLPlistParser.sameName(p + pos + 2, p + nameStart, length) {
                pos += length + 3
                return
            }
        }
        let expected = name(nameStart, length)
        guard pos + 1 < end, p[pos] == UInt8(ascii: "<"), p[pos + 1] == UInt8(ascii: "/") else {
            throw syntax("expected </\(expected)>, found \(describeHere())", at: pos)
        }
        let at = pos
        let tag = try readEndTag()
        guard tag.length == length, memcmp(p + tag.name, p + nameStart, length) == 0 else {
            throw syntax("expected </\(expected)>, found </\(name(tag.name, tag.length))>", at: at)
        }
    }

    // MARK: - Misc

    /// Skips whitespace and comments between elements.
    mutating func skipMisc() throws(ConfigError) {
        while true {
            skipSpaces()
            guard pos + 1 < end, p[pos + 1] == UInt8(ascii: "!"), has("<!--", at: pos) else { return }
            pos = try skipComment(at: pos)
        }
    }

    @inline(__always)
    mutating func skipSpaces() {
        while pos < end, isSpace(p[pos]) { pos += 1 }
    }

    /// Skips the comment starting at `start` (`<!--`); returns the index after `-->`.
    mutating func skipComment(at start: Int) throws(ConfigError) -> Int {
        guard let close = try find("-->", from: start + 4) else {
            throw endOfInput("unterminated comment (expected '-->')", at: start)
        }
        return close + 3
    }

    /// The index where the three bytes of `terminator` next start at or after `from`, validating
    /// the UTF-8 in between; nil if the input ends first.
    mutating func find(_ terminator: StaticString, from: Int) throws(ConfigError) -> Int? {
        let t = terminator.utf8Start
        var i = from
        while i + 2 < end {
            let b = p[i]
            if b == t[0], p[i + 1] == t[1], p[i + 2] == t[2] { return i }
            if b >= 0x80 {
                let n = utf8SequenceLength(p, i, end)
                if n == 0 { throw invalidUTF8(at: i) }
                i += n
            } else {
                i += 1
            }
        }
        return nil
    }

    /// The error for `<!…` or `<?…` where it is not allowed.
    mutating func markupError(at i: Int, context: String) -> ConfigError {
        if has("<!ENTITY", at: i) || has("<!DOCTYPE", at: i) || has("<!ELEMENT", at: i) || has("<!ATTLIST", at: i) {
            return syntax("DTD subsets and entity declarations are not supported", at: i)
        }
        if has("<![CDATA[", at: i) { return syntax("unexpected CDATA section \(context)", at: i) }
        return syntax("unexpected markup '\(text(i, min(end, i + 2)))' \(context)", at: i)
    }

    // MARK: - Helpers

    @inline(__always)
    func isSpace(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D
    }

    /// Bytes that can be part of an element or attribute name (checked loosely; unknown names are errors anyway).
    @inline(__always)
    func isNameByte(_ b: UInt8) -> Bool {
        // Bit b of a 128-bit set (two words): 0x21...0x7F without > / = < " and '; bytes >= 0x80 are in.
        let low: UInt64 = 0x8FFF_7F7A_0000_0000  // 0x21...0x3F but " ' / < = >
        let high: UInt64 = 0xFFFF_FFFF_FFFF_FFFF  // 0x40...0x7F
        if b >= 0x80 { return true }
        return (b < 64 ? low : high) &>> UInt64(b & 63) & 1 != 0
    }

    /// Whether the `n` bytes at `a` and `b` are equal (names of up to 8 bytes compared inline,
    /// never reading past the `n` bytes).
    @inline(__always)
    static func sameName(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        let x = UnsafeRawPointer(a), y = UnsafeRawPointer(b)
        if n >= 4 && n <= 8 {
            return x.loadUnaligned(as: UInt32.self) == y.loadUnaligned(as: UInt32.self)
                && x.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)
                    == y.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)
        }
        if n < 4 { return n == 0 || (a[0] == b[0] && a[n &- 1] == b[n &- 1] && a[n &>> 1] == b[n &>> 1]) }
        return memcmp(a, b, n) == 0
    }

    @inline(__always)
    func has(_ literal: StaticString, at i: Int) -> Bool {
        let n = literal.utf8CodeUnitCount
        return i + n <= end && memcmp(p + i, literal.utf8Start, n) == 0
    }

    /// Which plist element the name at `p[start ..< start + length]` is.
    func element(_ start: Int, _ length: Int) -> Element {
        @inline(__always) func eq(_ s: StaticString) -> Bool { memcmp(p + start, s.utf8Start, length) == 0 }
        switch length {
        case 3: return eq("key") ? .key : .unknown
        case 4:
            if eq("dict") { return .dict }
            if eq("real") { return .real }
            if eq("true") { return .true }
            if eq("date") { return .date }
            if eq("data") { return .data }
            return .unknown
        case 5:
            if eq("array") { return .array }
            if eq("false") { return .false }
            if eq("plist") { return .plist }
            return .unknown
        case 6: return eq("string") ? .string : .unknown
        case 7: return eq("integer") ? .integer : .unknown
        default: return .unknown
        }
    }

    /// The bytes `p[start ..< stop]` as text (error messages only).
    func text(_ start: Int, _ stop: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: p + start, count: max(0, stop - start)), as: UTF8.self)
    }

    /// An element name as text (error messages only).
    func name(_ start: Int, _ length: Int) -> String { text(start, start + length) }

    /// What is at `pos`, for "expected X, found Y" messages.
    func describeHere() -> String {
        guard pos < end else { return "end of input" }
        guard p[pos] == UInt8(ascii: "<") else { return "text" }
        var i = pos + 1
        if i < end, p[i] == UInt8(ascii: "/") { i += 1 }
        let nameStart = i
        while i < end, isNameByte(p[i]) { i += 1 }
        return "\(text(pos, nameStart))\(name(nameStart, i - nameStart))>"
    }

    /// The error for a dict key (the node just added) that has no value, located at the key.
    func keyWithoutValue() -> ConfigError {
        let n = builder.node(at: builder.nodeCount - 1)
        let key = builder.string(at: builder.nodeCount - 1)
        return ConfigError(
            .syntax, "key '\(key)' in <dict> has no value",
            at: builder.location(line: Int(n.line), column: Int(n.column)))
    }

    /// 1-based line and column of byte `at`. Counting moves forward from the last position asked
    /// for, so a whole parse counts each byte once; going backwards (errors only) is also handled.
    mutating func position(_ at: Int) -> (line: Int, column: Int) {
        if at >= linePos {
            var i = linePos
            // Eight bytes at a time: count each word's line breaks and remember where the last one is.
            while at &- i >= 8 {
                let x = UInt64(littleEndian: UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)) ^ 0x0A0A_0A0A_0A0A_0A0A
                let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
                let breaks = ~(((x & low) &+ low) | x | low)
                if breaks != 0 {
                    line &+= breaks.nonzeroBitCount
                    lineStart = i &+ ((63 &- breaks.leadingZeroBitCount) &>> 3) &+ 1
                }
                i &+= 8
            }
            while i < at {
                if p[i] == 0x0A {
                    line += 1
                    lineStart = i + 1
                }
                i += 1
            }
        } else {
            var i = linePos
            while i > at {
                i -= 1
                if p[i] == 0x0A { line -= 1 }
            }
            var s = at
            while s > 0, p[s - 1] != 0x0A { s -= 1 }
            lineStart = s
        }
        linePos = at
        return (line, at - lineStart + 1)
    }

    /// A `.syntax` error at byte `at` met at the end of the input (`TruncatedInput`).
    mutating func endOfInput(_ message: String, at: Int) -> ConfigError {
        syntax(message + TruncatedInput.textFix, at: at)
    }

    /// A `.syntax` error at byte `at`.
    mutating func syntax(_ message: String, at: Int) -> ConfigError {
        let (l, c) = position(at)
        return ConfigError(.syntax, message, at: builder.location(line: l, column: c))
    }

    mutating func invalidUTF8(at i: Int) -> ConfigError {
        syntax("invalid UTF-8 byte 0x\(HexDigits.text(UInt32(p[i]), digits: 2)); \(configNotUTF8Fix)", at: i)
    }
}
