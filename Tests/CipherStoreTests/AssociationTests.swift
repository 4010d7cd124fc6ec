@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// Associations: each request's SQL checked against the hand-written SQL, and its records
/// against what that SQL fetches, decoded by hand, on the linked SQLCipher.
@Suite struct AssociationTests {
    struct Author: Codable, Hashable, FetchableRecord, TableRecord {
        static let databaseTableName = "author"
        static let books = hasMany(Book.self)
        static let profile = hasOne(Profile.self)
        var id: Int64
        var name: String
        var country: String?
    }

    struct Book: Codable, Hashable, FetchableRecord, TableRecord {
        static let databaseTableName = "book"
        static let author = belongsTo(Author.self)
        var id: Int64
        var authorId: Int64?
        var title: String
        var year: Int
    }

    struct Profile: Codable, Hashable, FetchableRecord, TableRecord {
        static let databaseTableName = "profile"
        var id: Int64
        var authorId: Int64
        var bio: String
    }

    struct BookInfo: Decodable, Equatable, FetchableRecord {
        var book: Book
        var author: Author
    }

    struct BookWithOptionalAuthor: Decodable, Equatable, FetchableRecord {
        var book: Book
        var author: Author?
    }

    struct AuthorInfo: Decodable, Equatable, FetchableRecord {
        var author: Author
        var books: [Book]
    }

    let directory: TemporaryDirectory
    let db: Connection

    init() throws {
        directory = try TemporaryDirectory()
        db = try Connection(path: directory.path("library.db"), key: .rawKey(hex: String(repeating: "3c", count: 32)))
        try db.executeScript("""
            CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT);
            CREATE TABLE book(id INTEGER PRIMARY KEY, authorId INTEGER REFERENCES author(id), title TEXT NOT NULL, year INTEGER NOT NULL);
            CREATE TABLE profile(id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL UNIQUE REFERENCES author, bio TEXT NOT NULL);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30)
            INSERT INTO author SELECT i, printf('author %02d', i), CASE i % 3 WHEN 0 THEN 'FR' WHEN 1 THEN 'JP' ELSE NULL END FROM n;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
            INSERT INTO book SELECT i, CASE WHEN i % 17 = 0 THEN NULL ELSE (i * 7) % 25 + 1 END, printf('book %03d', i), 1950 + (i * 13) % 70 FROM n;
            INSERT INTO profile SELECT id, id, 'bio of ' || name FROM author WHERE id % 4 = 0;
            """)
    }

    /// The rows of hand-written SQL selecting a book's four columns then an author's three.
    func handWritten(_ sql: String) throws -> [(Book, Author?)] {
        try db.fetchAll(sql: sql).map { row in
            let book = Book(id: try row.value(at: 0), authorId: try row.value(at: 1), title: try row.value(at: 2), year: try row.value(at: 3))
            let authorID: Int64? = try row.value(at: 4)
            let author = try authorID.map { Author(id: $0, name: try row.value(at: 5), country: try row.value(at: 6)) }
            return (book, author)
        }
    }

    @Test func includingRequiredIsAJoinAndDecodesNestedRecords() throws {
        let request = Book.including(required: Book.author).order(Column("id"))
        #expect(try request.makeSQL(db).sql == #"SELECT "book".*, "author".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId" ORDER BY "book"."id""#)
        let expected = try handWritten("SELECT book.*, author.* FROM book JOIN author ON author.id = book.authorId ORDER BY book.id")
        let infos = try request.asRequest(of: BookInfo.self).fetchAll(db)
        #expect(infos == expected.map { BookInfo(book: $0.0, author: $0.1!) })
        #expect(infos.count == 189, "the books without an author are left out")
        #expect(try request.fetchCount(db) == 189)
        // The plain record decodes from the base table's columns only.
        #expect(try request.fetchAll(db) == expected.map(\.0))
    }

    /// Two cursors over one request, made before either is read, each read all their rows.
    @Test func twoCursorsOverOneRequestReadTheirOwnRows() throws {
        let request = Book.including(required: Book.author).order(Column("id")).asRequest(of: BookInfo.self)
        let expected = try handWritten("SELECT book.*, author.* FROM book JOIN author ON author.id = book.authorId ORDER BY book.id")
            .map { BookInfo(book: $0.0, author: $0.1!) }
        let first = try request.fetchCursor(db), second = try request.fetchCursor(db)
        var fromFirst: [BookInfo] = [], fromSecond: [BookInfo] = []
        while true {
            let one = try first.next(), other = try second.next()
            if let one { fromFirst.append(one) }
            if let other { fromSecond.append(other) }
            if one == nil && other == nil { break }
        }
        #expect(expected.count > 150)
        #expect(fromFirst == expected)
        #expect(fromSecond == expected)
    }

    /// A cursor made and not yet read keeps its arguments while the same SQL runs with others.
    @Test func aCursorNotYetReadKeepsItsArguments() throws {
        let recent = try Book.filter(Column("year") > 2000).order(Column("id")).fetchCursor(db)
        let older = try Book.filter(Column("year") > 1960).order(Column("id")).fetchAll(db)
        var fromCursor: [Book] = []
        while let book = try recent.next() { fromCursor.append(book) }
        let expectedRecent = try Book.fetchAll(db, sql: "SELECT * FROM book WHERE year > 2000 ORDER BY id")
        #expect(!expectedRecent.isEmpty)
        #expect(fromCursor == expectedRecent)
        #expect(try older == Book.fetchAll(db, sql: "SELECT * FROM book WHERE year > 1960 ORDER BY id"))
        #expect(expectedRecent.count < older.count)
    }

    @Test func includingOptionalIsALeftJoinAndAMissingRecordIsNil() throws {
        let request = Book.including(optional: Book.author).order(Column("id"))
        #expect(try request.makeSQL(db).sql == #"SELECT "book".*, "author".* FROM "book" LEFT JOIN "author" ON "author"."id" = "book"."authorId" ORDER BY "book"."id""#)
        let expected = try handWritten("SELECT book.*, author.* FROM book LEFT JOIN author ON author.id = book.authorId ORDER BY book.id")
        let infos = try request.asRequest(of: BookWithOptionalAuthor.self).fetchAll(db)
        #expect(infos == expected.map { BookWithOptionalAuthor(book: $0.0, author: $0.1) })
        #expect(infos.count == 200 && infos.filter { $0.author == nil }.count == 11)
        // A missing record for a property that is not optional is an error naming it.
        #expect(throws: RecordDecodingError.self) { try request.asRequest(of: BookInfo.self).fetchAll(db) }
    }

    /// A cursor's rows through an optional association, with optional properties of any type:
    /// each row reads its own values (the association's record and its columns), NULL as nil.
    @Test func optionalPropertiesOfAnyTypeThroughAnOptionalAssociationRowByRow() throws {
        enum Country: String, Codable, DatabaseValueConvertible { case france = "FR", japan = "JP" }
        struct Writer: Decodable, Equatable, FetchableRecord { var id: Int64; var name: String; var country: Country? }
        struct Entry: Decodable, Equatable, FetchableRecord {
            var id: Int64
            var authorId: Int64?
            var author: Writer?
            /// Named by no column and no association: nil.
            var profile: Profile?
        }
        let cursor = try Book.including(optional: Book.author).order(Column("id")).asRequest(of: Entry.self).fetchCursor(db)
        var entries: [Entry] = []
        while let entry = try cursor.next() { entries.append(entry) }
        let expected = try handWritten("SELECT book.*, author.* FROM book LEFT JOIN author ON author.id = book.authorId ORDER BY book.id").map { book, author in
            Entry(id: book.id, authorId: book.authorId, author: author.map { Writer(id: $0.id, name: $0.name, country: $0.country.flatMap(Country.init(rawValue:))) }, profile: nil)
        }
        #expect(entries == expected)
        #expect(entries.filter { $0.author == nil }.count == 11)
        #expect(entries.contains { $0.author?.country == .france } && entries.contains { $0.author != nil && $0.author?.country == nil })
    }

    /// A column added to a table between making a cursor and reading it moves the columns of
    /// the associations after it: the cursor refuses to read them at their old places, and the
    /// request fetched again reads the table as it is now.
    @Test func aSchemaChangeBeforeACursorsFirstRowIsAnErrorNotWrongRecords() throws {
        let request = Book.including(optional: Book.author).order(Column("id"))
        let cursor = try request.asRequest(of: BookWithOptionalAuthor.self).fetchCursor(db)
        try db.execute(sql: "ALTER TABLE book ADD COLUMN extra INTEGER NOT NULL DEFAULT 777")
        let error = #expect(throws: DatabaseError.self) { _ = try cursor.next() }
        #expect(error?.resultCode == .SQLITE_SCHEMA && error?.message?.contains("make the cursor again") == true && error?.message?.contains("schema changed") == true)
        #expect(try cursor.next() == nil)
        let expected = try db.fetchAll(sql: "SELECT book.id, book.authorId, book.title, book.year, author.* FROM book LEFT JOIN author ON author.id = book.authorId ORDER BY book.id").map { row in
            let book = Book(id: try row.value(at: 0), authorId: try row.value(at: 1), title: try row.value(at: 2), year: try row.value(at: 3))
            let authorID: Int64? = try row.value(at: 4)
            return BookWithOptionalAuthor(book: book, author: try authorID.map { Author(id: $0, name: try row.value(at: 5), country: try row.value(at: 6)) })
        }
        #expect(try request.asRequest(of: BookWithOptionalAuthor.self).fetchAll(db) == expected)
        #expect(expected.filter { $0.author == nil }.count == 11)
    }

    /// A column added by another connection: this connection's cached statement of the request
    /// had the old columns; the request, made again, reads the table as it is now.
    @Test func aColumnAddedByAnotherConnectionIsReadAtItsPlace() throws {
        let request = Book.including(optional: Book.author).order(Column("id"))
        let before = try request.asRequest(of: BookWithOptionalAuthor.self).fetchAll(db)
        let other = try Connection(path: directory.path("library.db"), key: .rawKey(hex: String(repeating: "3c", count: 32)))
        try other.execute(sql: "ALTER TABLE book ADD COLUMN extra INTEGER NOT NULL DEFAULT 777")
        #expect(try request.asRequest(of: BookWithOptionalAuthor.self).fetchAll(db) == before)
        #expect(try Row.fetchAll(db, request).first?.columnNames == ["id", "authorId", "title", "year", "extra", "id", "name", "country"])
        #expect(before.count == 200 && before.filter { $0.author == nil }.count == 11)
    }

    /// A row of a request with associations is flat, with the book's `id` and the author's: a
    /// record nested in it, read from the row's own columns, cannot tell which `id` is its own,
    /// and says so instead of taking the book's. Names the row has once still read.
    @Test func aRecordReadFromItsParentsRowRefusesANameTheRowRepeats() throws {
        let request = Book.including(required: Book.author).order(Column("id"))
        let rows = try Row.fetchAll(db, request)
        let error = #expect(throws: RecordDecodingError.self) { try db.decode(BookInfo.self, from: rows[0]) }
        #expect(error?.column == "id" && error?.recordType == "Book" && error?.problem == .ambiguousColumn(count: 2) && "\(error!)".contains("asRequest(of:)"))
        let sql = "SELECT book.*, author.* FROM book JOIN author ON author.id = book.authorId ORDER BY book.id"
        #expect(throws: RecordDecodingError.self) { try BookInfo.fetchAll(db, sql: sql) }

        struct Named: Decodable, Equatable { var name: String; var country: String? }
        struct TitleAndAuthor: Decodable, Equatable, FetchableRecord { var title: String; var author: Named }
        let expected = try db.fetchAll(sql: "SELECT book.title, author.name, author.country FROM book JOIN author ON author.id = book.authorId ORDER BY book.id").map { row in
            TitleAndAuthor(title: try row.value(at: 0), author: Named(name: try row.value(at: 1), country: try row.value(at: 2)))
        }
        #expect(try TitleAndAuthor.fetchAll(db, sql: sql) == expected)
        #expect(try rows.map { try db.decode(TitleAndAuthor.self, from: $0) } == expected)
        #expect(expected.count == 189 && expected.contains { $0.author.country == nil })

        // Columns of one name with equal values (a join's key on both sides) read as one.
        struct BookPart: Decodable, Equatable { var id: Int64; var title: String }
        struct BookAndName: Decodable, Equatable, FetchableRecord { var book: BookPart; var name: String }
        let sameID = "SELECT book.id, book.title, author.id, author.name FROM book JOIN author ON author.id = book.id ORDER BY book.id"
        let expectedParts = try db.fetchAll(sql: sameID).map { row in
            BookAndName(book: BookPart(id: try row.value(at: 0), title: try row.value(at: 1)), name: try row.value(at: 3))
        }
        #expect(try BookAndName.fetchAll(db, sql: sameID) == expectedParts && expectedParts.count == 30)
        // A second record read from the row's own columns is refused, as in GRDB.
        struct AuthorPart: Decodable, Equatable { var id: Int64; var name: String }
        struct Pair: Decodable, Equatable, FetchableRecord { var book: BookPart; var author: AuthorPart }
        let second = #expect(throws: RecordDecodingError.self) { try Pair.fetchAll(db, sql: sameID) }
        #expect(second?.column == "author" && second?.problem == .secondRecordFromRow(first: "book", associations: []))
    }

    /// A nested record's own `init(from:)` asking `contains` or `decodeNil` for a name the row
    /// repeats with different values gets the same refusal, not the leftmost column's answer.
    @Test func containsAndDecodeNilOnARepeatedNameAreRefusedToo() throws {
        struct Checked: Decodable {
            enum CodingKeys: String, CodingKey { case id, name }
            var id: Int64?
            var name: String
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                id = try container.decodeNil(forKey: .id) ? nil : container.decode(Int64.self, forKey: .id)
                name = try container.decode(String.self, forKey: .name)
            }
        }
        struct Holder: Decodable, FetchableRecord { var title: String; var author: Checked }
        let sql = "SELECT book.*, author.* FROM book JOIN author ON author.id = book.authorId WHERE book.id = 1"
        let error = #expect(throws: RecordDecodingError.self) { try Holder.fetchAll(db, sql: sql) }
        #expect(error?.problem == .ambiguousColumn(count: 2) && error?.column == "id")
        struct Asks: Decodable {
            enum CodingKeys: String, CodingKey { case id }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                #expect(container.contains(.id))
                _ = try container.decode(Int64.self, forKey: .id)
            }
        }
        struct AsksHolder: Decodable, FetchableRecord { var title: String; var author: Asks }
        #expect(throws: RecordDecodingError.self) { try AsksHolder.fetchAll(db, sql: sql) }
    }

    /// A common table expression over a table another connection then changed: its columns
    /// are probed afresh, so the association after it is read at its new place.
    @Test func aCommonTableExpressionOverATableChangedByAnotherConnection() throws {
        struct RecentInfo: Decodable, Equatable, FetchableRecord { var id: Int64; var title: String; var author: Author }
        let recent = CommonTableExpression<Row>(named: "recentBook", sql: "SELECT * FROM book WHERE year > 1990")
        let request = recent.all()
            .including(required: recent.association(to: Author.self) { book, author in book[Column("authorId")] == author[Column("id")] })
            .order(Column("id"))
            .asRequest(of: RecentInfo.self)
        let handWritten = """
            WITH recentBook AS (SELECT * FROM book WHERE year > 1990)
            SELECT recentBook.id, recentBook.title, author.* FROM recentBook JOIN author ON author.id = recentBook.authorId ORDER BY recentBook.id
            """
        func expected() throws -> [RecentInfo] {
            try db.fetchAll(sql: handWritten).map { row in
                RecentInfo(id: try row.value(at: 0), title: try row.value(at: 1), author: Author(id: try row.value(at: 2), name: try row.value(at: 3), country: try row.value(at: 4)))
            }
        }
        #expect(try request.fetchAll(db) == expected())
        #expect(try request.fetchAll(db) == expected())
        let other = try Connection(path: directory.path("library.db"), key: .rawKey(hex: String(repeating: "3c", count: 32)))
        try other.execute(sql: "ALTER TABLE book ADD COLUMN extra INTEGER NOT NULL DEFAULT 777")
        let after = try expected()
        #expect(try request.fetchAll(db) == after)
        #expect(after.count > 20 && after.contains { $0.author.country == "JP" })
    }

    @Test func filtersAndOrdersOnTheAssociationGoIntoTheJoin() throws {
        let request = Book.joining(required: Book.author.filter(Column("country") == "FR").order(Column("name").desc))
            .filter(Column("year") > 1990).order(Column("year"), Column("id"))
        #expect(try request.makeSQL(db).sql == #"SELECT "book".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId" AND ("author"."country" = ?) WHERE ("book"."year" > ?) ORDER BY "book"."year", "book"."id", "author"."name" DESC"#)
        let expected = try Book.fetchAll(db, sql: "SELECT book.* FROM book JOIN author ON author.id = book.authorId AND author.country = 'FR' WHERE book.year > 1990 ORDER BY book.year, book.id, author.name DESC")
        #expect(try request.fetchAll(db) == expected)
        #expect(!expected.isEmpty)
        // The same with an optional join keeps every book; its filter stays in ON.
        let optional = Book.including(optional: Book.author.filter(Column("country") == "FR")).order(Column("id"))
        let rows = try handWritten("SELECT book.*, author.* FROM book LEFT JOIN author ON author.id = book.authorId AND author.country = 'FR' ORDER BY book.id")
        #expect(try optional.asRequest(of: BookWithOptionalAuthor.self).fetchAll(db) == rows.map { BookWithOptionalAuthor(book: $0.0, author: $0.1) })
    }

    @Test func sqlFragmentsOnTheAssociation() throws {
        let request = Book.joining(required: Book.author.filter(sql: "\"author\".\"country\" = :country", arguments: ["country": "FR"]))
            .filter(Column("year") > 1990).order(Column("id"))
        #expect(try request.makeSQL(db).sql == #"SELECT "book".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId" AND ("author"."country" = ?) WHERE ("book"."year" > ?) ORDER BY "book"."id""#)
        let expected = try Book.fetchAll(db, sql: "SELECT book.* FROM book JOIN author ON author.id = book.authorId AND author.country = 'FR' WHERE book.year > 1990 ORDER BY book.id")
        #expect(try request.fetchAll(db) == expected)
        #expect(!expected.isEmpty)

        let ordered = Author.including(all: Author.books.order(sql: "length(title) DESC, id")).order(Column("id"))
        for info in try ordered.asRequest(of: AuthorInfo.self).fetchAll(db) {
            #expect(info.books == (try Book.fetchAll(db, sql: "SELECT * FROM book WHERE authorId = ? ORDER BY length(title) DESC, id", arguments: [info.author.id])))
        }
        // An order written in SQL cannot be reversed; arguments that do not fit are refused.
        let reversed = #expect(throws: DatabaseError.self) { try ordered.reversed().asRequest(of: AuthorInfo.self).fetchAll(db) }
        #expect(reversed?.message?.contains("cannot be reversed") == true)
        let misfit = #expect(throws: DatabaseError.self) { try Book.joining(required: Book.author.filter(sql: "country = ?")).fetchAll(db) }
        #expect(misfit?.message?.contains("nothing was run") == true)
        // In an aggregate too: a count without its condition would be a wrong answer.
        let misfitCount = #expect(throws: DatabaseError.self) {
            try Author.annotated(with: Author.books.filter(sql: "year > ?").count).asRequest(of: Row.self).fetchAll(db)
        }
        #expect(misfitCount?.message?.contains("nothing was run") == true)
        #expect(throws: DatabaseError.self) { try Author.filter(Author.books.filter(sql: "year > ?", arguments: [1, 2]).isEmpty).fetchAll(db) }

        // Reversed twice, an order written in SQL is the order it was.
        let twice = Author.including(all: Author.books.order(sql: "length(title) DESC, id").reversed().reversed()).order(Column("id"))
        #expect(try twice.asRequest(of: AuthorInfo.self).fetchAll(db) == (try ordered.asRequest(of: AuthorInfo.self).fetchAll(db)))
        let requestTwice = Book.order(sql: "year DESC, id").reversed().reversed()
        #expect(try requestTwice.fetchAll(db) == (try Book.fetchAll(db, sql: "SELECT * FROM book ORDER BY year DESC, id")))
    }

    @Test func includingAllFetchesEachRecordsAssociatedRecordsInOrder() throws {
        let request = Author.including(all: Author.books.filter(Column("year") >= 1970).order(Column("year").desc, Column("id")))
            .filter(Column("country") != nil).order(Column("id"))
        let infos = try request.asRequest(of: AuthorInfo.self).fetchAll(db)
        let authors = try Author.fetchAll(db, sql: "SELECT * FROM author WHERE country IS NOT NULL ORDER BY id")
        #expect(infos.map(\.author) == authors)
        for info in infos {
            let books = try Book.fetchAll(db, sql: "SELECT * FROM book WHERE authorId = ? AND year >= 1970 ORDER BY year DESC, id", arguments: [info.author.id])
            #expect(info.books == books, "\(info.author.name)")
        }
        #expect(infos.contains { $0.books.count > 1 } && infos.contains { $0.books.isEmpty })
        // More parents than one query binds: the prefetch is split, the result the same.
        var manyAuthors: [AuthorInfo] = []
        var expectedBooks: [[Int64]] = []
        try db.inTransaction {
            try db.execute(sql: "WITH RECURSIVE n(i) AS (SELECT 31 UNION ALL SELECT i + 1 FROM n WHERE i < 1300) INSERT INTO author SELECT i, 'a' || i, NULL FROM n")
            try db.execute(sql: "WITH RECURSIVE n(i) AS (SELECT 201 UNION ALL SELECT i + 1 FROM n WHERE i < 1500) INSERT INTO book SELECT i, i - 200, 'b' || i, 2000 FROM n")
            manyAuthors = try Author.including(all: Author.books.order(Column("id"))).order(Column("id")).asRequest(of: AuthorInfo.self).fetchAll(db)
            expectedBooks = try (1...1300).map { try db.fetchAll(Int64.self, sql: "SELECT id FROM book WHERE authorId = ? ORDER BY id", arguments: [$0]) }
            return .rollback
        }
        #expect(manyAuthors.count == 1300)
        #expect(manyAuthors.map { $0.books.map(\.id) } == expectedBooks)
        #expect(manyAuthors[1250].books.map(\.id) == [1451])
    }

    @Test func hasOneAndForKeyAndNestedIncludes() throws {
        struct AuthorWithProfile: Decodable, Equatable, FetchableRecord {
            var author: Author
            var profile: Profile?
        }
        struct BookWithWriter: Decodable, Equatable, FetchableRecord {
            var book: Book
            var writer: AuthorWithProfile
        }
        let request = Book.including(required: Book.author.forKey("writer").including(optional: Author.profile))
            .filter(Column("id") <= 40).order(Column("id"))
        #expect(try request.makeSQL(db).sql == #"SELECT "book".*, "author".*, "profile".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId" LEFT JOIN "profile" ON "profile"."authorId" = "author"."id" WHERE ("book"."id" <= ?) ORDER BY "book"."id""#)
        let rows = try db.fetchAll(sql: "SELECT book.*, author.*, profile.* FROM book JOIN author ON author.id = book.authorId LEFT JOIN profile ON profile.authorId = author.id WHERE book.id <= 40 ORDER BY book.id")
        let expected = try rows.map { row in
            let profileID: Int64? = try row.value(at: 7)
            return BookWithWriter(book: Book(id: try row.value(at: 0), authorId: try row.value(at: 1), title: try row.value(at: 2), year: try row.value(at: 3)),
                                  writer: AuthorWithProfile(author: Author(id: try row.value(at: 4), name: try row.value(at: 5), country: try row.value(at: 6)),
                                                            profile: try profileID.map { Profile(id: $0, authorId: try row.value(at: 8), bio: try row.value(at: 9)) }))
        }
        let fetched = try request.asRequest(of: BookWithWriter.self).fetchAll(db)
        #expect(fetched == expected)
        #expect(fetched.contains { $0.writer.profile != nil } && fetched.contains { $0.writer.profile == nil })
        // Row.fetchAll gives the joined row flat.
        #expect(try Row.fetchAll(db, request).map(\.values) == rows.map(\.values))
    }

    @Test func aRecordsOwnAssociatedRecordsAndTheSameTableTwice() throws {
        let author = try #require(try Author.fetchOne(db, key: 8))
        let books = try author.request(for: Author.books).order(Column("id")).fetchAll(db)
        #expect(books == (try Book.fetchAll(db, sql: "SELECT * FROM book WHERE authorId = 8 ORDER BY id")))
        #expect(!books.isEmpty)
        #expect(try author.request(for: Author.books).fetchCount(db) == books.count)

        // A table joined twice gets a second alias.
        struct Pair: Decodable, FetchableRecord { var book: Book; var author: Author; var other: Author? }
        let twice = Book.including(required: Book.author).including(optional: Book.belongsTo(Author.self, key: "other").filter(Column("country") == "JP"))
            .order(Column("id")).limit(5)
        #expect(try twice.makeSQL(db).sql == #"SELECT "book".*, "author".*, "author2".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId" LEFT JOIN "author" "author2" ON "author2"."id" = "book"."authorId" AND ("author2"."country" = ?) ORDER BY "book"."id" LIMIT ?"#)
        let pairs = try twice.asRequest(of: Pair.self).fetchAll(db)
        #expect(pairs.count == 5)
        for pair in pairs { #expect(pair.other == (pair.author.country == "JP" ? pair.author : nil)) }
    }

    @Test func keysFromAGivenForeignKeyAndClearErrorsWithout() throws {
        try db.executeScript("CREATE TABLE review(id INTEGER PRIMARY KEY, bookRef INTEGER, stars INTEGER NOT NULL); INSERT INTO review VALUES (1, 3, 5), (2, 3, 4), (3, 5, 1)")
        struct Review: Codable, Equatable, FetchableRecord, TableRecord {
            static let databaseTableName = "review"
            var id: Int64
            var bookRef: Int64
            var stars: Int
        }
        struct BookReviews: Decodable, FetchableRecord { var book: Book; var reviews: [Review] }
        // The schema says nothing: the error names both tables and the way out.
        let inferred = Book.hasMany(Review.self)
        #expect {
            try Book.including(all: inferred).asRequest(of: BookReviews.self).fetchAll(db)
        } throws: { error in
            (error as? DatabaseError)?.message?.contains("no foreign key from review to book") == true
                && (error as? DatabaseError)?.message?.contains("ForeignKey") == true
        }
        let given = Book.hasMany(Review.self, using: ForeignKey(["bookRef"]))
        let reviews = try Book.including(all: given.order(Column("id"))).filter(Column("id").in([3, 4, 5])).order(Column("id")).asRequest(of: BookReviews.self).fetchAll(db)
        #expect(reviews.map { $0.reviews.map(\.stars) } == [[5, 4], [], [1]])
    }

    @Test func aMisspelledColumnInAnAssociationIsAnError() throws {
        let requests: [(String, () throws -> Void)] = [
            ("contry", { _ = try Book.joining(required: Book.author.filter(Column("contry") == "FR")).fetchAll(self.db) }),
            ("nmae", { _ = try Book.including(required: Book.author.order(Column("nmae"))).asRequest(of: BookInfo.self).fetchAll(self.db) }),
            ("yaer", { _ = try Author.including(all: Author.books.filter(Column("yaer") > 2000)).asRequest(of: AuthorInfo.self).fetchAll(self.db) }),
            ("naem", { _ = try Book.including(required: Book.author.select(Column("naem"))).fetchCount(self.db) }),
        ]
        for (name, request) in requests {
            #expect {
                try request()
            } throws: { error in
                (error as? DatabaseError)?.message?.contains("no such column: \(name)") == true
            }
        }
    }

    /// An aggregate selected beside an included or annotated record, and a having() that mixes
    /// a group's aggregate with an association aggregate: the rows of the same SQL.
    @Test func aggregatesBesideAssociations() throws {
        let counted = try Author.annotated(with: Author.books.count)
            .including(optional: Author.profile)
            .annotated(withOptional: Author.profile.forKey("note").select(Column("bio").forKey("profileBio")))
            .order(Column("id"))
            .asRequest(of: Row.self).fetchAll(db)
        let expected = try db.fetchAll(sql: """
            SELECT author.*, (SELECT COUNT(*) FROM book WHERE book.authorId = author.id), p2.bio, profile.*
            FROM author LEFT JOIN profile p2 ON p2.authorId = author.id LEFT JOIN profile ON profile.authorId = author.id ORDER BY author.id
            """)
        #expect(counted.map(\.values) == expected.map(\.values))
        #expect(counted.count == 30)

        let grouped = try Author.select(Column("country"), count(Column("id")))
            .group(Column("country"))
            .having(count(Column("id")) >= 3 && Author.books.count >= 8)
            .order(Column("country"))
            .asRequest(of: Row.self).fetchAll(db)
        let expectedGroups = try db.fetchAll(sql: """
            SELECT country, count(id) FROM author WHERE (SELECT COUNT(*) FROM book WHERE book.authorId = author.id) >= 8
            GROUP BY country HAVING count(id) >= 3 ORDER BY country
            """)
        #expect(grouped.map(\.values) == expectedGroups.map(\.values))
        #expect(!grouped.isEmpty)

        // After grouping (a term that mixes both kinds stays in HAVING, a selection, an order),
        // an association aggregate has no one author per group: refused, not any author's.
        let mixed = Author.select(Column("country"), count(Column("id"))).group(Column("country"))
        for request in [mixed.having(Author.books.count == 1 || count(Column("id")) >= 3),
                        mixed.annotated(with: Author.books.count),
                        mixed.order(Author.books.count)] {
            let refused = #expect(throws: DatabaseError.self) { try request.asRequest(of: Row.self).fetchAll(db) }
            #expect(refused?.message?.contains("groups its rows by other columns than author's primary key") == true && refused?.message?.contains("nothing was run") == true)
        }
        // Grouped by the rowid, or by the key through the request's own alias, each group is one author too.
        let alias = TableAlias()
        for request in [Author.select(Column("id")).group(Column("rowid")).annotated(with: Author.books.count).order(Column("id")),
                        Author.aliased(alias).select(Column("id")).group(alias[Column("id")]).annotated(with: Author.books.count).order(Column("id"))] {
            let counts = try request.asRequest(of: Row.self).fetchAll(db)
            #expect(counts.map(\.values) == (try db.fetchAll(sql: "SELECT id, (SELECT COUNT(*) FROM book WHERE book.authorId = author.id) FROM author ORDER BY id")).map(\.values))
        }
        // Grouped by the key as well, each group is one author: the rows of the same SQL.
        let byAuthor = try Author.select(Column("id"), Column("country")).group(Column("id"), Column("country"))
            .having(Author.books.count == 1 || Column("country") == "FR").order(Column("id"))
            .asRequest(of: Row.self).fetchAll(db)
        let expectedByAuthor = try db.fetchAll(sql: """
            SELECT id, country FROM author GROUP BY id, country
            HAVING (SELECT COUNT(*) FROM book WHERE book.authorId = author.id) = 1 OR country = 'FR' ORDER BY id
            """)
        #expect(byAuthor.map(\.values) == expectedByAuthor.map(\.values) && !byAuthor.isEmpty)

        // An aggregate beside a join of the same key with other filters: GRDB merges the two,
        // so the request is refused rather than answered otherwise than in GRDB.
        let recent = Author.books.filter(Column("year") > 2000)
        let merged = #expect(throws: DatabaseError.self) {
            try Author.joining(required: recent).annotated(with: Author.books.count).asRequest(of: Row.self).fetchAll(db)
        }
        #expect(merged?.message?.contains("GRDB merges them") == true && merged?.message?.contains("forKey(_:)") == true)
        // Keyed apart, each says what it means: the rows of the same SQL.
        let apart = Author.joining(required: recent.forKey("recentBooks")).annotated(with: Author.books.count).order(Column("id"))
        let expectedApart = try db.fetchAll(sql: """
            SELECT author.*, (SELECT COUNT(*) FROM book WHERE book.authorId = author.id) FROM author
            JOIN book recent ON recent.authorId = author.id AND recent.year > 2000 ORDER BY author.id
            """)
        let apartRows = try apart.asRequest(of: Row.self).fetchAll(db)
        #expect(apartRows.map(\.values) == expectedApart.map(\.values) && !apartRows.isEmpty)
        // The same filters (none) answer alike in both libraries: allowed.
        _ = try Author.joining(optional: Author.books).annotated(with: Author.books.count).asRequest(of: Row.self).fetchAll(db)

        // `??` keeps the aggregate's name (as GRDB's does): no NULL for an author without books.
        struct AuthorYear: Decodable, Equatable, FetchableRecord {
            var id: Int64
            var maxBookYear: Int
        }
        let latest = Author.select(Column("id")).annotated(with: Author.books.max(Column("year")) ?? 0).order(Column("id"))
        #expect(try latest.makeSQL(db).sql == #"SELECT "id", IFNULL((SELECT MAX("book"."year") FROM "book" WHERE "book"."authorId" = "author"."id"), ?) AS "maxBookYear" FROM "author" ORDER BY "id""#)
        let years = try latest.asRequest(of: AuthorYear.self).fetchAll(db)
        #expect(years == (try AuthorYear.fetchAll(db, sql: "SELECT id, IFNULL((SELECT MAX(year) FROM book WHERE book.authorId = author.id), 0) AS maxBookYear FROM author ORDER BY id")))
        #expect(years.contains { $0.maxBookYear == 0 } && years.contains { $0.maxBookYear > 1900 })
        #expect(try Author.having(Author.books.max(Column("year")) ?? 0 == 0).fetchCount(db) == years.filter { $0.maxBookYear == 0 }.count)

        // `cast` keeps it too; on a plain expression it is SQLite's CAST.
        struct AuthorAverage: Decodable, Equatable, FetchableRecord {
            var id: Int64
            var averageBookYear: Int?
        }
        let averages = Author.select(Column("id")).annotated(with: cast(Author.books.average(Column("year")), as: .integer)).order(Column("id"))
        #expect(try averages.makeSQL(db).sql == #"SELECT "id", CAST((SELECT AVG("book"."year") FROM "book" WHERE "book"."authorId" = "author"."id") AS INTEGER) AS "averageBookYear" FROM "author" ORDER BY "id""#)
        let averageYears = try averages.asRequest(of: AuthorAverage.self).fetchAll(db)
        #expect(averageYears == (try AuthorAverage.fetchAll(db, sql: "SELECT id, CAST((SELECT AVG(year) FROM book WHERE book.authorId = author.id) AS INTEGER) AS averageBookYear FROM author ORDER BY id")))
        #expect(averageYears.contains { $0.averageBookYear == nil } && averageYears.contains { ($0.averageBookYear ?? 0) > 1900 })
        let castThenDefault = Author.select(Column("id")).annotated(with: cast(Author.books.average(Column("year")), as: .integer) ?? 0).order(Column("id"))
        #expect(try castThenDefault.asRequest(of: AuthorAverage.self).fetchAll(db).map { $0.averageBookYear ?? -1 } == averageYears.map { $0.averageBookYear ?? 0 })
        let texts = try Book.select(cast(Column("year") + 1, as: .text), as: DatabaseValue.self).order(Column("id")).limit(3).fetchAll(db)
        #expect(texts == (try DatabaseValue.fetchAll(db, sql: "SELECT CAST(year + 1 AS TEXT) FROM book ORDER BY id LIMIT 3")))
        #expect(texts.allSatisfy { if case .text = $0 { return true } else { return false } } && texts.count == 3)
    }

    /// updateAll and deleteAll through including(…) and annotated(withRequired:) change the
    /// rows the same joins pick; an association aggregate as a value is its subquery.
    @Test func writesThroughAssociationsAndAggregatesAsValues() throws {
        let japanese = try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM book JOIN author ON author.id = book.authorId AND author.country = 'JP'")
        #expect(try Book.annotated(withRequired: Book.author.filter(Column("country") == "JP").select(Column("name")))
                    .updateAll(db, Column("title").set(to: "jp")) == japanese)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM book WHERE title = 'jp'") == japanese)
        let french = try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM book JOIN author ON author.id = book.authorId AND author.country = 'FR'")
        #expect(try Book.including(required: Book.author.filter(Column("country") == "FR")).deleteAll(db) == french)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM book JOIN author ON author.id = book.authorId AND author.country = 'FR'") == 0)

        try db.execute(sql: "ALTER TABLE author ADD COLUMN bookCount INTEGER")
        #expect(try Author.updateAll(db, Column("bookCount").set(to: Author.books.count)) == 30)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM author WHERE bookCount IS NOT (SELECT COUNT(*) FROM book WHERE book.authorId = author.id)") == 0)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT sum(bookCount) FROM author") == db.fetchScalar(Int.self, sql: "SELECT count(authorId) FROM book"))
    }

    /// including(all:) through a foreign key of two columns, for more parents than a
    /// left-nested condition lets SQLite parse: each team's members, as the same join finds them.
    @Test func aToManyAssociationOfTwoColumnsForManyParents() throws {
        struct Member: Codable, Equatable, FetchableRecord, TableRecord {
            static let databaseTableName = "member"
            var id: Int64
            var league: Int64
            var number: Int64
        }
        struct Team: Codable, FetchableRecord, TableRecord {
            static let databaseTableName = "team"
            static let members = hasMany(Member.self)
            var league: Int64
            var number: Int64
        }
        struct TeamMembers: Decodable, FetchableRecord { var team: Team; var members: [Member] }
        try db.executeScript("""
            CREATE TABLE team(league INTEGER NOT NULL, number INTEGER NOT NULL, PRIMARY KEY (league, number));
            CREATE TABLE member(id INTEGER PRIMARY KEY, league INTEGER NOT NULL, number INTEGER NOT NULL, FOREIGN KEY (league, number) REFERENCES team(league, number));
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 599) INSERT INTO team SELECT i / 100, i % 100 FROM n;
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 1499) INSERT INTO member SELECT i, (i * 7) % 6, (i * 11) % 100 FROM n;
            """)
        let teams = try Team.including(all: Team.members.order(Column("id"))).order(Column("league"), Column("number")).asRequest(of: TeamMembers.self).fetchAll(db)
        #expect(teams.count == 600)
        var expected: [[Int64]: [Int64]] = [:]
        for row in try db.fetchAll(sql: "SELECT member.league, member.number, member.id FROM member JOIN team USING (league, number) ORDER BY member.id") {
            expected[[try row.value(at: 0), try row.value(at: 1)], default: []].append(try row.value(at: 2))
        }
        #expect(teams.allSatisfy { $0.members.map(\.id) == expected[[$0.team.league, $0.team.number], default: []] })
        #expect(teams.map(\.members.count).reduce(0, +) == 1_500)
    }

    /// Default keys in the plural and aggregate names in the singular, as GRDB forms them.
    @Test func associationKeysAreEnglishPluralsAndSingulars() {
        let pairs = [("book", "books"), ("box", "boxes"), ("category", "categories"), ("day", "days"), ("status", "statuses"),
                     ("address", "addresses"), ("person", "people"), ("salesperson", "salespeople"), ("child", "children"),
                     ("woman", "women"), ("human", "humans"), ("knife", "knives"), ("wolf", "wolves"), ("olive", "olives"),
                     ("analysis", "analyses"), ("matrix", "matrices"), ("index", "indices"), ("quiz", "quizzes"), ("sheep", "sheep"),
                     ("information", "information"), ("match", "matches"), ("Person", "People")]
        for (singular, plural) in pairs {
            #expect(AssociationKeyName.plural(singular) == plural, "plural of \(singular)")
            #expect(AssociationKeyName.singular(plural) == singular, "singular of \(plural)")
        }
    }
}
