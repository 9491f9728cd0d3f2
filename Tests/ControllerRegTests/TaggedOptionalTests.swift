import ControllerReg
import Testing

/// Issue 16 items 1 and 2: `Tag` lists, `{Tagged: t}` and `{Optional: Name}` (the C side is
/// host-tests/c/test_forms.c).
@Suite("Tagged lists and optional references")
struct TaggedOptionalTests {
    /// What a create received: the entry's class, each key's list of objects (in order), each
    /// key's single object, and the keys whose value was null.
    final class Node: @unchecked Sendable {
        let className: String
        var lists: [String: [Node]] = [:]
        var objects: [String: Node] = [:]
        var nulls: Set<String> = []
        var ints: [String: Int64] = [:]
        let log: CallLog?

        init(_ className: String, _ args: ValueRef, log: CallLog?) {
            self.className = className
            self.log = log
            for key in args.keys {
                let v = args[key]!
                if let list = v.objects(as: Node.self) {
                    lists[key] = list
                } else if let o = v.object(as: Node.self) {
                    objects[key] = o
                } else if v.isNull {
                    nulls.insert(key)
                } else if let i = v.int {
                    ints[key] = i
                }
            }
        }

        deinit { log?.record("~" + className) }

        /// The classes of the list under `key`.
        func classes(_ key: String) -> [String]? { lists[key]?.map(\.className) }
    }

    func registry(_ classes: [String], log: CallLog? = nil, parent: Registry? = nil) throws -> Registry {
        let r = parent.map { Registry(parent: $0) } ?? Registry()
        for c in classes {
            try r.register(className: c) { args in
                log?.record(c)
                return Node(c, args, log: log)
            }
        }
        return r
    }

    static let screensYAML = """
        Home: {ClassName: HomeScreen, Tag: screen}
        About: {ClassName: AboutScreen, Tag: [screen, 5]}
        Zed: {ClassName: ZedScreen, Tag: [menu, screen]}
        apple: {ClassName: AppleScreen, Tag: screen}
        Other: {ClassName: OtherThing, Tag: other}
        Nav:
          ClassName: Navigator
          Dependencies:
            screens: {Tagged: screen}
            fives: {Tagged: "5"}
            none: {Tagged: nothing}
            help: {Optional: Help}
            home: {Optional: Home}
        """
    static let classes = ["HomeScreen", "AboutScreen", "ZedScreen", "AppleScreen", "OtherThing", "Navigator", "HelpScreen"]

    // MARK: Reading

    @Test func tagListsAndFormsReadTheSameInYAMLJSONAndPlist() throws {
        let json = """
            {"A": {"ClassName": "C", "Tag": ["x", 5]},
             "B": {"ClassName": "C", "Tag": 7, "Dependencies": {"all": {"Tagged": "x"}, "num": {"Tagged": 5}, "o": {"Optional": "Q"}}}}
            """
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
              <key>A</key><dict><key>ClassName</key><string>C</string>
                <key>Tag</key><array><string>x</string><integer>5</integer></array></dict>
              <key>B</key><dict><key>ClassName</key><string>C</string><key>Tag</key><integer>7</integer>
                <key>Dependencies</key><dict>
                  <key>all</key><dict><key>Tagged</key><string>x</string></dict>
                  <key>num</key><dict><key>Tagged</key><integer>5</integer></dict>
                  <key>o</key><dict><key>Optional</key><string>Q</string></dict>
                </dict></dict>
            </dict></plist>
            """
        let yaml = """
            A: {ClassName: C, Tag: [x, 5]}
            B: {ClassName: C, Tag: 7, Dependencies: {all: {Tagged: x}, num: {Tagged: 5}, o: {Optional: Q}}}
            """
        var seen: [[EntryDefinition]] = []
        for (text, format) in [(yaml, ConfigFormat.yaml), (json, .json), (plist, .plist)] {
            let r = Registry()
            try r.load(text: text, format: format)
            seen.append(r.entries)
        }
        #expect(seen[0] == seen[1])
        #expect(seen[0] == seen[2])
        let a = seen[0][0], b = seen[0][1]
        #expect(a.tags == [.string("x"), .int(5)])
        #expect(a.tag == .string("x"))
        #expect(b.tags == [.int(7)])
        #expect(
            b.dependencies.map(\.value) == [
                .tagged(.string("x"), at: nil), .tagged(.int(5), at: nil), .optional("Q", at: nil),
            ])
    }

    @Test func aTagThatIsNotAStringIntegerOrListOfThemIsASchemaErrorWithItsPlace() {
        let cases: [(String, String)] = [
            (
                "A: {ClassName: C, Tag: {x: 1}}",
                "Tag of entry 'A' must be a string, an integer or a list of them (Tag: [a, b]), found a map"
            ),
            (
                "A: {ClassName: C, Tag: true}",
                "Tag of entry 'A' must be a string, an integer or a list of them (Tag: [a, b]), found a boolean"
            ),
            (
                "A: {ClassName: C, Tag: [a, [b]]}",
                "a tag in the Tag list of entry 'A' must be a string or an integer, found a list; write Tag: [a, b]"
            ),
            (
                "A: {ClassName: C, Tag: [a, 1.5]}",
                "a tag in the Tag list of entry 'A' must be a string or an integer, found a number; write Tag: [a, b]"
            ),
        ]
        for (yaml, message) in cases {
            let error = expectError { try Registry().load(text: yaml, format: .yaml, file: "t.yaml") }
            #expect(error?.code == .schema)
            #expect(error?.diagnostics.first?.message == message)
            #expect(error?.diagnostics.first?.location?.file == "t.yaml")
            #expect(error?.diagnostics.first?.location?.line == 1)
            #expect((error?.diagnostics.first?.location?.column ?? 0) > 1)
        }
    }

    @Test func tagsSetInSwiftAreTheSameAsTagsWritten() throws {
        var d = EntryDefinition(name: "A", className: "C", tags: [.string("x"), .int(2)])
        #expect(d.tag == .string("x"))
        d.tag = .int(9)
        #expect(d.tags == [.int(9)])
        d.tag = nil
        #expect(d.tags.isEmpty)
        #expect(EntryDefinition(name: "A", className: "C", tag: .int(1)).tags == [.int(1)])
        #expect(EntryTag.int(5).text == EntryTag.string("5").text)
    }

    // MARK: Tagged lists

    @Test func aTaggedListHoldsEveryMemberOrderedByNameByteWise() throws {
        let log = CallLog()
        let r = try registry(Self.classes, log: log)
        try r.load(text: Self.screensYAML)
        let nav = try r.create("Nav", as: Node.self)
        // Byte-wise: upper case sorts before lower case.
        #expect(nav.classes("screens") == ["AboutScreen", "HomeScreen", "ZedScreen", "AppleScreen"])
        // A tag is its text: `Tag: 5` matches `{Tagged: "5"}`.
        #expect(nav.classes("fives") == ["AboutScreen"])
        #expect(nav.classes("none") == [])
        #expect(nav.nulls == ["help"])
        #expect(nav.objects["home"]?.className == "HomeScreen")
        #expect(log.count("HomeScreen") == 2)
    }

    @Test func aTagRepeatedOnOneEntryListsItOnce() throws {
        let r = try registry(["C", "L"])
        try r.load(text: "A: {ClassName: C, Tag: [5, '5', 5]}\nL: {ClassName: L, Dependencies: {all: {Tagged: 5}}}")
        #expect(try r.create("L", as: Node.self).classes("all") == ["C"])
    }

    @Test func membersFollowTheirOwnLifestyles() throws {
        let log = CallLog()
        let r = try registry(["S", "G", "T", "User"], log: log)
        try r.load(
            text: """
                One: {ClassName: S, Tag: p, Lifestyle: singleton}
                Two: {ClassName: G, Tag: p, Lifestyle: graph}
                Three: {ClassName: T, Tag: p}
                User: {ClassName: User, Dependencies: {all: {Tagged: p}, g: Two}}
                """)
        let a = try r.create("User", as: Node.self)
        let b = try r.create("User", as: Node.self)
        let la = try #require(a.lists["all"]), lb = try #require(b.lists["all"])
        // By name: One, Three, Two.
        #expect(la.map(\.className) == ["S", "T", "G"])
        #expect(la[0] === lb[0])  // the singleton
        #expect(la[2] === a.objects["g"])  // one graph object per create
        #expect(la[2] !== lb[2])
        #expect(la[1] !== lb[1])  // transients are new
        #expect(log.count("S") == 1)
        #expect(log.count("G") == 2)
    }

    @Test func aFailingMemberFailsTheCreateAndDestroysWhatWasBuilt() throws {
        let log = CallLog()
        let r = try registry(["A", "B", "User"], log: log)
        try r.register(className: "Bad") { _ in throw TestFailure(message: "no") }
        try r.load(
            text: """
                A1: {ClassName: A, Tag: p}
                B1: {ClassName: Bad, Tag: p}
                User: {ClassName: User, Dependencies: {all: {Tagged: p}}}
                """)
        let error = expectError { _ = try r.create("User") }
        #expect(error?.code == .createFailed)
        #expect(error?.diagnostics.first?.message.contains("User -> B1") == true)
        #expect(log.count("~A") == 1)
    }

    @Test func anEntryReceivingItsOwnTagIsACycleWithThePath() {
        let own = expectError {
            try Registry().load(text: "A: {ClassName: C, Tag: t, Dependencies: {all: {Tagged: t}}}", file: "c.yaml")
        }
        #expect(own?.code == .cycle)
        #expect(own?.diagnostics.first?.message == "dependency cycle: A -> A (via key 'all' of 'A', {Tagged: t})")
        #expect(own?.diagnostics.first?.location?.line == 1)
        let through = expectError {
            try Registry().load(
                text: """
                    A: {ClassName: C, Tag: t, Dependencies: {b: B}}
                    B: {ClassName: C, Dependencies: {all: {Tagged: t}}}
                    """)
        }
        #expect(through?.code == .cycle)
        #expect(through?.diagnostics.first?.message == "dependency cycle: A -> B -> A (via key 'b' of 'A')")
    }

    @Test func aMemberAddedLaterThatClosesACycleIsRefusedAndNothingChanges() throws {
        let r = try registry(["C"])
        try r.load(text: "U: {ClassName: C, Dependencies: {all: {Tagged: t}}}")
        let error = expectError { try r.load(text: "X: {ClassName: C, Tag: t, Dependencies: {u: U}}") }
        #expect(error?.code == .cycle)
        #expect(error?.diagnostics.first?.message.contains("U -> X -> U") == true)
        #expect(r.entry(named: "X") == nil)
        #expect(try r.create("U", as: Node.self).classes("all") == [])
    }

    @Test func listsFollowLaterLoadsAddsRemovalsAndOverrides() throws {
        let r = try registry(["C", "D", "User"])
        try r.load(text: "User: {ClassName: User, Dependencies: {all: {Tagged: t}, nested: [{Tagged: t}]}}")
        func names() throws -> [String] { try #require(r.create("User", as: Node.self).classes("all")) }
        #expect(try names() == [])
        try r.load(text: "B: {ClassName: C, Tag: t}")
        #expect(try names() == ["C"])
        try r.add([EntryDefinition(name: "A", className: "D", tags: [.string("x"), .string("t")])])
        #expect(try names() == ["D", "C"])
        try r.remove(entriesNamed: ["B"])
        #expect(try names() == ["D"])
        // An override that drops the tag leaves the list.
        try r.load(text: "A: {ClassName: D, Tag: x}", mode: .override)
        #expect(try names() == [])
        try r.load(text: "A: {ClassName: C, Tag: [t]}", mode: .override)
        #expect(try names() == ["C"])
    }

    @Test func anEntryCompiledAgainForItsMembersKeepsItsEnvironmentValues() throws {
        let r = try registry(["C", "User"])
        try r.load(
            text: "U: {ClassName: User, Dependencies: {all: {Tagged: t}, port: {Env: TAGGED_TEST_PORT, Type: int}}}",
            environment: ["TAGGED_TEST_PORT": "7"])
        try r.load(text: "A: {ClassName: C, Tag: t}", environment: [:])
        let u = try r.create("U", as: Node.self)
        #expect(u.classes("all") == ["C"])
        #expect(u.ints["port"] == 7)
    }

    @Test func aSingletonWithATaggedListKeepsItsObjectWhenMembersChange() throws {
        let r = try registry(["C", "User"])
        try r.load(
            text: "User: {ClassName: User, Lifestyle: singleton, Dependencies: {all: {Tagged: t}}}\nA: {ClassName: C, Tag: t}")
        let first = try r.create("User", as: Node.self)
        try r.load(text: "B: {ClassName: C, Tag: t}")
        #expect(try r.create("User", as: Node.self) === first)
        #expect(first.classes("all") == ["C"])
    }

    @Test func aChildSeesTheUnionOfTaggedEntriesWithItsOverrides() throws {
        let parent = try registry(["P", "Q", "User"])
        try parent.load(
            text: """
                A: {ClassName: P, Tag: t}
                B: {ClassName: P, Tag: t}
                User: {ClassName: User, Dependencies: {all: {Tagged: t}}}
                """)
        let child = try registry([], parent: parent)
        try child.load(
            text: """
                C: {ClassName: Q, Tag: t}
                B: {ClassName: Q, Tag: other}
                """, mode: .override)
        #expect(try child.create("User", as: Node.self).lists["all"]?.count == 2)
        #expect(try child.create("User", as: Node.self).classes("all") == ["P", "Q"])
        #expect(try parent.create("User", as: Node.self).classes("all") == ["P", "P"])
        // A parent's new member reaches the child too.
        try parent.load(text: "AA: {ClassName: P, Tag: t}")
        #expect(try child.create("User", as: Node.self).classes("all") == ["P", "P", "Q"])
    }

    @Test func aSingletonReachingAGraphEntryThroughATaggedListOrAnOptionalBreaksTheLifetimeRule() {
        for via in ["{Tagged: ctx}", "{Optional: Ctx}", "[{Tagged: ctx}]"] {
            let error = expectError {
                try Registry().load(
                    text: """
                        Ctx: {ClassName: C, Tag: ctx, Lifestyle: graph}
                        S: {ClassName: C, Lifestyle: singleton, Dependencies: {all: \(via)}}
                        """)
            }
            #expect(error?.code == .lifetime, "\(via)")
            #expect(
                error?.diagnostics.first?.message.hasPrefix(
                    "singleton 'S' would keep graph object 'Ctx': S -> Ctx (key 'all' of 'S')") == true, "\(via)")
        }
    }

    @Test func aReloadRebuildsASingletonWhoseTaggedListGainedAMember() throws {
        let dir = FileManagerless.temporaryDirectory()
        let path = dir + "/r.yaml"
        FileManagerless.write(
            path, "A: {ClassName: C, Tag: t}\nU: {ClassName: User, Lifestyle: singleton, Dependencies: {all: {Tagged: t}}}\n")
        let r = try registry(["C", "User"])
        try r.load(path: path)
        let first = try r.create("U", as: Node.self)
        #expect(first.classes("all") == ["C"])
        FileManagerless.write(
            path,
            "A: {ClassName: C, Tag: t}\nB: {ClassName: C, Tag: t}\nU: {ClassName: User, Lifestyle: singleton, Dependencies: {all: {Tagged: t}}}\n"
        )
        let changes = try r.reload()
        #expect(changes.added == ["B"])
        #expect(changes.changed == ["U"])
        #expect(try r.create("U", as: Node.self).classes("all") == ["C", "C"])
    }

    // MARK: Optional references

    @Test func anOptionalReferenceIsNullUntilItsEntryExistsAndNullAgainWhenRemoved() throws {
        let log = CallLog()
        let r = try registry(["C", "H"], log: log)
        try r.load(text: "U: {ClassName: C, Dependencies: {help: {Optional: Help}}}")
        var u = try r.create("U", as: Node.self)
        #expect(u.nulls == ["help"])
        try r.load(text: "Help: {ClassName: H, Lifestyle: singleton}")
        u = try r.create("U", as: Node.self)
        #expect(u.objects["help"]?.className == "H")
        #expect(try r.create("U", as: Node.self).objects["help"] === u.objects["help"])
        // Removing it is allowed: the reference becomes null again.
        try r.remove(entriesNamed: ["Help"])
        #expect(try r.create("U", as: Node.self).nulls == ["help"])
        try r.add([EntryDefinition(name: "Help", className: "H")])
        #expect(try r.create("U", as: Node.self).objects["help"]?.className == "H")
    }

    @Test func anOptionalReferenceInAChildCountsTheParentsEntry() throws {
        let parent = try registry(["C", "H"])
        try parent.load(text: "Help: {ClassName: H}")
        let child = try registry([], parent: parent)
        try child.load(text: "U: {ClassName: C, Dependencies: {help: {Optional: Help}, x: {Optional: X}}}")
        let u = try child.create("U", as: Node.self)
        #expect(u.objects["help"]?.className == "H")
        #expect(u.nulls == ["x"])
        try parent.load(text: "X: {ClassName: H}")
        #expect(try child.create("U", as: Node.self).objects["x"]?.className == "H")
        try parent.remove(entriesNamed: ["X"])
        #expect(try child.create("U", as: Node.self).nulls == ["x"])
    }

    @Test func anOptionalReferenceCountsForCycles() {
        let error = expectError {
            try Registry().load(
                text: """
                    A: {ClassName: C, Dependencies: {b: {Optional: B}}}
                    B: {ClassName: C, Dependencies: {a: A}}
                    """)
        }
        #expect(error?.code == .cycle)
        #expect(error?.diagnostics.first?.message == "dependency cycle: A -> B -> A (via key 'b' of 'A', {Optional: B})")
    }

    @Test func aHardReferenceToARemovedEntryStillBlocksTheRemoval() throws {
        let r = try registry(["C"])
        try r.load(
            text: """
                X: {ClassName: C, Tag: t}
                U: {ClassName: C, Dependencies: {all: {Tagged: t}, x: X}}
                """)
        let error = expectError { try r.remove(entriesNamed: ["X"]) }
        #expect(error?.code == .missingReference)
        #expect(error?.diagnostics.first?.message == "cannot remove 'X': entry 'U' refers to it")
        #expect(r.entry(named: "X") != nil)
    }

    // MARK: Forms as written

    @Test func theFormsAreKeptAsWrittenAndWrittenBack() throws {
        let values: [DependencyValue] = [
            .tagged(.string("screen"), at: nil), .tagged(.int(5), at: nil), .optional("Help", at: nil),
            .list([.tagged(.string("a"), at: nil), .optional("B", at: nil)]),
        ]
        for v in values { #expect(try DependencyValue(reading: DependencyRule.written(v)) == v) }
        #expect(DependencyRule.written(.tagged(.int(5), at: nil)) == ["Tagged": 5])
        var edges: [DependencyEdge] = []
        DependencyValue.list(values).forEachEdge { edges.append($0) }
        #expect(edges.map(\.kind) == [.tagged, .tagged, .optional, .tagged, .optional])
        #expect(edges.map(\.name) == ["screen", "5", "Help", "a", "B"])
        #expect(edges.allSatisfy { $0.kind.isObjectEdge })
        #expect(!DependencyEdge.Kind.provider.isObjectEdge)
    }
}

/// Files for the reload test, without Foundation.
enum FileManagerless {
    static func temporaryDirectory() -> String {
        var template = Array("/tmp/controllerreg-forms-XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    static func write(_ path: String, _ text: String) {
        let f = fopen(path, "w")!
        fputs(text, f)
        fclose(f)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
