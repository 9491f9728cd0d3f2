/// An owned value: what Swift hosts pass as props and get from `ValueRef.value`.
public enum Value: Sendable, Hashable {
    /// No value (a YAML `null`; `nil` in a literal).
    case null
    /// A boolean.
    case bool(Bool)
    /// A 64-bit signed integer.
    case int(Int64)
    /// A double.
    case double(Double)
    /// A string.
    case string(String)
    /// A list, in order.
    case list([Value])
    /// A map from keys to values.
    case map([String: Value])
    /// An object (a pointer, or a Swift object wrapped with `ObjectReference(_:)`).
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

/// An object pointer carried in a value, with whether the registry owns it and whether it is a
/// Swift object.
// @unchecked: an immutable pointer value; the object behind it is the host's, shared as the host decides.
public struct ObjectReference: @unchecked Sendable, Hashable {
    /// The object (a host pointer, or an `Unmanaged` Swift object for classes registered in Swift).
    public let pointer: UnsafeMutableRawPointer?
    /// Whether the registry owns the object (a singleton).
    public let isRegistryOwned: Bool
    /// Whether the object is a Swift object: built by a class registered with Swift closures
    /// (`register(className:create:)`, `HostClass.swift`), or wrapped with `init(_ object:)`. Only
    /// such an object is read as a Swift object by the typed reads (`ValueRef.object(as:)`,
    /// `take(as:)`, `objects(as:)`, `Registry.create(_:as:)`); any other (a C-function class's,
    /// a raw pointer) reads as nil or a `.type` error there.
    public let isSwiftObject: Bool

    /// Wraps a pointer. In props it must be an object: a nil pointer there is refused with
    /// `.invalidArgument` (as `cr_map_set_object` refuses NULL); use `Value.null` for no object.
    /// The typed reads do not read a raw pointer as a Swift object (`isSwiftObject` is false):
    /// wrap a Swift object with `init(_ object:)`.
    public init(_ pointer: UnsafeMutableRawPointer?, registryOwned: Bool = false) {
        self.init(pointer, registryOwned: registryOwned, swiftObject: false)
    }

    /// Wraps a pointer, with whether it is a Swift object.
    package init(_ pointer: UnsafeMutableRawPointer?, registryOwned: Bool, swiftObject: Bool) {
        self.pointer = pointer
        self.isRegistryOwned = registryOwned
        self.isSwiftObject = swiftObject
    }

    /// Wraps a Swift object (not retained: keep it alive while the value is in use).
    public init(_ object: AnyObject) {
        self.init(Unmanaged.passUnretained(object).toOpaque(), registryOwned: false, swiftObject: true)
    }
}

extension Value {
    /// Converts to an owned heap tree (what `cr_map_new` makes; free it with `HeapValue.free`).
    /// Nil when out of memory, or for an object value without an object (`HeapValue.object`).
    package func makeHeapValue() -> UnsafeMutablePointer<RawValue>? { try? makeHeap(path: "value") }

    /// Converts to an owned heap tree (for the resolver's props). Throws `.noMemory` when out of
    /// memory, and `.invalidArgument` for an object value without an object (`HeapValue.object`,
    /// the rule `cr_map_set_object` keeps), naming where in the value it is (`path` is the value's
    /// own name, e.g. "props").
    func makeHeap(path: String) throws(ConfigError) -> UnsafeMutablePointer<RawValue> {
        let raw: RawValue
        do throws(BuildFailure) {
            raw = try makeRaw()
        } catch {
            switch error {
            case .noMemory: throw ConfigError(.noMemory, "out of memory building \(path)")
            case .nullObject(let reversedPath):
                let place = path + reversedPath.reversed().joined()
                throw ConfigError(
                    .invalidArgument,
                    "\(place): \(HeapValue.nullObjectReason(useInstead: ".null")) (ObjectReference(nil) holds none)")
            }
        }
        guard let root = HeapValue.newRoot(raw) else {
            var r = raw
            HeapValue.freeContents(&r)
            throw ConfigError(.noMemory, "out of memory building \(path)")
        }
        return root
    }

    /// Why a value could not be built: memory, or a NULL object at a path (innermost step first).
    private enum BuildFailure: Error {
        case noMemory
        case nullObject(reversedPath: [String])

        /// The failure as seen one level up, from the container step `step` (`[2]`, `["key"]`).
        func inside(_ step: String) -> BuildFailure {
            if case .nullObject(let p) = self { return .nullObject(reversedPath: p + [step]) }
            return self
        }
    }

    private func makeRaw() throws(BuildFailure) -> RawValue {
        switch self {
        case .null: return .null
        case .bool(let v): return .bool(v)
        case .int(let v): return .int(v)
        case .double(let v): return .double(v)
        case .object(let o):
            guard let raw = HeapValue.object(o.pointer, registryOwned: o.isRegistryOwned, swiftObject: o.isSwiftObject) else {
                throw .nullObject(reversedPath: [])
            }
            return raw
        case .provider(let p):
            return RawValue(
                kind: .provider, flags: RawValue.Flags.callerOwned,
                a: UInt64(UInt(bitPattern: Unmanaged.passUnretained(p).toOpaque())))
        case .string(var s):
            guard let raw = s.withUTF8({ HeapValue.string($0.baseAddress, length: $0.count) }) else { throw .noMemory }
            return raw
        case .list(let items):
            guard let list = HeapValue.newList() else { throw .noMemory }
            for (index, item) in items.enumerated() {
                do throws(BuildFailure) {
                    guard HeapValue.listAppend(list, value: try item.makeRaw()) else { throw .noMemory }
                } catch {
                    HeapValue.free(list)
                    throw error.inside("[\(index)]")
                }
            }
            return takeRoot(list)
        case .map(let dict):
            guard let map = HeapValue.newMap() else { throw .noMemory }
            for (key, item) in dict.sorted(by: { $0.key < $1.key }) {
                var key = key
                do throws(BuildFailure) {
                    let raw = try item.makeRaw()
                    let set = key.withUTF8 {
                        // A Swift key may hold NUL (a C string cannot): marked for the create path.
                        if $0.contains(0) { map.pointee.reserved |= RawValue.nulKeys }
                        return HeapValue.mapSet(
                            map, key: UnsafeRawPointer($0.baseAddress ?? UnsafePointer(emptyKey)), keyLength: $0.count, value: raw
                        )
                    }
                    guard set else { throw .noMemory }
                } catch {
                    HeapValue.free(map)
                    throw error.inside("[\"\(key)\"]")
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
