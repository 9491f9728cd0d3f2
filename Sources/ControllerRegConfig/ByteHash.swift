/// A fast, non-cryptographic hash of a byte string (64-bit FNV-1a), shared by the duplicate-key
/// check and the registry's name table so both agree on what equal bytes are.
@inlinable
public func byteHash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in bytes {
        h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3
    }
    return h
}

/// `byteHash` of a NUL-terminated C string; also returns its length.
@inlinable
public func byteHash(cString: UnsafePointer<CChar>) -> (hash: UInt64, length: Int) {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    var p = UnsafeRawPointer(cString).assumingMemoryBound(to: UInt8.self)
    var n = 0
    while p.pointee != 0 {
        h = (h ^ UInt64(p.pointee)) &* 0x0000_0100_0000_01B3
        p += 1
        n += 1
    }
    return (h, n)
}
