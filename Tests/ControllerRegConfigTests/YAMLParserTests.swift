import Testing

@testable import ControllerRegConfig

private func load(_ text: String, limits: ConfigLimits = ConfigLimits()) throws(ConfigError) -> ConfigDocument {
    try ConfigLoader.parse(text, format: .yaml, file: "t.yaml", limits: limits)
}

/// Parses `text`, which must fail, and returns the error.
private func failure(
    _ text: String, limits: ConfigLimits = ConfigLimits(),
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> ConfigError? {
    do {
        let doc = try load(text, limits: limits)
        Issue.record("expected an error, got \(doc.nodes.count) nodes", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// Checks the first diagnostic of a failing parse.
private func expectFailure(
    _ text: String, _ code: ErrorCode, _ message: String, line: Int, column: Int,
    limits: ConfigLimits = ConfigLimits(),
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
    guard let error = failure(text, limits: limits, sourceLocation: sourceLocation) else { return }
    let d = error.diagnostics[0]
    #expect(d.code == code, "\(error)", sourceLocation: sourceLocation)
    #expect(d.message.contains(message), "\(d.message)", sourceLocation: sourceLocation)
    #expect(d.location?.file == "t.yaml", sourceLocation: sourceLocation)
    #expect(d.location?.line == line, "\(error)", sourceLocation: sourceLocation)
    #expect(d.location?.column == column, "\(error)", sourceLocation: sourceLocation)
}

/// What a scalar should resolve to.
enum Expected: Sendable, CustomStringConvertible {
    case null, bool(Bool), int(Int64), double(Double), nan, string(String)

    var description: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return "bool(\(b))"
        case .int(let i): return "int(\(i))"
        case .double(let d): return "double(\(d))"
        case .nan: return "nan"
        case .string(let s): return "string(\(s))"
        }
    }
}

private func check(
    _ doc: ConfigDocument, _ index: Int, _ expected: Expected,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
    let n = doc.nodes[index]
    switch expected {
    case .null: #expect(n.kind == .null, sourceLocation: sourceLocation)
    case .bool(let b): #expect(n.kind == .bool && n.bool == b, "\(n)", sourceLocation: sourceLocation)
    case .int(let i): #expect(n.kind == .int && n.int == i, "\(n)", sourceLocation: sourceLocation)
    case .double(let d):
        #expect(n.kind == .double && n.double == d && n.double.sign == d.sign, "\(n) \(n.double)", sourceLocation: sourceLocation)
    case .nan: #expect(n.kind == .double && n.double.isNaN, "\(n)", sourceLocation: sourceLocation)
    case .string(let s): #expect(n.kind == .string && doc.string(at: index) == s, "\(n)", sourceLocation: sourceLocation)
    }
}

@Suite struct YAMLParserTests {
    // MARK: - Core schema typing

    static let typing: [(String, Expected)] = [
        // null
        ("null", .null), ("Null", .null), ("NULL", .null), ("~", .null), ("", .null),
        ("nULL", .string("nULL")), ("nul", .string("nul")), ("~~", .string("~~")), ("none", .string("none")),
        // bool, and the YAML 1.1 words that stay strings
        ("true", .bool(true)), ("True", .bool(true)), ("TRUE", .bool(true)),
        ("false", .bool(false)), ("False", .bool(false)), ("FALSE", .bool(false)),
        ("tRUE", .string("tRUE")), ("yes", .string("yes")), ("no", .string("no")), ("on", .string("on")),
        ("off", .string("off")), ("y", .string("y")), ("n", .string("n")), ("Yes", .string("Yes")),
        ("NO", .string("NO")),
        // quoted and block scalars are strings
        ("\"true\"", .string("true")), ("'true'", .string("true")), ("'42'", .string("42")),
        ("\"null\"", .string("null")), ("''", .string("")), ("\"1.5\"", .string("1.5")),
        ("|\n  42\n", .string("42\n")), (">-\n  true\n", .string("true")),
        // ints
        ("0", .int(0)), ("42", .int(42)), ("-17", .int(-17)), ("+17", .int(17)), ("007", .int(7)),
        ("-0", .int(0)), ("0x1F", .int(31)), ("0xff", .int(255)), ("0o17", .int(15)), ("0o0", .int(0)),
        ("9223372036854775807", .int(Int64.max)), ("-9223372036854775808", .int(Int64.min)),
        ("0x7FFFFFFFFFFFFFFF", .int(Int64.max)),
        ("1_000", .string("1_000")), ("0b1", .string("0b1")), ("0x", .string("0x")), ("0o", .string("0o")),
        ("0o8", .string("0o8")), ("0xG", .string("0xG")), ("-0x10", .string("-0x10")), ("+0o7", .string("+0o7")),
        ("12abc", .string("12abc")), ("1 2", .string("1 2")), ("-x", .string("-x")), ("-.", .string("-.")), ("+", .string("+")),
        ("1:20", .string("1:20")), ("2001-12-14", .string("2001-12-14")),
        // floats
        ("1.5", .double(1.5)), ("-1.5", .double(-1.5)), ("+0.25", .double(0.25)), (".5", .double(0.5)),
        ("1.", .double(1.0)), ("1e3", .double(1000)), ("1E-3", .double(0.001)), ("-2.5e+2", .double(-250)),
        ("0.1", .double(0.1)), ("3.141592653589793", .double(3.141592653589793)),
        ("1.7976931348623157e308", .double(1.7976931348623157e308)), ("5e-324", .double(Double.leastNonzeroMagnitude)),
        ("123456789012345678901234567890.5", .double(123456789012345678901234567890.5)),
        ("-0.0", .double(-0.0)),
        (".", .string(".")), ("..5", .string("..5")), ("1.2.3", .string("1.2.3")), ("1e", .string("1e")),
        ("e5", .string("e5")), (".e5", .string(".e5")), ("1.5f", .string("1.5f")),
        // inf / nan
        (".inf", .double(.infinity)), (".Inf", .double(.infinity)), (".INF", .double(.infinity)),
        ("-.inf", .double(-.infinity)), ("+.inf", .double(.infinity)), ("-.INF", .double(-.infinity)),
        (".nan", .nan), (".NaN", .nan), (".NAN", .nan),
        (".iNF", .string(".iNF")), ("inf", .string("inf")), ("nan", .string("nan")), ("-.nan", .string("-.nan")),
        (".infinity", .string(".infinity")),
        // other strings
        ("hello world", .string("hello world")), ("a@lit", .string("a@lit")), ("héllo", .string("héllo")),
    ]

    @Test(arguments: typing)
    func coreSchemaTyping(_ text: String, _ expected: Expected) throws {
        let doc = try load("v: \(text)")
        #expect(doc.nodes.count == 3)
        check(doc, 2, expected)
    }

    @Test func topLevelScalar() throws {
        let doc = try load("42\n")
        #expect(doc.nodes.count == 1)
        check(doc, 0, .int(42))
    }

    @Test func integerOverflowIsAnError() {
        expectFailure("a: 9223372036854775808", .syntax, "does not fit in 64 bits", line: 1, column: 4)
        expectFailure("a: -9223372036854775809", .syntax, "does not fit in 64 bits", line: 1, column: 4)
        expectFailure("a:\n  - 0x8000000000000000", .syntax, "integer 0x8000000000000000 does not fit", line: 2, column: 5)
        expectFailure("a: 0o1000000000000000000000", .syntax, "does not fit in 64 bits", line: 1, column: 4)
        expectFailure("a: 99999999999999999999999", .syntax, "does not fit in 64 bits", line: 1, column: 4)
        // A decimal beyond the largest double is refused as in JSON and XML plists (`.inf` says
        // infinity on purpose).
        expectFailure("a: 1e999", .syntax, "number 1e999 is too large for a 64-bit floating-point value", line: 1, column: 4)
        expectFailure("a: [-2.5e400]", .syntax, "number -2.5e400 is too large", line: 1, column: 5)
    }

    // MARK: - Tags

    static let tagged: [(String, Expected)] = [
        ("!!str 42", .string("42")), ("!!str true", .string("true")), ("!!str", .string("")),
        ("! 42", .string("42")), ("! true", .string("true")), ("! ~", .string("~")),
        ("!!int 42", .int(42)), ("!!int \"0x10\"", .int(16)), ("!!int '-3'", .int(-3)),
        ("!!float 1.5", .double(1.5)), ("!!float 2", .double(2)), ("!!float .inf", .double(.infinity)),
        ("!!float '0.5'", .double(0.5)),
        ("!!bool true", .bool(true)), ("!!bool 'FALSE'", .bool(false)),
        ("!!null ~", .null), ("!!null ''", .null), ("!!null null", .null),
        ("!<tag:yaml.org,2002:int> 7", .int(7)),
    ]

    @Test(arguments: tagged)
    func standardTags(_ text: String, _ expected: Expected) throws {
        let doc = try load("v: \(text)")
        #expect(doc.nodes.count == 3)
        check(doc, 2, expected)
    }

    @Test func collectionTags() throws {
        let doc = try load("a: !!seq [1, 2]\nb: !!map {x: 1}\nc: ! [3]\n")
        #expect(doc.nodes[2].kind == .list)
        #expect(doc.nodes[6].kind == .map)
        #expect(doc.nodes[10].kind == .list)
    }

    @Test func tagErrors() {
        expectFailure("a: !foo bar", .schema, "unsupported tag '!foo'", line: 1, column: 4)
        expectFailure("a: !!binary aGVsbG8=", .schema, "unsupported tag '!!binary'", line: 1, column: 4)
        expectFailure("a: !!timestamp 2001-12-14", .schema, "unsupported tag '!!timestamp'", line: 1, column: 4)
        expectFailure("a: !!set {x, y}", .schema, "unsupported tag '!!set'", line: 1, column: 4)
        expectFailure("a: !foo [1]", .schema, "unsupported tag '!foo'", line: 1, column: 4)
        expectFailure("x: 1\na: !!int abc", .schema, "'abc' is not an integer", line: 2, column: 4)
        expectFailure("a: !!int 1.5", .schema, "is not an integer", line: 1, column: 4)
        expectFailure("a: !!float abc", .schema, "is not a floating-point number", line: 1, column: 4)
        expectFailure("a: !!bool yes", .schema, "'yes' is not a boolean", line: 1, column: 4)
        expectFailure("a: !!null 0", .schema, "is not null", line: 1, column: 4)
        expectFailure("a: !!map x", .schema, "tag '!!map' on a scalar", line: 1, column: 4)
        expectFailure("a: !!seq {x: 1}", .schema, "tag '!!seq' on a map", line: 1, column: 4)
        expectFailure("a: !!str [1]", .schema, "tag '!!str' on a list", line: 1, column: 4)
        expectFailure("!foo a: 1", .schema, "unsupported tag '!foo'", line: 1, column: 1)
        expectFailure("a: !!int 99999999999999999999", .syntax, "does not fit in 64 bits", line: 1, column: 4)
    }

    // MARK: - Collections

    @Test func blockCollections() throws {
        let doc = try load(
            """
            name: demo
            items:
              - 1
              - two
              - [x, y]
            nested:
              deep:
                value: 1.5
            empty_list: []
            empty_map: {}
            """)
        let n = doc.nodes
        #expect(n[0].kind == .map && n[0].count == 5 && n[0].extent == UInt32(n.count))
        #expect(doc.string(at: 1) == "name" && doc.string(at: 2) == "demo")
        #expect(doc.string(at: 3) == "items")
        #expect(n[4].kind == .list && n[4].count == 3 && n[4].extent == 10)
        check(doc, 5, .int(1))
        check(doc, 6, .string("two"))
        #expect(n[7].kind == .list && n[7].count == 2 && n[7].extent == 10)
        #expect(doc.string(at: 10) == "nested")
        #expect(n[11].kind == .map && n[11].count == 1 && n[11].extent == 16)
        #expect(n[13].kind == .map && n[13].count == 1 && n[13].extent == 16)
        check(doc, 15, .double(1.5))
        #expect(n[17].kind == .list && n[17].count == 0 && n[17].extent == 18)
        #expect(n[19].kind == .map && n[19].count == 0 && n[19].extent == 20)
        #expect(n.count == 20)
        #expect(doc.pairs(of: 0).map { doc.string(at: $0.key) } == ["name", "items", "nested", "empty_list", "empty_map"])
    }

    @Test func flowCollections() throws {
        let doc = try load("{a: [1, 2.5, \"s\", ~], b: {c: true, d: [[], {}]}}")
        let n = doc.nodes
        #expect(n[0].kind == .map && n[0].count == 2 && Int(n[0].extent) == n.count)
        #expect(n[2].kind == .list && n[2].count == 4)
        check(doc, 3, .int(1))
        check(doc, 4, .double(2.5))
        check(doc, 5, .string("s"))
        check(doc, 6, .null)
        #expect(n[8].kind == .map && n[8].count == 2)
        check(doc, 10, .bool(true))
        #expect(n[12].kind == .list && n[12].count == 2)
        #expect(n[13].kind == .list && n[13].count == 0)
        #expect(n[14].kind == .map && n[14].count == 0)
        #expect(n.count == 15)
    }

    @Test func topLevelList() throws {
        let doc = try load("- a\n- - b\n  - c\n- k: v\n")
        #expect(doc.nodes[0].kind == .list && doc.nodes[0].count == 3)
        #expect(doc.elements(of: 0) == [1, 2, 5])
        #expect(doc.nodes[5].kind == .map)
    }

    @Test func locations() throws {
        let doc = try load(
            """
            # comment
            top:
              key: value
              list:
                - 12
                -   "quoted"
            flow: {x: 1}
            """)
        func loc(_ i: Int) -> (Int, Int) { (Int(doc.nodes[i].line), Int(doc.nodes[i].column)) }
        #expect(loc(0) == (2, 1))  // the root map starts at its first key
        #expect(loc(1) == (2, 1))  // "top"
        #expect(loc(2) == (3, 3))  // inner map
        #expect(loc(3) == (3, 3))  // "key"
        #expect(loc(4) == (3, 8))  // "value"
        #expect(loc(5) == (4, 3))  // "list"
        #expect(loc(6) == (5, 5))  // the list
        #expect(loc(7) == (5, 7))  // 12
        #expect(loc(8) == (6, 9))  // "quoted"
        #expect(loc(9) == (7, 1))  // "flow"
        #expect(loc(10) == (7, 7))  // {
        #expect(loc(11) == (7, 8))  // x
        #expect(loc(12) == (7, 11))  // 1
        #expect(doc.location(of: 4) == ControllerRegConfig.SourceLocation(file: "t.yaml", line: 3, column: 8))
    }

    @Test func keysAreStrings() throws {
        let doc = try load("1: a\ntrue: b\n~: c\n0x10: d\n1.5: e\n\"q\": f\n? |\n  block\n: g\n!!str 7: h\n!!int 8: i\n")
        let keys = doc.pairs(of: 0).map(\.key)
        for k in keys { #expect(doc.nodes[k].kind == .string) }
        #expect(keys.map { doc.string(at: $0) } == ["1", "true", "~", "0x10", "1.5", "q", "block\n", "7", "8"])
        check(doc, 2, .string("a"))
    }

    @Test func emptyKey() throws {
        let doc = try load("? \n: v\n")
        check(doc, 1, .string(""))
        check(doc, 2, .string("v"))
    }

    @Test func complexKeysAreErrors() {
        expectFailure("? [a, b]\n: v\n", .schema, "a map key must be a scalar, not a list", line: 1, column: 3)
        expectFailure("x: 1\n? {a: b}\n: v\n", .schema, "a map key must be a scalar, not a map", line: 2, column: 3)
        expectFailure("{[1]: 2}", .schema, "not a list", line: 1, column: 2)
        expectFailure("a: !!int x\n", .schema, "not an integer", line: 1, column: 4)
        expectFailure("!!int x: 1\n", .schema, "'x' is not an integer", line: 1, column: 1)
    }

    // MARK: - Duplicate keys

    @Test func duplicateKeys() {
        guard let error = failure("a: 1\nb: 2\na: 3\nm:\n  x: 1\n  x: 2\n") else { return }
        #expect(error.diagnostics.count == 2)
        #expect(error.diagnostics.allSatisfy { $0.code == .duplicate })
        #expect(error.diagnostics[0].message.contains("duplicate key 'a'"))
        #expect(error.diagnostics[0].location?.line == 3)
        #expect(error.diagnostics[1].message.contains("duplicate key 'x'"))
        #expect(error.diagnostics[1].location?.line == 6 && error.diagnostics[1].location?.column == 3)
    }

    @Test func keysDifferingInTypeStillDuplicate() {
        // Keys are strings: `1` and "1" are the same key.
        guard let error = failure("1: a\n\"1\": b\n") else { return }
        #expect(error.code == .duplicate)
    }

    // MARK: - Merge keys

    @Test func mergeKeysAreRejected() {
        expectFailure(
            "base: &b {x: 1}\nderived:\n  <<: *b\n  y: 2\n", .schema,
            "merge keys ('<<') are not supported; write the keys out", line: 3, column: 3)
    }

    @Test func quotedLessLessIsAPlainKey() throws {
        let doc = try load("\"<<\": 1\n")
        #expect(doc.string(at: 1) == "<<")
    }

    // MARK: - Anchors and aliases

    @Test func aliasesCopySubtrees() throws {
        let doc = try load(
            """
            base: &b
              x: 1
              l: [a, &s str]
            copy: *b
            again: *s
            """)
        let pairs = doc.pairs(of: 0)
        #expect(pairs.count == 3)
        let original = pairs[0].value, copy = pairs[1].value
        #expect(doc.nodes[copy].kind == .map && doc.nodes[copy].count == 2)
        #expect(doc.nodes[copy].extent - UInt32(copy) == doc.nodes[original].extent - UInt32(original))
        #expect(Int(doc.nodes[copy].extent) == pairs[2].key)
        let inner = doc.pairs(of: copy)
        #expect(doc.string(at: inner[0].key) == "x")
        check(doc, inner[0].value, .int(1))
        #expect(doc.nodes[inner[1].value].kind == .list)
        #expect(doc.elements(of: inner[1].value).map { doc.string(at: $0) } == ["a", "str"])
        check(doc, pairs[2].value, .string("str"))
        // The copy's root sits where the alias was written.
        #expect(doc.nodes[copy].line == 4 && doc.nodes[copy].column == 7)
        #expect(Int(doc.nodes[0].extent) == doc.nodes.count)
    }

    @Test func aliasOfScalarsKeepsTheirType() throws {
        let doc = try load("a: &n 42\nb: *n\nc: &f 1.5\nd: *f\n")
        check(doc, 4, .int(42))
        check(doc, 8, .double(1.5))
    }

    @Test func aliasAsKey() throws {
        let doc = try load("k: &k name\n*k : v\n")
        #expect(doc.string(at: 3) == "name")
        expectFailure("k: &k 12\n*k : v\n", .schema, "used as a map key must refer to a string", line: 2, column: 1)
    }

    @Test func redefinedAnchorUsesTheLatest() throws {
        let doc = try load("a: &x 1\nb: &x 2\nc: *x\n")
        check(doc, 6, .int(2))
    }

    @Test func aliasErrors() {
        expectFailure("a: 1\nb: *nope\n", .syntax, "alias '*nope' refers to an unknown anchor", line: 2, column: 4)
        expectFailure("a: &r\n  - 1\n  - *r\n", .schema, "recursive", line: 3, column: 5)
        expectFailure("a: &r {b: {c: *r}}\n", .schema, "recursive", line: 1, column: 15)
        expectFailure("a: *x\nb: &x 1\n", .syntax, "unknown anchor", line: 1, column: 4)
    }

    @Test func billionLaughsIsRejectedQuickly() {
        var text = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"]
        for level in 1..<names.count {
            let prev = "*" + names[level - 1]
            text += "\(names[level]): &\(names[level]) [\(Array(repeating: prev, count: 10).joined(separator: ","))]\n"
        }
        let clock = ContinuousClock()
        let start = clock.now
        let error = failure(text)
        #expect(error?.code == .limit)
        #expect(error?.diagnostics[0].message.contains("aliases expand to more than the limit of 100000 values") == true)
        #expect(clock.now - start < .seconds(5))
    }

    @Test func aliasExpansionLimitIsConfigurable() {
        var limits = ConfigLimits()
        limits.maxAliasExpansion = 5
        expectFailure("a: &a [1, 2]\nb: *a\nc: *a\n", .limit, "limit of 5 values", line: 3, column: 4, limits: limits)
        #expect((try? load("a: &a [1, 2]\nb: *a\n", limits: limits)) != nil)
    }

    // MARK: - Limits

    @Test func deepNestingIsALimitError() {
        let text = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        guard let error = failure(text) else { return }
        #expect(error.code == .limit)
        #expect(error.diagnostics[0].message.contains("nesting deeper than the limit of 128"))
        let unclosed = String(repeating: "[", count: 10_000)
        #expect(failure(unclosed)?.code == .limit)
        let block = (0..<200).map { String(repeating: " ", count: $0) + "k:" }.joined(separator: "\n") + " 1\n"
        #expect(failure(block)?.code == .limit)
    }

    @Test func stringAndNodeLimits() {
        var limits = ConfigLimits()
        limits.maxStringBytes = 4
        expectFailure("a: hello\n", .limit, "exceeds the limit of 4 bytes", line: 1, column: 4, limits: limits)
        limits = ConfigLimits()
        limits.maxNodes = 3
        expectFailure("a: 1\nb: 2\n", .limit, "more than 3 values", line: 2, column: 1, limits: limits)
    }

    // MARK: - Streams

    @Test func multipleDocumentsAreRejected() {
        expectFailure("a: 1\n---\nb: 2\n", .schema, "only one YAML document per file", line: 2, column: 1)
        expectFailure("--- 1\n--- 2\n", .schema, "only one YAML document per file", line: 2, column: 1)
    }

    @Test func singleExplicitDocument() throws {
        let doc = try load("%YAML 1.1\n---\na: 1\n...\n")
        #expect(doc.nodes.count == 3)
        check(doc, 2, .int(1))
    }

    @Test func emptyStreams() throws {
        #expect(try load("").nodes.isEmpty)
        #expect(try load("# only a comment\n\n   # another\n").nodes.isEmpty)
        #expect(try load("\n\n").nodes.isEmpty)
        #expect(try ConfigLoader.parse([UInt8](), format: .yaml).nodes.isEmpty)
        // An explicit empty document is one null.
        let doc = try load("---\n")
        #expect(doc.nodes.count == 1 && doc.nodes[0].kind == .null)
    }

    // MARK: - Syntax errors

    @Test func syntaxErrors() {
        expectFailure("a: [1, 2\n", .syntax, "did not find expected ',' or ']'", line: 2, column: 1)
        expectFailure("a: 1\n b: 2\n", .syntax, "mapping values are not allowed in this context", line: 2, column: 3)
        expectFailure("a: \"unterminated\n", .syntax, "found unexpected end of stream", line: 2, column: 1)
        expectFailure("a: 1\n@b: 2\n", .syntax, "found character that cannot start any token", line: 2, column: 1)
        expectFailure("key\nother: 1\n", .syntax, "mapping values are not allowed in this context", line: 2, column: 6)
        expectFailure("a: 'x' y\n", .syntax, "did not find expected key", line: 1, column: 8)
    }

    @Test func syntaxErrorMessageIncludesContext() {
        guard let error = failure("a: \"unterminated\n") else { return }
        #expect(error.code == .syntax)
        #expect(error.diagnostics[0].message.contains("while scanning a quoted scalar at line 1, column 4"))
    }

    @Test func reservedIndicatorIsASyntaxError() {
        expectFailure("a: @lit\n", .syntax, "found character that cannot start any token", line: 1, column: 4)
    }

    @Test func tabIndentationIsASyntaxError() {
        guard let error = failure("a:\n\tb: 1\n") else { return }
        #expect(error.code == .syntax)
        #expect(error.diagnostics[0].location?.line == 2)
        #expect(error.diagnostics[0].location?.column == 1)
        #expect(error.diagnostics[0].message.contains("tabs cannot be used for indentation"), "\(error)")
        // A tab inside a value is fine.
        #expect((try? load("a: x\ty\n")) != nil)
    }

    @Test func invalidUTF8IsASyntaxError() {
        let bytes: [UInt8] = Array("a: 1\nb: x".utf8) + [0xFF, 0xFE] + Array("\n".utf8)
        do {
            _ = try ConfigLoader.parse(bytes, format: .yaml, file: "t.yaml")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .syntax)
            #expect(error.diagnostics[0].message.contains("invalid"), "\(error)")
            #expect(error.diagnostics[0].location?.line == 2, "\(error)")
            #expect(error.diagnostics[0].location?.column == 5, "\(error)")
        }
        let truncated: [UInt8] = Array("a: ".utf8) + [0xC3]
        #expect((try? ConfigLoader.parse(truncated, format: .yaml)) == nil)
    }

    @Test func escapesAndUnicode() throws {
        let doc = try load("a: \"tab\\there \\u00e9 \\U0001F600\"\nb: 'it''s'\nc: \"\\0\"\n")
        check(doc, 2, .string("tab\there é 😀"))
        check(doc, 4, .string("it's"))
        #expect(doc.nodes[6].extent == 1)
    }

    @Test func neverCrashesOnOddInput() {
        let inputs = [
            "&", "*", "!", "? ", ":", "- - - -", "{", "}", "[", "]", "|", ">", "---\n...\n---", "%YAML 2.0\n---\n",
            "%TAG ! tag:example.com,2000:\n--- !foo 1", "&a *a", "a: &a\nb: *a", "\u{FEFF}a: 1",
            "a: |\n  x\n y", String(repeating: "{a: ", count: 300), "'", "\"\\x\"", "\"\\uD800\"",
        ]
        for input in inputs {
            _ = try? load(input)
        }
    }

    @Test func bomAndUTF16() throws {
        #expect(try load("\u{FEFF}a: 1\n").nodes.count == 3)
        var utf16: [UInt8] = [0xFF, 0xFE]
        for u in "a: 1\n".utf16 {
            utf16.append(UInt8(u & 0xFF))
            utf16.append(UInt8(u >> 8))
        }
        let doc = try ConfigLoader.parse(utf16, format: .yaml)
        check(doc, 2, .int(1))
    }

    // MARK: - Fixture

    static var fixturesDirectory: String {
        String(fixturePath("").dropLast())
    }

    @Test func exampleFixture() throws {
        let doc = try ConfigLoader.load(path: Self.fixturesDirectory + "/example.yaml")
        let top = doc.pairs(of: 0)
        #expect(top.map { doc.string(at: $0.key) } == ["Test1", "Test2"])
        let test1 = top[0].value
        #expect(doc.nodes[test1].kind == .map)
        let fields = doc.pairs(of: test1)
        #expect(fields.map { doc.string(at: $0.key) } == ["ClassName", "Description", "Tag", "Dependencies"])
        check(doc, fields[0].value, .string("Test1ViewController"))
        check(doc, fields[1].value, .string("The first screen"))
        check(doc, fields[2].value, .int(1))
        let deps = doc.pairs(of: fields[3].value)
        #expect(
            deps.map { doc.string(at: $0.key) } == ["dependentString", "dependentInt", "dependentBool", "test2ViewController"])
        check(doc, deps[0].value, .string("@Yes, you can inject a string using the config file"))
        check(doc, deps[1].value, .int(1000))
        check(doc, deps[2].value, .bool(true))
        check(doc, deps[3].value, .string("Test2"))
        check(doc, top[1].value, .string("Test2ViewController"))
        #expect(doc.nodes[top[0].key].line == 2 && doc.nodes[top[0].key].column == 1)
        #expect(doc.nodes[fields[2].value].line == 5 && doc.nodes[fields[2].value].column == 8)
        #expect(Int(doc.nodes[0].extent) == doc.nodes.count)
        #expect(doc.location(of: top[1].value).file.hasSuffix("Fixtures/example.yaml"))
    }
}

@Suite struct YAMLCommonMistakeTests {
    @Test func anUnquotedAtSignSaysToQuoteIt() {
        do {
            _ = try ConfigLoader.parse("A:\n  ClassName: C\n  Dependencies:\n    text: @hello\n", format: .yaml, file: "t.yaml")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .syntax)
            #expect(error.description.contains("cannot start any token"))
            #expect(error.description.contains("quote strings that start with @"), "\(error)")
            #expect(error.diagnostics.first?.location?.line == 4)
        }
    }
}
