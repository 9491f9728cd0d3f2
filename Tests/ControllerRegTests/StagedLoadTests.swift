import ControllerReg
import Testing

/// A load writes each entry straight from the document into its record (no `EntryDefinition` on
/// the way); code doors encode theirs. Both must give the same entries, problems and places.
@Suite("Loads written straight into records")
struct StagedLoadTests {
    /// YAML of `count` entries `E0`, `E1`, … (three lines each), each but `E0` referring to it and
    /// holding a literal; entry `bad` instead holds `badValue` under key `d`.
    static func bigConfig(count: Int, bad: Int, badValue: String) -> String {
        var text = ""
        for i in 0..<count {
            let first = i == 0 ? "'@root'" : "E0"
            text +=
                "E\(i):\n  ClassName: C\n  Dependencies: {first: \(first), title: '@entry \(i)', d: \(i == bad ? badValue : "'@ok'")}\n"
        }
        return text
    }

    @Test func aProblemDeepInALargeFileIsReportedAtItsPlace() {
        let text = Self.bigConfig(count: 3000, bad: 2500, badValue: "''")
        let error = expectError { try Registry().load(text: text, format: .yaml, file: "big.yaml") }
        #expect(error?.diagnostics.count == 1)
        let problem = error?.diagnostics.first
        #expect(problem?.code == .schema)
        #expect(
            problem?.message
                == "entry 'E2500', key 'd': an empty string is not an entry name; write \"@\" for an empty literal string")
        // Line 3 of the entry (three lines each), at the value.
        #expect(problem?.location?.file == "big.yaml")
        #expect(problem?.location?.line == 2500 * 3 + 3)
    }

    @Test func aMissingReferenceDeepInALargeFileNamesItsKeyAndPlace() {
        let text = Self.bigConfig(count: 3000, bad: 2999, badValue: "Nowhere")
        let error = expectError { try Registry().load(text: text, format: .yaml, file: "big.yaml") }
        let problem = error?.diagnostics.first
        #expect(problem?.code == .missingReference)
        #expect(problem?.message.hasPrefix("entry 'E2999', key 'd': no entry named 'Nowhere'") == true)
        #expect(problem?.location?.line == 2999 * 3 + 3)
        #expect(problem?.location?.column != nil)
    }

    @Test func dependencyProblemsKeepTheirPlaceAmongTheEntrysProblems() {
        let yaml = """
            E:
              Bogus: 1
              Dependencies:
                d: {provider: X}
              Lifestyle: forever
              ClassName: C
            """
        let error = expectError { try Registry().load(text: yaml, format: .yaml) }
        let messages = error?.diagnostics.map(\.message) ?? []
        #expect(messages.count == 3)
        #expect(messages.first?.hasPrefix("unknown key 'Bogus'") == true)
        #expect(messages.count == 3 && messages[1].hasPrefix("entry 'E', key 'd': 'provider' is not a dependency form"))
        #expect(messages.last?.hasPrefix("Lifestyle of entry 'E' must be transient, singleton or graph") == true)
    }

    @Test func everyDoorKeepsTheSameDefinition() throws {
        let yaml = """
            A: {ClassName: Leaf, Tag: [screen, 5], Lifestyle: singleton, Eager: true, Description: 'the first'}
            B:
              ClassName: Node
              Dependencies:
                one: A
                later: {Provider: A}
                all: {Tagged: screen}
                five: {Tagged: 5}
                maybe: {Optional: Missing}
                text: '@hello'
                empty: '@'
                n: 3
                x: 2.5
                flag: false
                nothing: null
                list: [A, '@a', 1, [A]]
                map: {k: A, v: '@v', deep: {m: [1, 2]}}
                port: {Env: CR_TEST_UNSET_PORT, Type: int, Default: 8080}
                url: '@http://${CR_TEST_UNSET_HOST:-localhost}/'
            """
        let loaded = Registry()
        try loaded.load(text: yaml, format: .yaml)
        let added = Registry()
        try added.add(
            loaded.entries.map {
                var d = $0
                d.location = nil
                return d
            })
        #expect(loaded.entries == added.entries)
        #expect(loaded.entry(named: "B")?.dependencies.count == 15)
        #expect(loaded.entry(named: "A")?.tags == [.string("screen"), .int(5)])
        #expect(loaded.entry(named: "A")?.description == "the first")
        #expect(loaded.entry(named: "A")?.eager == true)
        #expect(loaded.entry(named: "B")?.location?.line == 2)
        #expect(added.entry(named: "B")?.location == nil)
    }

    @Test func aLiteralMarkJoinedToTheNextCharacterIsDroppedWithIt() throws {
        // "@" and a combining accent are one Character: the literal is what `dropFirst` leaves.
        let r = Registry()
        try r.load(text: "{\"E\": {\"ClassName\": \"C\", \"Dependencies\": {\"d\": \"@\u{301}x\"}}}", format: .json)
        #expect(r.entry(named: "E")?.dependencies.first?.value == DependencyRule.value(ofString: "@\u{301}x"))
    }

    @Test func namesAreComparedByTheirBytesAcrossFilesOfOneLoad() {
        // Two spellings of "é" (precomposed and combining) are different names, byte-wise.
        let r = Registry()
        #expect(throws: Never.self) {
            try r.load(text: "{\"caf\u{E9}\": \"C\", \"cafe\u{301}\": \"C\"}", format: .json)
        }
        #expect(r.entries.count == 2)
        let twice = expectError { try Registry().load(text: "A: C\nB: C\nA: D\n", format: .yaml, file: "t.yaml") }
        #expect(twice?.diagnostics.contains { $0.code == .duplicate } == true)
    }

    @Test func aNameDefinedInSeveralFilesNamesItsFirstPlaceEachTime() {
        let dir = FileManagerless.temporaryDirectory()
        // The first "A" is refused (an empty class name), so the second is taken; the third is a
        // duplicate, and "A" was first written in the first file.
        FileManagerless.write(dir + "/one.yaml", "A: {ClassName: ''}\nB: C\n")
        FileManagerless.write(dir + "/two.yaml", "A: C\nB: C\n")
        FileManagerless.write(dir + "/three.yaml", "A: C\n")
        let error = expectError { try Registry().load(paths: [dir + "/one.yaml", dir + "/two.yaml", dir + "/three.yaml"]) }
        let twice = error?.diagnostics.filter { $0.code == .duplicate }.map(\.message).sorted() ?? []
        #expect(
            twice == [
                "entry 'A' is defined twice (first at \(dir)/one.yaml:1:1); rename or remove one of them",
                "entry 'B' is defined twice (first at \(dir)/one.yaml:2:1); rename or remove one of them",
            ])
    }

    @Test func aNameRepeatedInsideALaterFileIsARepeatedKeyOfThatFile() {
        // "A" is first staged from the first file; the second file writes it twice: its second
        // "A" is that file's repeated key (skipped, its own problem not reported), its first is
        // the name defined twice.
        let dir = FileManagerless.temporaryDirectory()
        FileManagerless.write(dir + "/one.yaml", "A: C\n")
        FileManagerless.write(dir + "/two.yaml", "B: C\nA: C\nA: 5\n")
        let error = expectError { try Registry().load(paths: [dir + "/one.yaml", dir + "/two.yaml"]) }
        // (Reported in the order of their places.)
        let messages = error?.diagnostics.map(\.message) ?? []
        #expect(
            messages == [
                "entry 'A' is defined twice (first at \(dir)/one.yaml:1:1); rename or remove one of them",
                "duplicate key 'A' (first defined at line 2, column 1); remove one of them",
            ])
        let place = error?.diagnostics.last?.location
        #expect(place?.file.hasSuffix("two.yaml") == true && place?.line == 3 && place?.column == 1)
    }

    @Test func anInvalidEntryRepeatedIsARepeatedKeyAndReportedOnce() {
        // Invalid entries are not staged: their repeats are still found, in either order.
        let error = expectError { try Registry().load(text: "A: 5\nB: C\nA: [1]\nB: 7\n", format: .yaml, file: "t.yaml") }
        let messages = error?.diagnostics.map(\.message) ?? []
        #expect(
            messages == [
                "entry 'A' must be a class name (a string) or a map with ClassName, found an integer",
                "duplicate key 'A' (first defined at line 1, column 1); remove one of them",
                "duplicate key 'B' (first defined at line 2, column 1); remove one of them",
            ])
    }

    @Test func missingReferencesAtAnyDepthNameTheirKeyAndPlace() {
        let yaml = """
            A:
              ClassName: C
              Dependencies:
                port: {Env: CR_TEST_UNSET_PORT, Type: int, Default: 1}
                first: '@text'
                list: [B, {inner: Nowhere}, {Provider: Gone}]
                opt: {Optional: AlsoGone}
                last: Missing
            B: C
            """
        let error = expectError { try Registry().load(text: yaml, format: .yaml, file: "n.yaml") }
        let missing = error?.diagnostics.filter { $0.code == .missingReference } ?? []
        #expect(missing.count == 3)
        #expect(missing.count == 3 && missing[0].message.hasPrefix("entry 'A', key 'list': no entry named 'Nowhere'"))
        #expect(missing.count == 3 && missing[0].location?.line == 6)
        #expect(missing.count == 3 && missing[0].location?.column == 23)
        #expect(missing.count == 3 && missing[1].message.hasPrefix("entry 'A', key 'list': no entry named 'Gone'"))
        #expect(missing.count == 3 && missing[1].location?.line == 6)
        #expect(missing.count == 3 && missing[2].message.hasPrefix("entry 'A', key 'last': no entry named 'Missing'"))
        #expect(missing.count == 3 && missing[2].location?.line == 8)
    }

    @Test func literalsEqualToKeysAndNamesKeepTheirOwnMeaning() throws {
        // A literal's text equal to a key and to an entry name, a key equal to an earlier literal,
        // a literal repeated in the next entry: each value keeps what it was written as.
        let yaml = """
            title: W
            A: {ClassName: W, Dependencies: {title: '@title', other: title, again: '@title'}}
            B: {ClassName: W, Dependencies: {'@x': '@title', title: '@A', name: A}}
            """
        let r = Registry()
        try registerWidgets(r, ["W"])
        try r.load(text: yaml, format: .yaml)
        let a = try r.create("A", as: Widget.self)
        #expect(a.args["title"] == .string("title"))
        #expect(a.args["again"] == .string("title"))
        #expect(a.children["other"]?.className == "W")
        let b = try r.create("B", as: Widget.self)
        #expect(b.args["@x"] == .string("title"))
        #expect(b.args["title"] == .string("A"))
        #expect(b.children["name"]?.className == "W")
        #expect(r.entry(named: "B")?.dependencies.map(\.key) == ["@x", "title", "name"])
        #expect(r.entry(named: "B")?.dependencies.first?.value == .string("title"))
    }

    @Test func keysAtTheSamePositionAreToldApartByEveryByte() throws {
        // Entries written alike but for one byte of a key (short, long, in the middle) or of a
        // referenced name: each keeps its own.
        let keys = ["abc", "abd", "abcdefgh1jkl", "abcdefgh2jkl", "a-key-longer-than-sixteen-1", "a-key-longer-than-sixteen-2"]
        var text = "Leaf1: W\nLeaf2: W\n"
        for (i, key) in keys.enumerated() {
            text += "E\(i): {ClassName: W, Dependencies: {\(key): Leaf\(i % 2 + 1), n: \(i)}}\n"
        }
        let r = Registry()
        try registerWidgets(r, ["W"])
        try r.load(text: text, format: .yaml)
        for (i, key) in keys.enumerated() {
            #expect(r.entry(named: "E\(i)")?.dependencies.map(\.key) == [key, "n"])
            let w = try r.create("E\(i)", as: Widget.self)
            #expect(Set(w.args.keys) == [key, "n"])
            #expect(r.entry(named: "E\(i)")?.dependencies.first?.value == .reference("Leaf\(i % 2 + 1)", at: nil))
        }
    }

    @Test func aCycleClosedByOneReferenceToALaterEntryIsFound() {
        // Every entry refers to the one before it, and the first to the last: one edge upward.
        var text = "E0: {ClassName: C, Dependencies: {prev: E199}}\n"
        for i in 1..<200 { text += "E\(i): {ClassName: C, Dependencies: {prev: E\(i - 1)}}\n" }
        let error = expectError { try Registry().load(text: text, format: .yaml) }
        #expect(error?.diagnostics.map(\.code) == [.cycle])
        #expect(error?.diagnostics.first?.message.hasPrefix("dependency cycle: E0 -> E199 -> ") == true)
        // An entry referring to itself among entries that only refer backwards.
        var selfText = "L: C\n"
        for i in 0..<50 { selfText += "S\(i): {ClassName: C, Dependencies: {l: L\(i == 30 ? ", me: S30" : "")}}\n" }
        let selfError = expectError { try Registry().load(text: selfText, format: .yaml) }
        #expect(selfError?.diagnostics.map(\.code) == [.cycle])
        #expect(selfError?.diagnostics.first?.message.hasPrefix("dependency cycle: S30 -> S30") == true)
    }
}
