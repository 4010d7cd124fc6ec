extension Connection {
    /// A storage class of SQLite, in GRDB's spelling: what `cast(_:as:)` converts a value to.
    ///
    /// See <https://www.sqlite.org/datatype3.html>.
    public struct StorageClass: RawRepresentable, Hashable, Sendable {
        /// The SQL name (`INTEGER`, `REAL`, `TEXT`, `BLOB`).
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let integer = StorageClass(rawValue: "INTEGER")
        public static let real = StorageClass(rawValue: "REAL")
        public static let text = StorageClass(rawValue: "TEXT")
        public static let blob = StorageClass(rawValue: "BLOB")
    }
}
