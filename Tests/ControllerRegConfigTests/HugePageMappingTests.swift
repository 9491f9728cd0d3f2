import Testing

@testable import ControllerRegConfig

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether the `n` bytes at `p` are mapped (`msync` fails with ENOMEM on unmapped pages).
func isMapped(_ p: UnsafeMutableRawPointer, _ n: Int) -> Bool { msync(p, n, MS_ASYNC) == 0 }

/// A mapping for large bump-allocated memory: aligned to a huge page, whole huge pages, and
/// trimmed to what its user keeps (the rest back to the system).
@Suite("Huge-page mappings")
struct HugePageMappingTests {
    @Test func aMappingIsWholeAlignedHugePagesTrimmedToWhatIsKept() throws {
        let huge = HugePageMapping.hugePage
        var m = try #require(HugePageMapping(bytes: huge + 1))
        #expect(Int(bitPattern: m.start) % huge == 0)
        #expect(m.bytes == 2 * huge)
        #expect(isMapped(m.start, m.bytes))
        m.start.storeBytes(of: 0xAB, toByteOffset: 100_000, as: UInt8.self)
        // Kept: the first 100,001 bytes, rounded up to a whole small page; the rest is unmapped.
        m.trim(keeping: 100_001)
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        #expect(m.bytes == (100_001 + page - 1) / page * page)
        #expect(isMapped(m.start, m.bytes))
        #expect(!isMapped(m.start + m.bytes, page))
        #expect(!isMapped(m.start + huge, huge))
        #expect(m.start.load(fromByteOffset: 100_000, as: UInt8.self) == 0xAB)
        m.unmap()
        #expect(!isMapped(m.start, page))
    }
}
