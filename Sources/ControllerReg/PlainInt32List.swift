/// A growable list of `Int32` in plain memory, for a graph walk's temporary lists (edges copied
/// as each entry is reached): no uniqueness check at a write, no bounds check at a read, no
/// reference counting. Not a value: one owner, which calls `free()` when done (copies share the
/// memory).
struct PlainInt32List {
    private(set) var base: UnsafeMutablePointer<Int32>
    private(set) var count = 0
    private var capacity: Int

    /// An empty list with room for `capacity` values before it grows.
    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    /// Value `i` (`0 <= i < count`, not checked).
    @inline(__always) subscript(i: Int) -> Int32 { base[i] }

    /// Appends the values of `values`.
    @inline(__always) mutating func append(_ values: ArraySlice<Int32>) {
        let n = values.count
        if count + n > capacity { grow(to: count + n) }
        let at = base + count
        values.withUnsafeBufferPointer { if let p = $0.baseAddress { at.initialize(from: p, count: n) } }
        count += n
    }

    /// Keeps the first `n` values (`n <= count`).
    @inline(__always) mutating func truncate(to n: Int) { count = n }

    @inline(never) private mutating func grow(to needed: Int) {
        let bigger = max(needed, capacity * 2)
        let memory = UnsafeMutablePointer<Int32>.allocate(capacity: bigger)
        memory.moveInitialize(from: base, count: count)
        base.deallocate()
        base = memory
        capacity = bigger
    }

    /// Gives the memory back (the list is not used again).
    func free() { base.deallocate() }
}
