/// Text content of XML plist `<string>` and `<key>` elements: UTF-8 validation, the five predefined
/// entities, numeric character references, CDATA sections and comments, copied into the builder
/// in runs (no per-value `String`). As XML 1.0 requires, CR and CRLF become LF (section 2.11) and
/// characters XML does not allow (C0 controls but tab/LF/CR, U+FFFE, U+FFFF, `&#1;`) are syntax
/// errors (section 2.2); a character reference `&#13;` keeps its CR.
extension XMLPlistParser {
    /// Reads the content of a `<string>`/`<key>` up to (not including) its end tag and adds it as a
    /// string node at `line`:`column`.
    mutating func readStringContent(_ nameStart: Int, _ nameLength: Int, line: Int, column: Int) throws(ConfigError) {
        builder.beginString()
        var run = pos
        var i = pos
        while true {
            while i < end {
                // Plain text eight bytes at a time; the first byte needing a look is found exactly.
                while end &- i >= 8 {
                    let hits = XMLPlistParser.textAttention(
                        UInt64(littleEndian: UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)))
                    if hits != 0 {
                        i &+= hits.trailingZeroBitCount &>> 3
                        break
                    }
                    i &+= 8
                }
                guard i < end else { break }
                let b = p[i]
                if b == UInt8(ascii: "<") || b == UInt8(ascii: "&") || b >= 0x80 || (b < 0x20 && b != 0x0A && b != 0x09) { break }
                i += 1
            }
            guard i < end else {
                throw endOfInput("expected </\(name(nameStart, nameLength))>, found end of input", at: i)
            }
            let b = p[i]
            if b >= 0x80 {
                i = try checkedSequence(at: i)
                continue
            }
            appendRun(run, i)
            if b < 0x20 {
                // CR and CRLF are LF (XML 1.0 section 2.11); other C0 controls are not XML characters.
                try checkControl(at: i)
                builder.appendStringByte(0x0A)
                i += i + 1 < end && p[i + 1] == 0x0A ? 2 : 1
            } else if b == UInt8(ascii: "&") {
                i = try decodeReference(at: i)
            } else if i + 1 < end, p[i + 1] == UInt8(ascii: "/") {
                break
            } else if has("<!--", at: i) {
                i = try skipComment(at: i)
            } else if has("<![CDATA[", at: i) {
                i = try readCDATA(at: i)
            } else {
                let save = pos
                pos = i
                let found = describeHere()
                pos = save
                throw syntax("unexpected \(found) in <\(name(nameStart, nameLength))>", at: i)
            }
            run = i
        }
        pos = i
        try builder.endString(line: line, column: column)
    }

    /// The high bit of each byte of `w` (little-endian) that is '<', '&', a control character or
    /// non-ASCII; bytes above the first hit may be flagged falsely, the lowest never.
    @inline(__always) static func textAttention(_ w: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let less = w ^ (ones &* 0x3C)
        let amp = w ^ (ones &* 0x26)
        let hasLess = (less &- ones) & ~less
        let hasAmp = (amp &- ones) & ~amp
        let hasControl = w &- (ones &* 0x20)
        return ((hasLess | hasAmp | hasControl) & ~w | w) & high
    }

    /// The index after the valid UTF-8 sequence at `i`; U+FFFE and U+FFFF are not XML characters.
    mutating func checkedSequence(at i: Int) throws(ConfigError) -> Int {
        let n = utf8SequenceLength(p, i, end)
        if n == 0 { throw invalidUTF8(at: i) }
        if n == 3 && p[i] == 0xEF && p[i + 1] == 0xBF && (p[i + 2] == 0xBE || p[i + 2] == 0xBF) {
            throw syntax("character U+\(p[i + 2] == 0xBE ? "FFFE" : "FFFF") is not allowed in XML (XML 1.0 section 2.2)", at: i)
        }
        return i + n
    }

    /// Throws unless the control byte at `i` is a CR (tab and LF never reach here).
    mutating func checkControl(at i: Int) throws(ConfigError) {
        if p[i] != 0x0D {
            throw syntax(
                "control character U+\(hex4(UInt32(p[i]))) is not allowed in XML (XML 1.0 section 2.2); write it in a <data> element or leave it out",
                at: i)
        }
    }

    /// `value` as four upper-case hex digits.
    func hex4(_ value: UInt32) -> String {
        HexDigits.text(value, digits: 4)
    }

    /// Copies `start ..< stop` (CDATA content) with CR and CRLF turned into LF, rejecting characters
    /// XML does not allow.
    mutating func appendNormalized(_ start: Int, _ stop: Int) throws(ConfigError) {
        var run = start, i = start
        while i < stop {
            let b = p[i]
            if b >= 0x80 {
                i = try checkedSequence(at: i)
            } else if b < 0x20 && b != 0x0A && b != 0x09 {
                appendRun(run, i)
                try checkControl(at: i)
                builder.appendStringByte(0x0A)
                i += i + 1 < stop && p[i + 1] == 0x0A ? 2 : 1
                run = i
            } else {
                i += 1
            }
        }
        appendRun(run, stop)
    }

    @inline(__always)
    mutating func appendRun(_ start: Int, _ stop: Int) {
        if stop > start { builder.appendStringBytes(UnsafeRawBufferPointer(start: p + start, count: stop - start)) }
    }

    /// Decodes the reference at `amp` (`&…;`) into the string being built; returns the index after `;`.
    mutating func decodeReference(at amp: Int) throws(ConfigError) -> Int {
        var semi = amp + 1
        while semi < end, semi - amp <= 40, p[semi] != UInt8(ascii: ";"), p[semi] != UInt8(ascii: "<") { semi += 1 }
        guard semi < end, p[semi] == UInt8(ascii: ";") else {
            throw syntax("unterminated entity reference (expected ';')", at: amp)
        }
        let start = amp + 1
        let length = semi - start
        if length >= 2, p[start] == UInt8(ascii: "#") {
            let hex = p[start + 1] == UInt8(ascii: "x")
            var i = start + (hex ? 2 : 1)
            var value: UInt32 = 0
            var valid = i < semi
            while i < semi {
                let digit = hex ? HexDigits.value(p[i]) : (p[i] &- UInt8(ascii: "0") < 10 ? p[i] &- UInt8(ascii: "0") : nil)
                guard let d = digit else {
                    valid = false
                    break
                }
                value = min(value * (hex ? 16 : 10) + UInt32(d), 0x110000)
                i += 1
            }
            // XML 1.0 section 2.2: tab, LF, CR and U+0020 up, without surrogates, U+FFFE and U+FFFF.
            let allowed = value == 0x09 || value == 0x0A || value == 0x0D || (value >= 0x20 && value != 0xFFFE && value != 0xFFFF)
            guard valid, allowed, let scalar = Unicode.Scalar(value) else {
                throw syntax("invalid character reference '\(text(amp, semi + 1))'", at: amp)
            }
            builder.appendScalar(scalar)
            return semi + 1
        }
        let byte: UInt8
        switch length {
        case 2 where has("lt;", at: start): byte = UInt8(ascii: "<")
        case 2 where has("gt;", at: start): byte = UInt8(ascii: ">")
        case 3 where has("amp;", at: start): byte = UInt8(ascii: "&")
        case 4 where has("quot;", at: start): byte = UInt8(ascii: "\"")
        case 4 where has("apos;", at: start): byte = UInt8(ascii: "'")
        default:
            throw syntax(
                "unknown entity '\(text(amp, semi + 1))' (only &lt; &gt; &amp; &quot; &apos; and character references are supported)",
                at: amp)
        }
        builder.appendStringByte(byte)
        return semi + 1
    }

    /// Copies the CDATA section at `start` (`<![CDATA[`) into the string being built; returns the
    /// index after `]]>`.
    mutating func readCDATA(at start: Int) throws(ConfigError) -> Int {
        let contentStart = start + 9
        guard let close = try find("]]>", from: contentStart) else {
            throw endOfInput("unterminated CDATA section (expected ']]>')", at: start)
        }
        try appendNormalized(contentStart, close)
        return close + 3
    }
}
