import CipherStore
import Foundation
import TestSupport
import Testing

/// An association whose key is also a column's name (`belongsTo(User.self)`, key `user`,
/// beside a `user` column): a value-typed property reads the column, a record-typed one the
/// association, as in GRDB.
@Suite struct AssociationColumnPrecedenceTests {
    struct User: Codable, Equatable, FetchableRecord, TableRecord {
        static let databaseTableName = "user"
        var id: Int64
        var name: String
    }

    struct Status: Codable, Equatable, FetchableRecord, TableRecord {
        static let databaseTableName = "status"
        static let author = belongsTo(User.self)
        var id: Int64
        var user: Int64?
        var text: String
    }

    /// The column and the association under the same key.
    struct StatusAndAuthor: Decodable, FetchableRecord {
        var status: Status
        var user: User?
    }

    func openDatabase() throws -> (TemporaryDirectory, DatabaseQueue) {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.path("precedence.db"), key: .passphrase("precedence"))
        try queue.inDatabase { db in
            try db.executeScript("""
                PRAGMA foreign_keys = OFF;
                CREATE TABLE user(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE status(id INTEGER PRIMARY KEY, user INTEGER REFERENCES user(id), text TEXT NOT NULL);
                INSERT INTO user VALUES (1, 'ann');
                INSERT INTO status VALUES (10, 1, 'hello'), (11, 99, 'orphan'), (12, NULL, 'nobody');
                PRAGMA foreign_keys = ON;
                """)
        }
        return (directory, queue)
    }

    @Test func aColumnNamedAsAnAssociationKeyKeepsItsValue() throws {
        let (_, queue) = try openDatabase()
        try queue.inDatabase { db in
            let request = Status.including(optional: Status.author).order(Column("id"))
            // The user column's value, not the (missing) association's nil.
            #expect(try request.fetchAll(db).map(\.user) == [1, 99, nil])
            let cursor = try request.fetchCursor(db)
            var fromCursor: [Int64?] = []
            while let status = try cursor.next() { fromCursor.append(status.user) }
            #expect(fromCursor == [1, 99, nil])
            // A record-typed property under the same key reads the association.
            let pairs = try request.asRequest(of: StatusAndAuthor.self).fetchAll(db)
            #expect(pairs.map(\.status.id) == [10, 11, 12])
            #expect(pairs.map(\.status.user) == [1, 99, nil])
            #expect(pairs.map(\.user) == [User(id: 1, name: "ann"), nil, nil])
        }
    }
}
