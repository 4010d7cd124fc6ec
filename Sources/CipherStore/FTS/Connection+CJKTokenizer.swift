import CCJKTokenizer

extension Connection {
    /// Registers the `cjk` full-text tokenizer (FTS3/FTS4, and FTS5 where the library has it)
    /// and `fts4_rank`: called once by every connection as it opens, after the schema is read.
    ///
    /// See <doc:FullTextSearch>. Costs a few microseconds: two prepared statements and a
    /// function registration, no I/O.
    func registerFullTextSearch() throws {
        let db = try handle.pointer
        try handle.check(cipherstore_cjk_register(db))
    }
}
