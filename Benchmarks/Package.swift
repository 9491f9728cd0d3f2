// swift-tools-version:6.0
import PackageDescription

// The Swift side of controllerreg's benchmarks: Swinject against controllerreg's C ABI, its Swift
// API and hand-wired Swift construction, as interleaved A/B pairs (see README.md). A package of its own so the library never depends on Swinject.
// Run everything with scripts/bench.sh from the repository root.
let package = Package(
    name: "controllerreg-benchmarks",
    dependencies: [
        .package(name: "controllerreg", path: ".."),
        .package(url: "https://github.com/Swinject/Swinject", from: "2.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "SwiftBench",
            dependencies: [
                .product(name: "controllerreg", package: "controllerreg"),
                .product(name: "ControllerReg", package: "controllerreg"),
                .product(name: "Swinject", package: "Swinject"),
            ],
        )
    ],
    swiftLanguageModes: [.v5]
)
