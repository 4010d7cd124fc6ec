// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "CipherStore",
    // Synchronization's Atomic and Mutex need these; Linux has no minimum.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "CipherStore", targets: ["CipherStore"]),
        .library(name: "StatusFeed", targets: ["StatusFeed"]),
        .executable(name: "cipherstore", targets: ["cipherstore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        // `make docs`: the DocC catalog in Sources/CipherStore/CipherStore.docc.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // Key slots: AES-GCM, HKDF, SHA-256 (`Crypto`), scrypt and PBKDF2 (`CryptoExtras`).
        // 4.x: the first major version whose scrypt/PBKDF2 product has a stable name (3.x only
        // has `_CryptoExtras`).
        .package(url: "https://github.com/apple/swift-crypto", from: "4.0.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLCipher",
            pkgConfig: "sqlcipher",
            providers: [.apt(["libsqlcipher-dev"]), .brew(["sqlcipher"])]
        ),
        // The VFS layer of whole-file conversions, in C: batched writes, counted reads.
        .target(
            name: "CConversionIO",
            dependencies: ["CSQLCipher"]
        ),
        // The `cjk` full-text tokenizer (FTS3/4 and FTS5), in C: it runs once per character indexed.
        .target(
            name: "CCJKTokenizer",
            dependencies: ["CSQLCipher"]
        ),
        // The settings finder's search of every PBKDF2 iteration count, in C: SHA-1, SHA-256
        // and SHA-512 compressions and one AES block per count (SHA-NI and AES-NI on x86-64).
        .target(
            name: "CKeySearch"
        ),
        .target(
            name: "CipherStore",
            dependencies: [
                "CSQLCipher",
                "CConversionIO",
                "CCJKTokenizer",
                "CKeySearch",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "StatusFeed",
            dependencies: [
                "CipherStore",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "cipherstore",
            dependencies: [
                "CipherStore",
                "StatusFeed",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tools/cipherstore"
        ),
        // Helpers and fixtures shared by the test targets: child processes, shell commands, sample databases.
        .target(
            name: "TestSupport",
            dependencies: ["CipherStore"],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "CipherStoreTests",
            dependencies: ["CipherStore", "CKeySearch", "TestSupport", .product(name: "Logging", package: "swift-log"),
                           .product(name: "Crypto", package: "swift-crypto"), .product(name: "CryptoExtras", package: "swift-crypto")]
        ),
        .testTarget(
            name: "StatusFeedTests",
            dependencies: ["StatusFeed", "CipherStore"]
        ),
        .testTarget(
            name: "CipherstoreCLITests",
            dependencies: ["CipherStore", "TestSupport", "cipherstore", "crash-writer", "key-slot-changer", "readme-example", "waiting-reads", "interrupted-migration", "idle-observer"]
        ),
        // The README's example program, word for word (a test compares the two and runs it).
        .executableTarget(
            name: "readme-example",
            dependencies: ["CipherStore"],
            path: "Tests/ReadmeExample"
        ),
        // A child process for the crash tests: writes transactions until it is killed.
        .executableTarget(
            name: "crash-writer",
            dependencies: ["CipherStore"],
            path: "Tests/CrashWriter"
        ),
        // A child process for the pool's waiting test: counts its own threads, with no other test's beside them.
        .executableTarget(
            name: "waiting-reads",
            dependencies: ["CipherStore"],
            path: "Tests/WaitingReads"
        ),
        // A child process for the migration crash tests: stops inside a migration until it is killed.
        .executableTarget(
            name: "interrupted-migration",
            dependencies: ["CipherStore"],
            path: "Tests/InterruptedMigration"
        ),
        // A child process for the cross-process observation tests: measures an idle observation alone.
        .executableTarget(
            name: "idle-observer",
            dependencies: ["CipherStore"],
            path: "Tests/IdleObserver"
        ),
        // A child process for the key-slot crash tests: changes a passphrase until it is killed.
        .executableTarget(
            name: "key-slot-changer",
            dependencies: ["CipherStore"],
            path: "Tests/KeySlotChanger"
        ),
    ],
    swiftLanguageModes: [.v6]
)
