/// A weak reference to a child registry.
struct WeakRegistry {
    weak var registry: Registry?
    init(_ r: Registry) { registry = r }
}

/// What writers change under the lock (the published snapshot is derived from it).
struct WriterState {
    var classSlots = ClassSlots()
    /// This registry's own classes by slot (a child's parent classes are not here).
    var classRecords: [ClassRecord?] = []
    var templates: [String] = []
    /// A child's own definitions (a root registry keeps its entries in the snapshot).
    /// (Shared with a candidate while it only appends: a child's add appends, it does not copy.)
    var own: SharedTailList<EntryDefinition> = []
    /// The changes made so far, for `reload()`.
    var history = ReloadHistory()
    var children: [WeakRegistry] = []
}
