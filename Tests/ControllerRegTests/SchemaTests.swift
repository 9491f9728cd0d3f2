import ControllerReg
import Testing

@Suite("Entry schema")
struct SchemaTests {
    func decode(_ text: String, _ format: ConfigFormat = .yaml) throws -> (entries: [EntryDefinition], diagnostics: [Diagnostic])
    {
        let result = EntryDecoder.decode(try ConfigLoader.parse(text, format: format, file: "t.yaml"))
        return (result.entries, result.diagnostics)
    }

    @Test func bareStringIsClassName() throws {
        let (entries, problems) = try decode("Test2: Test2ViewController")
        #expect(problems.isEmpty)
        #expect(entries == [EntryDefinition(name: "Test2", className: "Test2ViewController")])
    }

    /// The decoder reuses the String made for the same bytes (keys, class names, references):
    /// strings that agree in length and in their first and last 8 bytes but differ in the middle
    /// share a cache slot and must still come out as themselves.
    @Test func repeatedAndLookAlikeStringsKeepTheirText() throws {
        var lines: [String] = []
        for i in 0..<40 {
            let mid = String(UnicodeScalar(UInt8(65 + i % 26))) + String(i / 26)
            lines.append("E\(i):")
            lines.append("  ClassName: ClassPrefix_\(mid)_ClassSuffix")
            lines.append("  Dependencies:")
            lines.append("    keyPrefix_\(mid)_keySuffix: TargetPrefix_\(mid)_TargetSuffix")
            lines.append("    short\(i % 3): \"@lit\"")
            lines.append("    \"\": x\(i % 2)")
        }
        let (entries, problems) = try decode(lines.joined(separator: "\n"))
        #expect(problems.isEmpty)
        #expect(entries.count == 40)
        for (i, e) in entries.enumerated() {
            let mid = String(UnicodeScalar(UInt8(65 + i % 26))) + String(i / 26)
            #expect(e.className == "ClassPrefix_\(mid)_ClassSuffix")
            #expect(e.dependencies.map(\.key) == ["keyPrefix_\(mid)_keySuffix", "short\(i % 3)", ""])
            #expect(e.dependencies[0].value == .reference("TargetPrefix_\(mid)_TargetSuffix", at: nil))
            #expect(e.dependencies[2].value == .reference("x\(i % 2)", at: nil))
        }
    }

    @Test func fullEntry() throws {
        let (entries, problems) = try decode(
            """
            A:
              ClassName: AClass
              Description: the A
              Tag: 7
              Dependencies: {x: B, s: "@lit", e: "@", n: 1, f: 2.5, b: false, z: null}
            B: {ClassName: BClass, Tag: bee}
            """)
        #expect(problems.isEmpty)
        #expect(entries.count == 2)
        let a = entries[0]
        #expect(a.className == "AClass")
        #expect(a.description == "the A")
        #expect(a.tag == .int(7))
        #expect(entries[1].tag == .string("bee"))
        #expect(a.dependencies.map(\.key) == ["x", "s", "e", "n", "f", "b", "z"])
        #expect(
            a.dependencies.map(\.value) == [
                .reference("B", at: nil), .string("lit"), .string(""), .int(1), .double(2.5), .bool(false), .null,
            ])
    }

    @Test func nestedListsAndMapsKeepTheStringRule() throws {
        let (entries, problems) = try decode(
            """
            A:
              ClassName: AClass
              Dependencies:
                items: [B, "@b", 3]
                nested: {inner: [B], text: "@t"}
            B: BClass
            """)
        #expect(problems.isEmpty)
        #expect(entries[0].dependencies[0].value == .list([.reference("B", at: nil), .string("b"), .int(3)]))
        #expect(
            entries[0].dependencies[1].value
                == .map([
                    Dependency(key: "inner", value: .list([.reference("B", at: nil)])),
                    Dependency(key: "text", value: .string("t")),
                ]))
    }

    @Test func unknownKeyIsNamedWithLocationAndSuggestion() throws {
        let (_, problems) = try decode(
            """
            Test1:
              ClassName: X
              Dependecies: {a: 1}
            """)
        #expect(problems.count == 1)
        #expect(problems[0].code == .schema)
        #expect(problems[0].location == SourceLocation(file: "t.yaml", line: 3, column: 3))
        #expect(problems[0].message.contains("'Dependecies'"))
        #expect(problems[0].message.contains("did you mean 'Dependencies'"))
    }

    @Test(arguments: [
        ("- a\n- b", "top level must be a map"),
        ("", "empty"),
        ("A: 3", "must be a class name"),
        ("A: {Description: x}", "has no ClassName"),
        ("A: {ClassName: 3}", "ClassName of entry 'A' must be a string"),
        ("A: {ClassName: X, Tag: 1.5}", "Tag of entry 'A' must be a string, an integer or a list of them"),
        ("A: {ClassName: X, Dependencies: [1]}", "Dependencies of entry 'A' must be a map"),
        ("A: {ClassName: X, Description: [1]}", "Description of entry 'A' must be a string"),
    ])
    func schemaErrors(text: String, expected: String) throws {
        let (_, problems) = try decode(text)
        #expect(problems.count == 1)
        #expect(problems.first?.code == .schema)
        #expect(problems.first?.message.contains(expected) == true, "\(problems)")
        #expect(problems.first?.location != nil)
    }

    @Test func everyProblemIsReported() throws {
        let (entries, problems) = try decode(
            """
            A: {ClassName: X, Bogus: 1}
            B: 5
            C: {Description: d}
            D: Fine
            """)
        #expect(problems.count == 3)
        #expect(problems.map { $0.location?.line } == [1, 2, 3])
        #expect(entries.map(\.name) == ["D"])
    }
}
