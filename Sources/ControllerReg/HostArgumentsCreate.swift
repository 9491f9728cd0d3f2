/// The C ABI's create of a transient entry whose every dependency is a literal or a transient
/// leaf of a registered class, without props: its arguments map starts from the entry's image
/// (`SwiftArgumentImages`, the C ABI's table: `Door.host`), so the literals are written once per
/// entry and snapshot instead of once per create, and only the leaves are built; each object the
/// callback did not take (`cr_value_object`) is destroyed when it returns, last built first.
///
/// It does what `Resolver.buildArguments` does for the same entry, in the same order, with the
/// same depth accounting, failures and messages: anything it does not cover (another slot, props,
/// the depth limit, the stack) is `.refused` before a callback is called, and the resolver builds
/// it or says why. Only the C ABI's door (`Registry.createOutcome` with `inlineArguments`) takes
/// it; the Swift API's has `SwiftClassCreate`.
enum HostArgumentsCreate {
    /// Creates entry `index` of `snapshot`, whose image is `image` (`SwiftArgumentImages.image`
    /// with `Door.host`: 0 when none was built yet), at this thread's depth, as the type's comment
    /// says, or `.refused`. `destroyer`, when given, receives the class's destroy once the object
    /// is built. An entry's first create builds its image (`createFirst`); an entry the path does
    /// not take has the image `refused`, which its caller tests before calling.
    @inline(__always)
    static func create(
        _ index: Int, _ snapshot: Snapshot, image: UInt, maxDepth: Int, thread: UnsafeMutablePointer<CreateThread>,
        destroyer: UnsafeMutablePointer<Destroyer>?
    ) -> SwiftClassCreate.Outcome {
        guard image > SwiftArgumentImages.refused else {
            return image == 0
                ? createFirst(index, snapshot, maxDepth: maxDepth, thread: thread, destroyer: destroyer) : .refused
        }
        return create(
            index, snapshot, image: UnsafeRawPointer(bitPattern: image).unsafelyUnwrapped, maxDepth: maxDepth,
            thread: thread, destroyer: destroyer)
    }

    /// `create` of an entry with no image yet in `snapshot`: a transient entry with slots of a
    /// registered class gets one (`SwiftClassCreate.buildImage`, `refused` when a slot is neither
    /// a literal nor a transient leaf of a registered class), any other entry `refused`; then
    /// `create` from the image (out of line: once per entry and snapshot).
    @inline(never)
    private static func createFirst(
        _ index: Int, _ snapshot: Snapshot, maxDepth: Int, thread: UnsafeMutablePointer<CreateThread>,
        destroyer: UnsafeMutablePointer<Destroyer>?
    ) -> SwiftClassCreate.Outcome {
        let tables = Resolver.Tables(snapshot)
        let plan = tables.plans + index
        let image: UInt
        if plan.pointee.lifestyle == .transient, plan.pointee.shape != nil,
            let f = SwiftClassCreate.registeredClass(plan.pointee.classSlot, tables)
        {
            image = SwiftClassCreate.buildImage(index, snapshot, plan, f, door: .host)
        } else {
            image = SwiftArgumentImages.publish(SwiftArgumentImages.refused, snapshot, index, door: .host)
        }
        guard image > SwiftArgumentImages.refused else { return .refused }
        return create(
            index, snapshot, image: UnsafeRawPointer(bitPattern: image).unsafelyUnwrapped, maxDepth: maxDepth,
            thread: thread, destroyer: destroyer)
    }

    /// `create` of an entry with an image (`header`): refused at the depth limit or without stack
    /// room (nothing called yet); its arguments map is the image's slots in the thread's arguments
    /// buffer, copied there unless the buffer holds them already (in this frame when a create of
    /// this thread is using the buffer: a callback's nested create); then `build`.
    @inline(__always)
    private static func create(
        _ index: Int, _ snapshot: Snapshot, image header: UnsafeRawPointer, maxDepth: Int,
        thread: UnsafeMutablePointer<CreateThread>, destroyer: UnsafeMutablePointer<Destroyer>?
    ) -> SwiftClassCreate.Outcome {
        SwiftClassCreate.withImageArguments(
            header, maxDepth: maxDepth, thread: thread,
            inFrame: { depth in createInFrame(index, snapshot, header, depth: depth, thread: thread, destroyer: destroyer) }
        ) { args, slots, depth in
            build(index, snapshot, args: args, slots: slots, image: header, depth: depth, thread: thread, destroyer: destroyer)
        }
    }

    /// `create` while the thread's arguments buffer is in use: the arguments map in this frame
    /// (out of line: only a create nested in a callback of a create with slots comes here).
    @inline(never)
    private static func createInFrame(
        _ index: Int, _ snapshot: Snapshot, _ image: UnsafeRawPointer, depth: Int,
        thread: UnsafeMutablePointer<CreateThread>, destroyer: UnsafeMutablePointer<Destroyer>?
    ) -> SwiftClassCreate.Outcome {
        SwiftClassCreate.inFrameArguments(image) { args, slots in
            build(index, snapshot, args: args, slots: slots, image: image, depth: depth, thread: thread, destroyer: destroyer)
        }
    }

    /// Builds entry `index` from `slots`, a copy of its `image`'s (each leaf slot rewritten here
    /// before any callback reads it): each leaf's callback in slot order, one level below the
    /// entry's, then the entry's own with `args`, the map of `slots`; then `release`.
    @inline(__always)
    private static func build(
        _ index: Int, _ snapshot: Snapshot, args: UnsafeMutablePointer<RawValue>,
        slots: UnsafeMutablePointer<RawMapSlot>, image: UnsafeRawPointer, depth: Int,
        thread: UnsafeMutablePointer<CreateThread>, destroyer: UnsafeMutablePointer<Destroyer>?
    ) -> SwiftClassCreate.Outcome {
        let leaves = image.load(as: UInt64.self)
        let imageSlots = (image + SwiftArgumentImages.slotsOffset).assumingMemoryBound(to: RawMapSlot.self)
        if leaves != 0 {
            let empty = CreateThread.emptyArguments(thread)
            var rest = leaves
            // Each leaf's callback runs one level below the entry's (set once: a create a callback
            // starts puts the depth back before it returns).
            thread.pointee.depth = depth &+ 2
            repeat {
                let i = rest.trailingZeroBitCount
                let leaf = leafClass(imageSlots, i)
                // The value's header and last word before the call, its object after: only the
                // value's address is kept across the call.
                let value = UnsafeMutableRawPointer(SwiftClassCreate.valueOf(slots + i))
                value.storeBytes(of: leaf.pointee.objectHeader, as: UInt64.self)
                value.storeBytes(of: 0, toByteOffset: 16, as: UInt64.self)
                HostFailure.clear()
                guard let object = leaf.pointee.create.unsafelyUnwrapped(empty, leaf.pointee.context) else {
                    return .failed(
                        leafFailed(index, snapshot, slots, imageSlots, leaves: leaves, failed: rest, thread: thread, depth: depth)
                    )
                }
                value.storeBytes(of: UInt64(UInt(bitPattern: object)), toByteOffset: 8, as: UInt64.self)
                rest &= rest &- 1
            } while rest != 0
        }
        SwiftClassCreate.writeMap(args, slots: slots, image: image)
        let f = image.load(fromByteOffset: SwiftArgumentImages.functionsOffset, as: UnsafePointer<ClassFunctions>.self)
        HostFailure.clear()
        guard
            let object = CreateNesting.callingHostUnrestored(
                thread, at: depth, { f.pointee.create.unsafelyUnwrapped(UnsafeRawPointer(args), f.pointee.context) })
        else {
            let failure = SwiftClassCreate.within(index, snapshot, Resolver.createFailed(index, snapshot))
            thread.pointee.depth = depth
            release(slots, imageSlots, leaves, f)
            return .failed(failure)
        }
        thread.pointee.depth = depth
        release(slots, imageSlots, leaves, f)
        if let destroyer { destroyer.pointee = Destroyer(f) }
        return .built(object)
    }

    /// The functions of the class of leaf slot `i` (`SwiftClassCreate.writeSlots` left them in the
    /// payload of the slot's value in the image).
    @inline(__always)
    private static func leafClass(_ imageSlots: UnsafePointer<RawMapSlot>, _ i: Int) -> UnsafePointer<ClassFunctions> {
        UnsafePointer<ClassFunctions>(
            bitPattern: UInt(SwiftClassCreate.valueOf(UnsafeMutablePointer(mutating: imageSlots) + i).pointee.a)
        ).unsafelyUnwrapped
    }

    /// The failure of `build` when the callback of the lowest leaf left in `failed` (a bit per leaf
    /// slot) returned NULL: the thread's depth put back to the entry's `depth`, the leaves built
    /// before it destroyed (out of line: the leaf loop keeps nothing across its calls for it).
    @inline(never)
    private static func leafFailed(
        _ index: Int, _ snapshot: Snapshot, _ slots: UnsafeMutablePointer<RawMapSlot>,
        _ imageSlots: UnsafePointer<RawMapSlot>, leaves: UInt64, failed: UInt64, thread: UnsafeMutablePointer<CreateThread>,
        depth: Int
    ) -> CreateFailure {
        let plan = Resolver.Tables(snapshot).plans + index
        let i = failed.trailingZeroBitCount
        let shape = plan.pointee.shape.unsafelyUnwrapped
        let target = Int(PlanSlot(head: shape.heads[i], payload: plan.pointee.payloads.unsafelyUnwrapped[i]).target)
        let failure = SwiftClassCreate.within(index, snapshot, Resolver.leafFailed(target, snapshot))
        thread.pointee.depth = depth
        let f = (image(of: imageSlots) + SwiftArgumentImages.functionsOffset).load(as: UnsafePointer<ClassFunctions>.self)
        release(slots, imageSlots, leaves & (1 &<< UInt64(i) &- 1), f)
        return failure
    }

    /// The image whose slots begin at `imageSlots`.
    @inline(__always)
    private static func image(of imageSlots: UnsafePointer<RawMapSlot>) -> UnsafeRawPointer {
        UnsafeRawPointer(imageSlots) - SwiftArgumentImages.slotsOffset
    }

    /// Destroys the objects of the `leaves` slots (a bit each) that the entry's callback (its
    /// class's functions `f`) did not take, last first, as `Resolver.settle` does: not taken
    /// (`cr_value_object`), or, for a class that borrows its arguments (a Swift class's), not
    /// taken over (`ValueRef.take(as:)`); each by its leaf's class's destroy.
    @inline(__always)
    private static func release(
        _ slots: UnsafeMutablePointer<RawMapSlot>, _ imageSlots: UnsafePointer<RawMapSlot>, _ leaves: UInt64,
        _ f: UnsafePointer<ClassFunctions>
    ) {
        var rest = leaves
        guard rest != 0 else { return }
        let owning = f.pointee.borrowsArguments ? RawValue.Flags.moved : RawValue.Flags.taken
        repeat {
            let i = 63 &- rest.leadingZeroBitCount
            rest &= ~(1 &<< UInt64(i))
            let v = SwiftClassCreate.valueOf(slots + i)
            if v.pointee.flags & owning == 0 {
                let leaf = leafClass(imageSlots, i)
                leaf.pointee.destroy?(v.pointee.pointerA.unsafelyUnwrapped, leaf.pointee.context)
            }
        } while rest != 0
    }
}
