import CControllerRegHeader
import ControllerReg
import ControllerRegC  // links libcontrollerreg.so; its cr_* functions are called through the C header, as a C host does
import Swinject

// Swift benchmark: the create cases through Swinject, through controllerreg's C ABI (the exported
// cr_* functions of libcontrollerreg.so, declared by include/controllerreg.h), through its Swift API and hand-wired, as interleaved A/B
// pairs in one process (the Swift twin of Benchmarks/c/pairbench.h; see Benchmarks/README.md).
//
//   SwiftBench pairs        every pair, one `PAIR {json}` line each (BENCH_PAIRS, BENCH_BLOCK_MS, BENCH_CLOCK)
//   SwiftBench cg-list      the operations callgrind can count
//   SwiftBench cg NAMES N   each NAME (comma-separated) N times inside pb_measured_region (callgrind)
#if canImport(Glibc)
import Glibc
#endif

// MARK: pairs

/// This thread's CPU time (a shared machine's other load is not counted); BENCH_CLOCK=wall for wall time.
let caseClock: clockid_t = getenv("BENCH_CLOCK").map { String(cString: $0) } == "wall" ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID
func nowNs() -> Double {
    var ts = timespec()
    clock_gettime(caseClock, &ts)
    return Double(ts.tv_sec) * 1e9 + Double(ts.tv_nsec)
}

func envNumber(_ name: String, _ fallback: Double) -> Double {
    guard let v = getenv(name), let n = Double(String(cString: v)), n > 0 else { return fallback }
    return n
}
let pairCount = min(256, Int(envNumber("BENCH_PAIRS", 21)))
let blockMs = envNumber("BENCH_BLOCK_MS", 4)

/// Stops on a failed setup step (a side effect never goes inside a precondition).
func check(_ ok: Bool, _ what: @autoclosure () -> String) {
    if !ok {
        fputs("SwiftBench: \(what()) failed: \(String(cString: CControllerRegHeader.cr_last_error_message()))\n", stderr)
        exit(1)
    }
}

nonisolated(unsafe) var sink: AnyObject?
nonisolated(unsafe) var rawSink: UnsafeMutableRawPointer?

/// Runs `op` `n` times; callgrind counts only inside this function (never inlined).
@inline(never)
func pb_measured_region(_ op: () -> Void, _ n: Int) {
    for _ in 0..<n { op() }
}

/// Nanoseconds of `n` runs of `op`.
@inline(never)
func block(_ op: () -> Void, _ n: Int) -> Double {
    let t0 = nowNs()
    for _ in 0..<n { op() }
    return nowNs() - t0
}

/// Runs of `op` that take about BENCH_BLOCK_MS.
func calibrate(_ op: () -> Void) -> Int {
    var n = 1
    while true {
        let ns = block(op, n)
        if ns >= blockMs * 1e6 / 4 || n >= 1 << 30 {
            let per = ns / Double(n)
            return per > 0 ? max(1, Int(blockMs * 1e6 / per)) : n
        }
        n *= 4
    }
}

/// One interleaved A/B pair: blocks of A and B in alternating order, ns per operation; one PAIR line.
func pair(_ a: String, _ b: String, _ ops: [String: () -> Void]) {
    guard let opA = ops[a], let opB = ops[b] else {
        fputs("SwiftBench: no operation \(a) or \(b)\n", stderr)
        exit(2)
    }
    let na = calibrate(opA), nb = calibrate(opB)
    var sa: [Double] = [], sb: [Double] = []
    for i in 0..<pairCount {
        if i % 2 == 0 {
            sa.append(block(opA, na) / Double(na))
            sb.append(block(opB, nb) / Double(nb))
        } else {
            sb.append(block(opB, nb) / Double(nb))
            sa.append(block(opA, na) / Double(na))
        }
    }
    func list(_ s: [Double]) -> String { s.map { String(Double(Int($0 * 10000)) / 10000) }.joined(separator: ", ") }
    print(
        "PAIR {\"a\": \"\(a)\", \"b\": \"\(b)\", \"unit\": \"ns/op\", \"a_samples\": [\(list(sa))], \"b_samples\": [\(list(sb))]}"
    )
    fflush(stdout)
}

// MARK: the object graph, as Swift classes

final class Leaf { var id = 1 }
final class Node {
    let a: Leaf, b: Leaf
    let title: String, count: Int, ratio: Double
    init(a: Leaf, b: Leaf, title: String, count: Int, ratio: Double) {
        self.a = a
        self.b = b
        self.title = title
        self.count = count
        self.ratio = ratio
    }
}
final class Shared {}
final class Holder {
    let shared: Shared
    init(_ s: Shared) { shared = s }
}
final class Left {
    let h: Holder
    init(_ h: Holder) { self.h = h }
}
final class Right {
    let h: Holder
    init(_ h: Holder) { self.h = h }
}
final class Pair {
    let left: Left, right: Right
    init(_ l: Left, _ r: Right) {
        left = l
        right = r
    }
}
final class Single {}
final class C0 {}
final class C1 {
    let n: C0
    init(_ n: C0) { self.n = n }
}
final class C2 {
    let n: C1
    init(_ n: C1) { self.n = n }
}
final class C3 {
    let n: C2
    init(_ n: C2) { self.n = n }
}
final class C4 {
    let n: C3
    init(_ n: C3) { self.n = n }
}
final class C5 {
    let n: C4
    init(_ n: C4) { self.n = n }
}
final class C6 {
    let n: C5
    init(_ n: C5) { self.n = n }
}
final class C7 {
    let n: C6
    init(_ n: C6) { self.n = n }
}
final class C8 {
    let n: C7
    init(_ n: C7) { self.n = n }
}
final class C9 {
    let n: C8
    init(_ n: C8) { self.n = n }
}

// MARK: Swinject

func swinjectOps() -> [String: () -> Void] {
    let c = Container()
    c.register(Leaf.self) { _ in Leaf() }.inObjectScope(.transient)
    c.register(Node.self) { r in
        Node(a: r.resolve(Leaf.self)!, b: r.resolve(Leaf.self)!, title: "Home screen", count: 3, ratio: 0.5)
    }.inObjectScope(.transient)
    c.register(Node.self, name: "props") { (r: Resolver, title: String, count: Int) in
        Node(a: r.resolve(Leaf.self)!, b: r.resolve(Leaf.self)!, title: title, count: count, ratio: 0.5)
    }.inObjectScope(.transient)
    c.register(Single.self) { _ in Single() }.inObjectScope(.container)
    c.register(Shared.self) { _ in Shared() }.inObjectScope(.graph)
    c.register(Holder.self) { r in Holder(r.resolve(Shared.self)!) }.inObjectScope(.transient)
    c.register(Left.self) { r in Left(r.resolve(Holder.self)!) }.inObjectScope(.transient)
    c.register(Right.self) { r in Right(r.resolve(Holder.self)!) }.inObjectScope(.transient)
    c.register(Pair.self) { r in Pair(r.resolve(Left.self)!, r.resolve(Right.self)!) }.inObjectScope(.transient)
    c.register(C0.self) { _ in C0() }.inObjectScope(.transient)
    c.register(C1.self) { r in C1(r.resolve(C0.self)!) }.inObjectScope(.transient)
    c.register(C2.self) { r in C2(r.resolve(C1.self)!) }.inObjectScope(.transient)
    c.register(C3.self) { r in C3(r.resolve(C2.self)!) }.inObjectScope(.transient)
    c.register(C4.self) { r in C4(r.resolve(C3.self)!) }.inObjectScope(.transient)
    c.register(C5.self) { r in C5(r.resolve(C4.self)!) }.inObjectScope(.transient)
    c.register(C6.self) { r in C6(r.resolve(C5.self)!) }.inObjectScope(.transient)
    c.register(C7.self) { r in C7(r.resolve(C6.self)!) }.inObjectScope(.transient)
    c.register(C8.self) { r in C8(r.resolve(C7.self)!) }.inObjectScope(.transient)
    c.register(C9.self) { r in C9(r.resolve(C8.self)!) }.inObjectScope(.transient)
    let p = c.resolve(Pair.self)!
    check(p.left.h.shared === p.right.h.shared, "Swinject graph scope shares within one resolve")
    return [
        "swinject.leaf": { sink = c.resolve(Leaf.self) },
        "swinject.node5": { sink = c.resolve(Node.self) },
        "swinject.chain10": { sink = c.resolve(C9.self) },
        "swinject.singleton": { sink = c.resolve(Single.self) },
        "swinject.diamond": { sink = c.resolve(Pair.self) },
        "swinject.props_merged": { sink = c.resolve(Node.self, name: "props", arguments: "Overridden", 42) },
    ]
}

// MARK: controllerreg through its C ABI, from Swift

typealias CreateFn = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?
typealias DestroyFn = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void

struct CLeaf { var id: Int64 }
struct CNode {
    var a: UnsafeMutableRawPointer?
    var b: UnsafeMutableRawPointer?
    var title: (Int64, Int64, Int64)
    var count: Int64
    var ratio: Double
}

let leafCreate: CreateFn = { _, _ in
    let p = malloc(MemoryLayout<CLeaf>.size)!
    p.storeBytes(of: CLeaf(id: 1), as: CLeaf.self)
    return p
}
let plainDestroy: DestroyFn = { o, _ in free(o) }
let nodeCreate: CreateFn = { args, _ in
    let p = malloc(MemoryLayout<CNode>.size)!.bindMemory(to: CNode.self, capacity: 1)
    var n = CNode(
        a: CControllerRegHeader.cr_value_object(CControllerRegHeader.cr_map_get(args, "a")),
        b: CControllerRegHeader.cr_value_object(CControllerRegHeader.cr_map_get(args, "b")),
        title: (0, 0, 0),
        count: CControllerRegHeader.cr_value_int(CControllerRegHeader.cr_map_get(args, "count")),
        ratio: CControllerRegHeader.cr_value_double(CControllerRegHeader.cr_map_get(args, "ratio")))
    if let s = CControllerRegHeader.cr_value_string(CControllerRegHeader.cr_map_get(args, "title")) {
        withUnsafeMutableBytes(of: &n.title) { t in
            let len = min(strlen(s), 23)
            memcpy(t.baseAddress!, s, len)
        }
    }
    p.initialize(to: n)
    return UnsafeMutableRawPointer(p)
}
let nodeDestroy: DestroyFn = { o, _ in
    guard let o else { return }
    let n = o.assumingMemoryBound(to: CNode.self)
    free(n.pointee.a)
    free(n.pointee.b)
    free(o)
}
let linkCreate: CreateFn = { args, _ in
    let p = malloc(8)!
    let next = CControllerRegHeader.cr_map_get(args, "next")
    p.storeBytes(of: next.flatMap { CControllerRegHeader.cr_value_object($0) }, as: UnsafeMutableRawPointer?.self)
    return p
}
let linkDestroy: DestroyFn = { o, _ in
    var l = o
    while let c = l {
        l = c.load(as: UnsafeMutableRawPointer?.self)
        free(c)
    }
}
// Holder: (shared, owns); Pair: (left, right)
let holderCreate: CreateFn = { args, _ in
    let p = malloc(16)!.bindMemory(to: (UnsafeMutableRawPointer?, Int).self, capacity: 1)
    let s = CControllerRegHeader.cr_map_get(args, "shared")
    p.initialize(
        to: (CControllerRegHeader.cr_value_object(s), CControllerRegHeader.cr_value_owner(s) == CR_OWNER_RECEIVER ? 1 : 0))
    return UnsafeMutableRawPointer(p)
}
func destroyHolder(_ o: UnsafeMutableRawPointer?) {
    guard let o else { return }
    let h = o.load(as: (UnsafeMutableRawPointer?, Int).self)
    if h.1 != 0 { free(h.0) }
    free(o)
}
let holderDestroy: DestroyFn = { o, _ in destroyHolder(o) }
let pairCreate: CreateFn = { args, _ in
    let p = malloc(16)!.bindMemory(to: (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?).self, capacity: 1)
    p.initialize(
        to: (
            CControllerRegHeader.cr_value_object(CControllerRegHeader.cr_map_get(args, "left")),
            CControllerRegHeader.cr_value_object(CControllerRegHeader.cr_map_get(args, "right"))
        ))
    return UnsafeMutableRawPointer(p)
}
let pairDestroy: DestroyFn = { o, _ in
    guard let o else { return }
    let p = o.load(as: (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?).self)
    destroyHolder(p.0)
    destroyHolder(p.1)
    free(o)
}

let config = """
    Leaf: Leaf
    LeafB: Leaf
    Node:
      ClassName: Node
      Dependencies: {a: Leaf, b: LeafB, title: "@Home screen", count: 3, ratio: 0.5}
    Single: {ClassName: Leaf, Lifestyle: singleton}
    Shared: {ClassName: Leaf, Lifestyle: graph}
    Left: {ClassName: Holder, Dependencies: {shared: Shared}}
    Right: {ClassName: Holder, Dependencies: {shared: Shared}}
    Diamond: {ClassName: Pair, Dependencies: {left: Left, right: Right}}
    Chain0: Link
    Chain1: {ClassName: Link, Dependencies: {next: Chain0}}
    Chain2: {ClassName: Link, Dependencies: {next: Chain1}}
    Chain3: {ClassName: Link, Dependencies: {next: Chain2}}
    Chain4: {ClassName: Link, Dependencies: {next: Chain3}}
    Chain5: {ClassName: Link, Dependencies: {next: Chain4}}
    Chain6: {ClassName: Link, Dependencies: {next: Chain5}}
    Chain7: {ClassName: Link, Dependencies: {next: Chain6}}
    Chain8: {ClassName: Link, Dependencies: {next: Chain7}}
    Chain9: {ClassName: Link, Dependencies: {next: Chain8}}

    """

func cabiOps() -> [String: () -> Void] {
    let reg = CControllerRegHeader.cr_registry_new()
    func register(_ name: String, _ create: CreateFn, _ destroy: DestroyFn) {
        var cls = cr_class()
        cls.create = create
        cls.destroy = destroy
        check(CControllerRegHeader.cr_register_class(reg, name, &cls, nil) == 0, "register \(name)")
    }
    register("Leaf", leafCreate, plainDestroy)
    register("Node", nodeCreate, nodeDestroy)
    register("Link", linkCreate, linkDestroy)
    register("Holder", holderCreate, holderDestroy)
    register("Pair", pairCreate, pairDestroy)
    var text = config
    let rc = text.withUTF8 { u in
        CControllerRegHeader.cr_load_string(
            reg, UnsafeRawPointer(u.baseAddress!).assumingMemoryBound(to: CChar.self), u.count, cr_format(rawValue: 2))
    }
    check(rc == 0, "load")
    let props = CControllerRegHeader.cr_map_new()
    _ = CControllerRegHeader.cr_map_set_string(props, "title", "Overridden")
    _ = CControllerRegHeader.cr_map_set_int(props, "count", 42)

    // Names as C strings made once, as a C host passes them.
    let names: [UnsafeMutablePointer<CChar>] = ["Leaf", "Node", "Chain9", "Single", "Diamond"].map { (s: String) in strdup(s)! }
    let leaf = UnsafePointer(names[0]), node = UnsafePointer(names[1]), chain = UnsafePointer(names[2])
    let single = UnsafePointer(names[3]), diamond = UnsafePointer(names[4])
    for n in [leaf, node, chain, single, diamond] {
        check(CControllerRegHeader.cr_registry_create(reg, n, nil) != nil, "create")
    }
    return [
        "swift.cr.leaf": { free(CControllerRegHeader.cr_registry_create(reg, leaf, nil)) },
        "swift.cr.node5": { nodeDestroy(CControllerRegHeader.cr_registry_create(reg, node, nil), nil) },
        "swift.cr.chain10": { linkDestroy(CControllerRegHeader.cr_registry_create(reg, chain, nil), nil) },
        "swift.cr.singleton": { rawSink = CControllerRegHeader.cr_registry_create(reg, single, nil) },
        "swift.cr.diamond": { pairDestroy(CControllerRegHeader.cr_registry_create(reg, diamond, nil), nil) },
        "swift.cr.props_merged": { nodeDestroy(CControllerRegHeader.cr_registry_create(reg, node, props), nil) },
    ]
}

// MARK: controllerreg's Swift API (Registry, classes registered as Swift closures)

func swiftAPIOps() -> [String: () -> Void] {
    let reg = Registry()
    do {
        try reg.register(className: "Leaf") { _ in Leaf() }
        try reg.register(className: "Node") { args in
            Node(
                a: args["a"]!.take(as: Leaf.self)!, b: args["b"]!.take(as: Leaf.self)!,
                title: args["title"]?.string ?? "", count: Int(args["count"]?.int ?? 0), ratio: args["ratio"]?.double ?? 0)
        }
        try reg.load(
            text: """
                Leaf: Leaf
                LeafB: Leaf
                Node:
                  ClassName: Node
                  Dependencies: {a: Leaf, b: LeafB, title: "@Home screen", count: 3, ratio: 0.5}
                Single: {ClassName: Leaf, Lifestyle: singleton}

                """, format: .yaml)
        let n = try reg.create("Node", as: Node.self)
        check(n.title == "Home screen" && n.count == 3, "Swift API node")
    } catch {
        fputs("SwiftBench: Swift API setup failed: \(error)\n", stderr)
        exit(1)
    }
    return [
        "swift.api.leaf": { sink = try? reg.create("Leaf", as: Leaf.self) },
        "swift.api.node5": { sink = try? reg.create("Node", as: Node.self) },
        "swift.api.singleton": { sink = try? reg.create("Single", as: Leaf.self) },
    ]
}

// MARK: hand-wired Swift

@inline(never) func makeLeaf() -> Leaf { Leaf() }
@inline(never) func makeNode(_ title: String, _ count: Int) -> Node {
    Node(a: makeLeaf(), b: makeLeaf(), title: title, count: count, ratio: 0.5)
}
nonisolated(unsafe) var handSingle: Single?

func handOps() -> [String: () -> Void] {
    [
        "swift.hand.leaf": { sink = makeLeaf() },
        "swift.hand.node5": { sink = makeNode("Home screen", 3) },
        "swift.hand.chain10": { sink = C9(C8(C7(C6(C5(C4(C3(C2(C1(C0()))))))))) },
        "swift.hand.singleton": {
            if handSingle == nil { handSingle = Single() }
            sink = handSingle
        },
        "swift.hand.diamond": {
            let s = Shared()
            sink = Pair(Left(Holder(s)), Right(Holder(s)))
        },
        "swift.hand.props_merged": { sink = makeNode("Overridden", 42) },
    ]
}

// MARK: main

/// The pairs of `SwiftBench pairs`, A over B. Add a row here (and its operation above) to add a pair.
let pairs: [(String, String)] = [
    ("swinject.leaf", "swift.cr.leaf"), ("swinject.node5", "swift.cr.node5"), ("swinject.chain10", "swift.cr.chain10"),
    ("swinject.singleton", "swift.cr.singleton"), ("swinject.diamond", "swift.cr.diamond"),
    ("swinject.props_merged", "swift.cr.props_merged"),
    ("swinject.leaf", "swift.api.leaf"), ("swinject.node5", "swift.api.node5"), ("swinject.singleton", "swift.api.singleton"),
    ("swift.cr.leaf", "swift.hand.leaf"), ("swift.cr.node5", "swift.hand.node5"), ("swift.cr.singleton", "swift.hand.singleton"),
    ("swift.api.node5", "swift.hand.node5"),
]

var ops: [String: () -> Void] = [:]
for part in [swinjectOps(), cabiOps(), swiftAPIOps(), handOps()] { ops.merge(part) { a, _ in a } }
let args = Array(CommandLine.arguments.dropFirst())
switch args.first ?? "" {
case "pairs":
    for (a, b) in pairs { pair(a, b, ops) }
case "cg-list":
    for name in ops.keys.sorted() { print(name) }
case "cg" where args.count == 3:
    // NAMES separated by commas: each N times in its own call of pb_measured_region, in order.
    guard let n = Int(args[2]) else {
        fputs("SwiftBench: bad count \(args[2])\n", stderr)
        exit(2)
    }
    for name in args[1].split(separator: ",").map(String.init) {
        guard let op = ops[name] else {
            fputs("SwiftBench: unknown operation \(name)\n", stderr)
            exit(2)
        }
        for _ in 0..<100 { op() }
        pb_measured_region(op, n)
    }
default:
    fputs("usage: SwiftBench pairs | cg-list | cg NAME N\n", stderr)
    exit(2)
}
