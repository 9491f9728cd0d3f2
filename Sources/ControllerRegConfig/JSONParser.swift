/// Parses JSON config text (strict RFC 8259) into a `ConfigDocument`.
///
/// The parser works on the raw bytes with an explicit container stack (no recursion), validates
/// UTF-8 inside strings, tracks line and column while skipping whitespace, and hands every value
/// to a `DocumentBuilder`, which enforces the limits and reports duplicate keys.
enum JSONParser {
    static func parse(
        _ bytes: UnsafeRawBufferPointer, file: String, limits: ConfigLimits, pairs sink: TopLevelPairSink? = nil
    ) throws(ConfigError) -> ConfigDocument {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            throw ConfigError(.syntax, "empty input: expected a JSON value", at: SourceLocation(file: file, line: 1, column: 1))
        }
        return try DocumentBuilder.build(file: file, limits: limits, expectedBytes: bytes.count, sink: sink) {
            builder throws(ConfigError) in
            var reader = JSONReader(
                base: base.assumingMemoryBound(to: UInt8.self), count: bytes.count, file: file, builder: builder)
            try reader.run()
            builder = reader.builder
        }
    }
}

/// The byte-level JSON reader behind `JSONParser`.
///
/// The open containers are the builder's (one stack); strings are unescaped straight into the
/// builder's string buffer, eight bytes at a time, with no per-byte bounds check: a JSON string's
/// bytes and its NUL never outnumber the input bytes it was read from, so a reserve of the input's
/// size (made once) holds them all.
struct JSONReader {
    /// An open object or array, with where it started (for "not closed" messages).
    struct Frame {
        var isMap: Bool
        var line: Int
        var column: Int
    }

    let p: UnsafePointer<UInt8>
    let end: Int
    let file: String
    var pos = 0
    var line = 1
    /// Offset of the first byte of the current line.
    var lineStart = 0
    var builder: DocumentBuilder

    init(base: UnsafePointer<UInt8>, count: Int, file: String, builder: DocumentBuilder) {
        p = base
        end = count
        self.file = file
        self.builder = builder
        self.builder.reserveUnchecked(count)
    }

    /// The byte at `i`, or 0 past the end (0 is never valid outside a string).
    @inline(__always) func at(_ i: Int) -> UInt8 { i < end ? p[i] : 0 }

    /// The 1-based column of offset `i` on the current line.
    @inline(__always) func column(_ i: Int) -> Int { i &- lineStart &+ 1 }

    @inline(__always) static func isDigit(_ c: UInt8) -> Bool { c &- 0x30 < 10 }

    /// The innermost open container, for messages.
    var stackTop: Frame? {
        let index = builder.topIndex
        guard index >= 0 else { return nil }
        let n = builder.node(at: index)
        return Frame(isMap: n.kind == .map, line: Int(n.line), column: Int(n.column))
    }

    /// Skips JSON whitespace (space, tab, LF, CR), counting lines (LF, CRLF or a lone CR).
    /// Inline: nothing to skip, one space (after ':'), or a line break and its indentation;
    /// anything else goes to the loop.
    @inline(__always) mutating func skipWhitespace() {
        guard pos < end else { return }
        let c = p[pos]
        if c > 0x20 { return }
        let next = pos &+ 1
        if c == 0x20 {
            if next < end && p[next] > 0x20 {
                pos = next
                return
            }
        } else if c == 0x0A && end &- next >= 8 {
            let other = UInt64(littleEndian: UnsafeRawPointer(p + next).loadUnaligned(as: UInt64.self)) ^ 0x2020_2020_2020_2020
            if other != 0 {
                let q = next &+ (other.trailingZeroBitCount &>> 3)
                if p[q] > 0x20 {
                    line &+= 1
                    lineStart = next
                    pos = q
                    return
                }
            }
        }
        skipWhitespaceLoop()
    }

    @inline(never) mutating func skipWhitespaceLoop() {
        while pos < end {
            let c = p[pos]
            if c > 0x20 { return }
            if c == 0x0A {
                pos &+= 1
                line &+= 1
                lineStart = pos
                // Indentation: the spaces after a line break, eight at a time.
                while end &- pos >= 8 {
                    let w = UInt64(littleEndian: UnsafeRawPointer(p + pos).loadUnaligned(as: UInt64.self))
                    let other = w ^ 0x2020_2020_2020_2020
                    if other != 0 {
                        pos &+= other.trailingZeroBitCount &>> 3
                        break
                    }
                    pos &+= 8
                }
            } else if c == 0x20 || c == 0x09 {
                pos &+= 1
            } else if c == 0x0D {
                pos &+= 1
                if pos < end && p[pos] == 0x0A { continue }
                line &+= 1
                lineStart = pos
            } else {
                return
            }
        }
    }

    // MARK: - Structure

    mutating func run() throws(ConfigError) {
        if end >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF {
            throw fail("byte order mark is not allowed in JSON (RFC 8259): save the file as UTF-8 without one", at: 0)
        }
        if end >= 2 && (p[0] == 0 || p[1] == 0 || p[0] >= 0xFE), let encoding = wideTextEncoding(p, end) {
            throw fail(wideTextMessage(encoding, format: "JSON"), at: 0)
        }
        skipWhitespace()
        if pos >= end { throw fail("expected a JSON value, found only whitespace", at: pos) }

        value: while true {
            // `pos` is at the first byte of a value (whitespace skipped).
            switch at(pos) {
            case UInt8(ascii: "\""):
                try parseString(isKey: false)
            case UInt8(ascii: "{"):
                try builder.beginMap(line: line, column: column(pos))
                pos &+= 1
                skipWhitespace()
                if at(pos) == UInt8(ascii: "}") {
                    pos &+= 1
                    builder.endContainer()
                } else {
                    try parseKey(afterComma: false)
                    continue value
                }
            case UInt8(ascii: "["):
                try builder.beginList(line: line, column: column(pos))
                pos &+= 1
                skipWhitespace()
                if at(pos) == UInt8(ascii: "]") {
                    pos &+= 1
                    builder.endContainer()
                } else {
                    continue value
                }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                if try !parseShortNumber() { try parseNumber() }
            case UInt8(ascii: "t"):
                try parseLiteral("true", 0x65_75_72_74)
                try builder.addBool(true, line: line, column: column(pos &- 4))
            case UInt8(ascii: "f"):
                if at(pos &+ 4) == UInt8(ascii: "e") {
                    try parseLiteral("false", 0x73_6C_61_66, extra: 1)
                    try builder.addBool(false, line: line, column: column(pos &- 5))
                } else {
                    throw badValue()
                }
            case UInt8(ascii: "n"):
                try parseLiteral("null", 0x6C_6C_75_6E)
                try builder.addNull(line: line, column: column(pos &- 4))
            default:
                throw badValue()
            }

            // A value is complete: close containers until one continues with ','.
            while builder.topIndex >= 0 {
                skipWhitespace()
                let c = at(pos)
                let isMap = builder.topIsMap
                if c == UInt8(ascii: ",") {
                    pos &+= 1
                    skipWhitespace()
                    if isMap {
                        try parseKey(afterComma: true)
                    } else if at(pos) == UInt8(ascii: "]") {
                        throw fail("trailing comma before ']' is not allowed in JSON", at: pos)
                    }
                    continue value
                }
                if c == (isMap ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    pos &+= 1
                    builder.endContainer()
                    continue
                }
                throw afterValueError(stackTop!)
            }
            break
        }

        skipWhitespace()
        if pos < end {
            throw fail("unexpected \(describe(pos)) after the JSON value (only one top-level value is allowed)", at: pos)
        }
    }

    /// Reads `"key"` and the `:` after it, leaving `pos` at the value.
    @inline(__always) mutating func parseKey(afterComma: Bool) throws(ConfigError) {
        guard at(pos) == UInt8(ascii: "\"") else { throw badKey(afterComma: afterComma) }
        let keyStart = pos
        try parseString(isKey: true)
        if at(pos) == UInt8(ascii: ":") {
            pos &+= 1
        } else {
            skipWhitespace()
            guard at(pos) == UInt8(ascii: ":") else { throw missingColon(keyStart: keyStart) }
            pos &+= 1
        }
        skipWhitespace()
    }

    /// Matches a literal whose first four bytes (little-endian) are `word` and advances past it.
    @inline(__always) mutating func parseLiteral(_ text: StaticString, _ word: UInt32, extra: Int = 0) throws(ConfigError) {
        let length = 4 &+ extra
        if end &- pos >= length {
            let w = UnsafeRawPointer(p + pos).loadUnaligned(as: UInt32.self)
            if UInt32(littleEndian: w) == word {
                pos &+= length
                return
            }
        }
        throw badValue()
    }

    // MARK: - Strings

    /// Reads a string at `pos` (the opening quote), unescaping and validating UTF-8 straight into
    /// the builder's string buffer, and adds it.
    @inline(__always) mutating func parseString(isKey: Bool) throws(ConfigError) {
        let quote = pos
        var i = pos &+ 1
        let start = builder.stringCount
        // The reserve made in `init` covers every byte written here, whole words included: the
        // output offset never passes the input offset `i`.
        var out = builder.stringBase + start
        while true {
            // Plain ASCII eight bytes at a time: each word is stored before it is looked at; the
            // bytes from the first one needing attention on are written again below.
            while end &- i >= 8 {
                let w = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
                UnsafeMutableRawPointer(out).storeBytes(of: w, as: UInt64.self)
                let hits = JSONReader.attentionMask(UInt64(littleEndian: w))
                if hits != 0 {
                    let k = hits.trailingZeroBitCount &>> 3
                    i &+= k
                    out += k
                    break
                }
                i &+= 8
                out += 8
            }
            guard i < end else { throw unterminatedString(quote) }
            let c = p[i]
            if c == 0x22 { break }
            if c == 0x5C {
                i = try unescape(at: i, quote: quote, into: &out)
            } else if c < 0x20 {
                throw controlCharacter(at: i)
            } else if c < 0x80 {
                out.pointee = c
                out += 1
                i &+= 1
            } else {
                let n = utf8SequenceLength(p, i, end)
                if n == 0 { throw invalidUTF8(at: i, lead: c) }
                UnsafeMutableRawPointer(out).copyMemory(from: p + i, byteCount: n)
                out += n
                i &+= n
            }
        }
        pos = i &+ 1
        try builder.endReservedString(start: start, at: out, isKey: isKey, line: line, column: column(quote))
    }

    /// The high bit of each byte of `w` (little-endian) that is a quote, a backslash, a control
    /// character or non-ASCII; bytes above the first hit may be flagged falsely, the lowest never.
    ///
    /// Per byte b (ignoring borrows from below, which only happen above a hit): (b ^ 0x22) - 1 and
    /// (b ^ 0x5C) - 1 have the high bit set when b is a quote or a backslash (or >= 0x80), b - 0x20
    /// when b < 0x20 (or >= 0xA0), and b itself when b >= 0x80.
    @inline(__always) static func attentionMask(_ w: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quote = (w ^ (ones &* 0x22)) &- ones
        let slash = (w ^ (ones &* 0x5C)) &- ones
        let control = w &- (ones &* 0x20)
        return (quote | slash | control | w) & (ones &* 0x80)
    }

    /// Handles the escape whose backslash is at `i`, writing its bytes at `out`; returns the
    /// offset after it.
    mutating func unescape(at i: Int, quote: Int, into out: inout UnsafeMutablePointer<UInt8>) throws(ConfigError) -> Int {
        let e = at(i &+ 1)
        let byte: UInt8
        switch e {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): byte = e
        case UInt8(ascii: "b"): byte = 0x08
        case UInt8(ascii: "f"): byte = 0x0C
        case UInt8(ascii: "n"): byte = 0x0A
        case UInt8(ascii: "r"): byte = 0x0D
        case UInt8(ascii: "t"): byte = 0x09
        case UInt8(ascii: "u"):
            guard let first = hex4(at: i &+ 2) else {
                throw fail("invalid \\u escape in a string: expected four hex digits after \\u", at: i)
            }
            var value = first
            var next = i &+ 6
            if first >= 0xD800 && first <= 0xDBFF {
                guard at(next) == UInt8(ascii: "\\"), at(next &+ 1) == UInt8(ascii: "u"),
                    let low = hex4(at: next &+ 2), low >= 0xDC00 && low <= 0xDFFF
                else {
                    throw fail(
                        "lone surrogate \\u\(HexDigits.text(first, digits: 4)) in a string: a high surrogate must be followed by a low surrogate escape (\\uDC00-\\uDFFF)",
                        at: i)
                }
                value = 0x10000 &+ ((first &- 0xD800) << 10) &+ (low &- 0xDC00)
                next &+= 6
            } else if first >= 0xDC00 && first <= 0xDFFF {
                throw fail(
                    "lone surrogate \\u\(HexDigits.text(first, digits: 4)) in a string: a low surrogate must follow a high surrogate (\\uD800-\\uDBFF)",
                    at: i)
            }
            // Six input bytes give at most three output bytes, twelve at most four.
            if value < 0x80 {
                out[0] = UInt8(value)
                out += 1
            } else if value < 0x800 {
                out[0] = UInt8(0xC0 | value >> 6)
                out[1] = UInt8(0x80 | value & 0x3F)
                out += 2
            } else if value < 0x10000 {
                out[0] = UInt8(0xE0 | value >> 12)
                out[1] = UInt8(0x80 | value >> 6 & 0x3F)
                out[2] = UInt8(0x80 | value & 0x3F)
                out += 3
            } else {
                out[0] = UInt8(0xF0 | value >> 18)
                out[1] = UInt8(0x80 | value >> 12 & 0x3F)
                out[2] = UInt8(0x80 | value >> 6 & 0x3F)
                out[3] = UInt8(0x80 | value & 0x3F)
                out += 4
            }
            return next
        default:
            if i &+ 1 >= end { throw unterminatedString(quote) }
            throw fail(
                "invalid escape '\\\(printable(e))' in a string (allowed: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)", at: i)
        }
        out.pointee = byte
        out += 1
        return i &+ 2
    }

    /// The value of four hex digits at `i`, or nil.
    func hex4(at i: Int) -> UInt32? {
        guard end &- i >= 4 else { return nil }
        var value: UInt32 = 0
        for k in 0..<4 {
            guard let d = HexDigits.value(p[i &+ k]) else { return nil }
            value = value << 4 | UInt32(d)
        }
        return value
    }

    // MARK: - Numbers

    /// The common numbers without a call: `-?(0|[1-9][0-9]*)(\.[0-9]+)?` of at most 19 digits, read
    /// at `pos` and added (an integer that fits, or a decimal whose digits and power of ten are exact
    /// doubles, so one division rounds it correctly). Returns false, having read nothing, for
    /// anything else (exponents, longer numbers, every malformed case): `parseNumber` reads those.
    @inline(__always) mutating func parseShortNumber() throws(ConfigError) -> Bool {
        let start = pos
        var i = start
        let negative = p[i] == UInt8(ascii: "-")
        if negative { i &+= 1 }
        let digitsStart = i
        var mantissa: UInt64 = 0
        while i < end {
            let d = p[i] &- 0x30
            if d >= 10 { break }
            mantissa = mantissa &* 10 &+ UInt64(d)
            i &+= 1
        }
        var digits = i &- digitsStart
        // No digit, or a leading zero followed by more digits: the full reader says what is wrong.
        if digits == 0 || (p[digitsStart] == UInt8(ascii: "0") && digits > 1) { return false }
        var fraction = 0
        if i < end && p[i] == UInt8(ascii: ".") {
            i &+= 1
            let fractionStart = i
            while i < end {
                let d = p[i] &- 0x30
                if d >= 10 { break }
                mantissa = mantissa &* 10 &+ UInt64(d)
                i &+= 1
            }
            fraction = i &- fractionStart
            if fraction == 0 { return false }
            digits &+= fraction
        }
        if digits > 19 || (i < end && p[i] | 0x20 == UInt8(ascii: "e")) { return false }
        let col = column(start)
        if fraction == 0 {
            guard let value = DecimalNumber.int64(mantissa, negative: negative) else { return false }
            pos = i
            try builder.addInt(value, line: line, column: col)
            return true
        }
        guard mantissa <= 1 << 53 else { return false }
        let value = Double(mantissa) / DecimalNumber.powerOfTen(fraction)
        pos = i
        try builder.addDouble(negative ? -value : value, line: line, column: col)
        return true
    }

    /// Reads a number at `pos` (a '-' or a digit) and adds it as an int or a double. Up to 19
    /// significant digits are gathered without overflow checks (they always fit in 64 bits);
    /// longer numbers go through `DecimalNumber`'s checked path.
    @inline(__always) mutating func parseNumber() throws(ConfigError) {
        let start = pos
        var i = pos
        let negative = p[i] == UInt8(ascii: "-")
        if negative { i &+= 1 }
        var mantissa: UInt64 = 0
        var exponent = 0
        var isDouble = false

        let digitsStart = i
        let first = at(i)
        if first == UInt8(ascii: "0") {
            i &+= 1
            if JSONReader.isDigit(at(i)) {
                throw fail("leading zeros are not allowed in JSON numbers ('\(text(start, i &+ 1))')", at: start)
            }
        } else if JSONReader.isDigit(first) {
            while true {
                let d = at(i) &- 0x30
                if d >= 10 { break }
                mantissa = mantissa &* 10 &+ UInt64(d)
                i &+= 1
            }
        } else {
            throw fail("expected a digit after '-', found \(describe(i))", at: i)
        }
        var digits = i &- digitsStart

        if at(i) == UInt8(ascii: ".") {
            isDouble = true
            i &+= 1
            let fractionStart = i
            while true {
                let d = at(i) &- 0x30
                if d >= 10 { break }
                mantissa = mantissa &* 10 &+ UInt64(d)
                i &+= 1
            }
            if i == fractionStart {
                throw fail("expected a digit after the decimal point, found \(describe(i))", at: i)
            }
            exponent = fractionStart &- i
            digits &+= i &- fractionStart
        }

        let e = at(i)
        if e | 0x20 == UInt8(ascii: "e") {
            isDouble = true
            i &+= 1
            var negativeExponent = false
            let sign = at(i)
            if sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                negativeExponent = sign == UInt8(ascii: "-")
                i &+= 1
            }
            guard JSONReader.isDigit(at(i)) else {
                throw fail("expected a digit in the exponent, found \(describe(i))", at: i)
            }
            var value = 0
            while true {
                let d = at(i) &- 0x30
                if d >= 10 { break }
                if value < 1_000_000 { value = value &* 10 &+ Int(d) }
                i &+= 1
            }
            exponent = negativeExponent ? exponent &- value : exponent &+ value
        }

        pos = i
        let col = column(start)
        if digits > 19 {
            // The wrapped mantissa is useless: integers of 20 digits never fit, doubles take the
            // exact parse.
            try addLongNumber(start, i, isDouble: isDouble, column: col)
            return
        }
        if !isDouble {
            guard let value = DecimalNumber.int64(mantissa, negative: negative) else {
                throw fail("integer \(text(start, i)) does not fit in 64 bits", at: start)
            }
            try builder.addInt(value, line: line, column: col)
            return
        }
        if let value = DecimalNumber.exactDouble(mantissa, exponent: exponent) {
            try builder.addDouble(negative ? -value : value, line: line, column: col)
            return
        }
        try addLongNumber(start, i, isDouble: true, column: col)
    }

    /// The slow path of `parseNumber` for the number text at `start ..< i`: an integer that does
    /// not fit, or a double the fast path cannot round exactly.
    @inline(never) mutating func addLongNumber(_ start: Int, _ i: Int, isDouble: Bool, column col: Int) throws(ConfigError) {
        if !isDouble { throw fail("integer \(text(start, i)) does not fit in 64 bits", at: start) }
        guard let value = DecimalNumber.parseDouble(p + start, count: i &- start) else {
            throw fail("invalid number '\(text(start, i))'", at: start)
        }
        if value.isInfinite {
            throw fail(DecimalNumber.tooLargeText(text(start, i)), at: start)
        }
        try builder.addDouble(value, line: line, column: col)
    }

    // MARK: - Errors (cold)

    /// A syntax error at offset `i` of the current line.
    @inline(never) func fail(_ message: String, at i: Int) -> ConfigError {
        ConfigError(.syntax, message, at: SourceLocation(file: file, line: line, column: column(i)))
    }

    /// The input text between two offsets (shortened if long), for messages.
    @inline(never) func text(_ from: Int, _ to: Int) -> String {
        let upper = min(to, end)
        if upper &- from > 40 {
            return String(decoding: UnsafeBufferPointer(start: p + from, count: 40), as: UTF8.self) + "…"
        }
        return String(decoding: UnsafeBufferPointer(start: p + from, count: max(0, upper &- from)), as: UTF8.self)
    }

    /// A byte as it can be quoted in a message.
    @inline(never) func printable(_ c: UInt8) -> String {
        c >= 0x21 && c <= 0x7E ? String(UnicodeScalar(c)) : "0x" + HexDigits.text(UInt32(c), digits: 2)
    }

    /// What is at offset `i`, for "found …" messages: a word, a character or a byte.
    @inline(never) func describe(_ i: Int) -> String {
        guard i < end else { return "end of input" }
        let c = p[i]
        func isWord(_ c: UInt8) -> Bool {
            (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
                || JSONReader.isDigit(c) || c == UInt8(ascii: "_")
        }
        switch c {
        case 0x0A, 0x0D: return "a line break"
        case 0x09: return "a tab"
        case 0x20: return "a space"
        case _ where isWord(c):
            var j = i
            while j < end && isWord(p[j]) && j &- i < 24 { j &+= 1 }
            return "'\(text(i, j))'"
        case 0x21...0x7E: return "'\(String(UnicodeScalar(c)))'"
        case 0x80...0xFF: return "byte 0x\(HexDigits.text(UInt32(c), digits: 2)) (non-ASCII text outside a string)"
        default: return "control character 0x\(HexDigits.text(UInt32(c), digits: 2))"
        }
    }

    /// Where a value was expected but something else is at `pos`.
    @inline(never) func badValue() -> ConfigError {
        if pos >= end, let top = stackTop { return unclosed(top, expecting: "a value") }
        var message = "expected a value, found \(describe(pos))"
        switch at(pos) {
        case UInt8(ascii: "'"): message += " (JSON strings use double quotes)"
        case UInt8(ascii: "/"), UInt8(ascii: "#"): message += " (comments are not allowed in JSON)"
        case UInt8(ascii: "+"): message += " (JSON numbers have no '+' sign)"
        case UInt8(ascii: "."): message += " (a JSON number needs a digit before the decimal point, as in 0.5)"
        case UInt8(ascii: "N"), UInt8(ascii: "I"): message += " (NaN and Infinity are not allowed in JSON)"
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"): message += " (did you mean true, false or null?)"
        default: break
        }
        return fail(message, at: pos)
    }

    /// Where a key was expected in an object.
    @inline(never) func badKey(afterComma: Bool) -> ConfigError {
        if pos >= end, let top = stackTop { return unclosed(top, expecting: "a key") }
        let c = at(pos)
        if afterComma && c == UInt8(ascii: "}") {
            return fail("trailing comma before '}' is not allowed in JSON", at: pos)
        }
        var message = "expected a string key in double quotes, found \(describe(pos))"
        if c == UInt8(ascii: "'") {
            message += " (JSON strings use double quotes)"
        } else if c == UInt8(ascii: "/") || c == UInt8(ascii: "#") {
            message += " (comments are not allowed in JSON)"
        } else if (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z") || c == UInt8(ascii: "_") {
            message += " (keys must be quoted)"
        }
        return fail(message, at: pos)
    }

    @inline(never) func missingColon(keyStart: Int) -> ConfigError {
        if pos >= end, let top = stackTop { return unclosed(top, expecting: "':'") }
        return fail("expected ':' after the key \(text(keyStart, pos).trimmingSpaces()), found \(describe(pos))", at: pos)
    }

    @inline(never) func afterValueError(_ top: Frame) -> ConfigError {
        if pos >= end { return unclosed(top, expecting: top.isMap ? "',' or '}'" : "',' or ']'") }
        var message =
            top.isMap
            ? "expected ',' or '}' after a value in an object, found \(describe(pos))"
            : "expected ',' or ']' after a value in an array, found \(describe(pos))"
        let c = at(pos)
        if c == UInt8(ascii: "/") || c == UInt8(ascii: "#") {
            message += " (comments are not allowed in JSON)"
        } else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "{") || c == UInt8(ascii: "[") || JSONReader.isDigit(c) {
            message += " (missing comma?)"
        }
        return fail(message, at: pos)
    }

    /// The input ended inside the container `top`.
    @inline(never) func unclosed(_ top: Frame, expecting: String) -> ConfigError {
        let what = top.isMap ? "object" : "array"
        return fail(
            "unexpected end of input: expected \(expecting); the \(what) opened at line \(top.line), column \(top.column) is not closed"
                + TruncatedInput.textFix, at: pos)
    }

    @inline(never) func unterminatedString(_ quote: Int) -> ConfigError {
        fail("unterminated string: no closing '\"' before the end of input" + TruncatedInput.textFix, at: quote)
    }

    @inline(never) func controlCharacter(at i: Int) -> ConfigError {
        let c = p[i]
        let message: String
        switch c {
        case 0x0A, 0x0D: message = "line break inside a string (write it as \\n, or close the string with '\"')"
        case 0x09: message = "tab character inside a string must be escaped as \\t"
        default:
            message =
                "control character 0x\(HexDigits.text(UInt32(c), digits: 2)) inside a string must be escaped as \\u00\(HexDigits.text(UInt32(c), digits: 2))"
        }
        return fail(message, at: i)
    }

    @inline(never) func invalidUTF8(at i: Int, lead: UInt8) -> ConfigError {
        fail(
            "invalid UTF-8 in a string (sequence starting with byte 0x\(HexDigits.text(UInt32(lead), digits: 2))); \(configNotUTF8Fix)",
            at: i)
    }
}

private extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let last = s.last, last == " " || last == "\t" { s = s.dropLast() }
        return String(s)
    }
}
