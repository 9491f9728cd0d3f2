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
                guard let d = HexDigits.value(p[i]) else { return .invalid }
                if magnitude > UInt64.max >> 4 { overflow = true } else { magnitude = magnitude << 4 | UInt64(d) }
                i += 1
            }
        } else {
            while i < end {
                let d = p[i] &- UInt8(ascii: "0")
                guard d < 10 else { return .invalid }
                DecimalNumber.append(d, to: &magnitude, overflow: &overflow)
                i += 1
            }
        }
        guard !overflow, let value = DecimalNumber.int64(magnitude, negative: negative) else { return .outOfRange }
        return .value(value)
    }

    /// Parses `p[start ..< end]` (already trimmed) as a plist real; nil if it is not one.
    ///
    /// Syntax is checked here; the value comes from `DecimalNumber` (exact fast path, else the
    /// standard library's correctly rounded conversion).
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
        var overflow = false
        var exponent = 0
        var sawDigit = false
        while i < end, p[i] &- UInt8(ascii: "0") < 10 {
            DecimalNumber.append(p[i] &- UInt8(ascii: "0"), to: &mantissa, overflow: &overflow)
            sawDigit = true
            i += 1
        }
        if i < end, p[i] == UInt8(ascii: ".") {
            i += 1
            while i < end, p[i] &- UInt8(ascii: "0") < 10 {
                DecimalNumber.append(p[i] &- UInt8(ascii: "0"), to: &mantissa, overflow: &overflow)
                exponent -= 1
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
        if !overflow, let value = DecimalNumber.exactDouble(mantissa, exponent: exponent) {
            return negative ? -value : value
        }
        return DecimalNumber.parseDouble(p + start, count: end - start)
    }

    /// Whether the real `p[start ..< end]` is written as a word (`inf`, `-infinity`), rather than
    /// as a decimal number that overflows.
    static func namesInfinity(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        var i = start
        if i < end, p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+") { i += 1 }
        return i < end && p[i] | 0x20 >= UInt8(ascii: "a") && p[i] | 0x20 <= UInt8(ascii: "z")
    }

    static func lowercaseEquals(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ word: StaticString) -> Bool {
        guard end - start == word.utf8CodeUnitCount else { return false }
        for k in 0..<word.utf8CodeUnitCount where p[start + k] | 0x20 != word.utf8Start[k] { return false }
        return true
    }
}
