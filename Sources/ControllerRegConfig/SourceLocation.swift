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

    /// Orders by file, then line, then column.
    public static func < (a: SourceLocation, b: SourceLocation) -> Bool {
        (a.file, a.line, a.column) < (b.file, b.line, b.column)
    }
}
