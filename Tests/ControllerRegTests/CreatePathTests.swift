import Synchronization
import Testing

@testable import ControllerReg

#if canImport(Glibc)
import Glibc
#endif

/// What the create path's shortcuts must leave as it was: a C-string key finds exactly its own
/// key in an argument map, and the per-thread create record (nesting depth, stack bound) is the
/// calling thread's own, also when the record last served a thread that has exited.
/// An error reduced to its code (comparable in expectations).
struct CodedError: Error, Equatable { let code: ErrorCode }

@Suite("Create path")
struct CreatePathTests {
    /// `cr_map_get`'s lookup (`ValueRef.value(forCKey:)`) compares whole keys: no prefix, no
    /// extension, and a key with an embedded NUL matches no C string.
    @Test func cStringKeysMatchWholeKeysOnly() throws {
        let r = Registry()
        let found = Mutex<[String: Int64]>([:])
        let probes = ["title", "titles", "t", "", "ti", "titlesx", "tiXle", "a", "b", "x"]
        try r.register(className: "Reader") { args in
            for probe in probes {
                let v = probe.withCString { args.value(forCKey: $0) }
                if let v { found.withLock { $0[probe] = v.int ?? -1 } }
            }
            // The Swift lookup (by length) still reaches the embedded-NUL key.
            if let v = args["a\u{0}b"]?.int { found.withLock { $0["a\\0b"] = v } }
            return Widget(className: "Reader", args: args)
        }
        try r.load(text: "R: {ClassName: Reader, Dependencies: {title: 1, titles: 2, t: 3}}")
        _ = try r.create("R", props: ["": 4, "a\u{0}b": 5], as: Widget.self)
        #expect(found.withLock { $0 } == ["title": 1, "titles": 2, "t": 3, "": 4, "a\\0b": 5])
    }

    /// A callback's arguments remember where the last C-string lookup found its key and try the
    /// next slot first; that never changes what a key finds, in any order of reads (declared,
    /// reversed, repeated, near misses, absent keys), with props merged over the dependencies,
    /// in a nested map, and for a class created by convention (props only).
    @Test func cStringLookupsFindTheirKeyInAnyOrder() throws {
        let r = Registry()
        let failures = Mutex<[String]>([])
        @Sendable func read(_ map: ValueRef, _ reads: [(String, Int64?)], _ what: String) {
            for (i, (key, expected)) in reads.enumerated() {
                let got = key.withCString { map.value(forCKey: $0) }.map { $0.int ?? -1 }
                if got != expected { failures.withLock { $0.append("\(what) read \(i) '\(key)': \(String(describing: got))") } }
            }
        }
        let top: [(String, Int64?)] = [
            ("title", 1), ("titles", 2), ("t", 3), ("ti", 4), ("zz", 7), ("t2", 8),
            ("t2", 8), ("zz", 7), ("ti", 4), ("t", 3), ("titles", 2), ("title", 1),
            ("title", 1), ("title", 1), ("tit", nil), ("titles", 2), ("titlesx", nil), ("t", 3),
            ("", nil), ("ti", 4), ("zz", 7), ("title", 1), ("z", nil), ("t2", 8),
        ]
        try r.register(className: "Probe") { args in
            read(args, top, "top")
            if let m = "m".withCString({ args.value(forCKey: $0) }) {
                read(m, [("ab", 6), ("a", 5), ("ab", 6), ("b", nil), ("a", 5), ("a", 5)], "nested")
            } else {
                failures.withLock { $0.append("no m") }
            }
            return Widget(className: "Probe", args: args)
        }
        try r.register(className: "Loose") { args in
            read(args, [("t2", 8), ("zz", 7), ("zz", 7), ("t", nil), ("t2", 8), ("z", nil), ("zz", 7)], "convention")
            return Widget(className: "Loose", args: args)
        }
        try r.load(text: "P: {ClassName: Probe, Dependencies: {title: 1, titles: 2, t: 3, ti: 4, m: {a: 5, ab: 6}}}")
        for _ in 0..<3 { _ = try r.create("P", props: ["zz": 7, "t2": 8], as: Widget.self) }
        for _ in 0..<2 { _ = try r.create("Loose", props: ["zz": 7, "t2": 8], as: Widget.self) }
        #expect(failures.withLock { $0 } == [])
    }

    /// An entry with many declared dependencies (not props) gets an index of its arguments, as big
    /// props have (`IndexedLookup`): from `HeapMapIndex.minimumCapacity` slots on, so reading all
    /// of 20,000 out of order is one look-up each (it was a search of every slot: 0.87 s for
    /// 20,000 read in reverse, 3.7 s for 100,000 read in order once the 16-bit hint wrapped).
    /// Every read, reversed, scattered, in order past 65,536 and absent, finds its own value, by
    /// C string and by Swift key alike, with props merged over some of the dependencies.
    @Test func manyDependenciesAreReadThroughAnIndex() throws {
        let r = Registry()
        let failures = Mutex<[String]>([])
        let covered = Mutex<[Int: Bool]>([:])
        @Sendable func check(_ args: ValueRef, _ key: String, _ expected: Int64?) {
            let byC = key.withCString { args.value(forCKey: $0) }.map { $0.int ?? -1 }
            let bySwift = args[key].map { $0.int ?? -1 }
            if byC != expected || bySwift != expected {
                failures.withLock { $0.append("'\(key)': \(String(describing: byC)) \(String(describing: bySwift))") }
            }
        }
        try r.register(className: "Many") { args in
            let n = Int(args.count)
            covered.withLock { $0[n] = IndexedLookup.covers(args.pointer) }
            let props = args["p"] != nil
            for i in stride(from: n - 1, through: 0, by: -1) where i < 20_000 {
                // Props override k5 (and add p): the value is then the props'.
                check(args, "k\(i)", props && i == 5 ? -5 : Int64(i))
            }
            for i in 0..<500 {
                let j = (i * 7919) % min(n, 20_000)
                check(args, "k\(j)", props && j == 5 ? -5 : Int64(j))
            }
            if props { check(args, "p", 1) }
            check(args, "k\(n)", nil)
            check(args, "", nil)
            check(args, "k", nil)
            if n > 70_000 { for i in 0..<n { check(args, "k\(i)", Int64(i)) } }
            return Widget(className: "Many", args: args)
        }
        for n in [63, 64, 20_000, 70_000] {
            var yaml = "M\(n):\n  ClassName: Many\n  Dependencies:\n"
            for i in 0..<n { yaml += "    k\(i): \(i)\n" }
            try r.load(text: yaml)
        }
        _ = try r.create("M63", as: Widget.self)
        _ = try r.create("M64", as: Widget.self)
        _ = try r.create("M20000", as: Widget.self)
        _ = try r.create("M20000", props: ["k5": -5, "p": 1], as: Widget.self)
        _ = try r.create("M70000", as: Widget.self)
        #expect(failures.withLock { $0 } == [])
        #expect(covered.withLock { $0 } == [63: false, 64: true, 20_000: true, 20_001: true, 70_000: true])
    }

    /// A C-string lookup that misses the hinted slot tries the slot after it, then the slot an
    /// earlier lookup skipped, before searching: reads that skip one key and come back to it, skip
    /// several, read the last key first or one key twice still find every key's own value.
    @Test func cStringLookupsReadingKeysLateFindThem() throws {
        let r = Registry()
        let failures = Mutex<[String]>([])
        let keys = ["k0", "k1", "k2", "k3", "k4"]
        let orders: [[Int]] = [
            [0, 1, 3, 4, 2], [0, 2, 1, 3, 4], [0, 2, 1, 4, 3], [1, 0, 2, 3, 4], [0, 2, 4, 1, 3], [4, 0, 1, 2, 3],
            [0, 2, 1, 1, 2, 3, 4], [1, 3, 0, 2, 4], [0, 1, 2, 3, 4, 0, 2, 1], [2, 3, 4, 0, 1], [0, 2, 9, 1, 3],
        ]
        try r.register(className: "LateReader") { args in
            for (o, order) in orders.enumerated() {
                for i in order {
                    let key = i < keys.count ? keys[i] : "k\(i)"
                    let got = key.withCString { args.value(forCKey: $0) }.map { $0.int ?? -1 }
                    let expected: Int64? = i < keys.count ? Int64(i) : nil
                    if got != expected { failures.withLock { $0.append("order \(o) '\(key)': \(String(describing: got))") } }
                }
            }
            return Widget(className: "LateReader", args: args)
        }
        try r.load(text: "L: {ClassName: LateReader, Dependencies: {k0: 0, k1: 1, k2: 2, k3: 3, k4: 4}}")
        for _ in 0..<2 { _ = try r.create("L", as: Widget.self) }
        #expect(failures.withLock { $0 } == [])
    }

    /// A Swift class's `args["key"]` tries the slot after the last key found first, as the C
    /// lookup does; every order of reads (declared, reversed, repeated, near misses, absent keys)
    /// still finds each key's own value, props merged over the dependencies included.
    @Test func swiftLookupsFindTheirKeyInAnyOrder() throws {
        let r = Registry()
        let failures = Mutex<[String]>([])
        let reads: [(String, Int64?)] = [
            ("title", 1), ("titles", 2), ("t", 3), ("ti", 4), ("zz", 7), ("t2", 8),
            ("t2", 8), ("zz", 7), ("ti", 4), ("t", 3), ("titles", 2), ("title", 1),
            ("title", 1), ("tit", nil), ("titles", 2), ("titlesx", nil), ("t", 3), ("", nil),
            ("ti", 4), ("zz", 7), ("title", 1), ("z", nil), ("t2", 8), ("title", 1),
        ]
        try r.register(className: "SwiftProbe") { args in
            for (i, (key, expected)) in reads.enumerated() {
                let got = args[key].map { $0.int ?? -1 }
                if got != expected { failures.withLock { $0.append("read \(i) '\(key)': \(String(describing: got))") } }
            }
            return Widget(className: "SwiftProbe", args: args)
        }
        try r.load(text: "S: {ClassName: SwiftProbe, Dependencies: {title: 1, titles: 2, t: 3, ti: 4}}")
        for _ in 0..<3 { _ = try r.create("S", props: ["zz": 7, "t2": 8], as: Widget.self) }
        #expect(failures.withLock { $0 } == [])
    }

    /// A 16-byte plan slot keeps a short string (under 64 bytes) as its bytes alone, its length
    /// read from the arena byte before them, and anything longer or nested out of line: every
    /// literal shape reaches the callback exactly as written, around those boundaries too, from
    /// a file and from code (environment values resolved at commit included), top level and
    /// inside lists and maps built with references.
    @Test func literalsOfEveryShapeArriveExactly() throws {
        let r = Registry()
        try registerWidgets(r, ["W", "Leaf"])
        let strings = [
            "", "a", String(repeating: "x", count: 62), String(repeating: "y", count: 63),
            String(repeating: "z", count: 64), String(repeating: "é", count: 31), String(repeating: "✓", count: 22),
            String(repeating: "long ", count: 80),
        ]
        var deps: [Dependency] = strings.enumerated().map { Dependency(key: "s\($0.offset)", value: .string($0.element)) }
        deps += [
            Dependency(key: "null", value: .null), Dependency(key: "t", value: .bool(true)),
            Dependency(key: "f", value: .bool(false)),
            Dependency(key: "min", value: .int(Int64.min)), Dependency(key: "max", value: .int(Int64.max)),
            Dependency(key: "d", value: .double(-0.125)),
            Dependency(
                key: "list",
                value: .list([
                    .string("in list"), .int(1), .list([]),
                    .map([Dependency(key: "k", value: .string(String(repeating: "m", count: 70)))]),
                ])),
            Dependency(
                key: "mixed",
                value: .list([
                    .reference("Leaf", at: nil), .string("beside a reference"), .string(String(repeating: "r", count: 65)),
                ])),
            Dependency(
                key: "mixedMap",
                value: .map([
                    Dependency(key: "leaf", value: .reference("Leaf", at: nil)), Dependency(key: "s", value: .string("short")),
                    Dependency(key: "n", value: .int(7)),
                ])),
            Dependency(key: "env", value: .env(EnvValue(name: "CR_SLOT_TEST", type: .string))),
            Dependency(key: "envLong", value: .env(EnvValue(name: "CR_SLOT_LONG", type: .string))),
        ]
        let env = ["CR_SLOT_TEST": "from the environment", "CR_SLOT_LONG": String(repeating: "e", count: 100)]
        try r.add(
            [
                EntryDefinition(name: "Leaf", className: "Leaf"),
                EntryDefinition(name: "Code", className: "W", dependencies: deps),
            ], environment: env)
        var yaml = "F:\n  ClassName: W\n  Dependencies:\n"
        for (i, s) in strings.enumerated() { yaml += "    s\(i): \"@\(s)\"\n" }
        try r.load(text: yaml, file: "f.yaml")
        var expected: [String: Value] = [:]
        for (i, s) in strings.enumerated() { expected["s\(i)"] = .string(s) }
        let fromFile = try r.create("F", as: Widget.self)
        #expect(fromFile.args == expected)
        let made = try r.create("Code", as: Widget.self)
        expected["null"] = .null
        expected["t"] = .bool(true)
        expected["f"] = .bool(false)
        expected["min"] = .int(Int64.min)
        expected["max"] = .int(Int64.max)
        expected["d"] = .double(-0.125)
        expected["list"] = .list([
            .string("in list"), .int(1), .list([]), .map(["k": .string(String(repeating: "m", count: 70))]),
        ])
        expected["env"] = .string("from the environment")
        expected["envLong"] = .string(String(repeating: "e", count: 100))
        #expect(made.args.filter { $0.key != "mixed" && $0.key != "mixedMap" } == expected)
        guard case .list(let mixed)? = made.args["mixed"], mixed.count == 3 else {
            Issue.record("mixed: \(String(describing: made.args["mixed"]))")
            return
        }
        #expect(mixed[0].kind == .object)
        #expect(Array(mixed[1...]) == [.string("beside a reference"), .string(String(repeating: "r", count: 65))])
        guard case .map(let mixedMap)? = made.args["mixedMap"] else {
            Issue.record("mixedMap: \(String(describing: made.args["mixedMap"]))")
            return
        }
        #expect(mixedMap["leaf"]?.kind == .object)
        #expect(mixedMap["s"] == .string("short"))
        #expect(mixedMap["n"] == .int(7))
    }

    /// Entries written alike share their slots' keys and kinds (one `PlanShape` per change) and
    /// keep their own values: same keys with other kinds, other orders, tagged lists of different
    /// sizes (another per-create memory size) and singletons among them each get exactly theirs.
    @Test func entriesWrittenAlikeKeepTheirOwnValues() throws {
        let r = Registry()
        try registerWidgets(r, ["W", "Leaf"])
        var yaml = ""
        for i in 0..<20 {
            yaml += "L\(i): {ClassName: Leaf, Tag: \(i % 3 == 0 ? "a" : "b")}\n"
            yaml += "A\(i): {ClassName: W, Dependencies: {n: \(i), s: \"@s\(i)\", ref: L\(i)}}\n"
            yaml += "B\(i): {ClassName: W, Dependencies: {n: \"@\(i)\", s: \(i), ref: L\(i)}}\n"
            yaml += "C\(i): {ClassName: W, Dependencies: {s: \"@s\(i)\", n: \(i), ref: L\(i)}}\n"
            yaml += "T\(i): {ClassName: W, Dependencies: {n: \(i), s: \"@s\(i)\", ref: {Tagged: \(i % 2 == 0 ? "a" : "b")}}}\n"
            yaml += "S\(i): {ClassName: W, Lifestyle: singleton, Dependencies: {n: \(i), s: \"@s\(i)\", ref: L\(i)}}\n"
        }
        try r.load(text: yaml, file: "alike.yaml")
        let members = ["a": (0..<20).filter { $0 % 3 == 0 }.count, "b": (0..<20).filter { $0 % 3 != 0 }.count]
        for i in 0..<20 {
            for name in ["A", "C", "S"] {
                let w = try r.create("\(name)\(i)", as: Widget.self)
                #expect(w.args["n"] == .int(Int64(i)) && w.args["s"] == .string("s\(i)"), "\(name)\(i)")
                #expect(w.children["ref"]?.className == "Leaf")
            }
            let b = try r.create("B\(i)", as: Widget.self)
            #expect(b.args["n"] == .string("\(i)") && b.args["s"] == .int(Int64(i)))
            let t = try r.create("T\(i)", as: Widget.self)
            #expect(t.args["n"] == .int(Int64(i)) && t.args["s"] == .string("s\(i)"))
            guard case .list(let list)? = t.args["ref"] else {
                Issue.record("T\(i): \(String(describing: t.args["ref"]))")
                continue
            }
            #expect(list.count == members[i % 2 == 0 ? "a" : "b"])
        }
    }

    /// Thread records are reused once their thread has exited: a small-stack thread that follows a
    /// default-stack thread still has its own stack guarded (an unbounded nest of creates fails
    /// with `.limit`, it does not overflow) and starts at depth 0.
    @Test func aReusedThreadRecordGuardsTheNewThreadsStack() throws {
        let r = Registry()
        var limits = r.limits
        limits.maxCreateDepth = 100_000_000
        try r.setLimits(limits)
        let calls = Atomic<Int>(0)
        // The innermost failure of each nest (outer levels report their callback failed).
        let codes = Mutex<[ErrorCode]>([])
        try r.register(className: "Nest") { _ in
            calls.add(1, ordering: .relaxed)
            do throws(ConfigError) {
                return try r.create("Nest", as: Widget.self)
            } catch {
                if error.code != .createFailed { codes.withLock { $0.append(error.code) } }
                throw error
            }
        }
        try registerWidgets(r, ["W"])
        try r.load(text: "Nest: Nest\nLeaf: W")
        let ownRecord = Mutex<[Bool]>([])
        for _ in 0..<3 {
            // Four default-stack threads create at the same time (so each holds a record of its
            // own) and exit, leaving four records free for reuse.
            let arrived = Atomic<Int>(0)
            let big = (0..<4).map { _ in
                Thread {
                    _ = try? r.create("Leaf", as: Widget.self)
                    arrived.add(1, ordering: .relaxed)
                    while arrived.load(ordering: .relaxed) < 4 { sched_yield() }
                }
            }
            for t in big { t.join() }
            calls.store(0, ordering: .relaxed)
            let small = Thread(stackSize: 256 << 10) {
                _ = try? r.create("Leaf", as: Widget.self)
                // The record this thread got (one of those just freed) describes this thread.
                let record = CreateNesting.current.pointee
                ownRecord.withLock { $0.append(record.stackLow == StackGuard.lowBound() && record.depth == 0) }
                _ = try? r.create("Nest", as: Widget.self)
            }
            small.join()
            #expect(calls.load(ordering: .relaxed) > 1)
        }
        #expect(ownRecord.withLock { $0 } == [true, true, true])
        #expect(codes.withLock { $0 } == [.limit, .limit, .limit])
        // A new thread starts at depth 0: with the depth limit back at 5, a chain of 5 creates fits.
        limits.maxCreateDepth = 5
        try r.setLimits(limits)
        try r.load(
            text:
                "C0: W\nC1: {ClassName: W, Dependencies: {n: C0}}\nC2: {ClassName: W, Dependencies: {n: C1}}\nC3: {ClassName: W, Dependencies: {n: C2}}\nC4: {ClassName: W, Dependencies: {n: C3}}"
        )
        let made = Mutex<Bool>(false)
        let t = Thread { made.withLock { $0 = (try? r.create("C4", as: Widget.self)) != nil } }
        t.join()
        #expect(made.withLock { $0 })
    }

    /// The name table finds every name by its exact bytes, through the Swift API's `String` door
    /// and the C ABI's NUL-terminated one alike: names of 1 to 40 bytes (every way the table hashes:
    /// up to 3 bytes, 4 to 7, one word, several words, multi-byte UTF-8) that differ only in their
    /// first, middle or last byte or in length each reach their own entry, and near misses
    /// (prefixes, extensions, one byte changed) are not found; a class by convention is looked up
    /// the same way.
    @Test func namesOfEveryLengthFindExactlyTheirEntry() throws {
        let r = Registry()
        try registerWidgets(r, ["W", "Convention\u{e9}"])
        var names: [String] = []
        for length in 1...40 {
            let base = Array((0..<length).map { Character(UnicodeScalar(UInt8(97 + $0 % 26))) })
            for variant in 0..<4 {
                var chars = base
                if variant == 1 { chars[0] = "Z" }
                if variant == 2 { chars[length / 2] = "Y" }
                if variant == 3 { chars[length - 1] = "\u{e9}" }
                let name = String(chars)
                if !names.contains(name) { names.append(name) }
            }
        }
        let text = names.enumerated().map { "\"\($0.element)\": {ClassName: W, Dependencies: {n: \($0.offset)}}" }
            .joined(separator: "\n")
        try r.load(text: text, format: .yaml)
        for (i, name) in names.enumerated() {
            #expect(try r.create(name, as: Widget.self).args["n"] == .int(Int64(i)), "\(name)")
            let viaC = createByCName(r, name)
            #expect((try? viaC.get())?.args["n"] == .int(Int64(i)), "\(name)")
        }
        for miss in [
            "Q", "aQ", "abcQ", "abcdefgQ", "abcdefghQ", "abcdefghijklmnopQ", "ZZ", String(names.last!.dropLast()) + "W",
            names.last! + "a", String(names.last!.dropLast()),
        ]
        where !names.contains(miss) {
            #expect(throws: ConfigError.self) { _ = try r.create(miss, as: Widget.self) }
            if case .failure(let e) = createByCName(r, miss) {
                #expect(e.code == .notFound, "\(miss)")
            } else {
                Issue.record("'\(miss)' was found")
            }
        }
        #expect(try r.create("Convention\u{e9}", as: Widget.self).className == "Convention\u{e9}")
    }

    /// Each thread tries the entry its last create found before hashing the name; that try only
    /// ever finds what the name table would. Checked against: the same C buffer rewritten with
    /// another name (same address, other bytes), names alternating, an entry removed (its index
    /// kept, its name gone), an entry at another index in another registry, names that differ
    /// only in length or last byte, and a name that is no entry (a class by convention, then a
    /// miss) right after a hit.
    @Test func aThreadsLastEntryIsOnlyTried() throws {
        let r = Registry(), other = Registry()
        try registerWidgets(r, ["W", "Loose"])
        try registerWidgets(other, ["W"])
        try r.load(
            text: """
                Ab: {ClassName: W, Dependencies: {n: 0}}
                Ac: {ClassName: W, Dependencies: {n: 1}}
                A: {ClassName: W, Dependencies: {n: 2}}
                """)
        try other.load(text: "Ac: {ClassName: W, Dependencies: {n: 10}}\nAb: {ClassName: W, Dependencies: {n: 11}}")
        func n(_ reg: Registry, _ cName: UnsafePointer<CChar>) -> Value? {
            guard let made = try? reg.create(cName: cName, props: nil) else { return nil }
            return Unmanaged<Widget>.fromOpaque(made.0).takeRetainedValue().args["n"]
        }
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: 8)
        defer { buffer.deallocate() }
        func named(_ text: String) -> UnsafePointer<CChar> {
            _ = text.withCString { strcpy(buffer, $0) }
            return UnsafePointer(buffer)
        }
        #expect(n(r, named("Ab")) == .int(0))
        #expect(n(r, named("Ab")) == .int(0))
        #expect(n(r, named("Ac")) == .int(1))  // same address, another name
        #expect(n(r, named("A")) == .int(2))  // a prefix of the last one
        #expect(n(r, named("Ab")) == .int(0))
        #expect(n(other, named("Ab")) == .int(11))  // another registry, another index
        #expect(n(r, named("Ab")) == .int(0))
        #expect(n(other, named("Ac")) == .int(10))
        #expect(n(r, named("Ac")) == .int(1))
        #expect(n(r, named("Loose")) == nil)  // a class by convention: not a Widget with `n`
        #expect(try r.create("Loose", as: Widget.self).className == "Loose")
        #expect(n(r, named("Ad")) == nil)  // no entry, no class
        #expect(n(r, named("Ac")) == .int(1))
        try r.remove(entriesNamed: ["Ac"])
        #expect(n(r, named("Ac")) == nil)  // removed: its index no longer holds its name
        #expect(expectError { _ = try r.create("Ac", as: Widget.self) }?.code == .notFound)
        #expect(try r.create("Ab", as: Widget.self).args["n"] == .int(0))
        try r.load(text: "Ac: {ClassName: W, Dependencies: {n: 3}}")
        #expect(n(r, named("Ac")) == .int(3))
        #expect(try r.create("Ac", as: Widget.self).args["n"] == .int(3))
    }

    /// `name` created through the C ABI's door (a NUL-terminated name), taken over as a `Widget`.
    private func createByCName(_ r: Registry, _ name: String) -> Result<Widget, CodedError> {
        name.withCString { c in
            do throws(ConfigError) {
                let made = try r.create(cName: c, props: nil)
                return .success(Unmanaged<Widget>.fromOpaque(made.0).takeRetainedValue())
            } catch {
                return .failure(CodedError(code: error.code))
            }
        }
    }

    /// A create made inside a create callback (a nested read of the registry's state) leaves the
    /// calling thread's epoch published until the outermost create returns, then clears it: the
    /// state the outer create reads cannot be freed under it.
    @Test func aNestedCreateKeepsTheOuterEpochUntilTheOuterReturns() throws {
        let r = Registry()
        try registerWidgets(r, ["W"])
        let seen = Mutex<[Bool]>([])
        try r.register(className: "Outer") { args in
            let record = Epoch.currentRecord()
            let before = record._withUnsafeGuaranteedRef { $0.active.load(ordering: .relaxed) }
            _ = try r.create("Inner", as: Widget.self)
            let after = record._withUnsafeGuaranteedRef { $0.active.load(ordering: .relaxed) }
            seen.withLock { $0.append(before != 0 && after == before) }
            return Widget(className: "Outer", args: args)
        }
        try r.load(text: "Inner: W\nOuter: Outer")
        _ = try r.create("Outer", as: Widget.self)
        let outside = Epoch.currentRecord()._withUnsafeGuaranteedRef { $0.active.load(ordering: .relaxed) }
        #expect(seen.withLock { $0 } == [true])
        #expect(outside == 0)
    }

    /// Threads give their reader record back when they exit (the thread-local cache does not keep
    /// it): many short-lived threads, one after another, reuse records instead of adding one each.
    @Test func exitedThreadsGiveTheirRecordsBack() throws {
        let r = Registry()
        try registerWidgets(r, ["W"])
        try r.load(text: "Leaf: W")
        _ = try r.create("Leaf", as: Widget.self)
        let before = Epoch.records.withLock { $0.count }
        for _ in 0..<50 {
            let t = Thread { _ = try? r.create("Leaf", as: Widget.self) }
            t.join()
        }
        // Other tests' threads may hold records meanwhile; 50 threads did not take 50 more.
        #expect(Epoch.records.withLock { $0.count } < before + 25)
    }

    /// Each create writes its thread's `CreateThread` (the nesting depth): threads creating at the
    /// same time have theirs on lines of their own, or their creates slow each other down through
    /// the shared cache line (false sharing).
    @Test func threadsCreatingTogetherWriteNoCommonCacheLine() throws {
        let r = Registry()
        try registerWidgets(r, ["W"])
        try r.load(text: "Leaf: W")
        let arrived = Atomic<Int>(0)
        let blocks = Mutex<[UInt]>([])
        let threads = (0..<4).map { _ in
            Thread {
                _ = try? r.create("Leaf", as: Widget.self)
                blocks.withLock { $0.append(UInt(bitPattern: CreateNesting.current)) }
                arrived.add(1, ordering: .relaxed)
                while arrived.load(ordering: .relaxed) < 4 { sched_yield() }
            }
        }
        for t in threads { t.join() }
        let line = UInt(Epoch.ReaderRecord.threadBlockLine)
        let found = blocks.withLock { $0 }
        #expect(found.count == 4)
        for address in found {
            #expect(address % line == 0)
            #expect(UInt(MemoryLayout<CreateThread>.stride) <= line)
        }
        #expect(Set(found.map { $0 / line }).count == 4)
    }

    /// Leaf arguments (transient entries without dependencies, built on the create path's shortcut)
    /// fail exactly as any other argument: a failing callback names the class, the entry and the
    /// path, and what was built before it is destroyed; a leaf whose class is not registered, and
    /// a leaf one level past the create depth limit, are reported without calling anything.
    @Test func leafArgumentsFailAsAnyOtherArgument() throws {
        let r = Registry()
        let log = CallLog()
        try registerWidgets(r, ["W", "Bad"], log: log, failing: ["Bad"])
        try r.load(
            text: """
                A: W
                B: Bad
                N: {ClassName: W, Dependencies: {a: A, b: B, c: A}}
                U: Unregistered
                M: {ClassName: W, Dependencies: {a: A, u: U}}
                D: {ClassName: W, Dependencies: {n: E}}
                E: {ClassName: W, Dependencies: {a: A}}
                """)
        let failed = expectError { _ = try r.create("N") }
        #expect(failed?.code == .createFailed)
        #expect(
            failed?.description
                == "cannot create 'N' (N -> B): create of class 'Bad' for entry 'B' (defined at <string>:2:1): Bad refuses")
        #expect(log.all == ["W", "Bad", "~W"])
        let unregistered = expectError { _ = try r.create("M") }
        #expect(unregistered?.code == .classNotRegistered)
        #expect(
            unregistered?.description
                == "cannot create 'M' (M -> U): class 'Unregistered' of entry 'U' (defined at <string>:4:1) is not registered: "
                + "register it before creating 'U', or correct the entry's ClassName")
        #expect(log.all == ["W", "Bad", "~W", "W", "~W"])
        var limits = r.limits
        limits.maxCreateDepth = 2
        try r.setLimits(limits)
        let deep = expectError { _ = try r.create("D") }
        #expect(deep?.code == .limit)
        #expect(
            deep?.description.hasPrefix("cannot create 'D' (D -> E -> A): creates nested deeper than the create depth limit of 2")
                == true)
        #expect(
            deep?.description.contains("(CR_LIMIT_CREATE_DEPTH: raise it with cr_registry_set_limit if the config is trusted)")
                == true)
        #expect(log.all == ["W", "Bad", "~W", "W", "~W"])
        limits.maxCreateDepth = 3
        try r.setLimits(limits)
        #expect(try r.create("D", as: Widget.self).children["n"]?.children["a"]?.className == "W")
    }

    /// A leaf asked for by name through the Swift API (built on the create path's shortcut, with
    /// no resolver) is built, fails and is refused exactly as the resolver builds any entry: a new
    /// object each create, props given to it, a singleton once, a failing callback's text with its
    /// class and entry, a class that is not registered named.
    @Test func leavesCreatedByNameThroughTheSwiftAPIBehaveAsAnyEntry() throws {
        let r = Registry()
        let log = CallLog()
        try registerWidgets(r, ["W", "Bad"], log: log, failing: ["Bad"])
        try r.load(
            text: """
                A: W
                B: Bad
                U: Unregistered
                S: {ClassName: W, Lifestyle: singleton}
                """)
        let first = try r.create("A", as: Widget.self)
        let second = try r.create("A", as: Widget.self)
        #expect(first !== second && first.className == "W" && first.args.isEmpty)
        #expect(try r.create("A", props: ["k": 1], as: Widget.self).args == ["k": 1])
        #expect(try r.create("S", as: Widget.self) === r.create("S", as: Widget.self))
        #expect(log.count("W") == 4)
        let failed = expectError { _ = try r.create("B", as: Widget.self) }
        #expect(failed?.code == .createFailed)
        #expect(
            failed?.description == "cannot create 'B': create of class 'Bad' for entry 'B' (defined at <string>:2:1): Bad refuses"
        )
        let unregistered = expectError { _ = try r.create("U", as: Widget.self) }
        #expect(unregistered?.code == .classNotRegistered)
        #expect(
            unregistered?.description
                == "cannot create 'U': class 'Unregistered' of entry 'U' (defined at <string>:3:1) is not registered: "
                + "register it before creating 'U', or correct the entry's ClassName")
        #expect(log.count("W") == 4 && log.count("Bad") == 1)
    }
}
