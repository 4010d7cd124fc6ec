@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// Records that build themselves with `init(row:)` (``RowDecodableRecord``): every fetch path
/// uses it instead of `init(from:)`, and each result equals what the same SQL reads by hand.
/// The initializers here upper-case the names they read, so a record built by `init(from:)`
/// instead would show.
@Suite struct RowDecodableRecordTests {
    struct Author: Codable, Equatable, FetchableRecord, TableRecord, RowDecodableRecord {
        static let databaseTableName = "author"
        static let books = hasMany(Book.self)
        var id: Int64
        var name: String
        var country: String?

        init(id: Int64, name: String, country: String?) {
            self.id = id
            self.name = name
            self.country = country
        }

        init(row: borrowing RowView) throws {
            id = try row.decode(atIndex: 0)
            name = try row.decode(String.self, forColumn: "name").uppercased()
            country = try row.decode(forColumn: "country")
        }
    }

    struct Book: Codable, Equatable, FetchableRecord, TableRecord, RowDecodableRecord {
        static let databaseTableName = "book"
        static let author = belongsTo(Author.self)
        var id: Int64
        var authorId: Int64?
        var title: String
        /// Not a column: read as nil when the row has no such column.
        var subtitle: String?

        init(id: Int64, authorId: Int64?, title: String) {
            self.id = id
            self.authorId = authorId
            self.title = title
        }

        init(row: borrowing RowView) throws {
            id = try row.decode(forColumn: "id")
            authorId = try row.decode(forColumn: "authorId")
            title = try row.decode(String.self, forColumn: "title").uppercased()
            subtitle = try row.decode(forColumn: "subtitle")
        }
    }

    /// A book and its author, read from the association's scope.
    struct BookInfo: Decodable, FetchableRecord, RowDecodableRecord {
        var book: Book
        var author: Author?

        init(row: borrowing RowView) throws {
            book = try Book(row: row)
            author = try row.decodeIfPresent(forKey: "author")
        }
    }

    /// An author and the books of `including(all:)`.
    struct AuthorBooks: Decodable, FetchableRecord, RowDecodableRecord {
        var author: Author
        var books: [Book]

        init(row: borrowing RowView) throws {
            author = try Author(row: row)
            books = try row.decode([Book].self, forKey: "books")
        }
    }

    let directory: TemporaryDirectory
    let db: Connection

    init() throws {
        directory = try TemporaryDirectory()
        db = try Connection(path: directory.path("rows.db"), key: .rawKey(hex: String(repeating: "5a", count: 32)))
        try db.executeScript("""
            CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT);
            CREATE TABLE book(id INTEGER PRIMARY KEY, authorId INTEGER REFERENCES author(id), title TEXT NOT NULL);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12)
            INSERT INTO author SELECT i, 'author ' || i, CASE WHEN i % 3 = 0 THEN NULL ELSE 'c' || (i % 4) END FROM n;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60)
            INSERT INTO book SELECT i, CASE WHEN i % 7 = 0 THEN NULL ELSE (i * 5) % 10 + 1 END, 'book ' || i FROM n;
            """)
    }

    /// Authors read by hand from SQL selecting `id, name, country`, as `init(row:)` reads them.
    func authors(_ sql: String) throws -> [Author] {
        try db.fetchAll(sql: sql).map { Author(id: try $0.value(at: 0), name: try $0.value(String.self, at: 1).uppercased(), country: try $0.value(at: 2)) }
    }

    func books(_ sql: String) throws -> [Book] {
        try db.fetchAll(sql: sql).map { Book(id: try $0.value(at: 0), authorId: try $0.value(at: 1), title: try $0.value(String.self, at: 2).uppercased()) }
    }

    @Test func everyFetchOfTheTypeUsesItsInitRow() throws {
        let expected = try authors("SELECT id, name, country FROM author ORDER BY id")
        #expect(try Author.fetchAll(db, sql: "SELECT * FROM author ORDER BY id") == expected)
        #expect(try Author.order(Column("id")).fetchAll(db) == expected)
        #expect(try Author.fetchOne(db, sql: "SELECT * FROM author WHERE id = 5") == expected[4])
        #expect(try Author.find(db, key: 5) == expected[4])
        let cursor = try Author.fetchCursor(db, sql: "SELECT * FROM author ORDER BY id")
        var fromCursor: [Author] = []
        while let author = try cursor.next() { fromCursor.append(author) }
        #expect(fromCursor == expected)
        let row = try #require(try db.fetchOne(sql: "SELECT * FROM author WHERE id = 2"))
        #expect(try db.decode(Author.self, from: row) == expected[1])
        #expect(expected[1].name == "AUTHOR 2")
    }

    /// A decoder keeps one view of its statement's current row for every row; given another
    /// statement's row, or a scope of it, it reads that one.
    @Test func aDecoderGivenAnotherRowReadsThatRow() throws {
        let expected = try authors("SELECT id, name, country FROM author ORDER BY id")
        let first = try db.makeStatement(sql: "SELECT * FROM author WHERE id IN (1, 2) ORDER BY id")
        let second = try db.makeStatement(sql: "SELECT * FROM author WHERE id = 5")
        let decoder = RecordDecoder(source: .statement(first))
        #expect(try first.step())
        #expect(try decoder.decode(Author.self) == expected[0])
        #expect(try second.step())
        #expect(try decoder.decode(Author.self, from: .statement(second)) == expected[4])
        #expect(try first.step())
        #expect(try decoder.decode(Author.self, from: .statement(first)) == expected[1])

        // The same statement, seen through the scope of its second table's columns.
        let joined = try db.makeStatement(sql: "SELECT 9 AS id, 'x' AS name, NULL AS country, author.* FROM author WHERE id = 3")
        #expect(try joined.step())
        let plan = ScopePlan(layout: ScopeLayout(range: 0..<3, children: [.init(key: "author", isOptional: false, layout: ScopeLayout(range: 3..<6))]),
                             columnNames: joined.columnNames, visibleWidth: 6)
        let scoped = RecordDecoder(source: .statement(joined))
        #expect(try scoped.decode(Author.self) == Author(id: 9, name: "X", country: nil))
        #expect(try scoped.decode(Author.self, scoped: ScopedRow(source: .statement(joined), plan: plan.children[0].plan)) == expected[2])
    }

    @Test func associationsAreReadFromTheirScopes() throws {
        let infos = try Book.including(optional: Book.author).order(Column("id")).asRequest(of: BookInfo.self).fetchAll(db)
        let joined = try db.fetchAll(sql: "SELECT book.id, book.authorId, book.title, author.id, author.name, author.country FROM book LEFT JOIN author ON author.id = book.authorId ORDER BY book.id")
        #expect(infos.map(\.book) == (try joined.map { Book(id: try $0.value(at: 0), authorId: try $0.value(at: 1), title: try $0.value(String.self, at: 2).uppercased()) }))
        #expect(infos.map(\.author) == (try joined.map { row -> Author? in
            guard let id = try row.value(Int64?.self, at: 3) else { return nil }
            return Author(id: id, name: try row.value(String.self, at: 4).uppercased(), country: try row.value(at: 5))
        }))
        #expect(infos.contains { $0.author == nil } && infos.contains { $0.author != nil })

        // A Decodable record with init(row:) records inside: they are built by init(row:) too.
        struct Pair: Decodable, FetchableRecord { var book: Book; var author: Author }
        let pairs = try Book.including(required: Book.author).order(Column("id")).asRequest(of: Pair.self).fetchAll(db)
        #expect(pairs.map(\.author.name).allSatisfy { $0 == $0.uppercased() && $0.hasPrefix("AUTHOR") })
        #expect(pairs.map(\.book) == infos.filter { $0.author != nil }.map(\.book))

        // A required association read with decode(forKey:), row after row.
        struct Required: Decodable, FetchableRecord, RowDecodableRecord {
            var book: Book
            var author: Author
            init(row: borrowing RowView) throws {
                book = try Book(row: row)
                author = try row.decode(forKey: "author")
            }
        }
        let required = try Book.including(required: Book.author).order(Column("id")).asRequest(of: Required.self).fetchAll(db)
        #expect(required.map(\.book) == infos.filter { $0.author != nil }.map(\.book))
        #expect(required.map(\.author) == infos.compactMap(\.author))
        #expect(Set(required.map(\.author.id)).count > 1)

        // Two scopes of one row, each read by its key: the author, and the same author under
        // another key only where the country is c1.
        struct TwoScopes: Decodable, FetchableRecord, RowDecodableRecord {
            var author: Author
            var fromC1: Author?
            init(row: borrowing RowView) throws {
                author = try row.decode(forKey: "author")
                fromC1 = try row.decodeIfPresent(forKey: "fromc1")
            }
        }
        let twoScopes = try Book.including(required: Book.author)
            .including(optional: Book.author.filter(Column("country") == "c1").forKey("fromC1"))
            .order(Column("id")).asRequest(of: TwoScopes.self).fetchAll(db)
        #expect(twoScopes.map(\.author) == required.map(\.author))
        #expect(twoScopes.map(\.fromC1) == required.map { $0.author.country == "c1" ? $0.author : nil })
        #expect(twoScopes.contains { $0.fromC1 == nil } && twoScopes.contains { $0.fromC1 != nil })

        // including(all:): each author's books, in the association's order.
        let authorBooks = try Author.including(all: Author.books.order(Column("id").desc)).order(Column("id")).asRequest(of: AuthorBooks.self).fetchAll(db)
        #expect(authorBooks.map(\.author) == (try authors("SELECT * FROM author ORDER BY id")))
        for entry in authorBooks {
            #expect(entry.books == (try books("SELECT id, authorId, title FROM book WHERE authorId = \(entry.author.id) ORDER BY id DESC")))
        }
    }

    @Test func readsThatDoNotFitThrowWithWhatTheRowHas() throws {
        // A scope the request does not include.
        #expect {
            _ = try Book.order(Column("id")).asRequest(of: BookInfo.self).fetchAll(db)
        } throws: { error in
            guard let error = error as? RecordDecodingError else { return false }
            return error.description.contains("author") && error.description.contains("no associations")
        }
        // A required read of an optional association that matched no row.
        struct StrictInfo: Decodable, FetchableRecord, RowDecodableRecord {
            var author: Author
            init(row: borrowing RowView) throws { author = try row.decode(forKey: "author") }
        }
        #expect(throws: RecordDecodingError.self) {
            _ = try Book.including(optional: Book.author).filter(Column("authorId") == nil).asRequest(of: StrictInfo.self).fetchAll(db)
        }
        // A missing column that is not optional, and a value that does not convert.
        #expect {
            _ = try Author.fetchAll(db, sql: "SELECT id, country FROM author")
        } throws: { error in
            guard case .valueConversion(let column, let reason)? = error as? CipherStoreError else { return false }
            return column == "name" && reason.contains("id, country")
        }
        #expect {
            _ = try Author.fetchAll(db, sql: "SELECT 'x' AS id, name, country FROM author")
        } throws: { error in
            guard case .valueConversion(let column, _)? = error as? CipherStoreError else { return false }
            return column == "id"
        }
    }

    /// The typed reads of a statement's row (Int64, Int, Double, String read with SQLite's own
    /// calls) convert as a fetched row does: the same values, the same refusals.
    @Test func typedReadsConvertAsAFetchedRowDoes() throws {
        struct Mixed: Decodable, FetchableRecord, RowDecodableRecord {
            var values: [String]
            init(row: borrowing RowView) throws {
                func read(_ body: () throws -> String) -> String { (try? body()) ?? "refused" }
                values = (0..<row.count).flatMap { index in [
                    read { String(try row.decode(Int64.self, atIndex: index)) },
                    read { String(try row.decode(Int.self, atIndex: index)) },
                    read { String(try row.decode(Double.self, atIndex: index)) },
                    read { try row.decode(String.self, atIndex: index) },
                    read { String(describing: try row.decode(Int64?.self, atIndex: index)) },
                ] }
            }
        }
        let sql = "SELECT 7, 3.0, 3.5, 'text', NULL, x'01', 9223372036854775807, '12'"
        let inPlace = try #require(try Mixed.fetchOne(db, sql: sql))
        let fetched = try db.decode(Mixed.self, from: try #require(try db.fetchOne(sql: sql)))
        #expect(inPlace.values == fetched.values)
        #expect(Array(inPlace.values[0..<5]) == ["7", "7", "7.0", "refused", "Optional(7)"])
        #expect(Array(inPlace.values[5..<10]) == ["3", "3", "3.0", "refused", "Optional(3)"])
        #expect(Array(inPlace.values[10..<15]) == ["refused", "refused", "3.5", "refused", "refused"])
        #expect(Array(inPlace.values[15..<20]) == ["refused", "refused", "refused", "text", "refused"])
        #expect(Array(inPlace.values[20..<25]) == ["refused", "refused", "refused", "refused", "nil"])
        #expect(inPlace.values[38] == "12", "a text column reads as a String, never as a number")
        #expect(inPlace.values[35] == "refused")
    }
}
