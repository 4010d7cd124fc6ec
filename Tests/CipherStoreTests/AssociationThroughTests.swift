@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// Associations through others (`hasMany(_:through:using:)`, `hasOne(_:through:using:)`):
/// each request's SQL checked against the hand-written SQL, and its records against what that
/// SQL fetches, on the linked SQLCipher.
@Suite struct AssociationThroughTests {
    struct Library: Codable, Hashable, FetchableRecord, TableRecord {
        static let databaseTableName = "library"
        static let authors = hasMany(Author.self)
        static let books = hasMany(Book.self, through: authors, using: Author.books)
        static let countries = hasMany(Country.self, through: authors, using: Author.country)
        /// Three steps: library → author → book → bookTag → tag.
        static let tags = hasMany(Tag.self, through: books, using: Book.tags)
        var id: Int64
        var name: String
    }

    struct Author: Codable, Hashable, FetchableRecord, TableRecord {
        static let databaseTableName = "author"
        static let books = hasMany(Book.self)
        static let country = belongsTo(Country.self)
        var id: Int64
        var libraryId: Int64?
        var countryCode: String?
        var name: String
    }

    struct Book: Codable, Hashable, FetchableRecord, TableRecord {
        static let databaseTableName = "book"
        static let author = belongsTo(Author.self)
        static let country = hasOne(Country.self, through: author, using: Author.country)
        static let bookTags = hasMany(BookTag.self)
        static let tags = hasMany(Tag.self, through: bookTags, using: BookTag.tag)
        var id: Int64
        var authorId: Int64?
        var title: String
        var year: Int
    }

    struct Country: Codable, Hashable, FetchableRecord, TableRecord {
        static let databaseTableName = "country"
        var code: String
        var name: String
    }

    struct BookTag: Codable, Hashable, FetchableRecord, TableRecord {
        static let databaseTableName = "bookTag"
        static let tag = belongsTo(Tag.self)
        var bookId: Int64
        var tagId: Int64
        var weight: Int
    }

    struct Tag: Codable, Hashable, FetchableRecord, TableRecord {
        static let databaseTableName = "tag"
        var id: Int64
        var label: String
    }

    let directory: TemporaryDirectory
    let db: Connection

    init() throws {
        directory = try TemporaryDirectory()
        db = try Connection(path: directory.path("through.db"), key: .rawKey(hex: String(repeating: "4d", count: 32)))
        try db.executeScript("""
            CREATE TABLE library(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE country(code TEXT PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE author(id INTEGER PRIMARY KEY, libraryId INTEGER REFERENCES library, countryCode TEXT REFERENCES country, name TEXT NOT NULL);
            CREATE TABLE book(id INTEGER PRIMARY KEY, authorId INTEGER REFERENCES author, title TEXT NOT NULL, year INTEGER NOT NULL);
            CREATE TABLE tag(id INTEGER PRIMARY KEY, label TEXT NOT NULL);
            CREATE TABLE bookTag(bookId INTEGER NOT NULL REFERENCES book, tagId INTEGER NOT NULL REFERENCES tag, weight INTEGER NOT NULL);
            INSERT INTO library VALUES (1, 'north'), (2, 'south'), (3, 'empty');
            INSERT INTO country VALUES ('FR', 'France'), ('JP', 'Japan'), ('NO', 'Norway');
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20)
            INSERT INTO author SELECT i, CASE WHEN i % 7 = 0 THEN NULL ELSE i % 2 + 1 END,
                CASE i % 4 WHEN 0 THEN 'FR' WHEN 1 THEN 'JP' WHEN 2 THEN NULL ELSE 'NO' END, printf('author %02d', i) FROM n;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 120)
            INSERT INTO book SELECT i, CASE WHEN i % 13 = 0 THEN NULL ELSE (i * 7) % 20 + 1 END, printf('book %03d', i), 1950 + (i * 11) % 70 FROM n;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 8)
            INSERT INTO tag SELECT i, 'tag ' || i FROM n;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
            INSERT INTO bookTag SELECT (i * 31) % 120 + 1, (i * 5) % 8 + 1, i % 3 FROM n WHERE i % 11 != 0;
            """)
    }

    @Test func hasOneThroughJoinsThePivotUnselected() throws {
        struct BookInfo: Decodable, Equatable, FetchableRecord {
            var book: Book
            var country: Country?
        }
        let request = Book.including(optional: Book.country).order(Column("id"))
        #expect(try request.makeSQL(db).sql == #"SELECT "book".*, "country".* FROM "book" LEFT JOIN "author" ON "author"."id" = "book"."authorId" LEFT JOIN "country" ON "country"."code" = "author"."countryCode" ORDER BY "book"."id""#)
        let expected = try db.fetchAll(sql: "SELECT book.*, country.* FROM book LEFT JOIN author ON author.id = book.authorId LEFT JOIN country ON country.code = author.countryCode ORDER BY book.id").map { row in
            BookInfo(book: Book(id: try row.value(at: 0), authorId: try row.value(at: 1), title: try row.value(at: 2), year: try row.value(at: 3)),
                     country: try (row.value(String?.self, at: 4)).map { Country(code: $0, name: try row.value(at: 5)) })
        }
        let infos = try request.asRequest(of: BookInfo.self).fetchAll(db)
        #expect(infos == expected)
        #expect(infos.contains { $0.country == nil } && infos.contains { $0.country != nil })

        // Required: both joins are JOINs, the pivot's filter in its ON.
        let required = Book.including(required: Book.country.filter(Column("code") != "JP")).filter(Column("year") > 1990).order(Column("id"))
        #expect(try required.makeSQL(db).sql == #"SELECT "book".*, "country".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId" JOIN "country" ON "country"."code" = "author"."countryCode" AND ("country"."code" <> ?) WHERE ("book"."year" > ?) ORDER BY "book"."id""#)
        let requiredExpected = try Book.fetchAll(db, sql: "SELECT book.* FROM book JOIN author ON author.id = book.authorId JOIN country ON country.code = author.countryCode AND country.code <> 'JP' WHERE book.year > 1990 ORDER BY book.id")
        #expect(try required.fetchAll(db) == requiredExpected)
        #expect(try required.asRequest(of: BookInfo.self).fetchAll(db).allSatisfy { $0.country != nil && $0.country?.code != "JP" })
        #expect(!requiredExpected.isEmpty)
    }

    @Test func includingAllThroughAPivotIsOneQueryThatJoinsIt() throws {
        struct LibraryInfo: Decodable, Equatable, FetchableRecord {
            var library: Library
            var books: [Book]
        }
        let request = Library.including(all: Library.books.filter(Column("year") >= 1980).order(Column("year").desc, Column("id"))).order(Column("id"))
        let infos = try request.asRequest(of: LibraryInfo.self).fetchAll(db)
        #expect(infos.map(\.library) == (try Library.fetchAll(db, sql: "SELECT * FROM library ORDER BY id")))
        for info in infos {
            let books = try Book.fetchAll(db, sql: "SELECT book.* FROM book JOIN author ON author.id = book.authorId WHERE author.libraryId = ? AND book.year >= 1980 ORDER BY book.year DESC, book.id",
                                          arguments: [info.library.id])
            #expect(info.books == books, "\(info.library.name)")
        }
        #expect(infos[0].books.count > 5 && infos[1].books.count > 5 && infos[2].books.isEmpty)

        // The same records from one library's own request.
        let north = try #require(try Library.fetchOne(db, key: 1))
        let northRequest = try north.request(for: Library.books).order(Column("id"))
        #expect(try northRequest.makeSQL(db).sql == #"SELECT "book".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId" AND ("author"."libraryId" = ?) ORDER BY "book"."id""#)
        #expect(try northRequest.fetchAll(db) == (try Book.fetchAll(db, sql: "SELECT book.* FROM book JOIN author ON author.id = book.authorId WHERE author.libraryId = 1 ORDER BY book.id")))
        #expect(try northRequest.fetchCount(db) == (try db.fetchOne(Int.self, sql: "SELECT COUNT(*) FROM book JOIN author ON author.id = book.authorId WHERE author.libraryId = 1")))
    }

    @Test func manyToManyWithAFilterOnThePivot() throws {
        struct BookInfo: Decodable, Equatable, FetchableRecord {
            var book: Book
            var tags: [Tag]
        }
        let heavyTags = Book.hasMany(Tag.self, through: Book.bookTags.filter(Column("weight") > 0), using: BookTag.tag, key: "heavyTags")
        let request = Book.including(all: Book.tags.order(Column("label")))
            .including(all: heavyTags.order(Column("id")))
            .filter(Column("id") <= 40).order(Column("id"))
        struct BookTags: Decodable, FetchableRecord {
            var book: Book
            var tags: [Tag]
            var heavyTags: [Tag]
        }
        let infos = try request.asRequest(of: BookTags.self).fetchAll(db)
        #expect(infos.map(\.book) == (try Book.fetchAll(db, sql: "SELECT * FROM book WHERE id <= 40 ORDER BY id")))
        var sawDuplicate = false
        for info in infos {
            let tags = try Tag.fetchAll(db, sql: "SELECT tag.* FROM tag JOIN bookTag ON bookTag.tagId = tag.id WHERE bookTag.bookId = ? ORDER BY tag.label, bookTag.rowid",
                                        arguments: [info.book.id])
            #expect(info.tags.map(\.label) == tags.map(\.label), "\(info.book.title)")
            #expect(info.tags.sorted { $0.id < $1.id } == tags.sorted { $0.id < $1.id })
            let heavy = try Tag.fetchAll(db, sql: "SELECT tag.* FROM tag JOIN bookTag ON bookTag.tagId = tag.id AND bookTag.weight > 0 WHERE bookTag.bookId = ? ORDER BY tag.id",
                                         arguments: [info.book.id])
            #expect(info.heavyTags == heavy, "\(info.book.title)")
            if Set(tags).count < tags.count { sawDuplicate = true }
        }
        // A book tagged twice with the same tag lists it twice, as the join does (and GRDB).
        #expect(sawDuplicate)
        #expect(infos.contains { $0.heavyTags.count < $0.tags.count })
    }

    @Test func threeStepsAndAToOneTarget() throws {
        struct LibraryInfo: Decodable, FetchableRecord {
            var library: Library
            var tags: [Tag]
            var countries: [Country]
        }
        let infos = try Library.including(all: Library.tags.order(Column("id")))
            .including(all: Library.countries.order(Column("code")))
            .order(Column("id")).asRequest(of: LibraryInfo.self).fetchAll(db)
        #expect(infos.count == 3)
        for info in infos {
            let tags = try db.fetchAll(Int64.self, sql: """
                SELECT tag.id FROM tag JOIN bookTag ON bookTag.tagId = tag.id JOIN book ON book.id = bookTag.bookId
                JOIN author ON author.id = book.authorId WHERE author.libraryId = ? ORDER BY tag.id
                """, arguments: [info.library.id])
            #expect(info.tags.map(\.id) == tags, "\(info.library.name)")
            let countries = try Country.fetchAll(db, sql: "SELECT country.* FROM country JOIN author ON author.countryCode = country.code WHERE author.libraryId = ? ORDER BY country.code",
                                                 arguments: [info.library.id])
            #expect(info.countries == countries, "\(info.library.name)")
        }
        #expect(infos[0].tags.count > 50 && infos[2].tags.isEmpty && infos[0].countries.count > 3)
        // Joined from the origin: every step a JOIN, the pivots unselected.
        let joined = Library.joining(required: Library.tags.filter(Column("label") == "tag 3")).select(Column("id")).distinct().order(Column("id"))
        #expect(try joined.makeSQL(db).sql == #"SELECT DISTINCT "library"."id" FROM "library" JOIN "author" ON "author"."libraryId" = "library"."id" JOIN "book" ON "book"."authorId" = "author"."id" JOIN "bookTag" ON "bookTag"."bookId" = "book"."id" JOIN "tag" ON "tag"."id" = "bookTag"."tagId" AND ("tag"."label" = ?) ORDER BY "library"."id""#)
        #expect(try joined.asRequest(of: Int64.self).fetchAll(db) == (try db.fetchAll(Int64.self, sql: """
            SELECT DISTINCT library.id FROM library JOIN author ON author.libraryId = library.id JOIN book ON book.authorId = author.id
            JOIN bookTag ON bookTag.bookId = book.id JOIN tag ON tag.id = bookTag.tagId AND tag.label = 'tag 3' ORDER BY library.id
            """)))
    }

    @Test func aggregatesThroughPivots() throws {
        struct LibraryInfo: Decodable, Equatable, FetchableRecord {
            var id: Int64
            var name: String
            var bookCount: Int
            var maxBookYear: Int?
        }
        let request = Library.annotated(with: Library.books.count, Library.books.max(Column("year")))
            .filter(Library.books.filter(Column("year") < 1960).isEmpty == false).order(Column("id"))
        let expected = try LibraryInfo.fetchAll(db, sql: """
            SELECT library.*, (SELECT COUNT(*) FROM book JOIN author ON author.id = book.authorId WHERE author.libraryId = library.id) AS bookCount,
                (SELECT MAX(book.year) FROM book JOIN author ON author.id = book.authorId WHERE author.libraryId = library.id) AS maxBookYear
            FROM library WHERE EXISTS (SELECT 1 FROM book JOIN author ON author.id = book.authorId WHERE author.libraryId = library.id AND book.year < 1960)
            ORDER BY library.id
            """)
        #expect(try request.asRequest(of: LibraryInfo.self).fetchAll(db) == expected)
        #expect(expected.count == 2 && expected.allSatisfy { $0.bookCount > 10 })
        #expect(try Library.annotated(with: Library.books.count).order(Column("id")).asRequest(of: LibraryInfo.self).fetchAll(db).last?.bookCount == 0)

        // Each destination row counts once, however many pivot rows lead to it (GRDB's
        // COUNT(DISTINCT …)): a country of several authors, a tag linked twice to a book.
        let countries = try Library.select(Column("id")).annotated(with: Library.countries.count).order(Column("id"))
            .asRequest(of: Row.self).fetchAll(db).map { try $0.value(Int.self, at: 1) }
        #expect(countries == (try db.fetchAll(Int.self, sql: """
            SELECT (SELECT COUNT(DISTINCT country.code) FROM country JOIN author ON author.countryCode = country.code WHERE author.libraryId = library.id)
            FROM library ORDER BY id
            """)))
        #expect(countries == [1, 2, 0])
        let tags = try Book.select(Column("id")).annotated(with: Book.tags.count, Book.tags.max(Column("id"))).order(Column("id"))
            .asRequest(of: Row.self).fetchAll(db).map { [try $0.value(Int?.self, at: 1), try $0.value(Int?.self, at: 2)] }
        #expect(tags == (try db.fetchAll(sql: """
            SELECT (SELECT COUNT(DISTINCT tag.id) FROM tag JOIN bookTag ON bookTag.tagId = tag.id WHERE bookTag.bookId = book.id),
                (SELECT MAX(tag.id) FROM tag JOIN bookTag ON bookTag.tagId = tag.id WHERE bookTag.bookId = book.id)
            FROM book ORDER BY id
            """).map { [try $0.value(Int?.self, at: 0), try $0.value(Int?.self, at: 1)] }))
    }

    @Test func aTableReachedThroughItself() throws {
        struct Person: Codable, Hashable, FetchableRecord, TableRecord {
            static let databaseTableName = "person"
            static let friendships = hasMany(Friendship.self, using: ForeignKey(["personId"]))
            static let friends = hasMany(Person.self, through: friendships, using: Friendship.friend, key: "friends")
            var id: Int64
            var name: String
        }
        struct Friendship: Codable, Hashable, FetchableRecord, TableRecord {
            static let databaseTableName = "friendship"
            static let friend = belongsTo(Person.self, using: ForeignKey(["friendId"]))
            var personId: Int64
            var friendId: Int64
        }
        struct PersonInfo: Decodable, FetchableRecord {
            var person: Person
            var friends: [Person]
        }
        struct PersonCount: Decodable, Equatable, FetchableRecord {
            var id: Int64
            var name: String
            var friendCount: Int
        }
        try db.executeScript("""
            CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE friendship(personId INTEGER NOT NULL REFERENCES person, friendId INTEGER NOT NULL REFERENCES person);
            INSERT INTO person VALUES (1, 'ana'), (2, 'bo'), (3, 'cy'), (4, 'di');
            INSERT INTO friendship VALUES (1, 2), (1, 3), (2, 1), (3, 4), (3, 1);
            """)
        let infos = try Person.including(all: Person.friends.order(Column("name"))).order(Column("id")).asRequest(of: PersonInfo.self).fetchAll(db)
        #expect(infos.map { $0.friends.map(\.name) } == [["bo", "cy"], ["ana"], ["ana", "di"], []])
        let counted = try Person.annotated(with: Person.friends.count).order(Column("id")).asRequest(of: PersonCount.self).fetchAll(db)
        #expect(counted == (try PersonCount.fetchAll(db, sql: """
            SELECT person.*, (SELECT COUNT(*) FROM person p2 JOIN friendship ON friendship.friendId = p2.id WHERE friendship.personId = person.id) AS friendCount
            FROM person ORDER BY id
            """)))
        #expect(counted.map(\.friendCount) == [2, 1, 2, 0])
        let di = try #require(try Person.fetchOne(db, key: 4))
        #expect(try di.request(for: Person.friends).fetchAll(db).isEmpty)
        let cy = try #require(try Person.fetchOne(db, key: 3))
        #expect(try cy.request(for: Person.friends).order(Column("id")).fetchAll(db).map(\.name) == ["ana", "di"])
    }

    @Test func aMisspelledColumnOnAPivotOrTheDestinationIsAnError() throws {
        let misspelledPivot = Book.hasMany(Tag.self, through: Book.bookTags.filter(Column("wieght") > 0), using: BookTag.tag)
        struct BookTags: Decodable, FetchableRecord {
            var book: Book
            var tags: [Tag]
        }
        let error = #expect(throws: DatabaseError.self) { try Book.including(all: misspelledPivot).asRequest(of: BookTags.self).fetchAll(db) }
        #expect(error?.message?.contains("no such column: wieght") == true)
        #expect(error?.message?.contains("bookTag") == true)
        #expect(throws: DatabaseError.self) { try Book.joining(required: misspelledPivot).fetchAll(db) }
        #expect(throws: DatabaseError.self) { try Library.annotated(with: Library.books.filter(Column("yaer") > 1).count).asRequest(of: Row.self).fetchAll(db) }
        #expect(throws: DatabaseError.self) { try Book.including(optional: Book.country.filter(Column("nmae") == "x")).fetchAll(db) }
    }
}

extension AssociationThroughTests {
    @Test func defaultKeysFollowGRDB() {
        // The target's key, in the plural when the through association is to many.
        #expect(Library.books.sqlAssociation.key == "books")
        #expect(Book.tags.sqlAssociation.key == "tags")
        #expect(Library.countries.sqlAssociation.key == "countries")
        #expect(Book.country.sqlAssociation.key == "country")
        // A key given to a target to one record becomes plural too, as in GRDB; one given to
        // the association through others is kept.
        #expect(Book.hasMany(Tag.self, through: Book.bookTags, using: BookTag.tag.forKey("label")).sqlAssociation.key == "labels")
        #expect(Book.hasMany(Tag.self, through: Book.bookTags, using: BookTag.tag, key: "labels").sqlAssociation.key == "labels")
    }
}
