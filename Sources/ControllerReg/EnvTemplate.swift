/// Environment substitution in literal strings (`"@..."`), the one grammar every door uses:
///
/// - `${NAME}` is the variable's value (set to the empty string: the empty string; unset: a load
///   error, `ErrorCode.environment`).
/// - `${NAME:-default}` is the value, or `default` when the variable is unset OR empty (as the
///   shell's `:-`). The default is the text up to the first `}`, taken as it is: it cannot hold
///   `${` (nesting is not supported) nor `}`.
/// - `$${` is a literal `${`. A `$` not followed by `{` is itself (`"@$5"`, `"@a$$b"`).
/// - `NAME` is `[A-Za-z_][A-Za-z0-9_]*`. A bad name, a `${` that is not closed, or anything but
///   `}` or `:-` after the name is a schema error (`ErrorCode.schema`).
///
/// One pass over the bytes, so the cost is linear in the text (plus what is substituted).
enum EnvTemplate {
    /// Whether literal text has anything to substitute or unescape: a `${` (which `$${` contains).
    /// Literals without it stay plain strings and cost nothing more.
    static func isTemplate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= 2, let base = bytes.baseAddress else { return false }
        var p = base
        let last = base + (bytes.count - 1)
        while p < last {
            guard let found = memchr(p, 0x24, last - p) else { return false }
            let dollar = found.assumingMemoryBound(to: UInt8.self)
            if dollar[1] == 0x7B { return true }
            p = UnsafeRawPointer(dollar + 1)
        }
        return false
    }

    /// Whether `text` has anything to substitute or unescape (see `isTemplate(_:)`).
    static func isTemplate(_ text: String) -> Bool {
        var t = text
        return t.withUTF8 { isTemplate(UnsafeRawBufferPointer($0)) }
    }

    /// One piece of a template.
    enum Piece {
        /// Bytes taken as they are.
        case text(Range<Int>)
        /// `${name}` or `${name:-default}` (byte ranges).
        case variable(name: Range<Int>, defaultText: Range<Int>?)
    }

    /// Walks the template's pieces in order, calling `body` for each until it returns false.
    /// Returns the syntax problem (a sentence with the fix), or nil when the text is well-formed.
    static func parse(_ b: UnsafeBufferPointer<UInt8>, _ body: (Piece) -> Bool) -> String? {
        let n = b.count
        var i = 0
        var textStart = 0
        func flush(_ end: Int) -> Bool { end > textStart ? body(.text(textStart..<end)) : true }
        while i < n {
            guard b[i] == 0x24 else {
                i += 1
                continue
            }
            // `$${`: a literal `${`.
            if i + 2 < n, b[i + 1] == 0x24, b[i + 2] == 0x7B {
                guard flush(i), body(.text((i + 1)..<(i + 3))) else { return nil }
                i += 3
                textStart = i
                continue
            }
            guard i + 1 < n, b[i + 1] == 0x7B else {
                i += 1
                continue
            }
            let open = i
            var j = i + 2
            let nameStart = j
            while j < n, EnvValue.isNameByte(b[j]) { j += 1 }
            let name = nameStart..<j
            if name.isEmpty || !EnvValue.isNameStart(b[nameStart]) {
                let shown = String(decoding: b[nameStart..<min(n, nameStart + 16)], as: UTF8.self)
                return
                    "'${' at byte \(open + 1) is not followed by a variable name (found '\(shown)'): a name is letters, digits and '_', not starting with a digit; write $${ for a literal '${'"
            }
            var defaultText: Range<Int>?
            if j < n, b[j] == 0x7D {
                j += 1
            } else if j + 1 < n, b[j] == 0x3A, b[j + 1] == 0x2D {
                let start = j + 2
                var k = start
                while k < n, b[k] != 0x7D {
                    if b[k] == 0x24, k + 1 < n, b[k + 1] == 0x7B {
                        return
                            "the default of ${\(EnvValue.shown(String(decoding: b[name], as: UTF8.self))):-...} holds '${': nesting is not supported; write the default as plain text"
                    }
                    k += 1
                }
                guard k < n else {
                    return
                        "'${\(EnvValue.shown(String(decoding: b[name], as: UTF8.self))):-' at byte \(open + 1) is not closed: end it with '}'"
                }
                defaultText = start..<k
                j = k + 1
            } else if j >= n {
                return
                    "'${\(EnvValue.shown(String(decoding: b[name], as: UTF8.self)))' at byte \(open + 1) is not closed: end it with '}' (write $${ for a literal '${')"
            } else {
                let nameText = EnvValue.shown(String(decoding: b[name], as: UTF8.self))
                let found = String(decoding: b[j..<min(n, j + 8)], as: UTF8.self)
                return
                    "'${\(nameText)' at byte \(open + 1) is followed by '\(found)': write ${\(nameText)} or ${\(nameText):-default} (a variable name is letters, digits and '_')"
            }
            guard flush(open), body(.variable(name: name, defaultText: defaultText)) else { return nil }
            i = j
            textStart = i
        }
        _ = flush(n)
        return nil
    }

    /// The syntax problem of `text`, or nil when it is well-formed.
    static func syntaxProblem(_ text: String) -> String? {
        var t = text
        return t.withUTF8 { parse($0) { _ in true } }
    }

    /// What substituting a template gave.
    enum Substitution {
        /// The resolved text.
        case text(String)
        /// Variables without a value or default, by name, in order of first use (at most
        /// `maxReportedNames`), and how many more there were.
        case missing([String], more: Int)
        /// The result would be longer than the limit.
        case tooLong
        /// The text is malformed (also reported by `syntaxProblem` at validation).
        case malformed(String)
    }

    /// The most missing variable names one string reports.
    static let maxReportedNames = 8

    /// Substitutes `text` with `lookup`, keeping the result within `maxBytes`.
    static func substitute(_ text: String, maxBytes: Int, lookup: (String) -> String?) -> Substitution {
        var t = text
        return t.withUTF8 { b -> Substitution in
            var out: [UInt8] = []
            out.reserveCapacity(b.count)
            var missing: [String] = []
            // Names missing beyond the reported ones (counted once each).
            var seen = Set<String>()
            var more = 0
            var tooLong = false
            let problem = parse(b) { piece in
                switch piece {
                case .text(let r):
                    if out.count + r.count > maxBytes {
                        tooLong = true
                        return false
                    }
                    out.append(contentsOf: b[r])
                case .variable(let nameRange, let defaultText):
                    let name = String(decoding: b[nameRange], as: UTF8.self)
                    let value = lookup(name)
                    var chosen: UnsafeBufferPointer<UInt8>.SubSequence?
                    var owned: String?
                    if let value, !(defaultText != nil && value.isEmpty) {
                        owned = value
                    } else if let d = defaultText {
                        chosen = b[d]
                    } else {
                        // Names seen are looked for among the few reported (a set only past them).
                        if !missing.contains(name) {
                            if missing.count < maxReportedNames {
                                missing.append(name)
                            } else if seen.insert(name).inserted {
                                more += 1
                            }
                        }
                        return true
                    }
                    if let chosen {
                        if out.count + chosen.count > maxBytes {
                            tooLong = true
                            return false
                        }
                        out.append(contentsOf: chosen)
                    } else if var v = owned {
                        let fits = v.withUTF8 { vb -> Bool in
                            guard out.count + vb.count <= maxBytes else { return false }
                            out.append(contentsOf: vb)
                            return true
                        }
                        if !fits {
                            tooLong = true
                            return false
                        }
                    }
                }
                return true
            }
            if let problem { return .malformed(problem) }
            if tooLong { return .tooLong }
            if !missing.isEmpty { return .missing(missing, more: more) }
            return .text(String(decoding: out, as: UTF8.self))
        }
    }

    /// `text` as a template that reads back as exactly `text`: every `${` becomes `$${`.
    static func escaped(_ text: String) -> String {
        guard isTemplate(text) else { return text }
        var out: [UInt8] = []
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x24, i + 1 < bytes.count, bytes[i + 1] == 0x7B { out.append(0x24) }
            out.append(bytes[i])
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
