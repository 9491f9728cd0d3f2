#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Nodes and string bytes of a document read in place: a whole `ConfigDocument`
/// (`ConfigDocument.withView`), or the part of one a `DocumentBuilder` hands to a
/// `TopLevelPairSink` while it is still reading. Node indices and string offsets are those of the
/// buffers it points into; it is valid only while they are (inside the call that gave it).
public struct DocumentView {
    /// The file name every location carries (where its owner keeps it: no reference count per view).
    private var filePointer: UnsafePointer<String>
    /// The file name every location carries.
    public var file: String { filePointer.pointee }
    /// The nodes, in pre-order (indices as in the document or builder they come from).
    public private(set) var nodes: UnsafeBufferPointer<ConfigNode>
    /// The string bytes the string nodes point into, each string NUL-terminated.
    public private(set) var strings: UnsafePointer<UInt8>
    /// The key nodes reported as duplicates among `nodes`, ascending.
    private var duplicateKeys: UnsafeBufferPointer<Int>

    /// A view of `nodes` and `strings` (loaders and `ConfigDocument.withView` make these).
    init(
        file: UnsafePointer<String>, nodes: UnsafeBufferPointer<ConfigNode>, strings: UnsafePointer<UInt8>,
        duplicateKeys: UnsafeBufferPointer<Int>
    ) {
        filePointer = file
        self.nodes = nodes
        self.strings = strings
        self.duplicateKeys = duplicateKeys
    }

    /// Reads what `view` reads (the next part of a document).
    public mutating func move(to view: DocumentView) {
        filePointer = view.filePointer
        nodes = view.nodes
        strings = view.strings
        duplicateKeys = view.duplicateKeys
    }

    /// Whether node `index` is a key reported as a duplicate.
    public func isDuplicateKey(_ index: Int) -> Bool {
        !duplicateKeys.isEmpty && containsDuplicateKey(from: index, to: index + 1)
    }

    /// Whether a duplicate key lies inside the subtree of container node `index`.
    public func hasDuplicateKey(inside index: Int) -> Bool {
        !duplicateKeys.isEmpty && nodes[index].isContainer && containsDuplicateKey(from: index + 1, to: Int(nodes[index].extent))
    }

    /// Whether a duplicate key's index lies in `from ..< to` (binary search).
    private func containsDuplicateKey(from: Int, to: Int) -> Bool {
        var low = 0, high = duplicateKeys.count
        while low < high {
            let mid = (low + high) / 2
            if duplicateKeys[mid] < from { low = mid + 1 } else { high = mid }
        }
        return low < duplicateKeys.count && duplicateKeys[low] < to
    }

    /// Where node `index` was written.
    public func location(of index: Int) -> SourceLocation {
        let n = nodes[index]
        return SourceLocation(file: filePointer.pointee, line: Int(n.line), column: Int(n.column))
    }

    /// The index of the next sibling of node `index` (one past its subtree).
    @inlinable public func next(after index: Int) -> Int {
        let n = nodes[index]
        return n.isContainer ? Int(n.extent) : index + 1
    }

    /// The indices of a list's elements.
    public func elements(of list: Int) -> [Int] {
        var result: [Int] = []
        result.reserveCapacity(nodes[list].count)
        var i = list + 1
        let end = Int(nodes[list].extent)
        while i < end {
            result.append(i)
            i = next(after: i)
        }
        return result
    }

    /// The (key, value) node indices of a map's pairs, in written order.
    public func pairs(of map: Int) -> [(key: Int, value: Int)] {
        var result: [(key: Int, value: Int)] = []
        result.reserveCapacity(nodes[map].count)
        var i = map + 1
        let end = Int(nodes[map].extent)
        while i < end {
            let value = i + 1
            result.append((i, value))
            i = next(after: value)
        }
        return result
    }

    /// The bytes of string node `index` (without the trailing NUL).
    @inlinable public func bytes(of index: Int) -> UnsafeBufferPointer<UInt8> {
        let n = nodes[index]
        return UnsafeBufferPointer(start: strings + Int(n.payload), count: Int(n.extent))
    }

    /// The text of string node `index`.
    public func string(at index: Int) -> String {
        String(decoding: bytes(of: index), as: UTF8.self)
    }

    /// Whether the string at `index` contains a NUL byte (without making a String).
    public func containsNul(at index: Int) -> Bool {
        let b = bytes(of: index)
        return b.count > 0 && memchr(b.baseAddress!, 0, b.count) != nil
    }

    /// The first byte of the string at `index`, or nil if it is empty.
    @inlinable public func firstByte(at index: Int) -> UInt8? {
        let n = nodes[index]
        return n.extent == 0 ? nil : strings[Int(n.payload)]
    }

    /// The string at `index` without its first Character, as `String(string(at:).dropFirst())`:
    /// byte-wise when the second byte is ASCII (then the first Character is the first byte).
    public func stringDroppingFirst(at index: Int) -> String {
        let b = bytes(of: index)
        if b.count <= 1 { return "" }
        if b[1] < 0x80 { return String(decoding: UnsafeBufferPointer(rebasing: b.dropFirst()), as: UTF8.self) }
        return String(String(decoding: b, as: UTF8.self).dropFirst())
    }

    /// Whether node `index` is a string with exactly the bytes of `text`.
    public func stringEquals(_ index: Int, _ text: StaticString) -> Bool {
        let b = bytes(of: index)
        return b.count == text.utf8CodeUnitCount && (b.count == 0 || memcmp(b.baseAddress!, text.utf8Start, b.count) == 0)
    }
}

/// Receives the pairs of a document's top-level map while a loader reads it
/// (`ConfigLoader.parse(_:format:file:limits:pairs:)`): each call hands over complete pairs
/// (key, value, key, value …) in written order, every pair exactly once. After the call their
/// nodes and bytes may be reused for the pairs read next, so a sink takes what it needs during it.
public protocol TopLevelPairSink: AnyObject {
    /// Takes the pairs whose nodes are `range` of `part` (keys at `range.lowerBound`, and then at
    /// each next sibling). A key whose name repeats an earlier top-level key is reported among the
    /// document's problems and is a duplicate key in `part` (`DocumentView.isDuplicateKey`), unless
    /// the sink `checksTopLevelKeys`.
    func take(_ part: DocumentView, pairs range: Range<Int>)

    /// Whether the sink finds repeated top-level keys itself (with the document's message,
    /// `Diagnostic.duplicateKey`, and its own table of the names it keeps anyway): then the loader
    /// does not, and no key in `part` is a duplicate key for that reason. false unless a sink says.
    var checksTopLevelKeys: Bool { get }
}

extension TopLevelPairSink {
    /// The loader finds repeated top-level keys (see the requirement).
    public var checksTopLevelKeys: Bool { false }
}
