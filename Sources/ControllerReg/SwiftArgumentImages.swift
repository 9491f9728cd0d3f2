import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The arguments maps `SwiftClassCreate` (the Swift API's door) and `HostArgumentsCreate` (the C
/// ABI's) start their creates from, one per entry of one snapshot and door (`Door`), built on the
/// entry's first such create and kept until the snapshot is freed. The two doors' images are
/// alike; the C ABI's takes leaves of any registered class, and has no leaf images (its leaves
/// are built by `Resolver.createLeaf`).
///
/// An image is an entry's arguments map as far as it is the same for every create: a header (a
/// word with a bit per leaf slot, the image's serial, the first word of the map's value with its
/// slot count, the depth its leaves need below the entry's: 1 with leaves, else 0, the entry's
/// class's functions, and 0: not a leaf), then the map's slots, each with its key, each literal
/// with its value, each leaf with its class's functions in its value's payload (what
/// `SwiftClassCreate.writeSlots` writes). A create copies
/// the slots into its thread's arguments buffer (`CreateThread.argumentsBuffer`; into its own
/// frame when a create of this thread is using the buffer already: a closure's nested create) and
/// builds only the leaves. The buffer keeps the serial of the image it holds, so the thread's
/// next create of the same entry in the same snapshot copies nothing: each create writes every
/// leaf slot's value before a closure reads it, and writes nothing else of the slots (a closure
/// only marks an object value it takes; a literal is never written). An entry the path does not
/// take (a slot that is neither a literal nor a transient leaf of a Swift class, or more than
/// `maxSlots` slots, an entry that is not transient or whose class is not a Swift class) has the
/// image `refused`. A transient leaf of a Swift class (no slots) has an image too: a header only,
/// with its class's functions and 1 in the leaf word (its other words 0), so its create reads no
/// plan either.
///
/// An image reads only its snapshot (the entry's plan and the class table), which never changes:
/// any change (an entry added, removed or overridden, a class registered or replaced, a reload, a
/// parent's change seen by a child) publishes another snapshot, whose images are built again. So
/// no image can be stale, and its pointers (keys and literals in the plan, class functions) live
/// as long as it does.
///
/// Each door's table (a word per entry index) is allocated on first use; images and tables are
/// published with a compare-and-exchange, so threads building the same one at once keep one and
/// free the others.
enum SwiftArgumentImages {
    /// Where an image's slots begin (after its header, 16-byte aligned).
    static var slotsOffset: Int { 48 }
    /// Where an image's serial is: a number no other image of the process has (never 0 or
    /// `CreateThread.noArguments`), naming the copy a thread's arguments buffer holds.
    static var serialOffset: Int { 8 }
    /// Where the first word of its arguments map's value is (kind, flags, hint 0 and, in its high
    /// half, its slot count: 1 to `maxSlots`).
    static var mapHeadOffset: Int { 16 }
    /// Where the depth its leaves need below the entry's is (an `Int`: 1 with leaves, else 0).
    static var leafDepthOffset: Int { 24 }
    /// Where the entry's class's functions are (an `UnsafePointer<ClassFunctions>` into the
    /// snapshot's class table).
    static var functionsOffset: Int { 32 }
    /// Where the leaf word is (an `Int`: 1 for a leaf's image, which has no slots, else 0).
    static var leafOffset: Int { 40 }
    /// The most slots an image has (the arguments buffer's size; its leaves are one bit each of a
    /// word).
    static var maxSlots: Int { 16 }

    /// The serial of the last image built (images take the next one).
    private static let lastSerial = Atomic<UInt64>(16)

    /// A serial for a new image.
    static func nextSerial() -> UInt64 { lastSerial.wrappingAdd(1, ordering: .relaxed).newValue }

    /// The image of an entry `SwiftClassCreate` does not build.
    static var refused: UInt { 1 }

    /// Which door's images: the Swift API's (`SwiftClassCreate`: Swift classes only) or the C
    /// ABI's (`HostArgumentsCreate`: any registered class). Each has its own table in the snapshot
    /// (`Snapshot.argumentImages`, `Snapshot.hostArgumentImages`): an entry one refuses the other
    /// may take.
    enum Door {
        case swift, host
    }

    /// The address of `door`'s table in `snapshot`, or 0 when it has none yet.
    @inline(__always)
    private static func table(_ snapshot: Snapshot, _ door: Door) -> UInt {
        switch door {
        case .swift: return snapshot.argumentImages.load(ordering: .acquiring)
        case .host: return snapshot.hostArgumentImages.load(ordering: .acquiring)
        }
    }

    /// Publishes `fresh` as `door`'s table in `snapshot` unless it has one: whether it did, and
    /// the table it had.
    private static func publishTable(_ fresh: UInt, _ snapshot: Snapshot, _ door: Door) -> (Bool, UInt) {
        switch door {
        case .swift:
            return snapshot.argumentImages.compareExchange(expected: 0, desired: fresh, ordering: .acquiringAndReleasing)
        case .host:
            return snapshot.hostArgumentImages.compareExchange(
                expected: 0, desired: fresh, ordering: .acquiringAndReleasing)
        }
    }

    /// The image of entry `index` of `snapshot` for `door` (an address, or `refused`), or 0 when
    /// none was built yet.
    @inline(__always)
    static func image(_ snapshot: Snapshot, _ index: Int, door: Door = .swift) -> UInt {
        let table = table(snapshot, door)
        guard table != 0 else { return 0 }
        return cell(table, index).pointee.load(ordering: .acquiring)
    }

    /// Publishes `image` (an address from `allocate`, or `refused`) for entry `index` of
    /// `snapshot`, allocating the table on first use. Returns the image that entry keeps: `image`,
    /// or the one another thread published first (then `image` is freed). When the table cannot
    /// be allocated, `image` is freed and the entry reads as `refused` for this create (the
    /// resolver builds it).
    @inline(never)
    static func publish(_ image: UInt, _ snapshot: Snapshot, _ index: Int, door: Door = .swift) -> UInt {
        var table = table(snapshot, door)
        if table == 0 {
            let count = max(1, snapshot.entries.count)
            guard let fresh = calloc(count, MemoryLayout<UInt>.stride) else {
                release(image)
                return refused
            }
            let (stored, original) = publishTable(UInt(bitPattern: fresh), snapshot, door)
            if stored {
                table = UInt(bitPattern: fresh)
            } else {
                free(fresh)
                table = original
            }
        }
        let (stored, original) = cell(table, index).pointee.compareExchange(
            expected: 0, desired: image, ordering: .acquiringAndReleasing)
        if stored { return image }
        release(image)
        return original
    }

    /// Memory for an image of `count` slots (its header at offset 0, its slots at `slotsOffset`).
    static func allocate(slots count: Int) -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer.allocate(
            byteCount: slotsOffset + count * MemoryLayout<RawMapSlot>.stride, alignment: 16)
    }

    /// Frees the table `table` of an entry table of `count` indices and its images (the
    /// snapshot's end: nothing reads them any more).
    static func freeTable(_ table: UInt, count: Int) {
        for i in 0..<count { release(cell(table, i).pointee.load(ordering: .relaxed)) }
        free(UnsafeMutableRawPointer(bitPattern: table))
    }

    /// Frees an image (nothing for 0 or `refused`).
    private static func release(_ image: UInt) {
        guard image > refused else { return }
        UnsafeMutableRawPointer(bitPattern: image).unsafelyUnwrapped.deallocate()
    }

    /// The table's word for entry `index`.
    @inline(__always)
    private static func cell(_ table: UInt, _ index: Int) -> UnsafeMutablePointer<Atomic<UInt>> {
        UnsafeMutablePointer<Atomic<UInt>>(bitPattern: table).unsafelyUnwrapped + index
    }
}
