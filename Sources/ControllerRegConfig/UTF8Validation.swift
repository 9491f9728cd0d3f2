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
