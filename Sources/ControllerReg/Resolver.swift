/// Why a create failed, with the chain of entries being built when it did.
struct CreateFailure: Error {
    var code: ErrorCode
    var message: String
    var path: [String] = []

    /// The error hosts see: "cannot create 'A' (A -> B): message".
    func error(for name: String) -> ConfigError {
        let chain = path.count > 1 ? " (\(path.joined(separator: " -> ")))" : ""
        return ConfigError(code, "cannot create '\(name)'\(chain): \(message)")
    }
}

extension Registry {
    /// Creates the object `name` describes, merging `props` over its dependencies (props win).
    /// The caller owns the result (free it with the class's destroy).
    public func create(_ name: String, props: [String: Value] = [:]) throws(ConfigError) -> UnsafeMutableRawPointer {
        var propsHeap: UnsafeMutablePointer<RawValue>?
        if !props.isEmpty {
            guard let heap = Value.map(props).makeHeap() else { throw ConfigError(.noMemory, "out of memory building props") }
            propsHeap = heap
        }
        defer { if let propsHeap { HeapValue.free(propsHeap) } }
        var name = name
        let result: Result<UnsafeMutableRawPointer, ConfigError> = name.withUTF8 { u in
            do throws(ConfigError) {
                return .success(try create(bytes: u.baseAddress ?? emptyKey, length: u.count, props: propsHeap.map { UnsafePointer($0) }))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Creates a Swift object of type `T` (a class registered with a Swift closure).
    public func create<T: AnyObject>(_ name: String, props: [String: Value] = [:], as type: T.Type) throws(ConfigError) -> T {
        let p = try create(name, props: props)
        let object = Unmanaged<AnyObject>.fromOpaque(p).takeRetainedValue()
        guard let typed = object as? T else {
            throw ConfigError(.type, "'\(name)' built a \(Swift.type(of: object)), not a \(T.self)")
        }
        return typed
    }

    /// Creates by a NUL-terminated name; `props` (a map, or nil) is borrowed for the call.
    public func create(cName: UnsafePointer<CChar>, props: UnsafePointer<RawValue>?) throws(ConfigError) -> UnsafeMutableRawPointer {
        let (hash, length) = byteHash(cString: cName)
        return try create(bytes: UnsafeRawPointer(cName).assumingMemoryBound(to: UInt8.self), length: length, hash: hash, props: props)
    }

    /// Creates by name bytes.
    func create(bytes: UnsafePointer<UInt8>, length: Int, props: UnsafePointer<RawValue>?) throws(ConfigError) -> UnsafeMutableRawPointer {
        try create(bytes: bytes, length: length, hash: byteHash(UnsafeRawBufferPointer(start: bytes, count: length)), props: props)
    }

    @inline(__always)
    func create(bytes: UnsafePointer<UInt8>, length: Int, hash: UInt64, props: UnsafePointer<RawValue>?) throws(ConfigError) -> UnsafeMutableRawPointer {
        if let props, props.pointee.valueKind != .map {
            throw ConfigError(.invalidArgument, "props must be a map, not a \(props.pointee.valueKind)")
        }
        let maxDepth = limits.maxCreateDepth
        let result: Result<UnsafeMutableRawPointer, ConfigError> = cell.read { s in
            let index = s.entries.names.find(bytes, length, hash: hash)
            guard index >= 0, s.entries.plans[index].live else {
                let name = String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
                return .failure(ConfigError(.notFound, "no entry named '\(name)'\(Suggestions.hint(for: name, in: s.entries.liveNames))"))
            }
            let resolver = Resolver(snapshot: s, maxDepth: maxDepth)
            do throws(CreateFailure) {
                return .success(try resolver.build(index, props: props, depth: 0))
            } catch {
                return .failure(error.error(for: String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)))
            }
        }
        return try result.get()
    }
}

/// Walks compiled plans depth-first, calling host constructors. Everything it builds for a call
/// that fails is destroyed before the error is returned.
struct Resolver {
    let snapshot: Snapshot
    let maxDepth: Int

    init(snapshot: Snapshot, maxDepth: Int) {
        self.snapshot = snapshot
        self.maxDepth = maxDepth
    }

    private func entryName(_ index: Int) -> String {
        snapshot.entries.compiled[index]?.definition.name ?? "#\(index)"
    }

    /// Builds entry `index`; props (a map or nil) are merged over its dependencies.
    func build(_ index: Int, props: UnsafePointer<RawValue>?, depth: Int) throws(CreateFailure) -> UnsafeMutableRawPointer {
        let plan = snapshot.entries.plans[index]
        let slot = Int(plan.classSlot)
        guard slot >= 0, slot < snapshot.classes.count, let create = snapshot.classes.functions[slot].create else {
            let cls = slot >= 0 && slot < snapshot.classes.names.count ? snapshot.classes.names[slot] : "?"
            throw CreateFailure(code: .classNotRegistered, message: "class '\(cls)' of entry '\(entryName(index))' is not registered",
                                path: [entryName(index)])
        }
        if depth >= maxDepth {
            throw CreateFailure(code: .limit, message: "references nested deeper than the create depth limit of \(maxDepth)",
                                path: [entryName(index)])
        }
        let functions = snapshot.classes.functions[slot]
        let propsCount = props.map { Int($0.pointee.count) } ?? 0

        if plan.slotCount == 0 && propsCount == 0 {
            guard let object = create(UnsafeRawPointer(emptyArgumentsMap), functions.context) else {
                throw createFailed(index)
            }
            return object
        }

        let argsBytes = MemoryLayout<RawValue>.stride
        let slotBytes = (Int(plan.slotCount) + propsCount) * MemoryLayout<RawMapSlot>.stride
        let objectBytes = Int(plan.objectCount) * MemoryLayout<BuiltObject>.stride
        let total = argsBytes + slotBytes + objectBytes + Int(plan.scratchBytes)
        return try withUnsafeTemporaryAllocation(byteCount: total, alignment: 16) { (buffer) throws(CreateFailure) -> UnsafeMutableRawPointer in
            let base = buffer.baseAddress!
            let args = base.bindMemory(to: RawValue.self, capacity: 1)
            let top = (base + argsBytes).bindMemory(to: RawMapSlot.self, capacity: Int(plan.slotCount) + propsCount)
            var work = Work(
                objects: (base + argsBytes + slotBytes).bindMemory(to: BuiltObject.self, capacity: max(1, Int(plan.objectCount))),
                scratch: base + argsBytes + slotBytes + objectBytes)
            var n = 0
            do throws(CreateFailure) {
                for i in 0 ..< Int(plan.slotCount) {
                    let s = plan.slots![i]
                    if let props, ValueRef(props).lookup(s.key, s.keyLength) != nil { continue }
                    (top + n).initialize(to: RawMapSlot(key: s.key, keyLength: s.keyLength, value: try evaluate(s, &work, depth: depth)))
                    n += 1
                }
                if let props, let slots = props.pointee.mapSlots {
                    for i in 0 ..< propsCount {
                        (top + n).initialize(to: slots[i])
                        n += 1
                    }
                }
                args.initialize(to: .borrowedMap(UnsafePointer(top), count: n))
                guard let object = create(UnsafeRawPointer(args), functions.context) else {
                    throw createFailed(index)
                }
                if functions.borrowsArguments { destroy(work.objects, count: work.built) }
                return object
            } catch {
                destroy(work.objects, count: work.built)
                var failure = error
                failure.path.insert(entryName(index), at: 0)
                throw failure
            }
        }
    }

    /// An object built during one create, with the class that destroys it.
    struct BuiltObject {
        var object: UnsafeMutableRawPointer
        var classSlot: Int32
    }

    /// Per-call bookkeeping inside the scratch memory.
    struct Work {
        var objects: UnsafeMutablePointer<BuiltObject>
        var built = 0
        var scratch: UnsafeMutableRawPointer

        init(objects: UnsafeMutablePointer<BuiltObject>, scratch: UnsafeMutableRawPointer) {
            self.objects = objects
            self.scratch = scratch
        }

        mutating func take(_ bytes: Int) -> UnsafeMutableRawPointer {
            let p = scratch
            scratch += bytes
            return p
        }
    }

    private func evaluate(_ s: PlanSlot, _ work: inout Work, depth: Int) throws(CreateFailure) -> RawValue {
        switch s.op {
        case .literal:
            return s.literal
        case .reference:
            let target = Int(s.target)
            let object = try build(target, props: nil, depth: depth + 1)
            (work.objects + work.built).initialize(to: BuiltObject(object: object, classSlot: snapshot.entries.plans[target].classSlot))
            work.built += 1
            return .object(object)
        case .list:
            let count = Int(s.childCount)
            let elements = work.take(count * MemoryLayout<RawValue>.stride).bindMemory(to: RawValue.self, capacity: count)
            for i in 0 ..< count {
                (elements + i).initialize(to: try evaluate(s.children![i], &work, depth: depth))
            }
            return .borrowedList(UnsafePointer(elements), count: count)
        case .map:
            let count = Int(s.childCount)
            let slots = work.take(count * MemoryLayout<RawMapSlot>.stride).bindMemory(to: RawMapSlot.self, capacity: count)
            for i in 0 ..< count {
                let c = s.children![i]
                (slots + i).initialize(to: RawMapSlot(key: c.key, keyLength: c.keyLength, value: try evaluate(c, &work, depth: depth)))
            }
            return .borrowedMap(UnsafePointer(slots), count: count)
        }
    }

    /// Destroys built objects in reverse order of creation.
    private func destroy(_ objects: UnsafeMutablePointer<BuiltObject>, count: Int) {
        var i = count - 1
        while i >= 0 {
            let o = objects[i]
            let f = snapshot.classes.functions[Int(o.classSlot)]
            f.destroy?(o.object, f.context)
            i -= 1
        }
    }

    private func createFailed(_ index: Int) -> CreateFailure {
        let slot = Int(snapshot.entries.plans[index].classSlot)
        let reason = HostFailure.take().map { ": \($0)" } ?? " returned NULL"
        return CreateFailure(code: .createFailed,
                             message: "create of class '\(snapshot.classes.names[slot])' for entry '\(entryName(index))'\(reason)",
                             path: [])
    }
}
