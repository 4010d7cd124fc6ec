@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// `TableAlias` outside a join condition, in GRDB's spelling: a request's or an association's
/// table named with `aliased(_:)`, its columns read from the request's filters, orders and
/// selection, and from another association's; each request's SQL against the hand-written
/// SQL, and its rows against that SQL's, on the linked SQLCipher.
@Suite struct TableAliasTests {
    typealias Author = AssociationTests.Author
    typealias Book = AssociationTests.Book

    struct Person: Codable, Hashable, FetchableRecord, TableRecord {
        static let databaseTableName = "person"
        static let parent = belongsTo(Person.self, key: "parent", using: ForeignKey(["parentId"]))
        static let grandparent = hasOne(Person.self, through: parent, using: parent, key: "grandparent")
        enum Columns {
            static let name = Column("name")
            static let born = Column("born")
        }
        var id: Int64
        var parentId: Int64?
        var name: String
        var born: Int
    }

    let directory: TemporaryDirectory
    let db: Connection

    init() throws {
        directory = try TemporaryDirectory()
        db = try Connection(path: directory.path("aliases.db"), key: .rawKey(hex: String(repeating: "5a", count: 32)))
        try db.executeScript("""
            CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT);
            CREATE TABLE book(id INTEGER PRIMARY KEY, authorId INTEGER REFERENCES author(id), title TEXT NOT NULL, year INTEGER NOT NULL);
            CREATE TABLE person(id INTEGER PRIMARY KEY, parentId INTEGER REFERENCES person(id), name TEXT NOT NULL, born INTEGER NOT NULL);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30)
            INSERT INTO author SELECT i, printf('author %02d', 31 - i), CASE i % 3 WHEN 0 THEN 'FR' WHEN 1 THEN 'JP' ELSE NULL END FROM n;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
            INSERT INTO book SELECT i, CASE WHEN i % 17 = 0 THEN NULL ELSE (i * 7) % 25 + 1 END, printf('book %03d', i), 1950 + (i * 13) % 70 FROM n;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40)
            INSERT INTO person SELECT i, CASE WHEN i > 1 THEN i / 2 END, printf('person %02d', i), 1900 + (i * 11) % 90 FROM n;
            """)
    }

    /// The request's SQL (values written in) is `written`, and its rows are that SQL's.
    func expectSameAs(_ request: QueryInterfaceRequest<some Any>, _ written: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try request.makeSQL(db).withValuesWrittenIn == written, sourceLocation: sourceLocation)
        let expected = try db.fetchAll(sql: written)
        #expect(try Row.fetchAll(db, request).map(\.values) == expected.map(\.values), sourceLocation: sourceLocation)
        #expect(try request.fetchCount(db) == expected.count, sourceLocation: sourceLocation)
        #expect(!expected.isEmpty, sourceLocation: sourceLocation)
    }

    @Test func anAssociationsAliasIsReadFromTheRequestsFilterAndOrder() throws {
        let authorAlias = TableAlias()
        let request = Book
            .joining(required: Book.author.aliased(authorAlias))
            .filter(authorAlias[Column("country")] == "FR" && Column("year") > 1990)
            .order(authorAlias[Column("name")], Column("title").desc)
        try expectSameAs(request, #"SELECT "book".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId" WHERE (("author"."country" = 'FR') AND ("book"."year" > 1990)) ORDER BY "author"."name", "book"."title" DESC"#)
        // Records decode as without the alias.
        let books = try request.fetchAll(db)
        #expect(books == (try Book.fetchAll(db, sql: """
            SELECT book.* FROM book JOIN author ON author.id = book.authorId WHERE author.country = 'FR' AND book.year > 1990 ORDER BY author.name, book.title DESC
            """)))
        // In the selection, and through included records.
        let annotated = Book.including(required: Book.author.aliased(authorAlias).select(Column("name")))
            .annotated(with: (authorAlias[Column("id")] * 1000 + Column("id")).forKey("code"))
            .filter(Column("id") < 10).order(Column("id"))
        try expectSameAs(annotated, #"SELECT "book".*, ("author"."id" * 1000) + "book"."id" AS "code", "author"."name" FROM "book" JOIN "author" ON "author"."id" = "book"."authorId" WHERE ("book"."id" < 10) ORDER BY "book"."id""#)
    }

    @Test func theRequestsOwnAliasIsReadFromAnAssociation() throws {
        // The base table, named by its alias inside the association's condition: a self-join.
        let child = TableAlias<Person>(name: "child")
        let olderParents = Person.aliased(child)
            .joining(required: Person.parent.filter(Person.Columns.born < child.born - 30))
            .order(child.name)
        try expectSameAs(olderParents, #"SELECT "child".* FROM "person" "child" JOIN "person" ON "person"."id" = "child"."parentId" AND ("person"."born" < ("child"."born" - 30)) ORDER BY "child"."name""#)
        // Two aliases of the same table, both named by the app's names in SQL fragments.
        let parent = TableAlias(name: "p")
        let fragments = Person.aliased(child)
            .joining(required: Person.parent.aliased(parent).filter(sql: "p.name <> ?", arguments: ["person 01"]))
            .filter(sql: "child.born > p.born")
            .order(sql: "child.id")
        try expectSameAs(fragments, #"SELECT "child".* FROM "person" "child" JOIN "person" "p" ON "p"."id" = "child"."parentId" AND (p.name <> 'person 01') WHERE (child.born > p.born) ORDER BY child.id"#)
        // An unnamed alias of a self-join gets a name of its own.
        let anyParent = TableAlias<Person>()
        let unnamed = Person.joining(optional: Person.parent.aliased(anyParent)).filter(anyParent.name == nil).order(Column("id"))
        try expectSameAs(unnamed, #"SELECT "person".* FROM "person" LEFT JOIN "person" "person2" ON "person2"."id" = "person"."parentId" WHERE ("person2"."name" IS NULL) ORDER BY "person"."id""#)
    }

    @Test func anAliasNamesTheJoinItsAssociationSharesWithAThroughAssociation() throws {
        // The direct association to the parent shares the through association's first JOIN:
        // its alias names that JOIN.
        let parent = TableAlias<Person>()
        let request = Person.joining(required: Person.grandparent)
            .joining(required: Person.parent.aliased(parent))
            .filter(parent.born > 1950).order(Column("id"))
        try expectSameAs(request, #"SELECT "person".* FROM "person" JOIN "person" "person2" ON "person2"."id" = "person"."parentId" JOIN "person" "person3" ON "person3"."id" = "person2"."parentId" WHERE ("person2"."born" > 1950) ORDER BY "person"."id""#)
    }

    @Test func existsTellsWhetherAnOptionalJoinFoundARow() throws {
        let authorAlias = TableAlias<Author>()
        let orphans = Book.joining(optional: Book.author.aliased(authorAlias)).filter(!authorAlias.exists).order(Column("id"))
        try expectSameAs(orphans, #"SELECT "book".* FROM "book" LEFT JOIN "author" ON "author"."id" = "book"."authorId" WHERE (NOT ("author"."rowid" IS NOT NULL)) ORDER BY "book"."id""#)
        #expect(try orphans.fetchCount(db) == (try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM book WHERE authorId IS NULL")))
        let written = Book.joining(optional: Book.author.aliased(authorAlias)).select(authorAlias.exists.forKey("hasAuthor"), as: Bool.self).order(Column("id"))
        #expect(try written.fetchAll(db) == (try Bool.fetchAll(db, sql: "SELECT authorId IS NOT NULL FROM book ORDER BY id")))
        // A WITHOUT ROWID table: its primary key.
        try db.execute(sql: "CREATE TABLE tag(name TEXT PRIMARY KEY, bookId INTEGER REFERENCES book(id)) WITHOUT ROWID")
        try db.execute(sql: "INSERT INTO tag VALUES ('a', 1), ('b', 2)")
        struct Tag: TableRecord { static let databaseTableName = "tag" }
        let tagAlias = TableAlias()
        let tagged = Book.joining(optional: Book.hasMany(Tag.self).aliased(tagAlias)).filter(tagAlias.exists).order(Column("id"))
        try expectSameAs(tagged, #"SELECT "book".* FROM "book" LEFT JOIN "tag" ON "tag"."bookId" = "book"."id" WHERE ("tag"."name" IS NOT NULL) ORDER BY "book"."id""#)
        // A common table expression has neither.
        let recent = CommonTableExpression(named: "recent", request: Book.filter(Column("year") > 2000))
        let cteAlias = TableAlias()
        let noKey = #expect(throws: DatabaseError.self) {
            try Author.with(recent).joining(optional: Author.association(to: recent) { author, book in author[Column("id")] == book[Column("authorId")] }.aliased(cteAlias))
                .filter(cteAlias.exists).fetchAll(db)
        }
        #expect(noKey?.message?.contains("not a table of the database") == true)
    }

    @Test func anAliasOfOneTableRequestAndItsWrites() throws {
        let alias = TableAlias(name: "b")
        let request = Book.aliased(alias).filter(alias[Column("year")] >= 2010).order(Column("id"))
        try expectSameAs(request, #"SELECT * FROM "book" "b" WHERE ("b"."year" >= 2010) ORDER BY "id""#)
        let expected = try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM book WHERE year >= 2010")
        #expect(try Book.aliased(alias).filter(alias[Column("year")] >= 2010).updateAll(db, Column("title").set(to: "recent")) == expected)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM book WHERE title = 'recent'") == expected)
        #expect(try Book.aliased(alias).filter(alias[Column("year")] >= 2010).deleteAll(db) == expected)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM book WHERE year >= 2010") == 0)
        // A value read from an alias: an UPDATE cannot name it.
        let value = #expect(throws: DatabaseError.self) { try Book.aliased(alias).updateAll(db, Column("year").set(to: alias[Column("year")] + 1)) }
        #expect(value?.message?.contains("which an UPDATE cannot name") == true)
    }

    @Test func writesThroughANamedAliasFilteredByAnAggregateChangeTheRowsTheSelectPicks() throws {
        let picked = "SELECT id FROM author WHERE (SELECT count(*) FROM book WHERE book.authorId = author.id) >= 8 ORDER BY id LIMIT 2"
        let expected = try Int64.fetchAll(db, sql: picked)
        #expect(expected.count == 2)
        let request = Author.aliased(TableAlias<Author>(name: "a")).filter(Author.books.count >= 8).order(Column("id")).limit(2)
        #expect(try request.fetchAll(db).map(\.id) == expected)
        #expect(try request.updateAll(db, Column("country").set(to: "XX")) == 2)
        #expect(try Int64.fetchAll(db, sql: "SELECT id FROM author WHERE country = 'XX' ORDER BY id") == expected)
        try db.execute(sql: "DELETE FROM book WHERE authorId IN (SELECT id FROM author WHERE country = 'XX')")
        let next = try Int64.fetchAll(db, sql: picked)
        #expect(next.count == 2 && next != expected)
        // Their books stay, pointing nowhere: only the authors' rows are compared.
        try db.execute(sql: "PRAGMA foreign_keys = OFF")
        #expect(try request.deleteAll(db) == 2)
        #expect(try Int64.fetchAll(db, sql: "SELECT id FROM author WHERE id IN (\(next.map(String.init).joined(separator: ",")))").isEmpty)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM author") == 28)
    }

    @Test func anAggregateThroughAnotherCountsRightWhateverTheBasesAliasIsNamed() throws {
        let children = Person.hasMany(Person.self, key: "children", using: ForeignKey(["parentId"]))
        let grandchildren = Person.hasMany(Person.self, through: children, using: children, key: "grandchildren")
        let written = try db.fetchAll(sql: """
            SELECT p.id, (SELECT count(*) FROM person c JOIN person g ON g.parentId = c.id WHERE c.parentId = p.id) FROM person p ORDER BY p.id
            """).map(\.values)
        #expect(written.contains { $0[1] != 0.databaseValue })
        // Also under the name the aggregate's own subquery would take by default.
        for name in ["p", "person", "person_aggregated", "PERSON_AGGREGATED"] {
            let request = Person.aliased(TableAlias(name: name)).select(Column("id")).annotated(with: grandchildren.count).order(Column("id"))
            #expect(try Row.fetchAll(db, request).map(\.values) == written, "\(name)")
        }
    }

    @Test func misspelledOrMisplacedAliasesAreErrorsBeforeAnythingRuns() throws {
        let authorAlias = TableAlias()
        // A column the aliased table lacks.
        let misspelled = #expect(throws: DatabaseError.self) {
            try Book.joining(required: Book.author.aliased(authorAlias)).filter(authorAlias[Column("contry")] == "FR").fetchAll(db)
        }
        #expect(misspelled?.message?.contains("no such column: contry") == true)
        #expect(misspelled?.message?.contains("the columns of author are id, name, country") == true)
        // An alias no table of the request has.
        let stray = #expect(throws: DatabaseError.self) { try Book.filter(authorAlias[Column("name")] == "x").fetchAll(db) }
        #expect(stray?.message?.contains("no table of the request has that alias") == true)
        let strayUpdate = #expect(throws: DatabaseError.self) { try Book.filter(authorAlias[Column("name")] == "x").deleteAll(db) }
        #expect(strayUpdate?.message?.contains("no table of the request has that alias") == true)
        // One name for two tables.
        let twice = TableAlias(name: "t")
        let clash = #expect(throws: DatabaseError.self) { try Book.aliased(twice).joining(required: Book.author.aliased(TableAlias(name: "T"))).fetchAll(db) }
        #expect(clash?.message?.contains("given to two tables") == true)
        // One alias for two tables, named or not.
        for shared in [TableAlias(), TableAlias(name: "s")] {
            let doubled = #expect(throws: DatabaseError.self) {
                try Book.aliased(shared).joining(required: Book.author.aliased(shared)).filter(shared[Column("id")] > 3).fetchAll(db)
            }
            #expect(doubled?.message?.contains("one TableAlias") == true)
            #expect(doubled?.message?.contains("(book and author)") == true)
            let doubledWrite = #expect(throws: DatabaseError.self) {
                try Book.aliased(shared).joining(required: Book.author.aliased(shared)).deleteAll(db)
            }
            #expect(doubledWrite?.message?.contains("one TableAlias") == true)
        }
        // Two aliases for one table.
        let sides = #expect(throws: DatabaseError.self) {
            try Book.aliased(TableAlias<Book>(name: "x")).aliased(TableAlias<Book>(name: "y")).fetchAll(db)
        }
        #expect(sides?.message?.contains("two aliases") == true)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM book") == 200)
    }

    @Test func anAliasOfAToManyAssociationIsReadInItsOwnQuery() throws {
        struct AuthorBooks: Decodable, FetchableRecord {
            var author: Author
            var books: [Book]
        }
        let bookAlias = TableAlias<Book>()
        let request = Author.including(all: Author.books.aliased(bookAlias).filter(bookAlias[Column("year")] > 2000).order(bookAlias[Column("title")]))
            .filter(Column("id") <= 5).order(Column("id"))
        let infos = try request.asRequest(of: AuthorBooks.self).fetchAll(db)
        for info in infos {
            let expected = try Book.fetchAll(db, sql: "SELECT * FROM book WHERE authorId = ? AND year > 2000 ORDER BY title", arguments: [info.author.id])
            #expect(info.books == expected)
        }
        #expect(infos.count == 5 && infos.contains { !$0.books.isEmpty })
        // The base's alias is not the second query's.
        let authorAlias = TableAlias<Author>()
        let outer = #expect(throws: DatabaseError.self) {
            try Author.aliased(authorAlias).including(all: Author.books.filter(Column("year") > authorAlias[Column("id")])).fetchAll(db)
        }
        #expect(outer?.message?.contains("no table of the request has that alias") == true)
        // Nor an aggregate's subquery.
        let inAggregate = #expect(throws: DatabaseError.self) {
            try Author.aliased(authorAlias).annotated(with: Author.books.filter(Column("year") > authorAlias[Column("id")] + 1990).count).fetchAll(db)
        }
        #expect(inAggregate?.message?.contains("its subquery does not see the request's aliases") == true)
        let aliasedAggregate = #expect(throws: DatabaseError.self) {
            try Author.having(Author.books.aliased(bookAlias).count > 2).fetchAll(db)
        }
        #expect(aliasedAggregate?.message?.contains("its subquery does not see the request's aliases") == true)
    }
}
