// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "CoreStack",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CoreStack", targets: ["CoreStack"]),
        .library(name: "StackScope", targets: ["StackScope"]),
        .executable(name: "stackscope", targets: ["stackscope"]),
        .executable(name: "corestack-bench", targets: ["corestack-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    ],
    targets: [
        .target(
            name: "CoreStack",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .target(
            name: "StackScope",
            dependencies: ["CoreStack"]
        ),
        .executableTarget(
            name: "stackscope",
            dependencies: [
                "StackScope",
                "CoreStack",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "corestack-fuzz",
            dependencies: ["CoreStack"]
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
        .testTarget(
            name: "StackScopeTests",
            dependencies: ["StackScope", "CoreStack", "TestSupportKit"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
