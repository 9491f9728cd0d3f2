import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Memory for one large load's temporaries (the parser's top-level names, the staged entries'
/// lists, the interning table, the transaction's working lists): one anonymous mapping, handed
/// out front to back, never reused, and unmapped at once when the last holder lets go (every
/// holder keeps the region alive), so nothing of it stays after the load.
///
/// Why: the end of a large load gives the pages of its temporaries back to the system (the
/// registry keeps ~250 bytes an entry and the temporaries are about as much again; keeping them
/// would double what a loaded registry costs), so every load faulted them in again 4 KiB at a
/// time: a 100k-entry JSON load ~4,300 page faults, ~1.5 µs each, ~8% of the load. The mapping
/// asks for transparent huge pages (`MADV_HUGEPAGE`, Linux): the same bytes fault in 2 MiB at a
/// time (a 4 MiB region: 1,024 faults and 1.55 ms with small pages, 2 faults and 0.14 ms with huge
/// ones), and the random reads of its hash tables miss the TLB less. The region of a load of
/// less than 1 MiB of text keeps its first 2 MiB in small pages: a huge page counts whole once
/// touched, and its temporaries (~0.8 bytes per byte of text) would fill little of one. From
/// 1 MiB on the whole region is in huge pages: a 10k-entry JSON load (2.9 MB, 2.3 MB of
/// temporaries) faulted ~340 small pages a load with the first 2 MiB small, ~13% of its time on
/// an AMD EPYC host, and ~30 with none (BENCHMARKS.md, json16), for a peak ~1 MB higher while it
/// runs. Where the system gives no huge pages the region works with small pages, like
/// `malloc`'s own large blocks. Pages never written are never touched.
///
/// Memory handed out is zeroed (fresh pages) and 64-byte aligned. A request the region has no
/// room left for is served by `malloc` instead (`allocate(_:count:in:zeroed:)`); `deallocate`
/// frees only what `malloc` gave.
// @unchecked: used by the one load (one thread) that made it; only `deinit` may run elsewhere.
package final class ScratchRegion: @unchecked Sendable {
    /// Loads of less input than this get no region (their temporaries fit the allocator's
    /// reused pages).
    package static let minimumInput = 256 << 10

    /// Loads of less input than this keep the region's first huge page's worth in small pages.
    package static let hugeFromInput = 1 << 20

    /// How many regions are mapped now, in the process (what tests check: none after a load).
    package static var liveCount: Int { live.load(ordering: .relaxed) }
    private static let live = Atomic<Int>(0)

    /// How many bytes at the region's start are left in small pages (the rest asks for huge ones).
    package let smallPages: Int

    private let mapping: HugePageMapping
    /// The region's bounds (the mapping's).
    private let start: UnsafeMutableRawPointer
    private let end: UnsafeMutableRawPointer
    /// Where the next allocation starts.
    private var cursor: UnsafeMutableRawPointer
    /// The start of the last allocation (it can grow in place).
    private var last: UnsafeMutableRawPointer?

    /// A region for the temporaries of a load of `inputBytes` bytes of text (address space for
    /// twice the input, at least 4 MiB and at most 1 GiB), or nil when the input is below
    /// `minimumInput` or the system refuses the mapping.
    package convenience init?(forInput inputBytes: Int) {
        guard inputBytes >= ScratchRegion.minimumInput else { return nil }
        self.init(
            bytes: min(max(inputBytes * 2, 4 << 20), 1 << 30),
            smallPagesFirst: inputBytes < ScratchRegion.hugeFromInput)
    }

    /// A region of `bytes` bytes of address space (rounded up to whole huge pages), its first huge
    /// page's worth in small pages when `smallPagesFirst`, or nil when the system refuses the
    /// mapping.
    package init?(bytes: Int, smallPagesFirst: Bool = true) {
        let small = smallPagesFirst ? HugePageMapping.hugePage : 0
        guard let m = HugePageMapping(bytes: bytes, smallPages: small) else { return nil }
        mapping = m
        start = m.start
        end = m.start + m.bytes
        cursor = start
        smallPages = min(small, m.bytes)
        ScratchRegion.live.add(1, ordering: .relaxed)
    }

    deinit {
        mapping.unmap()
        ScratchRegion.live.subtract(1, ordering: .relaxed)
    }

    /// `bytes` zeroed bytes aligned to 64, or nil when the region has no room left.
    package func allocate(bytes: Int) -> UnsafeMutableRawPointer? {
        let size = (max(bytes, 1) + 63) & ~63
        guard size <= end - cursor else { return nil }
        let p = cursor
        cursor += size
        last = p
        return p
    }

    /// Whether `p` points into the region.
    @inline(__always) package func holds(_ p: UnsafeRawPointer) -> Bool {
        UnsafeRawPointer(start) <= p && p < UnsafeRawPointer(end)
    }

    /// Grows the allocation at `p` to `bytes` bytes where it is, when it is the last one and the
    /// region has room; false otherwise.
    package func extend(_ p: UnsafeMutableRawPointer, to bytes: Int) -> Bool {
        guard p == last else { return false }
        let size = (max(bytes, 1) + 63) & ~63
        guard size <= end - p else { return false }
        cursor = max(cursor, p + size)
        return true
    }

    /// Room for `count` values from `region` when it has room, else from `malloc` (zeroed when
    /// `zeroed`; the region's always is); traps only if the system is out of memory.
    package static func allocate<T>(
        _ type: T.Type, count: Int, in region: ScratchRegion?, zeroed: Bool = false
    ) -> UnsafeMutablePointer<T> {
        let bytes = max(count, 1) * MemoryLayout<T>.stride
        if let region, let p = region.allocate(bytes: bytes) { return p.bindMemory(to: T.self, capacity: max(count, 1)) }
        guard let p = zeroed ? calloc(max(count, 1), MemoryLayout<T>.stride) : malloc(bytes) else {
            fatalError("controllerreg: out of memory allocating \(bytes) bytes")
        }
        return p.bindMemory(to: T.self, capacity: max(count, 1))
    }

    /// `p` (holding `count` values, from `allocate(_:count:in:zeroed:)` or `resize`) with room for
    /// `capacity` values: grown in place when it can be, else moved (the region's old room is
    /// left as it is; `malloc`'s is reallocated).
    package static func resize<T>(
        _ p: UnsafeMutablePointer<T>?, count: Int, to capacity: Int, in region: ScratchRegion?
    ) -> UnsafeMutablePointer<T> {
        guard let p else { return allocate(T.self, count: capacity, in: region) }
        let bytes = max(capacity, 1) * MemoryLayout<T>.stride
        if let region, region.holds(p) {
            if region.extend(UnsafeMutableRawPointer(p), to: bytes) { return p }
            let moved = allocate(T.self, count: capacity, in: region)
            moved.update(from: p, count: count)
            return moved
        }
        guard let q = realloc(p, bytes) else { fatalError("controllerreg: out of memory allocating \(bytes) bytes") }
        return q.bindMemory(to: T.self, capacity: max(capacity, 1))
    }

    /// Frees `p` if `malloc` gave it (the region's room goes with the region).
    package static func deallocate(_ p: UnsafeMutableRawPointer?, in region: ScratchRegion?) {
        guard let p else { return }
        if let region, region.holds(p) { return }
        free(p)
    }
}

/// A `TopLevelPairSink` whose load has a region for temporaries: the loader keeps what it holds
/// for the whole document there (the top-level keys read so far).
package protocol ScratchHolder: AnyObject {
    /// The load's region for temporaries, if it has one.
    var scratch: ScratchRegion? { get }
}
