// swift-tools-version: 6.1
import CompilerPluginSupport
import PackageDescription

/// `.ci/run`'s sanitizer builds run the engine suites only (`--filter CoreStackTests`): with
/// `CORESTACK_ENGINE_SUITES_ONLY=1` in the environment the package leaves out the model macros
/// (swift-syntax, built three times otherwise) and the browser's and macros' test targets, which
/// those runs would compile and never run (the AddressSanitizer build keeps the browser library,
/// `stackscope` and the fuzzers, which it runs too). With `CORESTACK_ENGINE_SUITES_ONLY=tests` it
/// also leaves out what the engine suites never start: the browser library and its C libraries,
/// `stackscope`, the fuzzers and the benchmarks (the ThreadSanitizer build: about 21,500 lines
/// fewer to compile). Every other build sees the whole package.
let engineSuitesMode = Context.environment["CORESTACK_ENGINE_SUITES_ONLY"]
let engineSuitesOnly = engineSuitesMode == "1" || engineSuitesMode == "tests"
let engineTestsOnly = engineSuitesMode == "tests"

let package = Package(
    name: "CoreStack",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CoreStack", targets: ["CoreStack"]),
        .library(name: "StackScope", targets: ["StackScope"]),
        .library(name: "CoreStackModel", targets: ["CoreStackModel"]),
        .executable(name: "stackscope", targets: ["stackscope"]),
        .executable(name: "corestack-bench", targets: ["corestack-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        // `swift package generate-documentation` for the DocC catalog (Sources/CoreStack/CoreStack.docc).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
    ],
    targets: [
        .target(
            name: "CoreStack",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "OrderedCollections", package: "swift-collections"),
                "CZlib",
            ]
        ),
        // The model macros (@Entity, @Model, @ParentEntity and their markers), compiled for the host. Kept out of
        // CoreStack's own dependencies so the engine and the browser build without swift-syntax.
        .macro(
            name: "CoreStackMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ]
        ),
        // A model declared once, in Swift: the macros' declarations, re-exporting CoreStack.
        .target(
            name: "CoreStackModel",
            dependencies: ["CoreStack", "CoreStackMacros"]
        ),
        // ncursesw for the browser's terminal backend (module map and C shim in Sources/CCurses).
        // No pkgConfig: its -D flags are dropped by SwiftPM with a warning, and the shim defines them.
        .systemLibrary(
            name: "CCurses",
            path: "Sources/CCurses",
            providers: [.apt(["libncursesw5-dev"])]
        ),
        // zlib from the system (zlib1g-dev), to inflate the model a Core Data store carries.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        // libchafa for pictures in the terminal (symbols in true/256/16 colours or none, sixel,
        // kitty); its pkg-config flags carry GLib's include folders.
        .systemLibrary(
            name: "CChafa",
            pkgConfig: "chafa",
            providers: [.apt(["libchafa-dev", "libglib2.0-dev"])]
        ),
        // The image format libraries (module map and header in Sources/CImageCodecs).
        .systemLibrary(
            name: "CImageCodecs",
            providers: [.apt(["libpng-dev", "libjpeg-dev", "libgif-dev", "libwebp-dev", "libheif-dev", "libtiff-dev"])]
        ),
        // The value inspector's image decoders and chafa calls, in C (libpng and libjpeg report
        // errors with longjmp); Swift sees only include/stackscope_images.h.
        .target(
            name: "CStackScopeImages",
            dependencies: ["CChafa", "CImageCodecs"],
            linkerSettings: [
                .linkedLibrary("png16"), .linkedLibrary("jpeg"), .linkedLibrary("gif"), .linkedLibrary("webp"),
                .linkedLibrary("webpdemux"), .linkedLibrary("heif"), .linkedLibrary("tiff"),
            ]
        ),
        .target(
            name: "StackScope",
            dependencies: ["CoreStack", "CCurses", "CStackScopeImages"]
        ),
        .executableTarget(
            name: "stackscope",
            dependencies: [
                "StackScope",
                "CoreStack",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The browser's headless benchmark (BENCHMARKS.md, "Browser").
        .executableTarget(
            name: "stackscope-bench",
            dependencies: [
                "StackScope",
                "CoreStack",
                // A real JPEG encoder (libjpeg) for the picture benchmark's 12-megapixel photo.
                "CImageFixtures",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "corestack-fuzz",
            dependencies: ["CoreStack", "StackScope", "CImageFixtures"]
        ),
        // Damaged-store fuzzer: mutates Tests/Fixtures/stores and runs each case in a child process.
        .executableTarget(
            name: "corestack-store-fuzz",
            dependencies: [
                "CoreStack",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .executableTarget(
            name: "corestack-stack-probe",
            dependencies: ["CoreStack"]
        ),
        // Another process for the migration crash test: migrates a store until it is killed.
        .executableTarget(
            name: "corestack-migrate-probe",
            dependencies: ["CoreStack"]
        ),
        // Many processes on one store (issue 35): writers, readers, openers, browsers, kill -9.
        .executableTarget(
            name: "corestack-torture",
            dependencies: ["CoreStack"]
        ),
        // Another process for the cross-process history tests and the remote-change benchmark.
        .executableTarget(
            name: "corestack-history-probe",
            dependencies: ["CoreStack"]
        ),
        .target(
            name: "CoreStackBenchKit",
            dependencies: [
                "CoreStack",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        .executableTarget(
            name: "corestack-bench",
            dependencies: [
                "CoreStackBenchKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The test targets' temporary folders, removed when a test process exits.
        .target(
            name: "TestSupportKit",
            path: "Tests/TestSupportKit"
        ),
        .testTarget(
            name: "CoreStackBenchKitTests",
            dependencies: ["CoreStackBenchKit", "TestSupportKit"]
        ),
        .testTarget(
            name: "CoreStackTests",
            dependencies: ["CoreStack", "TestSupportKit"]
        ),
        // The macros' expansions: expected source and diagnostics (swift-syntax's generic test
        // support, reporting through Swift Testing).
        .testTarget(
            name: "CoreStackMacrosTests",
            dependencies: [
                "CoreStackMacros",
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
            ]
        ),
        // Models declared with the macros: the demo against its .xcdatamodeld (hashes, tables),
        // versions through a staged migration.
        .testTarget(
            name: "CoreStackModelTests",
            dependencies: ["CoreStackModel", "TestSupportKit", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // Real encoders (libpng, libjpeg, giflib, libwebp, libheif, libtiff) for the image tests' fixtures.
        .target(
            name: "CImageFixtures",
            dependencies: ["CImageCodecs"],
            path: "Tests/CImageFixtures",
            linkerSettings: [
                .linkedLibrary("png16"), .linkedLibrary("jpeg"), .linkedLibrary("gif"), .linkedLibrary("webp"),
                .linkedLibrary("heif"), .linkedLibrary("tiff"),
            ]
        ),
        .testTarget(
            name: "StackScopeTests",
            dependencies: ["StackScope", "CoreStack", "TestSupportKit", "CImageFixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

if engineSuitesOnly {
    var leftOut: Set<String> = ["CoreStackMacros", "CoreStackModel", "CoreStackMacrosTests", "CoreStackModelTests", "StackScopeTests"]
    if engineTestsOnly {
        // The engine suites run CoreStack, TestSupportKit and the probes (corestack-stack-probe,
        // -migrate-probe, -history-probe, corestack-torture); nothing else.
        leftOut.formUnion([
            "StackScope", "stackscope", "stackscope-bench", "corestack-fuzz", "corestack-store-fuzz",
            "CoreStackBenchKit", "corestack-bench", "CoreStackBenchKitTests", "CImageFixtures",
            "CCurses", "CChafa", "CImageCodecs", "CStackScopeImages",
        ])
    }
    package.targets.removeAll { leftOut.contains($0.name) }
    package.products.removeAll { leftOut.contains($0.name) }
    // swift-syntax serves only the macros; swift-argument-parser only the tools and benchmarks.
    let unused = engineTestsOnly ? ["/swift-syntax", "/swift-argument-parser"] : ["/swift-syntax"]
    package.dependencies.removeAll { dependency in
        if case .sourceControl(_, let location, _) = dependency.kind { return unused.contains { location.hasSuffix($0) } }
        return false
    }
}
