/// How a host class builds, destroys and configures its objects: thin functions plus a context
/// pointer (the C ABI's `cr_class` + `user_data`), or Swift closures through `HostClass.swift(…)`.
// @unchecked: holds C function pointers and the host's context pointer; the C ABI contract makes
// the host responsible for callbacks being callable from any thread.
public struct HostClass: @unchecked Sendable {
    /// Builds an object from its arguments (a `RawValue` map, never NULL); returns nil on failure.
    public typealias CreateFunction =
        @convention(c) (_ args: UnsafeRawPointer, _ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?
    /// Destroys an object the class created.
    public typealias DestroyFunction = @convention(c) (UnsafeMutableRawPointer, UnsafeMutableRawPointer?) -> Void
    /// Sets one key on an existing object; returns 0 on success.
    public typealias SetFunction =
        @convention(c) (
            _ object: UnsafeMutableRawPointer, _ key: UnsafePointer<CChar>, _ value: UnsafeRawPointer,
            _ context: UnsafeMutableRawPointer?
        ) -> Int32

    /// Required constructor. (Replacing it, or `context`, on a class made by `HostClass.swift`
    /// makes it a class of C functions: its objects are no longer taken for Swift objects.)
    public var create: CreateFunction {
        didSet { makesSwiftObjects = false }
    }
    /// Optional destructor; without it the registry never frees objects of this class.
    public var destroy: DestroyFunction?
    /// Optional setter, used to inject into objects made elsewhere.
    public var set: SetFunction?
    /// Passed as the last argument of every function.
    public var context: UnsafeMutableRawPointer? {
        didSet { makesSwiftObjects = false }
    }
    /// Called once when the registry lets go of the class (registry freed), to release `context`.
    public var release: (@Sendable () -> Void)?
    /// When true, objects passed in `args` stay owned by the registry's call and are destroyed
    /// after `create` returns, success or failure (refcounted hosts, such as Swift, retain what
    /// they keep). When false (C hosts), the callback owns each receiver-owned object it takes
    /// (`cr_value_object`); the library destroys the others when the callback returns.
    public var borrowsArguments: Bool
    /// Whether `create` returns retained Swift objects (set only by `HostClass.swift`, cleared when
    /// `create` or `context` is replaced): the objects of this class, and only they, are read as
    /// Swift objects by the typed reads (`ValueRef.object(as:)`, `Registry.create(_:as:)`;
    /// `RawValue.swiftObject`), and only this class's closures are called directly by the Swift
    /// API's create (`SwiftClassCreate`, which finds them in `context`).
    package var makesSwiftObjects = false

    /// Describes a class by functions and a context pointer.
    public init(
        create: CreateFunction, destroy: DestroyFunction? = nil, set: SetFunction? = nil,
        context: UnsafeMutableRawPointer? = nil, release: (@Sendable () -> Void)? = nil,
        borrowsArguments: Bool = false
    ) {
        self.create = create
        self.destroy = destroy
        self.set = set
        self.context = context
        self.release = release
        self.borrowsArguments = borrowsArguments
    }
}

extension HostClass {
    /// A class whose objects are Swift objects, built by a closure.
    ///
    /// Objects built for the create are taken over with `args["key"]?.take(as: T.self)` (the
    /// closure owns them from then on; see `ValueRef.take(as:)`); anything read with
    /// `object(as:)` is borrowed: keep a strong reference to what you need, the registry releases
    /// its own when the closure returns. `setter` (optional) receives `inject` keys.
    /// An error thrown by either closure fails the call with its text in the message.
    public static func swift(
        create: @escaping @Sendable (_ args: ValueRef) throws -> AnyObject,
        setter: (@Sendable (_ object: AnyObject, _ key: String, _ value: ValueRef) throws -> Void)? = nil
    ) -> HostClass {
        let box = Unmanaged.passRetained(SwiftClassBox(create: create, setter: setter))
        nonisolated(unsafe) let context = box.toOpaque()
        var host = HostClass(
            create: { args, context in
                // The box lives as long as the class (its record holds the context): no retain.
                // The context is never nil (this class's own, set below): no test of it per create.
                Unmanaged<SwiftClassBox>.fromOpaque(context.unsafelyUnwrapped)._withUnsafeGuaranteedRef { box in
                    do {
                        return Unmanaged.passRetained(try box.create(ValueRef(args.assumingMemoryBound(to: RawValue.self))))
                            .toOpaque()
                    } catch {
                        return reportFailure(error)
                    }
                }
            },
            destroy: { object, _ in Unmanaged<AnyObject>.fromOpaque(object).release() },
            set: setter == nil
                ? nil
                : { object, key, value, context in
                    let box = Unmanaged<SwiftClassBox>.fromOpaque(context!).takeUnretainedValue()
                    do {
                        try box.setter!(
                            Unmanaged<AnyObject>.fromOpaque(object).takeUnretainedValue(), String(cString: key),
                            ValueRef(value.assumingMemoryBound(to: RawValue.self)))
                        return 0
                    } catch {
                        reportFailure(error)
                        return 1
                    }
                },
            context: context,
            release: { Unmanaged<SwiftClassBox>.fromOpaque(context).release() },
            borrowsArguments: true)
        host.makesSwiftObjects = true
        return host
    }
}

/// Reports a Swift class closure's error as its callback's failure (out of line: the success path
/// of every Swift-class create sets up no frame for the message).
@inline(never)
@discardableResult
func reportFailure(_ error: any Error) -> UnsafeMutableRawPointer? {
    HostFailure.report("\(error)")
    return nil
}

/// Holds a Swift class's closures behind the context pointer.
final class SwiftClassBox: Sendable {
    let create: @Sendable (ValueRef) throws -> AnyObject
    let setter: (@Sendable (AnyObject, String, ValueRef) throws -> Void)?
    init(
        create: @escaping @Sendable (ValueRef) throws -> AnyObject,
        setter: (@Sendable (AnyObject, String, ValueRef) throws -> Void)?
    ) {
        self.create = create
        self.setter = setter
    }

    /// Calls the create closure of the Swift class whose context is `context` (a class whose
    /// functions have `RawValue.swiftObject` in their header: `HostClass.swift` made it), with no
    /// C trampoline: the object comes back retained (+1), as the trampoline returns it; an error
    /// the closure throws is rethrown. (`SwiftClassCreate`, the Swift API's own create path.)
    @inline(__always)
    static func create(context: UnsafeMutableRawPointer?, _ args: UnsafeRawPointer) throws -> UnsafeMutableRawPointer {
        // The box lives as long as the class (its record, kept by the snapshot, holds it): no retain.
        try Unmanaged<SwiftClassBox>.fromOpaque(context.unsafelyUnwrapped)._withUnsafeGuaranteedRef { box in
            Unmanaged.passRetained(try box.create(ValueRef(args.assumingMemoryBound(to: RawValue.self)))).toOpaque()
        }
    }
}

/// A registered class: its name and functions. Released (and `release` called, outside any writer
/// lock) with the registry or when a replacement makes it unreachable.
final class ClassRecord: Sendable {
    let name: String
    let host: HostClass

    init(name: String, host: HostClass) {
        self.name = name
        self.host = host
    }

    deinit {
        if let release = host.release { HostCallbacks.run(release) }
    }
}
