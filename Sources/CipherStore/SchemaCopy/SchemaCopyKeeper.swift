/// Keeps the schema copy (``SchemaCopy``) of a queue's or pool's database current, from the
/// writing connection: after each block that changed the schema, and when it closes after
/// writes.
///
/// Keeping the copy never fails a block or a close: the copy is an aid to repair, and a copy
/// that could not be written (a read-only directory, a full disk) is simply older.
final class SchemaCopyKeeper: @unchecked Sendable {
    // @unchecked Sendable: used only by blocks on the writing connection's serial queue, one
    // at a time; `init` and `keyChanged` run there or before the connection is shared.
    private let path: String
    private let policy: SchemaCopyPolicy
    private var key: DatabaseKey
    private var cipher: CipherSettings
    /// Derived on first use: a passphrase is stretched once per keeper, only if it writes.
    private var sealingKey: SchemaCopyKey?
    private var copiedVersion: Int?
    private var changesAtCopy = 0
    private var isFinished = false

    /// A keeper for an encrypted, writable database file; `nil` for anything else or when the
    /// configuration keeps no copy.
    init?(location: DatabaseLocation, key: DatabaseKey?, configuration: Configuration) {
        guard configuration.schemaCopy != .off, !configuration.readOnly, case .file(let path) = location, let key else { return nil }
        self.path = path
        self.policy = configuration.schemaCopy
        self.key = key
        self.cipher = configuration.cipher
    }

    /// After a block on the writer: refreshes the copy when the block may have changed the
    /// schema and left no transaction open.
    func afterBlock(_ db: Connection) {
        guard !isFinished, db.handle.hooks.schemaMayHaveChanged, !db.isInTransaction else { return }
        db.handle.hooks.schemaMayHaveChanged = false
        refresh(db, counting: policy == .schemaAndRowCounts, onlyOnSchemaChange: true)
    }

    /// ``afterBlock(_:)`` as the closure the serial connection runs.
    var afterBlockHandler: @Sendable (Connection) -> Void {
        { [self] db in afterBlock(db) }
    }

    /// Before the writer closes: refreshes the copy (with row counts) when the connection
    /// wrote since the last copy, or when there is no copy yet.
    func beforeClose(_ db: Connection) {
        guard !isFinished else { return }
        defer { isFinished = true }
        let wrote = db.totalChangesCount != changesAtCopy || db.handle.hooks.schemaMayHaveChanged
        guard wrote || !FileSystem.exists(SchemaCopy.path(forDatabase: path)) else { return }
        refresh(db, counting: policy == .schemaAndRowCounts, onlyOnSchemaChange: false)
    }

    /// The pool reopened with another key (a key change replaced the file, and wrote a copy).
    func keyChanged(to key: DatabaseKey?, cipher: CipherSettings) {
        guard let key else {
            isFinished = true
            return
        }
        self.key = key
        self.cipher = cipher
        sealingKey = nil
        copiedVersion = nil
    }

    private func refresh(_ db: Connection, counting: Bool, onlyOnSchemaChange: Bool) {
        do {
            if onlyOnSchemaChange, let copiedVersion,
               try db.fetchScalar(Int.self, sql: "PRAGMA main.schema_version") == copiedVersion { return }
            if sealingKey == nil { sealingKey = try SchemaCopyKey.forDatabase(at: path, key: key, cipher: cipher, openOn: db) }
            guard let sealingKey else { return }
            let copy = try SchemaCopy.capture(db, counting: counting)
            try copy.write(forDatabase: path, key: sealingKey)
            copiedVersion = copy.schemaVersion
            changesAtCopy = db.totalChangesCount
        } catch {
            db.logger?.debug("schema copy not written", metadata: ["database": "\(path)", "reason": "\(error)"])
        }
    }
}
