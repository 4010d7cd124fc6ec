extension DatabaseFile {
    /// Reads and hashes every stored table's rows (``TableContentDigest``), as a conversion's
    /// verification does for its source and its result, and returns how many rows it read.
    ///
    /// For the benchmarks, which time the content digest apart from the conversions that
    /// compute it. Not public API: the digest itself is not a stable format.
    @_spi(Benchmarks)
    public static func digestContent(path: String, key: DatabaseKey?, cipher: CipherSettings = .libraryDefaults) throws -> Int {
        let db = try openForReading(path: path, key: key, cipher: cipher)
        defer { try? db.close() }
        // As a conversion reads its result: a large file's tables in halves, on two connections.
        let secondReader: DatabaseSnapshot.SecondReader = { body in
            let reader = try openForReading(path: path, key: key, cipher: cipher)
            defer { try? reader.close() }
            try body(reader)
        }
        let large = FileSystem.size(path) >= DatabaseSnapshot.secondReaderMinimumBytes
        return try DatabaseSnapshot.capture(db, comparingContent: true, upperHalves: large ? secondReader : nil).rowCounts.values.reduce(0, +)
    }
}
