import Foundation

extension Connection {
    /// Opens a transaction. Prefer ``inTransaction(_:_:)``, which always ends it.
    public func beginTransaction(_ kind: TransactionKind = .deferred) throws {
        // SQLCipher 3.4.1 in rollback-journal mode: taking the lock while other processes
        // commit can, rarely, fail to decrypt the first page although this connection opened
        // with the right key (as at open, see init); on a loaded machine, several times in a
        // row while the others keep committing. More tries after growing pauses (2.35 s in all)
        // tell that apart from a file that really changed under the connection, which fails
        // every one.
        var pauses: [useconds_t] = [50_000, 100_000, 200_000, 400_000, 800_000, 800_000]
        while true {
            do {
                try execute(sql: "BEGIN \(kind.rawValue) TRANSACTION")
                return
            } catch ResultCode.SQLITE_NOTADB where isEncrypted && !isInTransaction && SQLCipherLibrary.sqlcipherMajorVersion == 3 && !pauses.isEmpty {
                usleep(pauses.removeFirst())
            }
        }
    }

    /// Commits the open transaction.
    public func commit() throws {
        try execute(sql: "COMMIT TRANSACTION")
    }

    /// Rolls back the open transaction.
    public func rollback() throws {
        try execute(sql: "ROLLBACK TRANSACTION")
    }

    /// Runs `body` in a transaction: commits when it returns `.commit`, rolls back when it
    /// returns `.rollback` or throws (and rethrows the error).
    ///
    /// ```swift
    /// try db.inTransaction(.immediate) {
    ///     try db.execute(sql: "UPDATE account SET balance = balance - 10 WHERE id = 1")
    ///     try db.execute(sql: "UPDATE account SET balance = balance + 10 WHERE id = 2")
    ///     return .commit
    /// }
    /// ```
    ///
    /// Failures of `BEGIN`, `COMMIT` and `ROLLBACK` are thrown, never swallowed; a failed
    /// commit is rolled back. Inside a transaction, nest work with ``inSavepoint(_:)``.
    /// - Throws: the body's error, a ``DatabaseError`` from begin or commit, or
    ///   ``CipherStoreError/rollbackFailed(bodyError:rollbackError:)``.
    public func inTransaction(_ kind: TransactionKind = .deferred, _ body: () throws -> TransactionCompletion) throws {
        try runTransaction(
            begin: { try beginTransaction(kind) },
            commit: { try commit() },
            rollback: { try rollback() },
            body: body)
    }

    /// Runs `body` in a savepoint, which nests inside a transaction (or starts one): rolling
    /// it back undoes only its own work.
    ///
    /// ```swift
    /// try db.inTransaction {
    ///     try db.execute(sql: "INSERT INTO log(line) VALUES ('kept')")
    ///     try db.inSavepoint {
    ///         try db.execute(sql: "INSERT INTO log(line) VALUES ('undone')")
    ///         return .rollback
    ///     }
    ///     return .commit
    /// }
    /// ```
    ///
    /// Savepoints are named after their depth (`cipherstore_savepoint_1`, `_2`…), so that
    /// the statements that open and close them are few and stay in the statement cache.
    public func inSavepoint(_ body: () throws -> TransactionCompletion) throws {
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        // Never from user input: the name is spliced into the SQL.
        let name = "cipherstore_savepoint_\(savepointDepth)"
        try runTransaction(
            begin: { try execute(sql: "SAVEPOINT \(name)") },
            commit: { try execute(sql: "RELEASE SAVEPOINT \(name)") },
            rollback: {
                try execute(sql: "ROLLBACK TO SAVEPOINT \(name)")
                try execute(sql: "RELEASE SAVEPOINT \(name)")
            },
            body: body)
    }

    private func runTransaction(begin: () throws -> Void, commit: () throws -> Void, rollback: () throws -> Void,
                                body: () throws -> TransactionCompletion) throws {
        try begin()
        let completion: TransactionCompletion
        do {
            // Cancelling an async call stops the body, never the begin, commit or rollback.
            completion = try interruptibly { _ in try body() }
        } catch {
            try rollbackAfterFailure(of: error, rollback: rollback)
            throw error
        }
        switch completion {
        case .commit:
            do {
                try commit()
            } catch {
                try rollbackAfterFailure(of: error, rollback: rollback)
                throw error
            }
        case .rollback:
            // SQLite may have rolled it back already (RAISE(ROLLBACK), INSERT OR ROLLBACK).
            if isInTransaction { try ignoringInterrupts(rollback) }
        }
    }

    private func rollbackAfterFailure(of error: any Error, rollback: () throws -> Void) throws {
        // SQLite may already have rolled the whole transaction back (e.g. after SQLITE_FULL).
        guard isInTransaction else { return }
        do {
            try ignoringInterrupts(rollback)
        } catch let rollbackError {
            throw CipherStoreError.rollbackFailed(bodyError: "\(error)", rollbackError: "\(rollbackError)")
        }
    }
}
