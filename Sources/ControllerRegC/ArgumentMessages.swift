// The messages of refused C arguments, in one place: every entry point names itself, the parameter
// and the fix ("cr_registry_create: reg is NULL; pass a registry from cr_registry_new, ...").

/// What to pass instead of NULL for a parameter of that name (the header's parameter names).
private func nullFix(_ parameter: String) -> String {
    switch parameter {
    case "reg": return "pass a registry from cr_registry_new, cr_registry_new_child or cr_shared()"
    case "parent": return "pass the parent registry (from cr_registry_new or cr_shared())"
    case "name": return "pass the entry's name as a NUL-terminated UTF-8 string"
    case "class_name": return "pass the class's name as a NUL-terminated UTF-8 string"
    case "name_template": return "pass a template such as \"{name}ViewController\""
    case "key": return "pass the key as a NUL-terminated UTF-8 string"
    case "path": return "pass the config file's path as a NUL-terminated string"
    case "paths": return "pass an array of count paths (NULL only with count 0)"
    case "text": return "pass the config text (NULL only with length 0)"
    case "cls": return "pass a cr_class with its create callback set"
    case "provider": return "pass a provider read from args with cr_value_provider"
    case "object": return "pass the object to inject into"
    case "changes": return "pass the address of a cr_value * to receive the changes, or call cr_registry_reload"
    case "map":
        return "pass a map (a callback's args, a map read from them, or one from cr_map_new); "
            + "cr_map_get and cr_list_at return NULL for a key or index that is not there"
    case "list":
        return "pass a list (read from args, or one from cr_list_new); "
            + "cr_map_get and cr_list_at return NULL for a key or index that is not there"
    case "value":
        return "cr_map_get and cr_list_at return NULL for a key or index that is not there: "
            + "check the result, or ask cr_value_kind (CR_NULL for NULL) first"
    default:
        if parameter.hasPrefix("paths[") { return "every one of the count paths must be a NUL-terminated string" }
        return "pass a valid \(parameter)"
    }
}

/// The message of a NULL `parameter` of `function`: the function, the parameter, the fix.
func nullArgumentMessage(_ parameter: String, _ function: StaticString) -> String {
    "\(function): \(parameter) is NULL; \(nullFix(parameter))"
}

/// Records CR_ERR_INVALID_ARGUMENT for a NULL `parameter` of `function` and returns the code.
/// (Out of line: the success paths that check for NULL set up no frame for the message.)
@inline(never) @discardableResult
func nullArgument(_ parameter: String, _ function: StaticString) -> Int32 {
    fail(.invalidArgument, nullArgumentMessage(parameter, function))
}

/// The start of the message of an enum argument (`what`: format, lifestyle, limit) that no
/// constant has: the function, and the value as the host wrote it (a C enum is an int, so -1 reads
/// as -1, not as its unsigned bits).
func unknownEnumText(_ function: StaticString, _ what: StaticString, _ raw: UInt32) -> String {
    "\(function): unknown \(what) \(Int32(bitPattern: raw))"
}
