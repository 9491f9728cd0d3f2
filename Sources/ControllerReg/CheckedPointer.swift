/// A pointer to `count` plain-data elements that the create path reads without bounds checks in
/// release builds; debug builds assert that every index is in range (the compiled plans, their
/// slots and children, and the class table).
struct CheckedPointer<Element> {
    let base: UnsafePointer<Element>
    let count: Int

    @inline(__always) init(_ base: UnsafePointer<Element>, count: Int) {
        self.base = base
        self.count = count
    }

    /// The element at `index` (asserted in range in debug builds).
    @inline(__always) subscript(index: Int) -> Element {
        assert(index >= 0 && index < count, "CheckedPointer: index \(index) out of range 0..<\(count)")
        return base[index]
    }

    /// The address of element `index` (asserted in range in debug builds).
    @inline(__always) static func + (p: CheckedPointer, index: Int) -> UnsafePointer<Element> {
        assert(index >= 0 && index < p.count, "CheckedPointer: index \(index) out of range 0..<\(p.count)")
        return p.base + index
    }
}
