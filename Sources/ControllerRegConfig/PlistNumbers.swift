/// Number syntax of XML property lists, parsed straight from bytes (no String, no Foundation):
/// `<integer>` (decimal or `0x` hex, optional sign, must fit in `Int64`) and `<real>` (decimal
/// floating point, or `nan` / `inf` / `infinity` with an optional sign, case-insensitive).
enum PlistNumbers {
    enum IntegerResult: Equatable {
        case value(Int64)
        case invalid
        case outOfRange
    }

    /// Parses `p[start ..< end]` (already trimmed) as a plist integer.
    @inlinable
    static func parseInteger(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> IntegerResult {
        var i = start
        var negative = false
        if i < end, p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+") {
            negative = p[i] == UInt8(ascii: "-")
            i += 1
        }
        guard i < end else { return .invalid }
        var magnitude: UInt64 = 0
        var overflow = false
        if end - i > 2, p[i] == UInt8(ascii: "0"), p[i + 1] | 0x20 == UInt8(ascii: "x") {
            i += 2
            while i < end {
                let b = p[i]
                let d: UInt8
                switch b {
                case UInt8(ascii: "0") ... UInt8(ascii: "9"): d = b - UInt8(ascii: "0")
                case UInt8(ascii: "a") ... UInt8(ascii: "f"): d = b - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A") ... UInt8(ascii: "F"): d = b - UInt8(ascii: "A") + 10
                default: return .invalid
                }
                if magnitude > UInt64.max >> 4 { overflow = true } else { magnitude = magnitude << 4 | UInt64(d) }
                i += 1
            }
        } else {
            while i < end {
                let d = p[i] &- UInt8(ascii: "0")
                guard d < 10 else { return .invalid }
                let (m, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (s, o2) = m.addingReportingOverflow(UInt64(d))
                if o1 || o2 { overflow = true } else { magnitude = s }
                i += 1
            }
        }
        if overflow { return .outOfRange }
        if negative {
            if magnitude == 1 << 63 { return .value(Int64.min) }
            return magnitude < 1 << 63 ? .value(-Int64(magnitude)) : .outOfRange
        }
        return magnitude <= UInt64(Int64.max) ? .value(Int64(magnitude)) : .outOfRange
    }

    /// Exact powers of ten for the fast path of `parseReal`.
    @usableFromInline static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// Parses `p[start ..< end]` (already trimmed) as a plist real; nil if it is not one.
    ///
    /// Syntax is checked here; short decimals use the exact Clinger fast path, anything else is
    /// handed to the standard library's correctly rounded conversion.
    static func parseReal(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        var i = start
        var negative = false
        if i < end, p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+") {
            negative = p[i] == UInt8(ascii: "-")
            i += 1
        }
        guard i < end else { return nil }
        if p[i] | 0x20 >= UInt8(ascii: "a"), p[i] | 0x20 <= UInt8(ascii: "z") {
            if lowercaseEquals(p, i, end, "nan") { return .nan }
            if lowercaseEquals(p, i, end, "inf") || lowercaseEquals(p, i, end, "infinity") {
                return negative ? -.infinity : .infinity
            }
            return nil
        }
        var mantissa: UInt64 = 0
        var significant = 0
        var exponent = 0
        var truncated = false
        var sawDigit = false
        while i < end, p[i] &- UInt8(ascii: "0") < 10 {
            if significant < 19 {
                mantissa = mantissa * 10 + UInt64(p[i] - UInt8(ascii: "0"))
                if mantissa != 0 { significant += 1 }
            } else {
                exponent += 1
                if p[i] != UInt8(ascii: "0") { truncated = true }
            }
            sawDigit = true
            i += 1
        }
        if i < end, p[i] == UInt8(ascii: ".") {
            i += 1
            while i < end, p[i] &- UInt8(ascii: "0") < 10 {
                if significant < 19 {
                    mantissa = mantissa * 10 + UInt64(p[i] - UInt8(ascii: "0"))
                    if mantissa != 0 { significant += 1 }
                    exponent -= 1
                } else if p[i] != UInt8(ascii: "0") {
                    truncated = true
                }
                sawDigit = true
                i += 1
            }
        }
        guard sawDigit else { return nil }
        if i < end, p[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            var expNegative = false
            if i < end, p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+") {
                expNegative = p[i] == UInt8(ascii: "-")
                i += 1
            }
            guard i < end, p[i] &- UInt8(ascii: "0") < 10 else { return nil }
            var e = 0
            while i < end, p[i] &- UInt8(ascii: "0") < 10 {
                if e < 100_000 { e = e * 10 + Int(p[i] - UInt8(ascii: "0")) }
                i += 1
            }
            exponent += expNegative ? -e : e
        }
        guard i == end else { return nil }
        if !truncated, mantissa <= 1 << 53, exponent >= -22, exponent <= 22 {
            var value = Double(mantissa)
            if exponent >= 0 { value *= exactPowersOfTen[exponent] } else { value /= exactPowersOfTen[-exponent] }
            return negative ? -value : value
        }
        let text = String(decoding: UnsafeBufferPointer(start: p + start, count: end - start), as: UTF8.self)
        return Double(text)
    }

    @inlinable
    static func lowercaseEquals(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ word: StaticString) -> Bool {
        guard end - start == word.utf8CodeUnitCount else { return false }
        for k in 0 ..< word.utf8CodeUnitCount where p[start + k] | 0x20 != word.utf8Start[k] { return false }
        return true
    }
}
