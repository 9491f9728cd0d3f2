import ControllerReg

/// An edge between two entries, by name.
struct EdgePair: Hashable {
    var from: String
    var to: String
}

/// What the library's problems say about the graph's nodes and edges, read from each problem's
/// path (never from its message): the edges of every reported cycle, and for every singleton that
/// would keep a `graph` object its path and the object.
struct ProblemMarks {
    /// Edges along a reported cycle.
    var cycleEdges = Set<EdgePair>()
    /// Edges along a singleton's path to a `graph` entry it would keep.
    var lifetimeEdges = Set<EdgePair>()
    /// Singletons that would keep a `graph` object, and that object's name.
    var keptGraphObject: [String: String] = [:]

    init(_ problems: [Diagnostic]) {
        for p in problems where p.path.count >= 2 {
            switch p.code {
            case .cycle:
                for k in 1..<p.path.count { cycleEdges.insert(EdgePair(from: p.path[k - 1], to: p.path[k])) }
            case .lifetime:
                for k in 1..<p.path.count { lifetimeEdges.insert(EdgePair(from: p.path[k - 1], to: p.path[k])) }
                if keptGraphObject[p.path[0]] == nil { keptGraphObject[p.path[0]] = p.path[p.path.count - 1] }
            default:
                break
            }
        }
    }
}
