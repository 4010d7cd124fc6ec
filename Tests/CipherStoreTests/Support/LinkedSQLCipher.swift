import CipherStore

/// The linked SQLCipher, for tests that hold for one major version only (each has its
/// counterpart for the other, named in its reason).
enum LinkedSQLCipher {
    static var isVersion3: Bool { SQLCipherLibrary.sqlcipherMajorVersion == 3 }
    static var isVersion4: Bool { SQLCipherLibrary.sqlcipherMajorVersion >= 4 }
}
