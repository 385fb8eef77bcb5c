// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "RecipeBox",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: "../CoreStack"),  // a checkout of CoreStack beside this folder
    ],
    targets: [
        .executableTarget(
            name: "recipebox",
            dependencies: [.product(name: "CoreStack", package: "CoreStack")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
