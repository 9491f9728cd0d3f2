import ControllerReg

import struct CControllerRegHeader.cr_kind
import struct CControllerRegHeader.cr_owner

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Building props and reading args: C entry points over `RawValue`, `HeapValue` and `ValueRef`.

@inline(__always) private func raw(_ v: OpaquePointer) -> UnsafeMutablePointer<RawValue> { UnsafeMutablePointer(v) }

/// A map or list the caller owns and may modify, or nil after recording why not. A NULL one is
/// named as the header names the parameter (`map` or `list`), not as the value being set.
private func ownedContainer(_ v: OpaquePointer?, _ kind: ValueKind, _ function: StaticString) -> UnsafeMutablePointer<RawValue>? {
    guard let v else {
        nullArgument(kind == .map ? "map" : "list", function)
        return nil
    }
    let p = raw(v)
    guard p.pointee.valueKind == kind else {
        _ = fail(
            .invalidArgument,
            "\(function): expected \(DependencyRule.kindName(kind)), got \(DependencyRule.kindName(p.pointee.valueKind))")
        return nil
    }
    // Only a root the caller holds (from cr_map_new / cr_list_new) may change: a value inside
    // args, or one already handed to a container, is not the caller's (even if its memory is owned).
    guard p.pointee.flags & RawValue.Flags.owned != 0, p.pointee.flags & RawValue.Flags.heapRoot != 0 else {
        _ = fail(
            .invalidArgument,
            "\(function): the value is read-only (arguments, and values handed to a container, cannot be modified)")
        return nil
    }
    return p
}

private func mapSet(
    _ map: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ function: StaticString, _ make: () -> RawValue?
) -> Int32 {
    guard let m = ownedContainer(map, .map, function) else { return ErrorCode.invalidArgument.rawValue }
    guard let key else { return nullArgument("key", function) }
    let keyLength = strlen(key)
    guard utf8Text(key, keyLength, "key", function) else { return ErrorCode.invalidArgument.rawValue }
    guard let value = make() else { return LastError.outOfMemory(function) }
    return HeapValue.mapSet(m, key: key, keyLength: keyLength, value: value) ? 0 : LastError.outOfMemory(function)
}

private func listPush(_ list: OpaquePointer?, _ function: StaticString, _ make: () -> RawValue?) -> Int32 {
    guard let l = ownedContainer(list, .list, function) else { return ErrorCode.invalidArgument.rawValue }
    guard let value = make() else { return LastError.outOfMemory(function) }
    return HeapValue.listAppend(l, value: value) ? 0 : LastError.outOfMemory(function)
}

/// Takes a heap root handed over by cr_map_set_value / cr_list_push_value: moves its content out
/// and frees the root cell. Nil (after freeing what can be freed) if it cannot be taken.
private func takeRoot(_ value: OpaquePointer?, into container: OpaquePointer?, _ function: StaticString) -> RawValue?? {
    guard let value else { return .some(nil) }
    let p = raw(value)
    guard p.pointee.flags & RawValue.Flags.heapRoot != 0 else { return .some(nil) }
    if value == container {
        HeapValue.free(p)
        return .some(nil)
    }
    var v = p.pointee
    v.flags &= ~RawValue.Flags.heapRoot
    free(p)
    return .some(v)
}

@_cdecl("cr_map_new")
public func cr_map_new() -> OpaquePointer? {
    guard let p = HeapValue.newMap() else {
        _ = LastError.outOfMemory("cr_map_new")
        return nil
    }
    return OpaquePointer(p)
}

@_cdecl("cr_list_new")
public func cr_list_new() -> OpaquePointer? {
    guard let p = HeapValue.newList() else {
        _ = LastError.outOfMemory("cr_list_new")
        return nil
    }
    return OpaquePointer(p)
}

@_cdecl("cr_map_set_null")
public func cr_map_set_null(_ map: OpaquePointer?, _ key: UnsafePointer<CChar>?) -> Int32 {
    mapSet(map, key, "cr_map_set_null") { .null }
}

@_cdecl("cr_map_set_bool")
public func cr_map_set_bool(_ map: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ value: Int32) -> Int32 {
    mapSet(map, key, "cr_map_set_bool") { .bool(value != 0) }
}

@_cdecl("cr_map_set_int")
public func cr_map_set_int(_ map: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ value: Int64) -> Int32 {
    mapSet(map, key, "cr_map_set_int") { .int(value) }
}

@_cdecl("cr_map_set_double")
public func cr_map_set_double(_ map: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ value: Double) -> Int32 {
    mapSet(map, key, "cr_map_set_double") { .double(value) }
}

@_cdecl("cr_map_set_string")
public func cr_map_set_string(_ map: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?) -> Int32 {
    guard let value else {
        return fail(.invalidArgument, "cr_map_set_string: value is NULL; use cr_map_set_null for a null value")
    }
    let length = strlen(value)
    guard utf8Text(value, length, "value", "cr_map_set_string") else { return ErrorCode.invalidArgument.rawValue }
    return mapSet(map, key, "cr_map_set_string") { HeapValue.string(value, length: length) }
}

@_cdecl("cr_map_set_object")
public func cr_map_set_object(_ map: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ object: UnsafeMutableRawPointer?) -> Int32 {
    guard let value = HeapValue.object(object) else {
        return fail(.invalidArgument, "cr_map_set_object: \(HeapValue.nullObjectReason(useInstead: "cr_map_set_null"))")
    }
    return mapSet(map, key, "cr_map_set_object") { value }
}

@_cdecl("cr_map_set_value")
public func cr_map_set_value(_ map: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ value: OpaquePointer?) -> Int32 {
    guard ownedContainer(map, .map, "cr_map_set_value") != nil, let key, utf8Text(key, strlen(key), "key", "cr_map_set_value")
    else {
        if let value, raw(value).pointee.flags & RawValue.Flags.heapRoot != 0, value != map { HeapValue.free(raw(value)) }
        return key == nil ? nullArgument("key", "cr_map_set_value") : ErrorCode.invalidArgument.rawValue
    }
    guard let taken = takeRoot(value, into: map, "cr_map_set_value"), let v = taken else {
        if value == map {
            // Taken as every refused value is: here that is the map itself.
            return fail(
                .invalidArgument,
                "cr_map_set_value: a map cannot hold itself; the map was taken as the value and is now freed (a refused value is always taken): do not use it again"
            )
        }
        return fail(
            .invalidArgument,
            "cr_map_set_value: value must be a map or list from cr_map_new/cr_list_new, not NULL, borrowed or the map itself")
    }
    return mapSet(map, key, "cr_map_set_value") { v }
}

@_cdecl("cr_list_push_null")
public func cr_list_push_null(_ list: OpaquePointer?) -> Int32 { listPush(list, "cr_list_push_null") { .null } }

@_cdecl("cr_list_push_bool")
public func cr_list_push_bool(_ list: OpaquePointer?, _ value: Int32) -> Int32 {
    listPush(list, "cr_list_push_bool") { .bool(value != 0) }
}

@_cdecl("cr_list_push_int")
public func cr_list_push_int(_ list: OpaquePointer?, _ value: Int64) -> Int32 {
    listPush(list, "cr_list_push_int") { .int(value) }
}

@_cdecl("cr_list_push_double")
public func cr_list_push_double(_ list: OpaquePointer?, _ value: Double) -> Int32 {
    listPush(list, "cr_list_push_double") { .double(value) }
}

@_cdecl("cr_list_push_string")
public func cr_list_push_string(_ list: OpaquePointer?, _ value: UnsafePointer<CChar>?) -> Int32 {
    guard let value else {
        return fail(.invalidArgument, "cr_list_push_string: value is NULL; use cr_list_push_null for a null value")
    }
    let length = strlen(value)
    guard utf8Text(value, length, "value", "cr_list_push_string") else { return ErrorCode.invalidArgument.rawValue }
    return listPush(list, "cr_list_push_string") { HeapValue.string(value, length: length) }
}

@_cdecl("cr_list_push_object")
public func cr_list_push_object(_ list: OpaquePointer?, _ object: UnsafeMutableRawPointer?) -> Int32 {
    guard let value = HeapValue.object(object) else {
        return fail(.invalidArgument, "cr_list_push_object: \(HeapValue.nullObjectReason(useInstead: "cr_list_push_null"))")
    }
    return listPush(list, "cr_list_push_object") { value }
}

@_cdecl("cr_list_push_value")
public func cr_list_push_value(_ list: OpaquePointer?, _ value: OpaquePointer?) -> Int32 {
    guard ownedContainer(list, .list, "cr_list_push_value") != nil else {
        if let value, raw(value).pointee.flags & RawValue.Flags.heapRoot != 0, value != list { HeapValue.free(raw(value)) }
        return ErrorCode.invalidArgument.rawValue
    }
    guard let taken = takeRoot(value, into: list, "cr_list_push_value"), let v = taken else {
        if value == list {
            // Taken as every refused value is: here that is the list itself.
            return fail(
                .invalidArgument,
                "cr_list_push_value: a list cannot hold itself; the list was taken as the value and is now freed (a refused value is always taken): do not use it again"
            )
        }
        return fail(
            .invalidArgument,
            "cr_list_push_value: value must be a map or list from cr_map_new/cr_list_new, not NULL, borrowed or the list itself")
    }
    return listPush(list, "cr_list_push_value") { v }
}

@_cdecl("cr_value_free")
public func cr_value_free(_ value: OpaquePointer?) {
    guard let value else { return }
    let p = raw(value)
    guard p.pointee.flags & RawValue.Flags.heapRoot != 0 else {
        LastError.set(.invalidArgument, "cr_value_free: the value is not owned by the caller (arguments are borrowed)")
        return
    }
    HeapValue.free(p)
}

// MARK: Reading

/// A readable value, or nil after recording that it was NULL, naming it `parameter` (as the
/// header names the function's parameter: `value`, `map` or `list`).
@inline(__always)
private func read(_ v: OpaquePointer?, _ function: StaticString, parameter: StaticString = "value") -> ValueRef? {
    guard let v else {
        nullArgument("\(parameter)", function)
        return nil
    }
    return ValueRef(UnsafePointer<RawValue>(v))
}

// The failure paths out of line, so the readers' success paths (one check and a load, called
// several times per create) set up no stack frame for building messages.

/// The readers whose refusals `refused` records (a byte: the refusal's call takes few arguments).
private enum Reader: UInt8 {
    case valueBool, valueInt, valueDouble, valueString, valueStringWithLength, valueObject

    var name: StaticString {
        switch self {
        case .valueBool: return "cr_value_bool"
        case .valueInt: return "cr_value_int"
        case .valueDouble: return "cr_value_double"
        case .valueString: return "cr_value_string"
        case .valueStringWithLength: return "cr_value_string_with_length"
        case .valueObject: return "cr_value_object"
        }
    }
}

/// Records why `reader` refused `value` (NULL, or not of the `expected` kind) and returns
/// `result`.
@inline(never)
private func refused<R>(_ value: OpaquePointer?, _ expected: ValueKind, _ reader: Reader, _ result: R) -> R {
    if let value {
        wrongKind(ValueRef(UnsafePointer<RawValue>(value)), expected, reader.name)
    } else {
        nullArgument("value", reader.name)
    }
    return result
}

@inline(never)
private func wrongKind(_ r: ValueRef, _ expected: ValueKind, _ function: StaticString) {
    LastError.set(.type, "\(function): expected \(DependencyRule.kindName(expected)), got \(DependencyRule.kindName(r.kind))")
}

@_cdecl("cr_value_kind")
public func cr_value_kind(_ value: OpaquePointer?) -> cr_kind {
    guard let value else { return cr_kind(rawValue: UInt32(ValueKind.null.rawValue)) }
    return cr_kind(rawValue: UInt32(ValueRef(UnsafePointer<RawValue>(value)).kind.rawValue))
}

// Inlined into its C entry point (one function, not a C thunk calling a Swift one).
@_cdecl("cr_map_get") @inline(__always)
public func cr_map_get(_ map: OpaquePointer?, _ key: UnsafePointer<CChar>?) -> OpaquePointer? {
    // The common read first: a callback's arguments map, found at its hinted slot, else by one
    // search of its slots (in tail position). Anything else (another map, a refusal) is one call
    // in tail position, so this path saves no registers and keeps no frame. (The key tested
    // first, apart: tested with the map, the two tests were combined into flags, three more
    // instructions per read.)
    guard let key else { return mapGet(map, nil) }
    if let map {
        let r = ValueRef(UnsafePointer<RawValue>(map))
        if r.isArgumentsMap {
            if let found = r.valueAtHint(forCKey: key) { return OpaquePointer(found.pointer) }
            return r.searchArguments(cKey: UnsafeRawPointer(key).assumingMemoryBound(to: UInt8.self)).map {
                OpaquePointer($0.pointer)
            }
        }
    }
    return mapGet(map, key)
}

/// `cr_map_get` of anything but a callback's arguments map: the arguments checked, then the
/// slots searched.
@inline(never)
private func mapGet(_ map: OpaquePointer?, _ key: UnsafePointer<CChar>?) -> OpaquePointer? {
    guard let r = read(map, "cr_map_get", parameter: "map") else { return nil }
    guard let key else {
        nullArgument("key", "cr_map_get")
        return nil
    }
    guard r.kind == .map else {
        wrongKind(r, .map, "cr_map_get")
        return nil
    }
    return r.valuePastHint(forCKey: key).map { OpaquePointer($0.pointer) }
}

@_cdecl("cr_map_key_at")
public func cr_map_key_at(_ map: OpaquePointer?, _ index: Int) -> UnsafePointer<CChar>? {
    guard let r = read(map, "cr_map_key_at", parameter: "map") else { return nil }
    guard r.kind == .map else {
        wrongKind(r, .map, "cr_map_key_at")
        return nil
    }
    return r.cKey(at: index)
}

@_cdecl("cr_map_value_at")
public func cr_map_value_at(_ map: OpaquePointer?, _ index: Int) -> OpaquePointer? {
    guard let r = read(map, "cr_map_value_at", parameter: "map") else { return nil }
    guard r.kind == .map else {
        wrongKind(r, .map, "cr_map_value_at")
        return nil
    }
    return r.value(at: index).map { OpaquePointer($0.pointer) }
}

@_cdecl("cr_value_bool")
@inline(__always)
public func cr_value_bool(_ value: OpaquePointer?) -> Int32 {
    guard let value, let b = ValueRef(UnsafePointer<RawValue>(value)).bool else { return refused(value, .bool, .valueBool, 0) }
    return b ? 1 : 0
}

@_cdecl("cr_value_int")
@inline(__always)
public func cr_value_int(_ value: OpaquePointer?) -> Int64 {
    guard let value, let i = ValueRef(UnsafePointer<RawValue>(value)).int else {
        return refused(value, .int, .valueInt, 0)
    }
    return i
}

@_cdecl("cr_value_double")
@inline(__always)
public func cr_value_double(_ value: OpaquePointer?) -> Double {
    guard let value, let d = ValueRef(UnsafePointer<RawValue>(value)).double else {
        return refused(value, .double, .valueDouble, 0)
    }
    return d
}

@_cdecl("cr_value_string")
@inline(__always)
public func cr_value_string(_ value: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let value, let s = ValueRef(UnsafePointer<RawValue>(value)).cString else {
        return refused(value, .string, .valueString, nil)
    }
    return s
}

@_cdecl("cr_value_string_with_length") @inline(__always)
public func cr_value_string_with_length(
    _ value: OpaquePointer?, _ length: UnsafeMutablePointer<Int>?
) -> UnsafePointer<CChar>? {
    guard let value, UnsafePointer<RawValue>(value).pointee.kind == ValueKind.string.rawValue else {
        length?.pointee = 0
        return refused(value, .string, .valueStringWithLength, nil)
    }
    let raw = UnsafePointer<RawValue>(value)
    length?.pointee = Int(raw.pointee.count)
    return UnsafePointer(bitPattern: UInt(raw.pointee.a)) ?? emptyCString
}

@_cdecl("cr_value_string_length")
public func cr_value_string_length(_ value: OpaquePointer?) -> Int {
    guard let r = read(value, "cr_value_string_length") else { return 0 }
    guard r.kind == .string else {
        wrongKind(r, .string, "cr_value_string_length")
        return 0
    }
    return r.count
}

@_cdecl("cr_value_object")
@inline(__always)
public func cr_value_object(_ value: OpaquePointer?) -> UnsafeMutableRawPointer? {
    guard let value, ValueRef(UnsafePointer<RawValue>(value)).kind == .object else {
        return refused(value, .object, .valueObject, nil)
    }
    return ValueRef(UnsafePointer<RawValue>(value)).takeObject()
}

@_cdecl("cr_value_take_object")
public func cr_value_take_object(_ value: OpaquePointer?) -> UnsafeMutableRawPointer? {
    guard let r = read(value, "cr_value_take_object") else { return nil }
    guard r.kind == .object else {
        wrongKind(r, .object, "cr_value_take_object")
        return nil
    }
    if r.wasTaken {
        alreadyTaken("cr_value_take_object")
        return nil
    }
    return r.takeObject()
}

@inline(never)
private func alreadyTaken(_ function: StaticString) {
    LastError.set(
        .invalidArgument,
        "\(function): this argument's object was taken already (by cr_value_object or a take) and is its taker's; take an object once and keep the pointer"
    )
}

@_cdecl("cr_value_take_object_with_owner") @inline(__always)
public func cr_value_take_object_with_owner(
    _ value: OpaquePointer?, _ owner: UnsafeMutablePointer<cr_owner>?
) -> UnsafeMutableRawPointer? {
    // The common take first: an object built for the receiver, not taken yet (no owner flag, no
    // taken mark), taken here; anything else out of line.
    if let value {
        let p = UnsafeMutablePointer<RawValue>(value)
        let flags = p.pointee.flags
        if p.pointee.kind == ValueKind.object.rawValue,
            flags & (RawValue.Flags.notReceivers | RawValue.Flags.taken | RawValue.Flags.moved) == 0
        {
            p.pointee.flags = flags | RawValue.Flags.taken
            owner?.pointee = ownerReceiver
            return UnsafeMutableRawPointer(bitPattern: UInt(p.pointee.a))
        }
    }
    return takeWithOwner(value, owner)
}

/// `cr_value_take_object_with_owner` past its common take: another owner's object (read, not
/// taken), a second take (refused), or no object.
@inline(never)
private func takeWithOwner(_ value: OpaquePointer?, _ owner: UnsafeMutablePointer<cr_owner>?) -> UnsafeMutableRawPointer? {
    if let value {
        let r = ValueRef(UnsafePointer<RawValue>(value))
        if r.kind == .object {
            let o = ownerOf(r.pointer.pointee)
            owner?.pointee = o
            if o != ownerReceiver || !r.wasTaken { return r.takeObject() }
            alreadyTaken("cr_value_take_object_with_owner")
            return nil
        }
    }
    owner?.pointee = cr_owner(rawValue: 0)
    _ = read(value, "cr_value_take_object_with_owner").map { wrongKind($0, .object, "cr_value_take_object_with_owner") }
    return nil
}

private let ownerReceiver = cr_owner(rawValue: 1)

/// Who owns the object or provider `raw` holds (`cr_value_owner` of an object or provider).
@inline(__always)
private func ownerOf(_ raw: RawValue) -> cr_owner {
    if raw.flags & RawValue.Flags.registryOwned != 0 { return cr_owner(rawValue: 2) }
    if raw.flags & RawValue.Flags.callerOwned != 0 { return cr_owner(rawValue: 3) }
    if raw.flags & RawValue.Flags.shared != 0 { return cr_owner(rawValue: 4) }
    return ownerReceiver
}

@_cdecl("cr_value_owner") @inline(__always)
public func cr_value_owner(_ value: OpaquePointer?) -> cr_owner {
    guard let value else { return cr_owner(rawValue: 0) }
    let raw = UnsafePointer<RawValue>(value).pointee
    guard raw.valueKind == .object || raw.valueKind == .provider else { return cr_owner(rawValue: 0) }
    return ownerOf(raw)
}

@_cdecl("cr_value_provider")
public func cr_value_provider(_ value: OpaquePointer?) -> OpaquePointer? {
    guard let r = read(value, "cr_value_provider") else { return nil }
    guard r.kind == .provider else {
        wrongKind(r, .provider, "cr_value_provider")
        return nil
    }
    // The reader's reference, given once: a second read would hand out the same reference again,
    // and freeing both (as two owners, e.g. two C++ cr::Provider) would free the provider twice.
    if r.wasTaken {
        LastError.set(
            .invalidArgument,
            "cr_value_provider: this argument's provider was taken already (by an earlier cr_value_provider) and is its taker's; read a provider once and keep the pointer"
        )
        return nil
    }
    return r.takeProvider().map { OpaquePointer($0) }
}

@_cdecl("cr_value_count")
public func cr_value_count(_ value: OpaquePointer?) -> Int {
    guard let r = read(value, "cr_value_count") else { return 0 }
    return r.count
}

@_cdecl("cr_list_at")
public func cr_list_at(_ list: OpaquePointer?, _ index: Int) -> OpaquePointer? {
    guard let r = read(list, "cr_list_at", parameter: "list") else { return nil }
    guard r.kind == .list else {
        wrongKind(r, .list, "cr_list_at")
        return nil
    }
    return r[index].map { OpaquePointer($0.pointer) }
}
