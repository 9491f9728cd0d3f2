import ControllerRegConfig

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The words of the problems a load reports by the thousand (a reference to no entry, a wrong
/// value in every entry), written into one reused `TextBuffer` from their pieces' bytes, no
/// interpolation of pieces; the diagnostic keeps the bytes (`Diagnostic(_:written:)`), no `String`.
/// The wording is the same as everywhere else the same problem is reported (tests compare it).
/// Each writer is a call of its own (`@inline(never)`), so the buffer's appends are inlined into
/// it: the compiler does not inline them into a caller as large as `Transaction.apply`.
enum ProblemText {
    /// The buffer in `slot`, made at its first use (most loads write no message).
    static func buffer(_ slot: inout TextBuffer?) -> TextBuffer {
        if let b = slot { return b }
        let b = TextBuffer()
        slot = b
        return b
    }

    /// `entry 'E', key 'K': ` — how a problem inside a dependency names its place.
    @inline(never)
    static func writePlace(entry: UnsafeBufferPointer<UInt8>, key: UnsafeBufferPointer<UInt8>, into text: TextBuffer) {
        text.append("entry '", entry, "', key '", key, "': ")
    }

    /// `Field of entry 'E' must be ..., found K` (a key of an entry map holding the wrong kind).
    @inline(never)
    static func entryField(
        _ field: StaticString, of entry: UnsafeBufferPointer<UInt8>, _ rule: StaticString, found: String, into text: TextBuffer
    ) {
        text.clear()
        text.append(field)
        text.append(" of entry '")
        text.append(entry)
        text.append("' ")
        text.append(rule)
        text.append(", found ")
        text.append(found)
    }

    /// `entry 'E', key 'K': problem` (a problem inside a dependency value, in the words the
    /// transaction uses for the same problem from another door).
    @inline(never)
    static func inDependency(
        entry: UnsafeBufferPointer<UInt8>, key: UnsafeBufferPointer<UInt8>, _ problem: String, into text: TextBuffer
    ) {
        text.clear()
        writePlace(entry: entry, key: key, into: text)
        text.append(problem)
    }

    /// `entry 'E', key 'K': 'provider' is not a dependency form: ...`: the place and
    /// `DependencyRule.misspeltMessage` written in one go.
    @inline(never)
    static func misspeltForm(
        key: String, form: DependencyRule.Form, entry: UnsafeBufferPointer<UInt8>, dependency: UnsafeBufferPointer<UInt8>,
        into text: TextBuffer
    ) {
        text.clear()
        writePlace(entry: entry, key: dependency, into: text)
        text.append(byte: UInt8(ascii: "'"))
        text.append(key)
        text.append(DependencyRule.misspeltWords)
        text.append(form.example)
    }

    /// The form of the message `DependencyRule.problems(of:)` reports (in the same words) for a
    /// reference, provider or optional reference of `tag` whose name is empty, a literal (a
    /// form's) or holds a NUL byte: the transaction records such a use's problem with its pieces
    /// (`MessageForm.isFlawed` tells whether it has one).
    static func flawedForm(_ tag: DefinitionCoding.ValueTag) -> MessageForm {
        tag == .reference ? .flawedReference : tag == .provider ? .flawedProvider : .flawedOptional
    }

    /// The pieces one after another: one allocation and a copy per piece (string interpolation
    /// grows its buffer piece by piece, several times the cost on a path that runs per problem).
    static func joined(_ pieces: String...) -> String { joined(pieces) }

    /// The pieces of `first`, then those of `rest`, one after another (one allocation).
    static func joined(_ first: [String], _ rest: [String] = []) -> String {
        var total = 0
        for p in first { total += p.utf8.count }
        for p in rest { total += p.utf8.count }
        if total == 0 { return "" }
        return String(unsafeUninitializedCapacity: total) { out in
            var at = 0
            for p in first { at += copy(p, to: out.baseAddress! + at) }
            for p in rest { at += copy(p, to: out.baseAddress! + at) }
            return at
        }
    }

    /// Copies `text`'s UTF-8 bytes to `out`; their count (a small string's from its inline
    /// bytes: `withUTF8` reads them in place, where a byte-at-a-time walk cost ~60 instructions
    /// a piece).
    private static func copy(_ text: String, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var text = text
        return text.withUTF8 { u -> Int in
            if let b = u.baseAddress, u.count > 0 { out.update(from: b, count: u.count) }
            return u.count
        }
    }
}
