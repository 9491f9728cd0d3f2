/// UTF-8 well-formedness checks on raw bytes, the one definition the loaders (JSON strings, XML
/// plist text) and the C ABI's name checks share.

/// The length (2...4) of the well-formed multi-byte UTF-8 sequence starting at `p[i]` (whose lead
/// byte is >= 0x80), or 0 if the bytes there are not well-formed UTF-8 (bad lead byte, bad or
/// missing continuation, overlong form, surrogate, or beyond U+10FFFF). Reads only below `end`.
@inline(__always)
package func utf8SequenceLength(_ p: UnsafePointer<UInt8>, _ i: Int, _ end: Int) -> Int {
    let b0 = p[i]
    @inline(__always) func cont(_ k: Int) -> Bool { i + k < end && p[i + k] & 0xC0 == 0x80 }
    switch b0 {
    case 0xC2...0xDF:
        return cont(1) ? 2 : 0
    case 0xE0...0xEF:
        guard i + 2 < end else { return 0 }
        let b1 = p[i + 1]
        let lo: UInt8 = b0 == 0xE0 ? 0xA0 : 0x80
        let hi: UInt8 = b0 == 0xED ? 0x9F : 0xBF
        return b1 >= lo && b1 <= hi && cont(2) ? 3 : 0
    case 0xF0...0xF4:
        guard i + 3 < end else { return 0 }
        let b1 = p[i + 1]
        let lo: UInt8 = b0 == 0xF0 ? 0x90 : 0x80
        let hi: UInt8 = b0 == 0xF4 ? 0x8F : 0xBF
        return b1 >= lo && b1 <= hi && cont(2) && cont(3) ? 4 : 0
    default:
        return 0
    }
}

/// The index of the first byte in `p[start ..< end]` that does not begin a well-formed UTF-8
/// sequence, or nil if the whole range is valid UTF-8.
package func firstInvalidUTF8(_ p: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Int? {
    var i = start
    while i < end {
        if p[i] < 0x80 {
            i += 1
            continue
        }
        let n = utf8SequenceLength(p, i, end)
        if n == 0 { return i }
        i += n
    }
    return nil
}

/// Why the `length` bytes at `p` (a name, key, string or path a host handed over) are refused, or
/// nil when they are well-formed UTF-8: "'<text>' is not valid UTF-8 (byte N is 0xXX): text is
/// never repaired; <fix>" (the text shown repaired, for the message only). The one wording of the
/// rule, for every door that takes text as bytes: the C ABI's arguments and a create's name.
package func invalidUTF8Reason(
    _ p: UnsafePointer<UInt8>, _ length: Int, fix: String = "convert it to UTF-8 first"
) -> String? {
    guard let bad = firstInvalidUTF8(p, from: 0, to: length) else { return nil }
    let shown = String(decoding: UnsafeBufferPointer(start: p, count: length), as: UTF8.self)
    let hex = String(p[bad], radix: 16, uppercase: false)
    return "'\(shown)' is not valid UTF-8 (byte \(bad) is 0x\(hex.count == 1 ? "0" + hex : hex)): text is never repaired; \(fix)"
}

/// What to do about a config whose bytes are not UTF-8; every loader's message for such a byte
/// ends with it (a file saved as Latin-1 or Windows-1252 is the usual cause).
package let configNotUTF8Fix =
    "a config is read as UTF-8: save the file as UTF-8 (from Windows-1252 or Latin-1: iconv -f WINDOWS-1252 -t UTF-8)"

/// "UTF-16" or "UTF-32" when the `count` bytes at `p` start as text in that encoding does (a byte
/// order mark, or a NUL byte beside each of the first ASCII characters), else nil. Error paths only: the
/// loaders read UTF-8, and name the encoding a refused file is in, with the fix.
package func wideTextEncoding(_ p: UnsafePointer<UInt8>, _ count: Int) -> String? {
    if count >= 4,
        (p[0] == 0 && p[1] == 0 && p[2] == 0xFE && p[3] == 0xFF) || (p[0] == 0xFF && p[1] == 0xFE && p[2] == 0 && p[3] == 0)
    {
        return "UTF-32"
    }
    if count >= 4, (p[0] == 0 && p[1] == 0 && p[2] == 0 && p[3] != 0) || (p[0] != 0 && p[1] == 0 && p[2] == 0 && p[3] == 0) {
        return "UTF-32"
    }
    if count >= 2, (p[0] == 0xFE && p[1] == 0xFF) || (p[0] == 0xFF && p[1] == 0xFE) { return "UTF-16" }
    if count >= 4, p[0] < 0x80, p[1] < 0x80, p[2] < 0x80, p[3] < 0x80,
        (p[0] != 0 && p[1] == 0 && p[2] != 0 && p[3] == 0) || (p[0] == 0 && p[1] != 0 && p[2] == 0 && p[3] != 0)
    {
        return "UTF-16"
    }
    return nil
}

/// The message for a config in UTF-16 or UTF-32 (see `wideTextEncoding`): the thing and the fix.
package func wideTextMessage(_ encoding: String, format: String) -> String {
    "the file is \(encoding) text; \(format) configs are read as UTF-8: convert it (iconv -f \(encoding) -t UTF-8)"
}
