/// The Swift API's create of an entry whose class was registered with a Swift closure
/// (`Registry.register(className:create:)`), when its every dependency is a literal or a
/// transient leaf of such a class: the closures are called directly (no C trampoline, no
/// resolver, no ownership records), the arguments map is built in the thread's arguments buffer
/// (`SwiftArgumentImages` says how), and what the receiver did not take over is released when its
/// closure returns.
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

    /// Creates entry `index` of `snapshot` at this thread's depth, without props, when it is a
    /// transient entry of a Swift class whose slots are literals or transient leaves of Swift
    /// classes (see the type's comment); `.refused` otherwise. Its image is read first
    /// (`SwiftArgumentImages`): an entry's first create checks its plan and builds the image
    /// (`createFirst`); every later one starts from the image, which holds what the checks found
    /// (its class's functions, whether it is a leaf), so it reads no plan and no class table. An
    /// entry the path does not take has the image `refused`: one compare. Inlined into the Swift
    /// API's create path.
    @inline(__always)
    static func create(
        _ index: Int, _ snapshot: Snapshot, maxDepth: Int, thread: UnsafeMutablePointer<CreateThread>
    ) -> Outcome {
        let image = SwiftArgumentImages.image(snapshot, index)
        guard image > SwiftArgumentImages.refused else {
            return image == 0 ? createFirst(index, snapshot, maxDepth: maxDepth, thread: thread) : .refused
        }
        return create(
            index, snapshot, image: UnsafeRawPointer(bitPattern: image).unsafelyUnwrapped, maxDepth: maxDepth, thread: thread)
    }

    /// `create` of an entry with an image (`header`): a leaf built here (its closure with the
    /// thread's empty arguments), an entry with slots by `withArguments` (inlined too: its call
    /// and frame cost more than the code it adds to a leaf's create).
    @inline(__always)
    private static func create(
        _ index: Int, _ snapshot: Snapshot, image header: UnsafeRawPointer, maxDepth: Int,
        thread: UnsafeMutablePointer<CreateThread>
    ) -> Outcome {
        let f = header.load(fromByteOffset: SwiftArgumentImages.functionsOffset, as: UnsafePointer<ClassFunctions>.self)
        if header.load(fromByteOffset: SwiftArgumentImages.leafOffset, as: Int.self) == 0 {
            return withArguments(index, snapshot, header, f, maxDepth: maxDepth, thread: thread)
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

    /// `create` of an entry with no image yet in `snapshot`: its plan checked, its image built
    /// and published (`buildImage`, `buildLeafImage`; `refused` when the path does not take it),
    /// then `create` from the image (out of line: once per entry and snapshot).
    @inline(never)
    private static func createFirst(
        _ index: Int, _ snapshot: Snapshot, maxDepth: Int, thread: UnsafeMutablePointer<CreateThread>
    ) -> Outcome {
        let tables = Resolver.Tables(snapshot)
        let plan = tables.plans + index
        let image: UInt
        if plan.pointee.lifestyle == .transient, let f = swiftClass(plan.pointee.classSlot, tables) {
            image = plan.pointee.shape != nil ? buildImage(index, snapshot, plan, f) : buildLeafImage(index, snapshot, f)
        } else {
            image = SwiftArgumentImages.publish(SwiftArgumentImages.refused, snapshot, index)
        }
        guard image > SwiftArgumentImages.refused else { return .refused }
        return create(
            index, snapshot, image: UnsafeRawPointer(bitPattern: image).unsafelyUnwrapped, maxDepth: maxDepth, thread: thread)
    }

    /// `create` of an entry with slots (its image `header`; its class's functions `f`): its
    /// arguments map is the image's slots (`SwiftArgumentImages`: every slot checked, each literal
    /// written when the image was built; nothing called yet, so a refusal costs nothing but the
    /// reads) in the thread's arguments buffer, copied there unless the buffer holds them already
    /// (in this frame when a create of this thread is using the buffer: a closure's nested
    /// create); then `build`. (Always inlined: node5 1,500 -> 1,491 instructions, leaf 527 -> 526.)
    @inline(__always)
    private static func withArguments(
        _ index: Int, _ snapshot: Snapshot, _ header: UnsafeRawPointer, _ f: UnsafePointer<ClassFunctions>,
        maxDepth: Int, thread: UnsafeMutablePointer<CreateThread>
    ) -> Outcome {
        withImageArguments(
            header, maxDepth: maxDepth, thread: thread,
            inFrame: { depth in withArgumentsInFrame(index, snapshot, f, header, depth: depth, thread: thread) }
        ) { args, slots, depth in
            build(index, snapshot, f, args: args, slots: slots, image: header, depth: depth, thread: thread)
        }
    }

    /// The arguments map of a create from an image (`header`), for both doors that have images
    /// (this one and `HostArgumentsCreate`): refused at the depth limit of the entry and, one level
    /// down, its leaves, or without stack room (nothing called yet); else `build(args, slots,
    /// depth)` over the image's slots in the thread's arguments buffer, copied there unless the
    /// buffer holds them already, or `inFrame(depth)` while a create of this thread is using the
    /// buffer (a callback's nested create; `inFrameArguments`, out of line).
    @inline(__always)
    static func withImageArguments(
        _ header: UnsafeRawPointer, maxDepth: Int, thread: UnsafeMutablePointer<CreateThread>,
        inFrame: (Int) -> Outcome,
        _ build: (UnsafeMutablePointer<RawValue>, UnsafeMutablePointer<RawMapSlot>, Int) -> Outcome
    ) -> Outcome {
        let depth = thread.pointee.depth
        guard depth &+ header.load(fromByteOffset: SwiftArgumentImages.leafDepthOffset, as: Int.self) < maxDepth,
            thread.pointee.hasStackRoom()
        else { return .refused }
        let serial = header.load(fromByteOffset: SwiftArgumentImages.serialOffset, as: UInt64.self)
        let held = thread.pointee.argumentsSerial
        guard held != 0 else { return inFrame(depth) }
        thread.pointee.argumentsSerial = 0
        let buffer = CreateThread.argumentsBuffer(thread)
        let slots = (buffer + CreateThread.argumentsSlotsOffset).assumingMemoryBound(to: RawMapSlot.self)
        if held != serial { copySlots(slots, header) }
        let outcome = build(buffer.assumingMemoryBound(to: RawValue.self), slots, depth)
        thread.pointee.argumentsSerial = serial
        return outcome
    }

    /// `build(args, slots)` over a copy of `image`'s slots in this frame's memory: the arguments
    /// map of a create nested in a callback while the thread's buffer is in use.
    @inline(__always)
    static func inFrameArguments(
        _ image: UnsafeRawPointer, _ build: (UnsafeMutablePointer<RawValue>, UnsafeMutablePointer<RawMapSlot>) -> Outcome
    ) -> Outcome {
        _withUnprotectedUnsafeTemporaryAllocation(byteCount: CreateThread.argumentsBufferBytes, alignment: 16) {
            buffer -> Outcome in
            let base = buffer.baseAddress.unsafelyUnwrapped
            let slots = (base + CreateThread.argumentsSlotsOffset).assumingMemoryBound(to: RawMapSlot.self)
            copySlots(slots, image)
            return build(base.assumingMemoryBound(to: RawValue.self), slots)
        }
    }

    /// `withArguments` while the thread's arguments buffer is in use: the arguments map in this
    /// frame (out of line: only a create nested in a closure of a create with slots comes here).
    @inline(never)
    private static func withArgumentsInFrame(
        _ index: Int, _ snapshot: Snapshot, _ f: UnsafePointer<ClassFunctions>,
        _ image: UnsafeRawPointer, depth: Int, thread: UnsafeMutablePointer<CreateThread>
    ) -> Outcome {
        inFrameArguments(image) { args, slots in
            build(index, snapshot, f, args: args, slots: slots, image: image, depth: depth, thread: thread)
        }
    }

    /// Copies the slots of `image` to `slots`.
    @inline(__always)
    private static func copySlots(_ slots: UnsafeMutablePointer<RawMapSlot>, _ image: UnsafeRawPointer) {
        let count = Int(truncatingIfNeeded: image.load(fromByteOffset: SwiftArgumentImages.mapHeadOffset, as: UInt64.self) >> 32)
        UnsafeMutableRawPointer(slots).copyMemory(
            from: image + SwiftArgumentImages.slotsOffset, byteCount: count &* MemoryLayout<RawMapSlot>.stride)
    }

    /// Writes the arguments map's value to `args`: its first word (kind, flags, hint, count) from
    /// `image`, then `slots`, then 0.
    @inline(__always)
    static func writeMap(
        _ args: UnsafeMutablePointer<RawValue>, slots: UnsafeMutablePointer<RawMapSlot>, image: UnsafeRawPointer
    ) {
        let map = UnsafeMutableRawPointer(args)
        map.storeBytes(
            of: image.load(fromByteOffset: SwiftArgumentImages.mapHeadOffset, as: UInt64.self), as: UInt64.self)
        map.storeBytes(of: UInt64(UInt(bitPattern: slots)), toByteOffset: 8, as: UInt64.self)
        map.storeBytes(of: 0, toByteOffset: 16, as: UInt64.self)
    }

    /// Builds entry `index` from `slots`, a copy of its `image`'s (each leaf slot rewritten here
    /// before any closure reads it): each leaf's closure is called in slot order (its class's
    /// functions read from the image), then the entry's own with `args`, the map of `slots`; what
    /// its closure did not take over (`ValueRef.take(as:)`) is released, last built first.
    @inline(__always)
    private static func build(
        _ index: Int, _ snapshot: Snapshot, _ f: UnsafePointer<ClassFunctions>,
        args: UnsafeMutablePointer<RawValue>, slots: UnsafeMutablePointer<RawMapSlot>, image: UnsafeRawPointer,
        depth: Int, thread: UnsafeMutablePointer<CreateThread>
    ) -> Outcome {
        let leaves = image.load(as: UInt64.self)
        let savedDepth = depth
        if leaves != 0 {
            let empty = CreateThread.emptyArguments(thread)
            let imageSlots = UnsafeMutablePointer<RawMapSlot>(
                mutating: (image + SwiftArgumentImages.slotsOffset).assumingMemoryBound(to: RawMapSlot.self))
            var rest = leaves
            // Each leaf's closure runs one level below the entry's (set once: a create a closure
            // starts puts the depth back before it returns).
            thread.pointee.depth = depth &+ 2
            repeat {
                let i = rest.trailingZeroBitCount
                // `writeSlots` left the leaf's class functions in its value's payload in the image.
                let leaf = UnsafePointer<ClassFunctions>(bitPattern: UInt(valueOf(imageSlots + i).pointee.a))
                    .unsafelyUnwrapped
                // The value's header and last word before the call, its object after: only the
                // value's address is kept across the call (fewer registers spilled per leaf).
                let value = UnsafeMutableRawPointer(valueOf(slots + i))
                value.storeBytes(of: leaf.pointee.objectHeader, as: UInt64.self)
                value.storeBytes(of: 0, toByteOffset: 16, as: UInt64.self)
                HostFailure.clear()
                do {
                    let object = try SwiftClassBox.create(context: leaf.pointee.context, empty)
                    value.storeBytes(of: UInt64(UInt(bitPattern: object)), toByteOffset: 8, as: UInt64.self)
                } catch {
                    return .failed(
                        leafFailed(
                            error, index, snapshot, slots, leaves: leaves, failed: rest, thread: thread,
                            depth: savedDepth))
                }
                rest &= rest &- 1
            } while rest != 0
        }
        writeMap(args, slots: slots, image: image)
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

    /// The failure of `build` when the closure of the lowest leaf left in `failed` (a bit per leaf
    /// slot) threw `error`: reported, the thread's depth put back to the entry's `depth`, the leaves
    /// built before it released (out of line: the leaf loop keeps nothing across its calls for it).
    @inline(never)
    private static func leafFailed(
        _ error: any Error, _ index: Int, _ snapshot: Snapshot, _ slots: UnsafeMutablePointer<RawMapSlot>,
        leaves: UInt64, failed: UInt64, thread: UnsafeMutablePointer<CreateThread>, depth: Int
    ) -> CreateFailure {
        reportFailure(error)
        let plan = Resolver.Tables(snapshot).plans + index
        let i = failed.trailingZeroBitCount
        let shape = plan.pointee.shape.unsafelyUnwrapped
        let target = Int(PlanSlot(head: shape.heads[i], payload: plan.pointee.payloads.unsafelyUnwrapped[i]).target)
        let failure = within(index, snapshot, Resolver.leafFailed(target, snapshot))
        thread.pointee.depth = depth
        release(slots, leaves & (1 &<< i &- 1))
        return failure
    }

    /// Builds and publishes the `SwiftArgumentImages` image of entry `index` (`plan`, a transient
    /// entry with slots of the Swift class whose functions are `f`) of `snapshot`: its header and
    /// `writeSlots` into fresh memory, or `refused` when it has more than
    /// `SwiftArgumentImages.maxSlots` slots or a slot is neither a literal nor a transient leaf of
    /// a Swift class (out of line: once per entry and snapshot).
    /// For `door` `.host` (`HostArgumentsCreate`), a leaf may be of any registered class.
    @inline(never)
    static func buildImage(
        _ index: Int, _ snapshot: Snapshot, _ plan: UnsafePointer<EntryPlan>, _ f: UnsafePointer<ClassFunctions>,
        door: SwiftArgumentImages.Door = .swift
    ) -> UInt {
        let count = plan.pointee.shape.unsafelyUnwrapped.count
        guard count > 0, count <= SwiftArgumentImages.maxSlots else {
            return SwiftArgumentImages.publish(SwiftArgumentImages.refused, snapshot, index, door: door)
        }
        let memory = SwiftArgumentImages.allocate(slots: count)
        let slots = (memory + SwiftArgumentImages.slotsOffset).bindMemory(to: RawMapSlot.self, capacity: count)
        // The depth limit is checked by each create (it may change); here only what the snapshot fixes.
        guard
            let leaves = writeSlots(
                slots, plan.pointee.shape.unsafelyUnwrapped, plan.pointee.payloads.unsafelyUnwrapped,
                Resolver.Tables(snapshot), count: count, leafDepth: 0, maxDepth: 1, door: door)
        else {
            memory.deallocate()
            return SwiftArgumentImages.publish(SwiftArgumentImages.refused, snapshot, index, door: door)
        }
        memory.storeBytes(of: leaves, as: UInt64.self)
        memory.storeBytes(
            of: SwiftArgumentImages.nextSerial(), toByteOffset: SwiftArgumentImages.serialOffset, as: UInt64.self)
        var map = RawValue.argumentsMap(nil, count: count)
        assert(MemoryLayout<RawValue>.offset(of: \RawValue.count) == 4, "RawValue layout changed")
        memory.storeBytes(
            of: withUnsafeBytes(of: &map) { $0.load(as: UInt64.self) }, toByteOffset: SwiftArgumentImages.mapHeadOffset,
            as: UInt64.self)
        memory.storeBytes(of: leaves != 0 ? 1 : 0, toByteOffset: SwiftArgumentImages.leafDepthOffset, as: Int.self)
        memory.storeBytes(of: f, toByteOffset: SwiftArgumentImages.functionsOffset, as: UnsafePointer<ClassFunctions>.self)
        memory.storeBytes(of: 0, toByteOffset: SwiftArgumentImages.leafOffset, as: Int.self)
        return SwiftArgumentImages.publish(UInt(bitPattern: memory), snapshot, index, door: door)
    }

    /// Builds and publishes the `SwiftArgumentImages` image of entry `index` of `snapshot`, a
    /// transient leaf (no slots) of the Swift class whose functions are `f`: a header only, with
    /// `f` and the leaf mark (out of line: once per entry and snapshot).
    @inline(never)
    private static func buildLeafImage(_ index: Int, _ snapshot: Snapshot, _ f: UnsafePointer<ClassFunctions>) -> UInt {
        let memory = SwiftArgumentImages.allocate(slots: 0)
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: SwiftArgumentImages.slotsOffset)
        memory.storeBytes(of: f, toByteOffset: SwiftArgumentImages.functionsOffset, as: UnsafePointer<ClassFunctions>.self)
        memory.storeBytes(of: 1, toByteOffset: SwiftArgumentImages.leafOffset, as: Int.self)
        return SwiftArgumentImages.publish(UInt(bitPattern: memory), snapshot, index)
    }

    /// The functions of class `slot` when it is registered (has a `create`), else nil: what the
    /// C ABI's door (`HostArgumentsCreate`) calls.
    @inline(__always)
    static func registeredClass(_ slot: Int32, _ tables: Resolver.Tables) -> UnsafePointer<ClassFunctions>? {
        // One unsigned compare covers a negative slot too.
        let slot = Int(slot)
        guard UInt(bitPattern: slot) < UInt(bitPattern: tables.functions.count) else { return nil }
        let f = tables.functions + slot
        return f.pointee.create == nil ? nil : f
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
    /// nor a reference to a transient leaf of a Swift class (for `door` `.host`, of any registered
    /// class) that `leafDepth` allows.
    @inline(__always)
    private static func writeSlots(
        _ slots: UnsafeMutablePointer<RawMapSlot>, _ shape: PlanShape, _ payloads: UnsafePointer<UInt64>,
        _ tables: Resolver.Tables, count: Int, leafDepth: Int, maxDepth: Int, door: SwiftArgumentImages.Door
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
                    let leaf = door == .swift
                        ? swiftClass(target.pointee.classSlot, tables) : registeredClass(target.pointee.classSlot, tables)
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
    static func within(_ index: Int, _ snapshot: Snapshot, _ failure: CreateFailure) -> CreateFailure {
        var failure = failure
        failure.path.insert(Resolver.entryName(index, snapshot), at: 0)
        return failure
    }

    /// The value field of a map slot.
    @inline(__always)
    static func valueOf(_ slot: UnsafeMutablePointer<RawMapSlot>) -> UnsafeMutablePointer<RawValue> {
        (UnsafeMutableRawPointer(slot) + MemoryLayout<UnsafePointer<UInt8>>.size + MemoryLayout<Int>.size)
            .assumingMemoryBound(to: RawValue.self)
    }
}
