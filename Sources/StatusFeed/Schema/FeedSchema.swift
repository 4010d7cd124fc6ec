import CipherStore

/// The feed's schema, as migrations.
///
/// - v1: the seed app's two tables, with foreign keys enforced and unique user names.
///   Removing a user removes their statuses (`ON DELETE CASCADE`): a status without its
///   author cannot be shown in the timeline.
/// - v2: `Status.clientMessageId`, added with `ALTER TABLE … ADD COLUMN` (as the seed article
///   does) and made unique by an index.
/// - v3: `Status.text`, `Status.user` and `Status.createdAt` become NOT NULL and the text
///   must not be empty: a constraint change SQLite 3.15.2 cannot make in place, done with
///   ``CipherStore/Connection/rebuildTable(_:as:copying:)``.
/// - v4: `StatusSearch`, a full-text index of `Status.text` for ``StatusService/search(_:limit:)``:
///   FTS4 (on every SQLCipher; FTS5 is SQLCipher 4's) with the `cjk` tokenizer, since the
///   statuses are Chinese. The text stays in `Status` (an external-content table); the
///   migration indexes the statuses already there, and triggers on `Status` keep the index in
///   step with every insert, update and delete, in the same transaction. A later rebuild of
///   `Status` with ``CipherStore/Connection/rebuildTable(_:as:copying:)`` keeps them (it
///   recreates the table's triggers, and rows keep their ids).
///
/// The feed keeps its schema version in `PRAGMA user_version` (1 to 4), as apps do: each
/// migration sets it, since the migrator leaves `user_version` to the app.
public enum FeedSchema {
    /// The name of migration v1.
    public static let v1 = "v1 users and statuses"
    /// The name of migration v2.
    public static let v2 = "v2 status client message id"
    /// The name of migration v3.
    public static let v3 = "v3 status constraints"
    /// The name of migration v4.
    public static let v4 = "v4 status search"

    /// The seed app's tables, as it created them, plus the unique name index it assumed.
    static let version1SQL = """
        CREATE TABLE IF NOT EXISTS User (Id integer PRIMARY KEY AUTOINCREMENT, name text, screenName text,
                                         profileImageUrl text, mbtype text, city text);
        CREATE TABLE IF NOT EXISTS Status (Id integer PRIMARY KEY AUTOINCREMENT, source text, createdAt date,
                                           "text" text, user integer REFERENCES User (Id) ON DELETE CASCADE);
        CREATE UNIQUE INDEX IF NOT EXISTS user_name ON User(name);
        CREATE INDEX IF NOT EXISTS status_user ON Status(user);
        CREATE INDEX IF NOT EXISTS status_timeline ON Status(createdAt, Id);
        """

    /// The migrator up to `version` (1 to 4).
    public static func migrator(upTo version: Int = 4) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration(v1) { db in
            try db.executeScript(version1SQL)
            try db.execute(sql: "PRAGMA user_version = 1")
        }
        guard version >= 2 else { return migrator }
        migrator.registerMigration(v2) { db in
            try db.execute(sql: "ALTER TABLE Status ADD COLUMN clientMessageId text")
            try db.execute(sql: "CREATE UNIQUE INDEX status_client_message ON Status(clientMessageId)")
            try db.execute(sql: "PRAGMA user_version = 2")
        }
        guard version >= 3 else { return migrator }
        migrator.registerMigration(v3) { db in
            try db.rebuildTable("Status", as: """
                CREATE TABLE Status (Id integer PRIMARY KEY AUTOINCREMENT, source text NOT NULL DEFAULT '',
                                     createdAt date NOT NULL, "text" text NOT NULL CHECK (length("text") > 0),
                                     user integer NOT NULL REFERENCES User (Id) ON DELETE CASCADE, clientMessageId text)
                """, copying: #"Id, coalesce(source, ''), createdAt, "text", user, clientMessageId"#)
            try db.execute(sql: "PRAGMA user_version = 3")
        }
        guard version >= 4 else { return migrator }
        migrator.registerMigration(v4) { db in
            try db.create(virtualTable: "StatusSearch", using: FTS4()) { t in
                t.synchronize(withTable: "Status")
                t.column("text")
                t.tokenizer = .cjk
            }
            try db.execute(sql: "PRAGMA user_version = 4")
        }
        return migrator
    }

    /// Brings a database to the current schema. A database the seed app created (its tables
    /// exist, no migration recorded) is adopted as v1 first.
    public static func migrate(_ database: any DatabaseWriter) throws {
        let migrator = migrator()
        try database.writeWithoutTransaction { db in
            if try migrator.appliedMigrations(db).isEmpty, try db.tableExists("User"), try db.tableExists("Status") {
                try db.executeScript(version1SQL)
                try migrator.markApplied([v1], in: db)
            }
            try migrator.migrate(db)
        }
    }
}
