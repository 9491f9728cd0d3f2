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

@_cdecl("cr_registry_free")
public func cr_registry_free(_ reg: OpaquePointer?) {
    guard let reg else { return }
    if UnsafeRawPointer(reg) == UnsafeRawPointer(cr_shared()) {
        LastError.set(.invalidArgument, "cr_registry_free: the shared registry cannot be freed")
        return
    }
    Unmanaged<Registry>.fromOpaque(UnsafeRawPointer(reg)).release()
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

@_cdecl("cr_load_file")
public func cr_load_file(_ reg: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ fmt: cr_format) -> Int32 {
    guard let path else { return fail(.invalidArgument, "cr_load_file: path is NULL") }
    guard let f = format(fmt) else { return fail(.invalidArgument, "cr_load_file: unknown format \(fmt.rawValue)") }
    return withRegistry(reg) { r in status { () throws(ConfigError) in try r.load(path: String(cString: path), format: f) } }
        ?? fail(.invalidArgument, "cr_load_file: reg is NULL")
}

@_cdecl("cr_load_files")
public func cr_load_files(_ reg: OpaquePointer?, _ paths: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int, _ fmt: cr_format) -> Int32 {
    guard paths != nil || count == 0 else { return fail(.invalidArgument, "cr_load_files: paths is NULL") }
    guard let f = format(fmt) else { return fail(.invalidArgument, "cr_load_files: unknown format \(fmt.rawValue)") }
    var list: [String] = []
    for i in 0 ..< count {
        guard let p = paths![i] else { return fail(.invalidArgument, "cr_load_files: paths[\(i)] is NULL") }
        list.append(String(cString: p))
    }
    return withRegistry(reg) { r in status { () throws(ConfigError) in try r.load(paths: list, format: f) } }
        ?? fail(.invalidArgument, "cr_load_files: reg is NULL")
}

@_cdecl("cr_load_string")
public func cr_load_string(_ reg: OpaquePointer?, _ text: UnsafePointer<CChar>?, _ length: Int, _ fmt: cr_format) -> Int32 {
    guard text != nil || length == 0 else { return fail(.invalidArgument, "cr_load_string: text is NULL") }
    guard let f = format(fmt) else { return fail(.invalidArgument, "cr_load_string: unknown format \(fmt.rawValue)") }
    let bytes = UnsafeRawBufferPointer(start: text, count: length)
    return withRegistry(reg) { r in status { () throws(ConfigError) in try r.load(bytes: bytes, format: f) } }
        ?? fail(.invalidArgument, "cr_load_string: reg is NULL")
}

@_cdecl("cr_registry_create")
public func cr_registry_create(_ reg: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ props: OpaquePointer?) -> UnsafeMutableRawPointer? {
    guard let reg else { _ = fail(.invalidArgument, "cr_registry_create: reg is NULL"); return nil }
    return create(reg, name, props)
}

@_cdecl("cr_create")
public func cr_create(_ name: UnsafePointer<CChar>?, _ props: OpaquePointer?) -> UnsafeMutableRawPointer? {
    create(cr_shared(), name, props)
}

@inline(__always)
private func create(_ reg: OpaquePointer, _ name: UnsafePointer<CChar>?, _ props: OpaquePointer?) -> UnsafeMutableRawPointer? {
    guard let name else { _ = fail(.invalidArgument, "cr_create: name is NULL"); return nil }
    let propsValue = props.map { UnsafePointer<RawValue>($0) }
    return withRegistry(reg) { r in
        do throws(ConfigError) {
            return try r.create(cName: name, props: propsValue)
        } catch {
            LastError.set(error)
            return nil
        }
    } ?? nil
}
