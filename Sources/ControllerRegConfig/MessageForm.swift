#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How a problem record keeps its message: as the message's bytes, or as the pieces a message of a
/// kind that a load reports by the thousand is written from (an entry's name, a key, a name it
/// refers to), its words written only when it is read. A load with 10,000 problems pays for
/// recording each one; the words cost only what a reader asks for (the joined message lists the
/// first `ConfigError.maxListedProblems`; the C ABI's records, `Diagnostic.message` and the
/// tool's `check` write each one they read).
///
/// The words here are the only ones for these problems (`Transaction` and the entry decoder record
/// them, nothing else writes them), and a message written from its pieces gets the checks a
/// message written at once gets (`ProblemStore.writeMessage`): well-formed UTF-8, NUL written
/// `\0`, capped at `Diagnostic.maxMessageBytes`.
package enum MessageForm: UInt8 {
    /// The message's bytes as they are.
    case text = 0
    /// `entry 'E', key 'K': no entry named 'N' (did you mean 'S'?)`, or without a suggestion
    /// `...; if this is text, write "@N"` (pieces: entry, key, name; the record's suggestion).
    case missingReference
    /// The same for `{Provider: N}`, which has no text form: without a suggestion
    /// `...; {Provider: N} needs an entry: define 'N' or name an existing one`.
    case missingProvider
    /// A reference whose name is empty or holds a NUL byte (pieces: entry, key, name).
    case flawedReference
    /// `{Provider: N}` whose name is empty, a literal or holds a NUL byte (pieces: entry, key, name).
    case flawedProvider
    /// `{Optional: N}` whose name is empty, a literal or holds a NUL byte (pieces: entry, key, name).
    case flawedOptional
    /// `unknown key 'K' in entry 'E' (did you mean 'S'?); allowed keys are ...` (pieces: entry,
    /// key; the record's suggestion): a config that misspells a key in each of its entries.
    case unknownEntryKey

    /// The keys an entry map may have, as the unknown-key message lists them: the one list of
    /// them (the entry decoder reads its keys from it).
    package static let allowedEntryKeys: StaticString = "ClassName, Description, Tag, Dependencies, Lifestyle, Eager"

    /// ` (did you mean '`: how a suggestion opens in every message that offers one.
    package static let hintOpening: StaticString = " (did you mean '"
    /// `'?)`: how it closes.
    package static let hintClosing: StaticString = "'?)"

    /// Whether a use of this form (a flawed-use form) naming `name` is flawed: an empty name, a
    /// literal where a provider or optional names an entry (`@x`), or a name holding a NUL byte.
    package func isFlawed(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let p = name.baseAddress, name.count > 0 else { return true }
        if self != .flawedReference && p[0] == UInt8(ascii: "@") { return true }
        return memchr(p, 0, name.count) != nil
    }

    /// Writes the message of this form from its pieces (`entry`, `key`, `name`) and the record's
    /// `suggestion` (nil: none): room for the longest wording claimed once, the words and pieces
    /// copied into it, the rest given back (one capacity check, not one per piece: a host reading
    /// every record of a 10,000-problem load writes 10,000 of these). The room claimed: no
    /// message of the form is longer.
    @discardableResult
    func write(
        entry: UnsafeBufferPointer<UInt8>, key: UnsafeBufferPointer<UInt8>, name: UnsafeBufferPointer<UInt8>,
        suggestion: UnsafeBufferPointer<UInt8>?, into text: TextBuffer
    ) -> Int {
        let start = text.count
        let bound = MessageForm.wordsBound + entry.count + key.count + 3 * name.count + (suggestion?.count ?? 0)
        var out = Pieces(to: text.claim(bound))
        let base = out.to
        if self == .unknownEntryKey {
            out.put("unknown key '", key, "' in entry '")
            out.put(entry)
            out.put("'")
            if let suggestion { out.put(MessageForm.hintOpening, suggestion, MessageForm.hintClosing) }
            out.put("; allowed keys are ")
            out.put(MessageForm.allowedEntryKeys)
            text.truncate(to: start + (out.to - base))
            return bound
        }
        out.put("entry '", entry, "', key '")
        // (The words after the key start each form's: one copy where two would do.)
        switch self {
        case .text, .unknownEntryKey:  // (an unknown key's words are written above)
            out.put(key)
            out.put("': ")
            out.put(name)
        case .missingReference, .missingProvider:
            out.put(key)
            out.put("': no entry named '", name, "'")
            if let suggestion {
                out.put(MessageForm.hintOpening, suggestion, MessageForm.hintClosing)
            } else if self == .missingProvider {
                out.put("; {Provider: ", name, "} needs an entry: define '")
                out.put(name)
                out.put("' or name an existing one")
            } else {
                out.put("; if this is text, write \"@", name, "\"")
            }
        case .flawedReference:
            out.put(key)
            out.put("': ")
            if name.count == 0 {
                out.put("an empty string is not an entry name; write \"@\" for an empty literal string")
            } else {
                out.put("reference '", name, "' contains a NUL byte")
            }
        case .flawedProvider, .flawedOptional:
            out.put(key)
            out.put(self == .flawedProvider ? "': Provider" : "': Optional")
            if name.count == 0 {
                out.put(" must name an entry (a non-empty string), found an empty string")
            } else if name[0] == UInt8(ascii: "@") {
                out.put(" must name an entry, not a literal ('", name, "')")
            } else {
                out.put(" '", name, "' contains a NUL byte")
            }
        }
        text.truncate(to: start + (out.to - base))
        return bound
    }

    /// More than the fixed words of any form take (the longest, an unknown key's, are 123 bytes).
    private static let wordsBound = 160

    /// Where the next byte of a message goes, in room already claimed.
    private struct Pieces {
        var to: UnsafeMutablePointer<UInt8>

        @inline(__always) mutating func put(_ b: UnsafeBufferPointer<UInt8>) {
            guard let p = b.baseAddress, b.count > 0 else { return }
            if b.count <= 16 { TextBuffer.copySmall(to, p, b.count) } else { memcpy(to, p, b.count) }
            to += b.count
        }

        @inline(__always) mutating func put(_ s: StaticString) {
            put(UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
        }

        @inline(__always) mutating func put(_ a: StaticString, _ x: UnsafeBufferPointer<UInt8>, _ b: StaticString) {
            put(a)
            put(x)
            put(b)
        }
    }
}
