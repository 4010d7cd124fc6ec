/// The transactions that `read` and `write` of a queue or pool run their blocks in.
extension Connection {
    /// Runs `block` in a read-only transaction: one snapshot of the database for the whole
    /// block, and every statement that would change the database refused.
    ///
    /// `PRAGMA query_only` makes SQLite refuse writes with `SQLITE_READONLY`; that error is
    /// reported as ``CipherStoreError/writeInsideRead(sql:)``, and nothing is changed. The
    /// snapshot starts at once (not at the block's first read), so a block sees no commit made
    /// after it started.
    /// - Throws: the block's error, or ``CipherStoreError/writeInsideRead(sql:)``.
    func inReadOnlyTransaction<T>(_ block: (Connection) throws -> T) throws -> T {
        // Transaction observers hear nothing of a transaction that only reads.
        let broker = handle.hooks.broker
        let wasReadOnlyAccess = broker.isInReadOnlyAccess
        broker.isInReadOnlyAccess = true
        defer { broker.isInReadOnlyAccess = wasReadOnlyAccess }
        try beginTransaction(.deferred)
        do {
            try execute(sql: "PRAGMA query_only = ON")
            defer { try? ignoringInterrupts { try execute(sql: "PRAGMA query_only = OFF") } }
            _ = try fetchOne(sql: "SELECT 1 FROM sqlite_master LIMIT 1")
            let result: T
            do {
                result = try interruptibly(block)
            } catch let error as DatabaseError where error.resultCode.primaryResultCode == .SQLITE_READONLY {
                throw CipherStoreError.writeInsideRead(sql: error.sql ?? "")
            }
            // Nothing was written: ending the transaction only releases the snapshot.
            if isInTransaction { try commit() }
            return result
        } catch {
            if isInTransaction { try? ignoringInterrupts { try rollback() } }
            throw error
        }
    }

    /// Runs `block` in an immediate transaction and returns its result: committed when the
    /// block returns, rolled back when it throws.
    /// - Throws: the block's error (after the rollback), or ``DatabaseError`` when the commit
    ///   fails.
    func inImmediateTransaction<T>(_ block: (Connection) throws -> T) throws -> T {
        var result: T?
        try inTransaction(.immediate) {
            let value = try block(self)
            result = value
            // A block whose result is a completion decides, however it was spelled; an
            // optional completion, or one inside Any, is data.
            if T.self == TransactionCompletion.self, let completion = value as? TransactionCompletion { return completion }
            return .commit
        }
        return result!
    }
}
