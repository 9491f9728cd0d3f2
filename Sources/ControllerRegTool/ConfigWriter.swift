import ControllerReg

/// `controllerreg convert`: writes a `ConfigDocument` as YAML, JSON or a property list (XML or
/// binary), so that loading the output gives the same document (same kinds, same values, same
/// key order). A value the target format cannot hold is an error at its place, never a silent change:
/// null in a plist, NaN or infinity in JSON, control characters in an XML plist.
public enum ConfigWriter {
    /// The formats `convert --to` writes.
    public enum Target: String, Sendable, CaseIterable {
        case yaml, json, plist
    }

    /// Writes `doc` as text (YAML, JSON, XML plist) or bytes (binary plist).
    public static func write(_ doc: ConfigDocument, to target: Target, binary: Bool = false) throws(ToolError) -> [UInt8] {
        switch target {
        case .yaml:
            if binary { throw ToolError("--binary applies to --to plist only", status: .usage) }
            return Array(yaml(doc).utf8)
        case .json:
            if binary { throw ToolError("--binary applies to --to plist only", status: .usage) }
            return Array(try json(doc).utf8)
        case .plist:
            return binary ? try binaryPlist(doc) : Array(try xmlPlist(doc).utf8)
        }
    }

    // MARK: YAML

    /// Block-style YAML 1.2 (core schema); strings that would read as another type are quoted.
    public static func yaml(_ doc: ConfigDocument) -> String {
        guard let root = doc.root else { return "{}\n" }
        return yamlLines(doc, root).joined(separator: "\n") + "\n"
    }

    static func yamlLines(_ doc: ConfigDocument, _ node: Int) -> [String] {
        let n = doc.nodes[node]
        switch n.kind {
        case .map where n.count > 0:
            var lines: [String] = []
            for (k, v) in doc.pairs(of: node) {
                let key = yamlString(doc.string(at: k), isKey: true) + ":"
                let vn = doc.nodes[v]
                if vn.isContainer && vn.count > 0 {
                    lines.append(key)
                    lines += yamlLines(doc, v).map { "  " + $0 }
                } else {
                    lines.append(key + " " + yamlScalar(doc, v))
                }
            }
            return lines
        case .list where n.count > 0:
            var lines: [String] = []
            for e in doc.elements(of: node) {
                let child = yamlLines(doc, e)
                lines.append("- " + child[0])
                lines += child.dropFirst().map { "  " + $0 }
            }
            return lines
        default:
            return [yamlScalar(doc, node)]
        }
    }

    static func yamlScalar(_ doc: ConfigDocument, _ node: Int) -> String {
        let n = doc.nodes[node]
        switch n.kind {
        case .null: return "null"
        case .bool: return n.bool ? "true" : "false"
        case .int: return String(n.int)
        case .double:
            let d = n.double
            if d.isNaN { return ".nan" }
            if d.isInfinite { return d < 0 ? "-.inf" : ".inf" }
            return floatText(d)
        case .string: return yamlString(doc.string(at: node), isKey: false)
        case .list: return "[]"
        case .map: return "{}"
        }
    }

    /// Shortest text that reads back as the same double, always with a `.` or an exponent.
    static func floatText(_ d: Double) -> String {
        let s = d.description
        return s.contains(".") || s.contains("e") ? s : s + ".0"
    }

    /// Words YAML 1.1 readers (and people) take for booleans or null; quoted even though 1.2 would not.
    static let yamlWords: Set<String> = ["true", "false", "null", "yes", "no", "on", "off", "y", "n", "~"]

    /// Plain when unambiguous (letters, digits, `_ . / -` and inner spaces, starting with a letter,
    /// `_` or `/`, not a reserved word), else double-quoted with escapes.
    static func yamlString(_ s: String, isKey: Bool) -> String {
        var plain = !s.isEmpty && !yamlWords.contains(s.lowercased()) && s.last != " "
        if plain {
            for (i, u) in s.unicodeScalars.enumerated() {
                let letter = (u >= "a" && u <= "z") || (u >= "A" && u <= "Z") || u == "_"
                let ok = letter || (i == 0 ? u == "/" : ((u >= "0" && u <= "9") || u == "." || u == "/" || u == "-" || u == " "))
                if !ok {
                    plain = false
                    break
                }
            }
        }
        if plain { return s }
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\0": out += "\\0"
            case "\u{85}": out += "\\N"
            case "\u{A0}": out += "\\_"
            case "\u{2028}": out += "\\L"
            case "\u{2029}": out += "\\P"
            case "\u{FEFF}": out += "\\uFEFF"
            default:
                if u.value < 0x20 || (u.value >= 0x7F && u.value < 0xA0) {
                    out += "\\x" + HexDigits.text(u.value, digits: 2)
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }

    // MARK: JSON

    /// Pretty-printed RFC 8259 JSON (two-space indent, keys in written order).
    public static func json(_ doc: ConfigDocument) throws(ToolError) -> String {
        guard let root = doc.root else {
            throw ToolError(
                .schema, "an empty document cannot be written as JSON", at: SourceLocation(file: doc.file, line: 1, column: 1))
        }
        var out = ""
        try jsonValue(doc, root, indent: "", into: &out)
        return out + "\n"
    }

    static func jsonValue(_ doc: ConfigDocument, _ node: Int, indent: String, into out: inout String) throws(ToolError) {
        let n = doc.nodes[node]
        let inner = indent + "  "
        switch n.kind {
        case .null: out += "null"
        case .bool: out += n.bool ? "true" : "false"
        case .int: out += String(n.int)
        case .double:
            guard n.double.isFinite else {
                throw ToolError(
                    .type, "\(n.double) cannot be written in JSON (it has no NaN or infinity)", at: doc.location(of: node))
            }
            out += floatText(n.double)
        case .string: out += JSONText.quote(doc.string(at: node))
        case .list:
            if n.count == 0 {
                out += "[]"
                return
            }
            out += "[\n"
            for (i, e) in doc.elements(of: node).enumerated() {
                out += inner
                try jsonValue(doc, e, indent: inner, into: &out)
                out += i + 1 < n.count ? ",\n" : "\n"
            }
            out += indent + "]"
        case .map:
            if n.count == 0 {
                out += "{}"
                return
            }
            out += "{\n"
            for (i, (k, v)) in doc.pairs(of: node).enumerated() {
                out += inner + JSONText.quote(doc.string(at: k)) + ": "
                try jsonValue(doc, v, indent: inner, into: &out)
                out += i + 1 < n.count ? ",\n" : "\n"
            }
            out += indent + "}"
        }
    }

    // MARK: XML plist

    /// An XML property list (tab-indented like Apple's tools).
    public static func xmlPlist(_ doc: ConfigDocument) throws(ToolError) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n"
        out += "<plist version=\"1.0\">\n"
        if let root = doc.root { try xmlValue(doc, root, indent: "", into: &out) } else { out += "<dict/>\n" }
        return out + "</plist>\n"
    }

    static func xmlValue(_ doc: ConfigDocument, _ node: Int, indent: String, into out: inout String) throws(ToolError) {
        let n = doc.nodes[node]
        switch n.kind {
        case .null:
            throw ToolError(
                .type, "null cannot be written in a property list (plists have no null); remove the value or use a string",
                at: doc.location(of: node))
        case .bool: out += indent + (n.bool ? "<true/>" : "<false/>") + "\n"
        case .int: out += indent + "<integer>\(n.int)</integer>\n"
        case .double:
            let d = n.double
            let text = d.isNaN ? "nan" : d.isInfinite ? (d < 0 ? "-inf" : "+inf") : floatText(d)
            out += indent + "<real>\(text)</real>\n"
        case .string: out += indent + "<string>" + (try xmlText(doc, node)) + "</string>\n"
        case .list:
            if n.count == 0 {
                out += indent + "<array/>\n"
                return
            }
            out += indent + "<array>\n"
            for e in doc.elements(of: node) { try xmlValue(doc, e, indent: indent + "\t", into: &out) }
            out += indent + "</array>\n"
        case .map:
            if n.count == 0 {
                out += indent + "<dict/>\n"
                return
            }
            out += indent + "<dict>\n"
            for (k, v) in doc.pairs(of: node) {
                out += indent + "\t<key>" + (try xmlText(doc, k)) + "</key>\n"
                try xmlValue(doc, v, indent: indent + "\t", into: &out)
            }
            out += indent + "</dict>\n"
        }
    }

    /// Escaped XML character data; characters XML 1.0 cannot hold are an error.
    static func xmlText(_ doc: ConfigDocument, _ node: Int) throws(ToolError) -> String {
        var out = ""
        for u in doc.string(at: node).unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\r": out += "&#13;"
            case "\t", "\n": out.unicodeScalars.append(u)
            default:
                if u.value < 0x20 || u.value == 0xFFFE || u.value == 0xFFFF {
                    throw ToolError(
                        .type,
                        "the control character U+\(HexDigits.text(u.value, digits: 4)) cannot be written in an XML property list; use --binary",
                        at: doc.location(of: node))
                }
                out.unicodeScalars.append(u)
            }
        }
        return out
    }

    // MARK: Binary plist

    /// A `bplist00` binary property list: one object per document node (keys included), the
    /// root first, references sized to the object count.
    public static func binaryPlist(_ doc: ConfigDocument) throws(ToolError) -> [UInt8] {
        let nodes = doc.nodes
        guard !nodes.isEmpty else { return try binaryPlist(emptyDictDocument(doc.file)) }
        let refSize = nodes.count < 0x100 ? 1 : nodes.count < 0x10000 ? 2 : 4
        var out: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(nodes.count)

        func be(_ value: UInt64, _ size: Int) {
            for i in stride(from: size - 1, through: 0, by: -1) {
                out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i))))
            }
        }
        func intObject(_ v: Int64) {
            if v >= 0 && v <= 0xFF {
                out.append(0x10)
                be(UInt64(v), 1)
            } else if v >= 0 && v <= 0xFFFF {
                out.append(0x11)
                be(UInt64(v), 2)
            } else if v >= 0 && v <= 0xFFFF_FFFF {
                out.append(0x12)
                be(UInt64(v), 4)
            } else {
                out.append(0x13)
                be(UInt64(bitPattern: v), 8)
            }
        }
        func marker(_ type: UInt8, _ count: Int) {
            if count < 15 {
                out.append(type << 4 | UInt8(count))
            } else {
                out.append(type << 4 | 0x0F)
                intObject(Int64(count))
            }
        }

        for i in 0..<nodes.count {
            offsets.append(out.count)
            let n = nodes[i]
            switch n.kind {
            case .null:
                throw ToolError(
                    .type, "null cannot be written in a property list (plists have no null); remove the value or use a string",
                    at: doc.location(of: i))
            case .bool: out.append(n.bool ? 0x09 : 0x08)
            case .int: intObject(n.int)
            case .double:
                out.append(0x23)
                be(n.double.bitPattern, 8)
            case .string:
                let s = doc.string(at: i)
                if s.utf8.allSatisfy({ $0 < 0x80 }) {
                    marker(0x5, s.utf8.count)
                    out += s.utf8
                } else {
                    let units = Array(s.utf16)
                    marker(0x6, units.count)
                    for u in units { be(UInt64(u), 2) }
                }
            case .list:
                let items = doc.elements(of: i)
                marker(0xA, items.count)
                for e in items { be(UInt64(e), refSize) }
            case .map:
                let pairs = doc.pairs(of: i)
                marker(0xD, pairs.count)
                for p in pairs { be(UInt64(p.key), refSize) }
                for p in pairs { be(UInt64(p.value), refSize) }
            }
        }
        let tableOffset = out.count
        let offsetSize = tableOffset < 0x100 ? 1 : tableOffset < 0x10000 ? 2 : tableOffset < 0x1_0000_0000 ? 4 : 8
        for o in offsets { be(UInt64(o), offsetSize) }
        out += [0, 0, 0, 0, 0, 0]  // unused + sort version
        out.append(UInt8(offsetSize))
        out.append(UInt8(refSize))
        be(UInt64(nodes.count), 8)
        be(0, 8)  // top object: the root node
        be(UInt64(tableOffset), 8)
        return out
    }

    static func emptyDictDocument(_ file: String) -> ConfigDocument {
        ConfigDocument(file: file, nodes: [ConfigNode(kind: .map, line: 1, column: 1, payload: 0, extent: 1)], strings: [])
    }
}
