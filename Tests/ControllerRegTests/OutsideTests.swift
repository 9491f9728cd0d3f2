import ControllerReg
import Testing

/// What a host outside the checkout meets (the C side is host-tests/c/test_outside.c): an empty
/// tag, which no `{Tagged: t}` could ever name, refused at its entry in every door; a parent
/// closed before its children closes them with it.
@Suite("Outside hosts")
struct OutsideTests {
    final class Node {}

    @Test func anEmptyTagIsRefusedAtItsEntryInEveryFormatAndFromCode() throws {
        let configs: [(String, ConfigFormat, String)] = [
            ("A: {ClassName: C, Tag: ''}\n", .yaml, "c.yaml:1:1"),
            ("B: C\nA: {ClassName: C, Tag: [x, '', 5]}\n", .yaml, "c.yaml:2:1"),
            (#"{"A": {"ClassName": "C", "Tag": [""]}}"#, .json, "c.yaml:1:2"),
        ]
        for (text, format, place) in configs {
            let registry = Registry()
            let e = expectError { try registry.load(text: text, format: format, file: "c.yaml") }
            #expect(e?.code == .schema)
            #expect(e?.diagnostics.count == 1)
            #expect(e?.diagnostics.first?.location.map(String.init(describing:)) == place)
            #expect(
                e?.diagnostics.first?.message
                    == "entry 'A' has an empty tag: no {Tagged: t} can name it (Tagged needs a non-empty tag); remove it or give it a name"
            )
            #expect(registry.entries.isEmpty)
        }
        let registry = Registry()
        let fromCode = expectError {
            try registry.add([EntryDefinition(name: "A", className: "C", tags: [.string("screen"), .string("")])])
        }
        #expect(fromCode?.code == .schema)
        #expect(fromCode?.diagnostics.first?.message.hasPrefix("entry 'A' has an empty tag") == true)
        let nul = expectError { try registry.add([EntryDefinition(name: "A", className: "C", tag: .string("a\u{0}b"))]) }
        #expect(nul?.diagnostics.first?.message.contains("NUL byte") == true)
        #expect(registry.entries.isEmpty)
        // Integer tags, "0" and other non-empty tags still load and match.
        try registry.add([EntryDefinition(name: "A", className: "C", tags: [.int(0), .string("x")])])
        try registry.load(text: "B: {ClassName: C, Dependencies: {l: {Tagged: '0'}}}")
        #expect(registry.entries.count == 2)
    }

    /// `create(_:)` without `as:` is the raw-pointer create: for a class registered with a Swift
    /// closure the pointer is a retained reference the caller balances (as its documentation says;
    /// a singleton's is the registry's), while `create(_:as:)` does that itself.
    @Test func anUntypedCreateOfASwiftObjectIsARetainedReferenceToBalance() throws {
        let log = CallLog()
        let registry = Registry()
        try registerWidgets(registry, ["W"], log: log)
        try registry.load(text: "T: W\nS: {ClassName: W, Lifestyle: singleton}\n")
        do {
            let p = try registry.create("T")
            let w = Unmanaged<Widget>.fromOpaque(p).takeRetainedValue()
            #expect(w.className == "W")
        }
        #expect(log.count("~W") == 1)
        let t = try registry.createReference("T")
        #expect(!t.isRegistryOwned)
        Unmanaged<Widget>.fromOpaque(t.pointer!).release()
        #expect(log.count("~W") == 2)
        // A singleton's pointer stays the registry's: read it unretained.
        let s = try registry.createReference("S")
        #expect(s.isRegistryOwned)
        #expect(Unmanaged<Widget>.fromOpaque(s.pointer!).takeUnretainedValue() === (try registry.create("S", as: Widget.self)))
        #expect(log.count("~W") == 2)
        // The typed create needs none of this.
        do { _ = try registry.create("T", as: Widget.self) }
        #expect(log.count("~W") == 3)
        registry.close()
        #expect(log.count("~W") == 4)
    }

    /// An entry naming the same entry twice closes one cycle: one problem, not one per reference
    /// (the C side is `a_cycle_is_reported_once`).
    @Test func aCycleIsReportedOnceHoweverManyReferencesCloseIt() throws {
        let cases: [(String, [String])] = [
            ("H: {ClassName: C, Dependencies: {a: H, b: [H, H]}}\n", ["dependency cycle: H -> H (via key 'a' of 'H')"]),
            (
                "A: {ClassName: C, Dependencies: {x: B, y: B}}\nB: {ClassName: C, Dependencies: {z: A, w: A}}\n",
                ["dependency cycle: A -> B -> A (via key 'x' of 'A')"]
            ),
            (
                "A: {ClassName: C, Dependencies: {x: A, y: A}}\nB: {ClassName: C, Tag: t, Dependencies: {l: {Tagged: t}, z: B}}\n",
                ["dependency cycle: A -> A (via key 'x' of 'A')", "dependency cycle: B -> B (via key 'l' of 'B', {Tagged: t})"]
            ),
        ]
        for (text, messages) in cases {
            let registry = Registry()
            let e = expectError { try registry.load(text: text) }
            #expect(e?.code == .cycle)
            #expect(e?.diagnostics.map(\.message) == messages)
            // Registry.add checks the same way.
            let added = expectError {
                try registry.add([
                    EntryDefinition(
                        name: "X", className: "C",
                        dependencies: [
                            Dependency(key: "a", value: .reference("X", at: nil)),
                            Dependency(key: "b", value: .reference("X", at: nil)),
                        ])
                ])
            }
            #expect(added?.diagnostics.count == 1)
        }
    }

    /// A child made from a closed parent (the Swift initialiser cannot fail, as
    /// `cr_registry_new_child` does) is born closed: it says why instead of "no entry named".
    @Test func aChildOfAClosedParentIsBornClosed() throws {
        let parent = Registry()
        try registerWidgets(parent, ["N"])
        try parent.load(text: "T: N\n")
        parent.close()
        let child = Registry(parent: parent)
        #expect(child.isClosed)
        let e = expectError { _ = try child.create("T") }
        #expect(e?.code == .invalidArgument)
        #expect(e?.diagnostics.first?.message.contains("its parent registry was freed first") == true)
        #expect(expectError { try child.load(text: "U: N\n") }?.code == .invalidArgument)
        #expect(child.entries.isEmpty)
        child.close()
    }

    @Test func anEmptyNameGetsNoSuggestion() throws {
        let registry = Registry()
        try registry.load(text: "B: C\nA: C\n")
        let e = expectError { _ = try registry.create("") }
        #expect(e?.code == .notFound)
        #expect(e?.diagnostics.first?.suggestion == nil)
        #expect(e?.diagnostics.first?.message == "no entry named '', and no registered class ''")
        // A typo of a short name still gets one.
        #expect(expectError { _ = try registry.create("b") }?.diagnostics.first?.suggestion == "B")
    }

    @Test func closingAParentClosesItsChildrenFirstAndTheySayWhy() throws {
        let log = CallLog()
        let parent = Registry()
        try registerWidgets(parent, ["N"], log: log)
        try parent.load(text: "S: {ClassName: N, Lifestyle: singleton}\nT: N\n")
        let child = Registry(parent: parent)
        let grandchild = Registry(parent: child)
        try child.load(text: "CS: {ClassName: N, Lifestyle: singleton, Dependencies: {s: S}}\n")
        _ = try grandchild.create("CS")
        parent.close()
        #expect(child.isClosed && grandchild.isClosed)
        #expect(log.count("~N") == 2)
        for registry in [child, grandchild] {
            let e = expectError { _ = try registry.create("T") }
            #expect(e?.code == .invalidArgument)
            #expect(e?.diagnostics.first?.message.contains("its parent registry was freed first") == true)
            let load = expectError { try registry.load(text: "U: N") }
            #expect(load?.code == .invalidArgument)
            #expect(load?.diagnostics.first?.message.contains("free children before their parent") == true)
        }
        #expect(expectError { try child.setLimits(RegistryLimits()) }?.code == .invalidArgument)
        #expect(
            expectError { try child.start() }?.diagnostics.first?.message.contains("its parent registry was freed first") == true)
        #expect(expectError { try child.inject("T", into: Node()) }?.code == .invalidArgument)
        // A registry closed on its own still says only that.
        let alone = Registry()
        alone.close()
        #expect(
            expectError { _ = try alone.create("T") }?.diagnostics.first?.message
                == "cannot create 'T': the registry has been freed")
    }
}
