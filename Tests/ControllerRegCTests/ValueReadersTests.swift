import CControllerRegHeader
import ControllerReg
import ControllerRegC
import Testing

// The one-call readers of the C ABI read what the two calls they stand for read:
// `cr_value_take_object_with_owner` = `cr_value_owner` + `cr_value_take_object`,
// `cr_value_string_with_length` = `cr_value_string` + `cr_value_string_length`.
@Suite("C ABI one-call readers")
struct ValueReadersTests {
    /// Over an object of every owner, taken or not: the same owner, object and refusal as the
    /// two calls, and the same taken mark left behind.
    @Test func takeWithOwnerIsOwnerThenTake() {
        let object = UnsafeMutableRawPointer(bitPattern: 0x1000)!
        let flagSets: [UInt8] = [
            0, RawValue.Flags.taken, RawValue.Flags.registryOwned, RawValue.Flags.callerOwned, RawValue.Flags.shared,
            RawValue.Flags.shared | RawValue.Flags.taken,
        ]
        for flags in flagSets {
            var one = RawValue.object(object)
            one.flags = flags
            var two = one
            let (gotOne, ownerOne, codeOne): (UnsafeMutableRawPointer?, cr_owner, Int32) = withUnsafeMutablePointer(to: &one) {
                p in
                var owner = cr_owner(rawValue: 9)
                ControllerRegC.cr_clear_error()
                let got = ControllerRegC.cr_value_take_object_with_owner(OpaquePointer(p), &owner)
                return (got, owner, ControllerRegC.cr_last_error_code())
            }
            let (gotTwo, ownerTwo, codeTwo): (UnsafeMutableRawPointer?, cr_owner, Int32) = withUnsafeMutablePointer(to: &two) {
                p in
                let owner = ControllerRegC.cr_value_owner(OpaquePointer(p))
                ControllerRegC.cr_clear_error()
                let got = ControllerRegC.cr_value_take_object(OpaquePointer(p))
                return (got, owner, ControllerRegC.cr_last_error_code())
            }
            #expect(gotOne == gotTwo && ownerOne == ownerTwo && codeOne == codeTwo, "flags \(flags)")
            #expect(one.flags == two.flags, "flags \(flags)")
        }
        var notObject = RawValue.int(3)
        var owner = cr_owner(rawValue: 9)
        #expect(
            withUnsafeMutablePointer(to: &notObject) { ControllerRegC.cr_value_take_object_with_owner(OpaquePointer($0), &owner) }
                == nil)
        #expect(owner == cr_owner(rawValue: 0) && ControllerRegC.cr_last_error_code() == ErrorCode.type.rawValue)
    }

    /// A string's text and length as the two calls give them (embedded NUL and empty included);
    /// anything else NULL with length 0.
    @Test func stringWithLengthIsStringThenLength() {
        for text in ["", "a", "two\0parts", "long enough to need no small form at all"] {
            var bytes = Array(text.utf8) + [0]
            bytes.withUnsafeMutableBufferPointer { b in
                var raw = RawValue.borrowedString(UnsafePointer(b.baseAddress!), length: b.count - 1)
                withUnsafePointer(to: &raw) { p in
                    var n = 99
                    let s = ControllerRegC.cr_value_string_with_length(OpaquePointer(p), &n)
                    #expect(
                        s == ControllerRegC.cr_value_string(OpaquePointer(p))
                            && n == ControllerRegC.cr_value_string_length(OpaquePointer(p)))
                    #expect(n == text.utf8.count)
                }
            }
        }
        var notString = RawValue.int(3)
        var n = 99
        #expect(withUnsafePointer(to: &notString) { ControllerRegC.cr_value_string_with_length(OpaquePointer($0), &n) } == nil)
        #expect(n == 0)
    }
}
