import ControllerReg
import Testing

/// One rule, every door (issue 13 item 1): a config file, `Registry.add` and the C ABI's
/// `cr_add_entry` (`host-tests/c/test_doors.c`, same table) give the same code and message for
/// the same entry.
@Suite("Every door: config text and Registry.add agree")
struct EveryDoorTests {
    /// An entry `name` of class `className` with one dependency `d`, written in YAML (`yaml`) and
    /// as a Swift value (`value`), and the problem every door reports.
    struct Case: Sendable, CustomStringConvertible {
        var name = "E"
        var className = "C"
        var yaml: String
        var value: Value
        var code: ErrorCode
        var message: String
        var description: String { yaml }
    }

    static let cases: [Case] = [
        Case(
            yaml: "''", value: "", code: .schema,
            message: "entry 'E', key 'd': an empty string is not an entry name; write \"@\" for an empty literal string"),
        Case(
            yaml: "{Provider: '@x'}", value: ["Provider": "@x"], code: .schema,
            message: "entry 'E', key 'd': Provider must name an entry, not a literal ('@x')"),
        Case(
            yaml: "{Provider: ''}", value: ["Provider": ""], code: .schema,
            message: "entry 'E', key 'd': Provider must name an entry (a non-empty string), found an empty string"),
        Case(
            yaml: "{Provider: 5}", value: ["Provider": 5], code: .schema,
            message: "entry 'E', key 'd': Provider must name an entry (a non-empty string), found an integer"),
        Case(
            yaml: "{Provider: X, Other: 1}", value: ["Provider": "X", "Other": 1], code: .schema,
            message: "entry 'E', key 'd': a provider is written {Provider: EntryName} with no other keys"),
        Case(
            yaml: "{provider: X}", value: ["provider": "X"], code: .schema,
            message:
                "entry 'E', key 'd': 'provider' is not a dependency form: forms are case-sensitive; write {Provider: EntryName}"),
        Case(
            yaml: "{Tagged: [a, b]}", value: ["Tagged": ["a", "b"]], code: .schema,
            message:
                "entry 'E', key 'd': Tagged must name one tag (a non-empty string or an integer), found a list; write one {Tagged: tag} per tag"
        ),
        Case(
            yaml: "{Tagged: true}", value: ["Tagged": true], code: .schema,
            message: "entry 'E', key 'd': Tagged must name one tag (a non-empty string or an integer), found a boolean"),
        Case(
            yaml: "{Tagged: ''}", value: ["Tagged": ""], code: .schema,
            message: "entry 'E', key 'd': Tagged must name one tag (a non-empty string or an integer), found an empty string"),
        Case(
            yaml: "{Tagged: x, Other: 1}", value: ["Tagged": "x", "Other": 1], code: .schema,
            message: "entry 'E', key 'd': a tagged list is written {Tagged: tag} with no other keys"),
        Case(
            yaml: "{tagged: x}", value: ["tagged": "x"], code: .schema,
            message: "entry 'E', key 'd': 'tagged' is not a dependency form: forms are case-sensitive; write {Tagged: tag}"),
        Case(
            yaml: "{Optional: '@x'}", value: ["Optional": "@x"], code: .schema,
            message: "entry 'E', key 'd': Optional must name an entry, not a literal ('@x')"),
        Case(
            yaml: "{Optional: ''}", value: ["Optional": ""], code: .schema,
            message: "entry 'E', key 'd': Optional must name an entry (a non-empty string), found an empty string"),
        Case(
            yaml: "{Optional: 5}", value: ["Optional": 5], code: .schema,
            message: "entry 'E', key 'd': Optional must name an entry (a non-empty string), found an integer"),
        Case(
            yaml: "{Optional: X, Other: 1}", value: ["Optional": "X", "Other": 1], code: .schema,
            message: "entry 'E', key 'd': an optional reference is written {Optional: EntryName} with no other keys"),
        Case(
            yaml: "{optional: X}", value: ["optional": "X"], code: .schema,
            message:
                "entry 'E', key 'd': 'optional' is not a dependency form: forms are case-sensitive; write {Optional: EntryName}"),
        Case(
            yaml: "[ok, '']", value: ["@ok", ""], code: .schema,
            message: "entry 'E', key 'd': an empty string is not an entry name; write \"@\" for an empty literal string"),
        Case(
            yaml: "Hello world", value: "Hello world", code: .missingReference,
            message: "entry 'E', key 'd': no entry named 'Hello world'; if this is text, write \"@Hello world\""),
        Case(
            yaml: "{Provider: Nowhere}", value: ["Provider": "Nowhere"], code: .missingReference,
            message:
                "entry 'E', key 'd': no entry named 'Nowhere'; {Provider: Nowhere} needs an entry: define 'Nowhere' or name an existing one"
        ),
        Case(
            name: "", yaml: "'@x'", value: "@x", code: .schema, message: "an entry name must not be empty; give the entry a name"),
        Case(
            className: "", yaml: "'@x'", value: "@x", code: .schema,
            message: "the class name of entry 'E' must not be empty; name the class that builds it"),
    ]

    /// The first problem of loading the case's YAML.
    func throughConfig(_ c: Case) -> Diagnostic? {
        let yaml = "'\(c.name)':\n  ClassName: '\(c.className)'\n  Dependencies:\n    d: \(c.yaml)\n"
        return expectError { try Registry().load(text: yaml, format: .yaml) }?.diagnostics.first
    }

    /// The first problem of adding the case from Swift.
    func throughAdd(_ c: Case) -> Diagnostic? {
        expectError {
            let value = try DependencyValue(reading: c.value)
            try Registry().add([
                EntryDefinition(name: c.name, className: c.className, dependencies: [Dependency(key: "d", value: value)])
            ])
        }?.diagnostics.first
    }

    @Test(arguments: cases)
    func configAndAddAgree(_ c: Case) {
        let config = throughConfig(c), add = throughAdd(c)
        #expect(config?.code == c.code)
        #expect(config?.message == c.message)
        #expect(add?.code == c.code)
        let prefix = "entry 'E', key 'd': "
        let bare = c.message.hasPrefix(prefix) ? String(c.message.dropFirst(prefix.count)) : c.message
        #expect(add?.message == c.message || add?.message == bare, "\(String(describing: add))")
        #expect(config?.location != nil)
    }

    @Test func valuesBuiltInSwiftAreCheckedLikeConfigs() {
        // The Swift API's own values, not read from a Value: the same checks in the transaction.
        let r = Registry()
        let empty = expectError {
            try r.add([
                EntryDefinition(name: "E", className: "C", dependencies: [Dependency(key: "d", value: .reference("", at: nil))])
            ])
        }
        #expect(empty?.code == .schema)
        #expect(empty?.diagnostics.first?.message == Self.cases[0].message)
        let literal = expectError {
            try r.add([
                EntryDefinition(name: "E", className: "C", dependencies: [Dependency(key: "d", value: .provider("@x", at: nil))])
            ])
        }
        #expect(literal?.diagnostics.first?.message == Self.cases[1].message)
        let noName = expectError { try r.add([EntryDefinition(name: "", className: "C")]) }
        #expect(noName?.code == .schema)
        #expect(r.entries.isEmpty)
    }

    @Test func aPlainMapMayHoldAKeyNamedLikeAForm() throws {
        let r = Registry()
        try r.load(text: "E: {ClassName: C, Dependencies: {cloud: {provider: '@aws', region: '@eu'}}}")
        #expect(
            r.entry(named: "E")?.dependencies.first?.value
                == .map([
                    Dependency(key: "provider", value: .string("aws")), Dependency(key: "region", value: .string("eu")),
                ]))
    }

    @Test func theRuleReadsBackWhatItWrites() throws {
        let values: [DependencyValue] = [
            .string(""), .string("@at"), .reference("Name", at: nil), .provider("P", at: nil),
            .list([.int(1), .string("x"), .reference("R", at: nil)]),
            .map([Dependency(key: "k", value: .provider("Q", at: nil))]),
        ]
        for v in values { #expect(try DependencyValue(reading: DependencyRule.written(v)) == v) }
    }
}
