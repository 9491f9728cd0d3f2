import ControllerReg
import Synchronization
import Testing

@Suite("Lifestyles, providers, injection, conventions", .serialized)
struct LifestyleTests {
    @Test func singletonIsBuiltOnceOwnedByTheRegistryAndDestroyedAtClose() throws {
        final class Service: @unchecked Sendable {
            let log: CallLog
            init(_ log: CallLog) { self.log = log }
            deinit { log.record("destroyed") }
        }
        let log = CallLog()
        var r: Registry? = Registry()
        try registerWidgets(r!, ["W"], log: log)
        try r!.register(className: "S") { _ in
            log.record("S")
            return Service(log)
        }
        try r!.load(
            text: """
                Service: {ClassName: S, Lifestyle: singleton}
                A: {ClassName: W, Dependencies: {s: Service}}
                """)
        do {
            let a1 = try r!.create("A", as: Widget.self)
            let a2 = try r!.create("A", as: Widget.self)
            #expect(a1.args["s"] == a2.args["s"])
            if case .object(let ref)? = a1.args["s"] { #expect(ref.isRegistryOwned) } else { Issue.record("no object under s") }
            let direct = try r!.createReference("Service")
            #expect(direct.isRegistryOwned)
            #expect(Value.object(direct) == a1.args["s"])
        }
        #expect(log.count("S") == 1)
        #expect(log.count("destroyed") == 0)
        r = nil
        #expect(log.count("destroyed") == 1)
    }

    @Test func singletonsAreDestroyedInReverseCreationOrder() throws {
        let order = CallLog()
        final class Tracked: @unchecked Sendable {
            let name: String
            let order: CallLog
            init(_ name: String, _ order: CallLog) {
                self.name = name
                self.order = order
            }
            deinit { order.record(name) }
        }
        do {
            let r = Registry()
            for cls in ["First", "Second", "Third"] {
                try r.register(className: cls) { _ in Tracked(cls, order) }
            }
            try r.load(
                text: """
                    One: {ClassName: First, Lifestyle: singleton}
                    Two: {ClassName: Second, Lifestyle: singleton, Dependencies: {one: One}}
                    Three: {ClassName: Third, Lifestyle: singleton}
                    """)
            _ = try r.create("Two")
            _ = try r.create("Three")
            r.close()
        }
        #expect(order.all == ["Third", "Second", "First"])
    }

    @Test func singletonsTakeNoProps() throws {
        let r = Registry()
        try registerWidgets(r, ["S"])
        try r.load(text: "Service: {ClassName: S, Lifestyle: singleton}")
        let e = expectError { _ = try r.create("Service", props: ["x": 1]) }
        #expect(e?.code == .invalidArgument)
        #expect(
            e?.description
                == "cannot create 'Service': 'Service' is a singleton, built once from its config: it takes no props"
                + " (create it without props, or give the entry another Lifestyle to build one per create)")
    }

    @Test func eightThreadsRacingTheFirstCreateBuildASingletonOnce() throws {
        for _ in 0..<20 {
            let r = Registry()
            let calls = Atomic<Int>(0)
            try r.register(className: "Slow") { args in
                calls.add(1, ordering: .relaxed)
                for _ in 0..<10_000 { _ = calls.load(ordering: .relaxed) }
                return Widget(className: "Slow", args: args)
            }
            try r.load(text: "S: {ClassName: Slow, Lifestyle: singleton}")
            let seen = Mutex<Set<UInt>>([])
            let threads = (0..<8).map { _ in
                Thread {
                    if let p = try? r.create("S") {
                        let bits = UInt(bitPattern: p)
                        seen.withLock { _ = $0.insert(bits) }
                    }
                }
            }
            for t in threads { t.join() }
            #expect(calls.load(ordering: .relaxed) == 1)
            #expect(seen.withLock { $0.count } == 1)
        }
    }

    @Test func aSingletonThatReentersItselfFailsInsteadOfDeadlocking() throws {
        let r = Registry()
        try r.register(className: "Loop") { [r] args in
            _ = try r.create("S")
            return Widget(className: "Loop", args: args)
        }
        try r.load(text: "S: {ClassName: Loop, Lifestyle: singleton}")
        let e = expectError { _ = try r.create("S") }
        #expect(e?.description.contains("being built") == true)
    }

    @Test func graphLifestyleSharesOneInstanceWithinACreate() throws {
        let log = CallLog()
        let r = Registry()
        try registerWidgets(r, ["W", "Ctx"], log: log)
        try r.load(
            text: """
                Top: {ClassName: W, Dependencies: {left: Left, right: Right}}
                Left: {ClassName: W, Dependencies: {ctx: Context}}
                Right: {ClassName: W, Dependencies: {ctx: Context}}
                Context: {ClassName: Ctx, Lifestyle: graph}
                """)
        let top = try r.create("Top", as: Widget.self)
        let l = top.children["left"]!.children["ctx"]!
        let rr = top.children["right"]!.children["ctx"]!
        #expect(l === rr)
        #expect(log.count("Ctx") == 1)
        let again = try r.create("Top", as: Widget.self)
        #expect(again.children["left"]!.children["ctx"]! !== l)
        #expect(log.count("Ctx") == 2)
    }

    @Test func eagerSingletonsStartInDependencyOrderAndReportTheFirstFailure() throws {
        let log = CallLog()
        let r = Registry()
        try registerWidgets(r, ["W"], log: log)
        try r.load(
            text: """
                Late: {ClassName: W, Lifestyle: singleton, Eager: true, Dependencies: {db: Database}}
                Database: {ClassName: W, Lifestyle: singleton, Eager: true}
                Lazy: {ClassName: W, Lifestyle: singleton}
                """)
        try r.start()
        #expect(log.all.count == 2)
        let r2 = Registry()
        try registerWidgets(r2, ["W"])
        try r2.load(text: "Broken: {ClassName: Missing, Lifestyle: singleton, Eager: true}")
        let e = expectError { try r2.start() }
        #expect(e?.code == .classNotRegistered)
        #expect(e?.description.contains("eager singleton 'Broken'") == true)
        #expect(expectError { try r2.load(text: "T: {ClassName: W, Eager: true}") }?.code == .schema)
    }

    @Test func providersCreateLaterAndDoNotCountForCycles() throws {
        let r = Registry()
        // The List class keeps a provider of this registry: a reference cycle; closing breaks it.
        defer { r.close() }
        let held = Mutex<Provider?>(nil)
        try registerWidgets(r, ["Detail"])
        try r.register(className: "List") { args in
            held.withLock { $0 = args["detail"]?.provider }
            return Widget(className: "List", args: args)
        }
        try r.load(
            text: """
                ListScreen: {ClassName: List, Dependencies: {detail: {Provider: DetailScreen}}}
                DetailScreen: {ClassName: Detail, Dependencies: {back: {Provider: ListScreen}}}
                """)
        _ = try r.create("ListScreen", as: Widget.self)
        let provider = try #require(held.withLock { $0 })
        #expect(provider.entryName == "DetailScreen")
        let detail = try provider.create(props: ["id": 7], as: Widget.self)
        #expect(detail.args["id"] == .int(7))
        #expect(detail.args["back"]?.kind == .provider)
        #expect(
            expectError { try r.load(text: "X: {ClassName: W, Dependencies: {p: {Provider: Nowhere}}}") }?.code
                == .missingReference)
        #expect(expectError { try r.load(text: "Y: {ClassName: W, Dependencies: {y: Y}}") }?.code == .cycle)
    }

    @Test func injectionUsesTheSetCallbackKeyByKey() throws {
        final class Screen: @unchecked Sendable { var values: [String: Value] = [:] }
        let r = Registry()
        let log = CallLog()
        try registerWidgets(r, ["Service"], log: log)
        try r.register(
            className: "ScreenClass",
            .swift(
                create: { _ in Screen() },
                setter: { object, key, value in
                    if key == "bad" { throw TestFailure(message: "no such property") }
                    (object as! Screen).values[key] = value.value
                }))
        try r.register(className: "Plain") { _ in Screen() }
        try r.load(
            text: """
                Home: {ClassName: ScreenClass, Dependencies: {title: "@Home", count: 3, service: Svc}}
                Broken: {ClassName: ScreenClass, Dependencies: {title: "@x", bad: 1, later: Svc}}
                NoSet: {ClassName: Plain, Dependencies: {a: 1}}
                Svc: Service
                """)
        let screen = Screen()
        try r.inject("Home", into: screen)
        #expect(screen.values["title"] == .string("Home"))
        #expect(screen.values["count"] == .int(3))
        #expect(screen.values["service"]?.kind == .object)
        let broken = Screen()
        let e = expectError { try r.inject("Broken", into: broken) }
        #expect(e?.code == .createFailed)
        #expect(e?.description.contains("key 'bad'") == true)
        #expect(e?.description.contains("no such property") == true)
        #expect(broken.values.keys.sorted() == ["title"])
        #expect(log.count("Service") == 2)
        #expect(log.count("~Service") == 2)  // nothing built for an injection outlives it here
        #expect(expectError { try r.inject("NoSet", into: Screen()) }?.code == .invalidArgument)
    }

    @Test func conventionEntryThenClassThenTemplatesInOrder() throws {
        let r = Registry()
        try registerWidgets(r, ["Car", "BikeViewController", "BikeController", "TruckController"])
        try r.addNameTemplate("{name}ViewController")
        try r.addNameTemplate("{name}Controller")
        try r.load(text: "Car: BikeController")
        #expect(try r.create("Car", as: Widget.self).className == "BikeController")  // entry first
        #expect(try r.create("Bike", as: Widget.self).className == "BikeViewController")  // first template
        #expect(try r.create("Truck", props: ["n": 1], as: Widget.self).args["n"] == .int(1))
        #expect(try r.create("TruckController", as: Widget.self).className == "TruckController")  // exact class
        #expect(expectError { _ = try r.create("Plane") }?.code == .notFound)
        #expect(expectError { try r.addNameTemplate("NoPlaceholder") }?.code == .invalidArgument)
    }

    @Test func dynamicEntriesFollowTheSameRules() throws {
        let r = Registry()
        try registerWidgets(r, ["W"])
        try r.add([
            EntryDefinition(name: "A", className: "W", dependencies: [Dependency(key: "b", value: .reference("B", at: nil))]),
            EntryDefinition(name: "B", className: "W", description: "bee", tag: .int(2)),
        ])
        #expect(try r.create("A", as: Widget.self).children["b"] != nil)
        #expect(
            expectError {
                try r.add([
                    EntryDefinition(
                        name: "C", className: "W", dependencies: [Dependency(key: "x", value: .reference("Nope", at: nil))])
                ])
            }?.code == .missingReference)
        #expect(expectError { try r.remove(entriesNamed: ["B"]) }?.description.contains("entry 'A' refers to it") == true)
        try r.remove(entriesNamed: ["A"])
        try r.remove(entriesNamed: ["B"])
        #expect(r.entries.isEmpty)
        #expect(expectError { _ = try r.create("A") }?.code == .notFound)
        try r.load(text: "A: W")
        #expect(r.entries.map(\.name) == ["A"])
    }

    @Test func overrideLoadReplacesAndRevalidates() throws {
        let r = Registry()
        try registerWidgets(r, ["W", "V"])
        try r.load(text: "A: {ClassName: W, Dependencies: {b: B}}\nB: W")
        #expect(expectError { try r.load(text: "B: V") }?.code == .duplicate)
        try r.load(text: "B: V", mode: .override)
        #expect(try r.create("A", as: Widget.self).children["b"]?.className == "V")
        #expect(expectError { try r.load(text: "B: {ClassName: V, Dependencies: {a: A}}", mode: .override) }?.code == .cycle)
        #expect(r.entry(named: "B")?.className == "V")
    }

    @Test func childRegistriesFallBackAndOverride() throws {
        let parent = Registry()
        try registerWidgets(parent, ["Screen", "RealNet", "Cache"])
        try parent.load(
            text: """
                Home: {ClassName: Screen, Dependencies: {net: Network}}
                Network: RealNet
                Shared: {ClassName: Cache, Lifestyle: singleton}
                """)
        var child: Registry? = Registry(parent: parent)
        try registerWidgets(child!, ["MockNet"])
        try child!.load(text: "Network: MockNet\nExtra: {ClassName: Screen, Dependencies: {c: Shared}}")
        #expect(try child!.create("Home", as: Widget.self).children["net"]?.className == "MockNet")
        #expect(try parent.create("Home", as: Widget.self).children["net"]?.className == "RealNet")
        #expect(parent.entry(named: "Extra") == nil)
        // A singleton lives where its entry is defined.
        let viaChild = try child!.create("Extra", as: Widget.self).children["c"]!
        let fromParent = try parent.create("Shared", as: Widget.self)
        #expect(viaChild === fromParent)
        // The parent's later changes reach the child; a change that would break it is refused.
        try parent.load(text: "Later: Screen")
        #expect(try child!.create("Later", as: Widget.self).className == "Screen")
        #expect(expectError { try parent.remove(entriesNamed: ["Shared"]) }?.description.contains("child registry") == true)
        #expect(expectError { try child!.remove(entriesNamed: ["Home"]) }?.code == .invalidArgument)
        child = nil
        #expect(try parent.create("Shared", as: Widget.self) === fromParent)
        try parent.remove(entriesNamed: ["Later"])
    }

    @Test func createsRaceWithChildFreesAndRemovals() throws {
        let parent = Registry()
        try registerWidgets(parent, ["W"])
        try parent.load(text: "A: {ClassName: W, Dependencies: {b: B}}\nB: W\nS: {ClassName: W, Lifestyle: singleton}")
        let stop = Atomic<Bool>(false)
        let failures = Atomic<Int>(0)
        let threads = (0..<3).map { _ in
            Thread {
                while !stop.load(ordering: .relaxed) {
                    if (try? parent.create("A", as: Widget.self)) == nil { failures.add(1, ordering: .relaxed) }
                    _ = try? parent.create("S")
                }
            }
        }
        for i in 0..<200 {
            let child = Registry(parent: parent)
            try child.load(text: "X\(i): {ClassName: W, Dependencies: {a: A, s: S}}")
            _ = try child.create("X\(i)", as: Widget.self)
            try parent.load(text: "T\(i): W")
            try parent.remove(entriesNamed: ["T\(i)"])
        }
        stop.store(true, ordering: .relaxed)
        for t in threads { t.join() }
        #expect(failures.load(ordering: .relaxed) == 0)
    }
}

@Suite("Provider lifetime")
struct ProviderLifetimeTests {
    @Test func aProviderDoesNotKeepItsRegistryAlive() throws {
        let log = CallLog()
        let held = Mutex<Provider?>(nil)
        var r: Registry? = Registry()
        try registerWidgets(r!, ["Detail"], log: log)
        try r!.register(className: "Keeper") { args in
            held.withLock { $0 = args["detail"]?.provider }
            return Widget(className: "Keeper", args: args, log: log)
        }
        try r!.load(
            text: """
                Keeper: {ClassName: Keeper, Lifestyle: singleton, Dependencies: {detail: {Provider: Detail}}}
                Detail: Detail
                """)
        _ = try r!.create("Keeper")
        let provider = try #require(held.withLock { $0 })
        _ = try provider.create(as: Widget.self)
        r = nil  // no close(): the singleton holding the provider must not keep the registry alive
        #expect(log.count("~Keeper") == 1)
        #expect(provider.registry == nil)
        #expect(expectError { _ = try provider.create() }?.code == .invalidArgument)
    }
}
