/// The path of a file in Tests/Fixtures, found from this source file's path (no Foundation).
func fixturePath(_ name: String, file: String = #filePath) -> String {
    var path = Substring(file)
    while let slash = path.lastIndex(of: "/") {
        path = path[..<slash]
        if path.hasSuffix("/Tests") { break }
    }
    return String(path) + "/Fixtures/" + name
}
