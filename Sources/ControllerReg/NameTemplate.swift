/// Class-name templates ("{name}ViewController"): the one rule of what a template may be, and the
/// class name it makes of a name. Every door goes through it: `Registry.addNameTemplate` (the Swift
/// API), `cr_add_name_template` and the C++ and Python bindings over it.
///
/// A template is a class name with `{name}` exactly once where the asked-for name goes; the rest
/// is literal text, compared byte-wise. Refused (`.invalidArgument`): no `{name}` (an empty
/// template too), `{name}` alone (it names the class of the name itself, which is tried before
/// any template), `{name}` more than once, any other `{` or `}` (an unknown placeholder such as
/// `{Name}`, or an unbalanced brace: braces are kept for placeholders, and a class name with
/// one would be a typo), and a NUL byte (no C string could name the class).
package enum NameTemplate {
    /// The placeholder the name replaces.
    package static let placeholder = "{name}"

    /// Why `template` is not a name template (a phrase after the template, ending with the fix),
    /// or nil when it is one.
    package static func problem(_ template: String) -> String? {
        let example =
            "; a template is a class name with \(placeholder) where the name goes, e.g. \"\(placeholder)ViewController\""
        let bytes = Array(template.utf8)
        if bytes.isEmpty { return "is empty" + example }
        if let nul = bytes.firstIndex(of: 0) {
            return "holds a NUL byte at byte \(nul), which no C string can name: remove it"
        }
        let places = occurrences(in: bytes)
        if places.isEmpty { return "has no \(placeholder)" + example }
        if places.count > 1 {
            return "holds \(placeholder) \(places.count) times; the name goes in one place" + example
        }
        let start = places[0], end = start + placeholder.utf8.count
        if bytes.count == end - start {
            return
                "is \(placeholder) alone, which names the class of the name itself (tried before any template): add the text around the name, e.g. \"\(placeholder)ViewController\""
        }
        for (i, b) in bytes.enumerated() where (b == UInt8(ascii: "{") || b == UInt8(ascii: "}")) && !(start..<end).contains(i) {
            return
                "holds '\(Character(Unicode.Scalar(b)))' at byte \(i) outside \(placeholder), the only placeholder (an unknown placeholder or an unbalanced brace): remove it"
        }
        return nil
    }

    /// The class name a valid `template` makes of `name`: its text with `name` in place of the
    /// placeholder, byte for byte.
    static func className(_ template: String, for name: String) -> String {
        let bytes = Array(template.utf8)
        guard let start = occurrences(in: bytes).first else { return template }
        var out = Array(bytes[..<start])
        out.append(contentsOf: name.utf8)
        out.append(contentsOf: bytes[(start + placeholder.utf8.count)...])
        return String(decoding: out, as: UTF8.self)
    }

    /// The byte offsets where the placeholder starts in `bytes`.
    private static func occurrences(in bytes: [UInt8]) -> [Int] {
        let p = Array(placeholder.utf8)
        guard bytes.count >= p.count else { return [] }
        var found: [Int] = []
        var i = 0
        while i <= bytes.count - p.count {
            if bytes[i..<(i + p.count)].elementsEqual(p) {
                found.append(i)
                i += p.count
            } else {
                i += 1
            }
        }
        return found
    }
}
