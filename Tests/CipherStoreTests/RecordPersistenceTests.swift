import CipherStore
import Foundation
import TestSupport
import Testing

/// Inserting sets a nil id from the rowid; update and delete find their row by primary key
/// and say so when they cannot; records fetch themselves.
@Suite struct RecordPersistenceTests {
    struct Note: Codable, Equatable, RowIDRecord, FetchableRecord {
        var id: Int64?
        var body: String
    }

    /// An `Int` id, with a differently spelled key column.
    struct Tag: Codable, Equatable, RowIDRecord {
        var id: Int?
        var name: String
        enum CodingKeys: String, CodingKey { case id = "Id", name }
    }

    struct Tiny: Codable, RowIDRecord {
        var id: Int8?
        var body: String
    }

    struct Untitled: Codable { var body: String }

    let db: Connection

    init() throws {
        db = try Connection(location: .inMemory, key: .passphrase("records"))
        try db.executeScript("""
            CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL);
            CREATE TABLE tag(Id INTEGER PRIMARY KEY, name TEXT UNIQUE);
            """)
    }

    func notes() throws -> [Note] { try Note.fetchAll(db, sql: "SELECT * FROM note ORDER BY id") }

    @Test func insertingARecordWithANilIDSetsItFromTheRowID() throws {
        var first = Note(id: nil, body: "first")
        var second = Note(id: nil, body: "second")
        try db.insert(&first, into: "note")
        try db.insert(&second, into: "note")
        #expect(first.id == 1)
        #expect(second.id == 2)
        #expect(try notes() == [first, second])
        // A set id is kept.
        var chosen = Note(id: 10, body: "chosen")
        try db.insert(&chosen, into: "note")
        #expect(chosen.id == 10)
        var tag = Tag(id: nil, name: "swift")
        try db.insert(&tag, into: "tag")
        #expect(tag.id == 1)
    }

    @Test func aFailedInsertLeavesTheIDNil() throws {
        var tag = Tag(id: nil, name: "dup")
        try db.insert(&tag, into: "tag")
        var duplicate = Tag(id: nil, name: "dup")
        #expect(throws: DatabaseError.self) { try db.insert(&duplicate, into: "tag") }
        #expect(duplicate.id == nil)
    }

    @Test func aRowIDTheIDTypeCannotHoldIsAClearError() throws {
        try db.execute(sql: "INSERT INTO note(id, body) VALUES (200, 'high')")
        var tiny = Tiny(id: nil, body: "next")
        #expect(throws: RecordError.rowIDOutOfRange(table: "note", rowID: 201, idType: "Int8")) { try db.insert(&tiny, into: "note") }
        #expect(tiny.id == nil)
    }

    @Test func updateAndDeleteFindTheirRowByPrimaryKey() throws {
        var note = Note(id: nil, body: "draft")
        try db.insert(&note, into: "note")
        var other = Note(id: nil, body: "other")
        try db.insert(&other, into: "note")
        note.body = "final"
        try db.update(note, in: "note")
        #expect(try notes() == [note, other])
        try db.delete(note, from: "note")
        #expect(try notes() == [other])
        try db.deleteOne(from: "note", key: other.id)
        #expect(try notes().isEmpty)
        var tag = Tag(id: nil, name: "a")
        try db.insert(&tag, into: "tag")
        tag.name = "b"
        try db.update(tag, in: "tag", primaryKey: "Id")
        #expect(try db.fetchScalar(String.self, sql: "SELECT name FROM tag") == "b")
    }

    @Test func updatingAnOptionalToNilStoresNull() throws {
        struct Labelled: Codable, RowIDRecord { var id: Int64?; var name: String?; var weight: Double? }
        try db.execute(sql: "CREATE TABLE labelled(id INTEGER PRIMARY KEY, name TEXT DEFAULT 'unnamed', weight REAL)")
        var record = Labelled(id: nil, name: "x", weight: 2)
        try db.insert(&record, into: "labelled")
        record.name = nil
        record.weight = nil
        try db.update(record, in: "labelled")
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM labelled WHERE name IS NULL AND weight IS NULL") == 1)
        // Inserted as NULL too, not as the column's default: the row is what the record says.
        var empty = Labelled(id: nil, name: nil, weight: nil)
        try db.insert(&empty, into: "labelled")
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM labelled WHERE name IS NULL") == 2)
    }

    @Test func aMissingRowIsAnErrorAndChangesNothing() throws {
        var note = Note(id: nil, body: "kept")
        try db.insert(&note, into: "note")
        let gone = Note(id: 99, body: "gone")
        #expect(throws: RecordError.rowNotFound(table: "note", primaryKey: "id")) { try db.update(gone, in: "note") }
        #expect(throws: RecordError.rowNotFound(table: "note", primaryKey: "id")) { try db.delete(gone, from: "note") }
        let error = try #require(throws: RecordError.self) { try db.deleteOne(from: "note", key: 99) }
        #expect(error.description.hasPrefix("No row of note has the record's id, so nothing was changed."))
        #expect(!error.description.contains("99"))
        #expect(try notes() == [note])
    }

    @Test func anAbsentOrNilKeyIsAnError() throws {
        #expect(throws: RecordError.nilPrimaryKey(table: "note", primaryKey: "id")) { try db.update(Note(id: nil, body: "x"), in: "note") }
        #expect(throws: RecordError.nilPrimaryKey(table: "note", primaryKey: "id")) { try db.delete(Note(id: nil, body: "x"), from: "note") }
        #expect(throws: RecordError.nilPrimaryKey(table: "note", primaryKey: "id")) { try db.deleteOne(from: "note", key: Int?.none) }
        #expect(throws: RecordError.missingPrimaryKey(table: "note", primaryKey: "id", recordType: "Untitled")) {
            try db.update(Untitled(body: "x"), in: "note")
        }
    }

    @Test func recordsFetchThemselvesAsTheConnectionFetchesThem() throws {
        for body in ["a", "b", "c"] {
            var note = Note(id: nil, body: body)
            try db.insert(&note, into: "note")
        }
        let sql = "SELECT * FROM note WHERE id >= ? ORDER BY id"
        #expect(try Note.fetchAll(db, sql: sql, arguments: [2]) == db.fetchAll(Note.self, sql: sql, arguments: [2]))
        #expect(try Note.fetchAll(db, sql: sql, arguments: [2]).map(\.body) == ["b", "c"])
        #expect(try Note.fetchOne(db, sql: sql, arguments: [3]) == Note(id: 3, body: "c"))
        #expect(try Note.fetchOne(db, sql: sql, arguments: [4]) == nil)
        let cursor = try Note.fetchCursor(db, sql: sql, arguments: [1])
        var bodies: [String] = []
        while let note = try cursor.next() { bodies.append(note.body) }
        #expect(bodies == ["a", "b", "c"])
        #expect(throws: RecordDecodingError.self) { try Note.fetchAll(db, sql: "SELECT id FROM note") }
    }
}
