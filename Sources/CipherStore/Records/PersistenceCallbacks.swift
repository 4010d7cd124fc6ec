/// Runs a record's `around` callback (`aroundInsert`, `aroundUpdate`, `aroundSave`,
/// `aroundDelete`) and holds it to its contract: it calls the closure it is given once, and
/// what the closure returned is the write's result.
enum PersistenceCallbacks {
    /// - Parameters:
    ///   - name: the callback's name, for the error.
    ///   - closureName: the closure's name as the callback sees it (`insert()`).
    ///   - record: the record type, for the error.
    ///   - callback: calls the record's callback with the closure.
    ///   - write: the write the closure runs.
    /// - Throws: what the callback throws; a ``DatabaseError`` (`SQLITE_MISUSE`) when it returns
    ///   without a successful call of the closure (nothing was written by it then), or calls it
    ///   again after a successful one (the second call is refused; the first one's write stays).
    static func around<Success>(_ name: String, calling closureName: String, of record: Any.Type,
                                _ callback: (() throws -> Success) throws -> Void, _ write: () throws -> Success) throws -> Success {
        var result: Success?
        var failure: (any Error)?
        // The closure does not outlive the callback: it is checked once the callback returns.
        try withoutActuallyEscaping(write) { write in
            try callback {
                guard result == nil else {
                    throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "\(name) of \(record) called \(closureName) a second time: the first call's write stands, the second was refused; call it once")
                }
                do {
                    let success = try write()
                    result = success
                    return success
                } catch {
                    failure = error
                    throw error
                }
            }
        }
        if let result { return result }
        if let failure {
            // What the closure wrote before its error (an insert whose aroundInsert threw after
            // it) is in the file unless an enclosing transaction is rolled back.
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "\(name) of \(record) returned after \(closureName) failed (\(failure)) without throwing: what \(closureName) wrote before it failed stays in the database unless a transaction around the write is rolled back; let the error propagate")
        }
        throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "\(name) of \(record) returned without calling \(closureName): it wrote nothing; call it once")
    }
}
