/// The one wording of a syntax error a loader meets because the input ends too early: the likeliest
/// cause (a file cut short by a partial copy or write) and the fix, added to the message every
/// text loader (JSON, YAML, XML plist) gives at the end of its input, and to the binary plist
/// loader's refusals of a trailer, which a cut-short file no longer ends with.
package enum TruncatedInput {
    /// What a message for a problem at the end of a text config's input ends with.
    package static let textFix =
        "; the input ended: if the file was cut short (a partial copy or write), write it whole again, else close what is open"

    /// What a refusal of a binary plist's trailer (its last 32 bytes) ends with.
    package static let binaryFix =
        "; a binary plist ends with a 32-byte trailer, so the file was probably cut short or damaged: write it whole again (plutil -convert binary1 FILE)"

    /// Whether nothing but whitespace (space, tab, CR, LF) follows `offset` in the `count` bytes at `p`.
    package static func onlySpace(after offset: Int, in p: UnsafePointer<UInt8>, count: Int) -> Bool {
        var i = max(offset, 0)
        while i < count {
            switch p[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            default: return false
            }
        }
        return true
    }
}
