import ControllerRegConfig

/// A growable list of plain values (no references: `_isPOD`, checked when made) whose storage
/// comes from a load's `ScratchRegion` while it has room (else from `malloc`): what a large load's
/// temporary lists are, so their pages are the region's. Value semantics as `Array`'s: a copy shares the storage until one of them is written
/// (then that one copies it). Without a region it is a plain `malloc`ed list.
struct ScratchArray<Element>: RandomAccessCollection, MutableCollection {
    /// The storage: values `0..<count` of each `ScratchArray` sharing it are written.
    private final class Storage {
        var base: UnsafeMutablePointer<Element>?
        var capacity: Int
        let region: ScratchRegion?

        init(capacity: Int, region: ScratchRegion?) {
            // Values are copied as bytes and never deinitialised.
            precondition(_isPOD(Element.self), "ScratchArray holds plain values only")
            self.capacity = capacity
            self.region = region
            base = capacity > 0 ? ScratchRegion.allocate(Element.self, count: capacity, in: region) : nil
        }

        deinit { ScratchRegion.deallocate(base, in: region) }
    }

    private var storage: Storage
    /// How many values the list holds.
    private(set) var count: Int

    /// An empty list with room for `capacity` values, from `region` when given.
    init(capacity: Int = 0, in region: ScratchRegion? = nil) {
        storage = Storage(capacity: capacity, region: region)
        count = 0
    }

    /// `count` copies of `value`, from `region` when given.
    init(repeating value: Element, count: Int, in region: ScratchRegion? = nil) {
        storage = Storage(capacity: count, region: region)
        if count > 0 { storage.base!.initialize(repeating: value, count: count) }
        self.count = count
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(i: Int) -> Element {
        @inline(__always) get {
            precondition(UInt(bitPattern: i) < UInt(bitPattern: count), "ScratchArray: index out of range")
            return storage.base.unsafelyUnwrapped[i]
        }
        @inline(__always) set {
            precondition(UInt(bitPattern: i) < UInt(bitPattern: count), "ScratchArray: index out of range")
            if !isKnownUniquelyReferenced(&storage) { makeUnique(capacity: storage.capacity) }
            storage.base.unsafelyUnwrapped[i] = newValue
        }
    }

    /// Room for at least `capacity` values.
    mutating func reserveCapacity(_ capacity: Int) {
        if capacity > storage.capacity || !isKnownUniquelyReferenced(&storage) {
            makeUnique(capacity: Swift.max(capacity, storage.capacity), force: capacity > storage.capacity)
        }
    }

    /// Appends `value`.
    @inline(__always) mutating func append(_ value: Element) {
        if count == storage.capacity || !isKnownUniquelyReferenced(&storage) {
            makeUnique(capacity: count == storage.capacity ? Swift.max(16, count * 2) : storage.capacity, force: true)
        }
        (storage.base.unsafelyUnwrapped + count).initialize(to: value)
        count += 1
    }

    /// Appends the values of `values`.
    mutating func append<S: Sequence>(contentsOf values: S) where S.Element == Element {
        for v in values { append(v) }
    }

    /// Removes the last `k` values.
    mutating func removeLast(_ k: Int = 1) {
        precondition(k >= 0 && k <= count, "ScratchArray: removing more values than it holds")
        count -= k
    }

    /// Removes every value (the room stays when `keepingCapacity`, the default here).
    mutating func removeAll(keepingCapacity: Bool = true) {
        count = 0
    }

    /// The values in place, read-only.
    func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: storage.base, count: count))
    }

    /// Copies the storage when it is shared (or `force`, or room is short), with room for
    /// `capacity` values.
    @inline(never) private mutating func makeUnique(capacity: Int, force: Bool = false) {
        if isKnownUniquelyReferenced(&storage) {
            guard force && capacity > storage.capacity else { return }
            storage.base = ScratchRegion.resize(storage.base, count: count, to: capacity, in: storage.region)
            storage.capacity = capacity
            return
        }
        let copy = Storage(capacity: Swift.max(capacity, count), region: storage.region)
        if count > 0 { copy.base!.initialize(from: storage.base!, count: count) }
        storage = copy
    }
}

extension ScratchArray {
    /// Appends the values of `values`.
    static func += <S: Sequence>(list: inout ScratchArray, values: S) where S.Element == Element {
        list.append(contentsOf: values)
    }
}
