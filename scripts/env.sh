# Sourced by the scripts: puts the Swift toolchain on PATH if it is not there yet.
if ! command -v swiftc >/dev/null 2>&1 && [[ -x /opt/swift/usr/bin/swiftc ]]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi
