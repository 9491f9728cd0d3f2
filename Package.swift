// swift-tools-version:6.1
import PackageDescription

// controllerreg: a config-driven object registry with a Swift core and a C ABI.
//
// Layers (data flows one way):
//   ControllerRegConfig  text -> value tree with source positions (YAML via libyaml, JSON, plist)
//   ControllerReg        entry decoder, registry transactions, compiled plans, resolver, Swift API
//   ControllerRegC       the C ABI (`cr_*`, @_cdecl) over ControllerReg; built as libcontrollerreg.so by CMake
//   ControllerRegTool    the `controllerreg` command's logic (check, gen, graph, convert, explain) over ControllerReg
//   ControllerRegCLI     the command line, Sources/controllerreg (product `controllerreg-cli`: the name
//                        `controllerreg` is the library's)
//
// The command line needs swift-argument-parser; nothing else does. It hangs on the trait
// `CommandLineTool` (on by default), so a package that wants the library alone depends on this one
// with `traits: []` and never resolves or fetches swift-argument-parser.
let package = Package(
    name: "controllerreg",
    products: [
        .library(name: "ControllerReg", targets: ["ControllerReg"]),
        .library(name: "controllerreg", type: .dynamic, targets: ["ControllerRegC"]),
        .executable(name: "controllerreg-cli", targets: ["ControllerRegCLI"]),
    ],
    traits: [
        .trait(name: "CommandLineTool", description: "The controllerreg command (needs swift-argument-parser)"),
        .default(enabledTraits: ["CommandLineTool"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
    ],
    targets: [
        .systemLibrary(
            name: "CYaml",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        .systemLibrary(name: "CControllerRegHeader"),
        // The epoch reader record's thread-local cache (header-only, imported by ControllerReg).
        .systemLibrary(name: "CThreadRecord"),
        .target(
            name: "ControllerRegConfig",
            dependencies: ["CYaml"]
        ),
        .target(
            name: "ControllerReg",
            dependencies: ["ControllerRegConfig", "CThreadRecord"]
        ),
        .target(
            name: "ControllerRegC",
            dependencies: ["ControllerReg", "CControllerRegHeader", "CThreadRecord"]
        ),
        .target(
            name: "ControllerRegTool",
            dependencies: ["ControllerReg", "CControllerRegHeader"]
        ),
        // Named apart from the library product `controllerreg` (SwiftPM warns every package that
        // depends on this one when an executable target and a library product share a name).
        .executableTarget(
            name: "ControllerRegCLI",
            dependencies: [
                "ControllerRegTool",
                .product(
                    name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["CommandLineTool"])),
            ],
            path: "Sources/controllerreg"
        ),
        .testTarget(
            name: "ControllerRegConfigTests",
            dependencies: ["ControllerRegConfig"]
        ),
        .testTarget(
            name: "ControllerRegTests",
            dependencies: ["ControllerReg"]
        ),
        .testTarget(
            name: "ControllerRegCTests",
            dependencies: ["ControllerRegC", "ControllerReg", "CControllerRegHeader"]
        ),
        .testTarget(
            name: "ControllerRegToolTests",
            dependencies: ["ControllerRegTool", "ControllerRegCLI"],
            exclude: ["Golden"]
        ),
    ]
)
