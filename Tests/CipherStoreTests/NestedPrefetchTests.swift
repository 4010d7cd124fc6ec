@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// `including(all:)` under an included to-one association (`Book.author.including(all:
/// Author.books)`): the rows of the second query go under each row's associated record, checked
/// against hand-written SQL on the linked SQLCipher.
@Suite struct NestedPrefetchTests {
    struct Country: Codable, Equatable, FetchableRecord, TableRecord {
        static let databaseTableName = "country"
        static let authors = hasMany(Author.self)
        var code: String
        var name: String
    }

    struct Author: Codable, Equatable, FetchableRecord, TableRecord {
        static let databaseTableName = "author"
        static let books = hasMany(Book.self)
        static let country = belongsTo(Country.self)
        var id: Int64
        var countryCode: String?
        var name: String
    }

    struct Book: Codable, Equatable, FetchableRecord, TableRecord {
        static let databaseTableName = "book"
        static let author = belongsTo(Author.self)
        static let chapters = hasMany(Chapter.self)
        var id: Int64
        var authorId: Int64?
        var title: String
    }

    struct Chapter: Codable, Equatable, FetchableRecord, TableRecord {
        static let databaseTableName = "chapter"
        static let book = belongsTo(Book.self)
        var id: Int64
        var bookId: Int64
        var number: Int
    }

    struct AuthorInfo: Decodable, Equatable {
        var author: Author
        var books: [Book]
    }

    let directory: TemporaryDirectory
    let db: Connection

    init() throws {
        directory = try TemporaryDirectory()
        db = try Connection(path: directory.path("nested.db"), key: .rawKey(hex: String(repeating: "7c", count: 32)))
        try db.executeScript("""
            CREATE TABLE country(code TEXT PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE author(id INTEGER PRIMARY KEY, countryCode TEXT REFERENCES country, name TEXT NOT NULL);
            CREATE TABLE book(id INTEGER PRIMARY KEY, authorId INTEGER REFERENCES author, title TEXT NOT NULL);
            CREATE TABLE chapter(id INTEGER PRIMARY KEY, bookId INTEGER NOT NULL REFERENCES book, number INTEGER NOT NULL);
            INSERT INTO country VALUES ('FR', 'France'), ('JP', 'Japan'), ('NO', 'Norway');
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12)
            INSERT INTO author SELECT i, CASE i % 4 WHEN 0 THEN 'FR' WHEN 1 THEN 'JP' WHEN 2 THEN NULL ELSE 'FR' END, printf('author %02d', i) FROM n;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50)
            INSERT INTO book SELECT i, CASE WHEN i % 9 = 0 THEN NULL ELSE (i * 5) % 11 + 1 END, printf('book %02d', i) FROM n;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 150)
            INSERT INTO chapter SELECT i, (i * 7) % 50 + 1, i % 5 FROM n;
            """)
    }

    /// Each author's books, as the hand-written SQL finds them.
    func books(of authorID: Int64?) throws -> [Book] {
        guard let authorID else { return [] }
        return try Book.fetchAll(db, sql: "SELECT * FROM book WHERE authorId = ? ORDER BY title DESC", arguments: [authorID])
    }

    @Test func theRowsGoUnderEachRowsAssociatedRecord() throws {
        struct BookInfo: Decodable, Equatable, FetchableRecord {
            var book: Book
            var author: AuthorInfo?
        }
        let request = Book.including(optional: Book.author.including(all: Author.books.order(Column("title").desc))).order(Column("id"))
        // The main query selects the author's key after the visible columns, for the second query.
        #expect(try request.makeSQL(db).sql == #"SELECT "book".*, "author".*, "author"."id" FROM "book" LEFT JOIN "author" ON "author"."id" = "book"."authorId" ORDER BY "book"."id""#)
        let infos = try request.asRequest(of: BookInfo.self).fetchAll(db)
        let rows = try db.fetchAll(sql: "SELECT book.*, author.* FROM book LEFT JOIN author ON author.id = book.authorId ORDER BY book.id")
        #expect(infos.count == rows.count && rows.count == 50)
        for (info, row) in zip(infos, rows) {
            #expect(info.book == Book(id: try row.value(at: 0), authorId: try row.value(at: 1), title: try row.value(at: 2)))
            let authorID = try row.value(Int64?.self, at: 3)
            #expect(info.author?.author.id == authorID)
            #expect(info.author?.author.name == (try row.value(String?.self, at: 5)))
            #expect(info.author?.books == (authorID == nil ? nil : try books(of: authorID)), "book \(info.book.id)")
        }
        #expect(infos.contains { $0.author == nil } && infos.contains { ($0.author?.books.count ?? 0) > 3 })

        // The same with init(row:).
        struct BookRow: RowDecodableRecord, Equatable {
            var title: String
            var authorName: String?
            var authorBooks: [String]?
            init(row: borrowing RowView) throws {
                title = try row.decode(forColumn: "title")
                let author = try row.decodeIfPresent(AuthorRow.self, forKey: "author")
                authorName = author?.name
                authorBooks = author?.books
            }
        }
        struct AuthorRow: RowDecodableRecord {
            var name: String
            var books: [String]
            init(row: borrowing RowView) throws {
                name = try row.decode(forColumn: "name")
                books = try row.decode([TitleRow].self, forKey: "books").map(\.title)
            }
        }
        struct TitleRow: RowDecodableRecord {
            var title: String
            init(row: borrowing RowView) throws { title = try row.decode(forColumn: "title") }
        }
        let viaRows = try request.asRequest(of: BookRow.self).fetchAll(db)
        #expect(viaRows.map(\.authorBooks) == infos.map { $0.author?.books.map(\.title) })
        #expect(viaRows.map(\.title) == infos.map(\.book.title))
    }

    @Test func aFlatRecordNamesTheNestedRows() throws {
        struct Flat: Decodable, FetchableRecord {
            var book: Book
            var author: Author
            var books: [Book]
        }
        struct FlatRow: RowDecodableRecord {
            var authorID: Int64
            var titles: [String]
            init(row: borrowing RowView) throws {
                authorID = try row.decode(forColumn: "authorId")
                titles = try row.decode([NestedTitle].self, forKey: "books").map(\.title)
            }
        }
        struct NestedTitle: RowDecodableRecord {
            var title: String
            init(row: borrowing RowView) throws { title = try row.decode(forColumn: "title") }
        }
        let request = Book.including(required: Book.author.including(all: Author.books.order(Column("title").desc))).order(Column("id"))
        let flat = try request.asRequest(of: Flat.self).fetchAll(db)
        #expect(flat.count == (try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM book JOIN author ON author.id = book.authorId")))
        for record in flat {
            #expect(record.author.id == record.book.authorId)
            #expect(record.books == (try books(of: record.author.id)))
        }
        let rows = try request.asRequest(of: FlatRow.self).fetchAll(db)
        #expect(rows.map(\.titles) == flat.map { $0.books.map(\.title) })
    }

    @Test func deeperScopesAndTheBasesOwnToManyTogether() throws {
        struct ChapterInfo: Decodable, FetchableRecord {
            struct BookInfo: Decodable {
                var book: Book
                var author: AuthorInfo
            }
            var chapter: Chapter
            var book: BookInfo
            var siblings: [Chapter]
        }
        // chapter → book → author, with the author's books; and the base's own to-many.
        let siblings = Chapter.hasMany(Chapter.self, using: ForeignKey(["bookId"], to: ["bookId"])).forKey("siblings")
        let request = Chapter
            .including(required: Chapter.book.including(required: Book.author.including(all: Author.books.order(Column("title").desc))))
            .including(all: siblings.order(Column("id")))
            .filter(Column("number") == 2)
            .order(Column("id"))
        let infos = try request.asRequest(of: ChapterInfo.self).fetchAll(db)
        let expected = try db.fetchAll(sql: "SELECT chapter.id, book.id, author.id FROM chapter JOIN book ON book.id = chapter.bookId JOIN author ON author.id = book.authorId WHERE chapter.number = 2 ORDER BY chapter.id")
        #expect(infos.map(\.chapter.id) == (try expected.map { try $0.value(Int64.self, at: 0) }))
        #expect(infos.count > 10)
        for info in infos {
            #expect(info.book.author.books == (try books(of: info.book.author.author.id)))
            #expect(info.book.author.author.id == info.book.book.authorId)
            #expect(info.siblings == (try Chapter.fetchAll(db, sql: "SELECT * FROM chapter WHERE bookId = ? ORDER BY id", arguments: [info.chapter.bookId])))
        }
    }

    @Test func aToManyUnderAToManyUnderAToOne() throws {
        struct BookInfo: Decodable, FetchableRecord {
            struct CountryInfo: Decodable {
                var country: Country
                var authors: [AuthorInfo]
            }
            var book: Book
            var country: CountryInfo?
        }
        let request = Book.including(optional: Book.author.including(optional: Author.country.including(all: Country.authors.including(all: Author.books.order(Column("title").desc)).order(Column("id")))))
            .order(Column("id"))
        let infos = try request.asRequest(of: BookInfo.self).fetchAll(db)
        #expect(infos.count == 50)
        for info in infos {
            let code = try db.fetchScalar(String.self, sql: "SELECT author.countryCode FROM book JOIN author ON author.id = book.authorId WHERE book.id = ?", arguments: [info.book.id])
            #expect(info.country?.country.code == code)
            guard let country = info.country else { continue }
            let authors = try Author.fetchAll(db, sql: "SELECT * FROM author WHERE countryCode = ? ORDER BY id", arguments: [country.country.code])
            #expect(country.authors.map(\.author) == authors)
            for author in country.authors { #expect(author.books == (try books(of: author.author.id))) }
        }
        #expect(infos.contains { $0.country == nil } && infos.contains { $0.country != nil })
    }

    /// `init(row:)` records read their associations' scopes however a view finds them: a child's
    /// child through each parent's view, a grandchild named from the root, a key spelled with
    /// capitals, a to-one beside the root's own to-many rows; a scope's copy has its columns,
    /// and a key the row lacks is named with those it has.
    @Test func viewsOfScopesReadTheirOwnColumnsHoweverTheyAreFound() throws {
        struct CountryRow: RowDecodableRecord, Equatable {
            var code: String
            var name: String
            init(code: String, name: String) { (self.code, self.name) = (code, name) }
            init(row: borrowing RowView) throws {
                code = try row.decode(forColumn: "code")
                name = try row.decode(forColumn: "name")
            }
        }
        struct AuthorRow: RowDecodableRecord, Equatable {
            var name: String
            var country: CountryRow?
            init(name: String, country: CountryRow?) { (self.name, self.country) = (name, country) }
            init(row: borrowing RowView) throws {
                name = try row.decode(forColumn: "name")
                country = try row.decodeIfPresent(CountryRow.self, forKey: "country")
            }
        }
        /// What a copy of the author's scope holds.
        struct AuthorCopy: RowDecodableRecord, Equatable {
            var columnNames: [String]
            var id: Int64
            var countryCode: String?
            var name: String
            init(columnNames: [String], id: Int64, countryCode: String?, name: String) {
                (self.columnNames, self.id, self.countryCode, self.name) = (columnNames, id, countryCode, name)
            }
            init(row: borrowing RowView) throws {
                let copy = row.copy()
                (columnNames, id, countryCode, name) = (copy.columnNames, try copy.value(at: 0), try copy.value(at: 1), try copy.value(at: 2))
            }
        }
        struct BookRow: RowDecodableRecord {
            var title: String
            var author: AuthorRow?
            var countryFromTheRoot: CountryRow?
            var authorByCapitals: AuthorRow?
            var authorCopy: AuthorCopy?
            init(row: borrowing RowView) throws {
                title = try row.decode(forColumn: "title")
                author = try row.decodeIfPresent(AuthorRow.self, forKey: "author")
                countryFromTheRoot = try row.decodeIfPresent(CountryRow.self, forKey: "country")
                authorByCapitals = try row.decodeIfPresent(AuthorRow.self, forKey: "Author")
                authorCopy = try row.decodeIfPresent(AuthorCopy.self, forKey: "author")
            }
        }
        let request = Book.including(optional: Book.author.including(optional: Author.country)).order(Column("id"))
        let books = try request.asRequest(of: BookRow.self).fetchAll(db)
        let expected = try db.fetchAll(sql: """
            SELECT book.title, author.id, author.countryCode, author.name, country.code, country.name
            FROM book LEFT JOIN author ON author.id = book.authorId LEFT JOIN country ON country.code = author.countryCode
            ORDER BY book.id
            """)
        #expect(books.count == expected.count && books.count == 50)
        for (book, row) in zip(books, expected) {
            let country = try row.value(String?.self, at: 4).map { CountryRow(code: $0, name: try row.value(at: 5)) }
            let author = try row.value(String?.self, at: 3).map { AuthorRow(name: $0, country: country) }
            #expect(book.title == (try row.value(String.self, at: 0)))
            #expect(book.author == author)
            #expect(book.countryFromTheRoot == country)
            #expect(book.authorByCapitals == author)
            let copy = try row.value(Int64?.self, at: 1).map {
                AuthorCopy(columnNames: ["id", "countryCode", "name"], id: $0, countryCode: try row.value(at: 2), name: try row.value(at: 3))
            }
            #expect(book.authorCopy == copy)
        }
        #expect(books.contains { $0.author == nil } && books.contains { $0.author != nil && $0.countryFromTheRoot == nil }
            && books.contains { $0.countryFromTheRoot != nil })

        // A to-one read beside the root's own to-many rows.
        struct TitleRow: RowDecodableRecord {
            var title: String
            init(row: borrowing RowView) throws { title = try row.decode(forColumn: "title") }
        }
        struct AuthorBooksRow: RowDecodableRecord {
            var id: Int64
            var country: CountryRow?
            var titles: [String]
            init(row: borrowing RowView) throws {
                id = try row.decode(forColumn: "id")
                country = try row.decodeIfPresent(CountryRow.self, forKey: "country")
                titles = try row.decode([TitleRow].self, forKey: "books").map(\.title)
            }
        }
        let authors = try Author.including(all: Author.books.order(Column("title").desc)).including(optional: Author.country)
            .order(Column("id")).asRequest(of: AuthorBooksRow.self).fetchAll(db)
        #expect(authors.count == 12)
        for author in authors {
            let country = try db.fetchOne(sql: "SELECT country.code, country.name FROM author JOIN country ON country.code = author.countryCode WHERE author.id = ?", arguments: [author.id])
            #expect(author.country == (try country.map { CountryRow(code: try $0.value(at: 0), name: try $0.value(at: 1)) }))
            #expect(author.titles == (try self.books(of: author.id)).map(\.title))
        }
        #expect(authors.contains { $0.country == nil } && authors.contains { $0.country != nil })

        // A key the row does not have: the error names the ones it has.
        struct Publisher: RowDecodableRecord {
            init(row: borrowing RowView) throws {}
        }
        struct WithPublisher: RowDecodableRecord {
            init(row: borrowing RowView) throws { _ = try row.decode(Publisher.self, forKey: "publisher") }
        }
        #expect {
            _ = try request.asRequest(of: WithPublisher.self).fetchAll(db)
        } throws: { error in
            let description = (error as? RecordDecodingError)?.description ?? ""
            return description.contains("publisher") && description.contains("the row has author")
        }
    }

    @Test func rowsCountsCursorsAndWritesLeaveTheSecondQueryOut() throws {
        let request = Book.including(required: Book.author.including(all: Author.books)).filter(Column("id") <= 20)
        // Rows: the joined columns only (no hidden key), as the same SQL gives them.
        let rows = try Row.fetchAll(db, request)
        let expected = try db.fetchAll(sql: "SELECT book.*, author.* FROM book JOIN author ON author.id = book.authorId WHERE book.id <= 20")
        #expect(rows.map(\.values) == expected.map(\.values))
        #expect(rows.first?.columnNames == ["id", "authorId", "title", "id", "countryCode", "name"])
        #expect(try request.fetchCount(db) == rows.count)

        let cursor = #expect(throws: DatabaseError.self) { try request.fetchCursor(db) }
        #expect(cursor?.message?.contains("fetch this request with fetchAll") == true)

        // The request's rows are updated through it; the second query's association is no part of it.
        let joined = try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM book JOIN author ON author.id = book.authorId WHERE book.id > 40")
        let updated = try Book.including(required: Book.author.including(all: Author.books)).filter(Column("id") > 40).updateAll(db, Column("title").set(to: "kept"))
        #expect(updated == joined && updated > 0)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM book WHERE title = 'kept'") == joined)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM book WHERE id > 40 AND authorId IS NULL AND title <> 'kept'") ?? 0 > 0)
    }

    @Test func underAJoinThatSelectsNothingItIsRefused() throws {
        let joined = Book.joining(required: Book.author.including(all: Author.books))
        let error = #expect(throws: DatabaseError.self) { try joined.fetchAll(db) }
        #expect(error?.message?.contains("joined and not included") == true)
        #expect(error?.message?.contains("nothing was run") == true)

        let annotation = Book.annotated(withRequired: Book.author.select(Column("name").forKey("authorName")).including(all: Author.books))
        let annotationError = #expect(throws: DatabaseError.self) { try annotation.fetchAll(db) }
        #expect(annotationError?.message?.contains("annotation cannot include") == true)
    }
}
