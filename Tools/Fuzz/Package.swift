// swift-tools-version:6.0
// The fuzz targets live in their own package, built only with `-sanitize=fuzzer` (see
// `make fuzz`): one executable, whose first argument names the target (open, slots, pages,
// records, repair, repair-structured, tokenizer); libFuzzer's own driver runs it.
import PackageDescription

let package = Package(
    name: "CipherStoreFuzz",
    dependencies: [.package(path: "CipherStore")],
    targets: [
        .executableTarget(
            name: "fuzz",
            dependencies: [.product(name: "CipherStore", package: "CipherStore")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
