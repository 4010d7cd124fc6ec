@testable import CipherStore
import Foundation
import Testing

/// Association aggregates inside another association: in a joined association (its selection,
/// its filter in ON), and in a prefetched one, each against the hand-written SQL.
extension AssociationThroughTests {
    struct AuthorWithBookCount: Decodable, Equatable, FetchableRecord {
        var id: Int64
        var name: String
        var bookCount: Int
    }

    @Test func anAggregateInAJoinedAssociation() throws {
        struct BookInfo: Decodable, Equatable, FetchableRecord {
            var book: Book
            var author: AuthorWithBookCount
        }
        let request = Book.including(required: Book.author.select(Column("id"), Column("name")).annotated(with: Author.books.count)
                                        .filter(Author.books.count >= 6))
            .order(Column("id"))
        #expect(try request.makeSQL(db).sql == #"SELECT "book".*, "author"."id", "author"."name", (SELECT COUNT(*) FROM "book" WHERE "book"."authorId" = "author"."id") AS "bookCount" FROM "book" JOIN "author" ON "author"."id" = "book"."authorId" AND (((SELECT COUNT(*) FROM "book" WHERE "book"."authorId" = "author"."id")) >= ?) ORDER BY "book"."id""#)
        let expected = try db.fetchAll(sql: """
            SELECT book.*, author.id, author.name, (SELECT COUNT(*) FROM book b WHERE b.authorId = author.id)
            FROM book JOIN author ON author.id = book.authorId AND (SELECT COUNT(*) FROM book b WHERE b.authorId = author.id) >= 6 ORDER BY book.id
            """).map { row in
            BookInfo(book: Book(id: try row.value(at: 0), authorId: try row.value(at: 1), title: try row.value(at: 2), year: try row.value(at: 3)),
                     author: AuthorWithBookCount(id: try row.value(at: 4), name: try row.value(at: 5), bookCount: try row.value(at: 6)))
        }
        #expect(try request.asRequest(of: BookInfo.self).fetchAll(db) == expected)
        #expect(!expected.isEmpty && expected.count < 100)
    }

    @Test func anAggregateInAPrefetchedAssociation() throws {
        struct BookWithTagCount: Decodable, Equatable, FetchableRecord {
            var id: Int64
            var title: String
            var tagCount: Int
        }
        struct LibraryInfo: Decodable, Equatable, FetchableRecord {
            var library: Library
            var books: [BookWithTagCount]
        }
        let infos = try Library.including(all: Library.books.select(Column("id"), Column("title")).annotated(with: Book.tags.count)
                                             .filter(Book.tags.isEmpty == false).order(Column("id")))
            .order(Column("id")).asRequest(of: LibraryInfo.self).fetchAll(db)
        #expect(infos.count == 3)
        for info in infos {
            let expected = try BookWithTagCount.fetchAll(db, sql: """
                SELECT book.id, book.title, (SELECT COUNT(*) FROM tag JOIN bookTag ON bookTag.tagId = tag.id WHERE bookTag.bookId = book.id) AS tagCount
                FROM book JOIN author ON author.id = book.authorId
                WHERE author.libraryId = ? AND EXISTS (SELECT 1 FROM tag JOIN bookTag ON bookTag.tagId = tag.id WHERE bookTag.bookId = book.id)
                ORDER BY book.id
                """, arguments: [info.library.id])
            #expect(info.books == expected, "\(info.library.name)")
        }
        #expect(infos[0].books.contains { $0.tagCount > 1 })
    }

    @Test func anAggregateThroughPivotsInAJoinedAssociation() throws {
        // The subquery joins "author" again, inside; its correlation names the outer "library".
        struct LibraryWithBookCount: Decodable, Equatable, FetchableRecord {
            var name: String
            var bookCount: Int
        }
        struct AuthorInfo: Decodable, Equatable, FetchableRecord {
            var author: Author
            var library: LibraryWithBookCount
        }
        let library = Author.belongsTo(Library.self)
        let request = Author.including(required: library.select(Column("name")).annotated(with: Library.books.count)).order(Column("id"))
        let expected = try db.fetchAll(sql: """
            SELECT author.*, library.name, (SELECT COUNT(*) FROM book JOIN author a ON a.id = book.authorId WHERE a.libraryId = library.id)
            FROM author JOIN library ON library.id = author.libraryId ORDER BY author.id
            """).map { row in
            AuthorInfo(author: Author(id: try row.value(at: 0), libraryId: try row.value(at: 1), countryCode: try row.value(at: 2), name: try row.value(at: 3)),
                       library: LibraryWithBookCount(name: try row.value(at: 4), bookCount: try row.value(at: 5)))
        }
        #expect(try request.asRequest(of: AuthorInfo.self).fetchAll(db) == expected)
        #expect(Set(expected.map(\.library.bookCount)).count == 2)
    }
}
