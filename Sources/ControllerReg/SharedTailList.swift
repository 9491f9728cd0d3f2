/// A list with value semantics whose copies share one storage while they only append: a copy of
/// `count` values appends in place when the storage holds exactly its `count` values (no other
/// copy appended past them), so a registry's state and the candidate made from it share the
/// list and the candidate's append costs one value, not a copy of the list. Any other write
/// (an element replaced, an append behind another copy's) copies first, as `Array` would.
/// Not thread-safe: a registry's lists are used under its writer lock.
struct SharedTailList<Element>: RandomAccessCollection, MutableCollection {
    /// The values; each copy reads its first `count`. (Not checked for exclusive access at each
    /// use, ~76 instructions: a registry's lists are used under its writer lock.)
    private final class Storage {
        @exclusivity(unchecked) var values: [Element]
        init(_ values: [Element]) { self.values = values }
    }

    private var storage: Storage
    /// How many values this copy holds.
    private(set) var count: Int

    /// The values of `array`.
    init(_ array: [Element] = []) {
        storage = Storage(array)
        count = array.count
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(i: Int) -> Element {
        get {
            precondition(i >= 0 && i < count, "SharedTailList: index out of range")
            return storage.values[i]
        }
        set {
            precondition(i >= 0 && i < count, "SharedTailList: index out of range")
            makeUnique()
            storage.values[i] = newValue
        }
    }

    /// Appends `value`: in place when this copy's values are all the storage holds.
    mutating func append(_ value: Element) {
        if storage.values.count != count { makeUnique() }
        storage.values.append(value)
        count += 1
    }

    /// Appends every value of `values` (in one write of the storage).
    mutating func append(contentsOf values: [Element]) {
        if storage.values.count != count { makeUnique() }
        storage.values.append(contentsOf: values)
        count += values.count
    }

    /// The storage made this copy's alone (its values copied) unless it already is.
    private mutating func makeUnique() {
        if isKnownUniquelyReferenced(&storage) {
            if storage.values.count != count { storage.values.removeLast(storage.values.count - count) }
            return
        }
        storage = Storage(Array(storage.values[0..<count]))
    }
}

extension SharedTailList: ExpressibleByArrayLiteral {
    /// The values written.
    init(arrayLiteral values: Element...) { self.init(values) }
}
