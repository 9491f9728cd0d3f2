import Testing

@testable import ControllerRegConfig

/// A large load's region for temporaries: zeroed room handed out front to back, lists grown in
/// place or moved with their values (to `malloc`'s memory once the region is full), and the
/// mapping gone when its last holder lets go.
@Suite("A load's region for temporaries")
struct ScratchRegionTests {
    @Test func roomIsZeroedAlignedAndApartUntilTheRegionIsFull() throws {
        let region = try #require(ScratchRegion(bytes: 1 << 20))  // rounded up to 2 MiB
        let a = try #require(region.allocate(bytes: 100))
        let b = try #require(region.allocate(bytes: 1))
        #expect(Int(bitPattern: a) % 64 == 0 && Int(bitPattern: b) % 64 == 0)
        #expect(b - a >= 100)
        #expect((0..<100).allSatisfy { a.load(fromByteOffset: $0, as: UInt8.self) == 0 })
        #expect(region.holds(a) && region.holds(b))
        var blocks = 0
        while region.allocate(bytes: 64 << 10) != nil { blocks += 1 }
        #expect(blocks == 31)  // 2 MiB less the first two allocations' 192 bytes
        #expect(region.allocate(bytes: 64 << 10) == nil)
    }

    @Test func listsGrowInPlaceOrMoveKeepingTheirValues() throws {
        let region = try #require(ScratchRegion(bytes: 2 << 20))
        let p = ScratchRegion.allocate(Int.self, count: 4, in: region)
        for i in 0..<4 { p[i] = i + 1 }
        // The last allocation grows where it is.
        let q = ScratchRegion.resize(p, count: 4, to: 1_000, in: region)
        #expect(q == p)
        for i in 4..<1_000 { q[i] = i + 1 }
        // Another one after it: the next growth moves it, values and all.
        _ = ScratchRegion.allocate(Int.self, count: 4, in: region)
        let moved = ScratchRegion.resize(q, count: 1_000, to: 2_000, in: region)
        #expect(moved != q && region.holds(moved))
        #expect((0..<1_000).allSatisfy { moved[$0] == $0 + 1 })
        // Past the region's room: `malloc`'s memory, values and all.
        let large = ScratchRegion.resize(moved, count: 1_000, to: 1 << 20, in: region)
        #expect(!region.holds(large))
        #expect((0..<1_000).allSatisfy { large[$0] == $0 + 1 })
        large[(1 << 20) - 1] = 7
        let larger = ScratchRegion.resize(large, count: 1 << 20, to: 2 << 20, in: region)
        #expect(larger[(1 << 20) - 1] == 7 && larger[999] == 1_000)
        ScratchRegion.deallocate(larger, in: region)
        // Zeroed room from either.
        let zeroed = ScratchRegion.allocate(UInt32.self, count: 1 << 20, in: region, zeroed: true)
        #expect(!region.holds(zeroed) && zeroed[0] == 0 && zeroed[(1 << 20) - 1] == 0)
        ScratchRegion.deallocate(zeroed, in: region)
    }

    @Test func aRegionGoesWhenItsLastHolderLetsGoAndSmallLoadsGetNone() throws {
        weak var gone: ScratchRegion?
        do {
            let region = try #require(ScratchRegion(forInput: 1 << 20))
            gone = region
            #expect(gone != nil)
        }
        #expect(gone == nil)
        #expect(ScratchRegion(forInput: ScratchRegion.minimumInput - 1) == nil)
    }

    @Test func onlyASmallLoadKeepsItsRegionsFirstHugePageInSmallPages() throws {
        // Under 1 MiB of text the temporaries fill little of a huge page; from 1 MiB on, small
        // pages cost a 10k-entry load ~340 faults, so all of the region asks for huge ones.
        let small = try #require(ScratchRegion(forInput: ScratchRegion.hugeFromInput - 1))
        #expect(small.smallPages == 2 << 20)
        let large = try #require(ScratchRegion(forInput: ScratchRegion.hugeFromInput))
        #expect(large.smallPages == 0)
        let hundredK = try #require(ScratchRegion(forInput: 30 << 20))
        #expect(hundredK.smallPages == 0)
    }
}
