/// A growable list of `Int32` in plain memory, for a graph walk's temporary lists (edges copied
/// as each entry is reached): no uniqueness check at a write, no bounds check at a read, no
/// reference counting. Not a value: one owner, which calls `free()` when done (copies share the
/// memory). The memory is taken at the first value: a walk that meets no edge (the cycle search
/// of a change adding one leaf entry) allocates nothing.
struct PlainInt32List {
    private var base: UnsafeMutablePointer<Int32>?
    private(set) var count = 0
    /// The room taken, or (none taken yet) the room the first value takes.
    private var capacity: Int

    /// An empty list with room for `capacity` values before it grows (taken at the first).
    init(capacity: Int) {
        self.capacity = max(capacity, 16)
    }

    /// Value `i` (`0 <= i < count`, not checked).
    @inline(__always) subscript(i: Int) -> Int32 { base.unsafelyUnwrapped[i] }

    /// Appends the values of `values`.
    @inline(__always) mutating func append(_ values: ArraySlice<Int32>) {
        let n = values.count
        if n == 0 { return }
        if base == nil || count + n > capacity { grow(to: count + n) }
        let at = base.unsafelyUnwrapped + count
        values.withUnsafeBufferPointer { if let p = $0.baseAddress { at.initialize(from: p, count: n) } }
        count += n
    }

    /// Keeps the first `n` values (`n <= count`).
    @inline(__always) mutating func truncate(to n: Int) { count = n }

    @inline(never) private mutating func grow(to needed: Int) {
        guard let old = base else {
            capacity = max(needed, capacity)
            base = .allocate(capacity: capacity)
            return
        }
        let bigger = max(needed, capacity * 2)
        let memory = UnsafeMutablePointer<Int32>.allocate(capacity: bigger)
        memory.moveInitialize(from: old, count: count)
        old.deallocate()
        base = memory
        capacity = bigger
    }

    /// Gives the memory back (the list is not used again).
    func free() { base?.deallocate() }
}
