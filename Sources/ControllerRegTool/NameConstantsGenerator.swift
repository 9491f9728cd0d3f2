import ControllerReg

/// `controllerreg gen`: a constant for every entry name, so hosts get autocompletion and the
/// compiler catches misspelt names.
///
/// Identifiers: `prefix` + the name with every character that is not an ASCII letter, digit or
/// `_` replaced by `_`, a leading digit prefixed with `_`, and a name the language reserves
/// suffixed with `_` (a keyword; in Python also a builtin such as `print` or `list`, which
/// `from names import *` would otherwise hide, and a `__dunder__` name such as `__name__`, which
/// would overwrite the module's own attribute). C and C++ reserve identifiers that begin with
/// `__` or `_` and a capital letter (C++ also any `__`): there, runs of `_` become one `_` (C: a
/// leading run only) and a `_` before a leading capital is dropped; in C an identifier that
/// would be the header's include guard gets a `_` too. Constants are sorted by
/// identifier (bytewise), so the output is deterministic. Two names that end up as the same
/// identifier are an error naming both, at the second one's place in the config.
public struct NameConstantsGenerator: Sendable {
    /// The languages `gen --lang` writes.
    public enum Language: String, Sendable, CaseIterable {
        case c, cpp, swift, python

        /// The prefix used when `--prefix` is not given.
        public var defaultPrefix: String {
            switch self {
            case .c: return "CR_ENTRY_"
            case .cpp, .swift, .python: return ""
            }
        }
    }

    public var language: Language
    public var prefix: String
    /// The C++ namespace and the Swift enum that hold the constants.
    public var typeName: String

    public init(language: Language, prefix: String? = nil, typeName: String = "EntryNames") {
        self.language = language
        self.prefix = prefix ?? language.defaultPrefix
        self.typeName = typeName
    }

    /// The generated source for `names` (entry names), read from `sources` (named in the header).
    /// `locations` gives where each name was written, for the places of collision errors.
    public func generate(
        names: [String], sources: [String], locations: [String: SourceLocation] = [:]
    ) throws(ToolError) -> String {
        let typeID = sanitise(typeName, prefix: "")
        if typeID != typeName, language == .cpp || language == .swift {
            throw ToolError("--type-name '\(typeName)' is not a valid identifier (try '\(typeID)')", status: .usage)
        }
        let constants = try identifiers(for: names, locations: locations)
        let from = sources.map(baseName).joined(separator: ", ")
        switch language {
        case .c: return c(constants, from: from)
        case .cpp: return cpp(constants, from: from)
        case .swift: return swift(constants, from: from)
        case .python: return python(constants, from: from)
        }
    }

    /// (identifier, entry name) pairs, sorted by identifier; throws on a collision, placed at the
    /// second name's location when `locations` has it (the first's is named in the message).
    public func identifiers(
        for names: [String], locations: [String: SourceLocation] = [:]
    ) throws(ToolError) -> [(id: String, name: String)] {
        var byID: [String: String] = [:]
        var problems: [Diagnostic] = []
        for name in Set(names).sorted(by: Self.bytewise) {
            let id = sanitise(name, prefix: prefix)
            if let other = byID[id] {
                let otherPlace = locations[other].map { " (\($0))" } ?? ""
                problems.append(
                    Diagnostic(
                        .duplicate,
                        "entry names '\(other)'\(otherPlace) and '\(name)' both become the identifier '\(id)' "
                            + "(characters other than ASCII letters, digits and _ become _); rename one of them",
                        at: locations[name]))
            } else {
                byID[id] = name
            }
        }
        if !problems.isEmpty {
            throw ToolError(ToolErrorList(problems))
        }
        return byID.map { (id: $0.key, name: $0.value) }.sorted { Self.bytewise($0.id, $1.id) }
    }

    static func bytewise(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    /// `prefix` + `name` as a valid identifier of the language.
    public func sanitise(_ name: String, prefix: String) -> String {
        var id = Self.identifierCharacters(prefix + name)
        if language == .c || language == .cpp { id = withoutReservedUnderscores(id) }
        if id.isEmpty || id == "_" { id = language == .c || language == .cpp ? "_" : "__" }
        if let f = id.unicodeScalars.first, f >= "0" && f <= "9" { id = "_" + id }
        if isReserved(id) { id += "_" }
        return id
    }

    /// The C header's include guard (`PREFIX` + `NAMES_H`, upper case): a name the generated code
    /// itself uses, so an entry whose identifier would be it gets a `_` as a keyword does.
    var includeGuard: String {
        var guardName = withoutReservedUnderscores(
            Self.identifierCharacters(prefix.isEmpty ? "CONTROLLERREG_ENTRY_NAMES_H" : prefix + "NAMES_H"))
        if let f = guardName.unicodeScalars.first, f >= "0" && f <= "9" { guardName = "_" + guardName }
        return guardName.uppercased()
    }

    /// `text` with every character other than an ASCII letter, digit or `_` replaced by `_`.
    static func identifierCharacters(_ text: String) -> String {
        var id = ""
        for u in text.unicodeScalars {
            let ok = (u >= "a" && u <= "z") || (u >= "A" && u <= "Z") || (u >= "0" && u <= "9") || u == "_"
            id.unicodeScalars.append(ok ? u : "_")
        }
        return id
    }

    /// `id` without what C and C++ reserve for the implementation: a leading `__` or `_` and a
    /// capital letter, and in C++ a `__` anywhere. Runs of `_` become one (C: a leading run only),
    /// then a `_` before a leading capital is dropped (`-Home` -> `Home`, `a--b` -> `a_b` in C++).
    func withoutReservedUnderscores(_ id: String) -> String {
        var out = ""
        var previousUnderscore = false
        var leading = true
        for u in id.unicodeScalars {
            if u == "_" {
                if previousUnderscore && (language == .cpp || leading) { continue }
                previousUnderscore = true
            } else {
                previousUnderscore = false
                leading = false
            }
            out.unicodeScalars.append(u)
        }
        let scalars = Array(out.unicodeScalars)
        if scalars.count > 1, scalars[0] == "_", scalars[1] >= "A" && scalars[1] <= "Z" { out.removeFirst() }
        return out
    }

    /// Whether `id` cannot be a constant's name in the generated module: a keyword, or in Python a
    /// builtin or a `__dunder__` name (the language reserves those for itself; a module-level
    /// `print = "print"` or `__name__ = "__name__"` imports without error and breaks the importer).
    func isReserved(_ id: String) -> Bool {
        if keywords.contains(id) { return true }
        if language == .c { return id == includeGuard }
        guard language == .python else { return false }
        return Keywords.pythonBuiltins.contains(id) || (id.count > 4 && id.hasPrefix("__") && id.hasSuffix("__"))
    }

    var keywords: Set<String> {
        switch language {
        case .c: return Keywords.c
        case .cpp: return Keywords.cpp
        case .swift: return Keywords.swift
        case .python: return Keywords.python
        }
    }

    // MARK: Writers

    private func c(_ constants: [(id: String, name: String)], from: String) -> String {
        let guardName = includeGuard
        var out = "/* Generated by controllerreg gen from \(from). Do not edit. */\n"
        out += "#ifndef \(guardName)\n#define \(guardName)\n\n"
        for (id, name) in constants { out += "#define \(id) \(cString(name))\n" }
        return out + "\n#endif /* \(guardName) */\n"
    }

    private func cpp(_ constants: [(id: String, name: String)], from: String) -> String {
        var out = "// Generated by controllerreg gen from \(from). Do not edit.\n#pragma once\n\n"
        out += "namespace \(typeName) {\n\n"
        for (id, name) in constants { out += "inline constexpr const char \(id)[] = \(cString(name));\n" }
        return out + "\n} // namespace \(typeName)\n"
    }

    private func swift(_ constants: [(id: String, name: String)], from: String) -> String {
        var out = "// Generated by controllerreg gen from \(from). Do not edit.\n\n"
        out += "/// The entry names of the config, one constant each.\n"
        out += "public enum \(typeName) {\n"
        for (id, name) in constants {
            out += "    public static let \(id) = \(swiftString(name))\n"
        }
        out += "\n    /// Every entry name, sorted.\n    public static let all: [String] = ["
        out += constants.isEmpty ? "]\n" : "\n" + constants.map { "        \($0.id),\n" }.joined() + "    ]\n"
        return out + "}\n"
    }

    private func python(_ constants: [(id: String, name: String)], from: String) -> String {
        var out = "# Generated by controllerreg gen from \(from). Do not edit.\n"
        out += "\"\"\"The entry names of the config, one constant each.\"\"\"\n\n"
        for (id, name) in constants { out += "\(id) = \(pyString(name))\n" }
        out += "\n__all__ = [" + constants.map { "\"\($0.id)\"" }.joined(separator: ", ") + "]\n"
        return out
    }

    // MARK: Literals

    /// A C string literal: printable ASCII as is, `"`/`\` escaped, everything else as octal escapes
    /// (three digits, so a following digit is never absorbed).
    func cString(_ s: String) -> String {
        var out = "\""
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): out += "\\\""
            case UInt8(ascii: "\\"): out += "\\\\"
            case UInt8(ascii: "?"): out += "\\?"  // no trigraphs
            case 0x20...0x7E: out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                let o = String(b, radix: 8)
                out += "\\" + String(repeating: "0", count: 3 - o.count) + o
            }
        }
        return out + "\""
    }

    func swiftString(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default:
                if u.value < 0x20 || u.value == 0x7F {
                    out += "\\u{\(HexDigits.text(u.value, digits: 1, uppercase: false))}"
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }

    func pyString(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default:
                if u.value < 0x20 || u.value == 0x7F {
                    out += "\\x" + HexDigits.text(u.value, digits: 2, uppercase: false)
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }
}

/// Several problems as one ConfigError (so `ToolError(ConfigError)` keeps them all).
func ToolErrorList(_ diagnostics: [Diagnostic]) -> ConfigError { ConfigError(diagnostics) }

/// Reserved words of the generated languages (and names the generated code itself uses).
enum Keywords {
    static let c: Set<String> = [
        "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
        "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
        "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while",
        "_Bool", "_Complex", "_Imaginary", "_Alignas", "_Alignof", "_Atomic", "_Generic", "_Noreturn",
        "_Static_assert", "_Thread_local", "bool", "true", "false", "NULL",
    ]
    static let cpp: Set<String> = c.union([
        "alignas", "alignof", "and", "and_eq", "asm", "bitand", "bitor", "catch", "char8_t", "char16_t", "char32_t",
        "class", "compl", "concept", "consteval", "constexpr", "constinit", "const_cast", "co_await", "co_return",
        "co_yield", "decltype", "delete", "dynamic_cast", "explicit", "export", "friend", "mutable", "namespace",
        "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected", "public",
        "reinterpret_cast", "requires", "static_assert", "static_cast", "template", "this", "thread_local", "throw",
        "try", "typeid", "typename", "using", "virtual", "wchar_t", "xor", "xor_eq",
    ])
    static let swift: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows",
        "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default",
        "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch",
        "where", "while", "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true",
        "try", "all", "Type", "Protocol", "init_",
    ]
    static let python: Set<String> = [
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
        "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
        "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield", "__all__",
    ]
    /// Python's builtins (`dir(builtins)` of 3.8 to 3.13, without the private ones): a generated
    /// constant of that name would hide the builtin wherever the module is star-imported.
    static let pythonBuiltins: Set<String> = [
        "ArithmeticError", "AssertionError", "AttributeError", "BaseException", "BaseExceptionGroup",
        "BlockingIOError", "BrokenPipeError", "BufferError", "BytesWarning", "ChildProcessError",
        "ConnectionAbortedError", "ConnectionError", "ConnectionRefusedError", "ConnectionResetError",
        "DeprecationWarning", "EOFError", "Ellipsis", "EncodingWarning", "EnvironmentError", "Exception",
        "ExceptionGroup", "FileExistsError", "FileNotFoundError", "FloatingPointError", "FutureWarning",
        "GeneratorExit", "IOError", "ImportError", "ImportWarning", "IndentationError", "IndexError",
        "InterruptedError", "IsADirectoryError", "KeyError", "KeyboardInterrupt", "LookupError", "MemoryError",
        "ModuleNotFoundError", "NameError", "NotADirectoryError", "NotImplemented", "NotImplementedError",
        "OSError", "OverflowError", "PendingDeprecationWarning", "PermissionError", "ProcessLookupError",
        "PythonFinalizationError", "RecursionError", "ReferenceError", "ResourceWarning", "RuntimeError",
        "RuntimeWarning", "StopAsyncIteration", "StopIteration", "SyntaxError", "SyntaxWarning", "SystemError",
        "SystemExit", "TabError", "TimeoutError", "TypeError", "UnboundLocalError", "UnicodeDecodeError",
        "UnicodeEncodeError", "UnicodeError", "UnicodeTranslateError", "UnicodeWarning", "UserWarning",
        "ValueError", "Warning", "ZeroDivisionError", "abs", "aiter", "all", "anext", "any", "ascii", "bin",
        "bool", "breakpoint", "bytearray", "bytes", "callable", "chr", "classmethod", "compile", "complex",
        "copyright", "credits", "delattr", "dict", "dir", "divmod", "enumerate", "eval", "exec", "exit",
        "filter", "float", "format", "frozenset", "getattr", "globals", "hasattr", "hash", "help", "hex", "id",
        "input", "int", "isinstance", "issubclass", "iter", "len", "license", "list", "locals", "map", "max",
        "memoryview", "min", "next", "object", "oct", "open", "ord", "pow", "print", "property", "quit",
        "range", "repr", "reversed", "round", "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum",
        "super", "tuple", "type", "vars", "zip",
    ]
}
