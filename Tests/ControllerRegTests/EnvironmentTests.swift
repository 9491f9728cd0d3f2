import ControllerReg
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Environment values checked at load (issue 16 item 3): `${NAME}`, `${NAME:-default}`, `$${` in
/// literal strings and `{Env: NAME, Type: T, Default: D}`, resolved at commit against the load's
/// environment (a given map or the process's), for every door.
@Suite("Environment values")
struct EnvironmentTests {
    static let env = ["HOST": "db.local", "PORT": "9000", "EMPTY": "", "RATIO": "0.25", "DEBUG": "TRUE"]

    /// The args `E`'s class receives after loading `text`.
    func args(_ text: String, format: ConfigFormat = .yaml, environment: [String: String]? = env) throws -> [String: Value] {
        let r = Registry()
        try registerWidgets(r, ["C"])
        try r.load(text: text, format: format, environment: environment)
        return try r.create("E", as: Widget.self).args
    }

    static let yaml = """
        E:
          ClassName: C
          Dependencies:
            url: "@postgres://${HOST}:${PORT:-5432}/app"
            fallback: "@${MISSING:-none}|${EMPTY:-was empty}|${EMPTY}|"
            escaped: "@$${HOST} costs $5 and $$"
            plain: "@no dollar here"
            port: {Env: PORT, Type: int, Default: 8080}
            ratio: {Env: RATIO, Type: double}
            debug: {Env: DEBUG, Type: bool, Default: false}
            host: {Env: HOST}
            unsetPort: {Env: NOPE, Type: int, Default: 8080}
            emptyPort: {Env: EMPTY, Type: int, Default: "7070"}
            list: ["@${HOST}", {Env: PORT, Type: int}]
        """

    static let expected: [String: Value] = [
        "url": "postgres://db.local:9000/app",
        "fallback": "none|was empty||",
        "escaped": "${HOST} costs $5 and $$",
        "plain": "no dollar here",
        "port": 9000,
        "ratio": 0.25,
        "debug": true,
        "host": "db.local",
        "unsetPort": 8080,
        "emptyPort": 7070,
        "list": ["db.local", 9000],
    ]

    @Test func substitutesAndConvertsInYAML() throws {
        #expect(try args(Self.yaml) == Self.expected)
    }

    @Test func jsonAndPlistGiveTheSameValues() throws {
        let json = """
            {"E": {"ClassName": "C", "Dependencies": {
              "url": "@postgres://${HOST}:${PORT:-5432}/app",
              "fallback": "@${MISSING:-none}|${EMPTY:-was empty}|${EMPTY}|",
              "escaped": "@$${HOST} costs $5 and $$",
              "plain": "@no dollar here",
              "port": {"Env": "PORT", "Type": "int", "Default": 8080},
              "ratio": {"Env": "RATIO", "Type": "double"},
              "debug": {"Env": "DEBUG", "Type": "bool", "Default": false},
              "host": {"Env": "HOST"},
              "unsetPort": {"Env": "NOPE", "Type": "int", "Default": 8080},
              "emptyPort": {"Env": "EMPTY", "Type": "int", "Default": "7070"},
              "list": ["@${HOST}", {"Env": "PORT", "Type": "int"}]}}}
            """
        #expect(try args(json, format: .json) == Self.expected)
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>E</key><dict>
            <key>ClassName</key><string>C</string>
            <key>Dependencies</key><dict>
              <key>url</key><string>@postgres://${HOST}:${PORT:-5432}/app</string>
              <key>fallback</key><string>@${MISSING:-none}|${EMPTY:-was empty}|${EMPTY}|</string>
              <key>escaped</key><string>@$${HOST} costs $5 and $$</string>
              <key>plain</key><string>@no dollar here</string>
              <key>port</key><dict><key>Env</key><string>PORT</string><key>Type</key><string>int</string><key>Default</key><integer>8080</integer></dict>
              <key>ratio</key><dict><key>Env</key><string>RATIO</string><key>Type</key><string>double</string></dict>
              <key>debug</key><dict><key>Env</key><string>DEBUG</string><key>Type</key><string>bool</string><key>Default</key><false/></dict>
              <key>host</key><dict><key>Env</key><string>HOST</string></dict>
              <key>unsetPort</key><dict><key>Env</key><string>NOPE</string><key>Type</key><string>int</string><key>Default</key><integer>8080</integer></dict>
              <key>emptyPort</key><dict><key>Env</key><string>EMPTY</string><key>Type</key><string>int</string><key>Default</key><string>7070</string></dict>
              <key>list</key><array><string>@${HOST}</string><dict><key>Env</key><string>PORT</string><key>Type</key><string>int</string></dict></array>
            </dict></dict></dict></plist>
            """
        #expect(try args(plist, format: .plist) == Self.expected)
    }

    @Test func definitionsKeepTheWrittenForm() throws {
        let r = Registry()
        try r.load(text: Self.yaml, format: .yaml, environment: Self.env)
        let deps = r.entry(named: "E")!.dependencies
        #expect(deps[0].value == .template("postgres://${HOST}:${PORT:-5432}/app", at: nil))
        #expect(deps[3].value == .string("no dollar here"))
        #expect(deps[4].value == .env(EnvValue(name: "PORT", type: .int, defaultValue: .int(8080))))
        #expect(deps[7].value == .env(EnvValue(name: "HOST")))
    }

    @Test func typedConversions() throws {
        func value(_ type: String, _ text: String) throws -> Value? {
            try args("E: {ClassName: C, Dependencies: {v: {Env: V, Type: \(type)}}}", environment: ["V": text])["v"]
        }
        #expect(try value("int", " 42\n") == 42)
        #expect(try value("int", "-9223372036854775808") == .int(Int64.min))
        #expect(try value("int", "+9223372036854775807") == .int(Int64.max))
        #expect(try value("double", "-1.5e3") == -1500.0)
        #expect(try value("double", "8080") == 8080.0)
        #expect(try value("bool", "0") == false)
        #expect(try value("bool", "False") == false)
        #expect(try value("bool", "1") == true)
        #expect(try value("string", " x ") == " x ")
        for (type, text, what) in [
            ("int", "9223372036854775808", "not an integer in 64-bit range"),
            ("int", "-9223372036854775809", "not an integer in 64-bit range"),
            ("int", "12a", "not an integer"),
            ("int", "0x10", "not an integer"),
            ("int", "", "not an integer"),
            ("double", "1e999", "not a finite decimal number"),
            ("double", "nan", "not a finite decimal number"),
            ("double", "1.", "not a finite decimal number"),
            ("bool", "yes", "not a boolean (true, false, 1 or 0)"),
        ] {
            let e = expectError { _ = try value(type, text) }
            #expect(e?.code == .environment, "\(type) \(text)")
            #expect(e?.diagnostics.first?.message.contains(what) == true, "\(e?.description ?? "")")
        }
    }

    @Test func everyMissingVariableIsReportedAtOnceWithItsPlace() throws {
        let text = """
            A:
              ClassName: C
              Dependencies:
                url: "@http://${HOST}:${PORT}/${HOST}"
                port: {Env: PORT, Type: int}
            B:
              ClassName: C
              Dependencies:
                other: Nowhere
                n: {Env: N, Type: int}
            """
        let e = expectError { try Registry().load(text: text, file: "app.yaml", environment: ["N": "many"]) }
        let d = try #require(e).diagnostics
        #expect(e?.code == .missingReference)
        let env = d.filter { $0.code == .environment }.map { "\($0.location!.line):\($0.location!.column) \($0.message)" }
        #expect(
            env == [
                "4:10 entry 'A', key 'url': environment variable HOST is not set (in '@http://${HOST}:${PORT}/${HOST}'): set HOST or give a default: ${HOST:-value}",
                "4:10 entry 'A', key 'url': environment variable PORT is not set (in '@http://${HOST}:${PORT}/${HOST}'): set PORT or give a default: ${PORT:-value}",
                "5:17 entry 'A', key 'port': environment variable PORT is not set: set PORT or give a default: {Env: PORT, Type: int, Default: ...}",
                "10:14 entry 'B', key 'n': environment variable N is 'many', not an integer: set N to an integer",
            ])
        #expect(d.contains { $0.code == .missingReference && $0.message.contains("Nowhere") })
        #expect(d.allSatisfy { $0.location?.file == "app.yaml" })
    }

    @Test func malformedTemplatesAndFormsAreSchemaErrors() throws {
        func problem(_ value: String) -> Diagnostic? {
            expectError { try Registry().load(text: "E: {ClassName: C, Dependencies: {v: \(value)}}", environment: [:]) }?
                .diagnostics.first
        }
        let cases: [(String, String)] = [
            ("'@${HOST'", "'${HOST' at byte 1 is not closed: end it with '}'"),
            ("'@x${'", "'${' at byte 2 is not followed by a variable name"),
            ("'@${1X}'", "'${' at byte 1 is not followed by a variable name (found '1X}')"),
            ("'@${A-b}'", "'${A' at byte 1 is followed by '-b}': write ${A} or ${A:-default}"),
            ("'@${A:-${B}}'", "nesting is not supported"),
            ("'@${A:-x'", "'${A:-' at byte 1 is not closed"),
            ("{Env: PORT, Type: integer}", "unknown Type 'integer' of an Env value (did you mean 'int'?)"),
            ("{Env: PORT, Typ: int}", "unknown key 'Typ' in an Env value (did you mean 'Type'?)"),
            ("{Env: 5}", "Env must name an environment variable (a string), found an integer"),
            ("{Env: '1PORT'}", "Env '1PORT' is not a variable name"),
            ("{Env: PORT, Type: int, Default: abc}", "Default 'abc' of PORT is not an integer"),
            ("{Env: PORT, Type: int, Default: 1.5}", "Default 1.5 of PORT is not an integer"),
            ("{Env: PORT, Default: [1]}", "Default of an Env value must be a string, integer, number or boolean, found a list"),
            ("{env: PORT, type: int}", "'env' is not a dependency form: forms are case-sensitive"),
        ]
        for (value, message) in cases {
            let d = problem(value)
            #expect(d?.code == .schema, "\(value)")
            #expect(d?.message.contains(message) == true, "\(value): \(d?.message ?? "no error")")
        }
        #expect(problem("{Env: PORT, Type: integer}")?.suggestion == "int")
        // A plain map with a lower-case `env` key stays a map.
        #expect(try args("E: {ClassName: C, Dependencies: {v: {env: '@prod'}}}")["v"] == ["env": "prod"])
    }

    @Test func defaultIsCheckedEvenWhenTheVariableIsSet() {
        let e = expectError {
            _ = try args(
                "E: {ClassName: C, Dependencies: {v: {Env: PORT, Type: int, Default: soon}}}", environment: ["PORT": "1"])
        }
        #expect(e?.code == .schema)
    }

    @Test func registryAddIsTheSameDoor() throws {
        let r = Registry()
        try registerWidgets(r, ["C"])
        let deps = [
            Dependency(key: "url", value: try DependencyValue(reading: "@http://${HOST}")),
            Dependency(key: "port", value: try DependencyValue(reading: ["Env": "PORT", "Type": "int", "Default": 1])),
            Dependency(key: "n", value: .env(EnvValue(name: "N", type: .double))),
        ]
        try r.add([EntryDefinition(name: "E", className: "C", dependencies: deps)], environment: ["HOST": "h", "N": "2"])
        #expect(try r.create("E", as: Widget.self).args == ["url": "http://h", "port": 1, "n": 2.0])
        // The same problems as a file gives.
        let e = expectError {
            try Registry().add([EntryDefinition(name: "E", className: "C", dependencies: deps)], environment: ["N": "x"])
        }
        #expect(
            e?.diagnostics.map(\.message) == [
                "entry 'E', key 'url': environment variable HOST is not set (in '@http://${HOST}'): set HOST or give a default: ${HOST:-value}",
                "entry 'E', key 'n': environment variable N is 'x', not a finite decimal number: set N to a number",
            ])
        let bad = expectError { _ = try DependencyValue(reading: ["Env": "P", "Type": "float"]) }
        #expect(bad?.code == .schema)
        #expect(bad?.diagnostics.first?.suggestion == "double")
        let badName = expectError {
            try Registry().add([
                EntryDefinition(
                    name: "E", className: "C", dependencies: [Dependency(key: "k", value: .env(EnvValue(name: "A-B")))])
            ])
        }
        #expect(badName?.code == .schema)
    }

    @Test func processEnvironmentWhenNoMapIsGiven() throws {
        setenv("CONTROLLERREG_TEST_PORT", "4242", 1)
        defer { unsetenv("CONTROLLERREG_TEST_PORT") }
        let text =
            "E: {ClassName: C, Dependencies: {p: {Env: CONTROLLERREG_TEST_PORT, Type: int}, s: '@${CONTROLLERREG_TEST_PORT}'}}"
        #expect(try args(text, environment: nil) == ["p": 4242, "s": "4242"])
        // A given map replaces the process environment entirely.
        #expect(expectError { _ = try args(text, environment: [:]) }?.code == .environment)
    }

    @Test func childRegistryKeepsTheEnvironmentItsEntriesWereLoadedWith() throws {
        let parent = Registry()
        try registerWidgets(parent, ["C"])
        try parent.load(text: "P: {ClassName: C, Dependencies: {v: '@${V}'}}", environment: ["V": "parent"])
        let child = Registry(parent: parent)
        try child.load(text: "Q: {ClassName: C, Dependencies: {v: '@${V}', p: P}}", environment: ["V": "child"])
        // A change to the parent compiles the child's entries again: each keeps its own load's values.
        try parent.load(text: "R: C", environment: [:])
        let q = try child.create("Q", as: Widget.self)
        #expect(q.args["v"] == "child")
        #expect(q.children["p"]?.args["v"] == "parent")
    }

    @Test func aTemplatesMissingNamesAreEachReportedOrCountedOnce() {
        // Eight names reported in their first order, each once however often it is used; the
        // ones past them counted once each.
        let names = ["A", "B", "A", "C", "D", "E", "F", "G", "H", "I", "B", "J", "I", "J"]
        let text = names.map { "${\($0)}" }.joined()
        let e = expectError { try Registry().load(text: "E: {ClassName: C, Dependencies: {v: '@\(text)'}}", environment: [:]) }
        let messages = e?.diagnostics.map(\.message) ?? []
        #expect(messages.count == 9)
        for (i, name) in ["A", "B", "C", "D", "E", "F", "G", "H"].enumerated() where i < messages.count {
            #expect(messages[i].hasPrefix("entry 'E', key 'v': environment variable \(name) is not set (in '@\(text)')"))
        }
        #expect(messages.last == "entry 'E', key 'v': 2 more environment variables in '@\(text)' are not set")
    }

    @Test func hostileInputCostsLittleAndIsBounded() throws {
        // 100k `${` (unclosed at the end): one schema problem, not 100k.
        let opens = String(repeating: "${A}", count: 100_000) + "${"
        let e = expectError { try Registry().load(text: "E: {ClassName: C, Dependencies: {v: '@\(opens)'}}", environment: [:]) }
        #expect(e?.diagnostics.count == 1)
        #expect(e?.code == .schema)
        // 100k uses of distinct missing variables: a bounded number of problems.
        let many = (0..<100_000).map { "${V\($0)}" }.joined()
        let m = expectError { try Registry().load(text: "E: {ClassName: C, Dependencies: {v: '@\(many)'}}", environment: [:]) }
        #expect(m?.code == .environment)
        #expect((m?.diagnostics.count ?? 0) <= 9)
        #expect(m?.diagnostics.last?.message.contains("99992 more environment variables") == true)
        // A huge value substituted many times stops at the string limit.
        var limits = RegistryLimits()
        limits.config.maxStringBytes = 1 << 20
        let r = Registry(limits: limits)
        let big = String(repeating: "x", count: 300_000)
        let l = expectError {
            try r.load(text: "E: {ClassName: C, Dependencies: {v: '@${B}${B}${B}${B}'}}", environment: ["B": big])
        }
        #expect(l?.code == .limit)
        try r.load(text: "E: {ClassName: C, Dependencies: {v: '@${B}${B}${B}'}}", environment: ["B": big])
    }

    @Test func writtenFormsReadBackUnchanged() throws {
        let values: [DependencyValue] = [
            .template("a${B}c", at: nil), .env(EnvValue(name: "P", type: .int, defaultValue: .int(1))),
            .env(EnvValue(name: "S")), .env(EnvValue(name: "D", type: .double, defaultValue: .string("0.5"))),
        ]
        for v in values { #expect(try DependencyValue(reading: DependencyRule.written(v)) == v) }
        // A plain string that holds `${` is written escaped, so it is never substituted.
        let plain = DependencyValue.string("literal ${not} substituted")
        #expect(try DependencyValue(reading: DependencyRule.written(plain)) == .template("literal $${not} substituted", at: nil))
        let r = Registry()
        try registerWidgets(r, ["C"])
        try r.add([EntryDefinition(name: "E", className: "C", dependencies: [Dependency(key: "v", value: plain)])])
        try r.add(
            [
                EntryDefinition(
                    name: "F", className: "C",
                    dependencies: [Dependency(key: "v", value: try DependencyValue(reading: DependencyRule.written(plain)))])
            ], environment: [:])
        #expect(try r.create("E", as: Widget.self).args["v"] == "literal ${not} substituted")
        #expect(try r.create("F", as: Widget.self).args["v"] == "literal ${not} substituted")
    }

    @Test func reloadGivesTheSameMapAgainAndReadsTheProcessEnvironmentAnew() throws {
        let dir = ConfigDir()
        let file = dir.write(
            "env.yaml", "E: {ClassName: C, Dependencies: {p: {Env: CR_RELOAD_PORT, Type: int}, s: '@${CR_RELOAD_HOST:-h}'}}\n")
        // A given map: kept with the load and given again by the reload.
        let given = Registry()
        try registerWidgets(given, ["C"])
        try given.load(path: file, environment: ["CR_RELOAD_PORT": "1"])
        #expect(try given.reload() == ReloadChanges())
        #expect(try given.create("E", as: Widget.self).args == ["p": 1, "s": "h"])
        // The process environment: read again by each reload; a changed value changes the entry.
        setenv("CR_RELOAD_PORT", "2", 1)
        defer { unsetenv("CR_RELOAD_PORT") }
        let process = Registry()
        try registerWidgets(process, ["C"])
        try process.load(path: file)
        #expect(try process.create("E", as: Widget.self).args == ["p": 2, "s": "h"])
        #expect(try process.reload() == ReloadChanges())
        setenv("CR_RELOAD_PORT", "3", 1)
        #expect(try process.reload() == ReloadChanges(changed: ["E"]))
        #expect(try process.create("E", as: Widget.self).args == ["p": 3, "s": "h"])
        // A variable gone at reload fails it and changes nothing.
        unsetenv("CR_RELOAD_PORT")
        let e = expectError { _ = try process.reload() }
        #expect(e?.code == .environment)
        #expect(try process.create("E", as: Widget.self).args == ["p": 3, "s": "h"])
    }
}
