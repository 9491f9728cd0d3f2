import Synchronization
import Testing

@testable import ControllerReg

/// The Swift API's own create of Swift classes (`SwiftClassCreate`: closures called directly, no
/// resolver) against the resolver's path for the same entries of the same registry (the C ABI's
/// door, `createOutcome(cName:)`, with empty props, which calls the same closures through their C
/// trampolines), and the C ABI's door's own path (`HostArgumentsCreate`) against both: the
/// same closures run in the same order at the same depths, the same objects are released at the
/// same moments, the caller gets the same object or the same error (code and message).
@Suite("Swift class create path")
struct SwiftClassCreateTests {
    /// What happened during one create, in order; leaves are numbered in the order they are built.
    final class Events: Sendable {
        private let lines = Mutex<[String]>([])
        private let leaves = Mutex(0)
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        /// The name of the next leaf built.
        func nextLeaf() -> String {
            leaves.withLock {
                $0 += 1
                return "leaf\($0)"
            }
        }
        /// Forgets every event and restarts the leaf numbers (before each door's create).
        func restart() {
            lines.withLock { $0 = [] }
            leaves.withLock { $0 = 0 }
        }
        func take() -> [String] {
            lines.withLock {
                let all = $0
                $0 = []
                return all
            }
        }
    }

    /// An object the test classes build, logging its end.
    final class Made: Sendable {
        let name: String
        let parts: [Made]
        let facts: String
        let events: Events
        init(_ name: String, parts: [Made] = [], facts: String = "", _ events: Events) {
            self.name = name
            self.parts = parts
            self.facts = facts
            self.events = events
        }
        deinit { events.add("deinit \(name)") }
        var description: String { "\(name)(\(facts))[\(parts.map(\.description).joined(separator: ","))]" }
    }

    /// An error whose text is empty (the failure then reads "returned NULL" on both paths).
    struct Silent: Error, CustomStringConvertible { var description: String { "" } }

    /// The depth a closure runs at (creates it starts begin there).
    static var depth: Int { CreateNesting.current.pointee.depth }

    static let config = """
        Leaf: Leaf
        LeafB: Leaf
        Bad: FailingLeaf
        Quiet: SilentLeaf
        Single: {ClassName: Leaf, Lifestyle: singleton}
        Shared: {ClassName: Leaf, Lifestyle: graph}
        C: CLeaf
        Keeps: {ClassName: Keeper, Dependencies: {a: Leaf, title: "@Home", b: LeafB, count: 3, ratio: 0.5}}
        Literals: {ClassName: Keeper, Dependencies: {title: "@only", count: 2}}
        Reads: {ClassName: Reader, Dependencies: {a: Leaf, b: LeafB}}
        TakesOne: {ClassName: TakerOfA, Dependencies: {b: LeafB, x: 1, a: Leaf}}
        LeafFails: {ClassName: Keeper, Dependencies: {a: Leaf, b: Bad, c: LeafB}}
        LeafSilent: {ClassName: Keeper, Dependencies: {a: Leaf, b: Quiet}}
        TopFails: {ClassName: Failing, Dependencies: {a: Leaf, b: LeafB}}
        TopSilent: {ClassName: SilentFailing, Dependencies: {a: Leaf}}
        Nests: {ClassName: Nester, Dependencies: {a: Leaf}}
        LeafNester: LeafNester
        LeafNests: {ClassName: Keeper, Dependencies: {a: LeafNester, b: Leaf}}
        NestsSelf: {ClassName: NestingKeeper, Dependencies: {a: Leaf, title: "@outer", inner: "@NestsSelf", count: 1}}
        NestsOther: {ClassName: NestingKeeper, Dependencies: {a: Leaf, inner: "@Keeps", title: "@outer", count: 2}}
        WithSingleton: {ClassName: Reader, Dependencies: {a: Single, b: Leaf}}
        WithGraph: {ClassName: Reader, Dependencies: {a: Shared, b: Shared}}
        WithC: {ClassName: Reader, Dependencies: {a: Leaf, b: C}}
        WithNode: {ClassName: Keeper, Dependencies: {a: Keeps, b: Leaf}}
        WithList: {ClassName: Reader, Dependencies: {a: Leaf, b: [Leaf, LeafB]}}
        WithProvider: {ClassName: Reader, Dependencies: {a: Leaf, b: {Provider: LeafB}}}
        WithOptional: {ClassName: Reader, Dependencies: {a: {Optional: Leaf}, b: Leaf}}

        """

    /// A registry with the test classes (Swift closures, and one C class) and `config`.
    static func makeRegistry(_ events: Events, limits: RegistryLimits = RegistryLimits()) throws -> Registry {
        let registry = Registry(limits: limits)
        try registry.register(className: "Leaf") { _ in
            events.add("Leaf at \(depth)")
            return Made(events.nextLeaf(), events)
        }
        try registry.register(className: "FailingLeaf") { _ in
            events.add("FailingLeaf at \(depth)")
            throw TestFailure(message: "no leaf today")
        }
        try registry.register(className: "SilentLeaf") { _ in
            events.add("SilentLeaf at \(depth)")
            throw Silent()
        }
        try registry.register(className: "Keeper") { args in
            events.add("Keeper at \(depth)")
            let parts = ["a", "b", "c"].compactMap { args[$0]?.take(as: Made.self) }
            let facts = "\(args["title"]?.string ?? "-") \(args["count"]?.int ?? -1) \(args["ratio"]?.double ?? -1)"
            return Made("keeper", parts: parts, facts: facts, events)
        }
        try registry.register(className: "Reader") { args in
            events.add("Reader at \(depth)")
            let a = args["a"]?.object(as: Made.self)?.name ?? "nil"
            let b = args["b"]?.object(as: Made.self)?.name ?? args["b"].map { "\($0.kind)" } ?? "absent"
            return Made("reader", facts: "\(a) \(b)", events)
        }
        try registry.register(className: "TakerOfA") { args in
            events.add("TakerOfA at \(depth)")
            let a = args["a"]!.take(as: Made.self)!
            return Made("taker", parts: [a], facts: "\(args["x"]?.int ?? -1)", events)
        }
        try registry.register(className: "Failing") { args in
            events.add("Failing at \(depth)")
            let kept = args["a"]!.take(as: Made.self)!
            events.add("Failing took \(kept.name)")
            throw TestFailure(message: "failing on purpose")
        }
        try registry.register(className: "SilentFailing") { _ in
            events.add("SilentFailing at \(depth)")
            throw Silent()
        }
        let inner = Mutex<Registry?>(nil)
        try registry.register(className: "Nester") { args in
            events.add("Nester at \(depth)")
            let nested = try inner.withLock { $0 }!.create("Leaf", as: Made.self)
            return Made("nester", parts: [args["a"]!.take(as: Made.self)!, nested], events)
        }
        // A leaf whose closure creates another: the leaf built after it runs at the same depth.
        try registry.register(className: "LeafNester") { _ in
            events.add("LeafNester at \(depth)")
            return Made("leafnester", parts: [try inner.withLock { $0 }!.create("Leaf", as: Made.self)], events)
        }
        // Creates the entry its `inner` names from inside its closure (once: at depth 1), then
        // reads its own arguments: what it reads must be its own, not the nested create's.
        try registry.register(className: "NestingKeeper") { args in
            events.add("NestingKeeper at \(depth)")
            var nested: [Made] = []
            if depth == 1, let name = args["inner"]?.string {
                nested.append(try inner.withLock { $0 }!.create(name, as: Made.self))
            }
            let a = args["a"]?.take(as: Made.self)
            let facts = "\(args["title"]?.string ?? "-") \(args["count"]?.int ?? -1) \(a?.name ?? "nil")"
            return Made("nesting", parts: (a.map { [$0] } ?? []) + nested, facts: facts, events)
        }
        inner.withLock { $0 = registry }
        try registry.register(
            className: "CLeaf",
            HostClass(
                create: { _, _ in
                    let p = UnsafeMutableRawPointer.allocate(byteCount: 8, alignment: 8)
                    p.storeBytes(of: 42, as: Int.self)
                    return p
                }, destroy: { p, _ in p.deallocate() }))
        try registry.load(text: config, format: .yaml)
        return registry
    }

    /// What a create gave: the object (described, then released) or the error, and every event.
    static func outcome(_ events: Events, _ create: () -> Result<ObjectReference, ConfigError>) -> [String] {
        var lines: [String]
        switch create() {
        case .success(let reference):
            lines = events.take()
            let p = reference.pointer!
            if reference.isRegistryOwned {
                lines.append("registry's \(Unmanaged<Made>.fromOpaque(p).takeUnretainedValue().description)")
            } else {
                lines.append("got \(Unmanaged<Made>.fromOpaque(p).takeRetainedValue().description)")
            }
        case .failure(let error):
            lines = events.take()
            lines.append("error \(error.code): \(error)")
        }
        return lines + events.take()
    }

    /// One entry through both doors: the Swift API's and the resolver's (the C ABI's door with an
    /// empty props map, which every create of an entry takes through the resolver). The C ABI's
    /// door without props (`HostArgumentsCreate` for an entry of literals and leaves) runs too,
    /// and must give what the resolver gives (checked here, for every caller).
    static func bothDoors(_ registry: Registry, _ events: Events, _ name: String) -> (swift: [String], resolver: [String]) {
        events.restart()
        let swift = outcome(events) {
            do throws(ConfigError) { return .success(try registry.createReference(name)) } catch { return .failure(error) }
        }
        events.restart()
        let host = outcome(events) { cDoor(registry, name, props: nil) }
        events.restart()
        let empty = try! Value.map([:]).makeHeap(path: "props")
        defer { HeapValue.free(empty) }
        let resolver = outcome(events) { cDoor(registry, name, props: UnsafePointer(empty)) }
        #expect(host == resolver, "\(name): the C ABI's door without props")
        return (swift, resolver)
    }

    /// A create of `name` through the C ABI's door, with `props` (nil, or a map the caller built).
    static func cDoor(
        _ registry: Registry, _ name: String, props: UnsafePointer<RawValue>?
    ) -> Result<
        ObjectReference, ConfigError
    > {
        name.withCString { cName in
            switch registry.createOutcome(cName: cName, props: props, destroyer: nil) {
            case .made(let p, let owned, _): return .success(ObjectReference(p, registryOwned: owned, swiftObject: true))
            case .failed(let error): return .failure(error)
            }
        }
    }

    /// Whether `SwiftClassCreate` builds entry `name` itself (the object is released) rather than
    /// refusing it to the resolver.
    static func takesDirectPath(_ registry: Registry, _ name: String) -> Bool {
        let maxDepth = registry.maxCreateDepth.load(ordering: .relaxed)
        return registry.cell.read { s, thread in
            switch SwiftClassCreate.create(s.entries.index(of: name), s, maxDepth: maxDepth, thread: thread) {
            case .built(let p):
                Unmanaged<AnyObject>.fromOpaque(p).release()
                return true
            case .failed: return true
            case .refused: return false
            }
        }
    }

    static let direct = [
        "Leaf", "Bad", "Quiet", "Keeps", "Literals", "Reads", "TakesOne", "LeafFails", "LeafSilent", "TopFails",
        "TopSilent", "Nests", "NestsSelf", "NestsOther",
        "LeafNester", "LeafNests",
    ]
    static let refused = [
        "Single", "Shared", "WithSingleton", "WithGraph", "WithC", "WithNode", "WithList", "WithProvider", "WithOptional",
    ]

    /// Every entry: the same events and outcome through both doors; the direct path takes exactly
    /// the entries it covers (so each of its branches is compared above).
    @Test(arguments: direct + refused)
    func sameAsTheResolver(_ name: String) throws {
        let events = Events()
        let registry = try Self.makeRegistry(events)
        _ = Self.bothDoors(registry, events, name)  // a singleton is built by the first create only
        let (swift, resolver) = Self.bothDoors(registry, events, name)
        #expect(swift == resolver, "\(name)")
        #expect(!swift.isEmpty)
        #expect(Self.takesDirectPath(registry, name) == Self.direct.contains(name), "\(name)")
        _ = events.take()
    }

    /// The image of entry `name` in the registry's snapshot: 0 before its first direct create, then
    /// `SwiftArgumentImages.refused` or an address (with whether it is marked a leaf's).
    static func image(_ registry: Registry, _ name: String) -> (image: UInt, leaf: Bool) {
        registry.cell.read { s, _ in
            let image = SwiftArgumentImages.image(s, s.entries.index(of: name))
            guard image > SwiftArgumentImages.refused else { return (image, false) }
            let leaf = UnsafeRawPointer(bitPattern: image)!.load(
                fromByteOffset: SwiftArgumentImages.leafOffset, as: Int.self)
            return (image, leaf != 0)
        }
    }

    /// An entry's first create checks its plan and keeps what it found in its image: a transient
    /// leaf of a Swift class gets one marked a leaf, an entry with slots one with its slots, any
    /// other entry (another lifestyle, a class that is not a Swift class, a slot the path does not
    /// build) `refused`; later creates start from that image and take the path the first took.
    @Test(arguments: direct + refused + ["C"])
    func imagesKeepWhatTheFirstCreateFound(_ name: String) throws {
        let events = Events()
        let registry = try Self.makeRegistry(events)
        #expect(Self.image(registry, name).image == 0)
        let direct = Self.takesDirectPath(registry, name)
        #expect(direct == Self.direct.contains(name), "\(name)")
        let first = Self.image(registry, name)
        if direct {
            #expect(first.image > SwiftArgumentImages.refused, "\(name)")
            #expect(first.leaf == ["Leaf", "Bad", "Quiet", "LeafNester"].contains(name), "\(name)")
        } else {
            #expect(first.image == SwiftArgumentImages.refused, "\(name)")
        }
        #expect(Self.takesDirectPath(registry, name) == direct, "\(name)")
        #expect(Self.image(registry, name) == first, "\(name)")
        // (`bothDoors` reads what it gets as a Swift object: not for the C class's entry.)
        guard name != "C" else { return }
        _ = Self.bothDoors(registry, events, name)  // a singleton is built by the first create only
        let (swift, resolver) = Self.bothDoors(registry, events, name)
        #expect(swift == resolver, "\(name)")
        _ = events.take()
    }

    /// The entries the C ABI's door builds from its own images (`HostArgumentsCreate`): those
    /// with slots, each a literal or a transient leaf of a registered class (a C class's too).
    static let hostPath = [
        "Keeps", "Literals", "Reads", "TakesOne", "LeafFails", "LeafSilent", "TopFails", "TopSilent", "Nests", "NestsSelf",
        "NestsOther", "LeafNests", "WithC",
    ]
    /// The entries built without an image through that door (leaves: `Resolver.createLeaf`).
    static let hostLeaves = ["Leaf", "Bad", "Quiet", "LeafNester", "Shared", "C"]

    /// The C ABI's door keeps images of its own (`SwiftArgumentImages.Door.host`): an entry's first
    /// create without props gives an entry of `hostPath` one, any other entry with slots or of
    /// another lifestyle `refused`, a leaf none; later creates keep it (with a destroyer asked
    /// for, as `cr_registry_create_with` does: the object destroyed through it).
    @Test(arguments: direct + refused + ["C"])
    func hostImagesKeepWhatTheFirstCreateFound(_ name: String) throws {
        let events = Events()
        let registry = try Self.makeRegistry(events)
        func hostImage() -> UInt {
            registry.cell.read { s, _ in SwiftArgumentImages.image(s, s.entries.index(of: name), door: .host) }
        }
        #expect(hostImage() == 0)
        for _ in 0..<2 {
            var destroyer = Destroyer()
            name.withCString { cName in
                if case .made(let p, let owned, _) = registry.createOutcome(cName: cName, props: nil, destroyer: &destroyer),
                    !owned
                {
                    destroyer.destroy?(p, destroyer.context)
                }
            }
            let image = hostImage()
            if Self.hostPath.contains(name) {
                #expect(image > SwiftArgumentImages.refused, "\(name)")
            } else if Self.hostLeaves.contains(name) {
                #expect(image == 0, "\(name)")
            } else {
                #expect(image == SwiftArgumentImages.refused, "\(name)")
            }
        }
        _ = events.take()
    }

    /// A few outcomes spelled out (the comparison above would pass if both doors were wrong alike).
    @Test func outcomesAsDocumented() throws {
        let events = Events()
        let registry = try Self.makeRegistry(events)
        #expect(
            Self.bothDoors(registry, events, "Keeps").swift == [
                "Leaf at 2", "Leaf at 2", "Keeper at 1", "got keeper(Home 3 0.5)[leaf1()[],leaf2()[]]", "deinit keeper",
                "deinit leaf1", "deinit leaf2",
            ])
        #expect(
            Self.bothDoors(registry, events, "Reads").swift == [
                "Leaf at 2", "Leaf at 2", "Reader at 1", "deinit leaf2", "deinit leaf1", "got reader(leaf1 leaf2)[]",
                "deinit reader",
            ])
        let leafFails = Self.bothDoors(registry, events, "LeafFails").swift
        #expect(leafFails.dropLast() == ["Leaf at 2", "FailingLeaf at 2", "deinit leaf1"])
        #expect(
            leafFails.last?.hasSuffix(
                ": cannot create 'LeafFails' (LeafFails -> Bad): create of class 'FailingLeaf' for entry 'Bad' (defined at <string>:3:1): no leaf today"
            )
                == true)
        let topFails = Self.bothDoors(registry, events, "TopFails").swift
        #expect(
            topFails.dropLast() == [
                "Leaf at 2", "Leaf at 2", "Failing at 1", "Failing took leaf1", "deinit leaf1", "deinit leaf2",
            ])
        #expect(
            topFails.last?.hasSuffix(
                ": cannot create 'TopFails': create of class 'Failing' for entry 'TopFails' (defined at <string>:14:1): failing on purpose"
            ) == true)
        #expect(
            Self.bothDoors(registry, events, "TopSilent").swift.last?.hasSuffix(
                ": cannot create 'TopSilent': create of class 'SilentFailing' for entry 'TopSilent' (defined at <string>:15:1) returned NULL"
            ) == true)
        #expect(
            Self.bothDoors(registry, events, "Nests").swift == [
                "Leaf at 2", "Nester at 1", "Leaf at 2", "got nester()[leaf1()[],leaf2()[]]", "deinit nester",
                "deinit leaf1", "deinit leaf2",
            ])
    }

    /// A create started by a closure of a create with slots (its arguments in use) builds its own
    /// arguments elsewhere: the outer closure reads its own afterwards, the same entry or another.
    @Test func nestedCreatesKeepTheirArguments() throws {
        let events = Events()
        let registry = try Self.makeRegistry(events)
        for _ in 0..<2 {  // the second time from the images the first built
            #expect(
                Self.bothDoors(registry, events, "NestsSelf").swift == [
                    "Leaf at 2", "NestingKeeper at 1", "Leaf at 3", "NestingKeeper at 2",
                    "got nesting(outer 1 leaf1)[leaf1()[],nesting(outer 1 leaf2)[leaf2()[]]]", "deinit nesting",
                    "deinit leaf1", "deinit nesting", "deinit leaf2",
                ])
            #expect(
                Self.bothDoors(registry, events, "NestsOther").swift == [
                    "Leaf at 2", "NestingKeeper at 1", "Leaf at 3", "Leaf at 3", "Keeper at 2",
                    "got nesting(outer 2 leaf1)[leaf1()[],keeper(Home 3 0.5)[leaf2()[],leaf3()[]]]", "deinit nesting",
                    "deinit leaf1", "deinit keeper", "deinit leaf2", "deinit leaf3",
                ])
        }
        // A leaf's closure that creates: the next leaf runs where it would have (depth 2).
        #expect(
            Self.bothDoors(registry, events, "LeafNests").swift == [
                "LeafNester at 2", "Leaf at 3", "Leaf at 2", "Keeper at 1",
                "got keeper(- -1 -1.0)[leafnester()[leaf1()[]],leaf2()[]]", "deinit keeper", "deinit leafnester",
                "deinit leaf1", "deinit leaf2",
            ])
        // Entries with slots one after another on one thread: each create reads its own arguments.
        for name in ["Keeps", "Literals", "Reads", "Keeps", "TakesOne", "Literals"] {
            let (swift, resolver) = Self.bothDoors(registry, events, name)
            #expect(swift == resolver, "\(name)")
        }
    }

    /// Depth limits: an entry whose leaves would pass the limit, or that is itself at it, is
    /// refused to the resolver, which reports it the same way through both doors.
    @Test(arguments: [1, 2])
    func depthLimits(_ limit: Int) throws {
        let events = Events()
        var limits = RegistryLimits()
        limits.maxCreateDepth = limit
        let registry = try Self.makeRegistry(events, limits: limits)
        for name in ["Keeps", "Leaf", "Nests"] {
            let (swift, resolver) = Self.bothDoors(registry, events, name)
            #expect(swift == resolver, "\(name) at limit \(limit)")
        }
        #expect(Self.takesDirectPath(registry, "Keeps") == (limit > 1))
        #expect(Self.bothDoors(registry, events, "Keeps").swift.last?.contains("create depth limit of 1") == (limit == 1))
    }
    /// Each create starts from its entry's arguments map as the snapshot it reads fixes it
    /// (`SwiftArgumentImages`, built by the entry's first create there): after an entry is
    /// overridden, the depth limit lowered or a leaf's class replaced by C functions, the next
    /// create sees the change, the same through both doors.
    @Test func changesReachTheNextCreate() throws {
        let events = Events()
        let registry = try Self.makeRegistry(events)
        #expect(Self.bothDoors(registry, events, "Literals").swift.contains("got keeper(only 2 -1.0)[]"))
        try registry.load(
            text: "Literals: {ClassName: Keeper, Dependencies: {title: \"@again\", a: Leaf, count: 5}}\n", format: .yaml,
            mode: .override)
        let overridden = Self.bothDoors(registry, events, "Literals")
        #expect(overridden.swift == overridden.resolver)
        #expect(overridden.swift.contains("got keeper(again 5 -1.0)[leaf1()[]]"))
        #expect(Self.takesDirectPath(registry, "Literals"))

        #expect(Self.takesDirectPath(registry, "Keeps"))
        var limits = RegistryLimits()
        limits.maxCreateDepth = 1
        try registry.setLimits(limits)
        #expect(!Self.takesDirectPath(registry, "Keeps"))
        let limited = Self.bothDoors(registry, events, "Keeps")
        #expect(limited.swift == limited.resolver)
        #expect(limited.swift.last?.contains("create depth limit of 1") == true)
        try registry.setLimits(RegistryLimits())
        #expect(Self.takesDirectPath(registry, "Keeps"))

        try registry.replaceClass(
            "Leaf",
            HostClass(
                create: { _, _ in UnsafeMutableRawPointer.allocate(byteCount: 8, alignment: 8) },
                destroy: { p, _ in p.deallocate() }))
        #expect(!Self.takesDirectPath(registry, "Keeps"))
        let replaced = Self.bothDoors(registry, events, "Keeps")
        #expect(replaced.swift == replaced.resolver)
        #expect(replaced.swift.contains("got keeper(Home 3 0.5)[]"))
    }

    /// A class made by `HostClass.swift` whose `create` was then replaced by a C function builds
    /// with that function through every door (its closure is never called) and its objects are not
    /// read as Swift objects.
    @Test func replacedCreateIsCalled() throws {
        let events = Events()
        var host = HostClass.swift { _ in
            events.add("closure")
            return Made("made", events)
        }
        host.create = { _, _ in UnsafeMutableRawPointer.allocate(byteCount: 8, alignment: 8) }
        host.destroy = { p, _ in p.deallocate() }
        let registry = Registry()
        try registry.register(className: "Replaced", host)
        try registry.load(text: "R: Replaced\nN: {ClassName: Replaced, Dependencies: {a: R, n: 1}}\n", format: .yaml)
        for name in ["R", "N"] {
            let error = expectError { _ = try registry.create(name, as: Made.self) }
            #expect(error?.code == .type && "\(error!)".contains("not a Swift object"), "\(name)")
            #expect(!Self.takesDirectPath(registry, name))
        }
        #expect(events.take().isEmpty)
    }
}
