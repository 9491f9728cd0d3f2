/// The Swift API's create of an entry whose class was registered with a Swift closure
/// (`Registry.register(className:create:)`), when its every dependency is a literal or a
/// transient leaf of such a class: the closures are called directly (no C trampoline, no
/// resolver, no ownership records), the arguments map is built in this frame, and what the
/// receiver did not take over is released when its closure returns.
///
/// It does what `Resolver.build` does for the same entry, in the same order, with the same
/// depth accounting, failures and messages: anything it does not cover is `.refused` before a
/// closure is called, and the resolver builds it. Only `Registry.createReference` (the Swift
/// API's door) takes it; the C ABI's door never reaches it.
enum SwiftClassCreate {
    /// What `create` did.
    enum Outcome {
        /// Built: the object, retained for the caller.
        case built(UnsafeMutableRawPointer)
        /// Not attempted, nothing called: the resolver builds it or says why.
        case refused
        /// A closure threw: the failure as the resolver reports it.
        case failed(CreateFailure)
    }

    /// The most dependency slots this path builds (its arguments map lives in a fixed frame; its
    /// leaves are one bit each of a word).
    private static var maxSlots: Int { 16 }

    /// Creates entry `index` of `snapshot` at this thread's depth, without props, when it is a
    /// transient entry of a Swift class whose slots are literals or transient leaves of Swift
    /// classes (see the type's comment); `.refused` otherwise. A leaf is built here (inlined into
    /// the Swift API's create path); an entry with slots out of line (`withArguments`).
    @inline(__always)
    static func create(
        _ index: Int, _ snapshot: Snapshot, maxDepth: Int, thread: UnsafeMutablePointer<CreateThread>
    ) -> Outcome {
        let tables = Resolver.Tables(snapshot)
        let plan = tables.plans + index
        guard plan.pointee.lifestyle == .transient, let f = swiftClass(plan.pointee.classSlot, tables) else {
            return .refused
        }
        if plan.pointee.shape != nil {
            return withArguments(index, snapshot, UnsafePointer(plan), f, maxDepth: maxDepth, thread: thread)
        }
        // A leaf: its closure with the thread's empty arguments.
        let depth = thread.pointee.depth
        guard depth < maxDepth, thread.pointee.hasStackRoom() else { return .refused }
        HostFailure.clear()
        do {
            let object = try CreateNesting.callingHost(thread, at: depth) {
                () throws -> UnsafeMutableRawPointer in
                try SwiftClassBox.create(context: f.pointee.context, CreateThread.emptyArguments(thread))
            }
            return .built(object)
        } catch {
            reportFailure(error)
            return .failed(Resolver.leafFailed(index, snapshot))
        }
    }

    /// `create` of an entry with slots (`plan`'s; its class's functions `f`): first its arguments
    /// map is copied from the entry's image (`SwiftArgumentImages`, built by its first create in
    /// this snapshot: every slot checked, each literal written; nothing called yet, so a refusal
    /// costs nothing but the reads), then each leaf's closure is called in slot order, then the
    /// entry's own; what its closure did not take over (`ValueRef.take(as:)`) is released, last
    /// built first.
    @inline(never)
    private static func withArguments(
        _ index: Int, _ snapshot: Snapshot, _ plan: UnsafePointer<EntryPlan>, _ f: UnsafePointer<ClassFunctions>,
        maxDepth: Int, thread: UnsafeMutablePointer<CreateThread>
    ) -> Outcome {
        let tables = Resolver.Tables(snapshot)
        let shape = plan.pointee.shape.unsafelyUnwrapped
        let depth = thread.pointee.depth
        guard depth < maxDepth, thread.pointee.hasStackRoom() else { return .refused }
        let count = shape.count
        guard count > 0, count <= maxSlots else { return .refused }
        // The arguments map's value, then its slots.
        let bytes = MemoryLayout<RawValue>.stride &+ maxSlots &* MemoryLayout<RawMapSlot>.stride
        return _withUnprotectedUnsafeTemporaryAllocation(byteCount: bytes, alignment: 16) { buffer -> Outcome in
            let base = buffer.baseAddress.unsafelyUnwrapped
            let args = base.bindMemory(to: RawValue.self, capacity: 1)
            let slots = (base + MemoryLayout<RawValue>.stride).bindMemory(to: RawMapSlot.self, capacity: count)
            var image = SwiftArgumentImages.image(snapshot, index)
            if image == 0 { image = buildImage(index, snapshot, plan, tables, count: count) }
            guard image != SwiftArgumentImages.refused else { return .refused }
            let imageBase = UnsafeRawPointer(bitPattern: image).unsafelyUnwrapped
            let leaves = imageBase.load(as: UInt64.self)
            // A leaf is built one level down: refused at the depth limit (nothing called yet).
            guard leaves == 0 || depth &+ 1 < maxDepth else { return .refused }
            UnsafeMutableRawPointer(slots).copyMemory(
                from: imageBase + SwiftArgumentImages.slotsOffset, byteCount: count &* MemoryLayout<RawMapSlot>.stride)
            let savedDepth = depth
            if leaves != 0 {
                let empty = CreateThread.emptyArguments(thread)
                var rest = leaves
                repeat {
                    let i = rest.trailingZeroBitCount
                    rest &= rest &- 1
                    let value = valueOf(slots + i)
                    // `writeSlots` left the leaf's class functions in its value's payload.
                    let leaf = UnsafePointer<ClassFunctions>(bitPattern: UInt(value.pointee.a)).unsafelyUnwrapped
                    HostFailure.clear()
                    do {
                        let object = try CreateNesting.callingHostUnrestored(thread, at: depth &+ 1) {
                            () throws -> UnsafeMutableRawPointer in
                            try SwiftClassBox.create(context: leaf.pointee.context, empty)
                        }
                        RawValue.initializeObject(value, object, header: leaf.pointee.objectHeader)
                    } catch {
                        reportFailure(error)
                        let target = Int(
                            PlanSlot(head: shape.heads[i], payload: plan.pointee.payloads.unsafelyUnwrapped[i]).target)
                        let failure = within(index, snapshot, Resolver.leafFailed(target, snapshot))
                        thread.pointee.depth = savedDepth
                        release(slots, leaves & (1 &<< i &- 1))
                        return .failed(failure)
                    }
                } while rest != 0
            }
            args.initialize(to: .argumentsMap(UnsafePointer(slots), count: count))
            HostFailure.clear()
            let object: UnsafeMutableRawPointer
            do {
                object = try CreateNesting.callingHostUnrestored(thread, at: depth) {
                    () throws -> UnsafeMutableRawPointer in
                    try SwiftClassBox.create(context: f.pointee.context, UnsafeRawPointer(args))
                }
            } catch {
                reportFailure(error)
                let failure = within(index, snapshot, Resolver.createFailed(index, snapshot))
                thread.pointee.depth = savedDepth
                release(slots, leaves)
                return .failed(failure)
            }
            thread.pointee.depth = savedDepth
            release(slots, leaves)
            return .built(object)
        }
    }

    /// Builds and publishes the `SwiftArgumentImages` image of entry `index` (`plan`, with
    /// `count` slots) of `snapshot`: `writeSlots` into fresh memory, or `refused` when a slot is
    /// neither a literal nor a transient leaf of a Swift class (out of line: once per entry and
    /// snapshot).
    @inline(never)
    private static func buildImage(
        _ index: Int, _ snapshot: Snapshot, _ plan: UnsafePointer<EntryPlan>, _ tables: Resolver.Tables, count: Int
    ) -> UInt {
        let memory = SwiftArgumentImages.allocate(slots: count)
        let slots = (memory + SwiftArgumentImages.slotsOffset).bindMemory(to: RawMapSlot.self, capacity: count)
        // The depth limit is checked by each create (it may change); here only what the snapshot fixes.
        guard
            let leaves = writeSlots(
                slots, plan.pointee.shape.unsafelyUnwrapped, plan.pointee.payloads.unsafelyUnwrapped, tables,
                count: count, leafDepth: 0, maxDepth: 1)
        else {
            memory.deallocate()
            return SwiftArgumentImages.publish(SwiftArgumentImages.refused, snapshot, index)
        }
        memory.storeBytes(of: leaves, as: UInt64.self)
        return SwiftArgumentImages.publish(UInt(bitPattern: memory), snapshot, index)
    }

    /// The functions of class `slot` when it is registered and makes Swift objects, else nil.
    @inline(__always)
    private static func swiftClass(_ slot: Int32, _ tables: Resolver.Tables) -> UnsafePointer<ClassFunctions>? {
        // One unsigned compare covers a negative slot too.
        let slot = Int(slot)
        guard UInt(bitPattern: slot) < UInt(bitPattern: tables.functions.count) else { return nil }
        let f = tables.functions + slot
        // The tag is set only for a registered class made by `HostClass.swift` (whose `create`
        // is never nil; its context is its `SwiftClassBox`).
        guard RawValue.tag(ofHeader: f.pointee.objectHeader) & RawValue.swiftObject != 0 else { return nil }
        return f
    }

    /// Writes the `count` map slots of an entry's arguments: each literal whole, each leaf's key
    /// (its value's payload holding the leaf class's functions until it is built). Returns a bit
    /// per leaf slot, or nil (nothing called, nothing to undo) when a slot is neither a literal
    /// nor a reference to a transient leaf of a Swift class that `leafDepth` allows.
    @inline(__always)
    private static func writeSlots(
        _ slots: UnsafeMutablePointer<RawMapSlot>, _ shape: PlanShape, _ payloads: UnsafePointer<UInt64>,
        _ tables: Resolver.Tables, count: Int, leafDepth: Int, maxDepth: Int
    ) -> UInt64? {
        var leaves: UInt64 = 0
        let heads = shape.heads
        var i = 0
        repeat {
            let s = PlanSlot(head: heads[i], payload: payloads[i])
            let d = slots + i
            if s.isLiteral {
                s.storeLiteralMapSlot(at: d)
            } else {
                guard s.op == .reference, leafDepth < maxDepth else { return nil }
                let target = tables.plans + Int(s.target)
                guard target.pointee.lifestyle == .transient, target.pointee.shape == nil,
                    let leaf = swiftClass(target.pointee.classSlot, tables)
                else { return nil }
                s.storeKey(at: d)
                valueOf(d).pointee.a = UInt64(UInt(bitPattern: leaf))
                leaves |= 1 &<< UInt64(i)
            }
            i &+= 1
        } while i < count
        return leaves
    }

    /// Releases the objects of the `leaves` slots (a bit each) that their receiver did not take
    /// over (`RawValue.Flags.moved`), last first, as `Resolver.settle` does for a class that
    /// borrows its arguments (a Swift class's destroy is a release).
    @inline(__always)
    private static func release(_ slots: UnsafeMutablePointer<RawMapSlot>, _ leaves: UInt64) {
        var rest = leaves
        while rest != 0 {
            let i = 63 &- rest.leadingZeroBitCount
            rest &= ~(1 &<< UInt64(i))
            let v = valueOf(slots + i)
            if v.pointee.flags & RawValue.Flags.moved == 0 {
                Unmanaged<AnyObject>.fromOpaque(v.pointee.pointerA.unsafelyUnwrapped).release()
            }
        }
    }

    /// `failure` of an argument or of the callback of entry `index`, with `index` first in its
    /// chain (as `Resolver.build` reports it).
    @inline(never)
    private static func within(_ index: Int, _ snapshot: Snapshot, _ failure: CreateFailure) -> CreateFailure {
        var failure = failure
        failure.path.insert(Resolver.entryName(index, snapshot), at: 0)
        return failure
    }

    /// The value field of a map slot.
    @inline(__always)
    private static func valueOf(_ slot: UnsafeMutablePointer<RawMapSlot>) -> UnsafeMutablePointer<RawValue> {
        (UnsafeMutableRawPointer(slot) + MemoryLayout<UnsafePointer<UInt8>>.size + MemoryLayout<Int>.size)
            .assumingMemoryBound(to: RawValue.self)
    }
}
