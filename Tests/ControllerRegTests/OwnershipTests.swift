import ControllerReg
import Synchronization
import Testing

/// What a C-style test receiver does: which keys it takes, whether it then fails, what it took.
private final class Taker: @unchecked Sendable {
    let take: [String]
    let fail: Bool
    let taken = Mutex<[UInt]>([])
    let created = Atomic<Int>(0)
    let destroyed = Atomic<Int>(0)
    init(take: [String], fail: Bool) {
        self.take = take
        self.fail = fail
    }
}

/// The 1.0 ownership rule for classes that own their arguments (C-style `HostClass`): what a
/// callback takes (`ValueRef.takeObject`) is its own for good, even if it then fails; what it did
/// not take is destroyed when it returns, success or failure alike.
@Suite("Ownership of arguments")
struct OwnershipTests {
    private func registry(_ t: Taker) throws -> Registry {
        let r = Registry()
        let context = Unmanaged.passUnretained(t).toOpaque()
        try r.register(
            className: "Leaf",
            HostClass(
                create: { _, c in
                    Unmanaged<Taker>.fromOpaque(c!).takeUnretainedValue().created.add(1, ordering: .relaxed)
                    return UnsafeMutableRawPointer.allocate(byteCount: 8, alignment: 8)
                },
                destroy: { o, c in
                    Unmanaged<Taker>.fromOpaque(c!).takeUnretainedValue().destroyed.add(1, ordering: .relaxed)
                    o.deallocate()
                },
                context: context))
        try r.register(
            className: "Taker",
            HostClass(
                create: { args, c in
                    let t = Unmanaged<Taker>.fromOpaque(c!).takeUnretainedValue()
                    let map = ValueRef(args.assumingMemoryBound(to: RawValue.self))
                    for key in t.take {
                        if let p = map[key]?.takeObject() { t.taken.withLock { $0.append(UInt(bitPattern: p)) } }
                    }
                    return t.fail ? nil : UnsafeMutableRawPointer.allocate(byteCount: 8, alignment: 8)
                },
                destroy: { o, _ in o.deallocate() },
                context: context))
        try r.load(text: "L: Leaf\nT: {ClassName: Taker, Dependencies: {a: L, b: L, more: [L]}}")
        return r
    }

    @Test func whatIsTakenIsTheReceiversAndTheRestIsDestroyed() throws {
        for fail in [false, true] { try takeA(fail: fail) }
    }

    private func takeA(fail: Bool) throws {
        let t = Taker(take: ["a"], fail: fail)
        let r = try registry(t)
        let made = try? r.create("T")
        #expect((made == nil) == fail)
        #expect(t.created.load(ordering: .relaxed) == 3)
        // `b` and the list's leaf were never taken: destroyed, whether create failed or not.
        #expect(t.destroyed.load(ordering: .relaxed) == 2)
        let taken = t.taken.withLock { $0 }
        #expect(taken.count == 1)
        for p in taken { UnsafeMutableRawPointer(bitPattern: p)!.deallocate() }
        made?.deallocate()
    }

    @Test func nothingTakenNothingKept() throws {
        let t = Taker(take: [], fail: false)
        let r = try registry(t)
        try r.create("T").deallocate()
        #expect(t.created.load(ordering: .relaxed) == 3)
        #expect(t.destroyed.load(ordering: .relaxed) == 3)
    }
}
