import ControllerReg
import Synchronization
import Testing

@Suite("Creating objects", .serialized)
struct CreateTests {
    @Test func theEMControllerManagerExample() throws {
        let r = Registry()
        try registerWidgets(r, ["Test1ViewController", "Test2ViewController"])
        try r.load(text: exampleYAML)
        let w = try r.create("Test1", props: ["color": "red", "number": 1], as: Widget.self)
        #expect(w.className == "Test1ViewController")
        #expect(w.args["dependentString"] == .string("Yes, you can inject a string using the config file"))
        #expect(w.args["dependentInt"] == .int(1000))
        #expect(w.args["dependentBool"] == .bool(true))
        #expect(w.args["color"] == .string("red"))
        #expect(w.args["number"] == .int(1))
        #expect(w.children["test2ViewController"]?.className == "Test2ViewController")
        #expect(w.args.count == 6)
    }

    @Test func propsWinAndAnOverriddenReferenceIsNotBuilt() throws {
        let r = Registry()
        let log = CallLog()
        try registerWidgets(r, ["Test1ViewController", "Test2ViewController"], log: log)
        try r.load(text: exampleYAML)
        let w = try r.create("Test1", props: ["dependentInt": 5, "test2ViewController": "none"], as: Widget.self)
        #expect(w.args["dependentInt"] == .int(5))
        #expect(w.args["test2ViewController"] == .string("none"))
        #expect(log.count("Test2ViewController") == 0)
    }

    /// Big props (past the 32 keys from which an owned map keeps a key index) are read through that
    /// index from a closure's `args`, merged over an entry's dependencies or given whole to a class
    /// created by its name: every key found with its value, a dependency they override gone, one
    /// they do not still there, a key in neither absent.
    @Test func bigPropsAreReadThroughTheirIndex() throws {
        let r = Registry()
        let n = 2_000
        let reads = Mutex<(found: Int, wrong: Int, dependency: String?, overridden: ValueKind?, absent: Bool)>(
            (0, 0, nil, nil, true))
        try r.register(className: "Big") { args in
            reads.withLock { s in
                for i in stride(from: n - 1, through: 0, by: -1) {
                    if args["key\(i)"]?.int == Int64(i) { s.found += 1 } else { s.wrong += 1 }
                }
                s.dependency = args["dep"]?.string
                s.overridden = args["key7"]?.kind
                s.absent = args["key\(n)"] == nil && args[""] == nil
            }
            return Widget(className: "Big", args: args)
        }
        try r.load(text: "Entry: {ClassName: Big, Dependencies: {dep: '@from the config', key7: '@overridden'}}")
        var props: [String: Value] = [:]
        for i in 0..<n { props["key\(i)"] = .int(Int64(i)) }
        _ = try r.create("Entry", props: props, as: Widget.self)
        var seen = reads.withLock { $0 }
        #expect(seen.found == n && seen.wrong == 0 && seen.absent)
        #expect(seen.dependency == "from the config" && seen.overridden == .int)
        reads.withLock { $0 = (0, 0, nil, nil, true) }
        _ = try r.create("Big", props: props, as: Widget.self)
        seen = reads.withLock { $0 }
        #expect(seen.found == n && seen.wrong == 0 && seen.absent && seen.dependency == nil)
    }

    @Test func anEntryWithoutDependenciesGetsItsProps() throws {
        let r = Registry()
        try registerWidgets(r, ["W"])
        try r.load(text: "A: W")
        #expect(try r.create("A", props: ["color": "red"], as: Widget.self).args == ["color": "red"])
    }

    @Test func argsIsNeverNull() throws {
        let r = Registry()
        try registerWidgets(r, ["W"])
        try r.load(text: "A: W")
        let w = try r.create("A", as: Widget.self)
        #expect(w.args.isEmpty)
    }

    @Test func listsAndMapsOfReferencesBecomeObjects() throws {
        let r = Registry()
        let seen = Mutex<[ValueKind]>([])
        try registerWidgets(r, ["W"])
        try r.register(className: "Holder") { args in
            let items = args["items"]!
            seen.withLock { s in
                for i in 0..<items.count { s.append(items[i]!.kind) }
                s.append(args["nested"]!["inner"]![0]!.kind)
                s.append(args["nested"]!["text"]!.kind)
                s.append(args["plain"]![1]!.kind)
            }
            return Widget(className: "Holder", args: args)
        }
        try r.load(
            text: """
                H:
                  ClassName: Holder
                  Dependencies:
                    items: [A, B, "@lit", 4]
                    nested: {inner: [A], text: "@t"}
                    plain: [1, "@two"]
                A: W
                B: W
                """)
        _ = try r.create("H", as: Widget.self)
        #expect(seen.withLock { $0 } == [.object, .object, .string, .int, .object, .string, .string])
    }

    @Test func unknownNameSuggests() throws {
        let r = Registry()
        try r.load(text: "Test2: W")
        let e = expectError { _ = try r.create("Tset2") }
        #expect(e?.code == .notFound)
        #expect(e?.description.contains("'Tset2'") == true)
        #expect(e?.description.contains("did you mean 'Test2'") == true)
    }

    @Test func unregisteredClassNamesClassAndEntry() throws {
        let r = Registry()
        try registerWidgets(r, ["Test1ViewController"])
        try r.load(text: exampleYAML)
        let e = expectError { _ = try r.create("Test1") }
        #expect(e?.code == .classNotRegistered)
        #expect(e?.description.contains("class 'Test2ViewController' of entry 'Test2' (defined at <string>:") == true)
        #expect(e?.description.contains("Test1 -> Test2") == true)
        #expect(e?.description.hasSuffix("register it before creating 'Test2', or correct the entry's ClassName") == true)
    }

    /// A ClassName one typo away from a registered class is answered with that class, in the
    /// message and as the problem's suggestion (what C's cr_problem.suggestion gives).
    @Test func unregisteredClassSuggestsTheRegisteredOneClosest() throws {
        let r = Registry()
        try registerWidgets(r, ["SmtpMailer", "ConsoleLogger"])
        try r.load(text: "Mailer: SmtpMailr\n", file: "services.yaml")
        let e = expectError { _ = try r.create("Mailer") }
        #expect(e?.code == .classNotRegistered)
        #expect(
            e?.description
                == "cannot create 'Mailer': class 'SmtpMailr' of entry 'Mailer' (defined at services.yaml:1:1) is not registered "
                + "(did you mean 'SmtpMailer'?): register it before creating 'Mailer', or correct the entry's ClassName")
        #expect(e?.diagnostics.first?.suggestion == "SmtpMailer")
    }

    @Test func aFailureMidGraphDestroysEverythingBuiltForTheCall() throws {
        let r = Registry()
        let log = CallLog()
        try registerWidgets(r, ["W", "Bad"], log: log, failing: ["Bad"])
        try r.load(
            text: """
                A: {ClassName: W, Dependencies: {b: B, c: C, d: D}}
                B: {ClassName: W, Dependencies: {e: E}}
                C: Bad
                D: W
                E: W
                """)
        let e = expectError { _ = try r.create("A") }
        #expect(e?.code == .createFailed)
        #expect(e?.description.contains("Bad refuses") == true)
        #expect(log.all.filter { !$0.hasPrefix("~") } == ["W", "W", "Bad"])  // E, B, then C fails; D and A never run
        #expect(log.count("~W") == 2)  // B and E were destroyed
    }

    @Test func registeringAClassTwiceIsAnError() throws {
        let r = Registry()
        try registerWidgets(r, ["W"])
        #expect(expectError { try registerWidgets(r, ["W"]) }?.code == .classExists)
        try r.replaceClass("W", .swift { args in Widget(className: "W2", args: args) })
        try r.load(text: "A: W")
        #expect(try r.create("A", as: Widget.self).className == "W2")
    }

    @Test func classesMayBeRegisteredAfterLoading() throws {
        let r = Registry()
        try r.load(text: exampleYAML)
        #expect(expectError { _ = try r.create("Test1") }?.code == .classNotRegistered)
        try registerWidgets(r, ["Test1ViewController", "Test2ViewController"])
        #expect(try r.create("Test1", as: Widget.self).className == "Test1ViewController")
    }

    @Test func createDepthIsLimited() throws {
        var limits = RegistryLimits()
        limits.maxCreateDepth = 5
        let r = Registry(limits: limits)
        try registerWidgets(r, ["W"])
        let chain =
            (0..<10).map { "E\($0): {ClassName: W, Dependencies: {next: E\($0 + 1)}}" }.joined(separator: "\n") + "\nE10: W"
        try r.load(text: chain)
        #expect(expectError { _ = try r.create("E0") }?.code == .limit)
        #expect(try r.create("E6", as: Widget.self).className == "W")
    }

    @Test func aCreateCallbackMayCreateOnTheSameRegistry() throws {
        let r = Registry()
        try registerWidgets(r, ["W"])
        try r.register(className: "Outer") { [r] args in
            let inner = try r.create("A", as: Widget.self)
            return Widget(className: "Outer:\(inner.className)", args: args)
        }
        try r.load(text: "A: W\nO: Outer")
        #expect(try r.create("O", as: Widget.self).className == "Outer:W")
    }

    @Test func propsMustBeAMap() throws {
        // Via the raw entry point a non-map props value is rejected.
        let r = Registry()
        try registerWidgets(r, ["W"])
        try r.load(text: "A: W")
        let list = HeapValue.newList()!
        defer { HeapValue.free(list) }
        #expect(expectError { _ = try r.create(cName: "A", props: list) }?.code == .invalidArgument)
    }
}

@Suite("Limits")
struct LimitTests {
    @Test func limitsAreSettablePerRegistryAndReportedAsLimitErrors() throws {
        let r = Registry()
        var l = r.limits
        l.config.maxDepth = 3
        l.config.maxInputBytes = 200
        l.maxEntries = 2
        try r.setLimits(l)
        #expect(expectError { try r.load(text: "A: {ClassName: W, Dependencies: {a: [[[1]]]}}") }?.code == .limit)
        #expect(expectError { try r.load(text: "A: W\n" + String(repeating: "# pad\n", count: 50)) }?.code == .limit)
        #expect(expectError { try r.load(text: "A: W\nB: W\nC: W") }?.code == .limit)
        try r.load(text: "A: W\nB: W")
        l.maxCreateDepth = 0
        #expect(expectError { try r.setLimits(l) }?.code == .invalidArgument)
        #expect(Registry().limits.config.maxDepth == 128)
    }
}
