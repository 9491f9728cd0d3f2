/// The one message for a plist value a config cannot hold (`<date>`, `<data>`, and a binary
/// plist's UID and set objects), shared by the XML and binary parsers: the value, and the fix.
enum PlistUnsupportedValue {
    /// `kind` as the file names it: `<date>` / `<data>` in XML, `date`, `data`, `UID`, `set` in a
    /// binary plist.
    static func message(_ kind: String) -> String {
        let fix: String
        switch kind {
        case "<date>", "date":
            fix = "write the date as a literal string (<string>@2001-12-14T00:00:00Z</string>) and parse it in the class"
        case "<data>", "data":
            fix = "write the bytes as a literal string (<string>@aGVsbG8=</string>, base64) and decode them in the class"
        default:
            fix =
                "a config holds strings, numbers, booleans, arrays and dictionaries only (an NSKeyedArchiver archive is not a config)"
        }
        return "plist \(kind) values are not supported in configs: \(fix)"
    }
}
