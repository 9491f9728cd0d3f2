#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns config text into a `ConfigDocument`: picks the format, runs its parser, reads files.
///
/// This is the whole loader layer's public face; it knows nothing of entries.
public enum ConfigLoader {
    /// Parses `bytes` as `format` (`.auto` sniffs the content). `file` names the source in locations.
    /// Problems that do not stop reading (duplicate keys) are thrown, unless `keepingProblems`:
    /// then the document carries them in `problems` for the caller to report with its own.
    /// Given `pairs`, a root map's pairs go to it as they are read and the document returned holds
    /// the root map alone (see `TopLevelPairSink`); if reading then fails, what the sink took is
    /// part of a document that does not exist.
    public static func parse(
        _ bytes: UnsafeRawBufferPointer, format: ConfigFormat, file: String = "<string>",
        limits: ConfigLimits = ConfigLimits(), keepingProblems: Bool = false, pairs: TopLevelPairSink? = nil
    ) throws(ConfigError) -> ConfigDocument {
        let doc = try parseDocument(bytes, format: format, file: SourceLocation.sourceName(file), limits: limits, pairs: pairs)
        if !keepingProblems && !doc.problems.isEmpty { throw ConfigError(doc.problems) }
        return doc
    }

    private static func parseDocument(
        _ bytes: UnsafeRawBufferPointer, format: ConfigFormat, file: String,
        limits: ConfigLimits, pairs: TopLevelPairSink?
    ) throws(ConfigError) -> ConfigDocument {
        if bytes.count > limits.maxInputBytes {
            throw ConfigError(
                .limit,
                "\(file): input of \(bytes.count) bytes exceeds the limit of \(limits.maxInputBytes) bytes"
                    + ConfigLimits.fix("CR_LIMIT_INPUT_BYTES"))
        }
        let chosen = format == .auto ? ConfigFormat.sniff(bytes) : format
        switch chosen {
        case .json, .auto: return try JSONParser.parse(bytes, file: file, limits: limits, pairs: pairs)
        case .yaml: return try YAMLParser.parse(bytes, file: file, limits: limits, pairs: pairs)
        case .plist: return try PlistParser.parse(bytes, file: file, limits: limits, pairs: pairs)
        }
    }

    /// Parses a byte array; see `parse(_:format:file:limits:)`.
    public static func parse(
        _ bytes: [UInt8], format: ConfigFormat, file: String = "<string>",
        limits: ConfigLimits = ConfigLimits(), keepingProblems: Bool = false, pairs: TopLevelPairSink? = nil
    ) throws(ConfigError) -> ConfigDocument {
        try withUnsafeBytesTyped(bytes) { (raw) throws(ConfigError) in
            try parse(raw, format: format, file: file, limits: limits, keepingProblems: keepingProblems, pairs: pairs)
        }
    }

    /// Parses a string; see `parse(_:format:file:limits:)`.
    public static func parse(
        _ text: String, format: ConfigFormat, file: String = "<string>",
        limits: ConfigLimits = ConfigLimits(), keepingProblems: Bool = false, pairs: TopLevelPairSink? = nil
    ) throws(ConfigError) -> ConfigDocument {
        try parse(Array(text.utf8), format: format, file: file, limits: limits, keepingProblems: keepingProblems, pairs: pairs)
    }

    /// Reads and parses the file at `path`. `.auto` uses the extension, else sniffs the content;
    /// `keepingProblems` as for `parse`.
    public static func load(
        path: String, format: ConfigFormat = .auto, limits: ConfigLimits = ConfigLimits(),
        keepingProblems: Bool = false
    ) throws(ConfigError) -> ConfigDocument {
        let bytes = try readFile(path, limit: limits.maxInputBytes)
        return try parse(
            bytes, format: self.format(of: path, given: format), file: SourceLocation.shownPath(path), limits: limits,
            keepingProblems: keepingProblems)
    }

    /// The format a file at `path` is read as: `given`, or for `.auto` the one its extension names
    /// (`.auto` again, to sniff the content, when it names none).
    public static func format(of path: String, given: ConfigFormat) -> ConfigFormat {
        given == .auto ? (ConfigFormat.fromExtension(of: path) ?? .auto) : given
    }

    /// Reads a whole regular file with the C library. Directories, FIFOs, devices, missing and
    /// unreadable files, and files over `limit` bytes are errors (`.io`, or `.limit` for size).
    public static func readFile(_ path: String, limit: Int = Int.max) throws(ConfigError) -> [UInt8] {
        if path.isEmpty { throw ConfigError(.io, "cannot read '': empty path; give the config file's path") }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 {
            let code = errno
            throw ConfigError(.io, "cannot open '\(SourceLocation.shownPath(path))': \(errnoText())" + openFix(code, path))
        }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) != 0 { throw ConfigError(.io, "cannot stat '\(SourceLocation.shownPath(path))': \(errnoText())") }
        let type = info.st_mode & S_IFMT
        if type == S_IFDIR {
            throw ConfigError(
                .io,
                "cannot read '\(SourceLocation.shownPath(path))': it is a directory; give the path of a config file inside it")
        }
        if type != S_IFREG {
            throw ConfigError(
                .io,
                "cannot read '\(SourceLocation.shownPath(path))': not a regular file (a FIFO, socket or device); read it yourself and load the text"
            )
        }
        let size = Int(info.st_size)
        if size > limit {
            throw ConfigError(
                .limit,
                "cannot read '\(SourceLocation.shownPath(path))': \(size) bytes exceeds the input limit of \(limit) bytes"
                    + ConfigLimits.fix("CR_LIMIT_INPUT_BYTES"))
        }
        if size == 0 { return try readUnsized(fd, path, limit: limit) }
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, size - done) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ConfigError(.io, "cannot read '\(SourceLocation.shownPath(path))': \(errnoText())")
            }
            if n == 0 { break }
            done += n
        }
        if done < size { bytes.removeLast(size - done) }
        return bytes
    }

    /// A regular file that says it holds 0 bytes, read to its end: empty, or one whose size the
    /// file system does not report (/proc, /sys, some FUSE mounts), which is not empty at all.
    private static func readUnsized(_ fd: Int32, _ path: String, limit: Int) throws(ConfigError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ConfigError(.io, "cannot read '\(SourceLocation.shownPath(path))': \(errnoText())")
            }
            if n == 0 { return bytes }
            if bytes.count + n > limit {
                throw ConfigError(
                    .limit,
                    "cannot read '\(SourceLocation.shownPath(path))': more than the input limit of \(limit) bytes"
                        + ConfigLimits.fix("CR_LIMIT_INPUT_BYTES"))
            }
            bytes += chunk[0..<n]
        }
    }

    /// What to do about a file `open` refused with `code`: the fix half of the message.
    static func openFix(_ code: Int32, _ path: String) -> String {
        switch code {
        case ENOENT, ENOTDIR:
            guard !path.hasPrefix("/") else { return "; check the path" }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            guard getcwd(&buffer, buffer.count) != nil else { return "; check the path" }
            let cwd = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            return "; check the path: a relative path is read from the current directory, '\(SourceLocation.shownPath(cwd))'"
        case EACCES, EPERM: return "; make the file readable by this process, or load a copy from a readable place"
        case ELOOP: return "; the path's symbolic links loop: fix the links"
        case ENAMETOOLONG: return "; shorten the path"
        case EMFILE, ENFILE: return "; the process has too many files open: close some, or raise the limit (ulimit -n)"
        default: return "; check the path and that this process can read the file"
        }
    }

    private static func errnoText() -> String {
        String(cString: strerror(errno))
    }
}

/// `withUnsafeBytes` that keeps the closure's typed error.
@inlinable
func withUnsafeBytesTyped<R>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(ConfigError) -> R) throws(ConfigError) -> R
{
    let result: Result<R, ConfigError> = bytes.withUnsafeBytes { raw in
        do throws(ConfigError) { return .success(try body(raw)) } catch { return .failure(error) }
    }
    return try result.get()
}
