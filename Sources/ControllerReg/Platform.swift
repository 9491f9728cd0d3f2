#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The C library's `free`, callable where a type's own `free` shadows it.
@inlinable func libcFree(_ p: UnsafeMutableRawPointer?) { free(p) }
