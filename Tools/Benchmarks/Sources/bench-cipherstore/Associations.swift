import BenchSupport
import CipherStore

/// An author of the association workload.
struct BenchAuthor: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "author"
    static let books = hasMany(BenchBook.self)
    var id: Int64
    var name: String
    var country: String
}

/// A book, which belongs to its author.
struct BenchBook: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "book"
    static let author = belongsTo(BenchAuthor.self)
    var id: Int64
    var authorId: Int64
    var title: String
    var year: Int64
}

/// A book and its author, decoded through the association's scope.
struct BenchBookInfo: Decodable, FetchableRecord {
    var book: BenchBook
    var author: BenchAuthor
}

/// The same columns flat, decoded from the hand-written join.
struct BenchFlatBookInfo: Decodable, FetchableRecord {
    var id: Int64
    var authorId: Int64
    var title: String
    var year: Int64
    var authorName: String
    var country: String
}

/// A book and its author, each built by its own `init(row:)`, the author from the association's scope.
struct BenchBookRow: Decodable, FetchableRecord, RowDecodableRecord {
    var id: Int64
    var authorId: Int64
    var title: String
    var year: Int64
    var author: BenchAuthorRow

    init(row: borrowing RowView) throws {
        id = try row.decode(forColumn: "id")
        authorId = try row.decode(forColumn: "authorId")
        title = try row.decode(forColumn: "title")
        year = try row.decode(forColumn: "year")
        author = try row.decode(forKey: "author")
    }
}

/// An author built by its `init(row:)`.
struct BenchAuthorRow: Decodable, FetchableRecord, RowDecodableRecord {
    var id: Int64
    var name: String
    var country: String

    init(row: borrowing RowView) throws {
        id = try row.decode(forColumn: "id")
        name = try row.decode(forColumn: "name")
        country = try row.decode(forColumn: "country")
    }
}

/// The same six columns flat from the join, built by `init(row:)`.
struct BenchFlatBookRow: Decodable, FetchableRecord, RowDecodableRecord {
    var id: Int64
    var authorId: Int64
    var title: String
    var year: Int64
    var authorName: String
    var country: String

    init(row: borrowing RowView) throws {
        id = try row.decode(forColumn: "id")
        authorId = try row.decode(forColumn: "authorId")
        title = try row.decode(forColumn: "title")
        year = try row.decode(forColumn: "year")
        authorName = try row.decode(forColumn: "authorName")
        country = try row.decode(forColumn: "country")
    }
}

/// Workload 13: a request with an association against the same SQL written out.
func associationWorkloads(_ bench: Benchmark, directory: String, books count: Int, key: DatabaseKey) throws -> [String] {
    let queue = try DatabaseQueue(path: directory + "/associations.db", key: key)
    try queue.inTransaction { db in
        try db.executeScript("""
            CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT NOT NULL);
            CREATE TABLE book(id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL REFERENCES author(id), title TEXT NOT NULL, year INTEGER NOT NULL);
            CREATE INDEX book_authorId ON book(authorId);
            """)
        for id in 1...1_000 {
            try db.execute(sql: "INSERT INTO author VALUES (?, ?, ?)", arguments: [Int64(id), "Author \(id)", "Country \(id % 50)"])
        }
        for id in 1...count {
            try db.execute(sql: "INSERT INTO book VALUES (?, ?, ?, ?)", arguments: [Int64(id), Int64(id % 1_000 + 1), "Title \(id)", Int64(1900 + id % 120)])
        }
        return .commit
    }
    let joinSQL = """
        SELECT "book".*, "author".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId" ORDER BY "book"."id"
        """
    let request = BenchBook.including(required: BenchBook.author).order(Column("id"))
    var results: [String] = []
    try queue.inDatabase { db in
        let check = try Int64.fetchAll(db, sql: "SELECT sum(book.year + author.id) FROM book JOIN author ON author.id = book.authorId").first ?? 0
        let (baseline, library) = try bench.compare("CipherStore: db.fetchAll(sql:) book JOIN author", "CipherStore: Row.fetchAll(db, including(required:))", baseline: {
            let rows = try db.fetchAll(sql: joinSQL)
            precondition(rows.count == count && rows.reduce(0) { $0 &+ (try! $1.value(Int64.self, at: 3)) &+ (try! $1.value(Int64.self, at: 4)) } == check)
        }) {
            let rows = try Row.fetchAll(db, request)
            precondition(rows.count == count && rows.reduce(0) { $0 &+ (try! $1.value(Int64.self, at: 3)) &+ (try! $1.value(Int64.self, at: 4)) } == check)
        }
        results.append(Benchmark.row("13. \(count) books with their authors: association request vs the same SQL written out (rows)",
                                     baseline: baseline, library: library, target: "≤ 1.10×"))
        let flatSQL = """
            SELECT "book"."id", "book"."authorId", "book"."title", "book"."year", "author"."name" AS "authorName", "author"."country"
            FROM "book" JOIN "author" ON "author"."id" = "book"."authorId" ORDER BY "book"."id"
            """
        // Each way of reading the rows once; the rows below pair them.
        let rowRequest = request.asRequest(of: BenchBookRow.self)
        let flatDecodable = {
            let infos = try BenchFlatBookInfo.fetchAll(db, sql: flatSQL)
            precondition(infos.count == count && infos.reduce(0) { $0 &+ $1.year &+ $1.authorId } == check)
        }
        let nestedDecodable = {
            let infos = try request.asRequest(of: BenchBookInfo.self).fetchAll(db)
            precondition(infos.count == count && infos.reduce(0) { $0 &+ $1.book.year &+ $1.author.id } == check)
        }
        let flatRowRecord = {
            let infos = try BenchFlatBookRow.fetchAll(db, sql: flatSQL)
            precondition(infos.count == count && infos.reduce(0) { $0 &+ $1.year &+ $1.authorId } == check)
        }
        let nestedRowRecord = {
            let infos = try rowRequest.fetchAll(db)
            precondition(infos.count == count && infos.reduce(0) { $0 &+ $1.year &+ $1.author.id } == check)
        }
        let (flat, nested) = try bench.compare("CipherStore: flat Decodable from the join", "CipherStore: Decodable { book, author } through the association",
                                               baseline: flatDecodable, contender: nestedDecodable)
        results.append(Benchmark.row("13. \(count) books with their authors: Decodable through the association vs a flat Decodable",
                                     baseline: flat, library: nested, target: "≤ 1.20×"))
        let (flatRow, nestedRow) = try bench.compare("CipherStore: flat init(row:) record from the join", "CipherStore: init(row:) records { book, author } through the association",
                                                     baseline: flatRowRecord, contender: nestedRowRecord)
        results.append(Benchmark.row("13. \(count) books with their authors: init(row:) records through the association vs the same record flat",
                                     baseline: flatRow, library: nestedRow, target: "≤ 1.20×"))
        let (flatAgain, nestedRowVsDecodable) = try bench.compare("CipherStore: flat Decodable from the join", "CipherStore: init(row:) records { book, author } through the association",
                                                                  baseline: flatDecodable, contender: nestedRowRecord)
        results.append(Benchmark.row("13. \(count) books with their authors: init(row:) records through the association vs a flat Decodable",
                                     baseline: flatAgain, library: nestedRowVsDecodable, target: "≤ 1.20×"))
    }
    return results
}
