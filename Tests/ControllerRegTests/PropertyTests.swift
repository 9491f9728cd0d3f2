import ControllerReg
import Testing

/// Nothing lost: generated configs (in JSON, YAML and XML plist) load into exactly the entries
/// written, and generated broken variants of them fail leaving the registry exactly as it was.
/// A small seeded generator (SplitMix64) keeps every run reproducible: a failure names its seed.
@Suite("Property: nothing lost")
struct PropertyTests {
    struct Rng {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func chance(_ percent: Int) -> Bool { int(100) < percent }
        mutating func pick<T>(_ a: [T]) -> T { a[int(a.count)] }
    }

    enum Format: CaseIterable { case json, yaml, plist }

    static let classes = ["W", "C"]
    static let baseline =
        "Base0: W\nBase1: {ClassName: C, Dependencies: {b: Base0}}\nBase2: {ClassName: W, Lifestyle: singleton}\n"
    static let baselineNames = ["Base0", "Base1", "Base2"]
    static let strings = [
        "", "plain", "with \"quotes\"", "back\\slash", "é ü 中文 🙂", "line\nbreak", "tab\there", "<tag> & amp;", "@at",
    ]
    static let doubles: [Double] = [0.5, -2.25, 1e300, 3.0, 1.5e-7, -0.0]
    static let ints: [Int64] = [0, 1, -1, 1000, .max, .min, 42]

    /// A random dependency value; `names` are entries it may refer to (earlier ones: no cycles),
    /// `all` the entries a provider may name (providers may point anywhere).
    static func value(_ rng: inout Rng, depth: Int, names: [String], all: [String], format: Format) -> DependencyValue {
        let roll = rng.int(depth >= 3 ? 7 : 9)
        switch roll {
        case 0: return format == .plist ? .bool(rng.chance(50)) : .null
        case 1: return .bool(rng.chance(50))
        case 2: return .int(rng.pick(ints))
        case 3: return .double(rng.pick(doubles))
        case 4: return .string(rng.pick(strings))
        case 5: return names.isEmpty ? .string("none") : .reference(rng.pick(names), at: nil)
        case 6: return .provider(rng.pick(all), at: nil)
        case 7: return .list((0..<rng.int(4)).map { _ in value(&rng, depth: depth + 1, names: names, all: all, format: format) })
        default:
            return .map(dependencies(&rng, depth: depth + 1, names: names, all: all, format: format))
        }
    }

    static func dependencies(_ rng: inout Rng, depth: Int, names: [String], all: [String], format: Format) -> [Dependency] {
        let keys = ["k0", "k1", "k2", "k3", "key with space", "ключ"].shuffledPrefix(rng.int(5), &rng)
        // A map whose only key is Provider would read as a provider: never generate that key.
        return keys.map { Dependency(key: $0, value: value(&rng, depth: depth, names: names, all: all, format: format)) }
    }

    /// A random config: new entries (none named like the baseline), referring to the baseline and
    /// to earlier entries of their own config.
    static func config(_ rng: inout Rng, format: Format) -> [EntryDefinition] {
        let count = 1 + rng.int(8)
        let names = (0..<count).map { "E\($0)_\(rng.int(1000))" }
        var defs: [EntryDefinition] = []
        // Entries that are or reach a `graph` entry: a singleton must not refer to them (the
        // lifetime rule), so a generated config stays valid.
        var reachesGraph = Set<String>()
        for (i, name) in names.enumerated() {
            let lifestyle = rng.pick(Lifestyle.allCases)
            let earlier = (baselineNames + Array(names[..<i])).filter { lifestyle != .singleton || !reachesGraph.contains($0) }
            let def = EntryDefinition(
                name: name, className: rng.pick(classes),
                description: rng.chance(30) ? rng.pick(strings) : nil,
                tags: (0..<(rng.chance(30) ? 1 + rng.int(2) : 0)).map { _ in
                    if rng.chance(50) { return .int(rng.pick(ints)) }
                    // Any string but the empty one, which no {Tagged: t} could name (refused).
                    let text = rng.pick(strings)
                    return .string(text.isEmpty ? "empty" : text)
                },
                dependencies: dependencies(&rng, depth: 0, names: earlier, all: baselineNames + names, format: format),
                lifestyle: lifestyle, eager: lifestyle == .singleton && rng.chance(50))
            var reaches = lifestyle == .graph
            for d in def.dependencies {
                d.value.forEachReference { target, _, isProvider in
                    if !isProvider && reachesGraph.contains(target) { reaches = true }
                }
            }
            if reaches { reachesGraph.insert(name) }
            defs.append(def)
        }
        return defs
    }

    // MARK: Writing configs

    static func jsonString(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }

    static func json(_ v: DependencyValue) -> String {
        switch v {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return "\(d)"
        case .string(let s): return jsonString("@" + s)
        case .reference(let n, _): return jsonString(n)
        case .provider(let n, _): return "{\"Provider\": \(jsonString(n))}"
        case .tagged(.int(let t), _): return "{\"Tagged\": \(t)}"
        case .tagged(.string(let t), _): return "{\"Tagged\": \(jsonString(t))}"
        case .optional(let n, _): return "{\"Optional\": \(jsonString(n))}"
        case .template(let t, _): return jsonString("@" + t)
        case .env(let e):
            return "{\"Env\": \(jsonString(e.name)), \"Type\": \"\(e.type.rawValue)\""
                + (e.defaultValue.map { d in
                    if case .string(let s) = d { return ", \"Default\": \(jsonString(s))" }
                    return ", \"Default\": \(d)"
                } ?? "") + "}"
        case .list(let items): return "[" + items.map(json).joined(separator: ", ") + "]"
        case .map(let deps): return "{" + deps.map { "\(jsonString($0.key)): \(json($0.value))" }.joined(separator: ", ") + "}"
        }
    }

    static func json(_ d: EntryDefinition) -> String {
        var fields = ["\"ClassName\": \(jsonString(d.className))"]
        if let desc = d.description { fields.append("\"Description\": \(jsonString(desc))") }
        func tag(_ t: EntryTag) -> String {
            switch t {
            case .int(let i): return String(i)
            case .string(let s): return jsonString(s)
            }
        }
        if d.tags.count == 1 { fields.append("\"Tag\": \(tag(d.tags[0]))") }
        if d.tags.count > 1 { fields.append("\"Tag\": [\(d.tags.map(tag).joined(separator: ", "))]") }
        if !d.dependencies.isEmpty { fields.append("\"Dependencies\": \(json(.map(d.dependencies)))") }
        if d.lifestyle != .transient { fields.append("\"Lifestyle\": \"\(d.lifestyle.rawValue)\"") }
        if d.eager { fields.append("\"Eager\": true") }
        return "\(jsonString(d.name)): {" + fields.joined(separator: ", ") + "}"
    }

    static func xmlEscape(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(c)
            }
        }
        return out
    }

    static func plist(_ v: DependencyValue) -> String {
        switch v {
        case .null: return "<string>null is not a plist value</string>"
        case .bool(let b): return b ? "<true/>" : "<false/>"
        case .int(let i): return "<integer>\(i)</integer>"
        case .double(let d): return "<real>\(d)</real>"
        case .string(let s): return "<string>\(xmlEscape("@" + s))</string>"
        case .reference(let n, _): return "<string>\(xmlEscape(n))</string>"
        case .provider(let n, _): return "<dict><key>Provider</key><string>\(xmlEscape(n))</string></dict>"
        case .tagged(.int(let t), _): return "<dict><key>Tagged</key><integer>\(t)</integer></dict>"
        case .tagged(.string(let t), _): return "<dict><key>Tagged</key><string>\(xmlEscape(t))</string></dict>"
        case .optional(let n, _): return "<dict><key>Optional</key><string>\(xmlEscape(n))</string></dict>"
        case .template(let t, _): return "<string>\(xmlEscape("@" + t))</string>"
        case .env(let e):
            return "<dict><key>Env</key><string>\(xmlEscape(e.name))</string><key>Type</key><string>\(e.type.rawValue)</string>"
                + (e.defaultValue.map { "<key>Default</key><string>\(xmlEscape($0.description))</string>" } ?? "") + "</dict>"
        case .list(let items): return "<array>" + items.map(plist).joined() + "</array>"
        case .map(let deps):
            return "<dict>" + deps.map { "<key>\(xmlEscape($0.key))</key>" + plist($0.value) }.joined() + "</dict>"
        }
    }

    static func plist(_ d: EntryDefinition) -> String {
        var s = "<key>\(xmlEscape(d.name))</key><dict><key>ClassName</key><string>\(xmlEscape(d.className))</string>"
        if let desc = d.description { s += "<key>Description</key><string>\(xmlEscape(desc))</string>" }
        func tag(_ t: EntryTag) -> String {
            switch t {
            case .int(let i): return "<integer>\(i)</integer>"
            case .string(let t): return "<string>\(xmlEscape(t))</string>"
            }
        }
        if d.tags.count == 1 { s += "<key>Tag</key>" + tag(d.tags[0]) }
        if d.tags.count > 1 { s += "<key>Tag</key><array>" + d.tags.map(tag).joined() + "</array>" }
        if !d.dependencies.isEmpty { s += "<key>Dependencies</key>" + plist(.map(d.dependencies)) }
        if d.lifestyle != .transient { s += "<key>Lifestyle</key><string>\(d.lifestyle.rawValue)</string>" }
        if d.eager { s += "<key>Eager</key><true/>" }
        return s + "</dict>"
    }

    /// The config text; `extra` adds raw entries (already in the format) at the end.
    static func text(_ defs: [EntryDefinition], _ format: Format, extra: [String] = []) -> String {
        switch format {
        case .json, .yaml:  // JSON text is YAML 1.2 flow style, read by the YAML loader here
            return "{" + (defs.map(json) + extra).joined(separator: ",\n") + "}"
        case .plist:
            return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><dict>"
                + (defs.map(plist) + extra).joined() + "</dict></plist>"
        }
    }

    static func configFormat(_ f: Format) -> ConfigFormat {
        switch f {
        case .json: return .json
        case .yaml: return .yaml
        case .plist: return .plist
        }
    }

    static func freshRegistry() throws -> Registry {
        let r = Registry()
        try registerWidgets(r, classes)
        try r.load(text: baseline)
        return r
    }

    // MARK: Properties

    @Test(arguments: Format.allCases)
    func aGoodLoadGivesExactlyTheEntriesWritten(format: Format) throws {
        for seed in UInt64(1)...150 {
            var rng = Rng(state: seed &* 7919 &+ UInt64(Format.allCases.firstIndex(of: format)!))
            let defs = Self.config(&rng, format: format)
            let text = Self.text(defs, format)
            let r = try Self.freshRegistry()
            // Singletons may hold providers of their own registry (a reference cycle the Swift API
            // allows); closing breaks it, as cr_registry_free does for C hosts.
            defer { r.close() }
            let before = r.entries
            do {
                try r.load(text: text, format: Self.configFormat(format))
            } catch {
                Issue.record("seed \(seed) (\(format)): \(error)\n\(text)")
                continue
            }
            #expect(r.entries == before + defs, "seed \(seed) (\(format))\n\(text)")
            // Every entry is usable: all references resolve and every create succeeds.
            for d in defs {
                #expect(throws: Never.self, "seed \(seed): create \(d.name)") { _ = try r.create(d.name, as: Widget.self) }
            }
        }
    }

    enum Breakage: CaseIterable {
        case missingReference, cycle, selfReference, duplicateOfExisting, duplicateInside, duplicateKey, unknownKey,
            wrongType, emptyName, truncated, garbageAppended, entryLimit, depthLimit
    }

    @Test(arguments: Format.allCases)
    func aBrokenLoadLeavesTheRegistryExactlyAsItWas(format: Format) throws {
        for seed in UInt64(1)...150 {
            var rng = Rng(state: seed &* 104_729 &+ UInt64(Format.allCases.firstIndex(of: format)!))
            var defs = Self.config(&rng, format: format)
            let breakage = rng.pick(Breakage.allCases)
            var extra: [String] = []
            var limits: RegistryLimits?
            let i = rng.int(defs.count)
            func raw(_ name: String, _ body: String) -> String {
                format == .plist ? "<key>\(name)</key>\(body)" : "\(Self.jsonString(name)): \(body)"
            }
            switch breakage {
            case .missingReference:
                defs[i].dependencies.append(
                    Dependency(key: "zz_missing", value: .list([.reference("NoSuchEntry\(seed)", at: nil)])))
            case .cycle:
                // The first entry refers to the last, and the last to the first.
                defs[0].dependencies.append(Dependency(key: "zz_a", value: .reference(defs[defs.count - 1].name, at: nil)))
                defs[defs.count - 1].dependencies.append(
                    Dependency(key: "zz_b", value: .map([Dependency(key: "x", value: .reference(defs[0].name, at: nil))])))
            case .selfReference:
                defs[i].dependencies.append(Dependency(key: "zz_self", value: .reference(defs[i].name, at: nil)))
            case .duplicateOfExisting:
                defs[i].name = rng.pick(Self.baselineNames)
            case .duplicateInside:
                defs.append(defs[i])
            case .duplicateKey:
                defs[i].dependencies += [Dependency(key: "zz_dup", value: .int(1)), Dependency(key: "zz_dup", value: .int(2))]
            case .unknownKey:
                extra.append(
                    format == .plist
                        ? raw(
                            "Extra\(seed)",
                            "<dict><key>ClassName</key><string>W</string><key>Colour</key><string>red</string></dict>")
                        : raw("Extra\(seed)", "{\"ClassName\": \"W\", \"Colour\": \"red\"}"))
            case .wrongType:
                extra.append(
                    format == .plist
                        ? raw("Extra\(seed)", "<dict><key>ClassName</key><integer>7</integer></dict>")
                        : raw("Extra\(seed)", "{\"ClassName\": 7}"))
            case .emptyName:
                extra.append(format == .plist ? raw("", "<string>W</string>") : raw("", "\"W\""))
            case .truncated, .garbageAppended:
                break
            case .entryLimit:
                var l = RegistryLimits()
                l.maxEntries = Self.baselineNames.count + defs.count - 1
                limits = l
            case .depthLimit:
                var l = RegistryLimits()
                l.config.maxDepth = 3
                limits = l
                defs[i].dependencies.append(Dependency(key: "zz_deep", value: .list([.list([.list([.int(1)])])])))
            }
            var text = Self.text(defs, format, extra: extra)
            if breakage == .truncated { text = String(text.prefix(rng.int(text.count))) }
            if breakage == .garbageAppended { text += format == .plist ? "<dict>" : "}" }

            let r = try Self.freshRegistry()
            defer { r.close() }
            if let limits { try r.setLimits(limits) }
            let before = r.entries
            let e = expectError { try r.load(text: text, format: Self.configFormat(format)) }
            #expect(e != nil, "seed \(seed) (\(format), \(breakage)) loaded:\n\(text)")
            if breakage == .entryLimit || breakage == .depthLimit {
                #expect(e?.code == .limit, "seed \(seed): \(String(describing: e))")
            }
            if breakage == .cycle || breakage == .selfReference {
                #expect(e?.code == .cycle, "seed \(seed): \(String(describing: e))")
            }
            if breakage == .missingReference { #expect(e?.code == .missingReference, "seed \(seed): \(String(describing: e))") }
            // Exactly as it was, and still working.
            #expect(r.entries == before, "seed \(seed) (\(format), \(breakage))")
            #expect(r.entries.map(\.location) == before.map(\.location))
            #expect(throws: Never.self) { _ = try r.create("Base1", as: Widget.self) }
            // The failed load reserved nothing: the good part of the config still loads afterwards.
            if breakage != .duplicateOfExisting, breakage != .entryLimit {
                let good = Self.config(&rng, format: format)
                try r.setLimits(RegistryLimits())
                #expect(throws: Never.self, "seed \(seed)") {
                    try r.load(text: Self.text(good, format), format: Self.configFormat(format))
                }
                #expect(r.entries == before + good)
            }
        }
    }
}

extension Array {
    /// The first `n` elements after a seeded shuffle.
    func shuffledPrefix(_ n: Int, _ rng: inout PropertyTests.Rng) -> [Element] {
        var a = self
        for i in stride(from: a.count - 1, to: 0, by: -1) { a.swapAt(i, rng.int(i + 1)) }
        return Array(a.prefix(n))
    }
}
