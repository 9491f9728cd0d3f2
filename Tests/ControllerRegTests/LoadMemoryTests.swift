import ControllerRegConfig
import Foundation
import Testing

@testable import ControllerReg

/// The memory of large loads: a freed registry's arena block is kept for the next large arena
/// (one block, until the next load ends), grown or shrunk keeping what it holds. What a user relies on: every registry reads its own entries, whichever
/// pages it was given.
@Suite("Large loads' memory")
struct LoadMemoryTests {
    /// Writes a pattern of `n` bytes at `p` (seeded by `seed`).
    static func fill(_ p: UnsafeMutableRawPointer, _ n: Int, seed: UInt8) {
        for i in stride(from: 0, to: n, by: 997) {
            p.storeBytes(of: UInt8(truncatingIfNeeded: i) &+ seed, toByteOffset: i, as: UInt8.self)
        }
    }

    /// Whether the `n` bytes at `p` still hold `fill`'s pattern.
    static func holds(_ p: UnsafeMutableRawPointer, _ n: Int, seed: UInt8) -> Bool {
        stride(from: 0, to: n, by: 997).allSatisfy {
            p.load(fromByteOffset: $0, as: UInt8.self) == UInt8(truncatingIfNeeded: $0) &+ seed
        }
    }

    /// Whether this process runs under AddressSanitizer, whose `realloc` moves every block (so a
    /// kept buffer comes back with its bytes but at another address).
    static let reallocAlwaysMoves = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil

    @Test func aKeptBufferIsTheNextLargeBufferWithItsBytes() throws {
        let kept = KeptPages()
        let n = 300_000
        let p = kept.take(n)
        Self.fill(p, n, seed: 7)
        kept.keep(p, bytes: n)
        #expect(kept.bytes == n)
        // The next buffer is made from it (the same block, the same bytes until written).
        let q = kept.take(n)
        #expect(q == p || Self.reallocAlwaysMoves)
        #expect(Self.holds(q, n, seed: 7))
        #expect(kept.bytes == 0)
        // A larger one grows it, keeping what it held.
        kept.keep(q, bytes: n)
        let r = kept.take(4 * n)
        #expect(Self.holds(r, n, seed: 7))
        r.storeBytes(of: 1, toByteOffset: 4 * n - 1, as: UInt8.self)
        kept.keep(r, bytes: 4 * n)
        #expect(kept.bytes == 4 * n)
        kept.drop()
        #expect(kept.bytes == 0)
    }

    @Test func onlyTheLargestFreedBufferIsKept() {
        let kept = KeptPages()
        let small = kept.take(300_000)
        let large = kept.take(900_000)
        kept.keep(small, bytes: 300_000)
        kept.keep(large, bytes: 900_000)
        #expect(kept.bytes == 900_000)
        let other = kept.take(300_000)
        #expect(other == large || Self.reallocAlwaysMoves)
        let fresh = kept.take(300_000)
        #expect(fresh != other)
        kept.keep(other, bytes: 900_000)
        kept.keep(fresh, bytes: 300_000)  // smaller than the one kept: freed
        #expect(kept.bytes == 900_000)
        kept.drop()
        #expect(kept.bytes == 0)
    }

    /// `count` entries `prefix0`…: each a `Screen` with a description naming it and a reference to
    /// the entry before.
    static func config(_ prefix: String, _ count: Int) -> String {
        var text = "{\"\(prefix)0\": \"Screen\""
        for i in 1..<count {
            text += ",\n\"\(prefix)\(i)\": {\"ClassName\": \"Screen\", \"Description\": \"entry \(prefix)\(i) of \(count)\","
            text += " \"Dependencies\": {\"previous\": \"\(prefix)\(i - 1)\", \"n\": \(i)}}"
        }
        return text + "}"
    }

    @Test func aLargeChangesPlansAreOneHugePageMappingTrimmedToWhatTheyHold() throws {
        let huge = HugePageMapping.hugePage
        let arena = Arena()
        arena.reserveHugePages(huge + 1)  // two huge pages of address space
        let first = arena.allocate(100)
        let second = arena.allocate(1 << 20)
        #expect(Int(bitPattern: first) % huge == 0)
        #expect(second == first + 104)
        Self.fill(second, 1 << 20, seed: 3)
        #expect(msync(first + huge, huge, MS_ASYNC) == 0)
        // Past the reservation's room: the allocator's chunks, and the room never handed out
        // (from ~1 MiB on) goes back to the system; what was, stays.
        let beyond = arena.allocate(3 << 20)
        #expect(beyond < first || beyond >= first + arena.reservedBytes)
        Self.fill(beyond, 3 << 20, seed: 5)
        #expect(msync(first + huge, huge, MS_ASYNC) != 0)
        #expect(msync(first, (1 << 20) + 104, MS_ASYNC) == 0)
        #expect(Self.holds(second, 1 << 20, seed: 3) && Self.holds(beyond, 3 << 20, seed: 5))
        #expect(arena.reservedBytes == (1 << 20) + 4096)

        // Trimmed when the change is done with it, the rest back to the system likewise.
        let plans = Arena()
        plans.reserveHugePages(huge)
        let p = plans.allocate(5_000)
        Self.fill(p, 5_000, seed: 9)
        plans.trim()
        #expect(plans.reservedBytes == 8192)
        #expect(msync(p + 8192, 4096, MS_ASYNC) != 0)
        #expect(Self.holds(p, 5_000, seed: 9))
        let next = plans.allocate(64)
        #expect(next < p || next >= p + plans.reservedBytes)
    }

    @Test func aLoadWhosePlansTakeHugePagesCreatesEveryEntry() throws {
        // Records of 4 MiB or more: the plans are compiled into a huge-page mapping, trimmed when
        // the change commits. Every entry builds with its own literals and its reference.
        let count = 2_000
        let text = String(repeating: "x", count: 2_200)
        var json = "{"
        for i in 0..<count {
            json += i == 0 ? "" : ","
            json += "\"W\(i)\": {\"ClassName\": \"Widget\", \"Description\": \"\(text)\","
            json += " \"Dependencies\": {\"n\": \(i), \"label\": \"@w\(i)\""
            json += i == 0 ? "}}" : ", \"first\": \"W0\"}}"
        }
        json += "}"
        let r = Registry()
        try registerWidgets(r, ["Widget"])
        try r.load(text: json, format: .json)
        let rows = r.cell.snapshot.entries.rows
        #expect((0..<rows.arenaCount).contains { rows.arena($0).plans.reservedBytes > 0 })
        for i in [0, 1, 999, count - 1] {
            let w = try r.create("W\(i)", as: Widget.self)
            #expect(w.args["n"] == .int(Int64(i)))
            #expect(w.args["label"] == .string("w\(i)"))
            if i > 0 { #expect(w.children["first"]?.args["label"] == .string("w0")) }
        }
    }

    @Test func registriesLoadedAfterFreedOnesReadTheirOwnEntries() throws {
        // Large enough that each arena is kept when freed: the second load may be given the first's.
        var first: Registry? = Registry()
        try first!.load(text: Self.config("A", 3_000), format: .json)
        #expect(first!.entries.count == 3_000)
        first = nil
        let second = Registry()
        try second.load(text: Self.config("B", 3_000), format: .json)
        let third = Registry()
        try third.load(text: Self.config("C", 2_000), format: .json)
        #expect(second.entries.count == 3_000)
        #expect(second.entry(named: "A17") == nil)
        #expect(second.entry(named: "B17")?.description == "entry B17 of 3000")
        #expect(second.entry(named: "B2999")?.dependencies.first?.value == .reference("B2998", at: nil))
        #expect(third.entry(named: "C1999")?.description == "entry C1999 of 2000")
        #expect(third.entry(named: "B17") == nil)
    }

    @Test func anArenaGrowsPastItsEstimateKeepingItsRecords() throws {
        // Code doors size the arena by entry count alone (128 bytes an entry): long descriptions
        // make a large arena (perhaps a kept block) grow several times.
        let text = String(repeating: "long description ", count: 60)
        let definitions = (0..<2_500).map { i in
            EntryDefinition(name: "D\(i)", className: "Screen", description: "\(i): \(text)")
        }
        let r = Registry()
        try r.add(definitions)
        #expect(r.entries.count == 2_500)
        #expect(r.entry(named: "D0")?.description == "0: \(text)")
        #expect(r.entry(named: "D2499")?.description == "2499: \(text)")
    }

    @Test func scratchListsAreValuesAndOutgrowTheirRegion() throws {
        let region = try #require(ScratchRegion(bytes: 2 << 20))
        var a = ScratchArray<Int>(capacity: 4, in: region)
        for i in 0..<4 { a.append(i) }
        var b = a
        b.append(99)
        b[0] = -1
        #expect(Array(a) == [0, 1, 2, 3])
        #expect(Array(b) == [-1, 1, 2, 3, 99])
        // 3.2 MB of values: past the region's 2 MiB, on in `malloc`'s memory with every value.
        for i in 4..<400_000 { a.append(i) }
        #expect(a.count == 400_000 && a[399_999] == 399_999 && a[3] == 3)
        #expect(Array(b) == [-1, 1, 2, 3, 99])
        a.removeLast(399_996)
        #expect(Array(a) == [0, 1, 2, 3])
        let filled = ScratchArray<Int32>(repeating: -1, count: 1_000, in: region)
        #expect(filled.count == 1_000 && filled.allSatisfy { $0 == -1 })
    }

    @Test func aCommittedChangeKeepsNothingOfItsLoadsRegion() throws {
        // Input past `ScratchRegion.minimumInput`: the load's temporaries are in a region, which
        // must be unmapped once they are gone although the committed table lives on.
        let text = Self.config("S", 3_000)
        #expect(text.utf8.count >= ScratchRegion.minimumInput)
        var load = Registry.StagedLoad()
        _ = try Array(text.utf8).withUnsafeBytes { raw in
            try load.read(bytes: raw, format: .json, file: "s.json", limits: ConfigLimits())
        }
        weak let region = load.staged?.scratch
        #expect(region != nil)
        var tx = Transaction(base: EntryTable(), classSlots: ClassSlots())
        let table = try tx.apply(staged: load.staged!).get()
        load = Registry.StagedLoad()
        tx = Transaction(base: EntryTable(), classSlots: ClassSlots())
        #expect(region == nil)
        #expect(table.count == 3_000)
        #expect(table.index(of: "S2999") >= 0)
    }

    /// `count` JSON entries `<prefix><from>`…, each referring to `target(i)` (none when nil).
    static func referring(_ prefix: String, _ from: Int, _ count: Int, target: (Int) -> String?) -> String {
        var text = "{"
        for i in from..<(from + count) {
            if i > from { text += ",\n" }
            let to = target(i).map { ", \"Dependencies\": {\"to\": \"\($0)\"}" } ?? ""
            text += "\"\(prefix)\(i)\": {\"ClassName\": \"Screen\"\(to)}"
        }
        return text + "}"
    }

    @Test func changesLargeEnoughToReadTheirNameTablesAheadFindEveryName() throws {
        // 30,000 names: the change's name index and the registry's name table both read their
        // cells a batch ahead of inserting. References far apart (each to a lower entry, no
        // cycles) resolve; a name staged twice in one change and a missing one are found.
        let n = 30_000
        let r = Registry()
        // Entry i refers to a lower entry, scattered over those before it.
        let lower = { (i: Int) in ((i &* 2_654_435_761) >> 7) % i }
        try r.load(text: Self.referring("N", 0, n) { $0 == 0 ? nil : "N\(lower($0))" }, format: .json)
        #expect(r.entries.count == n)
        #expect(r.entry(named: "N29999")?.dependencies.first?.value == .reference("N\(lower(29_999))", at: nil))
        #expect(r.entry(named: "N17")?.dependencies.first?.value == .reference("N\(lower(17))", at: nil))
        #expect(r.entry(named: "N0") != nil && r.entry(named: "N30000") == nil)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cr-names-\(getpid())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.referring("M", 0, 20_000) { $0 == 0 ? nil : "M\($0 / 2)" }.write(
            toFile: dir + "/a.json", atomically: true, encoding: .utf8)
        try Self.referring("M", 19_999, 20_000) { $0 == 25_000 ? "Nowhere" : "M\($0 - 19_999)" }
            .write(toFile: dir + "/b.json", atomically: true, encoding: .utf8)
        let error = expectError { try Registry().load(paths: [dir + "/a.json", dir + "/b.json"]) }
        let messages = error?.diagnostics.map(\.message) ?? []
        #expect(messages.contains { $0.contains("entry 'M19999' is defined twice") })
        #expect(messages.contains { $0.contains("no entry named 'Nowhere'") })
        #expect(messages.count == 2)
    }
}
