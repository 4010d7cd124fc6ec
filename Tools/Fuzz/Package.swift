// swift-tools-version:6.0
// The fuzz target lives in its own package: it has no `main` (libFuzzer provides one) and is
// built only with `-sanitize=fuzzer` (see `make fuzz`).
import PackageDescription

let package = Package(
    name: "CipherStoreFuzz",
    dependencies: [.package(path: "CipherStore")],
    targets: [
        .executableTarget(
            name: "fuzz-open",
            dependencies: [.product(name: "CipherStore", package: "CipherStore")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
