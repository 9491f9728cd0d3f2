import CYaml

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Parses YAML config text into a `ConfigDocument` with libyaml's event API.
///
/// Typing follows the YAML 1.2 core schema for plain scalars (quoted and block scalars are
/// strings); the standard tags `!!str !!int !!float !!bool !!null !!map !!seq` and the
/// non-specific `!` are honoured, any other tag is an error. Keys are stored as strings (their
/// text). Aliases are expanded by copying the anchored subtree, bounded by
/// `ConfigLimits.maxAliasExpansion`. Merge keys (`<<`) and multi-document streams are rejected.
enum YAMLParser {
    static func parse(
        _ bytes: UnsafeRawBufferPointer, file: String, limits: ConfigLimits, pairs sink: TopLevelPairSink? = nil
    ) throws(ConfigError) -> ConfigDocument {
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        let event = UnsafeMutablePointer<yaml_event_t>.allocate(capacity: 1)
        defer {
            event.deallocate()
            parser.deallocate()
        }
        // libyaml keeps a pointer to the parser itself for string input, hence the heap allocation.
        guard yaml_parser_initialize(parser) == 1 else {
            throw ConfigError(.noMemory, "\(file): cannot initialize the YAML parser")
        }
        defer { yaml_parser_delete(parser) }

        var empty: UInt8 = 0
        try withUnsafeMutablePointer(to: &empty) { (emptyPointer) throws(ConfigError) in
            let input = bytes.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) } ?? UnsafePointer(emptyPointer)
            yaml_parser_set_input_string(parser, input, bytes.count)
        }

        return try DocumentBuilder.build(file: file, limits: limits, expectedBytes: bytes.count, sink: sink) {
            builder throws(ConfigError) in
            var state = YAMLEventReader(builder: builder, limits: limits)
            while true {
                guard yaml_parser_parse(parser, event) == 1 else {
                    throw parserError(parser.pointee, bytes: bytes, file: file)
                }
                defer { yaml_event_delete(event) }
                if event.pointee.type == YAML_STREAM_END_EVENT { break }
                try state.handle(event)
            }
            builder = state.builder
        }
    }

    /// Turns libyaml's error state into a `.syntax` (or `.noMemory`) error with a readable message.
    static func parserError(_ parser: yaml_parser_t, bytes: UnsafeRawBufferPointer, file: String) -> ConfigError {
        let problem = parser.problem.map { String(cString: $0) } ?? "unknown error"
        switch parser.error {
        case YAML_MEMORY_ERROR:
            return ConfigError(.noMemory, "out of memory while parsing YAML", at: SourceLocation(file: file, line: 0, column: 0))
        case YAML_READER_ERROR:
            // Reader errors (invalid UTF-8, control characters) carry a byte offset, not a mark.
            let text = bytes.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) }
            var offset = min(parser.problem_offset, bytes.count)
            var message = "invalid input: \(problem)"
            if parser.problem_value >= 0 {
                let hex = HexDigits.text(UInt32(truncatingIfNeeded: parser.problem_value), digits: 2)
                message += " (0x\(hex) at byte offset \(offset))"
            }
            if let text {
                // libyaml reads UTF-16 with a byte order mark itself; without one, or UTF-32, is refused here.
                if parser.problem_value == 0, offset < 4, let encoding = wideTextEncoding(text, bytes.count) {
                    return ConfigError(
                        .syntax, wideTextMessage(encoding, format: "YAML"), at: SourceLocation(file: file, line: 1, column: 1))
                }
                // libyaml names the byte it stopped at (for a bad continuation, the byte after the
                // lead byte); the sequence's first byte is the one the text has wrong.
                if problem.contains("UTF-8") || problem.contains("Unicode"), wideTextEncoding(text, bytes.count) == nil,
                    let bad = firstInvalidUTF8(text, from: 0, to: bytes.count)
                {
                    offset = bad
                    let hex = HexDigits.text(UInt32(text[bad]), digits: 2)
                    message = "invalid UTF-8 (sequence starting with byte 0x\(hex) at byte offset \(bad)); \(configNotUTF8Fix)"
                }
            }
            var line = 1, column = 1
            for b in UnsafeRawBufferPointer(rebasing: bytes[0..<offset]) {
                if b == 0x0A {
                    line += 1
                    column = 1
                } else if b & 0xC0 != 0x80 {
                    column += 1
                }
            }
            return ConfigError(.syntax, message, at: SourceLocation(file: file, line: line, column: column))
        default:
            var message = problem
            if let context = parser.context {
                let c = parser.context_mark
                message += " (\(String(cString: context)) at line \(c.line + 1), column \(c.column + 1))"
            }
            let m = parser.problem_mark
            if let text = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                TruncatedInput.onlySpace(after: Int(m.index), in: text, count: bytes.count)
            {
                message += TruncatedInput.textFix
            }
            switch character(in: bytes, line: m.line, column: m.column) {
            case 0x09:
                message += "; tabs cannot be used for indentation in YAML"
            case UInt8(ascii: "@"), UInt8(ascii: "`"):
                message += "; quote strings that start with @ or ` (write '@text' or \"@text\")"
            default:
                break
            }
            return ConfigError(.syntax, message, at: SourceLocation(file: file, line: m.line + 1, column: m.column + 1))
        }
    }

    /// The first byte of the character at a 0-based line and column of UTF-8 input (error path only).
    static func character(in bytes: UnsafeRawBufferPointer, line: Int, column: Int) -> UInt8? {
        var i = 0, l = 0
        while l < line {
            guard let nl = bytes[i...].firstIndex(of: 0x0A) else { return nil }
            i = nl + 1
            l += 1
        }
        var c = 0
        while i < bytes.count {
            if bytes[i] == 0x0A { return nil }
            if bytes[i] & 0xC0 != 0x80 {
                if c == column { return bytes[i] }
                c += 1
            }
            i += 1
        }
        return nil
    }
}

/// An anchored node: where it is in the builder and whether it is complete yet.
private struct YAMLAnchor {
    var index: Int
    var finished: Bool
}

/// The per-load state fed one libyaml event at a time.
private struct YAMLEventReader {
    var builder: DocumentBuilder
    let limits: ConfigLimits
    var documents = 0
    /// Anchors by name; created on the first anchor seen.
    var anchors: [String: YAMLAnchor]? = nil
    /// Anchored containers still open: (builder depth after opening, anchor name).
    var openAnchors: [(depth: Int, name: String)] = []
    /// Nodes added by alias expansion so far.
    var expanded = 0
    /// Whether the next node is a map key. Tracked here rather than asked of the builder
    /// (`DocumentBuilder.expectsKey`) because it is needed for every scalar.
    var keyNext = false
    /// Whether the innermost open container is a map.
    var inMap = false
    /// `(inMap, keyNext)` of each enclosing container, to restore when the inner one ends.
    var keyStates: [(inMap: Bool, keyNext: Bool)] = []

    init(builder: DocumentBuilder, limits: ConfigLimits) {
        self.builder = builder
        self.limits = limits
    }

    func location(_ mark: yaml_mark_t) -> SourceLocation {
        builder.location(line: mark.line + 1, column: mark.column + 1)
    }

    mutating func handle(_ event: UnsafeMutablePointer<yaml_event_t>) throws(ConfigError) {
        let mark = event.pointee.start_mark
        switch event.pointee.type {
        case YAML_SCALAR_EVENT:
            try scalar(event, mark)
        case YAML_SEQUENCE_START_EVENT:
            let data = event.pointee.data.sequence_start
            try container(.list, tag: data.tag, anchor: data.anchor, mark)
        case YAML_MAPPING_START_EVENT:
            let data = event.pointee.data.mapping_start
            try container(.map, tag: data.tag, anchor: data.anchor, mark)
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            let depth = builder.depth
            builder.endContainer()
            if let outer = keyStates.popLast() { (inMap, keyNext) = outer }
            if let last = openAnchors.last, last.depth == depth {
                openAnchors.removeLast()
                anchors?[last.name]?.finished = true
            }
        case YAML_ALIAS_EVENT:
            try alias(event.pointee.data.alias.anchor, mark)
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            if documents > 1 {
                throw ConfigError(
                    .schema,
                    "only one YAML document per file; put each in a file of its own (cr_load_files loads several as one)",
                    at: location(mark))
            }
        default:
            break  // stream start, document end
        }
    }

    // MARK: - Scalars

    mutating func scalar(_ event: UnsafeMutablePointer<yaml_event_t>, _ mark: yaml_mark_t) throws(ConfigError) {
        let data = event.pointee.data.scalar
        let value = UnsafeRawBufferPointer(start: data.value, count: data.length)
        let line = mark.line + 1, column = mark.column + 1
        let plain = data.style == YAML_PLAIN_SCALAR_STYLE
        let index = builder.nodeCount

        let isKey = keyNext
        assert(isKey == builder.expectsKey)
        if inMap { keyNext.toggle() }
        if isKey {
            if plain && data.tag == nil && value.count == 2 && value[0] == UInt8(ascii: "<") && value[1] == UInt8(ascii: "<") {
                throw ConfigError(.schema, "merge keys ('<<') are not supported; write the keys out", at: location(mark))
            }
            if let tag = data.tag {
                // Keys are stored as their text, but a standard tag must still fit it.
                let t = YAMLTag(tag)
                switch t {
                case .nonSpecific, .str: break
                case .int, .float, .bool, .null:
                    _ = try typed(t, value, tag: tag, mark)
                case .map, .seq:
                    throw ConfigError(.schema, "tag '\(YAMLTag.display(tag))' on a scalar", at: location(mark))
                case .other:
                    throw ConfigError(
                        .schema, "unsupported tag '\(YAMLTag.display(tag))'; remove it (config values are plain YAML)",
                        at: location(mark))
                }
            }
            try builder.addString(value, line: line, column: column)
        } else if let tag = data.tag {
            let t = YAMLTag(tag)
            switch t {
            case .nonSpecific, .str:
                try builder.addString(value, line: line, column: column)
            case .int, .float, .bool, .null:
                try add(try typed(t, value, tag: tag, mark), value, line: line, column: column)
            case .map, .seq:
                throw ConfigError(.schema, "tag '\(YAMLTag.display(tag))' on a scalar", at: location(mark))
            case .other:
                throw ConfigError(
                    .schema, "unsupported tag '\(YAMLTag.display(tag))'; remove it (config values are plain YAML)",
                    at: location(mark))
            }
        } else if plain {
            try add(try YAMLScalar.resolve(value, location: location(mark)), value, line: line, column: column)
        } else {
            try builder.addString(value, line: line, column: column)
        }

        if let anchor = data.anchor {
            define(anchor, index: index, finished: true)
        }
    }

    /// The value of a scalar with an explicit `!!int`, `!!float`, `!!bool` or `!!null` tag.
    func typed(
        _ tag: YAMLTag, _ value: UnsafeRawBufferPointer, tag raw: UnsafePointer<UInt8>,
        _ mark: yaml_mark_t
    ) throws(ConfigError) -> YAMLScalar {
        let resolved = try YAMLScalar.resolve(value, location: location(mark))
        switch (tag, resolved) {
        case (.int, .int), (.float, .double), (.bool, .bool), (.null, .null):
            return resolved
        case (.float, .int(let i)):
            // An integer written under !!float: exact when it can be, else re-read so it rounds correctly.
            if let d = DecimalNumber.exactDouble(i.magnitude, exponent: 0) { return .double(i < 0 ? -d : d) }
            return YAMLScalar.slowDouble(value)
        default:
            let text = String(decoding: value.prefix(80), as: UTF8.self)
            let kind: String
            switch tag {
            case .int: kind = "an integer"
            case .float: kind = "a floating-point number"
            case .bool: kind = "a boolean"
            default: kind = "null"
            }
            throw ConfigError(.schema, "'\(text)' is not \(kind) (tagged '\(YAMLTag.display(raw))')", at: location(mark))
        }
    }

    mutating func add(_ scalar: YAMLScalar, _ value: UnsafeRawBufferPointer, line: Int, column: Int) throws(ConfigError) {
        switch scalar {
        case .null: try builder.addNull(line: line, column: column)
        case .bool(let b): try builder.addBool(b, line: line, column: column)
        case .int(let i): try builder.addInt(i, line: line, column: column)
        case .double(let d): try builder.addDouble(d, line: line, column: column)
        case .string: try builder.addString(value, line: line, column: column)
        }
    }

    // MARK: - Collections

    mutating func container(
        _ kind: ConfigNode.Kind, tag: UnsafeMutablePointer<UInt8>?, anchor: UnsafeMutablePointer<UInt8>?,
        _ mark: yaml_mark_t
    ) throws(ConfigError) {
        let what = kind == .map ? "a map" : "a list"
        assert(keyNext == builder.expectsKey)
        if keyNext {
            throw ConfigError(.schema, "a map key must be a scalar, not \(what)", at: location(mark))
        }
        if let tag {
            switch YAMLTag(tag) {
            case .nonSpecific: break
            case .map where kind == .map: break
            case .seq where kind == .list: break
            case .str, .int, .float, .bool, .null, .map, .seq:
                throw ConfigError(.schema, "tag '\(YAMLTag.display(tag))' on \(what)", at: location(mark))
            case .other:
                throw ConfigError(
                    .schema, "unsupported tag '\(YAMLTag.display(tag))'; remove it (config values are plain YAML)",
                    at: location(mark))
            }
        }
        let index = builder.nodeCount
        if kind == .map {
            try builder.beginMap(line: mark.line + 1, column: mark.column + 1)
        } else {
            try builder.beginList(line: mark.line + 1, column: mark.column + 1)
        }
        // The outer map (if any) expects a key after this value.
        keyStates.append((inMap, inMap ? !keyNext : keyNext))
        inMap = kind == .map
        keyNext = inMap
        if let anchor {
            let name = define(anchor, index: index, finished: false)
            openAnchors.append((builder.depth, name))
        }
    }

    // MARK: - Anchors and aliases

    @discardableResult
    mutating func define(_ anchor: UnsafePointer<UInt8>, index: Int, finished: Bool) -> String {
        let name = String(cString: anchor)
        if anchors == nil {
            anchors = [:]
            // An alias copies the anchored nodes: from now on none is reused.
            builder.keepNodes()
        }
        anchors![name] = YAMLAnchor(index: index, finished: finished)
        return name
    }

    mutating func alias(_ anchor: UnsafePointer<UInt8>?, _ mark: yaml_mark_t) throws(ConfigError) {
        let name = anchor.map { String(cString: $0) } ?? ""
        guard let target = anchors?[name] else {
            throw ConfigError(.syntax, "alias '*\(name)' refers to an unknown anchor", at: location(mark))
        }
        if !target.finished {
            throw ConfigError(.schema, "alias '*\(name)' refers to a node that contains it (recursive)", at: location(mark))
        }
        assert(keyNext == builder.expectsKey)
        if keyNext && builder.kind(of: target.index) != .string {
            throw ConfigError(.schema, "alias '*\(name)' used as a map key must refer to a string", at: location(mark))
        }
        let node = builder.node(at: target.index)
        let size = node.isContainer ? Int(node.extent) - target.index : 1
        if size > limits.maxAliasExpansion - expanded {
            throw ConfigError(
                .limit,
                "aliases expand to more than the limit of \(limits.maxAliasExpansion) values"
                    + ConfigLimits.fix("CR_LIMIT_ALIAS_EXPANSION"),
                at: location(mark))
        }
        expanded += size
        let copy = builder.nodeCount
        try builder.addCopy(of: target.index)
        if inMap { keyNext.toggle() }
        // The copy's root stands where the alias was written.
        builder.setPlace(of: copy, line: Int(clamping: mark.line + 1), column: Int(clamping: mark.column + 1))
    }
}

/// The standard tags the loader honours.
enum YAMLTag {
    case nonSpecific, str, int, float, bool, null, map, seq, other

    init(_ tag: UnsafePointer<UInt8>) {
        // "!" alone is the non-specific tag; the standard ones arrive resolved as "tag:yaml.org,2002:x".
        if tag[0] == UInt8(ascii: "!") && tag[0 + 1] == 0 {
            self = .nonSpecific
            return
        }
        let prefix: StaticString = "tag:yaml.org,2002:"
        let n = prefix.utf8CodeUnitCount
        if strncmp(
            UnsafeRawPointer(tag).assumingMemoryBound(to: CChar.self),
            UnsafeRawPointer(prefix.utf8Start).assumingMemoryBound(to: CChar.self), n) != 0
        {
            self = .other
            return
        }
        let rest = UnsafeRawPointer(tag + n).assumingMemoryBound(to: CChar.self)
        func equals(_ s: StaticString) -> Bool {
            strcmp(rest, UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self)) == 0
        }
        if equals("str") {
            self = .str
        } else if equals("int") {
            self = .int
        } else if equals("float") {
            self = .float
        } else if equals("bool") {
            self = .bool
        } else if equals("null") {
            self = .null
        } else if equals("map") {
            self = .map
        } else if equals("seq") {
            self = .seq
        } else {
            self = .other
        }
    }

    /// The tag as a person would write it (`!!binary` rather than `tag:yaml.org,2002:binary`).
    static func display(_ tag: UnsafePointer<UInt8>) -> String {
        let text = String(cString: tag)
        let prefix = "tag:yaml.org,2002:"
        if text.hasPrefix(prefix) { return "!!" + text.dropFirst(prefix.count) }
        return text
    }
}

/// A plain scalar's type under the YAML 1.2 core schema, decided from its bytes.
enum YAMLScalar: Equatable {
    case null, bool(Bool), int(Int64), double(Double), string

    /// Resolves a plain scalar. Throws `.syntax` for an integer that does not fit in 64 bits.
    static func resolve(
        _ v: UnsafeRawBufferPointer, location: @autoclosure () -> SourceLocation
    ) throws(ConfigError) -> YAMLScalar {
        let n = v.count
        if n == 0 { return .null }
        let c = v[0]
        switch c {
        case UInt8(ascii: "~"):
            return n == 1 ? .null : .string
        case UInt8(ascii: "n"), UInt8(ascii: "N"):
            return n == 4 && (matches(v, "null") || matches(v, "Null") || matches(v, "NULL")) ? .null : .string
        case UInt8(ascii: "t"), UInt8(ascii: "T"):
            return n == 4 && (matches(v, "true") || matches(v, "True") || matches(v, "TRUE")) ? .bool(true) : .string
        case UInt8(ascii: "f"), UInt8(ascii: "F"):
            return n == 5 && (matches(v, "false") || matches(v, "False") || matches(v, "FALSE")) ? .bool(false) : .string
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."):
            return try number(v, location: location())
        default:
            return .string
        }
    }

    @inline(__always)
    static func matches(_ v: UnsafeRawBufferPointer, _ s: StaticString) -> Bool {
        memcmp(v.baseAddress!, s.utf8Start, s.utf8CodeUnitCount) == 0
    }

    @inline(__always)
    static func isDigit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }

    /// Ints (`[-+]?[0-9]+`, `0o[0-7]+`, `0x[0-9a-fA-F]+`), floats and `.inf`/`.nan`; anything else is a string.
    static func number(_ v: UnsafeRawBufferPointer, location: @autoclosure () -> SourceLocation) throws(ConfigError) -> YAMLScalar
    {
        let n = v.count
        // Octal and hexadecimal (unsigned only in the core schema).
        if n > 2 && v[0] == UInt8(ascii: "0") && (v[1] == UInt8(ascii: "o") || v[1] == UInt8(ascii: "x")) {
            let hex = v[1] == UInt8(ascii: "x")
            var value: UInt64 = 0
            var overflow = false
            for i in 2..<n {
                let b = v[i]
                let d: UInt8
                if hex {
                    guard let h = HexDigits.value(b) else { return .string }
                    d = h
                } else {
                    guard b >= UInt8(ascii: "0") && b <= UInt8(ascii: "7") else { return .string }
                    d = b - UInt8(ascii: "0")
                }
                if value > (UInt64(Int64.max) - UInt64(d)) >> (hex ? 4 : 3) { overflow = true }
                value = value &<< (hex ? 4 : 3) | UInt64(d)
            }
            if overflow { throw tooBig(v, location()) }
            return .int(Int64(value))
        }

        var i = 0
        var negative = false
        if v[0] == UInt8(ascii: "-") || v[0] == UInt8(ascii: "+") {
            negative = v[0] == UInt8(ascii: "-")
            i = 1
        }
        guard i < n else { return .string }

        // .inf / .nan
        if v[i] == UInt8(ascii: "."), n - i == 4, !isDigit(v[i + 1]) {
            let rest = UnsafeRawBufferPointer(rebasing: v[(i + 1)...])
            if matches(rest, "inf") || matches(rest, "Inf") || matches(rest, "INF") {
                return .double(negative ? -.infinity : .infinity)
            }
            if i == 0 && (matches(rest, "nan") || matches(rest, "NaN") || matches(rest, "NAN")) {
                return .double(.nan)
            }
            return .string
        }

        // Integer part.
        let intStart = i
        var magnitude: UInt64 = 0
        var overflow = false
        while i < n && isDigit(v[i]) {
            DecimalNumber.append(v[i] &- UInt8(ascii: "0"), to: &magnitude, overflow: &overflow)
            i += 1
        }
        let intDigits = i - intStart
        if i == n {
            guard intDigits > 0 else { return .string }
            guard !overflow, let value = DecimalNumber.int64(magnitude, negative: negative) else { throw tooBig(v, location()) }
            return .int(value)
        }

        // Float: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
        var exponent = 0
        if v[i] == UInt8(ascii: ".") {
            i += 1
            let fracStart = i
            while i < n && isDigit(v[i]) {
                DecimalNumber.append(v[i] &- UInt8(ascii: "0"), to: &magnitude, overflow: &overflow)
                exponent -= 1
                i += 1
            }
            if intDigits == 0 && i == fracStart { return .string }
        } else if intDigits == 0 {
            return .string
        }
        if i < n && (v[i] == UInt8(ascii: "e") || v[i] == UInt8(ascii: "E")) {
            i += 1
            var expNegative = false
            if i < n && (v[i] == UInt8(ascii: "-") || v[i] == UInt8(ascii: "+")) {
                expNegative = v[i] == UInt8(ascii: "-")
                i += 1
            }
            let expStart = i
            var e = 0
            while i < n && isDigit(v[i]) {
                if e < 100_000 { e = e * 10 + Int(v[i] &- UInt8(ascii: "0")) }
                i += 1
            }
            if i == expStart { return .string }
            exponent += expNegative ? -e : e
        }
        if i != n { return .string }
        if !overflow, let d = DecimalNumber.exactDouble(magnitude, exponent: exponent) {
            return .double(negative ? -d : d)
        }
        let slow = slowDouble(v)
        // A decimal too large for a double is refused as in JSON, not read as infinity (`.inf`
        // says that on purpose).
        if case .double(let d) = slow, d.isInfinite { throw DecimalNumber.tooLarge(v, location()) }
        return slow
    }

    static func tooBig(_ v: UnsafeRawBufferPointer, _ location: SourceLocation) -> ConfigError {
        ConfigError(.syntax, "integer \(String(decoding: v.prefix(80), as: UTF8.self)) does not fit in 64 bits", at: location)
    }

    /// Long mantissas and large exponents: the standard library's locale-independent parser (rare,
    /// so the String it needs does not matter).
    static func slowDouble(_ v: UnsafeRawBufferPointer) -> YAMLScalar {
        guard let base = v.baseAddress,
            let d = DecimalNumber.parseDouble(base.assumingMemoryBound(to: UInt8.self), count: v.count)
        else { return .string }
        return .double(d)
    }
}
