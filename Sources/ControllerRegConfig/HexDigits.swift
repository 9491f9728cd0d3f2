/// Hexadecimal digits: reading one from input bytes (JSON `\u` escapes, YAML `0x` integers, plist
/// `0x` integers, XML `&#x…;` references) and writing numbers as hex in messages and output.
package enum HexDigits {
    /// The value (0...15) of the hex digit `b` (`0-9`, `a-f`, `A-F`), or nil for any other byte.
    @inline(__always)
    package static func value(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return b &- 0x30
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return b &- 0x57
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return b &- 0x37
        default: return nil
        }
    }

    /// `value` in hex, zero-padded to at least `digits` digits (`0A`, `00e9`).
    @inline(never)
    package static func text(_ value: UInt32, digits: Int, uppercase: Bool = true) -> String {
        let s = String(value, radix: 16, uppercase: uppercase)
        return String(repeating: "0", count: max(0, digits - s.count)) + s
    }
}
