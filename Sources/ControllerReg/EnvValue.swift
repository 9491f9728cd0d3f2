/// The typed environment form `{Env: PORT, Type: int, Default: 8080}` as written, and the rules
/// that turn a variable's text into a value of its type. Resolution against an environment
/// happens at commit (`EnvironmentResolution`), for every door.
///
/// - `Env` names the variable: `[A-Za-z_][A-Za-z0-9_]*` (`EnvValue.isValidName`).
/// - `Type` is `string` (when absent), `int`, `double` or `bool`.
/// - `Default` (optional) is used when the variable is unset or set to the empty string (as the
///   shell's `${PORT:-8080}`); it must convert to the type, which is checked at every load, even
///   when the variable is set.
public struct EnvValue: Sendable, Equatable {
    /// The variable's name.
    public var name: String
    /// The kind of value it gives the host.
    public var type: EnvType
    /// The value used when the variable is unset or empty, as written (a string, integer, number
    /// or boolean; converted to `type` at load).
    public var defaultValue: EnvScalar?
    /// Where the variable's name was written (nil for values built in code).
    public var location: SourceLocation?

    /// Creates an environment value.
    public init(name: String, type: EnvType = .string, defaultValue: EnvScalar? = nil, location: SourceLocation? = nil) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.location = location
    }

    /// Equal when name, type and default are equal (locations are ignored).
    public static func == (a: EnvValue, b: EnvValue) -> Bool {
        a.name == b.name && a.type == b.type && a.defaultValue == b.defaultValue
    }

    /// Whether `name` is a variable name: `[A-Za-z_][A-Za-z0-9_]*`.
    public static func isValidName(_ name: some StringProtocol) -> Bool { isValidName(name.utf8) }

    /// Whether `bytes` form a variable name: `[A-Za-z_][A-Za-z0-9_]*`.
    static func isValidName(_ bytes: some Collection<UInt8>) -> Bool {
        guard let first = bytes.first, isNameStart(first) else { return false }
        return bytes.allSatisfy(isNameByte)
    }

    static func isNameStart(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F
    }

    static func isNameByte(_ b: UInt8) -> Bool { isNameStart(b) || (b >= 0x30 && b <= 0x39) }

    /// A name for messages: at most 64 characters, marked when cut.
    static func shown(_ name: some StringProtocol) -> String {
        // At most 64 bytes is at most 64 characters: counted without walking the characters.
        name.utf8.count <= 64 || name.count <= 64 ? String(name) : String(name.prefix(64)) + "…"
    }

    /// The default converted to `type`, or the problem with it (a sentence without a place).
    /// Strings convert by the variable text rules (`convert(text:to:)`); an integer is also a
    /// `double` and gives its decimal text to a `string`; a boolean gives `true`/`false` to a
    /// `string`. A number for a `bool`, or a fractional number for a `string`, is refused.
    func convertedDefault() -> Result<DependencyValue, EnvProblem>? {
        guard let d = defaultValue else { return nil }
        switch (d, type) {
        case (.string(let s), _):
            return EnvValue.convert(text: s, to: type).mapError {
                EnvProblem("Default \(EnvValue.quoted(s)) of \(EnvValue.shown(name)) is not \($0.text)")
            }
        case (.int(let i), .int): return .success(.int(i))
        case (.int(let i), .double): return .success(.double(Double(i)))
        case (.int(let i), .string): return .success(.string(String(i)))
        case (.double(let x), .double): return .success(.double(x))
        case (.bool(let b), .bool): return .success(.bool(b))
        case (.bool(let b), .string): return .success(.string(b ? "true" : "false"))
        default:
            return .failure(
                EnvProblem(
                    "Default \(d) of \(EnvValue.shown(name)) is not \(type.article): write a default of Type \(type.rawValue)"
                        + (type == .string ? " (quote it: Default: \"\(d)\")" : "")))
        }
    }

    /// The value of variable text for `type`, or what it is not ("an integer"). Surrounding ASCII
    /// spaces, tabs, CRs and LFs are ignored for `int`, `double` and `bool`; a `string` is the text
    /// as it is.
    /// - `int`: `[+-]?[0-9]+` within 64-bit signed range.
    /// - `double`: `[+-]?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?` (`-1.5`, `2e10`, `8080`), finite; no
    ///   `inf`, `nan`, hex, `1.` or `.5`.
    /// - `bool`: `true`, `false`, `1`, `0`, in any case (`TRUE`, `False`).
    static func convert(text: String, to type: EnvType) -> Result<DependencyValue, EnvProblem> {
        if type == .string { return .success(.string(text)) }
        var bytes = Substring(text).utf8[...]
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A }
        while let f = bytes.first, isSpace(f) { bytes = bytes.dropFirst() }
        while let l = bytes.last, isSpace(l) { bytes = bytes.dropLast() }
        switch type {
        case .string:
            return .success(.string(text))
        case .int:
            if let i = parseInt(bytes) { return .success(.int(i)) }
            let digits = !bytes.isEmpty && bytes.drop(while: { $0 == 0x2B || $0 == 0x2D }).allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
            return .failure(EnvProblem(digits ? "an integer in 64-bit range" : "an integer"))
        case .double:
            if let d = parseDouble(bytes) { return .success(.double(d)) }
            return .failure(EnvProblem("a finite decimal number"))
        case .bool:
            switch String(decoding: bytes, as: UTF8.self).lowercased() {
            case "true", "1": return .success(.bool(true))
            case "false", "0": return .success(.bool(false))
            default: return .failure(EnvProblem("a boolean (true, false, 1 or 0)"))
            }
        }
    }

    /// `[+-]?digits` in 64-bit range, by the loaders' own digit rule (`DecimalNumber`).
    private static func parseInt(_ bytes: Substring.UTF8View.SubSequence) -> Int64? {
        var rest = bytes
        var negative = false
        if let f = rest.first, f == 0x2B || f == 0x2D {
            negative = f == 0x2D
            rest = rest.dropFirst()
        }
        guard !rest.isEmpty else { return nil }
        var magnitude: UInt64 = 0
        var overflow = false
        for b in rest {
            guard b >= 0x30 && b <= 0x39 else { return nil }
            DecimalNumber.append(b - 0x30, to: &magnitude, overflow: &overflow)
        }
        return overflow ? nil : DecimalNumber.int64(magnitude, negative: negative)
    }

    private static func parseDouble(_ bytes: Substring.UTF8View.SubSequence) -> Double? {
        // Grammar: [+-]? digits ('.' digits)? ([eE] [+-]? digits)?
        var i = bytes.startIndex
        let end = bytes.endIndex
        func digit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        if i < end, bytes[i] == 0x2B || bytes[i] == 0x2D { i = bytes.index(after: i) }
        var mantissaDigits = 0
        while i < end, digit(bytes[i]) {
            mantissaDigits += 1
            i = bytes.index(after: i)
        }
        guard mantissaDigits > 0 else { return nil }
        if i < end, bytes[i] == 0x2E {
            i = bytes.index(after: i)
            var fractionDigits = 0
            while i < end, digit(bytes[i]) {
                fractionDigits += 1
                i = bytes.index(after: i)
            }
            guard fractionDigits > 0 else { return nil }
        }
        if i < end, bytes[i] == 0x65 || bytes[i] == 0x45 {
            i = bytes.index(after: i)
            if i < end, bytes[i] == 0x2B || bytes[i] == 0x2D { i = bytes.index(after: i) }
            var expDigits = 0
            while i < end, digit(bytes[i]) {
                expDigits += 1
                i = bytes.index(after: i)
            }
            guard expDigits > 0 else { return nil }
        }
        guard i == end, let d = Double(String(decoding: bytes, as: UTF8.self)), d.isFinite else { return nil }
        return d
    }

    /// Text for messages: quoted, at most 64 characters.
    static func quoted(_ text: String) -> String {
        // At most 64 bytes is at most 64 characters (a message quotes many: no character walk then).
        "'" + (text.utf8.count <= 64 || text.count <= 64 ? text : String(text.prefix(64)) + "…") + "'"
    }
}

/// The type an environment value gives the host.
public enum EnvType: String, Sendable, Hashable, CaseIterable {
    /// The text as it is (`CR_STRING`); the default when `Type` is absent.
    case string
    /// A 64-bit signed integer (`CR_INT`).
    case int
    /// A finite double (`CR_DOUBLE`).
    case double
    /// A boolean (`CR_BOOL`).
    case bool

    /// The type probably meant by `text`: a common other name (`integer`, `float`, `number`,
    /// `boolean`, `str`, `text`), else the closest by spelling; nil if none is close.
    static func closest(to text: String) -> String? {
        switch text.lowercased() {
        case "integer", "int64", "long": return EnvType.int.rawValue
        case "float", "number", "real", "float64": return EnvType.double.rawValue
        case "boolean": return EnvType.bool.rawValue
        case "str", "text": return EnvType.string.rawValue
        default: return Suggestions.closest(to: text, in: allCases.map(\.rawValue))
        }
    }

    /// Words for messages ("an integer").
    var article: String {
        switch self {
        case .string: return "a string"
        case .int: return "an integer"
        case .double: return "a number"
        case .bool: return "a boolean"
        }
    }
}

/// A `Default` as written: a string, integer, number or boolean.
public enum EnvScalar: Sendable, Equatable, CustomStringConvertible {
    /// A string default.
    case string(String)
    /// An integer default.
    case int(Int64)
    /// A number default.
    case double(Double)
    /// A boolean default.
    case bool(Bool)

    /// The value as written in a config.
    public var description: String {
        switch self {
        case .string(let s): return s
        case .int(let i): return String(i)
        case .double(let d): return String(d)
        case .bool(let b): return b ? "true" : "false"
        }
    }

    /// Equal when the same kind and value (doubles bitwise).
    public static func == (a: EnvScalar, b: EnvScalar) -> Bool {
        switch (a, b) {
        case let (.string(x), .string(y)): return x == y
        case let (.int(x), .int(y)): return x == y
        case let (.double(x), .double(y)): return x.bitPattern == y.bitPattern
        case let (.bool(x), .bool(y)): return x == y
        default: return false
        }
    }
}

/// One problem found with an environment value: a sentence without a place.
struct EnvProblem: Error {
    let text: String
    init(_ text: String) { self.text = text }
}
