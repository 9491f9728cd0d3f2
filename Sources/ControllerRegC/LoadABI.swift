import ControllerReg

import struct CControllerRegHeader.cr_format
import struct CControllerRegHeader.cr_load_options

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Loading configs: cr_load_* over `Registry.load`, and the load options that select format, flags
// and the source name.

/// The cr_load_options layout this library knows (CR_LOAD_OPTIONS_VERSION).
/// Version 2 appended `environment`.
private let knownLoadOptionsVersion: UInt32 = 2

/// What a load call asks for, once its arguments are checked.
private struct LoadRequest {
    var format: ConfigFormat
    var mode: LoadMode
    var sourceName = "<string>"
    /// nil: the process environment.
    var environment: [String: String]?
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

/// The request for a format and flags, or nil after recording what is wrong.
private func request(_ fmt: cr_format, _ flags: UInt32, _ function: StaticString) -> LoadRequest? {
    guard let f = format(fmt) else {
        _ = fail(
            .invalidArgument,
            unknownEnumText(function, "format", fmt.rawValue) + " (use CR_FORMAT_AUTO, _JSON, _YAML or _PLIST)")
        return nil
    }
    switch flags {
    case 0: return LoadRequest(format: f, mode: .add)
    case 1: return LoadRequest(format: f, mode: .override)
    default:
        _ = fail(.invalidArgument, "\(function): unknown flags \(flags) (use 0 or CR_LOAD_OVERRIDE)")
        return nil
    }
}

/// The request that load options (NULL = defaults) describe, or nil after recording what is wrong.
private func request(_ options: UnsafePointer<cr_load_options>?, _ function: StaticString) -> LoadRequest? {
    guard let options else { return LoadRequest(format: .auto, mode: .add) }
    guard
        acceptsOptionsVersion(
            options, known: knownLoadOptionsVersion, structName: "cr_load_options", initMacro: "CR_LOAD_OPTIONS_INIT", function)
    else {
        return nil
    }
    // Fields are read one by one through the pointer: a version-1 struct ends before `environment`,
    // and reading the whole struct would read past it.
    guard var r = request(options.pointee.format, options.pointee.flags, function) else { return nil }
    if let name = options.pointee.source_name {
        let length = strlen(name)
        guard utf8Text(name, length, "options->source_name", function) else { return nil }
        r.sourceName = String(decoding: UnsafeRawBufferPointer(start: name, count: length), as: UTF8.self)
        if let problem = SourceLocation.sourceNameProblem(r.sourceName) {
            _ = fail(.invalidArgument, "\(function): options->source_name \(r.sourceName.debugDescription) \(problem)")
            return nil
        }
    }
    if options.pointee.version >= 2, let env = options.pointee.environment {
        guard let environment = environmentMap(ValueRef(UnsafePointer<RawValue>(env)), function) else { return nil }
        r.environment = environment
    }
    return r
}

/// The variables of an options `environment` value (a CR_MAP of CR_STRING), or nil after
/// recording CR_ERR_INVALID_ARGUMENT naming what is wrong.
private func environmentMap(_ value: ValueRef, _ function: StaticString) -> [String: String]? {
    guard value.kind == .map else {
        _ = fail(
            .invalidArgument,
            "\(function): options->environment must be a map of strings (CR_MAP of CR_STRING), not \(DependencyRule.kindName(value.kind))"
        )
        return nil
    }
    var out: [String: String] = [:]
    out.reserveCapacity(value.count)
    for i in 0..<value.count {
        guard let key = value.key(at: i), let v = value.value(at: i) else { continue }
        guard v.kind == .string, let text = v.string else {
            _ = fail(
                .invalidArgument,
                "\(function): options->environment[\"\(key)\"] must be a string (CR_STRING), not \(DependencyRule.kindName(v.kind)); set it with cr_map_set_string"
            )
            return nil
        }
        out[key] = text
    }
    return out
}

/// A path as the loaders take it (a `String`, kept for reloads and messages), or nil after
/// recording why not: a path that is not valid UTF-8 (Linux allows any bytes but NUL) would be
/// repaired into the name of another file, so it is refused before anything is opened.
private func pathText(_ p: UnsafePointer<CChar>, _ what: String, _ function: StaticString) -> String? {
    let length = strlen(p)
    guard utf8Text(p, length, what, function, fix: "rename the file, or reach it through a link whose path is UTF-8")
    else { return nil }
    return String(decoding: UnsafeRawBufferPointer(start: p, count: length), as: UTF8.self)
}

@_cdecl("cr_load_file")
public func cr_load_file(_ reg: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ fmt: cr_format) -> Int32 {
    guard let r = request(fmt, 0, "cr_load_file") else { return ErrorCode.invalidArgument.rawValue }
    return loadFile(reg, path, r, "cr_load_file")
}

@_cdecl("cr_load_file_with")
public func cr_load_file_with(
    _ reg: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ options: UnsafePointer<cr_load_options>?
) -> Int32 {
    guard let r = request(options, "cr_load_file_with") else { return ErrorCode.invalidArgument.rawValue }
    return loadFile(reg, path, r, "cr_load_file_with")
}

private func loadFile(_ reg: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ r: LoadRequest, _ function: StaticString) -> Int32 {
    guard let path else { return nullArgument("path", function) }
    // Held for the call (as every call that may run host callbacks outside a create): a destroy or
    // release callback the load runs may free the registry.
    guard let registry = withRegistry(reg, { $0 }) else { return nullArgument("reg", function) }
    guard let text = pathText(path, "path", function) else { return ErrorCode.invalidArgument.rawValue }
    return status(function) { () throws(ConfigError) in
        try registry.load(path: text, format: r.format, mode: r.mode, environment: r.environment)
    }
}

@_cdecl("cr_load_files")
public func cr_load_files(
    _ reg: OpaquePointer?, _ paths: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int, _ fmt: cr_format
) -> Int32 {
    guard let r = request(fmt, 0, "cr_load_files") else { return ErrorCode.invalidArgument.rawValue }
    return loadFiles(reg, paths, count, r, "cr_load_files")
}

@_cdecl("cr_load_files_with")
public func cr_load_files_with(
    _ reg: OpaquePointer?, _ paths: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int,
    _ options: UnsafePointer<cr_load_options>?
) -> Int32 {
    guard let r = request(options, "cr_load_files_with") else { return ErrorCode.invalidArgument.rawValue }
    return loadFiles(reg, paths, count, r, "cr_load_files_with")
}

private func loadFiles(
    _ reg: OpaquePointer?, _ paths: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int, _ r: LoadRequest,
    _ function: StaticString
) -> Int32 {
    // size_t arrives as Int: a count of 2^63 or more is negative here.
    guard count >= 0 else {
        return fail(.invalidArgument, "\(function): count \(UInt(bitPattern: count)) is not a number of paths")
    }
    guard paths != nil || count == 0 else { return nullArgument("paths", function) }
    var list: [String] = []
    for i in 0..<count {
        guard let p = paths![i] else { return nullArgument("paths[\(i)]", function) }
        guard let text = pathText(p, "paths[\(i)]", function) else { return ErrorCode.invalidArgument.rawValue }
        list.append(text)
    }
    guard let registry = withRegistry(reg, { $0 }) else { return nullArgument("reg", function) }
    return status(function) { () throws(ConfigError) in
        try registry.load(paths: list, format: r.format, mode: r.mode, environment: r.environment)
    }
}

@_cdecl("cr_load_string")
public func cr_load_string(_ reg: OpaquePointer?, _ text: UnsafePointer<CChar>?, _ length: Int, _ fmt: cr_format) -> Int32 {
    guard let r = request(fmt, 0, "cr_load_string") else { return ErrorCode.invalidArgument.rawValue }
    return loadString(reg, text, length, r, "cr_load_string")
}

@_cdecl("cr_load_string_with")
public func cr_load_string_with(
    _ reg: OpaquePointer?, _ text: UnsafePointer<CChar>?, _ length: Int,
    _ options: UnsafePointer<cr_load_options>?
) -> Int32 {
    guard let r = request(options, "cr_load_string_with") else { return ErrorCode.invalidArgument.rawValue }
    return loadString(reg, text, length, r, "cr_load_string_with")
}

private func loadString(
    _ reg: OpaquePointer?, _ text: UnsafePointer<CChar>?, _ length: Int, _ r: LoadRequest,
    _ function: StaticString
) -> Int32 {
    guard let registry = withRegistry(reg, { $0 }) else { return nullArgument("reg", function) }
    // size_t arrives as Int: a length of 2^63 or more is negative here, and larger than any limit
    // (the loader checks the others).
    guard length >= 0 else {
        return fail(
            .limit,
            "\(function): input of \(UInt(bitPattern: length)) bytes exceeds the limit of \(registry.limits.config.maxInputBytes) bytes (CR_LIMIT_INPUT_BYTES)"
        )
    }
    guard text != nil || length == 0 else { return nullArgument("text", function) }
    let bytes = UnsafeRawBufferPointer(start: text, count: length)
    return status(function) { () throws(ConfigError) in
        try registry.load(bytes: bytes, format: r.format, file: r.sourceName, mode: r.mode, environment: r.environment)
    }
}
