import Synchronization
import Testing

@testable import ControllerReg

/// `ValueRef.take(as:)`: a Swift class's closure takes over the objects built for it (no retain,
/// no release by the registry), reads each such argument once, and only reads what is not its
/// own (singletons, props, shared `graph` objects). Every object is destroyed exactly once, when
/// its last holder lets go, whatever the closure does.
@Suite("Swift API take(as:)")
struct TakeObjectTests {
    final class Part: @unchecked Sendable {
        let log: CallLog
        let name: String
        init(_ name: String, _ log: CallLog) {
            self.name = name
            self.log = log
        }
        deinit { log.record("~" + name) }
    }
    final class Holder: @unchecked Sendable {
        let part: Part?
        init(_ part: Part?) { self.part = part }
    }
    final class Other {}

    /// One registry: `Part` classes `P` (transient), `S` (singleton), `G` (graph); `take` is what
    /// the holder's closure does with its `part` argument.
    private func registry(
        _ log: CallLog, config: String, take: @escaping @Sendable (ValueRef) throws -> Holder
    ) throws -> Registry {
        let r = Registry()
        try r.register(className: "Part") { args in Part(args["name"]?.string ?? "?", log) }
        try r.register(className: "Holder") { args in try take(args) }
        try r.load(text: config)
        return r
    }

    /// The object built for the holder is the holder's after `take(as:)`: alive while the holder
    /// is, destroyed once after it; a second read of the argument (take, object(as:), object,
    /// value) finds nothing.
    @Test func takeHandsOverAndTheArgumentReadsAsNothing() throws {
        let log = CallLog()
        let seen = Mutex<[String]>([])
        let r = try registry(
            log, config: "P: {ClassName: Part, Dependencies: {name: \"@p\"}}\nH: {ClassName: Holder, Dependencies: {part: P}}"
        ) { args in
            let v = args["part"]!
            let part = v.take(as: Part.self)
            var after: [String] = []
            if v.take(as: Part.self) != nil { after.append("take") }
            if v.object(as: Part.self) != nil { after.append("object(as:)") }
            if v.object != nil { after.append("object") }
            if case .object = v.value { after.append("value") }
            seen.withLock { $0 = after }
            return Holder(part)
        }
        var holder: Holder? = try r.create("H", as: Holder.self)
        #expect(holder?.part?.name == "p")
        #expect(seen.withLock { $0 } == [])
        #expect(log.count("~p") == 0, "the taken part lives as long as its holder")
        holder = nil
        #expect(log.count("~p") == 1, "and is destroyed once, with it")
    }

    /// A part taken and dropped by the closure is destroyed once (by the closure's release), and
    /// one taken by a closure that then throws too: the registry releases neither again.
    @Test func aTakenObjectDroppedOrThrownAwayIsDestroyedOnce() throws {
        for throwing in [false, true] {
            let log = CallLog()
            let r = try registry(
                log, config: "P: {ClassName: Part, Dependencies: {name: \"@p\"}}\nH: {ClassName: Holder, Dependencies: {part: P}}"
            ) { args in
                let part = args["part"]?.take(as: Part.self)
                if throwing, part != nil { throw TestFailure(message: "holder refuses") }
                return Holder(nil)
            }
            let error = expectError { _ = try r.create("H", as: Holder.self) }
            #expect((error != nil) == throwing)
            #expect(log.count("~p") == 1, "throwing: \(throwing)")
        }
    }

    /// Not taken, an object built for the holder is released by the registry when the closure
    /// returns, as before `take(as:)`; taken as the wrong type it is left to the registry too.
    @Test func anObjectNotTakenOrOfAnotherTypeIsReleasedByTheRegistry() throws {
        for wrongType in [false, true] {
            let log = CallLog()
            let r = try registry(
                log, config: "P: {ClassName: Part, Dependencies: {name: \"@p\"}}\nH: {ClassName: Holder, Dependencies: {part: P}}"
            ) { args in
                if wrongType { #expect(args["part"]?.take(as: Other.self) == nil) }
                return Holder(nil)
            }
            _ = try r.create("H", as: Holder.self)
            #expect(log.count("~p") == 1, "wrong type: \(wrongType)")
        }
    }

    /// A singleton, an object from the caller's props and a `graph` object shared by two holders
    /// are only read by `take(as:)`: each stays alive for its other holders and is destroyed once.
    @Test func objectsThatAreNotTheReceiversAreOnlyRead() throws {
        let log = CallLog()
        let r = try registry(
            log,
            config: """
                S: {ClassName: Part, Lifestyle: singleton, Dependencies: {name: \"@s\"}}
                G: {ClassName: Part, Lifestyle: graph, Dependencies: {name: \"@g\"}}
                HS: {ClassName: Holder, Dependencies: {part: S}}
                HG: {ClassName: Holder, Dependencies: {part: G}}
                Pair: {ClassName: Holder, Dependencies: {part: HG, other: HG}}
                HP: Holder
                """
        ) { args in
            if let h = args["part"]?.take(as: Holder.self) {
                // Pair: both holders share one graph part.
                let other = args["other"]?.take(as: Holder.self)
                #expect(h.part != nil && h.part === other?.part)
                return Holder(h.part)
            }
            let part = args["part"]?.take(as: Part.self)
            #expect(args["part"]?.object(as: Part.self) === part, "a shared object still reads")
            return Holder(part)
        }
        var a: Holder? = try r.create("HS", as: Holder.self)
        var b: Holder? = try r.create("HS", as: Holder.self)
        #expect(a?.part != nil && a?.part === b?.part)
        a = nil
        b = nil
        #expect(log.count("~s") == 0, "the registry keeps its singleton")

        var pair: Holder? = try r.create("Pair", as: Holder.self)
        #expect(pair?.part?.name == "g")
        #expect(log.count("~g") == 0)
        pair = nil
        #expect(log.count("~g") == 1)

        var mine: Part? = Part("mine", log)
        var held: Holder? = try r.create("HP", props: ["part": .object(ObjectReference(mine!))], as: Holder.self)
        #expect(held?.part === mine)
        held = nil
        #expect(log.count("~mine") == 0, "the caller's object stays the caller's")
        mine = nil
        #expect(log.count("~mine") == 1)
    }
}
