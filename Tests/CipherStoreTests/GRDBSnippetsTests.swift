@testable import CipherStore
import Foundation
import Synchronization
import TestSupport
import Testing

/// Code written as GRDB's documentation writes it, compiled against CipherStore and run on
/// encrypted files: records, the query interface, associations and the `async` queue. Every
/// result is checked against what hand-written SQL returns on the same data.
///
/// The code examples of the article "Coming from GRDB" (`ComingFromGRDB.md` in the DocC
/// catalog) are the snippets of this file, line for line:
/// `theArticlesExamplesAreTheSnippetsOfThisFile` fails when an example of the article is not
/// found here, so the article shows only code that compiles and runs.
@Suite struct GRDBSnippetsTests {
    struct Player: Codable, Hashable, Identifiable, FetchableRecord, TableRecord, RowIDRecord {
        static let databaseTableName = "player"
        var id: Int64?
        var name: String
        var score: Int
        var team: String?

        enum Columns {
            static let name = Column(CodingKeys.name)
            static let score = Column(CodingKeys.score)
        }
    }

    struct Author: Codable, Hashable, Identifiable, FetchableRecord, TableRecord {
        static let databaseTableName = "author"
        static let books = hasMany(Book.self)
        static let biography = hasOne(Biography.self)
        var id: Int64
        var name: String
        var country: String?
    }

    struct Book: Codable, Hashable, Identifiable, FetchableRecord, TableRecord {
        static let databaseTableName = "book"
        static let author = belongsTo(Author.self)
        var id: Int64
        var authorId: Int64?
        var title: String
        var year: Int
    }

    struct Biography: Codable, Hashable, FetchableRecord, TableRecord {
        static let databaseTableName = "biography"
        var id: Int64
        var authorId: Int64
        var text: String
    }

    let directory: TemporaryDirectory
    let path: String
    /// A test key, as a key store would hand it over.
    let storedHexKey = String(repeating: "2e", count: 32)

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.path("game.sqlite")
    }

    /// The queue of the article's first example, its schema migrated.
    func openQueue() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue(path: path, key: .rawKey(hex: storedHexKey))
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL, team TEXT)
                """)
        }
        try migrator.migrate(dbQueue)
        return dbQueue
    }

    /// A queue with seven players, inserted in SQL.
    func openQueueWithPlayers() throws -> DatabaseQueue {
        let dbQueue = try openQueue()
        try dbQueue.write { db in
            try db.execute(sql: """
                INSERT INTO player(id, name, score, team) VALUES (1, 'Arthur', 100, 'red'), (2, 'Barbara', 1000, 'blue'),
                    (3, 'Craig', 500, 'red'), (4, 'Diane', 750, NULL), (5, 'Eve', 5, 'blue'), (6, 'Frank', 500, 'green'), (7, 'Gina', 8, 'red')
                """)
        }
        return dbQueue
    }

    /// Players read from hand-written SQL selecting `id, name, score, team`, decoded by hand.
    static func players(_ db: Connection, _ sql: String) throws -> [Player] {
        try db.fetchAll(sql: sql).map { row in
            Player(id: try row.value(at: 0), name: try row.value(at: 1), score: try row.value(at: 2), team: try row.value(at: 3))
        }
    }

    // MARK: Records

    @Test func recordsAreInsertedUpdatedSavedFoundAndDeleted() throws {
        let dbQueue = try openQueue()
        // The file is encrypted: its header is not SQLite's plaintext one.
        #expect(!fileBytes(path).starts(with: Data("SQLite format 3".utf8)))
        try dbQueue.write { db in
            var arthur = Player(id: nil, name: "Arthur", score: 100, team: "red")
            try arthur.insert(db)                    // sets arthur.id (RowIDRecord)
            arthur.score += 10
            try arthur.update(db)
            var barbara = Player(id: nil, name: "Barbara", score: 1000, team: "blue")
            try barbara.save(db)                     // no id yet: inserts
            let found = try Player.find(db, id: arthur.id)
            let byKey = try Player.fetchOne(db, key: barbara.id)
            let count = try Player.fetchCount(db)
            let deleted = try barbara.delete(db)     // false when the row was already gone

            let stored = try Self.players(db, "SELECT id, name, score, team FROM player ORDER BY id")
            #expect(arthur.id == 1 && barbara.id == 2)
            #expect(found == stored.first { $0.id == arthur.id })
            #expect(found == Player(id: 1, name: "Arthur", score: 110, team: "red"))
            #expect(byKey == barbara)
            #expect(count == 2)
            #expect(deleted)
            #expect(stored == [arthur])
            #expect(try Player.fetchAll(db) == stored)
            #expect(try Player.fetchCount(db) == (try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM player")))
            // save updates a record that has its row.
            arthur.name = "King Arthur"
            try arthur.save(db)
            #expect(try Self.players(db, "SELECT id, name, score, team FROM player") == [arthur])
            #expect(try Player.filter(ids: [1, 2]).fetchAll(db) == [arthur])
            #expect(try Player.exists(db, id: 1))
            #expect(try !Player.exists(db, id: 2))
        }
    }

    // MARK: Query interface

    @Test func requestsReadWhatTheSameSQLReads() throws {
        let dbQueue = try openQueueWithPlayers()
        try dbQueue.read { db in
            let best = try Player.filter(Column("score") >= 500).order(Player.Columns.score.desc, Column("name")).limit(3).fetchAll(db)
            let names = try Player.select(Player.Columns.name, as: String.self).order(Player.Columns.name).fetchAll(db)
            let maxScore = try Player.select(max(Player.Columns.score), as: Int.self).fetchOne(db)
            let meanScore = try Player.select(average(Column("score")), as: Double.self).fetchOne(db)
            let counted = try Player.select(count(Column("team")), as: Int.self).fetchOne(db)
            let teams = try Player.select(Column("team"), as: String?.self).distinct().fetchSet(db)

            #expect(best == (try Self.players(db, "SELECT id, name, score, team FROM player WHERE score >= 500 ORDER BY score DESC, name LIMIT 3")))
            #expect(best.map(\.name) == ["Barbara", "Diane", "Craig"])
            #expect(names == (try String.fetchAll(db, sql: "SELECT name FROM player ORDER BY name")))
            #expect(maxScore == (try db.fetchScalar(Int.self, sql: "SELECT max(score) FROM player")))
            #expect(maxScore == 1000)
            #expect(meanScore == (try db.fetchScalar(Double.self, sql: "SELECT avg(score) FROM player")))
            #expect(counted == 6, "COUNT(team) leaves out the NULL team")
            #expect(counted == (try db.fetchScalar(Int.self, sql: "SELECT count(team) FROM player")))
            #expect(teams == Set(try db.fetchAll(sql: "SELECT DISTINCT team FROM player").map { try $0.value(String?.self, at: 0) }))
            #expect(teams == ["red", "blue", "green", nil])

            struct TeamSize: Decodable, Equatable, FetchableRecord {
                var team: String
                var members: Int
            }
            let bigTeams = try Player.select(Column("team"), count(Column("id")).forKey("members"))
                .filter(Column("team") != nil)
                .group(Column("team"))
                .having(count(Column("id")) >= 2)
                .order(Column("team"))
                .asRequest(of: TeamSize.self)
                .fetchAll(db)

            let grouped = try db.fetchAll(sql: "SELECT team, count(id) FROM player WHERE team IS NOT NULL GROUP BY team HAVING count(id) >= 2 ORDER BY team")
            #expect(bigTeams == (try grouped.map { TeamSize(team: try $0.value(at: 0), members: try $0.value(at: 1)) }))
            #expect(bigTeams == [TeamSize(team: "blue", members: 2), TeamSize(team: "red", members: 3)])

            struct PlayerWithBonus: Decodable, Equatable, FetchableRecord {
                var name: String
                var bonus: Int
            }
            let withBonus = try Player.annotated(with: (Column("score") / 10).forKey("bonus")).order(Column("id")).asRequest(of: PlayerWithBonus.self).fetchAll(db)
            let rows = try Row.fetchAll(db, Player.select(Column("name"), Column("score")).order(Column("id")))

            let annotated = try db.fetchAll(sql: "SELECT name, score / 10 FROM player ORDER BY id")
            #expect(withBonus == (try annotated.map { PlayerWithBonus(name: try $0.value(at: 0), bonus: try $0.value(at: 1)) }))
            #expect(withBonus.last == PlayerWithBonus(name: "Gina", bonus: 0))
            #expect(rows.map(\.values) == (try db.fetchAll(sql: "SELECT name, score FROM player ORDER BY id")).map(\.values))
            #expect(rows.first?.columnNames == ["name", "score"])
            // Records, sets and counts of the same requests.
            #expect(try Player.filter(Column("team") == "red").fetchSet(db) == Set(try Self.players(db, "SELECT id, name, score, team FROM player WHERE team = 'red'")))
            #expect(try Player.select(Column("team")).distinct().fetchCount(db) == (try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM (SELECT DISTINCT team FROM player)")))
            #expect(try Int.fetchOne(db, Player.select(max(Column("score")))) == maxScore)
        }
    }

    @Test func updateAllAndDeleteAllChangeWhatTheSameSQLChanges() throws {
        let dbQueue = try openQueueWithPlayers()
        try dbQueue.write { db in
            let expectedScores = try db.fetchAll(sql: "SELECT id, CASE WHEN team = 'red' THEN score + 1 ELSE score END FROM player WHERE score >= 10 ORDER BY id").map(\.values)
            let expectedRaised = try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM player WHERE team = 'red'")
            let expectedRemoved = try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM player WHERE score + (team = 'red') < 10")

            let raised = try Player.filter(Column("team") == "red").updateAll(db, Column("score") += 1)
            let removed = try Player.filter(Column("score") < 10).deleteAll(db)

            #expect(raised == expectedRaised && raised == 3)
            #expect(removed == expectedRemoved && removed == 2)
            #expect(try db.fetchAll(sql: "SELECT id, score FROM player ORDER BY id").map(\.values) == expectedScores)
        }
    }

    @Test func keysIDsSQLFragmentsAndReversedOrderReadWhatTheSameSQLReads() throws {
        let dbQueue = try openQueueWithPlayers()
        try dbQueue.write { db in
            let expectedSome = try Self.players(db, "SELECT id, name, score, team FROM player WHERE id IN (1, 2, 3)")
            let expectedBottom = try Self.players(db, "SELECT id, name, score, team FROM player ORDER BY score ASC LIMIT 2")
            let expectedIDs = try db.fetchAll(Int64.self, sql: "SELECT id FROM player WHERE score > 400 AND team IS NOT NULL")

            let some = try Player.fetchAll(db, ids: [1, 2, 3])
            let bottom = try Player.order(Player.Columns.score.desc).reversed().limit(2).fetchAll(db)
            let ids = try Player.filter(sql: "score > :minimum AND team IS NOT NULL", arguments: ["minimum": 400]).selectID().fetchAll(db)
            let gone = try Player.deleteAll(db, ids: [6, 7])

            #expect(Set(some) == Set(expectedSome) && some.count == 3)
            #expect(bottom == expectedBottom)
            #expect(ids.map { $0! }.sorted() == expectedIDs.sorted() && ids.count == 3)
            #expect(gone == 2)
            #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM player WHERE id IN (6, 7)") == 0)
        }
    }

    @Test func closuresAndKeyPathsOverColumnsReadWhatTheSameSQLReads() throws {
        let dbQueue = try openQueueWithPlayers()
        try dbQueue.write { db in
            let expectedBest = try Self.players(db, "SELECT id, name, score, team FROM player WHERE score >= 500 ORDER BY score DESC, name")
            let expectedLow = try db.fetchAll(String.self, sql: "SELECT name FROM player WHERE score < 100 ORDER BY name DESC")
            let expectedTop = try db.fetchScalar(Int.self, sql: "SELECT max(score) FROM player")
            let expectedArthur = try db.fetchScalar(Int.self, sql: "SELECT score + 10 FROM player WHERE name = 'Arthur'")

            let best = try Player.filter { $0.score >= 500 }.order { [$0.score.desc, $0.name] }.fetchAll(db)
            let low = try Player.filter { $0.score < 100 }.order(\.name.desc).select({ $0.name }, as: String.self).fetchAll(db)
            let top = try Player.select({ max($0.score) }, as: Int.self).fetchOne(db)
            let raised = try Player.filter { $0.name == "Arthur" }.updateAll(db) { $0.score += 10 }

            #expect(best == expectedBest && best.count == 4)
            #expect(low == expectedLow && low.count == 2)
            #expect(top == expectedTop && top == 1000)
            #expect(raised == 1)
            #expect(try db.fetchScalar(Int.self, sql: "SELECT score FROM player WHERE name = 'Arthur'") == expectedArthur)
            // Grouping closures, static and on a request.
            let shared = try db.fetchAll(Int.self, sql: "SELECT score FROM player GROUP BY score HAVING count(name) >= 2 ORDER BY score")
            #expect(try Player.group { [$0.score] }.having { count($0.name) >= 2 }.order(\.score).select({ $0.score }, as: Int.self).fetchAll(db) == shared)
            #expect(try Player.having { count($0.name) >= 2 }.group { [$0.score] }.order(\.score).select({ $0.score }, as: Int.self).fetchAll(db) == shared)
            #expect(shared == [500])
            // The same SQL as the Column values the closures name.
            #expect(try Player.filter { $0.score >= 500 }.order(\.score).makeSQL(db).sql
                    == Player.filter(Column("score") >= 500).order(Column("score")).makeSQL(db).sql)
            // A key path selects one column, statically too; rows still decode as the record's type.
            #expect(try Player.select(\.name).makeSQL(db).sql == #"SELECT "name" FROM "player""#)
            #expect(try Player.select(\.name).order(\.name).asRequest(of: String.self).fetchAll(db)
                    == (try db.fetchAll(String.self, sql: "SELECT name FROM player ORDER BY name")))
            #expect(try Player.annotated { $0.score * 2 }.makeSQL(db).sql == #"SELECT *, "score" * ? FROM "player""#)

            // A misspelled column in a record's Columns is checked like any other.
            #expect {
                _ = try Misspelled.filter { $0.scroe > 1 }.deleteAll(db)
            } throws: { error in
                (error as? DatabaseError)?.message?.contains("no such column: scroe (the columns of player are id, name, score, team)") == true
            }
            #expect(try Player.fetchCount(db) == 7)
        }
    }

    // MARK: Associations

    /// The library's schema and rows; `REFERENCES` is what the associations read.
    func openLibrary() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue(path: directory.path("library.sqlite"), key: .rawKey(hex: storedHexKey))
        try dbQueue.write { db in
            try db.executeScript("""
                CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT);
                CREATE TABLE book(id INTEGER PRIMARY KEY, authorId INTEGER REFERENCES author(id), title TEXT NOT NULL, year INTEGER NOT NULL);
                CREATE TABLE biography(id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL UNIQUE REFERENCES author(id), text TEXT NOT NULL);
                """)
            try db.executeScript("""
                INSERT INTO author VALUES (1, 'Victor Hugo', 'FR'), (2, 'Jane Austen', 'GB'), (3, 'Émile Zola', 'FR'), (4, 'Homer', NULL);
                INSERT INTO book VALUES (1, 1, 'Les Misérables', 1862), (2, 1, 'Notre-Dame de Paris', 1831), (3, 2, 'Emma', 1815),
                    (4, 2, 'Persuasion', 1817), (5, 3, 'Germinal', 1885), (6, NULL, 'Beowulf', 1000), (7, 1, 'Les Contemplations', 1856);
                INSERT INTO biography VALUES (1, 1, 'French poet and novelist'), (2, 3, 'French novelist');
                """)
        }
        return dbQueue
    }

    /// The book whose four columns start at `offset` of a hand-written SQL row.
    func book(_ row: Row, at offset: Int) throws -> Book {
        Book(id: try row.value(at: offset), authorId: try row.value(at: offset + 1), title: try row.value(at: offset + 2), year: try row.value(at: offset + 3))
    }

    /// The author whose three columns start at `offset`, or `nil` for a row a LEFT JOIN left empty.
    func author(_ row: Row, at offset: Int) throws -> Author? {
        let id: Int64? = try row.value(at: offset)
        return try id.map { Author(id: $0, name: try row.value(at: offset + 1), country: try row.value(at: offset + 2)) }
    }

    @Test func associationsTakeClosuresOverTheAssociatedRecordsColumns() throws {
        let dbQueue = try openLibrary()
        try dbQueue.read { db in
            let infos = try Work.filter { $0.year > 1820 }
                .including(required: Work.writer.filter { $0.country == "FR" }.order(\.name))
                .order(\.year)
                .asRequest(of: WorkInfo.self).fetchAll(db)
            let expected = try db.fetchAll(sql: """
                SELECT book.id, book.title, author.name FROM book JOIN author ON author.id = book.authorId AND author.country = 'FR'
                WHERE book.year > 1820 ORDER BY book.year, author.name
                """)
            #expect(infos.map(\.work.id) == expected.map { try! $0.value(Int64.self, at: 0) })
            #expect(infos.map(\.writer.name) == expected.map { try! $0.value(String.self, at: 2) })
            #expect(infos.count == 4)
        }
    }

    @Test func associationAggregatesGiveWhatTheSameGroupedJoinGives() throws {
        let dbQueue = try openLibrary()
        try dbQueue.write { db in
            struct AuthorBookCount: Decodable, FetchableRecord {
                var author: Author
                var bookCount: Int
                var maxBookYear: Int?
            }
            let prolific = try Author
                .annotated(with: Author.books.count, Author.books.max(Column("year")))
                .having(Author.books.count >= 2)
                .order(Column("name"))
                .asRequest(of: AuthorBookCount.self)
                .fetchAll(db)
            let bookless = try Author.having(Author.books.isEmpty).fetchAll(db)

            let grouped = try db.fetchAll(sql: """
                SELECT author.id, COUNT(book.id), MAX(book.year) FROM author JOIN book ON book.authorId = author.id
                GROUP BY author.id HAVING COUNT(book.id) >= 2 ORDER BY author.name
                """)
            #expect(prolific.map(\.author.id) == grouped.map { try! $0.value(Int64.self, at: 0) })
            #expect(prolific.map(\.bookCount) == grouped.map { try! $0.value(Int.self, at: 1) })
            #expect(prolific.map(\.maxBookYear) == grouped.map { try! $0.value(Int?.self, at: 2) })
            #expect(prolific.map(\.author.name) == ["Jane Austen", "Victor Hugo"])
            #expect(bookless.map(\.name) == (try db.fetchAll(String.self, sql: "SELECT name FROM author WHERE NOT EXISTS (SELECT 1 FROM book WHERE book.authorId = author.id)")))
            #expect(bookless.map(\.name) == ["Homer"])

            // Every author, a count of 0 included; the association's filter applies; GRDB's names.
            let all = try Author
                .annotated(with: Author.books.filter(Column("year") > 1850).count.forKey("recent"),
                           Author.books.min(Column("year")), Author.books.average(Column("year")),
                           Author.books.sum(Column("year")), Author.books.isEmpty)
                .order(Column("id"))
                .asRequest(of: Row.self).fetchAll(db)
            #expect(all.map(\.columnNames).first == ["id", "name", "country", "recent", "minBookYear", "averageBookYear", "bookYearSum", "hasNoBook"])
            let expected = try db.fetchAll(sql: """
                SELECT author.*, (SELECT COUNT(*) FROM book WHERE book.authorId = author.id AND year > 1850),
                    MIN(book.year), AVG(book.year), SUM(book.year), COUNT(book.id) = 0
                FROM author LEFT JOIN book ON book.authorId = author.id GROUP BY author.id ORDER BY author.id
                """)
            #expect(all.map(\.values) == expected.map(\.values))
            #expect(try Author.having(Author.books.count == 0).fetchCount(db) == 1)

            // A misspelled column inside an aggregate is named, and nothing runs.
            #expect {
                _ = try Author.having(Author.books.max(Column("yaer")) > 1800).deleteAll(db)
            } throws: { error in
                (error as? DatabaseError)?.message?.contains("no such column: yaer (association books)") == true
            }
            #expect(try Author.fetchCount(db) == 4)
            // deleteAll through an aggregate deletes what the same SQL picks.
            let emptyAuthors = try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM author WHERE NOT EXISTS (SELECT 1 FROM book WHERE authorId = author.id)")
            #expect(try Author.having(Author.books.isEmpty).deleteAll(db) == emptyAuthors)

            // A tree of records: the subquery's table gets another name.
            try db.execute(sql: "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT NOT NULL, managerId INTEGER REFERENCES person(id))")
            try db.execute(sql: "INSERT INTO person VALUES (1, 'Ann', NULL), (2, 'Bob', 1), (3, 'Cid', 1), (4, 'Dan', 2)")
            let reports = try Person.annotated(with: Person.reports.count).order(Column("id")).asRequest(of: Row.self).fetchAll(db)
            #expect(reports.map { try! $0.value(Int.self, named: "personCount") } == [2, 1, 0, 0])
        }
    }

    @Test func annotationsWithAnAssociationAddItsColumnsFlat() throws {
        let dbQueue = try openLibrary()
        try dbQueue.read { db in
            struct BookWithAuthorName: Decodable, FetchableRecord {
                var book: Book
                var authorName: String?
            }
            let books = try Book
                .annotated(withOptional: Book.author.select(Column("name").forKey("authorName")))
                .order(Column("id"))
                .asRequest(of: BookWithAuthorName.self)
                .fetchAll(db)
            let french = try Book
                .annotated(withRequired: Book.author.filter(Column("country") == "FR").select(Column("name").forKey("authorName")))
                .including(optional: Book.author.forKey("writer"))
                .order(Column("id"))
                .asRequest(of: Row.self)
                .fetchAll(db)

            let expected = try db.fetchAll(sql: "SELECT book.*, author.name FROM book LEFT JOIN author ON author.id = book.authorId ORDER BY book.id")
            #expect(books.map(\.book) == (try expected.map { try book($0, at: 0) }))
            #expect(books.map(\.authorName) == expected.map { try! $0.value(String?.self, at: 4) })
            #expect(books.first { $0.book.title == "Beowulf" }?.authorName == nil)
            let expectedFrench = try db.fetchAll(sql: """
                SELECT book.*, author.name, writer.* FROM book JOIN author ON author.id = book.authorId AND author.country = 'FR'
                LEFT JOIN author writer ON writer.id = book.authorId ORDER BY book.id
                """)
            #expect(french.map(\.values) == expectedFrench.map(\.values))
            #expect(french.first?.columnNames.prefix(5) == ["id", "authorId", "title", "year", "authorName"])
            // The same association annotated and included under one key is refused.
            #expect {
                _ = try Book.annotated(withRequired: Book.author.select(Column("name"))).including(required: Book.author).fetchAll(db)
            } throws: { error in
                (error as? DatabaseError)?.message?.contains("both annotated") == true
            }
        }
    }

    @Test func reversedReversesTheAssociationsOrderAndSQLSelectionsStayOutOfJoins() throws {
        let dbQueue = try openLibrary()
        try dbQueue.read { db in
            let request = Book.including(required: Book.author.order(Column("name"))).order(Column("year")).reversed()
            let sql = try request.makeSQL(db).sql
            #expect(sql.hasSuffix(#"ORDER BY "book"."year" DESC, "author"."name" DESC"#))
            #expect {
                _ = try Book.select(sql: "book.title, book.id").including(required: Book.author).asRequest(of: Row.self).fetchAll(db)
            } throws: { error in
                (error as? DatabaseError)?.message?.contains("cannot be split between the tables") == true
            }
        }
    }

    @Test func tableAliasesReadWhatTheSameSQLReads() throws {
        let dbQueue = try openLibrary()
        try dbQueue.read { db in
            let authorAlias = TableAlias<Author>()
            let byAuthorName = try Book
                .joining(optional: Book.author.aliased(authorAlias))
                .order(authorAlias[Column("name")], Column("title"))
                .fetchAll(db)
            let anonymous = try Book
                .joining(optional: Book.author.aliased(authorAlias))
                .filter(!authorAlias.exists)
                .fetchAll(db)
            #expect(byAuthorName.map(\.id) == (try Int64.fetchAll(db, sql: "SELECT book.id FROM book LEFT JOIN author ON author.id = book.authorId ORDER BY author.name, book.title")))
            #expect(anonymous.map(\.title) == ["Beowulf"])
            // GRDB's string functions and cast, on every connection.
            let names = try Author.select(Column("name").uppercased, as: String.self).order(Column("id")).fetchAll(db)
            #expect(names == ["VICTOR HUGO", "JANE AUSTEN", "ÉMILE ZOLA", "HOMER"])
            let years = try Book.select(cast(Column("year"), as: .text), as: DatabaseValue.self).order(Column("id")).limit(1).fetchAll(db)
            #expect(years == [.text("1862")])
        }
    }

    @Test func transactionObserverExtrasTellWhatGRDBsTell() throws {
        let dbQueue = try openQueue()
        let committed = Mutex(0)
        let told = Mutex(0)
        let observation = DatabaseRegionObservation(tracking: Player.all()).start(in: dbQueue) { error in
            Issue.record("unexpected error \(error)")
        } onChange: { _ in told.withLock { $0 += 1 } }
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO player(name, score) VALUES ('Ida', 10)")
            db.afterNextTransaction { _ in committed.withLock { $0 += 1 } }
        }
        try dbQueue.write { db in
            try db.notifyChanges(in: Player.all())
        }
        // One commit after the insert; the region observation told of both transactions.
        #expect(committed.withLock { $0 } == 1)
        #expect(told.withLock { $0 } == 2)
        observation.cancel()
    }

    @Test func associationsFetchWhatTheSameJoinsFetch() throws {
        let dbQueue = try openLibrary()
        try dbQueue.read { db in
            struct BookInfo: Decodable, FetchableRecord {
                var book: Book
                var author: Author
            }
            let bookInfos = try Book.including(required: Book.author).order(Column("title")).asRequest(of: BookInfo.self).fetchAll(db)

            let joined = try db.fetchAll(sql: "SELECT book.*, author.* FROM book JOIN author ON author.id = book.authorId ORDER BY book.title")
            #expect(bookInfos.map(\.book) == (try joined.map { try book($0, at: 0) }))
            #expect(bookInfos.map(\.author) == (try joined.map { try author($0, at: 4) }))
            #expect(bookInfos.count == 6, "Beowulf has no author: JOIN leaves it out")

            struct AuthorInfo: Decodable, FetchableRecord {
                var author: Author
                var biography: Biography?
                var books: [Book]
            }
            let authorInfos = try Author
                .including(optional: Author.biography)
                .including(all: Author.books.order(Column("year")))
                .order(Column("name"))
                .asRequest(of: AuthorInfo.self)
                .fetchAll(db)

            let authors = try db.fetchAll(sql: "SELECT * FROM author ORDER BY name").map { try author($0, at: 0)! }
            #expect(authorInfos.map(\.author) == authors)
            for info in authorInfos {
                let biography = try db.fetchOne(sql: "SELECT id, authorId, text FROM biography WHERE authorId = ?", arguments: [info.author.id]).map {
                    Biography(id: try $0.value(at: 0), authorId: try $0.value(at: 1), text: try $0.value(at: 2))
                }
                let books = try db.fetchAll(sql: "SELECT * FROM book WHERE authorId = ? ORDER BY year", arguments: [info.author.id]).map { try book($0, at: 0) }
                #expect(info.biography == biography, "\(info.author.name)")
                #expect(info.books == books, "\(info.author.name)")
            }
            #expect(authorInfos.first { $0.author.name == "Victor Hugo" }?.books.map(\.year) == [1831, 1856, 1862])
            #expect(authorInfos.first { $0.author.name == "Homer" }.map { $0.books.isEmpty && $0.biography == nil } == true)

            let frenchBooks = try Book
                .joining(required: Book.author.filter(Column("country") == "FR"))
                .order(Column("id"))
                .fetchAll(db)

            let french = try db.fetchAll(sql: "SELECT book.* FROM book JOIN author ON author.id = book.authorId WHERE author.country = 'FR' ORDER BY book.id")
            #expect(frenchBooks == (try french.map { try book($0, at: 0) }))
            #expect(frenchBooks.map(\.id) == [1, 2, 5, 7])

            struct BookWithWriter: Decodable, FetchableRecord {
                var book: Book
                var writer: Author?
            }
            let withWriters = try Book.including(optional: Book.author.forKey("writer")).order(Column("id")).asRequest(of: BookWithWriter.self).fetchAll(db)

            let leftJoined = try db.fetchAll(sql: "SELECT book.*, author.* FROM book LEFT JOIN author ON author.id = book.authorId ORDER BY book.id")
            #expect(withWriters.map(\.book) == (try leftJoined.map { try book($0, at: 0) }))
            #expect(withWriters.map(\.writer) == (try leftJoined.map { try author($0, at: 4) }))
            #expect(withWriters.count == 7 && withWriters[5].writer == nil)

            let hugo = try Author.find(db, id: 1)
            let hugosBooks = try hugo.request(for: Author.books).order(Column("year")).fetchAll(db)

            #expect(hugosBooks == (try db.fetchAll(sql: "SELECT * FROM book WHERE authorId = 1 ORDER BY year").map { try book($0, at: 0) }))
            #expect(try hugo.request(for: Author.books).fetchCount(db) == 3)
        }
    }

    // MARK: Async

    @Test func asyncReadAndWriteSuspendInsteadOfBlocking() async throws {
        let dbQueue = try openQueue()
        let newID = try await dbQueue.write { db in
            var player = Player(id: nil, name: "Craig", score: 500, team: nil)
            try player.insert(db)
            return player.id
        }
        let playerCount = try await dbQueue.read { db in try Player.fetchCount(db) }

        #expect(newID == 1)
        #expect(playerCount == 1)
        let stored = try await dbQueue.read { db in try Self.players(db, "SELECT id, name, score, team FROM player") }
        #expect(stored == [Player(id: 1, name: "Craig", score: 500, team: nil)])
        try dbQueue.close()
        // What was written is in the encrypted file, under the same key.
        let reopened = try Connection(path: path, key: .rawKey(hex: storedHexKey))
        #expect(try reopened.fetchScalar(String.self, sql: "SELECT name FROM player WHERE id = 1") == "Craig")
        try reopened.close()
    }

    // MARK: What differs

    @Test func errorsNameTheTableAndTheColumns() throws {
        let dbQueue = try openQueueWithPlayers()
        try dbQueue.write { db in
            // An update whose row is gone: rowNotFound (GRDB: recordNotFound), nothing written.
            var ghost = try Player.find(db, id: 5)
            try db.execute(sql: "DELETE FROM player WHERE id = 5")
            ghost.score = 0
            #expect(throws: RecordError.rowNotFound(table: "player", primaryKey: "id")) { try ghost.update(db) }
            #expect(try Player.fetchCount(db) == 6)
            // find with no such id: recordNotFound.
            #expect {
                try Player.find(db, id: 99)
            } throws: { error in
                guard case RecordError.recordNotFound(let table, let key) = error else { return false }
                return table == "player" && key == ["id": .integer(99)]
            }
            // A misspelled column throws before anything runs. SQLite alone reads "scroe" as a
            // string, greater than any number: every row would match.
            #expect(try db.fetchAll(sql: #"SELECT * FROM player WHERE "scroe" > 100"#).count == 6)
            #expect {
                try Player.filter(Column("scroe") > 100).fetchAll(db)
            } throws: { error in
                (error as? DatabaseError)?.message == "no such column: scroe (the columns of player are id, name, score, team); nothing was run"
            }
            #expect(throws: DatabaseError.self) { try Player.filter(Column("team") == "red").updateAll(db, Column("scroe") += 1) }
            #expect(try db.fetchScalar(Int.self, sql: "SELECT sum(score) FROM player") == 2858)
            // execute(sql:) runs one statement; a script of several goes to executeScript.
            #expect(throws: CipherStoreError.self) {
                try db.execute(sql: "UPDATE player SET score = 0; DELETE FROM player")
            }
            #expect(try Player.fetchCount(db) == 6)
        }
    }

    @Test func aCursorReadsToOneAssociationsAndToManyPrefetchesGoByChunks() throws {
        let dbQueue = try openLibrary()
        struct BookInfo: Decodable, FetchableRecord {
            var book: Book
            var author: Author
        }
        try dbQueue.read { db in
            // A to-one association is read row by row, the same as fetchAll.
            let request = Book.including(required: Book.author).order(Column("title")).asRequest(of: BookInfo.self)
            let infoCursor = try request.fetchCursor(db)
            var infos: [BookInfo] = []
            while let info = try infoCursor.next() { infos.append(info) }
            #expect(infos.map(\.book) == (try request.fetchAll(db)).map(\.book))
            #expect(infos.map(\.author) == (try request.fetchAll(db)).map(\.author))
            #expect(infos.count == 6)
            // A to-many one is fetched after all the rows: no cursor.
            #expect {
                try Author.including(all: Author.books).fetchCursor(db)
            } throws: { error in
                (error as? DatabaseError)?.resultCode == .SQLITE_MISUSE
            }
            let cursor = try Book.order(Column("id")).fetchCursor(db)
            var fromCursor: [Book] = []
            while let book = try cursor.next() { fromCursor.append(book) }
            #expect(fromCursor == (try db.fetchAll(sql: "SELECT * FROM book ORDER BY id").map { try book($0, at: 0) }))
        }
        #expect(AssociationFetch.keysPerQuery == 500)
    }

    @Test func datesAreStoredAsUTCTextToTheMillisecond() throws {
        struct Game: Codable, Equatable, FetchableRecord, TableRecord {
            static let databaseTableName = "game"
            var id: Int64
            var playedAt: Date
        }
        let dbQueue = try openQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE game(id INTEGER PRIMARY KEY, playedAt DATETIME NOT NULL)")
            let game = Game(id: 1, playedAt: Date(timeIntervalSince1970: 1_700_000_000.123))
            try game.insert(db)
            let stored = try #require(try db.fetchOne(sql: "SELECT typeof(playedAt), playedAt, playedAt < CURRENT_TIMESTAMP FROM game"))
            #expect(try stored.value(String.self, at: 0) == "text")
            #expect(try stored.value(String.self, at: 1) == "2023-11-14 22:13:20.123")
            #expect(try stored.value(Bool.self, at: 2), "the text compares with SQLite's own dates")
            let fetched = try #require(try Game.fetchOne(db, key: 1))
            #expect(abs(fetched.playedAt.timeIntervalSince(game.playedAt)) < 0.0005)
            // Integers and reals read as seconds since 1970.
            try db.execute(sql: "INSERT INTO game VALUES (2, 86400)")
            #expect(try Game.fetchOne(db, key: 2)?.playedAt == Date(timeIntervalSince1970: 86_400))
        }
    }

    @Test func upsertReturningAndFTS5OnlyWhereTheLinkedSQLiteHasThem() throws {
        let version = SQLCipherLibrary.sqliteVersion.split(separator: ".").compactMap { Int($0) }
        let hasUpsert = version.lexicographicallyPrecedes([3, 24]) == false
        let hasReturning = version.lexicographicallyPrecedes([3, 35]) == false
        let dbQueue = try openQueueWithPlayers()
        try dbQueue.write { db in
            let hasFTS5 = try db.fetchAll(String.self, sql: "PRAGMA compile_options").contains("ENABLE_FTS5")
            if LinkedSQLCipher.isVersion3 {
                #expect(!hasUpsert && !hasReturning && !hasFTS5, "SQLCipher 3.4.1 is SQLite 3.15.2")
            }
            let upsert = "INSERT INTO player(id, name, score) VALUES (1, 'Arthur', 0) ON CONFLICT(id) DO UPDATE SET score = excluded.score"
            if hasUpsert {
                try db.execute(sql: upsert)
                #expect(try db.fetchScalar(Int.self, sql: "SELECT score FROM player WHERE id = 1") == 0)
            } else {
                #expect(throws: DatabaseError.self) { try db.execute(sql: upsert) }
            }
            let returning = "UPDATE player SET score = score + 1 WHERE id = 2 RETURNING score"
            if hasReturning {
                #expect(try db.fetchScalar(Int.self, sql: returning) == 1001)
            } else {
                #expect(throws: DatabaseError.self) { try db.fetchAll(sql: returning) }
            }
            if hasFTS5 {
                try db.execute(sql: "CREATE VIRTUAL TABLE search5 USING fts5(body)")
            } else {
                #expect(throws: DatabaseError.self) { try db.execute(sql: "CREATE VIRTUAL TABLE search5 USING fts5(body)") }
            }
            // FTS4 is there on both.
            try db.execute(sql: "CREATE VIRTUAL TABLE search4 USING fts4(body)")
            try db.execute(sql: "INSERT INTO search4(body) VALUES ('encrypted at rest')")
            #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM search4 WHERE body MATCH 'rest'") == 1)
            // save() is an UPDATE, then an INSERT when no row changed: an upsert on any SQLite.
            var diane = try Player.find(db, id: 4)
            diane.score = 9
            try diane.save(db)
            var newcomer = Player(id: 42, name: "Hugo", score: 1, team: nil)
            try newcomer.save(db)
            #expect(try Self.players(db, "SELECT id, name, score, team FROM player WHERE id IN (4, 42) ORDER BY id") == [diane, newcomer])
        }
    }

    // MARK: The article

    @Test func theArticlesExamplesAreTheSnippetsOfThisFile() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let article = try String(contentsOf: root.appendingPathComponent("Sources/CipherStore/CipherStore.docc/ComingFromGRDB.md"), encoding: .utf8)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        /// Lines without their indentation, blank lines left out: the article indents less.
        func lines(_ text: some StringProtocol) -> [String] {
            text.split(separator: "\n", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }
        }
        let sourceLines = lines(source)
        var examples: [[String]] = []
        var rest = article[...]
        while let start = rest.range(of: "```swift\n") {
            let end = try #require(rest.range(of: "```", range: start.upperBound..<rest.endIndex), "an example of the article is not closed")
            examples.append(lines(rest[start.upperBound..<end.lowerBound]))
            rest = rest[end.upperBound...]
        }
        #expect(examples.count >= 6)
        #expect(article.components(separatedBy: "```").count == 2 * examples.count + 1, "every example of the article is Swift")
        for example in examples {
            let found = sourceLines.indices.contains { index in
                sourceLines[index...].starts(with: example)
            }
            #expect(found, "this example of the article is not in GRDBSnippetsTests.swift:\n\(example.joined(separator: "\n"))")
        }
    }
}

extension GRDBSnippetsTests {
    /// A record whose `Columns` names a column the table does not have.
    struct Misspelled: Codable, FetchableRecord, TableRecord {
        static let databaseTableName = "player"
        var id: Int64
        enum Columns { static let scroe = Column("scroe") }
    }

    /// The library's authors and books again, with `Columns` for the closures.
    struct Writer: Codable, Equatable, FetchableRecord, TableRecord {
        static let databaseTableName = "author"
        var id: Int64
        var name: String
        var country: String?
        enum Columns {
            static let name = Column(CodingKeys.name)
            static let country = Column(CodingKeys.country)
        }
    }

    struct Work: Codable, Equatable, FetchableRecord, TableRecord {
        static let databaseTableName = "book"
        static let writer = belongsTo(Writer.self, using: ForeignKey(["authorId"])).forKey("writer")
        var id: Int64
        var authorId: Int64?
        var title: String
        var year: Int
        enum Columns { static let year = Column(CodingKeys.year) }
    }

    struct WorkInfo: Decodable, FetchableRecord {
        var work: Work
        var writer: Writer
    }

    /// People and the people they manage: an association from a table to itself.
    struct Person: Codable, FetchableRecord, TableRecord {
        static let databaseTableName = "person"
        static let reports = hasMany(Person.self, using: ForeignKey(["managerId"]))
        var id: Int64
        var name: String
        var managerId: Int64?
    }
}
