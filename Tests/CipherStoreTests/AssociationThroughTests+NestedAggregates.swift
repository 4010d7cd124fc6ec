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
                SELECT book.id, book.title, (SELECT COUNT(DISTINCT tag.id) FROM tag JOIN bookTag ON bookTag.tagId = tag.id WHERE bookTag.bookId = book.id) AS tagCount
                FROM book JOIN author ON author.id = book.authorId
                WHERE author.libraryId = ? AND EXISTS (SELECT 1 FROM tag JOIN bookTag ON bookTag.tagId = tag.id WHERE bookTag.bookId = book.id)
                ORDER BY book.id
                """, arguments: [info.library.id])
            #expect(info.books == expected, "\(info.library.name)")
        }
        #expect(infos[0].books.allSatisfy { $0.tagCount >= 1 } && !infos[0].books.isEmpty)
        // Books tagged twice with the same tag are among them: each tag counts once.
        #expect(try db.fetchScalar(Int.self, sql: "SELECT COUNT(*) FROM (SELECT bookId FROM bookTag GROUP BY bookId, tagId HAVING COUNT(*) > 1)")! > 0)
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

/// A request's own joins and aggregates beside the pivots of an association through others.
extension AssociationThroughTests {
    @Test func aJoinOfTheRequestNeverMergesWithAPivotReadBack() throws {
        struct BookTags: Decodable, FetchableRecord {
            var book: Book
            var tags: [Tag]
        }
        // The destination joins the pivot table again, under the pivot's own key: two joins.
        let bookTagsOfTag = Tag.hasMany(BookTag.self)
        let request = Book.including(all: Book.tags.joining(required: bookTagsOfTag.filter(Column("weight") == 2)).order(Column("id")))
            .filter(Column("id") <= 30).order(Column("id"))
        let infos = try request.asRequest(of: BookTags.self).fetchAll(db)
        for info in infos {
            let expected = try db.fetchAll(Int64.self, sql: """
                SELECT tag.id FROM tag JOIN bookTag ON bookTag.tagId = tag.id AND bookTag.bookId = ?
                JOIN bookTag b2 ON b2.tagId = tag.id AND b2.weight = 2 ORDER BY tag.id
                """, arguments: [info.book.id])
            #expect(info.tags.map(\.id) == expected, "\(info.book.title)")
        }
        #expect(infos.contains { !$0.tags.isEmpty })
        // The same pivot included with including(all:) under the destination.
        struct TagWithLinks: Decodable, FetchableRecord {
            var tag: Tag
            var bookTags: [BookTag]
        }
        struct BookTagsWithLinks: Decodable, FetchableRecord {
            var book: Book
            var tags: [TagWithLinks]
        }
        let nested = try Book.including(all: Book.tags.including(all: bookTagsOfTag)).filter(Column("id") == 2).asRequest(of: BookTagsWithLinks.self).fetchAll(db)
        let links = try db.fetchScalar(Int.self, sql: "SELECT COUNT(*) FROM bookTag WHERE tagId IN (SELECT tagId FROM bookTag WHERE bookId = 2)")
        #expect(nested.first.map { Set($0.tags.map(\.tag.id)).reduce(0) { total, id in total + ((try? db.fetchScalar(Int.self, sql: "SELECT COUNT(*) FROM bookTag WHERE tagId = ?", arguments: [id])) ?? 0) } } == links)
    }

    @Test func aggregatesNestedInAggregatesAreCorrelatedWithTheirOwnTable() throws {
        // A few books with two tags or more (the fixture gives each book one tag, repeated).
        try db.execute(sql: "INSERT INTO bookTag SELECT id, (id % 8) + 1, 1 FROM book WHERE id % 5 = 0 UNION ALL SELECT id, ((id + 3) % 8) + 1, 1 FROM book WHERE id % 5 = 0")
        let siblings = Book.hasMany(Book.self, through: Book.author, using: Author.books, key: "siblings")
        let counted = try Book.select(Column("id")).annotated(with: siblings.filter(Book.tags.count >= 2).count).order(Column("id"))
            .asRequest(of: Row.self).fetchAll(db).map { try $0.value(Int.self, at: 1) }
        #expect(counted == (try db.fetchAll(Int.self, sql: """
            SELECT (SELECT COUNT(*) FROM book s WHERE s.authorId = book.authorId
                AND (SELECT COUNT(DISTINCT bt.tagId) FROM bookTag bt WHERE bt.bookId = s.id) >= 2)
            FROM book ORDER BY id
            """)))
        #expect(counted.contains { $0 > 0 })
        // The same nesting in a direct association's aggregate and in a joined association's filter.
        let authors = try Author.select(Column("id")).annotated(with: Author.books.filter(Book.tags.count >= 2).count).order(Column("id"))
            .asRequest(of: Row.self).fetchAll(db).map { try $0.value(Int.self, at: 1) }
        #expect(authors == (try db.fetchAll(Int.self, sql: """
            SELECT (SELECT COUNT(*) FROM book WHERE book.authorId = author.id
                AND (SELECT COUNT(DISTINCT bt.tagId) FROM bookTag bt WHERE bt.bookId = book.id) >= 2)
            FROM author ORDER BY id
            """)))
        let books = try Book.joining(required: Book.author.filter(Author.books.filter(Book.tags.count >= 2).count >= 1))
            .select(Column("id"), as: Int64.self).order(Column("id")).fetchAll(db)
        #expect(books == (try db.fetchAll(Int64.self, sql: """
            SELECT book.id FROM book JOIN author ON author.id = book.authorId AND (SELECT COUNT(*) FROM book b WHERE b.authorId = author.id
                AND (SELECT COUNT(DISTINCT bt.tagId) FROM bookTag bt WHERE bt.bookId = b.id) >= 2) >= 1 ORDER BY book.id
            """)))
        #expect(!books.isEmpty)
    }

    @Test func reversedReversesThePivotsOrderings() throws {
        let byWeight = Book.hasMany(Tag.self, through: Book.bookTags.order(Column("weight"), Column("tagId")), using: BookTag.tag)
        let book = try #require(try Book.fetchOne(db, key: 2))
        let forward = try book.request(for: byWeight).fetchAll(db).map(\.id)
        let backward = try book.request(for: byWeight).reversed().fetchAll(db).map(\.id)
        #expect(forward == (try db.fetchAll(Int64.self, sql: "SELECT tagId FROM bookTag WHERE bookId = 2 ORDER BY weight, tagId")))
        #expect(backward == forward.reversed() && forward.count > 1)
    }
}

/// Pivots shared with the request's joins of the same association, as GRDB merges them.
extension AssociationThroughTests {
    @Test func aPivotIsTheJoinOfTheSameAssociationInTheRequest() throws {
        // The authors joined directly are the pivot: both conditions apply to one JOIN.
        let request = Library.joining(required: Library.authors.filter(Column("countryCode") == "JP"))
            .joining(required: Library.books.filter(Column("year") > 2000)).select(Column("id")).distinct().order(Column("id"))
        #expect(try request.makeSQL(db).sql == #"SELECT DISTINCT "library"."id" FROM "library" JOIN "author" ON "author"."libraryId" = "library"."id" AND ("author"."countryCode" = ?) JOIN "book" ON "book"."authorId" = "author"."id" AND ("book"."year" > ?) ORDER BY "library"."id""#)
        #expect(try request.asRequest(of: Int64.self).fetchAll(db) == (try db.fetchAll(Int64.self, sql: """
            SELECT DISTINCT library.id FROM library JOIN author ON author.libraryId = library.id AND author.countryCode = 'JP'
            JOIN book ON book.authorId = author.id AND book.year > 2000 ORDER BY library.id
            """)))
        // An included author and a country through the author: the author once, still required.
        struct BookInfo: Decodable, Equatable, FetchableRecord {
            var book: Book
            var author: Author
            var country: Country?
        }
        let infos = Book.including(optional: Book.country).including(required: Book.author).order(Column("id"))
        #expect(try infos.makeSQL(db).sql == #"SELECT "book".*, "country".*, "author".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId" LEFT JOIN "country" ON "country"."code" = "author"."countryCode" ORDER BY "book"."id""#)
        let fetched = try infos.asRequest(of: BookInfo.self).fetchAll(db)
        #expect(fetched.count == (try db.fetchScalar(Int.self, sql: "SELECT COUNT(*) FROM book JOIN author ON author.id = book.authorId")))
        #expect(fetched.allSatisfy { $0.country?.code == $0.author.countryCode })
        // Two through associations of the same kind from the same pivot share it.
        let library = Book.hasOne(Library.self, through: Book.author, using: Author.belongsTo(Library.self))
        let both = Book.joining(optional: Book.country).joining(optional: library).select(Column("id"))
        #expect(try both.makeSQL(db).sql == #"SELECT "book"."id" FROM "book" LEFT JOIN "author" ON "author"."id" = "book"."authorId" LEFT JOIN "country" ON "country"."code" = "author"."countryCode" LEFT JOIN "library" ON "library"."id" = "author"."libraryId""#)
        #expect(try both.fetchCount(db) == 120)
    }

    @Test func sharingAPivotKeepsTheRequestsOrderAndThePivotsOwnJoins() throws {
        // The orderings follow the request's order of associations, shared pivot or not.
        let writer = Book.belongsTo(Author.self, key: "writer")
        let ordered = Book.joining(optional: Book.country.order(Column("name").desc)).joining(optional: writer.order(Column("name")))
            .select(Column("id"), as: Int64.self)
        #expect(try ordered.fetchAll(db) == (try db.fetchAll(Int64.self, sql: """
            SELECT book.id FROM book LEFT JOIN author ON author.id = book.authorId LEFT JOIN country ON country.code = author.countryCode
            ORDER BY country.name DESC, author.name
            """)))
        // A pivot that joins a table of its own keeps that join when it is shared.
        let northCountry = Book.hasOne(Country.self, through: Book.author.joining(required: Author.belongsTo(Library.self).filter(Column("name") == "north")),
                                       using: Author.country, key: "northCountry")
        let expected = try db.fetchAll(Int64.self, sql: """
            SELECT book.id FROM book JOIN author ON author.id = book.authorId JOIN library ON library.id = author.libraryId AND library.name = 'north'
            JOIN country ON country.code = author.countryCode ORDER BY book.id
            """)
        #expect(try Book.joining(required: northCountry).select(Column("id"), as: Int64.self).order(Column("id")).fetchAll(db) == expected)
        #expect(try Book.joining(required: Book.author).joining(required: northCountry).select(Column("id"), as: Int64.self).order(Column("id")).fetchAll(db) == expected)
        #expect(try Book.joining(required: Book.country).joining(required: northCountry).select(Column("id"), as: Int64.self).order(Column("id")).fetchAll(db) == expected)
        #expect(try Book.joining(required: northCountry).joining(required: Book.author).select(Column("id"), as: Int64.self).order(Column("id")).fetchAll(db) == expected)
        #expect(!expected.isEmpty && expected.count < 100)
    }
}

/// Aggregates of an association that joins or includes others: each of its rows counts once,
/// whatever the joined rows, against the hand-written SQL.
extension AssociationThroughTests {
    @Test func anAggregateOfAnAssociationThatJoinsOthers() throws {
        struct AuthorCounts: Decodable, Equatable, FetchableRecord {
            var id: Int64
            var heavilyTaggedBooks: Int
            var taggedYears: Int?
            var japaneseBooks: Int
        }
        // A to-many join (several tags per book): each book once.
        let heavy = Author.books.joining(required: Book.bookTags.filter(Column("weight") > 1 && Column("tagId") <= 5))
        let tagged = Author.books.joining(required: Book.bookTags)
        // An included association (through others) only filters in an aggregate.
        let japanese = Author.books.including(required: Book.country.filter(Column("code") == "JP"))
        let request = Author.select(Column("id"))
            .annotated(with: heavy.count.forKey("heavilyTaggedBooks"), tagged.sum(Column("year")).forKey("taggedYears"),
                       japanese.count.forKey("japaneseBooks"))
            .order(Column("id"))
        let expected = try AuthorCounts.fetchAll(db, sql: """
            SELECT author.id,
                (SELECT COUNT(*) FROM book WHERE book.authorId = author.id
                    AND EXISTS (SELECT 1 FROM bookTag WHERE bookTag.bookId = book.id AND bookTag.weight > 1 AND bookTag.tagId <= 5)) AS heavilyTaggedBooks,
                (SELECT SUM(year) FROM book WHERE book.authorId = author.id
                    AND EXISTS (SELECT 1 FROM bookTag WHERE bookTag.bookId = book.id)) AS taggedYears,
                (SELECT COUNT(*) FROM book JOIN author a ON a.id = book.authorId JOIN country ON country.code = a.countryCode AND country.code = 'JP'
                    WHERE book.authorId = author.id) AS japaneseBooks
            FROM author ORDER BY author.id
            """)
        #expect(try Author.select(Column("id")).annotated(with: heavy.count).makeSQL(db).sql == #"SELECT "id", (SELECT COUNT(*) FROM "book" "book_aggregated" WHERE "book_aggregated"."rowid" IN (SELECT "book"."rowid" FROM "book" JOIN "bookTag" ON "bookTag"."bookId" = "book"."id" AND (("bookTag"."weight" > ?) AND ("bookTag"."tagId" <= ?)) WHERE ("book"."authorId" = ("author"."id")))) AS "bookCount" FROM "author""#)
        let counts = try request.asRequest(of: AuthorCounts.self).fetchAll(db)
        #expect(counts == expected)
        #expect(expected.contains { $0.heavilyTaggedBooks > 1 } && expected.contains { $0.heavilyTaggedBooks == 0 })
        #expect(expected.contains { $0.japaneseBooks > 1 } && expected.contains { $0.japaneseBooks == 0 })
        // Some books have several heavy tags: a join's rows counted would say more.
        let joinedRows = try db.fetchScalar(Int.self, sql: "SELECT COUNT(*) FROM book JOIN bookTag ON bookTag.bookId = book.id AND bookTag.weight > 1 AND bookTag.tagId <= 5 WHERE book.authorId IS NOT NULL")
        #expect(joinedRows ?? 0 > expected.map(\.heavilyTaggedBooks).reduce(0, +))

        // A to-one join with a condition; and isEmpty, in a filter.
        let french = Library.authors.joining(required: Author.country.filter(Column("name") == "France"))
        let libraries = try Library.annotated(with: french.count.forKey("frenchAuthors")).order(Column("id")).asRequest(of: Row.self).fetchAll(db)
        let expectedLibraries = try db.fetchAll(sql: """
            SELECT library.*, (SELECT COUNT(*) FROM author JOIN country ON country.code = author.countryCode AND country.name = 'France'
                               WHERE author.libraryId = library.id) FROM library ORDER BY library.id
            """)
        #expect(libraries.map(\.values) == expectedLibraries.map(\.values))
        let untagged = try Author.having(heavy.isEmpty).order(Column("id")).fetchAll(db)
        #expect(untagged == (try Author.fetchAll(db, sql: """
            SELECT * FROM author WHERE NOT EXISTS (SELECT 1 FROM book JOIN bookTag ON bookTag.bookId = book.id AND bookTag.weight > 1
                                                   AND bookTag.tagId <= 5 WHERE book.authorId = author.id) ORDER BY id
            """)))
        #expect(!untagged.isEmpty)
    }
}
