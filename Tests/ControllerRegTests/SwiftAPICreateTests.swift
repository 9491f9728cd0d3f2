import Synchronization
import Testing

@testable import ControllerReg

/// The Swift API's create shortcuts read what the slow paths read: strings from arguments are the
/// bytes as written (short, long, non-ASCII, ill-formed repaired as `String(decoding:as:)` does),
/// `object(as:)` and `create(_:as:)` accept exactly the objects `as?` accepts, and a create of the
/// wrong type is a `.type` error that does not leak the object.
@Suite("Swift API create path")
struct SwiftAPICreateTests {
    /// `ValueRef.string` against `String(decoding:as:)` over every length class and encoding.
    @Test func stringsReadAsDecoding() {
        let samples: [[UInt8]] = [
            [], Array("a".utf8), Array("Home screen".utf8), Array("fifteen bytes!!".utf8), Array("sixteen bytes!!!".utf8),
            Array(String(repeating: "long literal ", count: 20).utf8), Array("héllo".utf8), Array("日本語のテキスト".utf8),
            Array("🙂".utf8), [0x61, 0xFF, 0x62], [0xE2, 0x82], Array(repeating: 0xC3, count: 20), [0x61, 0x00, 0x62],
        ]
        for bytes in samples {
            var terminated = bytes + [0]
            let read = terminated.withUnsafeMutableBufferPointer { b -> String? in
                var raw = RawValue.borrowedString(UnsafePointer(b.baseAddress!), length: bytes.count)
                return withUnsafePointer(to: &raw) { ValueRef($0).string }
            }
            #expect(read == String(decoding: bytes, as: UTF8.self), "bytes \(bytes)")
        }
        var notString = RawValue.int(5)
        #expect(withUnsafePointer(to: &notString) { ValueRef($0).string } == nil)
    }

    /// Strings of up to 15 ASCII bytes are built from their bytes (`String.smallASCII`): for every
    /// length, with a NUL or a byte of every value in every position, the string equals, hashes,
    /// counts and iterates as `String(decoding:as:)` of the same bytes; a byte above 0x7F leaves it
    /// to the decoding path (nil). Read in place from a buffer exactly as long as the string.
    @Test func smallASCIIStringsAreTheStringsOfTheirBytes() {
        for n in 0...16 {
            for position in -1..<n {
                for value: UInt8 in [0x00, 0x41, 0x7F, 0x80, 0xC3, 0xFF] where position >= 0 || value == 0x41 {
                    var bytes = (0..<n).map { UInt8(0x61 + $0 % 26) }
                    if position >= 0 { bytes[position] = value }
                    let expected = String(decoding: bytes, as: UTF8.self)
                    let exact = UnsafeMutablePointer<UInt8>.allocate(capacity: max(n, 1))
                    defer { exact.deallocate() }
                    exact.initialize(from: bytes, count: n)
                    let small = n <= 15 ? String.smallASCII(exact, n) : nil
                    let ascii = bytes.allSatisfy { $0 < 0x80 }
                    #expect((small != nil) == (ascii && n <= 15), "length \(n), \(value) at \(position)")
                    if let small {
                        #expect(small == expected && small.hashValue == expected.hashValue)
                        #expect(small.count == expected.count && Array(small.utf8) == bytes)
                        #expect(small + "!" == expected + "!")
                    }
                    #expect(String(utf8Bytes: exact, count: n) == expected)
                }
            }
        }
    }

    /// Map keys are compared with word loads up to 16 bytes and memcmp beyond: equal exactly when
    /// memcmp says so, for every length and every position of a difference (unaligned starts too).
    @Test func keyBytesCompareAsMemcmp() {
        let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: 96)
        defer { storage.deallocate() }
        for n in 0...40 {
            for offset in [0, 1, 3] {
                let a = storage + offset, b = storage + 48 + offset
                for i in 0..<n { a[i] = UInt8(truncatingIfNeeded: 0x41 + i) }
                b.update(from: a, count: n)
                #expect(RawMapSlot.equalBytes(a, b, n), "length \(n)")
                for position in 0..<n {
                    b[position] ^= 0x20
                    #expect(!RawMapSlot.equalBytes(a, b, n), "length \(n), difference at \(position)")
                    b[position] ^= 0x20
                }
            }
        }
    }

    class Base {}
    final class Derived: Base {}
    final class Other {}

    /// `object(as:)` gives the object for its own class and for a superclass, nil for another class.
    @Test func objectAsAcceptsWhatAsAccepts() throws {
        let r = Registry()
        let seen = Mutex<[String]>([])
        try r.register(className: "Derived") { _ in Derived() }
        try r.register(className: "Reader") { args in
            let v = args["d"]!
            var found: [String] = []
            if v.object(as: Derived.self) != nil { found.append("Derived") }
            if v.object(as: Base.self) != nil { found.append("Base") }
            if v.object(as: Other.self) != nil { found.append("Other") }
            if args["n"]?.object(as: Base.self) != nil { found.append("int") }
            seen.withLock { $0 = found }
            return Other()
        }
        try r.load(text: "D: Derived\nR: {ClassName: Reader, Dependencies: {d: D, n: 1}}")
        _ = try r.create("R", as: Other.self)
        #expect(seen.withLock { $0 } == ["Derived", "Base"])
    }

    /// `create(_:as:)` with the object's class or a superclass; another class is a `.type` error
    /// naming both, and the object built is released, not leaked.
    @Test func createAsChecksTheTypeAndReleasesAMismatch() throws {
        let r = Registry()
        let log = CallLog()
        try registerWidgets(r, ["W"], log: log)
        try r.register(className: "Derived") { _ in Derived() }
        try r.load(text: "A: W\nD: Derived\nS: {ClassName: W, Lifestyle: singleton}")
        #expect(try r.create("A", as: Widget.self).className == "W")
        #expect(try r.create("D", as: Base.self) is Derived)
        #expect(try type(of: r.create("D", props: ["x": 1], as: Base.self)) == Derived.self)
        let e = expectError { _ = try r.create("A", as: Other.self) }
        #expect(e?.code == .type)
        #expect(e?.description.contains("'A' built a Widget, not a") == true)
        #expect(e?.description.contains("Other") == true)
        #expect(e?.description.hasSuffix(": create it as Widget (or a class it inherits from)") == true)
        #expect(log.count("~W") == 2)  // the first A, then the mismatched one
        let p = expectError { _ = try r.create("A", props: ["x": 1], as: Other.self) }
        #expect(p?.code == .type)
        #expect(log.count("~W") == 3)
        // A singleton of the wrong type is refused and stays the registry's (not released).
        #expect(expectError { _ = try r.create("S", as: Other.self) }?.code == .type)
        #expect(try r.create("S", as: Widget.self) === r.create("S", as: Widget.self))
        #expect(log.count("~W") == 3)
        // A singleton of a subclass, as its superclass and as its own class: the same object, the
        // registry's still (taking it as a superclass does not take it over).
        try r.load(text: "DS: {ClassName: Derived, Lifestyle: singleton}")
        let asBase = try r.create("DS", as: Base.self)
        #expect(asBase is Derived)
        #expect(try asBase === r.create("DS", as: Derived.self))
        #expect(try r.create("DS", as: Base.self) === r.create("DS", as: Base.self))
        #expect(expectError { _ = try r.create("DS", as: Other.self) }?.code == .type)
        #expect(try r.create("DS", as: Derived.self) === asBase)
        // Not found through the no-props path: the same error as with props.
        #expect(expectError { _ = try r.create("Nope", as: Widget.self) }?.code == .notFound)
        #expect(expectError { _ = try r.create("Nope", props: ["x": 1], as: Widget.self) }?.code == .notFound)
    }

    /// A name that is not a native Swift string (a substring made into a String from a buffer, and
    /// a long non-ASCII one) is found as its bytes.
    @Test func namesOfEveryRepresentation() throws {
        let r = Registry()
        try registerWidgets(r, ["W"])
        let long = "Écran principal de l'application numéro 1"
        try r.load(text: "\"\(long)\": W\nA: W")
        #expect(try r.create(long, as: Widget.self).className == "W")
        #expect(try r.create(String(long.utf8.prefix(long.utf8.count))!, as: Widget.self).className == "W")
        #expect(try r.create(String("xAx".dropFirst().dropLast()), as: Widget.self).className == "W")
    }
}
