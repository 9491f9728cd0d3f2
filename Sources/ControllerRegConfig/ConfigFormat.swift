/// The formats a config can be written in.
public enum ConfigFormat: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Decide from the file extension, else from the content (see `ConfigFormat.sniff`).
    case auto
    /// RFC 8259 JSON.
    case json
    /// YAML 1.2 (core schema), parsed by libyaml.
    case yaml
    /// Apple property list, XML or binary.
    case plist

    /// `"auto"`, `"json"`, `"yaml"` or `"plist"`.
    public var description: String {
        switch self {
        case .auto: return "auto"
        case .json: return "json"
        case .yaml: return "yaml"
        case .plist: return "plist"
        }
    }

    /// The format a file name's extension names (`.json`, `.yaml`, `.yml`, `.plist`), if any.
    public static func fromExtension(of path: String) -> ConfigFormat? {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        switch path[path.index(after: dot)...].lowercased() {
        case "json": return .json
        case "yaml", "yml": return .yaml
        case "plist": return .plist
        default: return nil
        }
    }

    /// Guesses the format from content: `bplist` or `<` (after a BOM and blanks) is a plist,
    /// `{` or `[` is JSON, anything else is YAML.
    public static func sniff(_ bytes: UnsafeRawBufferPointer) -> ConfigFormat {
        if bytes.count >= 6, bytes.starts(with: "bplist".utf8) { return .plist }
        var i = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
        guard i < bytes.count else { return .yaml }
        switch bytes[i] {
        case UInt8(ascii: "<"): return .plist
        case UInt8(ascii: "{"), UInt8(ascii: "["): return .json
        default: return .yaml
        }
    }
}
