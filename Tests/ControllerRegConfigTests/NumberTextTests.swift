import Testing

@testable import ControllerRegConfig

// The JSON, YAML and XML plist loaders share one reading of number text (`DecimalNumber`,
// `HexDigits`): the same text gives the same value in each, correctly rounded like the standard
// library's parser.

private func value(_ text: String, _ format: ConfigFormat) throws(ConfigError) -> ConfigNode {
    let source: String
    switch format {
    case .json, .yaml: source = text
    default: source = "<?xml version=\"1.0\"?><plist version=\"1.0\"><real>\(text)</real></plist>"
    }
    let doc = try ConfigLoader.parse(source, format: format, file: "n", limits: ConfigLimits())
    return doc.nodes[0]
}

private let formats: [ConfigFormat] = [.json, .yaml, .plist]

@Suite struct NumberTextTests {
    @Test(arguments: [
        "0.1", "1.5", "-2.5e3", "123456789.125", "9007199254740993.0", "9007199254740992.5",
        "1e22", "1e23", "4.9e-324", "2.2250738585072014e-308", "1.7976931348623157e308",
        "0.30000000000000004", "123456789012345678901234567890.0", "1.00000000000000011102230246251565e0",
        "-0.0", "3.0e-22", "7e-23",
    ])
    func decimalFloatsAreCorrectlyRoundedInEveryFormat(_ text: String) throws {
        let expected = Double(text)!
        for format in formats {
            let node = try value(text, format)
            #expect(node.kind == .double, "\(format): \(text)")
            #expect(node.double.bitPattern == expected.bitPattern, "\(format): \(text) gave \(node.double), expected \(expected)")
        }
    }

    @Test func randomDecimalsAgreeWithTheStandardLibrary() throws {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let digits = (0..<Int.random(in: 1...20, using: &rng)).map { _ in String(Int.random(in: 0...9, using: &rng)) }
                .joined()
            let text =
                "\(Int.random(in: 1 ... 9, using: &rng))\(digits.prefix(3)).\(digits)e\(Int.random(in: -30 ... 30, using: &rng))"
            let expected = Double(text)!
            for format in formats {
                let node = try value(text, format)
                #expect(node.double.bitPattern == expected.bitPattern, "\(format): \(text)")
            }
        }
    }

    @Test func shortDecimalsAgreeWithTheStandardLibrary() throws {
        // Decimals without an exponent, up to 19 digits and beyond: the JSON reader's inline path
        // and its exact fallback must give the same doubles as the standard library.
        var state: UInt64 = 3
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33) % n
        }
        for _ in 0..<3000 {
            let whole = next(4) == 0 ? "0" : String(1 + next(999_999_999)) + String(repeating: "9", count: next(8))
            let fraction = (0..<1 + next(14)).map { _ in String(next(10)) }.joined()
            let text = (next(2) == 0 ? "-" : "") + whole + "." + fraction
            let expected = Double(text)!
            for format in formats {
                let node = try value(text, format)
                #expect(node.double.bitPattern == expected.bitPattern, "\(format): \(text)")
            }
        }
    }

    @Test func int64EdgesAndOverflow() throws {
        #expect(try value("9223372036854775807", .json).int == Int64.max)
        #expect(try value("-9223372036854775808", .json).int == Int64.min)
        #expect(try value("-9223372036854775808", .yaml).int == Int64.min)
        for text in ["9223372036854775808", "-9223372036854775809", "99999999999999999999999"] {
            #expect(throws: ConfigError.self, "json \(text)") { try value(text, .json) }
            #expect(throws: ConfigError.self, "yaml \(text)") { try value(text, .yaml) }
        }
        let plist = { (t: String) throws(ConfigError) -> ConfigNode in
            try ConfigLoader.parse("<plist><integer>\(t)</integer></plist>", format: .plist, file: "n", limits: ConfigLimits())
                .nodes[0]
        }
        #expect(try plist("-9223372036854775808").int == Int64.min)
        #expect(try plist("0x7fffffffffffffff").int == Int64.max)
        #expect(throws: ConfigError.self) { try plist("9223372036854775808") }
    }

    @Test func hexDigitsReadTheSameEverywhere() throws {
        #expect(try value("0x1fA", .yaml).int == 0x1FA)
        #expect(
            try ConfigLoader.parse(
                "<plist><integer>0x1fA</integer></plist>", format: .plist, file: "n",
                limits: ConfigLimits()
            ).nodes[0].int == 0x1FA)
        let json = try ConfigLoader.parse(#""\u00e9\u00C9""#, format: .json, file: "n", limits: ConfigLimits())
        #expect(json.string(at: 0) == "éÉ")
        let xml = try ConfigLoader.parse(
            "<plist><string>&#xe9;&#xC9;&#233;</string></plist>", format: .plist, file: "n",
            limits: ConfigLimits())
        #expect(xml.string(at: 0) == "éÉé")
        #expect(HexDigits.value(UInt8(ascii: "g")) == nil && HexDigits.value(UInt8(ascii: "/")) == nil)
        #expect(HexDigits.text(0xAB, digits: 4) == "00AB" && HexDigits.text(0xAB, digits: 1, uppercase: false) == "ab")
    }
}
