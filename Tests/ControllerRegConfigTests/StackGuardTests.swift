import Testing

@testable import ControllerRegConfig

/// The stack guard's rule (used inline by every create level): refused only when the caller's
/// frame lies 1 to `reserve` bytes above the stack's lowest usable address; whatever cannot be
/// judged (an unknown bound, a frame outside the thread's stack) is allowed.
@Suite("Stack guard")
struct StackGuardTests {
    @Test func theRuleAtItsBoundaries() {
        let low: UInt = 0x7000_0000_0000
        let r = 64 << 10
        #expect(!StackGuard.hasRoom(here: low + 1, above: low, r))
        #expect(!StackGuard.hasRoom(here: low + UInt(r), above: low, r))
        #expect(StackGuard.hasRoom(here: low + UInt(r) + 1, above: low, r))
        // At or below the bound, or 64 GiB and more above it: not this thread's stack.
        #expect(StackGuard.hasRoom(here: low, above: low, r))
        #expect(StackGuard.hasRoom(here: low - 8, above: low, r))
        #expect(StackGuard.hasRoom(here: low + (1 << 36), above: low, r))
        #expect(!StackGuard.hasRoom(here: low + (1 << 36) - 1, above: low, 1 << 37))
        // Bound unknown.
        #expect(StackGuard.hasRoom(here: 4096, above: 0, r))
    }

    @Test func theCallingThreadHasRoomNow() {
        #expect(StackGuard.hasRoom())
        var marker: UInt8 = 0
        let here = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
        #expect(StackGuard.hasRoom(here: here, above: StackGuard.lowBound()))
        // With the whole stack as the reserve, nothing is left (when this frame is on the thread's
        // stack: under ASan locals may live on a fake stack elsewhere, which is always allowed).
        let low = StackGuard.lowBound()
        if low != 0, here > low, here - low < (1 << 36) {
            #expect(!StackGuard.hasRoom(here: here, above: low, Int(here - low)))
        }
    }
}
