/// Why a create failed, with the chain of entries being built when it did.
struct CreateFailure: Error {
    var code: ErrorCode
    var message: String
    var path: [String] = []
    /// The name probably meant (a registered class close to an unregistered one), or nil.
    var suggestion: String? = nil

    /// A parent's answer when a child's view asks it by name for an inherited singleton entry it
    /// no longer has: a removal the parent published before the child published its own new
    /// view. An `{Optional: ...}` slot or a tagged list of that older view takes it as the entry's
    /// absence (null, or one member fewer), as the new view would (`isNoLongerIn`).
    static func noLongerIn(parentNamed name: String) -> CreateFailure {
        CreateFailure(code: .notFound, message: "no entry named '\(name)'")
    }

    /// Whether this is `noLongerIn(parentNamed: name)` itself, not a failure of a create nested in
    /// it (those name their entries in `path`).
    func isNoLongerIn(parentNamed name: String) -> Bool {
        code == .notFound && path.isEmpty && message == CreateFailure.noLongerIn(parentNamed: name).message
    }

    /// The error hosts see: "cannot create 'A' (A -> B): message".
    func error(for name: String) -> ConfigError {
        let chain = path.count > 1 ? " (\(path.joined(separator: " -> ")))" : ""
        return ConfigError([Diagnostic(code, "cannot create '\(name)'\(chain): \(message)", suggestion: suggestion)])
    }
}

/// Walks compiled plans depth-first, calling host constructors, honouring lifestyles.
///
/// Ownership bookkeeping (one rule, success or failure alike): every object and provider built for
/// a consumer's arguments is recorded in that consumer's `Work` with where its value lives. An
/// object the consumer's callback took (`ValueRef.takeObject`, `cr_value_object`) is its own for
/// good; everything it did not take is destroyed (providers released) when the callback returns,
/// or when the call fails before reaching it. A `graph` object goes to its first receiver if that
/// one takes it; otherwise it is destroyed when the whole call ends. A class that borrows its
/// arguments (Swift closures, which retain what they keep) takes only what its closure took over
/// with `ValueRef.take(as:)`.
struct Resolver {
    /// Unretained: every resolver lives inside a `SnapshotCell.read`, which keeps it alive.
    unowned(unsafe) let snapshot: Snapshot
    unowned(unsafe) let registry: Registry
    let maxDepth: Int
    /// The calling thread's nesting depth and stack bound (a resolver never leaves its thread).
    let thread: UnsafeMutablePointer<CreateThread>
    /// The snapshot's plans and class functions, as pointers read once per create.
    let tables: Tables
    /// `graph` objects built in this call.
    private var graph = GraphObjects()

    init(snapshot: Snapshot, registry: Registry, maxDepth: Int) {
        self.init(snapshot: snapshot, registry: registry, maxDepth: maxDepth, thread: CreateNesting.current)
    }

    /// A resolver for a caller that already holds this thread's create record (`SnapshotCell.read`).
    @inline(__always)
    init(snapshot: Snapshot, registry: Registry, maxDepth: Int, thread: UnsafeMutablePointer<CreateThread>) {
        self.snapshot = snapshot
        self.registry = registry
        self.maxDepth = maxDepth
        self.thread = thread
        tables = Tables(snapshot)
    }

    struct GraphObject {
        var index: Int32
        var object: UnsafeMutableRawPointer
        var classSlot: Int32
        var owned: Bool
    }

    /// What a consumer's arguments hold that it may have to own, destroy or release.
    struct Held {
        enum Kind: UInt8 { case object, graph, provider }
        var kind: Kind
        var object: UnsafeMutableRawPointer
        /// Class slot for objects, index into `graph` for graph objects.
        var slot: Int32
        /// The argument value that carries it, whose `taken` flag says whether the receiver took it.
        var value: UnsafeMutablePointer<RawValue>
    }

    /// The value field of a map slot in scratch memory.
    @inline(__always)
    private static func valueOf(_ slot: UnsafeMutablePointer<RawMapSlot>) -> UnsafeMutablePointer<RawValue> {
        (UnsafeMutableRawPointer(slot) + valueOffset).assumingMemoryBound(to: RawValue.self)
    }
    /// The offset of `RawMapSlot.value` (after the key pointer and length), as a constant rather
    /// than a lazily initialised global, which would cost a `swift_once` on every access.
    @inline(__always)
    private static var valueOffset: Int {
        let offset = MemoryLayout<UnsafePointer<UInt8>>.size + MemoryLayout<Int>.size
        assert(offset == MemoryLayout<RawMapSlot>.offset(of: \RawMapSlot.value)!, "RawMapSlot layout changed")
        return offset
    }

    // MARK: Entry points

    /// Creates entry `index` for a caller: singletons come from their cell (and take no props),
    /// everything else is built. Returns the object, whether the registry owns it, and its tag
    /// (`RawValue.swiftObject` for a Swift object, else 0: `ClassFunctions.objectTag`). `depth`: where
    /// the create starts (by default, this thread's nesting in host callbacks).
    ///
    /// With `inlineArguments` (the create path's own call, `Registry.createOutcome`), an entry with
    /// arguments is built in the caller's frame (`build`), and `destroyer` (given only with it)
    /// receives how to destroy an object that is not a singleton, from the class functions the
    /// build holds (`buildTop`).
    @inline(__always)
    mutating func createEntry(
        _ index: Int, props: UnsafePointer<RawValue>?, depth: Int? = nil, inlineArguments: Bool = false,
        destroyer: UnsafeMutablePointer<Destroyer>? = nil
    ) throws(CreateFailure) -> (UnsafeMutableRawPointer, Bool, UInt16) {
        defer { finishGraph() }
        let depth = depth ?? thread.pointee.depth
        let plan = tables.plans[index]
        if plan.lifestyle == .singleton {
            if let props, props.pointee.count > 0 {
                throw CreateFailure(
                    code: .invalidArgument,
                    message: "'\(entryName(index))' is a singleton, built once from its config: it takes no props"
                        + " (create it without props, or give the entry another Lifestyle to build one per create)",
                    path: [entryName(index)])
            }
            let (object, tag) = try singleton(index, depth: depth)
            return (object, true, tag)
        }
        // The tag only for the Swift API's door (the C ABI's, with `inlineArguments`, reads none).
        if inlineArguments { return (try buildTop(index, props: props, depth: depth, destroyer: destroyer), false, 0) }
        let built = try build(index, props: props, depth: depth)
        return (built.object, false, RawValue.tag(ofHeader: built.header))
    }

    /// An object a build made, with its class's `ClassFunctions.objectHeader` (what an argument
    /// holding it starts with: `RawValue.initializeObject`).
    typealias Built = (object: UnsafeMutableRawPointer, header: UInt64)

    /// Creates an object of class `slot` with `props` (or nothing) as its arguments (convention
    /// over configuration: a name with no entry).
    func createClass(_ slot: Int, props: UnsafePointer<RawValue>?) throws(CreateFailure) -> UnsafeMutableRawPointer {
        let f = snapshot.classes.functions[slot]
        guard let create = f.create else {
            throw CreateFailure(code: .classNotRegistered, message: "class '\(snapshot.classes.names[slot])' is not registered")
        }
        let depth = thread.pointee.depth
        try checkDepth(depth, classSlot: slot)
        HostFailure.clear()
        // The callback gets a borrowed view of the props, never the caller's root itself (which it
        // could otherwise modify or free).
        // With props that have a key index, the trailer before the view says so (`IndexedLookup`).
        var view: (trailer: RawValue, map: RawValue) = (RawValue.null, emptyArgumentsMap.pointee)
        if let props {
            view.map = RawValue.argumentsMap(
                props.pointee.mapSlots.map { UnsafePointer($0) }, count: Int(props.pointee.count),
                hinted: RawValue.hintable(props: props))
            if IndexedLookup.indexes(props: props) {
                view.trailer = IndexedLookup.propsTrailer(props, start: 0)
                view.map.flags = RawValue.Flags.indexedProps
            }
        }
        let made = withUnsafeMutablePointer(to: &view) { pair in
            let v = UnsafeMutableRawPointer(pair).assumingMemoryBound(to: RawValue.self) + 1
            return CreateNesting.callingHost(thread, at: depth) { create(UnsafeRawPointer(v), f.context) }
        }
        guard let object = made else {
            let reason = HostFailure.take().map { ": \($0)" } ?? " returned NULL"
            throw CreateFailure(code: .createFailed, message: "create of class '\(snapshot.classes.names[slot])'\(reason)")
        }
        return object
    }

    /// Applies entry `index`'s dependencies to `object` through its class's `set`, key by key.
    mutating func inject(_ index: Int, into object: UnsafeMutableRawPointer) throws(CreateFailure) {
        defer { finishGraph() }
        let plan = snapshot.entries.plans[index]
        let functions = try classFunctions(index)
        guard let set = functions.set else {
            throw CreateFailure(
                code: .invalidArgument,
                message:
                    "class '\(className(index))' of entry '\(entryName(index))' has no set callback, so nothing can be injected",
                path: [entryName(index)])
        }
        let count = Int(plan.slotCount)
        guard count > 0 else { return }
        let depth = thread.pointee.depth
        try checkDepth(depth, entry: index)
        let valueBytes = count * MemoryLayout<RawValue>.stride
        let total = valueBytes + Int(plan.extraBytes)
        try withUnsafeTemporaryAllocation(byteCount: total, alignment: 16) { (buffer) throws(CreateFailure) in
            let base = buffer.baseAddress!
            let values = base.bindMemory(to: RawValue.self, capacity: count)
            var work = Work(scratch: base + valueBytes, end: base + total)
            do throws(CreateFailure) {
                for i in 0..<count {
                    try evaluate(plan.slot(i), into: values + i, &work, depth: depth)
                }
            } catch {
                settle(&work, borrows: functions.borrowsArguments)
                var failure = error
                failure.path.insert(entryName(index), at: 0)
                throw failure
            }
            for i in 0..<count {
                let s = plan.slot(i)
                HostFailure.clear()
                let status = CreateNesting.callingHost(thread, at: depth) {
                    set(
                        object, UnsafeRawPointer(s.key).assumingMemoryBound(to: CChar.self), UnsafeRawPointer(values + i),
                        functions.context)
                }
                if status != 0 {
                    // What earlier keys took is the object's; everything else is destroyed.
                    settle(&work, borrows: functions.borrowsArguments)
                    let key = String(decoding: UnsafeBufferPointer(start: s.key, count: s.keyLength), as: UTF8.self)
                    let reason = HostFailure.take().map { ": \($0)" } ?? ""
                    throw CreateFailure(
                        code: .createFailed,
                        message:
                            "set of key '\(key)' of class '\(className(index))' for entry '\(entryName(index))'\(Resolver.definedAt(index, snapshot)) failed\(reason)",
                        path: [entryName(index)])
                }
            }
            settle(&work, borrows: functions.borrowsArguments)
        }
    }

    // MARK: Building

    private func entryName(_ index: Int) -> String { Resolver.entryName(index, snapshot) }

    static func entryName(_ index: Int, _ snapshot: Snapshot) -> String {
        snapshot.entries.isLive(index) ? snapshot.entries.name(at: index) : "#\(index)"
    }

    private func className(_ index: Int) -> String { Resolver.className(index, snapshot) }

    private static func className(_ index: Int, _ snapshot: Snapshot) -> String {
        let slot = Int(snapshot.entries.plans[index].classSlot)
        return slot >= 0 && slot < snapshot.classes.names.count ? snapshot.classes.names[slot] : "?"
    }

    /// The functions of entry `index`'s class (inlined: the failure is built out of line).
    @inline(__always)
    private func classFunctions(_ index: Int) throws(CreateFailure) -> ClassFunctions {
        try registeredClass(index).pointee
    }

    /// Where the functions of entry `index`'s class are in the snapshot's class table (valid as
    /// long as the snapshot), once they are known to have a `create`.
    @inline(__always)
    private func registeredClass(_ index: Int) throws(CreateFailure) -> UnsafePointer<ClassFunctions> {
        let slot = Int(tables.plans[index].classSlot)
        guard UInt(bitPattern: slot) < UInt(bitPattern: tables.functions.count), tables.functions[slot].create != nil else {
            throw Resolver.classNotRegistered(index, snapshot)
        }
        return tables.functions + slot
    }

    /// The failure for entry `index` whose class has no create: names the class, the entry and
    /// where its config defines it, the registered class closest to the name, and the fix.
    @inline(never)
    private static func classNotRegistered(_ index: Int, _ snapshot: Snapshot) -> CreateFailure {
        let name = className(index, snapshot), entry = entryName(index, snapshot)
        let classes = snapshot.classes
        let registered = (0..<classes.count).lazy.filter { classes.functions[$0].create != nil }.map { classes.names[$0] }
        let suggestion = Suggestions.closest(to: name, in: registered)
        return CreateFailure(
            code: .classNotRegistered,
            message: "class '\(name)' of entry '\(entry)'\(definedAt(index, snapshot)) is not registered"
                + "\(Suggestions.hint(suggestion)): register it before creating '\(entry)', or correct the entry's ClassName",
            path: [entry], suggestion: suggestion)
    }

    /// Fails when a create of entry `index` at `depth` (references, and creates made from host
    /// callbacks on this thread, all count) would pass the depth limit or run this thread's stack
    /// out. (No closure for the name: one capturing the resolver copied it on every create.)
    @inline(__always)
    private func checkDepth(_ depth: Int, entry index: Int) throws(CreateFailure) {
        if depth >= maxDepth || !thread.pointee.hasStackRoom() {
            throw Resolver.tooDeep(depth, maxDepth, name: Resolver.entryName(index, snapshot))
        }
    }

    /// `checkDepth` for a create of class `slot` (a name with no entry).
    @inline(__always)
    private func checkDepth(_ depth: Int, classSlot slot: Int) throws(CreateFailure) {
        if depth >= maxDepth || !thread.pointee.hasStackRoom() {
            throw Resolver.tooDeep(depth, maxDepth, name: snapshot.classes.names[slot])
        }
    }

    /// `checkDepth`'s failure for `name` (out of line): the depth limit, else the stack.
    @inline(never)
    private static func tooDeep(_ depth: Int, _ maxDepth: Int, name: String) -> CreateFailure {
        if depth >= maxDepth {
            return CreateFailure(
                code: .limit,
                message:
                    "creates nested deeper than the create depth limit of \(maxDepth) (references, and creates made inside create callbacks or through providers on this thread, all count)"
                    + ConfigLimits.fix("CR_LIMIT_CREATE_DEPTH"),
                path: [name])
        }
        return CreateFailure(
            code: .limit,
            message: "creates nested too deeply for this thread's stack (at depth \(depth))"
                + StackGuard.fix("shorten the chain of references"),
            path: [name])
    }

    /// The singleton of entry `index`, built (in a call of its own) on first use, with its tag
    /// (`RawValue.swiftObject` when the class that built it makes Swift objects).
    private func singleton(_ index: Int, depth: Int) throws(CreateFailure) -> (UnsafeMutableRawPointer, UInt16) {
        let plan = snapshot.entries.plans[index]
        let unmanagedCell = Unmanaged<SingletonCell>.fromOpaque(plan.singletonCell)
        // The hit: one atomic load, no reference counting.
        if let v = unmanagedCell._withUnsafeGuaranteedRef({ $0.tagged }) { return v }
        let cell = unmanagedCell.takeUnretainedValue()
        if let owner = snapshot.entries.owner(of: index) {
            // Inherited from a parent: built there, with the parent's names, and owned by it.
            return try Unmanaged<Registry>.fromOpaque(owner).takeUnretainedValue().singleton(
                named: entryName(index), depth: depth)
        }
        if cell.isBeingBuiltByThisThread {
            throw CreateFailure(
                code: .cycle,
                message:
                    "singleton '\(entryName(index))' was asked for while it is being built (a create callback re-entered it)",
                path: [entryName(index)])
        }
        let snapshot = self.snapshot, registry = self.registry, maxDepth = self.maxDepth, thread = self.thread
        return try cell.obtain { () throws(CreateFailure) -> (UnsafeMutableRawPointer, UInt16) in
            var own = Resolver(snapshot: snapshot, registry: registry, maxDepth: maxDepth, thread: thread)
            defer { own.finishGraph() }
            let (object, header) = try own.build(index, props: nil, depth: depth)
            let slot = Int(plan.classSlot)
            if let record = snapshot.classes.records[slot] { registry.adoptSingleton(object, record, cell: cell) }
            return (object, RawValue.tag(ofHeader: header))
        }
    }

    /// Builds entry `index` afresh (whatever its lifestyle); props (a map or nil) are merged over
    /// its dependencies.
    ///
    /// Inlined into its callers: an object without arguments (a leaf) is built right here; one
    /// with arguments in `buildWithArguments`, whose frame holds their scratch memory.
    @inline(__always)
    mutating func build(
        _ index: Int, props: UnsafePointer<RawValue>?, depth: Int
    ) throws(CreateFailure) -> Built {
        let functions = try registeredClass(index)
        try checkDepth(depth, entry: index)
        let propsCount = props.map { Int($0.pointee.count) } ?? 0
        if tables.plans[index].shape != nil || propsCount != 0 {
            return try buildWithArguments(index, props: props, propsCount: propsCount, functions, depth: depth)
        }
        return try buildLeafHere(index, functions, depth: depth)
    }

    /// `build` of a create's top entry (`createEntry` with `inlineArguments`): an entry with
    /// arguments is built right here too (`buildWithArgumentsInline`), saving a call and a frame's
    /// set-up per create. (A function of its own, not a flag of `build`: `build` is reached again
    /// from the arguments' slots, and always-inlined functions must not form a cycle.) Returns the
    /// object; `destroyer`, when given, receives its class's destroy once it is built (from the
    /// class functions in hand: no second look-up of the entry's class).
    @inline(__always)
    mutating func buildTop(
        _ index: Int, props: UnsafePointer<RawValue>?, depth: Int, destroyer: UnsafeMutablePointer<Destroyer>?
    ) throws(CreateFailure) -> UnsafeMutableRawPointer {
        let functions = try registeredClass(index)
        try checkDepth(depth, entry: index)
        let propsCount = props.map { Int($0.pointee.count) } ?? 0
        if tables.plans[index].shape != nil || propsCount != 0 {
            return try buildWithArgumentsInline(
                index, props: props, propsCount: propsCount, functions, depth: depth, destroyer: destroyer
            ).object
        }
        // A leaf reaches this only when `createLeaf` refused it (its caller's first try).
        let object = try buildLeafOutOfLine(index, functions, depth: depth).object
        if let destroyer { destroyer.pointee = Destroyer(functions) }
        return object
    }

    /// `buildLeafHere`, out of line (`buildTop`'s rare leaf).
    @inline(never)
    private func buildLeafOutOfLine(
        _ index: Int, _ functions: UnsafePointer<ClassFunctions>, depth: Int
    ) throws(CreateFailure) -> Built {
        try buildLeafHere(index, functions, depth: depth)
    }

    /// `build` of a leaf (no slots, no props) whose class and depth were checked.
    @inline(__always)
    private func buildLeafHere(
        _ index: Int, _ functions: UnsafePointer<ClassFunctions>, depth: Int
    ) throws(CreateFailure) -> Built {
        let create = functions.pointee.create.unsafelyUnwrapped
        HostFailure.clear()
        let empty = CreateThread.emptyArguments(thread)
        let context = functions.pointee.context
        guard let object = CreateNesting.callingHost(thread, at: depth, { create(empty, context) }) else {
            var failure = createFailed(index)
            failure.path = [entryName(index)]
            throw failure
        }
        return (object, functions.pointee.objectHeader)
    }

    /// Bytes of scratch memory every `buildWithArguments` frame has (a fixed size, so no size is
    /// computed for it): an arguments map of up to 7 slots with the ownership records of 2 objects
    /// fits; larger ones get memory of their size.
    private static var argumentsOnStack: Int { 384 }

    /// `build` of an entry with dependency slots or props: the arguments map is built in scratch
    /// memory of this frame, the callback called, and what it did not take settled.
    @inline(never)
    private mutating func buildWithArguments(
        _ index: Int, props: UnsafePointer<RawValue>?, propsCount: Int, _ f: UnsafePointer<ClassFunctions>, depth: Int
    ) throws(CreateFailure) -> Built {
        try buildWithArgumentsInline(index, props: props, propsCount: propsCount, f, depth: depth, destroyer: nil)
    }

    /// `buildWithArguments`, inlined into its caller (`destroyer`: see `buildArguments`).
    @inline(__always)
    private mutating func buildWithArgumentsInline(
        _ index: Int, props: UnsafePointer<RawValue>?, propsCount: Int, _ f: UnsafePointer<ClassFunctions>, depth: Int,
        destroyer: UnsafeMutablePointer<Destroyer>?
    ) throws(CreateFailure) -> Built {
        let (count, slotBytes, total) = argumentsLayout(index, propsCount: propsCount)
        if total > Resolver.argumentsOnStack {
            return try buildLargeArguments(index, props: props, propsCount: propsCount, f, depth: depth, destroyer: destroyer)
        }
        return try _withUnprotectedUnsafeTemporaryAllocation(byteCount: Resolver.argumentsOnStack, alignment: 16) {
            (small) throws(CreateFailure) -> Built in
            try buildArguments(
                in: small.baseAddress!, index, props: props, propsCount: propsCount, f, depth: depth, count: count,
                slotBytes: slotBytes, total: total, indexedProps: false, indexCapacity: 0, destroyer: destroyer)
        }
    }

    /// The arguments map's layout for entry `index` with `propsCount` props: its plan's slot count,
    /// the bytes of all its slots, and the bytes of the whole map with its ownership records and
    /// per-call lists (what `buildArguments` lays out). Sizes of a few slots: no overflow checks.
    @inline(__always)
    private func argumentsLayout(_ index: Int, propsCount: Int) -> (count: Int, slotBytes: Int, total: Int) {
        let plan = tables.plans[index]
        let count = plan.shape.map { $0.count } ?? 0
        let extra = plan.shape.map { Int($0.extraBytes) } ?? 0
        let slotBytes = (count &+ propsCount) &* MemoryLayout<RawMapSlot>.stride
        return (count, slotBytes, MemoryLayout<RawValue>.stride &+ slotBytes &+ extra)
    }

    /// `buildWithArguments` of a map too large for the stack buffer, in memory of its size, with
    /// room before it for the trailer that says which key index covers it (`IndexedLookup`; a map
    /// small enough for the stack has neither many slots nor props with an index): the props'
    /// own, or, for an entry with many dependencies, one of the whole map
    /// (`IndexedLookup.argumentsIndexCapacity`), its slots then laid out in room for that many
    /// with the index after them. Out of line: the common path keeps none of it.
    @inline(never)
    private mutating func buildLargeArguments(
        _ index: Int, props: UnsafePointer<RawValue>?, propsCount: Int, _ f: UnsafePointer<ClassFunctions>, depth: Int,
        destroyer: UnsafeMutablePointer<Destroyer>?
    ) throws(CreateFailure) -> Built {
        var (count, slotBytes, total) = argumentsLayout(index, propsCount: propsCount)
        let indexedProps = IndexedLookup.indexes(props: props)
        let capacity = IndexedLookup.argumentsIndexCapacity(dependencies: count, props: propsCount, indexedProps: indexedProps)
        if capacity != 0 {
            let bytes = capacity &* MemoryLayout<RawMapSlot>.stride &+ HeapMapIndex.bytes(capacity: capacity)
            total = total &- slotBytes &+ bytes
            slotBytes = bytes
        }
        let before = IndexedLookup.bytesBeforeArguments
        return try _withUnprotectedUnsafeTemporaryAllocation(byteCount: before &+ total, alignment: 16) {
            (buffer) throws(CreateFailure) -> Built in
            try buildArguments(
                in: buffer.baseAddress! + before, index, props: props, propsCount: propsCount, f, depth: depth,
                count: count, slotBytes: slotBytes, total: total, indexedProps: indexedProps, indexCapacity: capacity,
                destroyer: destroyer)
        }
    }

    /// `buildWithArguments` in `total` bytes of scratch memory at `base`: the arguments map (its
    /// value, then `count` plan slots and the props' slots, `slotBytes` in all), then the
    /// ownership records and per-call lists and maps. `destroyer`, when given, receives the class's
    /// destroy once the object is built. `indexedProps`: the props have a key index
    /// (`IndexedLookup.indexes`; false where the caller knows they have none), used to find the
    /// dependencies they override and, through a trailer written before `base`, by the map's
    /// lookups. `indexCapacity` non-zero: the map gets an index of its own instead, for that many
    /// slots (`IndexedLookup.indexArguments`; 0 where the caller knows it has few).
    @inline(__always)
    private mutating func buildArguments(
        in base: UnsafeMutableRawPointer, _ index: Int, props: UnsafePointer<RawValue>?, propsCount: Int,
        _ f: UnsafePointer<ClassFunctions>, depth: Int, count: Int, slotBytes: Int, total: Int, indexedProps: Bool,
        indexCapacity: Int, destroyer: UnsafeMutablePointer<Destroyer>?
    ) throws(CreateFailure) -> Built {
        let plan = tables.plans[index]
        // The class table outlives the create (the snapshot does); its `create` was checked.
        let functions = f.pointee
        let create = functions.create.unsafelyUnwrapped
        let argsBytes = MemoryLayout<RawValue>.stride
        let args = base.bindMemory(to: RawValue.self, capacity: 1)
        let empty = CreateThread.emptyArguments(thread)
        let top = (base + argsBytes).bindMemory(to: RawMapSlot.self, capacity: count &+ propsCount)
        var work = Work(scratch: base + argsBytes + slotBytes, end: base + total)
        var n = count
        // Callbacks of this map's slots and its own leave the thread's depth as they set it
        // (`callingHostUnrestored`): it is put back once, here, when the map is done.
        let savedDepth = thread.pointee.depth
        do throws(CreateFailure) {
            // By pointer: each slot's head (the shape's) and payload (the entry's, at a fixed
            // distance from it) in order, each map slot written in place.
            if let shape = plan.shape {
                var h = shape.heads
                let end = h + count
                let gap = UnsafeRawPointer(plan.payloads.unsafelyUnwrapped) - UnsafeRawPointer(h)
                var d = top
                if let props {
                    repeat {
                        let s = PlanSlot(
                            head: h.pointee, payload: UnsafeRawPointer(h).load(fromByteOffset: gap, as: UInt64.self))
                        h += 1
                        // Props win over dependencies of the same key.
                        if indexedProps
                            ? HeapMapIndex.find(props, props.pointee.mapSlots.unsafelyUnwrapped, s.key, s.keyLength) != nil
                            : ValueRef(props).lookup(s.key, s.keyLength) != nil
                        {
                            n &-= 1
                            continue
                        }
                        try fill(d, s, &work, depth: depth, emptyArgs: empty)
                        d += 1
                    } while h < end
                } else {
                    repeat {
                        try fill(
                            d,
                            PlanSlot(
                                head: h.pointee, payload: UnsafeRawPointer(h).load(fromByteOffset: gap, as: UInt64.self)),
                            &work, depth: depth, emptyArgs: empty)
                        h += 1
                        d += 1
                    } while h < end
                }
            }
            if let props, let slots = props.pointee.mapSlots {
                for i in 0..<propsCount {
                    (top + n).initialize(to: slots[i])
                    n &+= 1
                }
            }
            args.initialize(to: .argumentsMap(UnsafePointer(top), count: n, hinted: RawValue.hintable(props: props)))
            if indexCapacity != 0 {
                IndexedLookup.indexArguments(args, capacity: indexCapacity)
            } else if indexedProps, let props {
                (args - 1).initialize(to: IndexedLookup.propsTrailer(props, start: n &- propsCount))
                // Its index instead of a hint: look-ups take `search`, which uses it.
                args.pointee.flags = RawValue.Flags.indexedProps
            }
            HostFailure.clear()
            guard
                let object = CreateNesting.callingHostUnrestored(
                    thread, at: depth, { create(UnsafeRawPointer(args), functions.context) })
            else {
                throw createFailed(index)
            }
            thread.pointee.depth = savedDepth
            settle(&work, borrows: functions.borrowsArguments)
            if let destroyer { destroyer.pointee = Destroyer(f) }
            // Read now, not with the copy above: kept across the callback it would cost a spill.
            return (object, f.pointee.objectHeader)
        } catch {
            thread.pointee.depth = savedDepth
            settle(&work, borrows: functions.borrowsArguments)
            var failure = error
            failure.path.insert(entryName(index), at: 0)
            throw failure
        }
    }

    /// Writes the argument of slot `s` at `d`: a literal inline, without a call (the common slot);
    /// anything else through `evaluate`.
    @inline(__always)
    private mutating func fill(
        _ d: UnsafeMutablePointer<RawMapSlot>, _ s: PlanSlot, _ work: inout Work, depth: Int, emptyArgs: UnsafeRawPointer
    ) throws(CreateFailure) {
        if s.isLiteral {
            s.storeLiteralMapSlot(at: d)
        } else if s.op == .reference, tables.plans[Int(s.target)].lifestyle == .transient {
            // The common reference, a transient object, built here without `evaluate`'s call; one
            // without dependency slots (a leaf) with no call of ours at all.
            s.storeKey(at: d)
            let target = Int(s.target)
            if tables.plans[target].shape == nil {
                switch Resolver.buildLeaf(
                    target, tables, maxDepth: maxDepth, thread: thread, into: Resolver.valueOf(d), &work,
                    depth: depth &+ 1, emptyArgs: emptyArgs)
                {
                case .built: return
                case .failed: throw Resolver.leafFailed(target, snapshot)
                case .refused: break
                }
            }
            try buildTransient(target, into: Resolver.valueOf(d), &work, depth: depth)
        } else {
            // The key here; `evaluate` initialises the value.
            s.storeKey(at: d)
            try evaluate(s, into: Resolver.valueOf(d), &work, depth: depth)
        }
    }

    /// The snapshot's tables a create's slots read, as pointers taken once per create (the
    /// snapshot's fields are class properties, read again after every callback otherwise).
    struct Tables {
        /// `snapshot.entries.plans`.
        let plans: CheckedPointer<EntryPlan>
        /// `snapshot.classes.functions` (its `count`: `snapshot.classes.count`).
        let functions: CheckedPointer<ClassFunctions>

        @inline(__always) init(_ snapshot: Snapshot) {
            plans = snapshot.entries.plans
            functions = snapshot.classes.functions
        }
    }

    /// Builds leaf `target` (a transient entry without dependency slots) at `depth` into `dest`,
    /// recorded in `work` for its receiver, as `build` would. `.refused`, with nothing called, when
    /// its class is not registered or the depth limit refuses it: the caller's general path then
    /// reports why; `.failed` when its callback returned NULL: the caller throws. (No stack check of its own: its receiver's `build` checked the stack one
    /// level up, whose reserve covers the callbacks that level calls, as it covers the receiver's
    /// own; a create the leaf's callback starts checks again.) Static, with what it reads passed
    /// in, so the resolver is not copied for it (nor the snapshot retained: its tables come as
    /// pointers).
    @inline(__always)
    private static func buildLeaf(
        _ target: Int, _ tables: Tables, maxDepth: Int, thread: UnsafeMutablePointer<CreateThread>,
        into dest: UnsafeMutablePointer<RawValue>, _ work: inout Work, depth: Int, emptyArgs: UnsafeRawPointer
    ) -> LeafOutcome {
        // One unsigned compare covers a negative slot too.
        let slot = Int(tables.plans[target].classSlot)
        guard UInt(bitPattern: slot) < UInt(bitPattern: tables.functions.count), depth < maxDepth else { return .refused }
        let f = tables.functions + slot
        guard let create = f.pointee.create else { return .refused }
        HostFailure.clear()
        // The depth is not put back after the call: the receiver's `buildWithArguments` does so
        // once, when its arguments are settled.
        guard let object = CreateNesting.callingHostUnrestored(thread, at: depth, { create(emptyArgs, f.pointee.context) })
        else { return .failed }
        RawValue.initializeObject(dest, object, header: f.pointee.objectHeader)
        work.append(Held(kind: .object, object: object, slot: Int32(truncatingIfNeeded: slot), value: dest))
        return .built
    }

    /// What `createLeaf` did.
    enum TopLeafOutcome {
        /// Built: the receiver's, with its class's functions (valid as long as the snapshot).
        case built(UnsafeMutableRawPointer, UnsafePointer<ClassFunctions>)
        /// Not attempted: the general path (`createEntry`) builds it or says why.
        case refused
        /// Its callback returned NULL (`leafFailed` says so).
        case failed
    }

    /// The create of entry `index` of `snapshot` as its caller's top entry, when it is a leaf (no
    /// dependency slots) that is not a singleton, asked for without props (or with none in them):
    /// its callback is called right here, with no resolver, as `createEntry` would call it (the
    /// class, the depth limit and the stack checked first, at this thread's depth). `.refused`,
    /// with nothing called, for any other entry or check: `createEntry` then builds it or says
    /// why. `.failed` when the callback returned NULL.
    @inline(__always)
    static func createLeaf(
        _ index: Int, _ snapshot: Snapshot, props: UnsafePointer<RawValue>?, maxDepth: Int,
        thread: UnsafeMutablePointer<CreateThread>
    ) -> TopLeafOutcome {
        let tables = Tables(snapshot)
        let plan = tables.plans + index
        guard plan.pointee.shape == nil, plan.pointee.lifestyle != .singleton, props.map({ $0.pointee.count == 0 }) ?? true
        else { return .refused }
        // One unsigned compare covers a negative slot too.
        let slot = Int(plan.pointee.classSlot)
        guard UInt(bitPattern: slot) < UInt(bitPattern: tables.functions.count) else { return .refused }
        let f = tables.functions + slot
        let depth = thread.pointee.depth
        guard let create = f.pointee.create, depth < maxDepth, thread.pointee.hasStackRoom() else { return .refused }
        HostFailure.clear()
        let empty = CreateThread.emptyArguments(thread)
        let context = f.pointee.context
        guard let object = CreateNesting.callingHost(thread, at: depth, { create(empty, context) }) else { return .failed }
        return .built(object, f)
    }

    /// What `buildLeaf` did: the caller throws a failure itself (with what it has at hand: the
    /// leaf's frame keeps nothing alive across the callback for it).
    enum LeafOutcome {
        /// Built and recorded.
        case built
        /// Not attempted (no registered class, or the depth limit): the general path says why.
        case refused
        /// Its callback returned NULL.
        case failed
    }

    /// Initialises `dest` with a new object of transient entry `target` (one level below `depth`),
    /// recorded in `work` for its receiver.
    @inline(__always)
    private mutating func buildTransient(
        _ target: Int, into dest: UnsafeMutablePointer<RawValue>, _ work: inout Work, depth: Int
    ) throws(CreateFailure) {
        let (object, header) = try build(target, props: nil, depth: depth &+ 1)
        RawValue.initializeObject(dest, object, header: header)
        work.append(Held(kind: .object, object: object, slot: tables.plans[target].classSlot, value: dest))
    }

    /// Per-consumer bookkeeping inside the call's scratch memory (`EntryPlan.extraBytes` of it):
    /// lists and maps built for the call from its start up, one `Held` per object built from its
    /// end down, so one size covers both.
    struct Work {
        /// The latest record (records run from it, latest first, up to `end`).
        var top: UnsafeMutablePointer<Held>
        let end: UnsafeMutablePointer<Held>
        var scratch: UnsafeMutableRawPointer

        init(scratch: UnsafeMutableRawPointer, end: UnsafeMutableRawPointer) {
            self.end = end.assumingMemoryBound(to: Held.self)
            top = self.end
            self.scratch = scratch
        }

        mutating func take(_ bytes: Int) -> UnsafeMutableRawPointer {
            let p = scratch
            scratch += bytes
            return p
        }

        mutating func append(_ h: Held) {
            top -= 1
            top.initialize(to: h)
        }
    }

    /// Initialises `dest` with the value of one slot: a literal, or objects obtained according to
    /// their lifestyles (recorded in `work` with `dest`, where the receiver may take them).
    /// The slot is its two words, by value.
    private mutating func evaluate(
        _ s: PlanSlot, into dest: UnsafeMutablePointer<RawValue>, _ work: inout Work, depth: Int
    ) throws(CreateFailure) {
        switch s.op {
        case .literal:
            s.storeLiteral(at: UnsafeMutableRawPointer(dest))
        case .optional, .tagged:
            try evaluateOptionalOrTagged(s, into: dest, &work, depth: depth)
        case .reference:
            let target = Int(s.target)
            switch tables.plans[target].lifestyle {
            case .singleton:
                let (object, tag) = try singleton(target, depth: depth + 1)
                dest.initialize(to: .object(object, registryOwned: true, tag: tag))
            case .graph:
                if let g = graph.firstIndex(ofEntry: Int32(target)) {
                    var v = RawValue.object(graph[g].object, tag: tables.functions[Int(graph[g].classSlot)].objectTag)
                    v.flags |= RawValue.Flags.shared
                    dest.initialize(to: v)
                    return
                }
                let (object, header) = try build(target, props: nil, depth: depth + 1)
                graph.append(
                    GraphObject(
                        index: Int32(target), object: object, classSlot: snapshot.entries.plans[target].classSlot, owned: false))
                dest.initialize(to: .graphObject(object, tag: RawValue.tag(ofHeader: header)))
                work.append(Held(kind: .graph, object: object, slot: Int32(graph.count - 1), value: dest))
            case .transient:
                try buildTransient(target, into: dest, &work, depth: depth)
            }
        case .provider:
            let target = Int(s.target)
            let provider =
                snapshot.entries.names.bytes(at: target).map { Provider(registry: registry, nameBytes: $0.0, length: $0.1) }
                ?? Provider(registry: registry, entryName: entryName(target))
            let p = Unmanaged.passRetained(provider).toOpaque()
            dest.initialize(to: RawValue(kind: .provider, a: UInt64(UInt(bitPattern: p))))
            work.append(Held(kind: .provider, object: p, slot: -1, value: dest))
        case .list:
            let count = Int(s.childCount)
            let elements = work.take(count * MemoryLayout<RawValue>.stride).bindMemory(to: RawValue.self, capacity: count)
            for i in 0..<count {
                try evaluate(s.children![i], into: elements + i, &work, depth: depth)
            }
            dest.initialize(to: .borrowedList(UnsafePointer(elements), count: count))

        case .map:
            let count = Int(s.childCount)
            let slots = work.take(count * MemoryLayout<RawMapSlot>.stride).bindMemory(to: RawMapSlot.self, capacity: count)
            for i in 0..<count {
                // The key here; `evaluate` initialises the value.
                s.children![i].storeKey(at: slots + i)
                try evaluate(s.children![i], into: Resolver.valueOf(slots + i), &work, depth: depth)
            }
            dest.initialize(to: .borrowedMap(UnsafePointer(slots), count: count))
        }
    }

    /// `evaluate` of an `{Optional: ...}` slot (its one child: a reference like any other when the
    /// entry exists, a null literal when not) or a `{Tagged: t}` slot (a list of references to its
    /// members, each by its own lifestyle). An entry that left the parent this view inherits it
    /// from while the create ran (`CreateFailure.noLongerIn`) is absent, as in the parent's
    /// new view: null, or one member fewer. Out of line, so `evaluate`'s other cases do not pay
    /// for its catch.
    @inline(never)
    private mutating func evaluateOptionalOrTagged(
        _ s: PlanSlot, into dest: UnsafeMutablePointer<RawValue>, _ work: inout Work, depth: Int
    ) throws(CreateFailure) {
        if s.op == .optional {
            let child = s.children.unsafelyUnwrapped[0]
            do throws(CreateFailure) {
                try evaluate(child, into: dest, &work, depth: depth)
            } catch {
                guard isNoLongerInParent(error, child) else { throw error }
                dest.initialize(to: .null)
            }
            return
        }
        let count = Int(s.childCount)
        let elements = work.take(count * MemoryLayout<RawValue>.stride).bindMemory(to: RawValue.self, capacity: count)
        var built = 0
        for i in 0..<count {
            let child = s.children![i]
            do throws(CreateFailure) {
                try evaluate(child, into: elements + built, &work, depth: depth)
            } catch {
                guard isNoLongerInParent(error, child) else { throw error }
                continue
            }
            built += 1
        }
        dest.initialize(to: .borrowedList(UnsafePointer(elements), count: built))
    }

    /// Whether `error` says the entry `slot` refers to was removed from the parent this view
    /// inherits it from, after this view was published (`CreateFailure.noLongerIn`).
    private func isNoLongerInParent(_ error: CreateFailure, _ slot: PlanSlot) -> Bool {
        slot.op == .reference && snapshot.entries.owner(of: Int(slot.target)) != nil
            && error.isNoLongerIn(parentNamed: entryName(Int(slot.target)))
    }

    /// Settles what a consumer's arguments held, once its callback returned (success or failure)
    /// or the call failed before reaching it: what the receiver took is its own; every other
    /// object is destroyed and every other provider released, in reverse order. A graph object
    /// taken becomes its receiver's; one not taken is left to `finishGraph`.
    ///
    /// A class that borrows its arguments (Swift closures) owns only what it took over with
    /// `ValueRef.take(as:)` (`RawValue.Flags.moved`); `cr_value_object` does not make an object
    /// its own.
    ///
    /// Most arguments were taken: a record whose value is taken and is not a graph object (nothing
    /// to do) costs one flag and one kind test, its other fields never read. (Settling the others
    /// out of line cost more: the call made the create path around it keep fewer registers.)
    private mutating func settle(_ work: inout Work, borrows: Bool) {
        var p = work.top
        let owning = borrows ? RawValue.Flags.moved : RawValue.Flags.taken
        while p < work.end {
            let taken = p.pointee.value.pointee.flags & owning != 0
            if !taken || p.pointee.kind == .graph {
                let h = p.pointee
                switch h.kind {
                case .object:
                    let f = snapshot.classes.functions[Int(h.slot)]
                    f.destroy?(h.object, f.context)
                case .graph:
                    if taken { graph[Int(h.slot)].owned = true }
                case .provider:
                    Unmanaged<Provider>.fromOpaque(h.object).release()
                }
            }
            p += 1
        }
        work.top = work.end
    }

    /// Destroys the call's `graph` objects that no consumer took ownership of (last built first).
    @inline(__always)
    private mutating func finishGraph() {
        if !graph.isEmpty { destroyUntakenGraph() }
    }

    @inline(never)
    private mutating func destroyUntakenGraph() {
        var i = graph.count - 1
        while i >= 0 {
            let g = graph[i]
            if !g.owned {
                let f = snapshot.classes.functions[Int(g.classSlot)]
                f.destroy?(g.object, f.context)
            }
            i -= 1
        }
        graph.removeAll()
    }

    private func createFailed(_ index: Int) -> CreateFailure { Resolver.createFailed(index, snapshot) }

    /// The one failure of an entry's create callback, for every door (C ABI, bindings, Swift API):
    /// the class, the entry and where the entry is defined (its config's `file:line:column`, for
    /// an entry loaded from a config), then what the callback reported (a host's
    /// `cr_report_error`, an exception's text through a binding, a Swift error), else "returned
    /// NULL".
    static func createFailed(_ index: Int, _ snapshot: Snapshot) -> CreateFailure {
        let reason = HostFailure.take().map { ": \($0)" } ?? " returned NULL"
        return CreateFailure(
            code: .createFailed,
            message:
                "create of class '\(className(index, snapshot))' for entry '\(entryName(index, snapshot))'\(definedAt(index, snapshot))\(reason)"
        )
    }

    /// Where entry `index` is defined, as failures of its callbacks (create, set) name it:
    /// " (defined at file:line:column)" for an entry loaded from a config, "" for one added from code.
    static func definedAt(_ index: Int, _ snapshot: Snapshot) -> String {
        snapshot.entries.location(at: index).map { " (defined at \($0))" } ?? ""
    }

    /// `build`'s failure for a leaf whose callback returned NULL (out of line).
    @inline(never)
    static func leafFailed(_ index: Int, _ snapshot: Snapshot) -> CreateFailure {
        var failure = createFailed(index, snapshot)
        failure.path = [entryName(index, snapshot)]
        return failure
    }
}
