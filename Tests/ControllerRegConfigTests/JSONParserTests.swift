import Testing

@testable import ControllerRegConfig

// MARK: - Helpers

private func parse(_ text: String, limits: ConfigLimits = ConfigLimits()) throws(ConfigError) -> ConfigDocument {
    try ConfigLoader.parse(text, format: .json, file: "t.json", limits: limits)
}

private func parse(bytes: [UInt8], limits: ConfigLimits = ConfigLimits()) throws(ConfigError) -> ConfigDocument {
    try ConfigLoader.parse(bytes, format: .json, file: "t.json", limits: limits)
}

/// The error parsing `bytes` throws, or nil when it parses.
private func failure(bytes: [UInt8], limits: ConfigLimits = ConfigLimits()) -> ConfigError? {
    do {
        _ = try parse(bytes: bytes, limits: limits)
        return nil
    } catch {
        return error
    }
}

private func failure(_ text: String, limits: ConfigLimits = ConfigLimits()) -> ConfigError? {
    failure(bytes: Array(text.utf8), limits: limits)
}

/// Checks that `bytes` is rejected with one diagnostic of `code` whose message contains
/// `message`, at `line`:`column`.
private func expectRejected(
    bytes: [UInt8], _ message: String, line: Int, column: Int, code: ErrorCode = .syntax,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
    guard let error = failure(bytes: bytes) else {
        Issue.record(
            "expected \(code) error for \(String(decoding: bytes, as: UTF8.self).debugDescription)",
            sourceLocation: sourceLocation)
        return
    }
    #expect(error.diagnostics.count == 1, "\(error)", sourceLocation: sourceLocation)
    #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    let d = error.diagnostics[0]
    #expect(d.message.contains(message), "message was: \(d.message)", sourceLocation: sourceLocation)
    #expect(d.location?.file == "t.json", sourceLocation: sourceLocation)
    #expect(d.location?.line == line, "\(error)", sourceLocation: sourceLocation)
    #expect(d.location?.column == column, "\(error)", sourceLocation: sourceLocation)
}

private func expectRejected(
    _ text: String, _ message: String, line: Int = 1, column: Int, code: ErrorCode = .syntax,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
    expectRejected(bytes: Array(text.utf8), message, line: line, column: column, code: code, sourceLocation: sourceLocation)
}

private func kinds(_ doc: ConfigDocument) -> [ConfigNode.Kind] { doc.nodes.map(\.kind) }

// MARK: - Values

@Suite struct JSONParserTests {
    @Test func scalarsAtTopLevel() throws {
        var doc = try parse("null")
        #expect(kinds(doc) == [.null])
        doc = try parse(" true ")
        #expect(kinds(doc) == [.bool] && doc.nodes[0].bool)
        doc = try parse("false")
        #expect(kinds(doc) == [.bool] && !doc.nodes[0].bool)
        doc = try parse("0")
        #expect(kinds(doc) == [.int] && doc.nodes[0].int == 0)
        doc = try parse("-0")
        #expect(kinds(doc) == [.int] && doc.nodes[0].int == 0)
        doc = try parse("123")
        #expect(doc.nodes[0].int == 123)
        doc = try parse("-45")
        #expect(doc.nodes[0].int == -45)
        doc = try parse("1.5")
        #expect(kinds(doc) == [.double] && doc.nodes[0].double == 1.5)
        doc = try parse("-2.5e3")
        #expect(doc.nodes[0].double == -2500)
        doc = try parse("1E2")
        #expect(kinds(doc) == [.double] && doc.nodes[0].double == 100)
        doc = try parse("1e-2")
        #expect(doc.nodes[0].double == 0.01)
        doc = try parse("2E+2")
        #expect(doc.nodes[0].double == 200)
        doc = try parse("-0.0")
        #expect(doc.nodes[0].double == 0 && doc.nodes[0].double.sign == .minus)
        doc = try parse("\"hi\"")
        #expect(kinds(doc) == [.string] && doc.string(at: 0) == "hi")
        doc = try parse("\"\"")
        #expect(doc.string(at: 0) == "" && doc.nodes[0].extent == 0)
        doc = try parse("[]")
        #expect(kinds(doc) == [.list] && doc.nodes[0].count == 0 && doc.nodes[0].extent == 1)
        doc = try parse("{}")
        #expect(kinds(doc) == [.map] && doc.nodes[0].count == 0 && doc.nodes[0].extent == 1)
    }

    @Test func nestedStructure() throws {
        let doc = try parse(#"{"a": [1, {"b": null}, "x"], "c": {}, "d": [[], [true]]}"#)
        #expect(
            kinds(doc) == [
                .map,
                .string, .list, .int, .map, .string, .null, .string,
                .string, .map,
                .string, .list, .list, .list, .bool,
            ])
        #expect(doc.nodes[0].count == 3 && doc.nodes[0].extent == 15)
        #expect(doc.nodes[2].count == 3 && doc.nodes[2].extent == 8)
        #expect(doc.nodes[4].count == 1 && doc.nodes[4].extent == 7)
        #expect(doc.nodes[9].count == 0 && doc.nodes[9].extent == 10)
        #expect(doc.nodes[11].count == 2 && doc.nodes[11].extent == 15)
        #expect(doc.nodes[12].count == 0 && doc.nodes[12].extent == 13)
        #expect(doc.nodes[13].count == 1 && doc.nodes[13].extent == 15)
        let pairs = doc.pairs(of: 0)
        #expect(pairs.map { doc.string(at: $0.key) } == ["a", "c", "d"])
        #expect(pairs.map(\.value) == [2, 9, 11])
        #expect(doc.elements(of: 2) == [3, 4, 7])
        #expect(doc.string(at: 7) == "x")
        #expect(doc.stringEquals(5, "b"))
        // Every string is NUL-terminated in the buffer.
        for (i, n) in doc.nodes.enumerated() where n.kind == .string {
            #expect(doc.strings[Int(n.payload) + Int(n.extent)] == 0, "node \(i)")
        }
    }

    @Test func positionsInMultiLineInput() throws {
        let text = "{\n  \"name\": \"x\",\n\t\"list\": [1,\n    2.5, true],\r\n  \"m\" : {\"k\": null}\r}"
        let doc = try parse(text)
        func pos(_ i: Int) -> [Int] { [Int(doc.nodes[i].line), Int(doc.nodes[i].column)] }
        #expect(pos(0) == [1, 1])  // {
        #expect(pos(1) == [2, 3])  // "name"
        #expect(pos(2) == [2, 11])  // "x"
        #expect(pos(3) == [3, 2])  // "list" after a tab
        #expect(pos(4) == [3, 10])  // [
        #expect(pos(5) == [3, 11])  // 1
        #expect(pos(6) == [4, 5])  // 2.5
        #expect(pos(7) == [4, 10])  // true
        #expect(pos(8) == [5, 3])  // "m" after CRLF
        #expect(pos(9) == [5, 9])  // {
        #expect(pos(10) == [5, 10])  // "k"
        #expect(pos(11) == [5, 15])  // null
        #expect(doc.location(of: 6) == ControllerRegConfig.SourceLocation(file: "t.json", line: 4, column: 5))
        // A lone CR counts as a line break too.
        let cr = try parse("[\r1,\r\r 2]")
        #expect(cr.nodes[1].line == 2 && cr.nodes[1].column == 1)
        #expect(cr.nodes[2].line == 4 && cr.nodes[2].column == 2)
        // Columns count bytes.
        let utf8 = try parse("[\"é€\", 1]")
        #expect(utf8.nodes[2].column == 11)
    }

    @Test func stringEscapes() throws {
        let doc = try parse(#"["\"\\\/\b\f\n\r\t", "\u0041\u00e9\u20AC\uD83D\uDE00\u00FF", "a\u0000b", "x\ud834\udd1ey"]"#)
        #expect(doc.string(at: 1) == "\"\\/\u{8}\u{C}\n\r\t")
        #expect(doc.string(at: 2) == "Aé€😀ÿ")
        #expect(doc.nodes[3].extent == 3)
        #expect(doc.string(at: 3) == "a\u{0}b")
        #expect(doc.string(at: 4) == "x𝄞y")
    }

    @Test func rawUTF8AndLongStrings() throws {
        let doc = try parse("[\"héllo wörld € 😀 ﻿ 中文\", \"\(String(repeating: "abcdefgh", count: 100))\"]")
        #expect(doc.string(at: 1) == "héllo wörld € 😀 ﻿ 中文")
        #expect(doc.string(at: 2) == String(repeating: "abcdefgh", count: 100))
        // Special bytes at every offset relative to the 8-byte scan.
        for offset in 0..<20 {
            let prefix = String(repeating: "p", count: offset)
            let suffix = String(repeating: "s", count: 19 - offset)
            var d = try parse("\"\(prefix)\\n\(suffix)\"")
            #expect(d.string(at: 0) == prefix + "\n" + suffix)
            d = try parse("\"\(prefix)é\(suffix)\"")
            #expect(d.string(at: 0) == prefix + "é" + suffix)
            d = try parse("[\"\(prefix)\", \"\(suffix)\"]")
            #expect(d.string(at: 1) == prefix && d.string(at: 2) == suffix)
            expectRejected("\"\(prefix)\u{1F}\(suffix)\"", "control character 0x1F", column: offset + 2)
            expectRejected(
                bytes: [0x22] + Array(prefix.utf8) + [0xFF] + Array(suffix.utf8) + [0x22],
                "invalid UTF-8", line: 1, column: offset + 2)
        }
    }

    @Test func int64Edges() throws {
        var doc = try parse("[9223372036854775807, -9223372036854775808, 9223372036854775806, -9223372036854775807]")
        #expect(doc.nodes[1...].map(\.int) == [Int64.max, Int64.min, Int64.max - 1, Int64.min + 1])
        #expect(doc.nodes[1...].allSatisfy { $0.kind == .int })
        doc = try parse("9223372036854775807.0")
        #expect(doc.nodes[0].kind == .double && doc.nodes[0].double == 9223372036854775807.0)
        expectRejected("9223372036854775808", "integer 9223372036854775808 does not fit in 64 bits", column: 1)
        expectRejected("-9223372036854775809", "integer -9223372036854775809 does not fit in 64 bits", column: 1)
        expectRejected("[1,\n 18446744073709551616]", "does not fit in 64 bits", line: 2, column: 2)
        expectRejected(
            "123456789012345678901234567890", "integer 123456789012345678901234567890 does not fit in 64 bits", column: 1)
    }

    @Test func doublesRoundTrip() throws {
        let samples = [
            "0.1", "0.2", "0.30000000000000004", "1e22", "1e23", "9007199254740993.0", "9007199254740992e1",
            "2.2250738585072014e-308", "2.2250738585072011e-308", "5e-324", "4.9406564584124654e-324",
            "1.7976931348623157e308", "123456789012345678901234567890.0", "3.141592653589793",
            "1.0000000000000002", "0.000001234", "1e-22", "8.5e-23", "12345678901234567890e-5", "1e-400",
            "-1.5e-300", "6.02214076e23", "0.1e1", "100e-2", "1.23456789012345678901234567890e10",
            "0.1000000000000000055511151231257827021181583404541015625",
            "1" + String(repeating: "0", count: 60) + "e-60",
            "0." + String(repeating: "0", count: 400) + "1e400",
            "2.4703282292062327208828439643411068618252990130716238221279284125033775364e-324",
        ]
        for s in samples {
            let doc = try parse(s)
            #expect(doc.nodes[0].kind == .double, "\(s)")
            #expect(doc.nodes[0].double == Double(s)!, "\(s)")
            #expect(doc.nodes[0].double.bitPattern == Double(s)!.bitPattern, "\(s)")
        }
        // Round-trip: the shortest printed form of many doubles parses back to the same bits.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let d = Double(bitPattern: state >> 2 | 0x3000_0000_0000_0000 & state)
            guard d.isFinite else { continue }
            var text = "\(d)"
            if !text.contains(".") && !text.contains("e") { text += ".0" }
            let doc = try parse(text)
            #expect(doc.nodes[0].double.bitPattern == d.bitPattern, "\(text)")
        }
        expectRejected("1e400", "number 1e400 is too large", column: 1)
        expectRejected("[ -1.8e308]", "number -1.8e308 is too large", column: 3)
        expectRejected(
            "1" + String(repeating: "0", count: 400) + ".0", "is too large for a 64-bit floating-point value", column: 1)
    }

    @Test func exampleFixtureParses() throws {
        let doc = try ConfigLoader.load(path: fixturePath("example.json"))
        #expect(doc.nodes[0].kind == .map)
        let pairs = doc.pairs(of: 0)
        #expect(pairs.map { doc.string(at: $0.key) } == ["Test1", "Test2"])
        #expect(doc.nodes[pairs[1].value].kind == .string)
        #expect(doc.string(at: pairs[1].value) == "Test2ViewController")
        let test1 = pairs[0].value
        let fields = doc.pairs(of: test1)
        #expect(fields.map { doc.string(at: $0.key) } == ["ClassName", "Description", "Tag", "Dependencies"])
        #expect(doc.nodes[fields[2].value].int == 1)
        #expect(doc.location(of: fields[2].value).line == 5)
        // The auto-sniffed path reaches the same parser.
        let bytes = try ConfigLoader.readFile(fixturePath("example.json"))
        let auto = try ConfigLoader.parse(bytes, format: .auto, file: "example")
        #expect(auto.nodes == doc.nodes && auto.strings == doc.strings)
    }

    // MARK: - Rejected input

    @Test func rejectsEmptyAndBOM() {
        expectRejected("", "empty input", column: 1)
        expectRejected("  \n\t ", "expected a JSON value", line: 2, column: 3)
        expectRejected(bytes: [0xEF, 0xBB, 0xBF, 0x7B, 0x7D], "byte order mark is not allowed in JSON", line: 1, column: 1)
        expectRejected("\u{FEFF}[]", "byte order mark is not allowed in JSON", column: 1)
    }

    @Test func rejectsNonJSONSyntax() {
        expectRejected("[1,]", "trailing comma before ']'", column: 4)
        expectRejected("[1,\n  ]", "trailing comma before ']'", line: 2, column: 3)
        expectRejected(#"{"a": 1,}"#, "trailing comma before '}'", column: 9)
        expectRejected("[,1]", "expected a value, found ','", column: 2)
        expectRejected("// c\n{}", "comments are not allowed", column: 1)
        expectRejected("{\"a\": 1 /* c */}", "comments are not allowed", column: 9)
        expectRejected("{\n  # c\n}", "comments are not allowed", line: 2, column: 3)
        expectRejected("{'a': 1}", "JSON strings use double quotes", column: 2)
        expectRejected("['a']", "JSON strings use double quotes", column: 2)
        expectRejected("{a: 1}", "keys must be quoted", column: 2)
        expectRejected("{1: 1}", "expected a string key in double quotes, found '1'", column: 2)
        expectRejected("NaN", "found 'NaN' (NaN and Infinity are not allowed", column: 1)
        expectRejected("[Infinity]", "found 'Infinity'", column: 2)
        expectRejected("-Infinity", "expected a digit after '-', found 'Infinity'", column: 2)
        expectRejected("tru", "found 'tru'", column: 1)
        expectRejected("[nul]", "found 'nul'", column: 2)
        expectRejected("flase", "found 'flase'", column: 1)
        expectRejected("True", "found 'True'", column: 1)
        expectRejected("undefined", "found 'undefined'", column: 1)
        expectRejected("é", "byte 0xC3 (non-ASCII text outside a string)", column: 1)
        expectRejected("\u{0B}1", "control character 0x0B", column: 1)
        expectRejected("\u{0C}1", "control character 0x0C", column: 1)
        expectRejected("[1\u{A0}]", "byte 0xC2", column: 3)
    }

    @Test func rejectsBadNumbers() {
        expectRejected("01", "leading zeros are not allowed in JSON numbers ('01')", column: 1)
        expectRejected("[-012]", "leading zeros are not allowed", column: 2)
        expectRejected("00", "leading zeros", column: 1)
        expectRejected("+1", "JSON numbers have no '+' sign", column: 1)
        expectRejected(".5", "a JSON number needs a digit before the decimal point", column: 1)
        expectRejected("1.", "expected a digit after the decimal point, found end of input", column: 3)
        expectRejected("[1.]", "expected a digit after the decimal point, found ']'", column: 4)
        expectRejected("1.e5", "expected a digit after the decimal point", column: 3)
        expectRejected("1e", "expected a digit in the exponent", column: 3)
        expectRejected("1e+", "expected a digit in the exponent", column: 4)
        expectRejected("1E-x", "expected a digit in the exponent, found 'x'", column: 4)
        expectRejected("-", "expected a digit after '-', found end of input", column: 2)
        expectRejected("- 1", "expected a digit after '-', found a space", column: 2)
        expectRejected("0x1F", "unexpected 'x1F' after the JSON value", column: 2)
        expectRejected("1_000", "unexpected '_000' after the JSON value", column: 2)
    }

    @Test func rejectsBadStrings() {
        expectRejected("\"abc", "unterminated string", column: 1)
        expectRejected("[\"ab\\\"]", "unterminated string", column: 2)
        expectRejected("\"ab\\", "unterminated string", column: 1)
        expectRejected("\"a\u{01}b\"", "control character 0x01 inside a string must be escaped as \\u0001", column: 3)
        expectRejected("{\"a\": \"x\ny\"}", "line break inside a string", column: 9)
        expectRejected("\"a\rb\"", "line break inside a string", column: 3)
        expectRejected("\"a\tb\"", "tab character inside a string must be escaped as \\t", column: 3)
        expectRejected(#""\x41""#, #"invalid escape '\x'"#, column: 2)
        expectRejected(#""\'""#, #"invalid escape '\''"#, column: 2)
        expectRejected(#""\U0041""#, "invalid escape", column: 2)
        expectRejected(#""ab\u12""#, "expected four hex digits after \\u", column: 4)
        expectRejected(#""\u12G4""#, "expected four hex digits", column: 2)
        expectRejected(#""\uD800""#, "lone surrogate \\uD800", column: 2)
        expectRejected(#""x\uDC00""#, "lone surrogate \\uDC00", column: 3)
        expectRejected(#""\uD83D\u0041""#, "lone surrogate \\uD83D", column: 2)
        expectRejected(#""\uD83D\uD83D""#, "lone surrogate", column: 2)
        expectRejected(#""\uD83Dx""#, "lone surrogate", column: 2)
    }

    @Test func rejectsInvalidUTF8() {
        let bad: [[UInt8]] = [
            [0xC0, 0x80],  // overlong NUL
            [0xC1, 0xBF],  // overlong
            [0xE0, 0x80, 0x80],  // overlong 3-byte
            [0xE0, 0x9F, 0xBF],  // overlong 3-byte
            [0xF0, 0x80, 0x80, 0x80],  // overlong 4-byte
            [0xF0, 0x8F, 0xBF, 0xBF],  // overlong 4-byte
            [0xED, 0xA0, 0x80],  // UTF-8-encoded surrogate U+D800
            [0xED, 0xBF, 0xBF],  // U+DFFF
            [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
            [0xF5, 0x80, 0x80, 0x80],  // lead > 0xF4
            [0xFF],
            [0xFE],
            [0x80],  // lone continuation
            [0xBF],
            [0xE2, 0x82],  // truncated before the quote
            [0xC3, 0x41],  // missing continuation
            [0xF0, 0x9F, 0x98],  // truncated 4-byte
            [0xE2, 0x28, 0xA1],
        ]
        for seq in bad {
            expectRejected(bytes: [0x5B, 0x22, 0x61] + seq + [0x22, 0x5D], "invalid UTF-8 in a string", line: 1, column: 4)
        }
        // Truncated at the very end of the input.
        expectRejected(bytes: [0x22, 0xC3], "invalid UTF-8", line: 1, column: 2)
        expectRejected(bytes: [0x22, 0xF0, 0x9F], "invalid UTF-8", line: 1, column: 2)
        // Valid edge sequences.
        let good: [[UInt8]] = [
            [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80],
            [0xEF, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], [0x7F],
        ]
        for seq in good {
            #expect(failure(bytes: [0x22] + seq + [0x22]) == nil, "\(seq)")
            let doc = try? parse(bytes: [0x22] + seq + [0x22])
            #expect(doc.map { Array($0.strings.prefix(seq.count)) } == seq)
        }
    }

    @Test func rejectsBadStructure() {
        expectRejected("[1] 2", "unexpected '2' after the JSON value (only one top-level value is allowed)", column: 5)
        expectRejected("{}\n}", "unexpected '}' after the JSON value", line: 2, column: 1)
        expectRejected("\"a\" \"b\"", "unexpected '\"' after the JSON value", column: 5)
        expectRejected("[1 2]", "expected ',' or ']' after a value in an array, found '2' (missing comma?)", column: 4)
        expectRejected("[1}", "expected ',' or ']' after a value in an array, found '}'", column: 3)
        expectRejected(
            "{\"a\": 1 \"b\": 2}", "expected ',' or '}' after a value in an object, found '\"' (missing comma?)", column: 9)
        expectRejected("{\"a\": 1]", "expected ',' or '}' after a value in an object, found ']'", column: 8)
        expectRejected("{\"a\" 1}", "expected ':' after the key \"a\", found '1'", column: 6)
        expectRejected("{\"a\"}", "expected ':' after the key \"a\", found '}'", column: 5)
        expectRejected("{\"a\":}", "expected a value, found '}'", column: 6)
        expectRejected("{\"a\" = 1}", "expected ':'", column: 6)
        expectRejected(
            "[", "unexpected end of input: expected a value; the array opened at line 1, column 1 is not closed", column: 2)
        expectRejected("{\n\"a\": [1,\n", "the array opened at line 2, column 6 is not closed", line: 3, column: 1)
        expectRejected("{\"a\":", "expected a value; the object opened at line 1, column 1 is not closed", column: 6)
        expectRejected("{\"a\"", "expected ':'; the object opened", column: 5)
        expectRejected("{", "expected a key; the object opened", column: 2)
        expectRejected("{\"a\": 1", "expected ',' or '}'; the object opened", column: 8)
        expectRejected("[[1]", "expected ',' or ']'; the array opened at line 1, column 1", column: 5)
        expectRejected("]", "expected a value, found ']'", column: 1)
        expectRejected("[1,,2]", "expected a value, found ','", column: 4)
        expectRejected("[\"a\":1]", "expected ',' or ']' after a value in an array, found ':'", column: 5)
    }

    // MARK: - Builder checks

    @Test func duplicateKeysAreReportedWithBothPositions() {
        guard let error = failure("{\n  \"a\": 1,\n  \"a\": 2\n}") else {
            Issue.record("duplicate accepted")
            return
        }
        #expect(error.code == .duplicate)
        #expect(error.diagnostics.count == 1)
        let d = error.diagnostics[0]
        #expect(d.message.contains("duplicate key 'a'"))
        #expect(d.message.contains("first defined at line 2, column 3"))
        #expect(d.location == ControllerRegConfig.SourceLocation(file: "t.json", line: 3, column: 3))
    }

    @Test func severalDuplicatesReportedAtOnce() {
        // Two in small maps, one in a large map (the hashed path), one nested in a list.
        let big = (0..<20).map { "\"k\($0)\": \($0)" }.joined(separator: ", ")
        let text = """
            {
              "x": {"a": 1, "b": 2, "a": 3},
              "y": {\(big), "k7": 0},
              "z": [{"q": 1, "q": 2}],
              "x": null
            }
            """
        guard let error = failure(text) else {
            Issue.record("duplicates accepted")
            return
        }
        #expect(error.diagnostics.count == 4, "\(error)")
        #expect(error.diagnostics.allSatisfy { $0.code == .duplicate })
        let where_ = error.diagnostics.map { [$0.location?.line ?? 0, $0.location?.column ?? 0] }
        #expect(where_ == [[2, 25], [3, 9 + big.utf8.count + 2], [4, 18], [5, 3]], "\(error)")
        #expect(error.diagnostics[0].message.contains("duplicate key 'a' (first defined at line 2, column 9)"))
        #expect(error.diagnostics[1].message.contains("duplicate key 'k7'"))
        #expect(error.diagnostics[3].message.contains("duplicate key 'x' (first defined at line 2, column 3)"))
        // Equal keys written differently (escapes) are duplicates too; different keys are not.
        #expect(failure(#"{"é": 1, "\u00e9": 2}"#)?.code == .duplicate)
        #expect(failure(#"{"a": 1, "A": 2, "a ": 3, "": 4}"#) == nil)
    }

    @Test func depthLimit() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        let error = failure(deep)
        #expect(error?.code == .limit)
        #expect(error?.diagnostics[0].message.contains("nesting deeper than the limit of 128") == true)
        #expect(error?.diagnostics[0].location?.column == 129)
        let deepMaps = String(repeating: "{\"a\":", count: 10_000)
        #expect(failure(deepMaps)?.code == .limit)
        // Exactly at the limit is fine.
        let ok = String(repeating: "[", count: 128) + String(repeating: "]", count: 128)
        #expect(failure(ok) == nil)
        var limits = ConfigLimits()
        limits.maxDepth = 2
        #expect(failure("[[1]]", limits: limits) == nil)
        #expect(failure("[[[1]]]", limits: limits)?.code == .limit)
        #expect(failure(#"{"a": {"b": {}}}"#, limits: limits)?.code == .limit)
    }

    @Test func nodeAndStringLimits() {
        var limits = ConfigLimits()
        limits.maxNodes = 3
        #expect(failure("[1, 2]", limits: limits) == nil)
        #expect(failure("[1, 2, 3]", limits: limits)?.code == .limit)
        limits = ConfigLimits()
        limits.maxStringBytes = 4
        #expect(failure(#"["abcd", "\u00e9\u00e9"]"#, limits: limits) == nil)
        let e = failure(#"{"abcde": 1}"#, limits: limits)
        #expect(e?.code == .limit)
        #expect(e?.diagnostics[0].location?.column == 2)
    }

    @Test func syntaxErrorWinsOverEarlierDuplicates() {
        let e = failure(#"{"a": 1, "a": 2, "b": }"#)
        #expect(e?.code == .syntax)
        #expect(e?.diagnostics.count == 1)
    }

    /// Mangled inputs must produce a result or a ConfigError, never a crash.
    @Test func mangledInputNeverCrashes() throws {
        let seed = Array(#"{"a": [1, -2.5e3, "x\u00e9\n", true, false, null, {"b": {}}], "c": "d€😀"}"#.utf8)
        #expect(failure(bytes: seed) == nil)
        var state: UInt64 = 42
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        let alphabet =
            Array(#"{}[],:"\/ue0123456789-+.Eeaflnrstx "#.utf8) + [0x00, 0x0A, 0x0D, 0x09, 0x80, 0xC3, 0xED, 0xF4, 0xFF]
        for _ in 0..<5000 {
            var bytes = seed
            for _ in 0..<1 + next() % 4 {
                let i = next() % bytes.count
                switch next() % 3 {
                case 0: bytes[i] = alphabet[next() % alphabet.count]
                case 1: bytes.remove(at: i)
                default: bytes.insert(alphabet[next() % alphabet.count], at: i)
                }
                if bytes.isEmpty { bytes = [0x31] }
            }
            if let error = failure(bytes: bytes) {
                #expect(error.diagnostics.allSatisfy { $0.location != nil && !$0.message.isEmpty })
            }
            // Every prefix too (truncated input).
            let cut = next() % (bytes.count + 1)
            _ = failure(bytes: Array(bytes[..<cut]))
        }
    }
}
