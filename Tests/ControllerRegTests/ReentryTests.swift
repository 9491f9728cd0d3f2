import ControllerReg
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Host code that calls back into the registry from inside its callbacks.
@Suite("Re-entrant callbacks")
struct ReentryTests {
    /// Singletons whose constructors ask for each other, first asked for from two threads at
    /// once: one thread gets a cycle error naming both instead of both waiting forever.
    @Test func singletonsAskingForEachOtherAcrossThreadsFailWithACycle() throws {
        let r = Registry()
        let met = Atomic<Int>(0)
        let errors = Mutex<[ConfigError]>([])
        for (name, other) in [("A", "B"), ("B", "A")] {
            try r.register(className: "Class\(name)") { _ in
                // Both builders hold their own singleton before either asks for the other.
                if met.add(1, ordering: .relaxed).newValue <= 2 {
                    while met.load(ordering: .relaxed) < 2 { sched_yield() }
                }
                do throws(ConfigError) {
                    return try r.create(other, as: Widget.self)
                } catch {
                    errors.withLock { $0.append(error) }
                    throw error
                }
            }
        }
        try r.load(text: "A: {ClassName: ClassA, Lifestyle: singleton}\nB: {ClassName: ClassB, Lifestyle: singleton}")
        let results = Mutex<[Bool]>([])
        let threads = ["A", "B"].map { name in
            Thread {
                let built = (try? r.create(name, as: Widget.self)) != nil
                results.withLock { $0.append(built) }
            }
        }
        for t in threads { t.join() }
        #expect(results.withLock { $0 } == [false, false])
        let cycles = errors.withLock { $0 }.filter { $0.code == .cycle }
        #expect(!cycles.isEmpty)
        #expect(cycles.contains { $0.description.contains("A -> B -> A") || $0.description.contains("B -> A -> B") })
    }

    /// A class's release runs outside the writer lock, so it may register classes and load.
    @Test func releaseMayCallBackIntoTheRegistry() throws {
        let r = Registry()
        let status = Mutex<[String]>([])
        let old = HostClass(
            create: { _, _ in UnsafeMutableRawPointer(bitPattern: 1) },
            release: {
                do {
                    try registerWidgets(r, ["FromRelease"])
                    try r.load(text: "Made: FromRelease")
                    status.withLock { $0.append("ok") }
                } catch {
                    status.withLock { $0.append("\(error)") }
                }
            })
        try r.register(className: "Swapped", old)
        try r.replaceClass("Swapped", HostClass(create: { _, _ in UnsafeMutableRawPointer(bitPattern: 1) }))
        // The old class goes once no create can still see it (other tests' creates run in
        // parallel, and on a loaded machine one of them can keep its epoch for a while): at the
        // latest in a later change, which must not hang either. Bounded by a minute, not by a
        // count of loads, so a slow host does not fail it.
        var loads = 0
        let giveUp = ContinuousClock.now + .seconds(60)
        while status.withLock({ $0.isEmpty }) && ContinuousClock.now < giveUp {
            try r.load(text: "Unrelated\(loads): Swapped")
            loads += 1
            if loads > 100 { usleep(1000) }
        }
        #expect(status.withLock { $0 } == ["ok"])
        #expect(try r.create("Made", as: Widget.self).className == "FromRelease")
    }

    /// Creates nested inside a constructor count toward the create-depth limit.
    @Test func nestedCreatesCountTowardTheDepthLimit() throws {
        let r = Registry()
        let calls = Atomic<Int>(0)
        let innermost = Mutex<ConfigError?>(nil)
        try r.register(className: "Nest") { _ in
            calls.add(1, ordering: .relaxed)
            do throws(ConfigError) {
                return try r.create("N", as: Widget.self)
            } catch {
                innermost.withLock { if $0 == nil { $0 = error } }
                throw error
            }
        }
        try r.load(text: "N: Nest")
        var limits = r.limits
        limits.maxCreateDepth = 40
        try r.setLimits(limits)
        #expect(throws: ConfigError.self) { try r.create("N") }
        #expect(calls.load(ordering: .relaxed) == 40)
        #expect(innermost.withLock { $0 }?.code == .limit)
    }
}
