import ControllerReg
import Testing

/// Misuse a hostile host may try through the Swift API, each detected or made safe: closing a
/// registry from inside one of its creates, dependency keys no host could read, an empty source
/// name, a singleton replaced by an override load.
@Suite("Misuse made safe", .serialized)
struct MisuseTests {
    final class Tracked: @unchecked Sendable {
        let name: String
        let log: CallLog
        init(_ name: String, _ log: CallLog) {
            self.name = name
            self.log = log
        }
        deinit { log.record("destroyed \(name)") }
    }

    /// A registry with classes "S" (a `Tracked`) and "Closer" (closes the registry in its create).
    private func closingRegistry(_ log: CallLog) throws -> Registry {
        let r = Registry()
        try r.register(className: "S") { _ in Tracked("S", log) }
        try r.register(className: "Closer") { [unowned r] args in
            r.close()
            log.record("closed inside")
            // The registry is empty now, but the create running still finishes.
            #expect(expectError { _ = try r.create("Shared") }?.code != nil)
            return Tracked("Closer", log)
        }
        try r.load(
            text: """
                Shared: {ClassName: S, Lifestyle: singleton}
                C: {ClassName: Closer, Dependencies: {s: Shared}}
                """)
        return r
    }

    /// A name template holds `{name}` once with other text and no other brace (`NameTemplate`):
    /// the C ABI's rule, the same here; text around the placeholder is kept byte for byte.
    @Test func oddNameTemplatesAreRefused() throws {
        let r = Registry()
        let odd: [(String, String)] = [
            ("", "is empty"), ("Controller", "has no {name}"), ("{name}", "is {name} alone"),
            ("{name}{name}", "holds {name} 2 times"), ("{Name}X", "has no {name}"),
            ("{name}{kind}", "holds '{' at byte 6 outside {name}"), ("{name}}", "holds '}' at byte 6"),
            ("{name}\u{0}X", "holds a NUL byte at byte 6"),
        ]
        for (template, says) in odd {
            let error = expectError { try r.addNameTemplate(template) }
            #expect(error?.code == .invalidArgument)
            #expect(error?.description.contains("the name template") == true)
            #expect(error?.description.contains(says) == true, "\(template): \(error?.description ?? "accepted")")
        }
        try r.register(className: "Car\u{301}X") { _ in Tracked("accented", CallLog()) }
        try r.addNameTemplate("{name}\u{301}X")
        #expect(try r.create("Car", as: Tracked.self).name == "accented")
    }

    @Test func closeInsideACreateWaitsForTheCreateToReturn() throws {
        let log = CallLog()
        let r = try closingRegistry(log)
        let c = try r.create("C", as: Tracked.self)
        #expect(c.name == "Closer")
        #expect(log.count("closed inside") == 1)
        // The singleton the create was given outlived the callback and was destroyed after it.
        #expect(log.count("destroyed S") == 1)
        #expect(r.isClosed)
        #expect(expectError { _ = try r.create("C") } != nil)
    }

    @Test func closeOfAnotherRegistryInsideACreateWaitsToo() throws {
        let log = CallLog()
        let other = Registry()
        try other.register(className: "S") { _ in Tracked("other", log) }
        try other.load(text: "Shared: {ClassName: S, Lifestyle: singleton}")
        _ = try other.create("Shared")
        let r = Registry()
        try r.register(className: "X") { _ in
            other.close()
            #expect(log.count("destroyed other") == 0)
            return Tracked("X", log)
        }
        _ = try r.create("X", as: Tracked.self)
        #expect(log.count("destroyed other") == 1)
    }

    // MARK: Dependency keys with a NUL byte

    /// The same entry through each door that can carry such a key: every config format and
    /// `Registry.add`. (C strings, and so `cr_add_entry` and the bindings' props, cannot.)
    @Test(arguments: [
        ("json", #"{"E": {"ClassName": "C", "Dependencies": {"a\u0000b": 1}}}"#, ConfigFormat.json),
        ("yaml", "E: {ClassName: C, Dependencies: {\"a\\0b\": 1}}\n", ConfigFormat.yaml),
        ("json nested", #"{"E": {"ClassName": "C", "Dependencies": {"m": {"x\u0000": 1}}}}"#, ConfigFormat.json),
        (
            "plist",
            """
            <?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>E</key><dict>\
            <key>ClassName</key><string>C</string><key>Dependencies</key><dict><key>a&#0;b</key>\
            <integer>1</integer></dict></dict></dict></plist>
            """, ConfigFormat.plist
        ),
    ])
    func nulInADependencyKeyIsRefusedAtLoad(_ door: String, _ text: String, _ format: ConfigFormat) throws {
        let r = Registry()
        let error = expectError { try r.load(text: text, format: format, file: "keys") }
        // XML 1.0 has no NUL character at all: the plist parser refuses it itself.
        if door == "plist" {
            #expect(error != nil)
            return
        }
        #expect(error?.code == .schema, "\(door)")
        let message = error?.diagnostics.first?.message ?? ""
        #expect(message.contains("must not contain a NUL byte"), "\(door): \(message)")
        #expect(message.contains("rename the key"), "\(door): \(message)")
        #expect(error?.diagnostics.first?.location?.file == "keys", "\(door)")
        #expect(r.entries.isEmpty)
    }

    @Test func nulInADependencyKeyIsRefusedFromCode() throws {
        let r = Registry()
        for deps in [
            [Dependency(key: "a\u{0}b", value: .int(1))],
            [Dependency(key: "m", value: .map([Dependency(key: "x\u{0}", value: .string("v"))]))],
            [Dependency(key: "r\u{0}", value: .reference("Other", at: nil))],
        ] {
            let error = expectError { try r.add([EntryDefinition(name: "E", className: "C", dependencies: deps)]) }
            #expect(error?.code == .schema)
            #expect(error?.diagnostics.first?.message.contains("must not contain a NUL byte") == true)
        }
        #expect(r.entries.isEmpty)
        // A NUL in a literal value is fine (C reads its length).
        try r.add([EntryDefinition(name: "E", className: "C", dependencies: [Dependency(key: "a", value: .string("x\u{0}y"))])])
    }

    // MARK: Source names

    @Test func anEmptySourceNameIsShownAsString() throws {
        let r = Registry()
        let error = expectError { try r.load(text: "A: X\nB: {ClassName: X, Dependencies: {a: Missing}}\n", file: "") }
        #expect(error?.diagnostics.first?.location?.file == "<string>")
        #expect(error?.description.hasPrefix("<string>:2:") == true)
        let syntax = expectError { try r.load(text: "A: [", file: "") }
        #expect(syntax?.description.hasPrefix("<string>:") == true)
    }

    // MARK: Singletons replaced by an override load

    /// Changes `r` (with nothing) until `done`: a dropped singleton is destroyed once no create
    /// that began before the swap is running, at the end of a change. Creates of tests running in
    /// parallel may delay it past the first change (never for long: they are short and finish).
    private func settle(_ r: Registry, atMost limit: Int = 100_000, until done: () -> Bool) throws {
        var changes = 0
        while !done() && changes < limit {
            try r.add([])
            changes += 1
        }
    }

    @Test func aSingletonReplacedByAnOverrideLoadIsDestroyed() throws {
        let log = CallLog()
        let r = Registry()
        try r.register(className: "S") { args in Tracked(args["v"]?.string ?? "?", log) }
        try r.load(text: "S: {ClassName: S, Lifestyle: singleton, Dependencies: {v: '@old'}}")
        _ = try r.create("S")
        try r.load(text: "S: {ClassName: S, Lifestyle: singleton, Dependencies: {v: '@new'}}", mode: .override)
        try settle(r) { log.count("destroyed old") == 1 }
        #expect(log.count("destroyed old") == 1)
        #expect(try r.create("S", as: Tracked.self).name == "new")
        // Removed: destroyed too.
        try r.remove(entriesNamed: ["S"])
        try settle(r) { log.count("destroyed new") == 1 }
        #expect(log.count("destroyed new") == 1)
        r.close()
        #expect(log.count("destroyed old") == 1 && log.count("destroyed new") == 1)
    }

    @Test func aReplacedSingletonAnotherSingletonHoldsIsKeptUntilClose() throws {
        let log = CallLog()
        let r = Registry()
        try r.register(className: "S") { args in Tracked(args["v"]?.string ?? "holder", log) }
        try r.load(
            text: """
                Inner: {ClassName: S, Lifestyle: singleton, Dependencies: {v: '@inner'}}
                Holder: {ClassName: S, Lifestyle: singleton, Dependencies: {inner: Inner}}
                """)
        _ = try r.create("Holder")
        try r.load(text: "Inner: {ClassName: S, Lifestyle: singleton, Dependencies: {v: '@inner2'}}", mode: .override)
        // Holder's object may hold the old Inner: it is not destroyed under it.
        try settle(r, atMost: 100) { false }
        #expect(log.count("destroyed inner") == 0)
        r.close()
        #expect(log.count("destroyed inner") == 1)
        #expect(log.count("destroyed holder") == 1)
    }
}
