extension DatabaseWriter {
    /// Runs `block` in an immediate transaction that it decides: committed when it returns
    /// `.commit`, rolled back when it returns `.rollback` or throws. The same as
    /// `inTransaction(.immediate)`, for a `write` block that returns a ``TransactionCompletion``.
    /// (The generic `write` also rolls back a block whose result is `.rollback`, however it is
    /// typed; this form lets Swift infer `return .rollback` at all.)
    ///
    /// ```swift
    /// try queue.write { db in
    ///     try db.execute(sql: "DELETE FROM note")
    ///     return isConfirmed ? .commit : .rollback
    /// }
    /// ```
    /// - Returns: what the block returned.
    // Disfavored: a block whose result type Swift can infer otherwise (a multi-statement
    // block that returns nothing) takes the generic `write(_:)`.
    @_disfavoredOverload
    @discardableResult
    public func write(_ block: (Connection) throws -> TransactionCompletion) throws -> TransactionCompletion {
        try writeWithoutTransaction { db in try Self.run(block, on: db) }
    }

    /// The `async` form of `write(_:)` for a block that returns a ``TransactionCompletion``.
    @_disfavoredOverload
    @discardableResult
    public func write(_ block: @escaping @Sendable (Connection) throws -> TransactionCompletion) async throws -> TransactionCompletion {
        try await writeWithoutTransaction { db in try Self.run(block, on: db) }
    }

    private static func run(_ block: (Connection) throws -> TransactionCompletion, on db: Connection) throws -> TransactionCompletion {
        var completion = TransactionCompletion.rollback
        try db.inTransaction(.immediate) {
            completion = try block(db)
            return completion
        }
        return completion
    }
}
