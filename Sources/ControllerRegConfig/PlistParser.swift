/// Parses an Apple property list into a `ConfigDocument`: a `bplist00` header selects the binary
/// parser, anything else is read as XML.
enum PlistParser {
    static func parse(
        _ bytes: UnsafeRawBufferPointer, file: String, limits: ConfigLimits, pairs sink: TopLevelPairSink? = nil
    ) throws(ConfigError) -> ConfigDocument {
        if bytes.count >= 6, bytes.starts(with: "bplist".utf8) {
            guard bytes.count >= 8, bytes.starts(with: "bplist00".utf8) else {
                // The place is the version's two bytes, after the 6-byte magic "bplist".
                let version = String(decoding: bytes.prefix(8), as: UTF8.self)
                throw ConfigError(
                    .syntax,
                    "unsupported binary plist version '\(version)' (only bplist00 is supported): write the file as bplist00 (plutil -convert binary1) or as XML",
                    at: SourceLocation(file: file, line: 0, column: 6))
            }
            return try BinaryPlistParser.parse(bytes, file: file, limits: limits, pairs: sink)
        }
        return try XMLPlistParser.parse(bytes, file: file, limits: limits, pairs: sink)
    }
}
