@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// The query interface where a request could silently give another answer than its SQL:
/// nested optional joins, one association included twice, prefetch keys of another storage
/// class, grouped bulk writes, non-ASCII column names, `limit(0)`, ranges, and persistable
/// records that are also ``RowIDRecord``s.
@Suite struct QueryEdgeCaseTests {
    struct Country: Codable, Equatable, FetchableRecord, TableRecord {
        static let databaseTableName = "country"
        var code: String
        var name: String
    }

    struct Person: Codable, Equatable, FetchableRecord, TableRecord {
        static let databaseTableName = "person"
        static let country = belongsTo(Country.self)
        static let kids = hasMany(Kid.self)
        var id: Int64
        var name: String
        var countryCode: String?
    }

    struct Book: Codable, Equatable, FetchableRecord, TableRecord {
        static let databaseTableName = "book"
        static let author = belongsTo(Person.self, key: "author", using: ForeignKey(["authorId"]))
        static let translator = belongsTo(Person.self, key: "translator", using: ForeignKey(["translatorId"]))
        var id: Int64
        var title: String
        var score: Double
        var authorId: Int64?
        var translatorId: Int64?
    }

    struct Kid: Codable, Equatable, FetchableRecord, TableRecord {
        static let databaseTableName = "kid"
        var id: Int64
        var personId: String?
    }

    let directory: TemporaryDirectory
    let db: Connection

    init() throws {
        directory = try TemporaryDirectory()
        db = try Connection(path: directory.path("edge.db"), key: .rawKey(hex: String(repeating: "6f", count: 32)))
        try db.executeScript("""
            CREATE TABLE country(code TEXT PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT NOT NULL, countryCode TEXT REFERENCES country(code));
            CREATE TABLE book(id INTEGER PRIMARY KEY, title TEXT NOT NULL, score REAL NOT NULL, authorId INTEGER REFERENCES person, translatorId INTEGER REFERENCES person);
            CREATE TABLE kid(id INTEGER PRIMARY KEY, personId TEXT REFERENCES person(id));
            INSERT INTO country VALUES ('FR', 'France'), ('JP', 'Japan');
            INSERT INTO person VALUES (1, 'Hugo', 'FR'), (2, 'Soseki', 'JP'), (3, 'Nobody', NULL);
            INSERT INTO book VALUES (1, 'a', 1, 1, 2), (2, 'b', 2.5, 2, NULL), (3, 'c', 3, 3, 1), (4, 'd', 4, NULL, NULL), (5, 'e', 5, 1, NULL);
            INSERT INTO kid VALUES (10, '1'), (11, '1'), (12, '2'), (13, NULL);
            """)
    }

    @Test func aRequiredAssociationInsideAnOptionalOneIsRefusedNotRowsDropped() throws {
        let request = Book.including(optional: Book.author.including(required: Person.country))
        #expect {
            try request.fetchAll(db)
        } throws: { error in
            (error as? DatabaseError)?.message?.contains("a required association inside an optional one") == true
        }
        // Optional all the way keeps every book, as the hand-written LEFT JOINs do.
        let optional = Book.including(optional: Book.author.including(optional: Person.country))
        #expect(try optional.fetchCount(db) == 5)
        #expect(try Row.fetchAll(db, optional.order(Column("id"))).map(\.values) == (try db.fetchAll(sql:
            "SELECT book.*, person.*, country.* FROM book LEFT JOIN person ON person.id = book.authorId LEFT JOIN country ON country.code = person.countryCode ORDER BY book.id")).map(\.values))
    }

    @Test func theSameAssociationTwiceMergesAndTwoUnderOneKeyAreRefused() throws {
        // joining(required: filtered) then including(optional:) of the same association: one
        // required join with the filter, selected.
        let merged = Book.joining(required: Book.author.filter(Column("name") == "Hugo")).including(optional: Book.author)
        #expect(try merged.fetchAll(db).map(\.id) == (try db.fetchAll(Int64.self, sql: "SELECT book.id FROM book JOIN person ON person.id = book.authorId AND person.name = 'Hugo'")))
        let both = Book.joining(required: Book.author.filter(Column("name") == "Hugo")).joining(required: Book.author.filter(Column("countryCode") == "JP"))
        #expect(try both.fetchCount(db) == 0, "both filters apply")
        let clash = Book.including(optional: Book.author).including(optional: Book.translator.forKey("author"))
        #expect {
            try clash.fetchAll(db)
        } throws: { error in
            (error as? DatabaseError)?.message?.contains("two different associations use the key author") == true
        }
        // Two keys for the same table are two joins.
        struct Credits: Decodable, FetchableRecord { var book: Book; var author: Person?; var translator: Person? }
        let credits = try Book.including(optional: Book.author).including(optional: Book.translator).order(Column("id")).asRequest(of: Credits.self).fetchAll(db)
        #expect(credits.map { [$0.author?.id, $0.translator?.id] } == [[1, 2], [2, nil], [3, 1], [nil, nil], [1, nil]])
    }

    @Test func prefetchedRowsMatchTheirParentAsAJoinDoesAcrossStorageClasses() throws {
        struct PersonKids: Decodable, FetchableRecord { var person: Person; var kids: [Kid] }
        let fetched = try Person.including(all: Person.kids.order(Column("id"))).order(Column("id")).asRequest(of: PersonKids.self).fetchAll(db)
        let joined = try (1...3).map { id in try db.fetchAll(Int64.self, sql: "SELECT kid.id FROM person JOIN kid ON kid.personId = person.id WHERE person.id = ? ORDER BY kid.id", arguments: [id]) }
        #expect(fetched.map { $0.kids.map(\.id) } == joined)
        #expect(joined == [[10, 11], [12], []])
    }

    @Test func groupedBulkWritesAreRefusedAndChangeNothing() throws {
        let grouped = Book.all().group(Column("authorId")).having(count(Column("id")) > 1)
        #expect(throws: DatabaseError.self) { try grouped.deleteAll(self.db) }
        #expect(throws: DatabaseError.self) { try grouped.updateAll(self.db, Column("score").set(to: 0)) }
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM book WHERE score > 0") == 5)
    }

    @Test func aNameSQLiteDoesNotFoldIsNotAColumn() throws {
        try db.execute(sql: #"CREATE TABLE uni(id INTEGER PRIMARY KEY, "Ä" TEXT, key TEXT)"#)
        try db.execute(sql: #"INSERT INTO uni VALUES (1, 'x', 'k1'), (2, 'y', 'k2')"#)
        struct Uni: Codable, FetchableRecord, TableRecord { static let databaseTableName = "uni"; var id: Int64 }
        for name in ["ä", "\u{212A}ey"] {
            #expect {
                try Uni.filter(Column(name) != "x").deleteAll(self.db)
            } throws: { error in
                (error as? DatabaseError)?.message?.contains("no such column: \(name)") == true
            }
        }
        #expect(try Uni.filter(Column("Ä") == "x").fetchCount(db) == 1)
        #expect(try Uni.filter(Column("KEY") == "k2").fetchCount(db) == 1, "ASCII case still folds")
        #expect(try Uni.fetchCount(db) == 2)
    }

    @Test func limitZeroAndRangesMeanWhatTheySay() throws {
        #expect(try Book.limit(0).fetchOne(db) == nil)
        #expect(try Book.limit(0).isEmpty(db))
        #expect(try Row.fetchOne(db, Book.limit(0)) == nil)
        // A closed range is BETWEEN (2.5 is in 1...3), a half-open one excludes its upper bound.
        #expect(try Book.filter((1...3).contains(Column("score"))).fetchAll(db).map(\.id) == [1, 2, 3])
        #expect(try Book.filter((1.0..<3.0).contains(Column("score"))).fetchAll(db).map(\.id) == [1, 2])
        #expect(try Book.filter((0...100_000).contains(Column("id"))).fetchCount(db) == 5, "a wide range binds two values, not every integer")
    }

    @Test func aNestedAssociationDecodesBesideTheOthers() throws {
        struct BookInfo: Decodable, FetchableRecord { var book: Book; var author: Person; var country: Country? }
        let infos = try Book.including(required: Book.author.including(optional: Person.country)).order(Column("id")).asRequest(of: BookInfo.self).fetchAll(db)
        #expect(infos.map(\.country?.code) == ["FR", "JP", nil, "FR"])
    }

    @Test func bulkWritesWithAnOrderOnATableWithoutRowid() throws {
        try db.execute(sql: "CREATE TABLE tag(code TEXT PRIMARY KEY, uses INTEGER NOT NULL) WITHOUT ROWID")
        try db.execute(sql: "INSERT INTO tag VALUES ('a', 3), ('b', 1), ('c', 2)")
        struct Tag: Codable, FetchableRecord, TableRecord { static let databaseTableName = "tag"; var code: String; var uses: Int }
        #expect(try Tag.order(Column("uses")).limit(2).deleteAll(db) == 2)
        #expect(try db.fetchAll(String.self, sql: "SELECT code FROM tag") == ["a"])
    }

    @Test func aPersistableRowIDRecordGetsItsIDAndSaveDoesNotDuplicate() throws {
        struct Place: Codable, FetchableRecord, PersistableRecord, RowIDRecord {
            static let databaseTableName = "place"
            var id: Int64?
            var title: String
        }
        final class Calls { var willSave = 0 }
        struct Logged: Codable, FetchableRecord, MutablePersistableRecord, RowIDRecord {
            static let databaseTableName = "place"
            var id: Int64?
            var title: String
            var calls = Calls()
            enum CodingKeys: String, CodingKey { case id, title }
            mutating func willSave(_ db: Database) throws { calls.willSave += 1 }
        }
        try db.execute(sql: "CREATE TABLE place(id INTEGER PRIMARY KEY, title TEXT NOT NULL)")
        var place = Place(id: nil, title: "a")
        try place.insert(db)
        #expect(place.id == 1)
        var other = Place(id: nil, title: "b")
        try other.save(db)
        try other.save(db)
        #expect(other.id == 2)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM place") == 2)

        var logged = Logged(id: 9, title: "gone")
        try logged.save(db)   // no row 9: update finds none, then insert
        #expect(logged.calls.willSave == 1)
        #expect(try db.fetchScalar(String.self, sql: "SELECT title FROM place WHERE id = 9") == "gone")
    }
}
