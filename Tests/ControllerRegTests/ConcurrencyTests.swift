import ControllerReg
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Threads")
struct ConcurrencyTests {
    @Test func createsRaceWithLoadsAndRegistrationsAndSeeWholeStates() throws {
        let r = Registry()
        try registerWidgets(r, ["W"])
        try r.load(text: "A: {ClassName: W, Dependencies: {v: 0, b: B}}\nB: W")
        let stop = Atomic<Bool>(false)
        let bad = Atomic<Int>(0)
        let creates = Atomic<Int>(0)
        let threads = (0..<4).map { _ in
            Thread {
                while !stop.load(ordering: .relaxed) {
                    do {
                        let w = try r.create("A", as: Widget.self)
                        if w.children["b"] == nil || w.args["v"] != .int(0) { bad.add(1, ordering: .relaxed) }
                        creates.add(1, ordering: .relaxed)
                    } catch {
                        bad.add(1, ordering: .relaxed)
                    }
                }
            }
        }
        for i in 0..<200 {
            try r.load(text: "N\(i): {ClassName: W\(i), Dependencies: {a: A}}")
            try registerWidgets(r, ["W\(i)"])
            _ = try r.create("N\(i)", as: Widget.self)
        }
        stop.store(true, ordering: .relaxed)
        for t in threads { t.join() }
        #expect(bad.load(ordering: .relaxed) == 0)
        #expect(creates.load(ordering: .relaxed) > 0)
        #expect(r.entries.count == 202)
    }
}

/// A joinable pthread running a closure.
final class Thread: @unchecked Sendable {
    private var handle = pthread_t()
    private let body: @Sendable () -> Void

    /// Starts `body` on a new thread (with a stack of `stackSize` bytes when given).
    init(stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
        self.body = body
        let context = Unmanaged.passRetained(self).toOpaque()
        var attr = pthread_attr_t()
        pthread_attr_init(&attr)
        defer { pthread_attr_destroy(&attr) }
        if let stackSize { pthread_attr_setstacksize(&attr, stackSize) }
        pthread_create(
            &handle, &attr,
            { raw in
                let t = Unmanaged<Thread>.fromOpaque(raw!).takeRetainedValue()
                t.body()
                return nil
            }, context)
    }

    func join() { pthread_join(handle, nil) }
}
