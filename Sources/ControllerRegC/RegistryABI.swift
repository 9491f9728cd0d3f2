#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ControllerReg
import struct CControllerRegHeader.cr_class
import struct CControllerRegHeader.cr_format
import struct CControllerRegHeader.cr_lifestyle
import struct CControllerRegHeader.cr_owner

// Registries, classes, loading and creating: C entry points over `Registry`.

/// The registry behind a handle, borrowed for the call.
@inline(__always)
func withRegistry<R>(_ reg: OpaquePointer?, _ body: (Registry) -> R) -> R? {
    guard let reg else { return nil }
    return Unmanaged<Registry>.fromOpaque(UnsafeRawPointer(reg))._withUnsafeGuaranteedRef(body)
}

func format(_ f: cr_format) -> ConfigFormat? {
    switch f.rawValue {
    case 0: return .auto
    case 1: return .json
    case 2: return .yaml
    case 3: return .plist
    default: return nil
    }
}

@_cdecl("cr_registry_new")
public func cr_registry_new() -> OpaquePointer? {
    OpaquePointer(Unmanaged.passRetained(Registry()).toOpaque())
}

@_cdecl("cr_registry_new_child")
public func cr_registry_new_child(_ parent: OpaquePointer?) -> OpaquePointer? {
    guard let parentRegistry = withRegistry(parent, { $0 }) else {
        _ = fail(.invalidArgument, "cr_registry_new_child: parent is NULL")
        return nil
    }
    if parentRegistry.isClosed {
        _ = fail(.invalidArgument, "cr_registry_new_child: the parent registry has been freed")
        return nil
    }
    return OpaquePointer(Unmanaged.passRetained(Registry(parent: parentRegistry)).toOpaque())
}

@_cdecl("cr_registry_free")
public func cr_registry_free(_ reg: OpaquePointer?) {
    guard let reg else { return }
    if UnsafeRawPointer(reg) == UnsafeRawPointer(cr_shared()) {
        LastError.set(.invalidArgument, "cr_registry_free: the shared registry cannot be freed")
        return
    }
    let registry = Unmanaged<Registry>.fromOpaque(UnsafeRawPointer(reg))
    registry._withUnsafeGuaranteedRef { $0.close() }
    registry.release()
}

@_cdecl("cr_registry_start")
public func cr_registry_start(_ reg: OpaquePointer?) -> Int32 {
    withRegistry(reg) { r in status { () throws(ConfigError) in try r.start() } } ?? fail(.invalidArgument, "cr_registry_start: reg is NULL")
}

@_cdecl("cr_add_name_template")
public func cr_add_name_template(_ reg: OpaquePointer?, _ template: UnsafePointer<CChar>?) -> Int32 {
    guard let template else { return fail(.invalidArgument, "cr_add_name_template: name_template is NULL") }
    return withRegistry(reg) { r in status { () throws(ConfigError) in try r.addNameTemplate(String(cString: template)) } }
        ?? fail(.invalidArgument, "cr_add_name_template: reg is NULL")
}

@_cdecl("cr_shared")
public func cr_shared() -> OpaquePointer {
    OpaquePointer(Unmanaged.passUnretained(Registry.shared).toOpaque())
}

/// Copies a C class description into a `HostClass`.
func hostClass(_ cls: UnsafePointer<cr_class>, userData: UnsafeMutableRawPointer?) -> HostClass? {
    let c = cls.pointee
    nonisolated(unsafe) let userData = userData
    let release: (@Sendable () -> Void)? = c.release.map { fn in
        nonisolated(unsafe) let fn = fn
        return { fn(userData) }
    }
    guard let create = c.create else {
        release?()
        return nil
    }
    return HostClass(
        create: unsafeBitCast(create, to: HostClass.CreateFunction.self),
        destroy: c.destroy.map { unsafeBitCast($0, to: HostClass.DestroyFunction.self) },
        set: c.set.map { unsafeBitCast($0, to: HostClass.SetFunction.self) },
        context: userData,
        release: release,
        borrowsArguments: false)
}

private func register(_ reg: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ cls: UnsafePointer<cr_class>?,
                      _ userData: UnsafeMutableRawPointer?, replace: Bool, function: String) -> Int32 {
    guard let cls else { return fail(.invalidArgument, "\(function): cls is NULL") }
    guard let host = hostClass(cls, userData: userData) else { return fail(.invalidArgument, "\(function): cls->create is NULL") }
    guard let name else {
        host.release?()
        return fail(.invalidArgument, "\(function): class_name is NULL")
    }
    guard let result = withRegistry(reg, { r in
        status { () throws(ConfigError) in
            if replace { try r.replaceClass(String(cString: name), host) } else { try r.register(className: String(cString: name), host) }
        }
    }) else {
        host.release?()
        return fail(.invalidArgument, "\(function): reg is NULL")
    }
    return result
}

@_cdecl("cr_register_class")
public func cr_register_class(_ reg: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ cls: UnsafePointer<cr_class>?,
                              _ userData: UnsafeMutableRawPointer?) -> Int32 {
    register(reg, name, cls, userData, replace: false, function: "cr_register_class")
}

@_cdecl("cr_replace_class")
public func cr_replace_class(_ reg: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ cls: UnsafePointer<cr_class>?,
                             _ userData: UnsafeMutableRawPointer?) -> Int32 {
    register(reg, name, cls, userData, replace: true, function: "cr_replace_class")
}

/// The load mode for flags, or nil for unknown bits.
private func loadMode(_ flags: UInt32) -> LoadMode? {
    switch flags {
    case 0: return .add
    case 1: return .override
    default: return nil
    }
}

@_cdecl("cr_load_file")
public func cr_load_file(_ reg: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ fmt: cr_format) -> Int32 {
    loadFile(reg, path, fmt, 0, "cr_load_file")
}

@_cdecl("cr_load_file_ex")
public func cr_load_file_ex(_ reg: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ fmt: cr_format, _ flags: UInt32) -> Int32 {
    loadFile(reg, path, fmt, flags, "cr_load_file_ex")
}

private func loadFile(_ reg: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ fmt: cr_format, _ flags: UInt32, _ function: String) -> Int32 {
    guard let path else { return fail(.invalidArgument, "\(function): path is NULL") }
    guard let f = format(fmt) else { return fail(.invalidArgument, "\(function): unknown format \(fmt.rawValue)") }
    guard let mode = loadMode(flags) else { return fail(.invalidArgument, "\(function): unknown flags \(flags)") }
    return withRegistry(reg) { r in status { () throws(ConfigError) in try r.load(path: String(cString: path), format: f, mode: mode) } }
        ?? fail(.invalidArgument, "\(function): reg is NULL")
}

@_cdecl("cr_load_files")
public func cr_load_files(_ reg: OpaquePointer?, _ paths: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int, _ fmt: cr_format) -> Int32 {
    loadFiles(reg, paths, count, fmt, 0, "cr_load_files")
}

@_cdecl("cr_load_files_ex")
public func cr_load_files_ex(_ reg: OpaquePointer?, _ paths: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int, _ fmt: cr_format,
                             _ flags: UInt32) -> Int32 {
    loadFiles(reg, paths, count, fmt, flags, "cr_load_files_ex")
}

private func loadFiles(_ reg: OpaquePointer?, _ paths: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int, _ fmt: cr_format,
                       _ flags: UInt32, _ function: String) -> Int32 {
    guard paths != nil || count == 0 else { return fail(.invalidArgument, "\(function): paths is NULL") }
    guard let f = format(fmt) else { return fail(.invalidArgument, "\(function): unknown format \(fmt.rawValue)") }
    guard let mode = loadMode(flags) else { return fail(.invalidArgument, "\(function): unknown flags \(flags)") }
    var list: [String] = []
    for i in 0 ..< count {
        guard let p = paths![i] else { return fail(.invalidArgument, "\(function): paths[\(i)] is NULL") }
        list.append(String(cString: p))
    }
    return withRegistry(reg) { r in status { () throws(ConfigError) in try r.load(paths: list, format: f, mode: mode) } }
        ?? fail(.invalidArgument, "\(function): reg is NULL")
}

@_cdecl("cr_load_string")
public func cr_load_string(_ reg: OpaquePointer?, _ text: UnsafePointer<CChar>?, _ length: Int, _ fmt: cr_format) -> Int32 {
    loadString(reg, text, length, fmt, 0, "cr_load_string")
}

@_cdecl("cr_load_string_ex")
public func cr_load_string_ex(_ reg: OpaquePointer?, _ text: UnsafePointer<CChar>?, _ length: Int, _ fmt: cr_format, _ flags: UInt32) -> Int32 {
    loadString(reg, text, length, fmt, flags, "cr_load_string_ex")
}

private func loadString(_ reg: OpaquePointer?, _ text: UnsafePointer<CChar>?, _ length: Int, _ fmt: cr_format, _ flags: UInt32,
                        _ function: String) -> Int32 {
    guard text != nil || length == 0 else { return fail(.invalidArgument, "\(function): text is NULL") }
    guard let f = format(fmt) else { return fail(.invalidArgument, "\(function): unknown format \(fmt.rawValue)") }
    guard let mode = loadMode(flags) else { return fail(.invalidArgument, "\(function): unknown flags \(flags)") }
    let bytes = UnsafeRawBufferPointer(start: text, count: length)
    return withRegistry(reg) { r in status { () throws(ConfigError) in try r.load(bytes: bytes, format: f, mode: mode) } }
        ?? fail(.invalidArgument, "\(function): reg is NULL")
}

@_cdecl("cr_add_entry")
public func cr_add_entry(_ reg: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ className: UnsafePointer<CChar>?,
                         _ lifestyle: cr_lifestyle, _ dependencies: OpaquePointer?) -> Int32 {
    guard let name, let className else { return fail(.invalidArgument, "cr_add_entry: name and class_name must not be NULL") }
    let styles: [Lifestyle] = [.transient, .singleton, .graph]
    guard Int(lifestyle.rawValue) < styles.count else { return fail(.invalidArgument, "cr_add_entry: unknown lifestyle \(lifestyle.rawValue)") }
    var map: ValueRef?
    if let dependencies {
        map = ValueRef(UnsafePointer<RawValue>(dependencies))
        guard map!.kind == .map else { return fail(.invalidArgument, "cr_add_entry: dependencies must be a map, not \(DependencyRule.kindName(map!.kind))") }
        // Reading recurses once per level: refuse a value nested deeper than configs may be.
        if nestingDepth(map!, stoppingAfter: DependencyValue.maxNesting + 1) > DependencyValue.maxNesting + 1 {
            return fail(.limit, "cr_add_entry: dependencies nest deeper than \(DependencyValue.maxNesting) levels")
        }
    }
    let style = styles[Int(lifestyle.rawValue)]
    return withRegistry(reg) { r in
        status { () throws(ConfigError) in
            try r.add([EntryDefinition(name: String(cString: name), className: String(cString: className), lifestyle: style, reading: map)])
        }
    } ?? fail(.invalidArgument, "cr_add_entry: reg is NULL")
}

@_cdecl("cr_remove_entry")
public func cr_remove_entry(_ reg: OpaquePointer?, _ name: UnsafePointer<CChar>?) -> Int32 {
    guard let name else { return fail(.invalidArgument, "cr_remove_entry: name is NULL") }
    return withRegistry(reg) { r in status { () throws(ConfigError) in try r.remove(entriesNamed: [String(cString: name)]) } }
        ?? fail(.invalidArgument, "cr_remove_entry: reg is NULL")
}

@_cdecl("cr_registry_entries")
public func cr_registry_entries(_ reg: OpaquePointer?) -> OpaquePointer? {
    guard let entries = withRegistry(reg, { $0.entries }) else {
        _ = fail(.invalidArgument, "cr_registry_entries: reg is NULL")
        return nil
    }
    var list: [Value] = []
    list.reserveCapacity(entries.count)
    for e in entries {
        var m: [String: Value] = ["name": .string(e.name), "class": .string(e.className), "lifestyle": .string(e.lifestyle.rawValue)]
        if let d = e.description { m["description"] = .string(d) }
        switch e.tag {
        case .string(let s)?: m["tag"] = .string(s)
        case .int(let i)?: m["tag"] = .int(i)
        case nil: break
        }
        list.append(.map(m))
    }
    guard let heap = Value.list(list).makeHeapValue() else {
        _ = fail(.noMemory, "cr_registry_entries: out of memory")
        return nil
    }
    return OpaquePointer(heap)
}

@_cdecl("cr_inject")
public func cr_inject(_ reg: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ object: UnsafeMutableRawPointer?) -> Int32 {
    guard let name else { return fail(.invalidArgument, "cr_inject: name is NULL") }
    guard let object else { return fail(.invalidArgument, "cr_inject: object is NULL") }
    return withRegistry(reg) { r in status { () throws(ConfigError) in try r.inject(String(cString: name), into: object) } }
        ?? fail(.invalidArgument, "cr_inject: reg is NULL")
}

@_cdecl("cr_provider_create")
public func cr_provider_create(_ provider: UnsafeMutableRawPointer?, _ props: OpaquePointer?) -> UnsafeMutableRawPointer? {
    providerCreate(provider, props, nil, "cr_provider_create")
}

@_cdecl("cr_provider_create_ex")
public func cr_provider_create_ex(_ provider: UnsafeMutableRawPointer?, _ props: OpaquePointer?,
                                  _ owner: UnsafeMutablePointer<cr_owner>?) -> UnsafeMutableRawPointer? {
    providerCreate(provider, props, owner, "cr_provider_create_ex")
}

private func providerCreate(_ provider: UnsafeMutableRawPointer?, _ props: OpaquePointer?,
                            _ owner: UnsafeMutablePointer<cr_owner>?, _ function: String) -> UnsafeMutableRawPointer? {
    guard let provider else { _ = fail(.invalidArgument, "\(function): provider is NULL"); return nil }
    let propsValue = props.map { UnsafePointer<RawValue>($0) }
    return Unmanaged<Provider>.fromOpaque(provider)._withUnsafeGuaranteedRef { p in
        do throws(ConfigError) {
            let (object, registryOwned) = try p.create(rawProps: propsValue)
            owner?.pointee = cr_owner(rawValue: registryOwned ? 2 : 1)
            return object
        } catch {
            LastError.set(error)
            return nil
        }
    }
}

@_cdecl("cr_provider_name")
public func cr_provider_name(_ provider: UnsafeMutableRawPointer?) -> UnsafePointer<CChar>? {
    guard let provider else { _ = fail(.invalidArgument, "cr_provider_name: provider is NULL"); return nil }
    return Unmanaged<Provider>.fromOpaque(provider)._withUnsafeGuaranteedRef { $0.cEntryName }
}

@_cdecl("cr_provider_free")
public func cr_provider_free(_ provider: UnsafeMutableRawPointer?) {
    guard let provider else { return }
    Unmanaged<Provider>.fromOpaque(provider).release()
}

@_cdecl("cr_registry_create")
public func cr_registry_create(_ reg: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ props: OpaquePointer?) -> UnsafeMutableRawPointer? {
    guard let reg else { _ = fail(.invalidArgument, "cr_registry_create: reg is NULL"); return nil }
    return create(reg, name, props, nil)
}

@_cdecl("cr_registry_create_ex")
public func cr_registry_create_ex(_ reg: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ props: OpaquePointer?,
                                  _ owner: UnsafeMutablePointer<cr_owner>?) -> UnsafeMutableRawPointer? {
    guard let reg else { _ = fail(.invalidArgument, "cr_registry_create_ex: reg is NULL"); return nil }
    return create(reg, name, props, owner)
}

@_cdecl("cr_create")
public func cr_create(_ name: UnsafePointer<CChar>?, _ props: OpaquePointer?) -> UnsafeMutableRawPointer? {
    create(cr_shared(), name, props, nil)
}

@inline(__always)
private func create(_ reg: OpaquePointer, _ name: UnsafePointer<CChar>?, _ props: OpaquePointer?,
                    _ owner: UnsafeMutablePointer<cr_owner>?) -> UnsafeMutableRawPointer? {
    guard let name else { _ = fail(.invalidArgument, "cr_create: name is NULL"); return nil }
    let propsValue = props.map { UnsafePointer<RawValue>($0) }
    return withRegistry(reg) { r in
        do throws(ConfigError) {
            let (object, registryOwned) = try r.create(cName: name, props: propsValue)
            owner?.pointee = cr_owner(rawValue: registryOwned ? 2 : 1)
            return object
        } catch {
            LastError.set(error)
            return nil
        }
    } ?? nil
}

/// The limit a `cr_limit` value names.
private nonisolated(unsafe) let limitPaths: [WritableKeyPath<RegistryLimits, Int>] = [
    \.config.maxInputBytes, \.config.maxDepth, \.config.maxNodes, \.config.maxStringBytes,
    \.config.maxAliasExpansion, \.maxEntries, \.maxCreateDepth,
]

@_cdecl("cr_registry_set_limit")
public func cr_registry_set_limit(_ reg: OpaquePointer?, _ limit: UInt32, _ value: Int64) -> Int32 {
    guard Int(limit) < limitPaths.count else { return fail(.invalidArgument, "cr_registry_set_limit: unknown limit \(limit)") }
    guard value >= 1 else { return fail(.invalidArgument, "cr_registry_set_limit: a limit must be at least 1, got \(value)") }
    return withRegistry(reg) { r in
        status { () throws(ConfigError) in
            var l = r.limits
            l[keyPath: limitPaths[Int(limit)]] = Int(clamping: value)
            try r.setLimits(l)
        }
    } ?? fail(.invalidArgument, "cr_registry_set_limit: reg is NULL")
}

@_cdecl("cr_registry_get_limit")
public func cr_registry_get_limit(_ reg: OpaquePointer?, _ limit: UInt32) -> Int64 {
    guard Int(limit) < limitPaths.count else { _ = fail(.invalidArgument, "cr_registry_get_limit: unknown limit \(limit)"); return -1 }
    guard let value = withRegistry(reg, { Int64($0.limits[keyPath: limitPaths[Int(limit)]]) }) else {
        _ = fail(.invalidArgument, "cr_registry_get_limit: reg is NULL")
        return -1
    }
    return value
}

/// How deeply a value nests (a scalar is 0, an empty map 1), without recursion; stops past `limit`.
private func nestingDepth(_ root: ValueRef, stoppingAfter limit: Int) -> Int {
    var deepest = 0
    var stack: [(ValueRef, Int)] = [(root, 0)]
    while let (v, depth) = stack.popLast() {
        guard v.kind == .list || v.kind == .map else { continue }
        deepest = max(deepest, depth + 1)
        if deepest > limit { return deepest }
        for i in 0 ..< v.count {
            if let child = v.kind == .list ? v[i] : v.value(at: i) { stack.append((child, depth + 1)) }
        }
    }
    return deepest
}
