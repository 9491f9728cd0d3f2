// Swift benchmark: the create cases through Swinject, through controllerreg's C ABI (the @_cdecl
// functions called as Swift functions) and hand-wired, printing RESULT lines like the C benchmark.
#if canImport(Glibc)
import Glibc
#endif
import CControllerRegHeader
import ControllerRegC
import Swinject

// MARK: helpers

/// This thread's CPU time (as the C benchmark: a shared machine's other load is not counted);
/// BENCH_CLOCK=wall for wall time.
let caseClock: clockid_t = getenv("BENCH_CLOCK").map { String(cString: $0) } == "wall" ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID
func nowNs() -> Double {
    var ts = timespec()
    clock_gettime(caseClock, &ts)
    return Double(ts.tv_sec) * 1e9 + Double(ts.tv_nsec)
}

func rssBytes() -> Double {
    guard let f = fopen("/proc/self/statm", "r") else { return 0 }
    defer { fclose(f) }
    var pages = 0, resident = 0
    _ = withUnsafeMutablePointer(to: &pages) { p in withUnsafeMutablePointer(to: &resident) { r in
        withVaList([p, r]) { vfscanf(f, "%ld %ld", $0) } } }
    return Double(resident * sysconf(Int32(_SC_PAGESIZE)))
}

func emit(_ name: String, _ unit: String, _ samples: [Double], extra: String = "") {
    let list = samples.map { String(Double(Int($0 * 10000)) / 10000) }.joined(separator: ", ")
    print("RESULT {\"name\": \"\(name)\", \"unit\": \"\(unit)\", \"samples\": [\(list)]\(extra.isEmpty ? "" : ", " + extra)}")
    fflush(stdout)
}

let env = ProcessInfoLite()
struct ProcessInfoLite {
    func int(_ name: String, _ fallback: Int) -> Int {
        guard let v = getenv(name), let n = Int(String(cString: v)), n > 0 else { return fallback }
        return n
    }
}
let reps = min(64, env.int("BENCH_REPS", 9))
let iters = env.int("BENCH_ITERS", 200_000)

/// Stops on a failed setup step (a side effect never goes inside a precondition).
func check(_ ok: Bool, _ what: @autoclosure () -> String) {
    if !ok {
        fputs("SwiftBench: \(what()) failed: \(String(cString: ControllerRegC.cr_last_error_message()))\n", stderr)
        exit(1)
    }
}

nonisolated(unsafe) var sink: AnyObject?
nonisolated(unsafe) var rawSink: UnsafeMutableRawPointer?

@inline(never)
func runCase(_ name: String, _ n: Int, _ op: () -> Void) {
    for _ in 0 ..< max(1, n / 10) { op() }
    var samples: [Double] = []
    for _ in 0 ..< reps {
        let t0 = nowNs()
        for _ in 0 ..< n { op() }
        samples.append((nowNs() - t0) / Double(n))
    }
    emit(name, "ns/op", samples)
}

// MARK: the object graph, as Swift classes

final class Leaf { var id = 1 }
final class Node {
    let a: Leaf, b: Leaf
    let title: String, count: Int, ratio: Double
    init(a: Leaf, b: Leaf, title: String, count: Int, ratio: Double) {
        self.a = a; self.b = b; self.title = title; self.count = count; self.ratio = ratio
    }
}
final class Shared {}
final class Holder { let shared: Shared; init(_ s: Shared) { shared = s } }
final class Left { let h: Holder; init(_ h: Holder) { self.h = h } }
final class Right { let h: Holder; init(_ h: Holder) { self.h = h } }
final class Pair { let left: Left, right: Right; init(_ l: Left, _ r: Right) { left = l; right = r } }
final class Single {}
final class C0 {}; final class C1 { let n: C0; init(_ n: C0) { self.n = n } }
final class C2 { let n: C1; init(_ n: C1) { self.n = n } }; final class C3 { let n: C2; init(_ n: C2) { self.n = n } }
final class C4 { let n: C3; init(_ n: C3) { self.n = n } }; final class C5 { let n: C4; init(_ n: C4) { self.n = n } }
final class C6 { let n: C5; init(_ n: C5) { self.n = n } }; final class C7 { let n: C6; init(_ n: C6) { self.n = n } }
final class C8 { let n: C7; init(_ n: C7) { self.n = n } }; final class C9 { let n: C8; init(_ n: C8) { self.n = n } }

// MARK: Swinject

func swinject() {
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

    let n = iters / 10
    runCase("swinject.leaf", n) { sink = c.resolve(Leaf.self) }
    runCase("swinject.node5", n / 2) { sink = c.resolve(Node.self) }
    runCase("swinject.chain10", n / 5) { sink = c.resolve(C9.self) }
    runCase("swinject.singleton", n) { sink = c.resolve(Single.self) }
    runCase("swinject.diamond", n / 5) { sink = c.resolve(Pair.self) }
    runCase("swinject.props_merged", n / 2) { sink = c.resolve(Node.self, name: "props", arguments: "Overridden", 42) }
    let p = c.resolve(Pair.self)!
    check(p.left.h.shared === p.right.h.shared, "Swinject graph scope shares within one resolve")

    // Memory: RSS per resolve of the graph-scope diamond.
    let count = env.int("SWINJECT_SOAK", 1_000_000)
    let before = rssBytes()
    for _ in 0 ..< count { sink = c.resolve(Pair.self) }
    let after = rssBytes()
    emit("swinject.soak.diamond", "B/resolve", [(after - before) / Double(count)], extra: "\"resolves\": \(count)")
}

// MARK: controllerreg through its C ABI, from Swift

typealias CreateFn = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?
typealias DestroyFn = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void

struct CLeaf { var id: Int64 }
struct CNode { var a: UnsafeMutableRawPointer?; var b: UnsafeMutableRawPointer?; var title: (Int64, Int64, Int64); var count: Int64; var ratio: Double }

let leafCreate: CreateFn = { _, _ in
    let p = malloc(MemoryLayout<CLeaf>.size)!
    p.storeBytes(of: CLeaf(id: 1), as: CLeaf.self)
    return p
}
let plainDestroy: DestroyFn = { o, _ in free(o) }
let nodeCreate: CreateFn = { args, _ in
    let p = malloc(MemoryLayout<CNode>.size)!.bindMemory(to: CNode.self, capacity: 1)
    var n = CNode(a: ControllerRegC.cr_value_object(ControllerRegC.cr_map_get(args, "a")),
                  b: ControllerRegC.cr_value_object(ControllerRegC.cr_map_get(args, "b")),
                  title: (0, 0, 0),
                  count: ControllerRegC.cr_value_int(ControllerRegC.cr_map_get(args, "count")),
                  ratio: ControllerRegC.cr_value_double(ControllerRegC.cr_map_get(args, "ratio")))
    if let s = ControllerRegC.cr_value_string(ControllerRegC.cr_map_get(args, "title")) {
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
    free(n.pointee.a); free(n.pointee.b); free(o)
}
let linkCreate: CreateFn = { args, _ in
    let p = malloc(8)!
    let next = ControllerRegC.cr_map_get(args, "next")
    p.storeBytes(of: next.flatMap { ControllerRegC.cr_value_object($0) }, as: UnsafeMutableRawPointer?.self)
    return p
}
let linkDestroy: DestroyFn = { o, _ in
    var l = o
    while let c = l { l = c.load(as: UnsafeMutableRawPointer?.self); free(c) }
}
// Holder: (shared, owns); Pair: (left, right)
let holderCreate: CreateFn = { args, _ in
    let p = malloc(16)!.bindMemory(to: (UnsafeMutableRawPointer?, Int).self, capacity: 1)
    let s = ControllerRegC.cr_map_get(args, "shared")
    p.initialize(to: (ControllerRegC.cr_value_object(s), ControllerRegC.cr_value_owner(s) == 1 ? 1 : 0))
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
    p.initialize(to: (ControllerRegC.cr_value_object(ControllerRegC.cr_map_get(args, "left")),
                      ControllerRegC.cr_value_object(ControllerRegC.cr_map_get(args, "right"))))
    return UnsafeMutableRawPointer(p)
}
let pairDestroy: DestroyFn = { o, _ in
    guard let o else { return }
    let p = o.load(as: (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?).self)
    destroyHolder(p.0); destroyHolder(p.1); free(o)
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

func controllerreg() {
    let reg = ControllerRegC.cr_registry_new()
    func register(_ name: String, _ create: CreateFn, _ destroy: DestroyFn) {
        var cls = cr_class(create: create, destroy: destroy, set: nil, release: nil)
        check(ControllerRegC.cr_register_class(reg, name, &cls, nil) == 0, "register \(name)")
    }
    register("Leaf", leafCreate, plainDestroy)
    register("Node", nodeCreate, nodeDestroy)
    register("Link", linkCreate, linkDestroy)
    register("Holder", holderCreate, holderDestroy)
    register("Pair", pairCreate, pairDestroy)
    var text = config
    let rc = text.withUTF8 { u in
        ControllerRegC.cr_load_string(reg, UnsafeRawPointer(u.baseAddress!).assumingMemoryBound(to: CChar.self), u.count, cr_format(rawValue: 2))
    }
    check(rc == 0, "load")
    let props = ControllerRegC.cr_map_new()
    _ = ControllerRegC.cr_map_set_string(props, "title", "Overridden")
    _ = ControllerRegC.cr_map_set_int(props, "count", 42)

    // Names as C strings made once, as a C host passes them.
    let names: [UnsafeMutablePointer<CChar>] = ["Leaf", "Node", "Chain9", "Single", "Diamond"].map { (s: String) in strdup(s)! }
    let leaf = UnsafePointer(names[0]), node = UnsafePointer(names[1]), chain = UnsafePointer(names[2])
    let single = UnsafePointer(names[3]), diamond = UnsafePointer(names[4])
    for n in [leaf, node, chain, single, diamond] {
        check(ControllerRegC.cr_registry_create(reg, n, nil) != nil, "create")
    }
    runCase("swift.cr.leaf", iters * 5) { free(ControllerRegC.cr_registry_create(reg, leaf, nil)) }
    runCase("swift.cr.node5", iters) { nodeDestroy(ControllerRegC.cr_registry_create(reg, node, nil), nil) }
    runCase("swift.cr.chain10", iters / 2) { linkDestroy(ControllerRegC.cr_registry_create(reg, chain, nil), nil) }
    runCase("swift.cr.singleton", iters * 5) { rawSink = ControllerRegC.cr_registry_create(reg, single, nil) }
    runCase("swift.cr.diamond", iters / 2) { pairDestroy(ControllerRegC.cr_registry_create(reg, diamond, nil), nil) }
    runCase("swift.cr.props_merged", iters) { nodeDestroy(ControllerRegC.cr_registry_create(reg, node, props), nil) }
    ControllerRegC.cr_value_free(props)
    ControllerRegC.cr_registry_free(reg)
}

// MARK: hand-wired Swift

@inline(never) func makeLeaf() -> Leaf { Leaf() }
@inline(never) func makeNode(_ title: String, _ count: Int) -> Node {
    Node(a: makeLeaf(), b: makeLeaf(), title: title, count: count, ratio: 0.5)
}
nonisolated(unsafe) var handSingle: Single?

func handWired() {
    runCase("swift.hand.leaf", iters * 5) { sink = makeLeaf() }
    runCase("swift.hand.node5", iters * 2) { sink = makeNode("Home screen", 3) }
    runCase("swift.hand.chain10", iters) { sink = C9(C8(C7(C6(C5(C4(C3(C2(C1(C0()))))))))) }
    runCase("swift.hand.singleton", iters * 5) {
        if handSingle == nil { handSingle = Single() }
        sink = handSingle
    }
    runCase("swift.hand.diamond", iters) {
        let s = Shared()
        sink = Pair(Left(Holder(s)), Right(Holder(s)))
    }
    runCase("swift.hand.props_merged", iters * 2) { sink = makeNode("Overridden", 42) }
}

let which = CommandLine.arguments.dropFirst().first ?? "all"
if which == "all" || which == "swinject" { swinject() }
if which == "all" || which == "cr" { controllerreg() }
if which == "all" || which == "hand" { handWired() }
