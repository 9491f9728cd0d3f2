/// Where a config value was written: file, 1-based line and 1-based column.
///
/// Binary formats have no lines; they report `line == 0` and the byte offset in `column`.
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The file name as given to the loader (`"<string>"` for text loaded from memory).
    public var file: String
    /// 1-based line, or 0 for a binary format.
    public var line: Int
    /// 1-based column (byte offset for a binary format).
    public var column: Int

    /// Creates a location.
    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:column`, or `file:byte N` for binary formats.
    public var description: String {
        line == 0 ? "\(file):byte \(column)" : "\(file):\(line):\(column)"
    }

    /// The name of text that has none: a load given no name, or an empty one (`""` would start
    /// every message with ":line:column").
    public static let unnamedSource = "<string>"

    /// `file`, or `unnamedSource` when it is empty: the name every loader gives locations.
    public static func sourceName(_ file: String) -> String { file.isEmpty ? unnamedSource : file }

    /// Why `name` cannot name text a host loads (`file:` of `Registry.load(text:)` and
    /// `load(bytes:)`, the C ABI's `cr_load_options.source_name`), or nil when it can. Messages
    /// show it as `name:line:column`, one line each: a name holding a control character (C0, DEL,
    /// C1) or a line or paragraph separator (U+2028, U+2029) could end that line and forge others,
    /// so it is refused, not shown as written. The one rule for every door that names loaded text.
    public static func sourceNameProblem(_ name: String) -> String? {
        var offset = 0
        for scalar in name.unicodeScalars {
            if breaksMessageLine(scalar) {
                return
                    "holds the control character \(codePoint(scalar)) at byte \(offset): messages show a source name as name:line:column on one line, so it must be printable text; remove the character (e.g. name the text by its file name)"
            }
            offset += UTF8.width(scalar)
        }
        return nil
    }

    /// A file path as messages show it: as written, unless it holds a character that
    /// `sourceNameProblem` refuses in a source name (a path may hold any byte but NUL, so a file's
    /// path is not refused): each such character is shown as `\u{A}` (its code point in hex),
    /// keeping every message one line per problem.
    /// What the file loaders give locations and their own messages (the file is still opened by
    /// its real path).
    public static func shownPath(_ path: String) -> String {
        guard path.unicodeScalars.contains(where: breaksMessageLine) else { return path }
        var shown = ""
        for scalar in path.unicodeScalars {
            if breaksMessageLine(scalar) {
                shown += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                shown.unicodeScalars.append(scalar)
            }
        }
        return shown
    }

    /// Whether `scalar` would end or hide a message line: a control character (C0, DEL, C1) or a
    /// line or paragraph separator (U+2028, U+2029).
    private static func breaksMessageLine(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return v < 0x20 || (v >= 0x7F && v <= 0x9F) || v == 0x2028 || v == 0x2029
    }

    /// "U+000A" for a scalar.
    private static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let code = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - code.count)) + code
    }

    /// Orders by file, then line, then column.
    public static func < (a: SourceLocation, b: SourceLocation) -> Bool {
        (a.file, a.line, a.column) < (b.file, b.line, b.column)
    }
}
