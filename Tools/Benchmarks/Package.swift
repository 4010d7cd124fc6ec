// swift-tools-version:6.1
// Benchmarks live in their own package so that users of CipherStore never resolve GRDB.
// GRDB links the system SQLite and CipherStore links SQLCipher: both export the same
// sqlite3_* symbols, so each library gets its own executable and is compared with a raw C
// baseline on its own library.
import PackageDescription

let package = Package(
    name: "CipherStoreBenchmarks",
    dependencies: [
        // `CipherStore` is a link to the repository root, so the package identity is stable.
        .package(path: "CipherStore"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        .target(name: "BenchSupport"),
        .executableTarget(
            name: "bench-cipherstore",
            dependencies: [
                "BenchSupport",
                .product(name: "CipherStore", package: "CipherStore"),
                .product(name: "StatusFeed", package: "CipherStore"),
            ]
        ),
        .executableTarget(
            name: "bench-grdb",
            dependencies: [
                "BenchSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
