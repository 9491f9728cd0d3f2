/// The kinds of value a host sees in `args` and builds in props. The raw values are the C ABI's
/// `cr_kind` numbers.
public enum ValueKind: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `null`, `bool`, `int`, `double`, `string`, `list`, `map`, `object` (a host object) and
    /// `provider` (a factory for an entry), numbered 0 to 8 as `CR_NULL` ... `CR_PROVIDER`.
    case null = 0, bool, int, double, string, list, map, object, provider

    /// Lower-case name, e.g. `"string"`.
    public var description: String {
        switch self {
        case .null: return "null"
        case .bool: return "bool"
        case .int: return "int"
        case .double: return "double"
        case .string: return "string"
        case .list: return "list"
        case .map: return "map"
        case .object: return "object"
        case .provider: return "provider"
        }
    }
}
