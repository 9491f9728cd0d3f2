import ControllerRegConfig

/// What a create needs to know about the calling thread, in one record per thread so a create
/// reads it with a single thread-local lookup and host callbacks update it in place. The record
/// lives in the thread's epoch reader record (`Epoch.ReaderRecord.thread`), which a create looks
/// up anyway to read the registry's snapshot.
struct CreateThread {
    /// How deep the thread is in creates: a host callback that creates again (directly, or through
    /// a provider) continues the count of the create that called it, so the create-depth limit and
    /// the stack guard bound the whole nest on this thread, not each create alone.
    var depth: Int
    /// The lowest usable address of this thread's stack (0 if unknown), for the stack guard.
    let stackLow: UInt
    /// An empty map: the arguments of every object built on this thread without any (read-only
    /// for the callbacks; one per thread, so no create sets one up).
    let emptyArguments = RawValue.emptyMap
    /// The entry index this thread's last create by name found (in whichever registry), tried
    /// first by the next one (`Registry.createOutcome`); -1 for none. Only a hint: the next create
    /// compares its name with the entry's before using it.
    var lastEntry = -1
    /// The serial of the `SwiftArgumentImages` image the thread's arguments buffer holds a copy
    /// of (`argumentsBuffer`), `noArguments` when it holds none, 0 while a create uses it.
    var argumentsSerial = CreateThread.noArguments

    /// `argumentsSerial` of a buffer that holds no image's copy (no image has this serial).
    static var noArguments: UInt64 { 1 }

    /// Where the thread's arguments buffer begins in its record's block (after the record,
    /// 16-byte aligned).
    static var argumentsBufferOffset: Int { (MemoryLayout<CreateThread>.stride + 15) & ~15 }

    /// The bytes of the arguments buffer: an arguments map's value, then room for its slots.
    static var argumentsBufferBytes: Int {
        argumentsSlotsOffset + SwiftArgumentImages.maxSlots * MemoryLayout<RawMapSlot>.stride
    }

    /// Where the slots begin in the arguments buffer (after the map's value, 16-byte aligned).
    static var argumentsSlotsOffset: Int { (MemoryLayout<RawValue>.stride + 15) & ~15 }

    /// The arguments buffer of the record at `thread` (`SwiftClassCreate` builds a Swift class's
    /// arguments map there; `SwiftArgumentImages` tells how it is reused): in the record's block,
    /// which only its thread writes.
    @inline(__always)
    static func argumentsBuffer(_ thread: UnsafeMutablePointer<CreateThread>) -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(thread) + argumentsBufferOffset
    }

    /// A record for the calling thread: depth 0 and its stack's bound.
    init(stackLow: UInt = StackGuard.lowBound()) {
        depth = 0
        self.stackLow = stackLow
    }

    /// The address of `emptyArguments` in the record at `thread`.
    @inline(__always)
    static func emptyArguments(_ thread: UnsafeMutablePointer<CreateThread>) -> UnsafeRawPointer {
        UnsafeRawPointer(thread) + MemoryLayout<CreateThread>.offset(of: \.emptyArguments).unsafelyUnwrapped
    }

    /// Whether the calling thread's stack has room for another create level below the caller's
    /// frame (`StackGuard`'s rule, inlined: no call and no thread-local lookup).
    @inline(__always)
    func hasStackRoom() -> Bool {
        var marker: UInt8 = 0
        let here = _withUnprotectedUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
        return StackGuard.hasRoom(here: here, above: stackLow)
    }
}

/// The per-thread `CreateThread` records.
enum CreateNesting {
    /// The calling thread's record (made with its reader record on first use).
    @inline(__always)
    static var current: UnsafeMutablePointer<CreateThread> {
        Epoch.currentRecord()._withUnsafeGuaranteedRef { $0.thread }
    }

    /// Runs a host callback made at `depth` on `thread`: creates it starts begin at `depth + 1`.
    @inline(__always)
    static func callingHost<R>(
        _ thread: UnsafeMutablePointer<CreateThread>, at depth: Int, _ body: () throws -> R
    ) rethrows -> R {
        let saved = thread.pointee.depth
        thread.pointee.depth = depth &+ 1  // depth < the create depth limit here
        defer { thread.pointee.depth = saved }
        return try body()
    }

    /// `callingHost` that leaves the depth as set: for the callbacks an arguments map's builder
    /// makes one after another, which puts the depth back once when it is done (the depth is read
    /// only by creates that callbacks start, and each callback gets its own set first).
    @inline(__always)
    static func callingHostUnrestored<R>(
        _ thread: UnsafeMutablePointer<CreateThread>, at depth: Int, _ body: () throws -> R
    ) rethrows -> R {
        thread.pointee.depth = depth &+ 1  // depth < the create depth limit here
        return try body()
    }
}
