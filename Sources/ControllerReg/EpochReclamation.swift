import CThreadRecord
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Epoch-based reclamation: lets readers use a published snapshot without locks or reference
/// counting, and lets writers free a replaced snapshot once no reader can still see it.
///
/// Each thread has a reader record (on cache lines no other thread writes) holding the global epoch it entered at,
/// or 0 when outside. The record also carries the thread's `CreateThread` (create nesting depth and
/// stack bound), so a create finds both with one thread-local lookup. A writer retires the old snapshot under the epoch current at the swap,
/// advances the epoch, and frees what was retired before the oldest active reader entered.
enum Epoch {
    static let global = Atomic<UInt64>(1)
    static let records = Locked<[ReaderRecord]>([])

    /// One thread's reader state; records are reused after their thread exits, never freed.
    // @unchecked: `thread` is touched only by the thread that holds the record; the rest are
    // atomics (`active` written only by that thread).
    // Every create writes its thread's `active` and `thread.pointee.depth`. Neither may share a
    // cache line with anything another thread writes, or two threads' creates keep taking the
    // line from each other (false sharing): `active` has 48 bytes of padding before it (so it sits
    // 64 bytes past the object's start, away from whatever the allocator put just before) and 64
    // after it; the `CreateThread` has a block of whole 128-byte lines to itself (128: the pair
    // of lines x86 prefetches together).
    final class ReaderRecord: @unchecked Sendable {
        private var leadingPadding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
        let active = Atomic<UInt64>(0)
        let inUse = Atomic<Bool>(true)
        /// The holding thread's create record (set up again for each thread that takes the record).
        let thread: UnsafeMutablePointer<CreateThread> = ReaderRecord.allocateThreadBlock()
        private var padding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)

        /// Bytes of the block a `CreateThread` lives in, and its alignment.
        static let threadBlockLine = 128

        /// Uninitialised room for one `CreateThread` and its arguments buffer
        /// (`CreateThread.argumentsBuffer`), alone on their cache lines.
        private static func allocateThreadBlock() -> UnsafeMutablePointer<CreateThread> {
            let line = threadBlockLine
            let bytes = CreateThread.argumentsBufferOffset + CreateThread.argumentsBufferBytes
            let size = (bytes + line - 1) / line * line
            return UnsafeMutableRawPointer.allocate(byteCount: size, alignment: line)
                .bindMemory(to: CreateThread.self, capacity: 1)
        }
    }

    /// Owns each thread's record for its lifetime: its destructor gives the record back when the
    /// thread exits (and forgets the thread-local cache `currentRecord` reads).
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        let rc = pthread_key_create(&key) { raw in
            guard let raw else { return }
            controllerreg_thread_record_set(nil)
            Unmanaged<ReaderRecord>.fromOpaque(raw).takeUnretainedValue().inUse.store(false, ordering: .releasing)
        }
        precondition(rc == 0, "controllerreg: pthread_key_create for the reader records failed (\(rc))")
        return key
    }()

    /// This thread's record, unretained (records are never freed): one load from the C
    /// thread-local cache (`CThreadRecord`), registered on the thread's first use.
    @inline(__always)
    static func currentRecord() -> Unmanaged<ReaderRecord> {
        if let raw = controllerreg_thread_record_get() {
            return Unmanaged<ReaderRecord>.fromOpaque(raw)
        }
        return Unmanaged.passUnretained(registerThread())
    }

    @inline(never)
    private static func registerThread() -> ReaderRecord {
        let record: ReaderRecord = records.withLock { list in
            for r in list where !r.inUse.load(ordering: .acquiring) {
                r.inUse.store(true, ordering: .releasing)
                return r
            }
            let r = ReaderRecord()
            list.append(r)
            return r
        }
        record.thread.initialize(to: CreateThread())
        let rc = pthread_setspecific(key, Unmanaged.passUnretained(record).toOpaque())
        precondition(rc == 0, "controllerreg: pthread_setspecific for the reader record failed (\(rc))")
        controllerreg_thread_record_set(Unmanaged.passUnretained(record).toOpaque())
        return record
    }

    /// Enters a read-side section (nestable); pair with `exit`, passing back what this returns.
    /// Only the outermost section of a thread publishes its epoch: a thread inside one already has
    /// a nonzero `active` (epochs start at 1), which only this thread writes, so reading it back
    /// needs no ordering and no nesting counter.
    @inline(__always)
    static func enter() -> (Unmanaged<ReaderRecord>, outermost: Bool) {
        let u = currentRecord()
        let outermost = u._withUnsafeGuaranteedRef { r in
            guard r.active.load(ordering: .relaxed) == 0 else { return false }
            r.active.store(global.load(ordering: .sequentiallyConsistent), ordering: .sequentiallyConsistent)
            return true
        }
        return (u, outermost)
    }

    /// Leaves a read-side section (the outermost one clears the thread's epoch).
    /// The outermost also tears down registries closed while creates were inside them
    /// (`ClosedRegistries`), when there are any: one load on the create path.
    @inline(__always)
    static func exit(_ entered: (Unmanaged<ReaderRecord>, outermost: Bool)) {
        if entered.outermost {
            entered.0._withUnsafeGuaranteedRef { $0.active.store(0, ordering: .releasing) }
            if ClosedRegistries.waiting { ClosedRegistries.collect() }
        }
    }

    /// Whether the calling thread is inside a read-side section (a create, on any registry).
    static var insideRead: Bool {
        guard let raw = controllerreg_thread_record_get() else { return false }
        return Unmanaged<ReaderRecord>.fromOpaque(raw)._withUnsafeGuaranteedRef { $0.active.load(ordering: .relaxed) != 0 }
    }

    /// The oldest epoch an active reader entered at (UInt64.max when none is inside).
    static func oldestActive() -> UInt64 {
        records.withLock { list in
            var oldest = UInt64.max
            for r in list {
                let e = r.active.load(ordering: .sequentiallyConsistent)
                if e != 0 && e < oldest { oldest = e }
            }
            return oldest
        }
    }
}

/// Holds the current snapshot of one registry; readers never block, writers (serialised by the
/// registry's lock) publish a new one and free old ones when safe.
// @unchecked: `current` is atomic; `retired` is touched only under the registry's writer lock.
final class SnapshotCell: @unchecked Sendable {
    /// The current snapshot's address (an integer: an atomic pointer is decoded with a null check
    /// and a trap on every read; this one is never 0).
    private let current: Atomic<UInt>
    /// Replaced snapshots with the epoch of their replacement; touched only under the writer lock
    /// (so not checked for exclusive access at each use: ~80 instructions a publish).
    @exclusivity(unchecked) private var retired: [(UnsafeMutableRawPointer, UInt64)] = []

    init(_ initial: Snapshot) {
        current = Atomic(UInt(bitPattern: Unmanaged.passRetained(initial).toOpaque()))
    }

    deinit {
        SnapshotCell.snapshot(at: current.load(ordering: .acquiring)).release()
        for (p, _) in retired { Unmanaged<Snapshot>.fromOpaque(p).release() }
    }

    /// Runs `body` with the current snapshot; it stays valid until `body` returns.
    @inline(__always)
    func read<R>(_ body: (Snapshot) -> R) -> R {
        let record = Epoch.enter()
        defer { Epoch.exit(record) }
        let p = current.load(ordering: .sequentiallyConsistent)
        return SnapshotCell.snapshot(at: p)._withUnsafeGuaranteedRef { body($0) }
    }

    /// `read`, also passing the calling thread's create record (found with the same lookup).
    @inline(__always)
    func read<R>(_ body: (Snapshot, UnsafeMutablePointer<CreateThread>) -> R) -> R {
        let record = Epoch.enter()
        defer { Epoch.exit(record) }
        let p = current.load(ordering: .sequentiallyConsistent)
        let thread = record.0._withUnsafeGuaranteedRef { $0.thread }
        return SnapshotCell.snapshot(at: p)._withUnsafeGuaranteedRef { body($0, thread) }
    }

    /// The current snapshot, retained (writers only, under the writer lock).
    var snapshot: Snapshot { SnapshotCell.snapshot(at: current.load(ordering: .acquiring)).takeUnretainedValue() }

    /// The snapshot at `address` (a value of `current`, never 0).
    @inline(__always)
    private static func snapshot(at address: UInt) -> Unmanaged<Snapshot> {
        Unmanaged<Snapshot>.fromOpaque(UnsafeRawPointer(bitPattern: address).unsafelyUnwrapped)
    }

    /// Publishes `next` and frees retired snapshots no reader can see. Call under the writer lock.
    /// Returns the epoch the replaced snapshot was retired under: what only it held is unreachable
    /// once `Epoch.oldestActive()` is above that epoch.
    @discardableResult
    func publish(_ next: Snapshot) -> UInt64 {
        let old = UnsafeMutableRawPointer(
            bitPattern: current.exchange(
                UInt(bitPattern: Unmanaged.passRetained(next).toOpaque()), ordering: .sequentiallyConsistent)
        ).unsafelyUnwrapped
        let epoch = Epoch.global.add(1, ordering: .sequentiallyConsistent).oldValue
        retired.append((old, epoch))
        let oldest = Epoch.oldestActive()
        retired.removeAll { p, e in
            guard e < oldest else { return false }
            Unmanaged<Snapshot>.fromOpaque(p).release()
            return true
        }
        return epoch
    }
}
