/// The one check of an options struct's leading `version` field (cr_load_options,
/// cr_create_options): it is read first, because it says how much of the struct exists. Returns
/// false after recording CR_ERR_INVALID_ARGUMENT when the version is 0 or newer than the library
/// knows (then nothing else of the struct may be read or written).
@inline(__always)
func acceptsOptionsVersion(
    _ options: UnsafeRawPointer, known: UInt32, structName: StaticString, initMacro: StaticString,
    _ function: StaticString
) -> Bool {
    let version = options.load(as: UInt32.self)
    if version >= 1 && version <= known { return true }
    refuseOptionsVersion(version, known: known, structName: structName, initMacro: initMacro, function)
    return false
}

/// Records the refusal of an options version (out of line: the success path of every call that
/// takes options sets up no frame for the message).
@inline(never)
private func refuseOptionsVersion(
    _ version: UInt32, known: UInt32, structName: StaticString, initMacro: StaticString, _ function: StaticString
) {
    _ = fail(
        .invalidArgument,
        "\(function): options->version is \(version); this library knows \(structName) version \(known) (initialise with \(initMacro))"
    )
}
