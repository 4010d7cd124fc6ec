extension Passphrase {
    /// A passphrase from the content of a key file, by the rule of
    /// ``DatabaseKey/passphrase(keyFileContents:)``: the whole content minus one trailing `"\n"`
    /// or `"\r\n"`. So a key file made for `cipherstore keys` opens the slot database in a
    /// program too.
    ///
    /// The bytes are copied; wipe your own copy when done.
    /// - Throws: ``CipherStoreError/invalidKey(reason:)`` when nothing is left.
    public convenience init(keyFileContents: some BidirectionalCollection<UInt8>) throws {
        let passphrase = DatabaseKey.withoutTrailingLineEnd(keyFileContents)
        guard !passphrase.isEmpty else {
            throw CipherStoreError.invalidKey(reason: "it is empty once its trailing line ending is dropped. Give a non-empty passphrase.")
        }
        try self.init(bytes: passphrase)
    }
}
