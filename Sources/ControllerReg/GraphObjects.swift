/// The `graph` objects one resolver call built: a small growable list in raw memory, so a create
/// that builds none costs nothing to set up or tear down (no array to retain and release).
/// Owned by one `Resolver`; `removeAll` frees the memory (the resolver calls it when the call ends).
struct GraphObjects {
    private var base: UnsafeMutablePointer<Resolver.GraphObject>?
    private(set) var count = 0
    private var capacity = 0

    var isEmpty: Bool { count == 0 }

    /// The object at `i` (`0 <= i < count`).
    subscript(i: Int) -> Resolver.GraphObject {
        get {
            assert(i >= 0 && i < count, "GraphObjects: index \(i) out of range 0..<\(count)")
            return base.unsafelyUnwrapped[i]
        }
        set {
            assert(i >= 0 && i < count, "GraphObjects: index \(i) out of range 0..<\(count)")
            base.unsafelyUnwrapped[i] = newValue
        }
    }

    /// The position of the object built for entry `index`, if any.
    func firstIndex(ofEntry index: Int32) -> Int? {
        for i in 0..<count where base.unsafelyUnwrapped[i].index == index { return i }
        return nil
    }

    mutating func append(_ g: Resolver.GraphObject) {
        if count == capacity {
            let grown = UnsafeMutablePointer<Resolver.GraphObject>.allocate(capacity: max(4, capacity * 2))
            if let base {
                grown.moveInitialize(from: base, count: count)
                base.deallocate()
            }
            base = grown
            capacity = max(4, capacity * 2)
        }
        (base.unsafelyUnwrapped + count).initialize(to: g)
        count += 1
    }

    /// Empties the list and frees its memory.
    mutating func removeAll() {
        base?.deallocate()
        base = nil
        count = 0
        capacity = 0
    }
}
