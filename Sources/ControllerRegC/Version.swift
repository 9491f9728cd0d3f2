import var CControllerRegHeader.CR_VERSION_NUMBER
import var CControllerRegHeader.CR_VERSION_STRING

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The library's version, taken from the header's macros (which a test checks against CMake's
// project version, the one source), so the run-time answer cannot drift from the header.

/// CR_VERSION_STRING as a C string with static storage ("" if it could not be allocated).
private nonisolated(unsafe) let versionCString: UnsafePointer<CChar>? = strdup(CR_VERSION_STRING).map { UnsafePointer($0) }
private let emptyVersion: StaticString = ""

@_cdecl("cr_version")
public func cr_version() -> UnsafePointer<CChar> {
    versionCString ?? UnsafeRawPointer(emptyVersion.utf8Start).assumingMemoryBound(to: CChar.self)
}

@_cdecl("cr_version_number")
public func cr_version_number() -> Int32 {
    CR_VERSION_NUMBER
}
