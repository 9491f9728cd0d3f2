import ControllerReg

import struct CControllerRegHeader.cr_class
import struct CControllerRegHeader.cr_entry_options
import struct CControllerRegHeader.cr_lifestyle
import struct CControllerRegHeader.cr_limit

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Registries, classes, entries from code and limits: C entry points over `Registry` (loading is
// in LoadABI.swift, creating in CreateABI.swift).

/// The registry behind a handle, borrowed for the call.
@inline(__always)
func withRegistry<R>(_ reg: OpaquePointer?, _ body: (Registry) -> R) -> R? {
    guard let reg else { return nil }
    return Unmanaged<Registry>.fromOpaque(UnsafeRawPointer(reg))._withUnsafeGuaranteedRef(body)
}

/// A name given through the C API (an entry, class or template name), or nil after recording why
/// it cannot be one: NULL, longer than the registry's CR_LIMIT_STRING_BYTES, or not valid UTF-8.
/// Invalid bytes are never repaired: two different byte strings must not become one name.
func cName(_ p: UnsafePointer<CChar>?, _ what: StaticString, _ function: StaticString, _ registry: Registry) -> String? {
    guard let p else {
        nullArgument("\(what)", function)
        return nil
    }
    let length = strlen(p), maxBytes = registry.limits.config.maxStringBytes
    if length > maxBytes {
        _ = fail(
            .limit,
            "\(function): \(what) is \(length) bytes, longer than the string limit of \(maxBytes) bytes"
                + ConfigLimits.fix("CR_LIMIT_STRING_BYTES"))
        return nil
    }
    guard utf8Text(p, length, "\(what)", function) else { return nil }
    return String(decoding: UnsafeRawBufferPointer(start: p, count: length), as: UTF8.self)
}

/// Whether the `length` bytes at `p` (a name, a path, a key or a string value handed to the C API)
/// are well-formed UTF-8; if not, records CR_ERR_INVALID_ARGUMENT naming `what` and its first bad
/// byte. The one rule for text a host hands over: never repaired, since two different byte strings
/// must not become one name, key or path, and every reader (Swift's `String`, Python's `str`) gets
/// the text as it was given.
func utf8Text(
    _ p: UnsafePointer<CChar>, _ length: Int, _ what: String, _ function: StaticString,
    fix: String = "convert it to UTF-8 first"
) -> Bool {
    let reason = UnsafeRawPointer(p).withMemoryRebound(to: UInt8.self, capacity: length) {
        invalidUTF8Reason($0, length, fix: fix)
    }
    guard let reason else { return true }
    _ = fail(.invalidArgument, "\(function): \(what) \(reason)")
    return false
}

@_cdecl("cr_registry_new")
public func cr_registry_new() -> OpaquePointer? {
    OpaquePointer(Unmanaged.passRetained(Registry()).toOpaque())
}

@_cdecl("cr_registry_new_child")
public func cr_registry_new_child(_ parent: OpaquePointer?) -> OpaquePointer? {
    guard let parentRegistry = withRegistry(parent, { $0 }) else {
        nullArgument("parent", "cr_registry_new_child")
        return nil
    }
    if parentRegistry.isClosed {
        _ = fail(.invalidArgument, "cr_registry_new_child: parent: \(parentRegistry.closedText)")
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
    guard registry._withUnsafeGuaranteedRef({ $0.closeHandle() }) else {
        LastError.set(
            .invalidArgument,
            "cr_registry_free: the registry is already being freed (a destroy or release callback of its own cr_registry_free called it again); this call is ignored: free a registry once"
        )
        return
    }
    registry.release()
}

@_cdecl("cr_registry_start")
public func cr_registry_start(_ reg: OpaquePointer?) -> Int32 {
    // Held for the call: a singleton's create callback may free the registry (then torn down once
    // that create returns, `ClosedRegistries`) while start still has others to build.
    guard let registry = withRegistry(reg, { $0 }) else { return nullArgument("reg", "cr_registry_start") }
    return status("cr_registry_start") { () throws(ConfigError) in try registry.start() }
}

@_cdecl("cr_add_name_template")
public func cr_add_name_template(_ reg: OpaquePointer?, _ template: UnsafePointer<CChar>?) -> Int32 {
    guard let registry = withRegistry(reg, { $0 }) else { return nullArgument("reg", "cr_add_name_template") }
    guard let t = cName(template, "name_template", "cr_add_name_template", registry) else { return cr_last_error_code() }
    return status("cr_add_name_template") { () throws(ConfigError) in try registry.addNameTemplate(t) }
}

@_cdecl("cr_shared")
public func cr_shared() -> OpaquePointer {
    OpaquePointer(Unmanaged.passUnretained(Registry.shared).toOpaque())
}

/// The cr_class layouts this library knows: 0 (left by designated initialisers) and 1.
private let knownClassVersion: UInt32 = 1

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

private func register(
    _ reg: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ cls: UnsafePointer<cr_class>?,
    _ userData: UnsafeMutableRawPointer?, replace: Bool, function: StaticString
) -> Int32 {
    guard let cls else { return nullArgument("cls", function) }
    let version = cls.pointee.version
    if version > knownClassVersion {
        cls.pointee.release?(userData)
        return fail(
            .invalidArgument,
            "\(function): cls->version is \(version); this library knows cr_class versions 0 and \(knownClassVersion) (a header newer than the library?)"
        )
    }
    guard let host = hostClass(cls, userData: userData) else {
        return fail(.invalidArgument, "\(function): cls->create is NULL; set the class's create callback (it builds the objects)")
    }
    guard let registry = withRegistry(reg, { $0 }) else {
        host.release?()
        return nullArgument("reg", function)
    }
    guard let className = cName(name, "class_name", function, registry) else {
        host.release?()
        return cr_last_error_code()
    }
    return status(function) { () throws(ConfigError) in
        if replace { try registry.replaceClass(className, host) } else { try registry.register(className: className, host) }
    }
}

@_cdecl("cr_register_class")
public func cr_register_class(
    _ reg: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ cls: UnsafePointer<cr_class>?,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    register(reg, name, cls, userData, replace: false, function: "cr_register_class")
}

@_cdecl("cr_replace_class")
public func cr_replace_class(
    _ reg: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ cls: UnsafePointer<cr_class>?,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    register(reg, name, cls, userData, replace: true, function: "cr_replace_class")
}

@_cdecl("cr_add_entry")
public func cr_add_entry(
    _ reg: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ className: UnsafePointer<CChar>?,
    _ lifestyle: cr_lifestyle, _ dependencies: OpaquePointer?
) -> Int32 {
    addEntry(reg, name, className, lifestyle, dependencies, description: nil, tags: nil, eager: false, "cr_add_entry")
}

/// The cr_entry_options layout this library knows (CR_ENTRY_OPTIONS_VERSION).
private let knownEntryOptionsVersion: UInt32 = 1

@_cdecl("cr_add_entry_with")
public func cr_add_entry_with(
    _ reg: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ className: UnsafePointer<CChar>?,
    _ options: UnsafePointer<cr_entry_options>?
) -> Int32 {
    guard let options else {
        return addEntry(
            reg, name, className, cr_lifestyle(rawValue: 0), nil, description: nil, tags: nil, eager: false,
            "cr_add_entry_with")
    }
    guard
        acceptsOptionsVersion(
            options, known: knownEntryOptionsVersion, structName: "cr_entry_options", initMacro: "CR_ENTRY_OPTIONS_INIT",
            "cr_add_entry_with")
    else { return ErrorCode.invalidArgument.rawValue }
    let o = options.pointee
    return addEntry(
        reg, name, className, o.lifestyle, o.dependencies, description: o.description,
        tags: o.tags, eager: o.eager != 0, "cr_add_entry_with")
}

/// The one path of cr_add_entry and cr_add_entry_with: arguments checked and converted, then
/// `Registry.add`, which validates the entry as a config's.
private func addEntry(
    _ reg: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ className: UnsafePointer<CChar>?,
    _ lifestyle: cr_lifestyle, _ dependencies: OpaquePointer?, description: UnsafePointer<CChar>?,
    tags: OpaquePointer?, eager: Bool, _ function: StaticString
) -> Int32 {
    guard let name else { return nullArgument("name", function) }
    guard let className else { return nullArgument("class_name", function) }
    let styles: [Lifestyle] = [.transient, .singleton, .graph]
    guard Int(lifestyle.rawValue) < styles.count else {
        return fail(
            .invalidArgument,
            unknownEnumText(function, "lifestyle", lifestyle.rawValue) + " (use CR_LIFESTYLE_TRANSIENT, _SINGLETON or _GRAPH)")
    }
    var map: ValueRef?
    if let dependencies {
        map = ValueRef(UnsafePointer<RawValue>(dependencies))
        guard map!.kind == .map else {
            return fail(.invalidArgument, "\(function): dependencies must be a map, not \(DependencyRule.kindName(map!.kind))")
        }
        // Reading recurses once per level: refuse a value nested deeper than configs may be.
        if nestingDepth(map!, stoppingAfter: DependencyValue.maxNesting + 1) > DependencyValue.maxNesting + 1 {
            return fail(
                .limit,
                "\(function): dependencies nest deeper than \(DependencyValue.maxNesting) levels \(DependencyValue.tooDeepFix)")
        }
    }
    let style = styles[Int(lifestyle.rawValue)]
    if eager && style != .singleton {
        return fail(
            .invalidArgument, "\(function): eager is for singletons only; set lifestyle to CR_LIFESTYLE_SINGLETON or eager to 0")
    }
    guard let registry = withRegistry(reg, { $0 }) else { return nullArgument("reg", function) }
    guard let entryName = cName(name, "name", function, registry),
        let cls = cName(className, "class_name", function, registry)
    else { return cr_last_error_code() }
    var text: String?
    if let description {
        guard let d = cName(description, "description", function, registry) else { return cr_last_error_code() }
        text = d
    }
    var givenTags: [EntryTag] = []
    if let tags {
        guard let t = entryTags(ValueRef(UnsafePointer<RawValue>(tags)), function) else { return cr_last_error_code() }
        givenTags = t
    }
    return status(function) { () throws(ConfigError) in
        var definition = try EntryDefinition(name: entryName, className: cls, lifestyle: style, reading: map)
        definition.description = text
        definition.tags = givenTags
        definition.eager = eager
        try registry.add([definition])
    }
}

/// Tags given as a value: a CR_STRING or CR_INT (one tag) or a CR_LIST of them, as `Tag` in a
/// config; nil after recording what is wrong.
private func entryTags(_ value: ValueRef, _ function: StaticString) -> [EntryTag]? {
    func one(_ v: ValueRef, _ what: String) -> EntryTag? {
        switch v.kind {
        case .int: return .int(v.int!)
        case .string:
            if let s = v.string { return .string(s) }
        default: break
        }
        _ = fail(
            .invalidArgument,
            "\(function): \(what) must be a string or an integer (as Tag in a config), not \(DependencyRule.kindName(v.kind))")
        return nil
    }
    guard value.kind == .list else { return one(value, "options->tags").map { [$0] } }
    var tags: [EntryTag] = []
    for i in 0..<value.count {
        guard let element = value[i], let tag = one(element, "options->tags[\(i)]") else { return nil }
        tags.append(tag)
    }
    return tags
}

@_cdecl("cr_remove_entry")
public func cr_remove_entry(_ reg: OpaquePointer?, _ name: UnsafePointer<CChar>?) -> Int32 {
    guard let registry = withRegistry(reg, { $0 }) else { return nullArgument("reg", "cr_remove_entry") }
    guard let entry = cName(name, "name", "cr_remove_entry", registry) else { return cr_last_error_code() }
    return status("cr_remove_entry") { () throws(ConfigError) in try registry.remove(entriesNamed: [entry]) }
}

@_cdecl("cr_registry_entries")
public func cr_registry_entries(_ reg: OpaquePointer?) -> OpaquePointer? {
    guard let registry = withRegistry(reg, { $0 }) else {
        nullArgument("reg", "cr_registry_entries")
        return nil
    }
    // A closed registry (freed from a callback, or closed with its parent) has no entries to
    // list: an empty list would read as "nothing loaded".
    if registry.isClosed {
        _ = fail(.invalidArgument, "cr_registry_entries: \(registry.closedText)")
        return nil
    }
    let entries = registry.entries
    var list: [Value] = []
    list.reserveCapacity(entries.count)
    for e in entries {
        var m: [String: Value] = [
            "name": .string(e.name), "class": .string(e.className), "lifestyle": .string(e.lifestyle.rawValue),
        ]
        if let d = e.description { m["description"] = .string(d) }
        func value(_ tag: EntryTag) -> Value {
            switch tag {
            case .string(let s): return .string(s)
            case .int(let i): return .int(i)
            }
        }
        if let first = e.tags.first {
            m["tag"] = value(first)
            m["tags"] = .list(e.tags.map(value))
        }
        list.append(.map(m))
    }
    guard let heap = Value.list(list).makeHeapValue() else {
        _ = LastError.outOfMemory("cr_registry_entries")
        return nil
    }
    return OpaquePointer(heap)
}

/// The limit a `cr_limit` value names.
private nonisolated(unsafe) let limitPaths: [WritableKeyPath<RegistryLimits, Int>] = [
    \.config.maxInputBytes, \.config.maxDepth, \.config.maxNodes, \.config.maxStringBytes,
    \.config.maxAliasExpansion, \.maxEntries, \.maxCreateDepth,
]

/// Why `function` refuses a `cr_limit` it does not know, with the values it knows (as signed: a
/// host that passed -1 reads -1).
private func unknownLimit(_ function: StaticString, _ limit: UInt32) -> Int32 {
    fail(
        .invalidArgument,
        unknownEnumText(function, "limit", limit)
            + "; use a cr_limit, CR_LIMIT_INPUT_BYTES (0) to CR_LIMIT_CREATE_DEPTH (\(limitPaths.count - 1))")
}

@_cdecl("cr_registry_set_limit")
public func cr_registry_set_limit(_ reg: OpaquePointer?, _ cLimit: cr_limit, _ value: Int64) -> Int32 {
    let limit = cLimit.rawValue
    guard Int(limit) < limitPaths.count else { return unknownLimit("cr_registry_set_limit", limit) }
    guard value >= 1 else { return fail(.invalidArgument, "cr_registry_set_limit: a limit must be at least 1, got \(value)") }
    return withRegistry(reg) { r in
        status("cr_registry_set_limit") { () throws(ConfigError) in
            var l = r.limits
            l[keyPath: limitPaths[Int(limit)]] = Int(clamping: value)
            try r.setLimits(l)
        }
    } ?? nullArgument("reg", "cr_registry_set_limit")
}

@_cdecl("cr_registry_get_limit")
public func cr_registry_get_limit(_ reg: OpaquePointer?, _ cLimit: cr_limit) -> Int64 {
    let limit = cLimit.rawValue
    guard Int(limit) < limitPaths.count else {
        _ = unknownLimit("cr_registry_get_limit", limit)
        return -1
    }
    guard let registry = withRegistry(reg, { $0 }) else {
        nullArgument("reg", "cr_registry_get_limit")
        return -1
    }
    if registry.isClosed {
        _ = fail(.invalidArgument, "cr_registry_get_limit: \(registry.closedText)")
        return -1
    }
    return Int64(registry.limits[keyPath: limitPaths[Int(limit)]])
}

/// How deeply a value nests (a scalar is 0, an empty map 1), without recursion; stops past `limit`.
private func nestingDepth(_ root: ValueRef, stoppingAfter limit: Int) -> Int {
    var deepest = 0
    var stack: [(ValueRef, Int)] = [(root, 0)]
    while let (v, depth) = stack.popLast() {
        guard v.kind == .list || v.kind == .map else { continue }
        deepest = max(deepest, depth + 1)
        if deepest > limit { return deepest }
        for i in 0..<v.count {
            if let child = v.kind == .list ? v[i] : v.value(at: i) { stack.append((child, depth + 1)) }
        }
    }
    return deepest
}
