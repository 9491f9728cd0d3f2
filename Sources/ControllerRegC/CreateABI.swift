import ControllerReg

import struct CControllerRegHeader.cr_create_options
import struct CControllerRegHeader.cr_destroyer
import struct CControllerRegHeader.cr_owner

// Creating objects: cr_create, cr_registry_create(_with), providers and injection, over
// `Registry.create(cName:)` and `Provider`.

/// The cr_create_options layout this library knows (CR_CREATE_OPTIONS_VERSION).
private let knownCreateOptionsVersion: UInt32 = 1

private let ownerNone = cr_owner(rawValue: 0), ownerReceiver = cr_owner(rawValue: 1), ownerRegistry = cr_owner(rawValue: 2)

/// Create options once checked: props and the out-pointers, each reset to "nothing" at once (so a
/// failure leaves CR_OWNER_NONE and {NULL, NULL}). The create writes the destroyer in place
/// (`Destroyer` has `cr_destroyer`'s layout) and the owner after it, with no copy between.
private struct CreateRequest {
    var props: OpaquePointer?
    var owner: UnsafeMutablePointer<cr_owner>?
    var destroyer: UnsafeMutablePointer<cr_destroyer>?
}

/// The request create options (NULL = defaults) describe, or nil after recording what is wrong
/// (then nothing is written through the options' pointers: their layout is unknown).
@inline(__always)
private func request(_ options: UnsafePointer<cr_create_options>?, _ function: StaticString) -> CreateRequest? {
    guard let options else { return CreateRequest() }
    guard
        acceptsOptionsVersion(
            options, known: knownCreateOptionsVersion, structName: "cr_create_options", initMacro: "CR_CREATE_OPTIONS_INIT",
            function)
    else {
        return nil
    }
    let o = options.pointee
    o.owner?.pointee = ownerNone
    o.destroyer?.pointee = cr_destroyer(destroy: nil, user_data: nil)
    return CreateRequest(props: o.props, owner: o.owner, destroyer: o.destroyer)
}

/// Runs `body` with the caller's `cr_destroyer` seen as the core's `Destroyer` (same layout: two
/// pointers, NULL for none; `CreateABITests` checks it), so the create writes it in place.
@inline(__always)
private func asDestroyer<R>(_ d: UnsafeMutablePointer<cr_destroyer>?, _ body: (UnsafeMutablePointer<Destroyer>?) -> R) -> R {
    guard let d else { return body(nil) }
    return d.withMemoryRebound(to: Destroyer.self, capacity: 1) { body($0) }
}

// Inlined into its C entry point (one function, not a C thunk calling a Swift one).
@_cdecl("cr_registry_create") @inline(__always)
public func cr_registry_create(
    _ reg: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ props: OpaquePointer?
) -> UnsafeMutableRawPointer? {
    create(reg, name, props, nil, nil, "cr_registry_create")
}

@_cdecl("cr_create")
public func cr_create(_ name: UnsafePointer<CChar>?, _ props: OpaquePointer?) -> UnsafeMutableRawPointer? {
    create(cr_shared(), name, props, nil, nil, "cr_create")
}

// Inlined into its C entry point, as cr_registry_create.
@_cdecl("cr_registry_create_with") @inline(__always)
public func cr_registry_create_with(
    _ reg: OpaquePointer?, _ name: UnsafePointer<CChar>?,
    _ options: UnsafePointer<cr_create_options>?
) -> UnsafeMutableRawPointer? {
    guard let r = request(options, "cr_registry_create_with") else { return nil }
    return asDestroyer(r.destroyer) { d in create(reg, name, r.props, r.owner, d, "cr_registry_create_with") }
}

@inline(__always)
private func create(
    _ reg: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ props: OpaquePointer?, _ owner: UnsafeMutablePointer<cr_owner>?,
    _ destroyer: UnsafeMutablePointer<Destroyer>?, _ function: StaticString
) -> UnsafeMutableRawPointer? {
    guard let reg, let name else {
        nullCreateArgument(reg == nil ? "reg" : "name", function)
        return nil
    }
    let propsValue = props.map { UnsafePointer<RawValue>($0) }
    return withRegistry(reg) { r in
        // Two copies of the create path: with a destroyer to write (known here: `cr_registry_create`
        // passes none), and without.
        let outcome =
            destroyer.map { r.createOutcome(cName: name, props: propsValue, reportingTo: $0) }
            ?? r.createOutcome(cName: name, props: propsValue)
        switch outcome {
        case .made(let object, let registryOwned, _):
            owner?.pointee = registryOwned ? ownerRegistry : ownerReceiver
            return object
        case .failed(let error):
            record(error, function)
            return nil
        }
    } ?? nil
}

// Failure paths out of line: the success path of a create sets up no frame for messages.

@inline(never)
private func nullCreateArgument(_ what: StaticString, _ function: StaticString) {
    nullArgument("\(what)", function)
}

@inline(never)
private func record(_ error: ConfigError, _ function: StaticString) {
    LastError.set(error, from: function)
}

@_cdecl("cr_inject")
public func cr_inject(_ reg: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ object: UnsafeMutableRawPointer?) -> Int32 {
    guard let registry = withRegistry(reg, { $0 }) else { return nullArgument("reg", "cr_inject") }
    guard let entry = cName(name, "name", "cr_inject", registry) else { return cr_last_error_code() }
    guard let object else { return nullArgument("object", "cr_inject") }
    return status("cr_inject", everyCode: false) { () throws(ConfigError) in try registry.inject(entry, into: object) }
}

// MARK: Providers

@_cdecl("cr_provider_create")
public func cr_provider_create(_ provider: OpaquePointer?, _ props: OpaquePointer?) -> UnsafeMutableRawPointer? {
    providerCreate(provider, props, nil, nil, "cr_provider_create")
}

@_cdecl("cr_provider_create_with")
public func cr_provider_create_with(
    _ provider: OpaquePointer?, _ options: UnsafePointer<cr_create_options>?
) -> UnsafeMutableRawPointer? {
    guard let r = request(options, "cr_provider_create_with") else { return nil }
    return asDestroyer(r.destroyer) { d in providerCreate(provider, r.props, r.owner, d, "cr_provider_create_with") }
}

private func providerCreate(
    _ provider: OpaquePointer?, _ props: OpaquePointer?, _ owner: UnsafeMutablePointer<cr_owner>?,
    _ destroyer: UnsafeMutablePointer<Destroyer>?, _ function: StaticString
) -> UnsafeMutableRawPointer? {
    guard let provider else {
        nullArgument("provider", function)
        return nil
    }
    let propsValue = props.map { UnsafePointer<RawValue>($0) }
    return Unmanaged<Provider>.fromOpaque(UnsafeRawPointer(provider))._withUnsafeGuaranteedRef { p in
        do throws(ConfigError) {
            let (object, registryOwned) = try p.create(rawProps: propsValue, destroyer: destroyer)
            owner?.pointee = registryOwned ? ownerRegistry : ownerReceiver
            return object
        } catch {
            LastError.set(error, from: function)
            return nil
        }
    }
}

@_cdecl("cr_provider_name")
public func cr_provider_name(_ provider: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let provider else {
        nullArgument("provider", "cr_provider_name")
        return nil
    }
    return Unmanaged<Provider>.fromOpaque(UnsafeRawPointer(provider))._withUnsafeGuaranteedRef { $0.cEntryName }
}

@_cdecl("cr_provider_free")
public func cr_provider_free(_ provider: OpaquePointer?) {
    guard let provider else { return }
    Unmanaged<Provider>.fromOpaque(UnsafeRawPointer(provider)).release()
}
