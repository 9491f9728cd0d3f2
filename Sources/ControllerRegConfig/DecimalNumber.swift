/// Decimal number text to numbers, shared by the JSON, YAML and XML plist loaders: digits are
/// gathered into a 64-bit magnitude as they are scanned; an integer is that magnitude with its
/// sign, and a float whose magnitude and power of ten are both exact doubles takes one correctly
/// rounded multiplication or division (Clinger's fast path); any other float text goes to the
/// standard library's correctly rounded parser.
package enum DecimalNumber {
    /// Appends the decimal digit `digit` (0...9) to `magnitude`; once the result no longer fits in
    /// 64 bits, sets `overflow` and leaves `magnitude` as it was.
    @inline(__always)
    package static func append(_ digit: UInt8, to magnitude: inout UInt64, overflow: inout Bool) {
        let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
        let (sum, o2) = times10.addingReportingOverflow(UInt64(digit))
        if o1 || o2 { overflow = true } else { magnitude = sum }
    }

    /// `magnitude × 10^exponent`, correctly rounded, when the magnitude (at most 2^53) and the power
    /// of ten (|exponent| <= 22) are both exact doubles; nil otherwise (use `parseDouble`).
    @inline(__always)
    package static func exactDouble(_ magnitude: UInt64, exponent: Int) -> Double? {
        guard magnitude <= 1 << 53, exponent >= -22, exponent <= 22 else { return nil }
        let value = Double(magnitude)
        return exponent < 0 ? value / powerOfTen(-exponent) : value * powerOfTen(exponent)
    }

    /// The signed integer `magnitude` (negated when `negative`), or nil when it does not fit in `Int64`.
    @inline(__always)
    package static func int64(_ magnitude: UInt64, negative: Bool) -> Int64? {
        if negative { return magnitude <= 1 << 63 ? Int64(bitPattern: 0 &- magnitude) : nil }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    /// The slow path: the standard library's locale-independent, correctly rounded parse of the
    /// `count` bytes at `p`; nil if they are not a floating-point number.
    @inline(never)
    /// The problem of a decimal number whose value is beyond the largest double (it would read as
    /// infinity), worded the same in every format.
    package static func tooLarge(_ text: UnsafeRawBufferPointer, _ location: SourceLocation?) -> ConfigError {
        ConfigError(.syntax, tooLargeText(String(decoding: text.prefix(80), as: UTF8.self)), at: location)
    }

    /// The words of `tooLarge`, for the number as a format shows it.
    package static func tooLargeText(_ shown: String) -> String {
        "number \(shown) is too large for a 64-bit floating-point value"
    }

    package static func parseDouble(_ p: UnsafePointer<UInt8>, count: Int) -> Double? {
        Double(String(decoding: UnsafeBufferPointer(start: p, count: count), as: UTF8.self))
    }

    /// 10^n for 0 <= n <= 22 (each exactly representable), without a table to initialise.
    @inline(__always)
    static func powerOfTen(_ n: Int) -> Double {
        switch n {
        case 0: return 1e0
        case 1: return 1e1
        case 2: return 1e2
        case 3: return 1e3
        case 4: return 1e4
        case 5: return 1e5
        case 6: return 1e6
        case 7: return 1e7
        case 8: return 1e8
        case 9: return 1e9
        case 10: return 1e10
        case 11: return 1e11
        case 12: return 1e12
        case 13: return 1e13
        case 14: return 1e14
        case 15: return 1e15
        case 16: return 1e16
        case 17: return 1e17
        case 18: return 1e18
        case 19: return 1e19
        case 20: return 1e20
        case 21: return 1e21
        default: return 1e22
        }
    }
}
