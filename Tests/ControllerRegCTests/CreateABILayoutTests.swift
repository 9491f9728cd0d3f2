import CControllerRegHeader
import ControllerReg
import Testing

// `cr_registry_create_with` and `cr_provider_create_with` let the core write the caller's
// `cr_destroyer` in place, seen as the core's `Destroyer`: the two must have one layout.
@Suite("C ABI create options")
struct CreateABILayoutTests {
    @Test func destroyerHasTheHeadersLayout() {
        #expect(MemoryLayout<Destroyer>.size == MemoryLayout<cr_destroyer>.size)
        #expect(MemoryLayout<Destroyer>.stride == MemoryLayout<cr_destroyer>.stride)
        #expect(MemoryLayout<Destroyer>.alignment == MemoryLayout<cr_destroyer>.alignment)
        #expect(MemoryLayout<Destroyer>.offset(of: \.destroy) == MemoryLayout<cr_destroyer>.offset(of: \.destroy))
        #expect(MemoryLayout<Destroyer>.offset(of: \.context) == MemoryLayout<cr_destroyer>.offset(of: \.user_data))
    }
}
