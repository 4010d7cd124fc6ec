/// How a transaction takes its locks. See <https://www.sqlite.org/lang_transaction.html>.
public enum TransactionKind: String, Sendable {
    /// Locks are taken when first needed.
    case deferred = "DEFERRED"
    /// The write lock is taken at `BEGIN`: other writers wait, readers go on.
    case immediate = "IMMEDIATE"
    /// An exclusive lock is taken at `BEGIN`.
    case exclusive = "EXCLUSIVE"
}

/// What a transaction block asks for when it returns.
public enum TransactionCompletion: Sendable {
    /// Keep the block's changes.
    case commit
    /// Undo the block's changes.
    case rollback
}
