import CipherStore

/// The linked SQLCipher, for tests that hold for one major version only (each has its
/// counterpart for the other, named in its reason).
public enum LinkedSQLCipher {
    public static var isVersion3: Bool { SQLCipherLibrary.sqlcipherMajorVersion == 3 }
    public static var isVersion4: Bool { SQLCipherLibrary.sqlcipherMajorVersion >= 4 }
}
