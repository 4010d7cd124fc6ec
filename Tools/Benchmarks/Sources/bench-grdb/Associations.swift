import BenchSupport
import Foundation
import GRDB

// GRDB's side of bench-cipherstore's workload 13: the same tables, data, records and pairs,
// so that each ratio can be set beside CipherStore's.

struct GRDBAuthor: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "author"
    var id: Int64
    var name: String
    var country: String
}

struct GRDBBook: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "book"
    static let author = belongsTo(GRDBAuthor.self)
    var id: Int64
    var authorId: Int64
    var title: String
    var year: Int64
}

/// A book and its author, decoded through the association's scope.
struct GRDBBookInfo: Decodable, FetchableRecord {
    var book: GRDBBook
    var author: GRDBAuthor
}

/// The same columns flat, decoded from the hand-written join.
struct GRDBFlatBookInfo: Decodable, FetchableRecord {
    var id: Int64
    var authorId: Int64
    var title: String
    var year: Int64
    var authorName: String
    var country: String
}

/// GRDB's ratios on workload 13, as table rows.
func grdbAssociationRows(_ bench: Benchmark, directory: String, books count: Int) throws -> [String] {
    let queue = try DatabaseQueue(path: directory + "/associations.db")
    try queue.write { db in
        try db.execute(sql: """
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
    }
    let joinSQL = """
        SELECT "book".*, "author".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId" ORDER BY "book"."id"
        """
    let flatSQL = """
        SELECT "book"."id", "book"."authorId", "book"."title", "book"."year", "author"."name" AS "authorName", "author"."country"
        FROM "book" JOIN "author" ON "author"."id" = "book"."authorId" ORDER BY "book"."id"
        """
    let request = GRDBBook.including(required: GRDBBook.author).order(Column("id"))
    return try queue.read { db in
        let check = try Int64.fetchOne(db, sql: "SELECT sum(book.year + author.id) FROM book JOIN author ON author.id = book.authorId") ?? 0
        // A GRDB row of an association request shows its base table's columns: `unadapted`
        // is the whole row, as CipherStore's `Row` is.
        let rowSum = { (rows: [GRDB.Row]) in rows.reduce(0) { $0 &+ ($1.unadapted[3] as Int64) &+ ($1.unadapted[4] as Int64) } }
        let (sqlRows, requestRows) = try bench.compare("GRDB: Row.fetchAll(db, sql:) book JOIN author", "GRDB: Row.fetchAll(db, including(required:))", baseline: {
            let rows = try GRDB.Row.fetchAll(db, sql: joinSQL)
            precondition(rows.count == count && rowSum(rows) == check)
        }) {
            let rows = try GRDB.Row.fetchAll(db, request)
            precondition(rows.count == count && rowSum(rows) == check)
        }
        let (flat, nested) = try bench.compare("GRDB: flat Decodable from the join", "GRDB: Decodable { book, author } through the association", baseline: {
            let infos = try GRDBFlatBookInfo.fetchAll(db, sql: flatSQL)
            precondition(infos.count == count && infos.reduce(0) { $0 &+ $1.year &+ $1.authorId } == check)
        }) {
            let infos = try request.asRequest(of: GRDBBookInfo.self).fetchAll(db)
            precondition(infos.count == count && infos.reduce(0) { $0 &+ $1.book.year &+ $1.author.id } == check)
        }
        return [
            Benchmark.row("13. \(count) books with their authors: association request vs the same SQL written out (rows)",
                          baseline: sqlRows, library: requestRows, target: "≤ 1.10×", marksMisses: false),
            Benchmark.row("13. \(count) books with their authors: Decodable through the association vs a flat Decodable",
                          baseline: flat, library: nested, target: "≤ 1.20×", marksMisses: false),
        ]
    }
}
