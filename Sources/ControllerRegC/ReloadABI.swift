import ControllerReg

// Reloading: cr_registry_reload / cr_registry_reload_with over `Registry.reload()`.

@_cdecl("cr_registry_reload")
public func cr_registry_reload(_ reg: OpaquePointer?) -> Int32 {
    guard let registry = withRegistry(reg, { $0 }) else { return nullArgument("reg", "cr_registry_reload") }
    return status("cr_registry_reload") { () throws(ConfigError) in _ = try registry.reload() }
}

@_cdecl("cr_registry_reload_with")
public func cr_registry_reload_with(
    _ reg: OpaquePointer?, _ changes: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    changes?.pointee = nil
    guard let registry = withRegistry(reg, { $0 }) else {
        return nullArgument("reg", "cr_registry_reload_with")
    }
    guard let changes else { return nullArgument("changes", "cr_registry_reload_with") }
    var result = ReloadChanges()
    let rc = status("cr_registry_reload_with") { () throws(ConfigError) in result = try registry.reload() }
    if rc != 0 { return rc }
    let value = Value.map([
        "added": .list(result.added.map { .string($0) }),
        "removed": .list(result.removed.map { .string($0) }),
        "changed": .list(result.changed.map { .string($0) }),
    ])
    guard let heap = value.makeHeapValue() else {
        // The reload is done; only its report could not be made.
        return LastError.outOfMemory("cr_registry_reload_with")
    }
    changes.pointee = OpaquePointer(heap)
    return 0
}
