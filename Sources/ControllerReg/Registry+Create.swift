#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Registry {
    /// Creates the object `name` describes, merging `props` over its dependencies (props win), as
    /// a raw pointer: what the class's create returned.
    ///
    /// The caller owns the result (free it with the class's destroy), except for a singleton,
    /// which the registry owns (see `createReference` to tell them apart). A name that is not an
    /// entry falls back to a registered class of that name, then to the name templates in order.
    ///
    /// For a class registered with a Swift closure (`register(className:create:)`) the pointer is a
    /// retained `Unmanaged` reference: use `create(_:as:)` instead, which hands the object over
    /// typed and balanced. From this pointer, `Unmanaged<T>.fromOpaque(p).takeRetainedValue()`
    /// balances it, except for a singleton (`createReference(_:).isRegistryOwned`:
    /// `takeUnretainedValue()`); a pointer dropped without either leaks the object.
    public func create(_ name: String, props: [String: Value] = [:]) throws(ConfigError) -> UnsafeMutableRawPointer {
        try createReference(name, props: props).pointer!
    }

    /// Like `create`, returning the object with whether the registry owns it.
    public func createReference(_ name: String, props: [String: Value] = [:]) throws(ConfigError) -> ObjectReference {
        if props.isEmpty { return try createReference(name, rawProps: nil) }
        let heap = try Value.map(props).makeHeap(path: "props")
        defer { HeapValue.free(heap) }
        return try createReference(name, rawProps: UnsafePointer(heap))
    }

    /// Creates `name` with `rawProps` (a map, or nil) borrowed for the call: the one path of the
    /// Swift API's creates. The name's UTF-8 is read in place (native and small strings: no copy).
    @usableFromInline
    func createReference(_ name: String, rawProps: UnsafePointer<RawValue>?) throws(ConfigError) -> ObjectReference {
        // The outcome comes back as a value, so no variable is shared with the closure (a captured
        // `var` would cost a dynamic exclusivity check per create).
        let outcome =
            name.utf8.withContiguousStorageIfAvailable { u in
                createOutcome(
                    bytes: u.baseAddress ?? emptyKey, length: u.count, props: rawProps, destroyer: nil, leafHere: true)
            } ?? createOutcomeCopying(name, rawProps)
        switch outcome {
        case .made(let object, let owned, let swiftObject):
            return ObjectReference(object, registryOwned: owned, swiftObject: swiftObject)
        case .failed(let error): throw error
        }
    }

    /// `createReference` of a name whose UTF-8 is not contiguous (a bridged string): made
    /// contiguous first (out of line, so the create path is inlined once, in `createReference`).
    @inline(never)
    private func createOutcomeCopying(_ name: String, _ rawProps: UnsafePointer<RawValue>?) -> CreateOutcome {
        var copy = name
        return copy.withUTF8 { u in
            createOutcome(bytes: u.baseAddress ?? emptyKey, length: u.count, props: rawProps, destroyer: nil)
        }
    }

    /// Creates a Swift object of type `T` (a class registered with a Swift closure).
    @inlinable @inline(__always)
    public func create<T: AnyObject>(_ name: String, props: [String: Value], as type: T.Type) throws(ConfigError) -> T {
        try Registry.typed(createReference(name, props: props), name, as: type, self)
    }

    /// Creates a Swift object of type `T` (a class registered with a Swift closure), without props.
    /// (Always inlined: with the check that its object is a Swift object, the optimizer stopped
    /// inlining it into the caller's code, a call and 30 instructions more per create.)
    @inlinable @inline(__always)
    public func create<T: AnyObject>(_ name: String, as type: T.Type) throws(ConfigError) -> T {
        try Registry.typed(createReference(name, rawProps: nil), name, as: type, self)
    }

    /// The created object as a `T`: taken over (+1 from the class's create) unless the registry
    /// owns it; another type is a `.type` error (the object is released with the reference), and
    /// so is an object that is not a Swift object (a class registered with C functions built it:
    /// `notASwiftObject`, which destroys it unless the registry owns it).
    /// Inlined: a Swift object whose class is exactly `T` (one metadata compare) is returned
    /// here; a subclass, another class or an object that is not a Swift object takes
    /// `typedByCast`, out of line. (`registry` made it: `notASwiftObject` destroys through it.)
    @inlinable @inline(__always)
    static func typed<T: AnyObject>(
        _ ref: ObjectReference, _ name: String, as type: T.Type, _ registry: Registry
    ) throws(ConfigError) -> T {
        let p = ref.pointer.unsafelyUnwrapped
        if ref.isSwiftObject,
            Unmanaged<AnyObject>.fromOpaque(p)._withUnsafeGuaranteedRef({
                ObjectIdentifier(Swift.type(of: $0)) == ObjectIdentifier(T.self)
            })
        {
            let u = Unmanaged<T>.fromOpaque(p)
            return ref.isRegistryOwned ? u.takeUnretainedValue() : u.takeRetainedValue()
        }
        return try Registry.typedByCast(ref, name, as: type, registry)
    }

    /// `typed` of anything but a Swift object whose class is exactly `T`: an object that is not a
    /// Swift object is a `.type` error (`notASwiftObject`); else the runtime's cast (a subclass is
    /// a `T`), else a `.type` error (the object released with the reference).
    @inlinable @inline(never)
    static func typedByCast<T: AnyObject>(
        _ ref: ObjectReference, _ name: String, as type: T.Type, _ registry: Registry
    ) throws(ConfigError) -> T {
        guard ref.isSwiftObject else { throw registry.notASwiftObject(ref, name, T.self) }
        let unmanaged = Unmanaged<AnyObject>.fromOpaque(ref.pointer.unsafelyUnwrapped)
        let object = ref.isRegistryOwned ? unmanaged.takeUnretainedValue() : unmanaged.takeRetainedValue()
        guard let typed = object as? T else { throw wrongType(object, name, T.self) }
        return typed
    }

    /// The error of `create(_:as:)` with a type the object does not have (out of line).
    @usableFromInline
    static func wrongType(_ object: AnyObject, _ name: String, _ type: Any.Type) -> ConfigError {
        let built: AnyObject.Type = Swift.type(of: object)
        return ConfigError(
            .type, "'\(name)' built a \(built), not a \(type): create it as \(built) (or a class it inherits from)")
    }

    /// The error of `create(_:as:)` when `name` built an object that is not a Swift object (its
    /// class was registered with C functions), which is never read as one (out of line). The
    /// object is destroyed by its class's destroy unless the registry owns it (a singleton), as
    /// an object of another Swift type is released.
    @usableFromInline @inline(never)
    func notASwiftObject(_ ref: ObjectReference, _ name: String, _ type: Any.Type) -> ConfigError {
        var fate = "the registry keeps it (a singleton)"
        if !ref.isRegistryOwned, let object = ref.pointer {
            // Destroyed while the snapshot (and so its class) is held, as a create's own objects are.
            let destroyed: Bool = cell.read { s in
                let destroyer = Registry.destroyer(ofCreated: name, s)
                guard let destroy = destroyer.destroy else { return false }
                destroy(object, destroyer.context)
                return true
            }
            fate = destroyed ? "it was destroyed" : "its class has no destroy, so it was left as it is"
        }
        return ConfigError(
            .type,
            "'\(name)' built an object of a class registered with C functions, not a Swift object, so it cannot be read as a \(type) (\(fate)): create it with create(_:), which returns its raw pointer, or register the class with a Swift closure"
        )
    }

    /// How to destroy what a create of `name` built in `s`: its entry's class, else the class a
    /// create by convention finds (of that name, else the first template's).
    private static func destroyer(ofCreated name: String, _ s: Snapshot) -> Destroyer {
        let index = s.entries.index(of: name)
        if index >= 0 { return Destroyer(s.classes, slot: Int(s.entries.plans[index].classSlot)) }
        var slot = s.classes.lookup.find(name)
        if slot < 0 { slot = templateClassSlot(s, for: name) }
        return Destroyer(s.classes, slot: slot)
    }

    /// The class slot in `s` of the first template's class name for `name` (`NameTemplate`, the
    /// templates in the order added), or -1: what a create by convention tries after a class of
    /// exactly that name.
    private static func templateClassSlot(_ s: Snapshot, for name: String) -> Int {
        for template in s.templates {
            let slot = s.classes.lookup.find(NameTemplate.className(template, for: name))
            if slot >= 0 { return slot }
        }
        return -1
    }

    /// Creates by a NUL-terminated name (the C ABI); `props` (a map, or nil) is borrowed for the
    /// call. Returns the object and whether the registry owns it; when `destroyer` is given, it
    /// receives how to destroy the object (nothing for a singleton).
    package func create(
        cName: UnsafePointer<CChar>, props: UnsafePointer<RawValue>?,
        destroyer: UnsafeMutablePointer<Destroyer>? = nil
    ) throws(ConfigError) -> (UnsafeMutableRawPointer, Bool) {
        switch createOutcome(cName: cName, props: props, destroyer: destroyer) {
        case .made(let object, let owned, _): return (object, owned)
        case .failed(let error): throw error
        }
    }

    /// `create(cName:props:destroyer:)` with its outcome as a value (the C ABI's door, which
    /// records a failure rather than rethrowing it).
    package func createOutcome(
        cName: UnsafePointer<CChar>, props: UnsafePointer<RawValue>?, destroyer: UnsafeMutablePointer<Destroyer>?
    ) -> CreateOutcome {
        guard let destroyer else { return createOutcome(cName: cName, props: props) }
        return createOutcome(cName: cName, props: props, reportingTo: destroyer)
    }

    /// `createOutcome(cName:props:destroyer:)` without a destroyer (`cr_registry_create`): a copy of
    /// the create path of its own, which carries no destroyer (kept across the callbacks, one cost
    /// the plain C create registers and spills).
    package func createOutcome(cName: UnsafePointer<CChar>, props: UnsafePointer<RawValue>?) -> CreateOutcome {
        createOutcome(
            bytes: UnsafeRawPointer(cName).assumingMemoryBound(to: UInt8.self), length: strlen(cName),
            props: props, destroyer: nil, inlineArguments: true)
    }

    /// `createOutcome(cName:props:destroyer:)` with a destroyer to write (`cr_registry_create_with`
    /// asked for it, as the C++ binding does): the create path's other copy.
    package func createOutcome(
        cName: UnsafePointer<CChar>, props: UnsafePointer<RawValue>?, reportingTo destroyer: UnsafeMutablePointer<Destroyer>
    ) -> CreateOutcome {
        createOutcome(
            bytes: UnsafeRawPointer(cName).assumingMemoryBound(to: UInt8.self), length: strlen(cName),
            props: props, destroyer: destroyer, inlineArguments: true)
    }

    /// Creates by name bytes (used by providers).
    func create(
        bytes: UnsafePointer<UInt8>, length: Int, props: UnsafePointer<RawValue>?
    ) throws(ConfigError) -> UnsafeMutableRawPointer {
        try createRaw(bytes: bytes, length: length, props: props).0
    }

    @inline(__always)
    func createRaw(
        bytes: UnsafePointer<UInt8>, length: Int, props: UnsafePointer<RawValue>?,
        destroyer: UnsafeMutablePointer<Destroyer>? = nil
    ) throws(ConfigError) -> (UnsafeMutableRawPointer, Bool) {
        switch createOutcome(bytes: bytes, length: length, props: props, destroyer: destroyer) {
        case .made(let object, let owned, _): return (object, owned)
        case .failed(let error): throw error
        }
    }

    /// What one create gives back. An enum rather than a result beside an optional error: on the
    /// success path nothing is left to release (an optional error kept beside it cost a
    /// `swift_release` of nil per create).
    package enum CreateOutcome {
        /// The object, whether the registry owns it (a singleton), and whether it is a Swift object
        /// (its tag has `RawValue.swiftObject`: the class that built it makes Swift objects; the
        /// `ObjectReference` flags as they are, so the Swift API's door converts nothing).
        /// Computed for the Swift API's door only (`createOutcome` without `inlineArguments`); the
        /// C ABI's door, which never reads it, gets false.
        case made(UnsafeMutableRawPointer, Bool, Bool)
        /// Why there is none.
        case failed(ConfigError)
    }

    /// The create path every door shares: entry by name (a singleton hit without a resolver),
    /// else a class of that name or a template's.
    ///
    /// The entry a thread created last is tried first (`CreateThread.lastEntry`): a host creating
    /// the same name again (cells of a list, a screen shown again) skips the hash and the probe.
    /// The try compares the name's bytes with the entry's in the snapshot being read, so it can
    /// only find what the table would (an index that is stale, from another registry or a
    /// replaced snapshot, holds other bytes or none and misses).
    ///
    /// With `leafHere` (the Swift API's door, `createReference`) a leaf is built with no resolver
    /// (`Resolver.createLeaf`). With `inlineArguments` (the C ABI's door, whose one call site this
    /// is) so is a leaf, and an entry with arguments is built in this frame (`Resolver.buildTop`):
    /// no call and no second frame per create. (The Swift API keeps the call for an entry with
    /// arguments: built in its frame, the resolver's own always-inlined steps, `fill` and
    /// `settle`, were no longer inlined: node5 cost 1,953 instructions, against 1,799 with the call.)
    @inline(__always)
    func createOutcome(
        bytes: UnsafePointer<UInt8>, length: Int, props: UnsafePointer<RawValue>?,
        destroyer: UnsafeMutablePointer<Destroyer>?, leafHere: Bool = false, inlineArguments: Bool = false
    ) -> CreateOutcome {
        // Props are a map the caller built (cr_map_new, a Swift props dictionary): its objects are
        // the caller's. A callback's arguments map (or a map inside them) handed on as props would
        // give its receiver's objects to a second receiver, and both would own them.
        if let props, !RawValue.isCallersMap(props) { return .failed(propsNotAMap(props)) }
        return cell.read { s, thread in
            var index = thread.pointee.lastEntry
            if !s.entries.holds(index, bytes, length) {
                // The Swift API's door hashes out of line (`findEntry`); the C ABI's inline (its
                // creates of alternating names hash every time).
                index =
                    leafHere && !inlineArguments
                    ? Registry.findEntry(s, bytes, length)
                    : s.entries.names.find(bytes, length, hash: NameTable.hash(bytes, length))
                if index >= 0 { thread.pointee.lastEntry = index }
            }
            if index >= 0 {
                // Singleton hit: the built object, with no resolver (what createEntry would return).
                // A name is in the table only while its entry is live (`EntryTable.names`).
                let plan = s.entries.plans + index
                assert(plan.pointee.live, "the name table found a removed entry")
                if plan.pointee.lifestyle == .singleton, props == nil || props!.pointee.count == 0,
                    let v = Unmanaged<SingletonCell>.fromOpaque(plan.pointee.singletonCell)._withUnsafeGuaranteedRef({
                        inlineArguments ? $0.value.map { ($0, 0) } : $0.tagged
                    })
                {
                    return .made(v.0, true, v.1 & RawValue.swiftObject != 0)
                }
            }
            return createFound(
                s, thread, index, bytes: bytes, length: length, props: props, destroyer: destroyer,
                leafHere: leafHere || inlineArguments, inlineArguments: inlineArguments)
        }
    }

    /// The entry named by `length` bytes at `bytes` in `s`, or -1: the name table's `find`, out
    /// of line for the Swift API's door, whose creates mostly repeat the thread's last name
    /// (`CreateThread.lastEntry`): the hash's code and constants then stay out of its path.
    @inline(never)
    static func findEntry(_ s: Snapshot, _ bytes: UnsafePointer<UInt8>, _ length: Int) -> Int {
        s.entries.names.find(bytes, length, hash: NameTable.hash(bytes, length))
    }

    /// The rest of `createOutcome` once the name was looked up (`index`, or -1): an entry built by
    /// a resolver, else a class by convention.
    @inline(__always)
    private func createFound(
        _ s: Snapshot, _ thread: UnsafeMutablePointer<CreateThread>, _ index: Int, bytes: UnsafePointer<UInt8>, length: Int,
        props: UnsafePointer<RawValue>?, destroyer: UnsafeMutablePointer<Destroyer>?, leafHere: Bool,
        inlineArguments: Bool
    ) -> CreateOutcome {
        if index >= 0 {
            if leafHere, !inlineArguments, props == nil, destroyer == nil {
                // The Swift API's door: an entry of a Swift class built by its closures directly.
                switch SwiftClassCreate.create(index, s, maxDepth: maxCreateDepth.load(ordering: .relaxed), thread: thread) {
                case .built(let o): return .made(o, false, true)
                case .failed(let failure): return .failed(imageCreateFailed(failure, bytes: bytes, length: length))
                case .refused: break
                }
            }
            if leafHere {
                // A leaf: its callback called here, with no resolver.
                switch Resolver.createLeaf(
                    index, s, props: props, maxDepth: maxCreateDepth.load(ordering: .relaxed), thread: thread)
                {
                case .built(let o, let f):
                    if let destroyer { destroyer.pointee = Destroyer(f) }
                    // Whether a Swift object, for the Swift API's door (the C ABI's, `inlineArguments`,
                    // reads none).
                    return .made(o, false, !inlineArguments && f.pointee.objectTag & RawValue.swiftObject != 0)
                case .failed: return .failed(leafFailed(s, index, bytes: bytes, length: length))
                case .refused: break
                }
            }
            // The C ABI's door: an entry of literals and leaves built from its image (out of line:
            // this frame's code is at the optimizer's inlining limit; the resolver's `fill`
            // stopped being inlined into it, props_merged +92 instructions).
            if inlineArguments, props == nil, let outcome = createFromHostImage(s, thread, index, destroyer: destroyer) {
                return outcome
            }
            var resolver = Resolver(
                snapshot: s, registry: self, maxDepth: maxCreateDepth.load(ordering: .relaxed), thread: thread)
            do throws(CreateFailure) {
                // The C ABI's door (`inlineArguments`) has its destroyer written by the build, from the
                // class functions it holds; any other door here.
                let (o, owned, tag) = try resolver.createEntry(
                    index, props: props, inlineArguments: inlineArguments, destroyer: inlineArguments ? destroyer : nil)
                if !inlineArguments, let destroyer, !owned {
                    destroyer.pointee = Destroyer(s.classes, slot: Int(s.entries.plans[index].classSlot))
                }
                // The C ABI's door reads no Swift-object flag: none computed for it.
                return .made(o, owned, !inlineArguments && tag & RawValue.swiftObject != 0)
            } catch {
                return .failed(
                    error.error(for: String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)))
            }
        }
        switch createByConvention(s, bytes: bytes, length: length, props: props, destroyer: destroyer) {
        case .success(let (o, tag)): return .made(o, false, tag & RawValue.swiftObject != 0)
        case .failure(let error): return .failed(error)
        }
    }

    /// `HostArgumentsCreate.create` of entry `index` of `s`, its failure as the error hosts see
    /// (named by the entry's name: the name asked for, which found it); nil when it refused: at
    /// once when the entry's image is `refused` (an entry the resolver builds), with no frame set
    /// up for the create (`createFromHostImageBuilt`).
    @inline(never)
    private func createFromHostImage(
        _ s: Snapshot, _ thread: UnsafeMutablePointer<CreateThread>, _ index: Int,
        destroyer: UnsafeMutablePointer<Destroyer>?
    ) -> CreateOutcome? {
        let image = SwiftArgumentImages.image(s, index, door: .host)
        if image == SwiftArgumentImages.refused { return nil }
        return createFromHostImageBuilt(s, thread, index, image: image, destroyer: destroyer)
    }

    /// `createFromHostImage` of an entry whose image is `image` (0: none built yet).
    @inline(never)
    private func createFromHostImageBuilt(
        _ s: Snapshot, _ thread: UnsafeMutablePointer<CreateThread>, _ index: Int, image: UInt,
        destroyer: UnsafeMutablePointer<Destroyer>?
    ) -> CreateOutcome? {
        switch HostArgumentsCreate.create(
            index, s, image: image, maxDepth: maxCreateDepth.load(ordering: .relaxed), thread: thread,
            destroyer: destroyer)
        {
        case .built(let o): return .made(o, false, false)
        case .failed(let failure): return .failed(failure.error(for: Resolver.entryName(index, s)))
        case .refused: return nil
        }
    }

    /// The error of a leaf `Resolver.createLeaf` built whose callback returned NULL (out of line).
    @inline(never)
    private func leafFailed(_ s: Snapshot, _ index: Int, bytes: UnsafePointer<UInt8>, length: Int) -> ConfigError {
        Resolver.leafFailed(index, s).error(
            for: String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self))
    }

    /// The error of a create from an entry's arguments image (`SwiftClassCreate`,
    /// `HostArgumentsCreate`) whose closure threw or callback failed (out of line).
    @inline(never)
    private func imageCreateFailed(_ failure: CreateFailure, bytes: UnsafePointer<UInt8>, length: Int) -> ConfigError {
        failure.error(for: String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self))
    }

    /// The error for props that are not a map the caller built (out of line).
    @inline(never)
    private func propsNotAMap(_ props: UnsafePointer<RawValue>) -> ConfigError {
        guard props.pointee.valueKind == .map else {
            return ConfigError(.invalidArgument, "props must be a map (cr_map_new), not a \(props.pointee.valueKind)")
        }
        return ConfigError(
            .invalidArgument,
            "props must be a map built with cr_map_new, not a callback's arguments or a map inside them: the objects in those are its receiver's, and a second receiver would own them too; copy the values to pass on into a new map (cr_map_set_*; an object set with cr_map_set_object stays yours)"
        )
    }

    /// A name with no entry: a registered class of that name, else the first template that names
    /// a registered class. (Out of line: the create path's frame keeps none of it.)
    @inline(never)
    private func createByConvention(
        _ s: Snapshot, bytes: UnsafePointer<UInt8>, length: Int,
        props: UnsafePointer<RawValue>?,
        destroyer: UnsafeMutablePointer<Destroyer>?
    ) -> Result<(UnsafeMutableRawPointer, UInt16), ConfigError> {
        // Names given as bytes (the C ABI) are checked here, off the hot path: a name that is an
        // entry was valid when the entry was added.
        let maxBytes = limits.config.maxStringBytes
        if length > maxBytes {
            return .failure(
                ConfigError(
                    .limit,
                    "cannot create a name of \(length) bytes: longer than the string limit of \(maxBytes) bytes"
                        + ConfigLimits.fix("CR_LIMIT_STRING_BYTES")
                ))
        }
        if let reason = invalidUTF8Reason(bytes, length) {
            return .failure(ConfigError(.invalidArgument, "cannot create: name \(reason)"))
        }
        let name = String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
        var slot = s.classes.lookup.find(bytes, length, hash: NameTable.hash(bytes, length))
        if slot < 0 { slot = Registry.templateClassSlot(s, for: name) }
        guard slot >= 0 else {
            if isClosed { return .failure(ConfigError(.invalidArgument, "cannot create '\(name)': \(closedText)")) }
            let tried =
                s.templates.isEmpty
                ? "" : " or a class named by the templates \(s.templates.map { "'\($0)'" }.joined(separator: ", "))"
            let suggestion = Suggestions.closest(to: name, in: s.entries.liveNames)
            return .failure(
                ConfigError([
                    Diagnostic(
                        .notFound,
                        "no entry named '\(name)'\(Suggestions.hint(suggestion)), and no registered class '\(name)'\(tried)",
                        suggestion: suggestion)
                ]))
        }
        let resolver = Resolver(snapshot: s, registry: self, maxDepth: maxCreateDepth.load(ordering: .relaxed))
        do throws(CreateFailure) {
            let object = try resolver.createClass(slot, props: props)
            destroyer?.pointee = Destroyer(s.classes, slot: slot)
            return .success((object, s.classes.functions[slot].objectTag))
        } catch {
            return .failure(error.error(for: name))
        }
    }

    /// The singleton entry `name` defines here, built here on first use, with its tag
    /// (`RawValue.swiftObject` for a Swift object). A child inheriting the entry asks for it by
    /// name; when the entry is no longer here, the failure is `CreateFailure.noLongerIn`.
    func singleton(named name: String, depth: Int) throws(CreateFailure) -> (UnsafeMutableRawPointer, UInt16) {
        let maxDepth = maxCreateDepth.load(ordering: .relaxed)
        let result: Result<(UnsafeMutableRawPointer, UInt16), CreateFailure> = cell.read { s, thread in
            let index = s.entries.index(of: name)
            guard index >= 0 else { return .failure(CreateFailure.noLongerIn(parentNamed: name)) }
            var resolver = Resolver(snapshot: s, registry: self, maxDepth: maxDepth, thread: thread)
            do throws(CreateFailure) {
                let (object, _, tag) = try resolver.createEntry(index, props: nil, depth: depth)
                return .success((object, tag))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Applies entry `name`'s dependencies to `object`, which the host made itself (the storyboard
    /// case), through the class's `set`, one key at a time. A class without `set` is an error; a
    /// failing `set` stops and reports its key.
    public func inject(_ name: String, into object: UnsafeMutableRawPointer) throws(ConfigError) {
        let maxDepth = maxCreateDepth.load(ordering: .relaxed)
        let failure: ConfigError? = cell.read { s in
            let index = s.entries.index(of: name)
            guard index >= 0 else {
                if isClosed { return ConfigError(.invalidArgument, "cannot inject '\(name)': \(closedText)") }
                let suggestion = Suggestions.closest(to: name, in: s.entries.liveNames)
                return ConfigError([
                    Diagnostic(
                        .notFound, "cannot inject '\(name)': no entry by that name\(Suggestions.hint(suggestion))",
                        suggestion: suggestion)
                ])
            }
            var resolver = Resolver(snapshot: s, registry: self, maxDepth: maxDepth)
            do throws(CreateFailure) {
                try resolver.inject(index, into: object)
                return nil
            } catch {
                let chain = error.path.count > 1 ? " (\(error.path.joined(separator: " -> ")))" : ""
                return ConfigError(error.code, "cannot inject '\(name)'\(chain): \(error.message)")
            }
        }
        if let failure { throw failure }
    }

    /// Injects into a Swift object.
    public func inject(_ name: String, into object: AnyObject) throws(ConfigError) {
        try inject(name, into: Unmanaged.passUnretained(object).toOpaque())
    }
}

/// How to destroy an object without knowing its class (the C ABI's `cr_destroyer`): the class's
/// destroy function and context, valid while the class stays registered.
package struct Destroyer {
    /// The class's destroy function, or nil (a singleton, a class without destroy, or a failure).
    package var destroy: HostClass.DestroyFunction?
    /// The class's context (`user_data`).
    package var context: UnsafeMutableRawPointer?

    /// Nothing to call.
    package init() {}

    /// The destroy function of the class whose functions are at `f` (a registered class's), and
    /// its context; both nil for a class without destroy (the header promises {NULL, NULL}).
    @inline(__always)
    init(_ f: UnsafePointer<ClassFunctions>) {
        destroy = f.pointee.destroy
        context = destroy == nil ? nil : f.pointee.context
    }

    /// The destroy function of class `slot` (as `init(_:)`).
    init(_ classes: ClassTable, slot: Int) {
        guard slot >= 0, slot < classes.count else {
            self.init()
            return
        }
        self.init(classes.functions + slot)
    }
}
