/// An owned value: what Swift hosts pass as props and get from `ValueRef.value`.
public enum Value: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case list([Value])
    case map([String: Value])
    case object(ObjectReference)
    /// A factory for an entry (see `Provider`).
    case provider(Provider)

    /// The kind of this value.
    public var kind: ValueKind {
        switch self {
        case .null: return .null
        case .bool: return .bool
        case .int: return .int
        case .double: return .double
        case .string: return .string
        case .list: return .list
        case .map: return .map
        case .object: return .object
        case .provider: return .provider
        }
    }
}

extension Value: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// `"text"` is `.string("text")`.
    public init(stringLiteral value: String) { self = .string(value) }
    /// `42` is `.int(42)`.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// `1.5` is `.double(1.5)`.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// `true` is `.bool(true)`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// `nil` is `.null`.
    public init(nilLiteral: ()) { self = .null }
    /// `[a, b]` is `.list([a, b])`.
    public init(arrayLiteral elements: Value...) { self = .list(elements) }
    /// `["k": v]` is `.map(["k": v])` (the last of repeated keys wins).
    public init(dictionaryLiteral elements: (String, Value)...) {
        self = .map(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

/// An object pointer carried in a value, with whether the registry owns it.
// @unchecked: an immutable pointer value; the object behind it is the host's, shared as the host decides.
public struct ObjectReference: @unchecked Sendable, Hashable {
    /// The object (a host pointer, or an `Unmanaged` Swift object for classes registered in Swift).
    public let pointer: UnsafeMutableRawPointer?
    /// Whether the registry owns the object (a singleton).
    public let isRegistryOwned: Bool

    /// Wraps a pointer.
    public init(_ pointer: UnsafeMutableRawPointer?, registryOwned: Bool = false) {
        self.pointer = pointer
        self.isRegistryOwned = registryOwned
    }

    /// Wraps a Swift object (not retained: keep it alive while the value is in use).
    public init(_ object: AnyObject) {
        self.init(Unmanaged.passUnretained(object).toOpaque())
    }
}

extension Value {
    /// Converts to an owned heap tree (what `cr_map_new` makes; free it with `HeapValue.free`).
    /// Nil when out of memory.
    package func makeHeapValue() -> UnsafeMutablePointer<RawValue>? { makeHeap() }

    /// Converts to an owned heap tree (for the resolver's props). Nil when out of memory.
    func makeHeap() -> UnsafeMutablePointer<RawValue>? {
        guard let raw = makeRaw() else { return nil }
        return HeapValue.newRoot(raw)
    }

    private func makeRaw() -> RawValue? {
        switch self {
        case .null: return .null
        case .bool(let v): return .bool(v)
        case .int(let v): return .int(v)
        case .double(let v): return .double(v)
        case .object(let o): return o.isRegistryOwned ? .object(o.pointer, registryOwned: true) : .callerObject(o.pointer)
        case .provider(let p):
            return RawValue(
                kind: .provider, flags: RawValue.Flags.callerOwned,
                a: UInt64(UInt(bitPattern: Unmanaged.passUnretained(p).toOpaque())))
        case .string(var s):
            return s.withUTF8 { HeapValue.string($0.baseAddress, length: $0.count) }
        case .list(let items):
            guard let list = HeapValue.newList() else { return nil }
            for item in items {
                guard let raw = item.makeRaw(), HeapValue.listAppend(list, value: raw) else {
                    HeapValue.free(list)
                    return nil
                }
            }
            return takeRoot(list)
        case .map(let dict):
            guard let map = HeapValue.newMap() else { return nil }
            for (key, item) in dict.sorted(by: { $0.key < $1.key }) {
                var key = key
                guard let raw = item.makeRaw(),
                    key.withUTF8({
                        // A Swift key may hold NUL (a C string cannot): marked for the create path.
                        if $0.contains(0) { map.pointee.reserved |= RawValue.nulKeys }
                        return HeapValue.mapSet(
                            map, key: UnsafeRawPointer($0.baseAddress ?? UnsafePointer(emptyKey)), keyLength: $0.count, value: raw
                        )
                    })
                else {
                    HeapValue.free(map)
                    return nil
                }
            }
            return takeRoot(map)
        }
    }

    /// Moves a heap root's contents out and frees the root cell.
    private func takeRoot(_ root: UnsafeMutablePointer<RawValue>) -> RawValue {
        var v = root.pointee
        v.flags &= ~RawValue.Flags.heapRoot
        libcFree(root)
        return v
    }
}
