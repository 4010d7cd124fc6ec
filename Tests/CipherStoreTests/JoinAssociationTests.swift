@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// Associations on a condition of their own, to and from common table expressions
/// (`association(to:on:)`): each request's SQL against the hand-written SQL, and its records
/// against what that SQL fetches, on the linked SQLCipher.
@Suite struct JoinAssociationTests {
    struct Chat: Codable, Equatable, FetchableRecord, TableRecord {
        static let databaseTableName = "chat"
        static let messages = hasMany(Message.self)
        enum Columns {
            static let id = Column("id")
            static let name = Column("name")
        }
        var id: Int64
        var name: String
    }

    struct Message: Codable, Equatable, FetchableRecord, TableRecord {
        static let databaseTableName = "message"
        static let chat = belongsTo(Chat.self)
        enum Columns {
            static let chatId = Column("chatId")
            static let date = Column("date")
        }
        var id: Int64
        var chatId: Int64
        var date: Int
        var body: String
    }

    /// A message with the latest date of its chat, as the expression selects it.
    struct LatestMessage: Codable, Equatable, FetchableRecord, TableRecord {
        static let databaseTableName = "latestMessage"
        enum Columns {
            static let chatId = Column("chatId")
        }
        var id: Int64
        var chatId: Int64
        var date: Int
        var body: String
        var latestDate: Int
    }

    struct ChatInfo: Decodable, Equatable, FetchableRecord {
        var chat: Chat
        var latestMessage: LatestMessage?
    }

    let directory: TemporaryDirectory
    let db: Connection
    /// The latest message of each chat (SQLite takes the other columns from the row of the max).
    let latestMessage = CommonTableExpression<LatestMessage>(
        named: "latestMessage",
        request: Message.annotated(with: max(Column("date")).forKey("latestDate")).group(Column("chatId")))

    init() throws {
        directory = try TemporaryDirectory()
        db = try Connection(path: directory.path("chats.db"), key: .rawKey(hex: String(repeating: "3a", count: 32)))
        try db.executeScript("""
            CREATE TABLE chat(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE message(id INTEGER PRIMARY KEY, chatId INTEGER NOT NULL REFERENCES chat, date INTEGER NOT NULL, body TEXT NOT NULL);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12)
            INSERT INTO chat SELECT i, printf('chat %02d', i) FROM n;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 90)
            INSERT INTO message SELECT i, (i * 7) % 10 + 1, (i * 37) % 1000, printf('message %02d', i) FROM n;
            """)
    }

    static let handWrittenLatest = "SELECT *, max(date) AS latestDate FROM message GROUP BY chatId"

    func handWritten(_ join: String, where condition: String = "") throws -> [ChatInfo] {
        try db.fetchAll(sql: "WITH latestMessage AS (\(Self.handWrittenLatest)) SELECT chat.*, latestMessage.* FROM chat \(join) latestMessage ON chat.id = latestMessage.chatId \(condition) ORDER BY chat.id").map { row in
            let chat = Chat(id: try row.value(at: 0), name: try row.value(at: 1))
            guard let id = try row.value(Int64?.self, at: 2) else { return ChatInfo(chat: chat, latestMessage: nil) }
            return ChatInfo(chat: chat, latestMessage: LatestMessage(id: id, chatId: try row.value(at: 3), date: try row.value(at: 4),
                                                                     body: try row.value(at: 5), latestDate: try row.value(at: 6)))
        }
    }

    @Test func aRecordIncludesTheRowOfAnExpressionOnACondition() throws {
        let association = Chat.association(to: latestMessage) { chat, latest in chat[Column("id")] == latest[Column("chatId")] }
        let request = Chat.with(latestMessage).including(optional: association).order(Column("id"))
        #expect(try request.makeSQL(db).sql == #"WITH "latestMessage" AS (SELECT *, MAX("date") AS "latestDate" FROM "message" GROUP BY "chatId""# + "\n" + #") SELECT "chat".*, "latestMessage".* FROM "chat" LEFT JOIN "latestMessage" ON ("chat"."id" = "latestMessage"."chatId") ORDER BY "chat"."id""#)
        let expected = try handWritten("LEFT JOIN")
        let infos = try request.asRequest(of: ChatInfo.self).fetchAll(db)
        #expect(infos == expected)
        #expect(infos.contains { $0.latestMessage == nil } && infos.contains { $0.latestMessage != nil })
        #expect(infos.allSatisfy { $0.latestMessage.map { $0.date == $0.latestDate } ?? true })

        // The records' Columns, as properties; required: chats without messages are left out.
        let byColumns = Chat.association(to: latestMessage) { chat, latest in chat.id == latest.chatId }
        let required = Chat.with(latestMessage).including(required: byColumns.filter(Column("date") > 500)).order(Column("id"))
        #expect(try required.asRequest(of: ChatInfo.self).fetchAll(db) == (try handWritten("JOIN", where: "AND latestMessage.date > 500")))
        #expect(try required.fetchCount(db) < infos.count)
    }

    @Test func fromAnExpressionToATableAndToEveryRow() throws {
        struct LatestInfo: Decodable, FetchableRecord {
            var latestMessage: LatestMessage
            var chat: Chat
        }
        let association = latestMessage.association(to: Chat.self) { latest, chat in latest[Column("chatId") + 0] == chat[Column("id")] }
        let request = latestMessage.all().including(required: association.filter(Column("name") != "chat 03")).order(Column("chatId"))
        let infos = try request.asRequest(of: LatestInfo.self).fetchAll(db)
        let expected = try handWritten("JOIN", where: "AND chat.name <> 'chat 03'")
        #expect(infos.map(\.chat) == expected.map(\.chat))
        #expect(infos.map(\.latestMessage) == expected.compactMap(\.latestMessage))

        // No condition: each chat with every row of a one-row expression.
        let settings = CommonTableExpression<Row>(named: "settings", sql: "SELECT 42 AS answer")
        struct ChatSettings: Decodable, FetchableRecord {
            struct Settings: Decodable { var answer: Int }
            var chat: Chat
            var settings: Settings
        }
        let withSettings = try Chat.with(settings).including(required: Chat.association(to: settings)).order(Column("id"))
            .asRequest(of: ChatSettings.self).fetchAll(db)
        #expect(withSettings.map(\.chat) == (try Chat.fetchAll(db, sql: "SELECT * FROM chat ORDER BY id")))
        #expect(withSettings.allSatisfy { $0.settings.answer == 42 })
    }

    @Test func aStepOfAnAssociationThroughOthers() throws {
        // A message, through its chat, to its chat's latest message: the condition is kept
        // when the step is read back from the expression.
        let latest = Chat.association(to: latestMessage) { chat, latest in chat.id == latest.chatId }
        let throughOne = Message.hasOne(LatestMessage.self, through: Message.chat, using: latest)
        let throughMany = Message.hasMany(LatestMessage.self, through: Message.chat, using: latest)
        let handWritten = "WITH latestMessage AS (\(Self.handWrittenLatest)) SELECT latestMessage.* FROM latestMessage JOIN chat ON chat.id = latestMessage.chatId WHERE chat.id = ?"
        for message in try Message.fetchAll(db, sql: "SELECT * FROM message WHERE id IN (3, 40, 77)") {
            let found = try message.request(for: throughOne).with(latestMessage).fetchAll(db)
            #expect(found == (try LatestMessage.fetchAll(db, sql: handWritten, arguments: [message.chatId])))
            #expect(found.count == 1)
        }
        struct MessageInfo: Decodable, FetchableRecord {
            var message: Message
            var latestMessages: [LatestMessage]
        }
        let infos = try Message.with(latestMessage).including(all: throughMany.forKey("latestMessages")).filter(Column("id") <= 20).order(Column("id"))
            .asRequest(of: MessageInfo.self).fetchAll(db)
        #expect(infos.count == 20)
        for info in infos {
            #expect(info.latestMessages == (try LatestMessage.fetchAll(db, sql: handWritten, arguments: [info.message.chatId])))
        }
        struct Joined: Decodable, FetchableRecord {
            var message: Message
            var latestMessage: LatestMessage
        }
        let joined = try Message.with(latestMessage).including(required: throughOne).order(Column("id")).asRequest(of: Joined.self).fetchAll(db)
        #expect(joined.count == 90 && joined.allSatisfy { $0.latestMessage.chatId == $0.message.chatId })

        // An aggregate of an association that joins the expression reads the request's.
        let isLatest = Message.association(to: latestMessage) { message, latest in message[Column("id")] == latest[Column("id")] }
        let counts = try Chat.with(latestMessage).select(Column("id")).annotated(with: Chat.messages.joining(required: isLatest).count.forKey("n"))
            .order(Column("id")).asRequest(of: Row.self).fetchAll(db)
        let expected = try db.fetchAll(sql: "WITH latestMessage AS (\(Self.handWrittenLatest)) SELECT chat.id, (SELECT COUNT(*) FROM message JOIN latestMessage ON message.id = latestMessage.id WHERE message.chatId = chat.id) FROM chat ORDER BY chat.id")
        #expect(counts.map(\.values) == expected.map(\.values))
        #expect(counts.contains { $0.values[1] == .integer(0) } && counts.contains { $0.values[1] == .integer(1) })
    }

    @Test func mistakesAreClearErrorsBeforeAnythingRuns() throws {
        let association = Chat.association(to: latestMessage) { chat, latest in chat[Column("id")] == latest[Column("chatID_")] }
        let misspelled = #expect(throws: DatabaseError.self) { try Chat.with(latestMessage).including(optional: association).fetchAll(db) }
        #expect(misspelled?.message?.contains("no such column: chatID_") == true)
        #expect(misspelled?.message?.contains("latestMessage") == true)

        let onOrigin = Chat.association(to: latestMessage) { chat, latest in chat[Column("nmae")] == latest[Column("body")] }
        let originError = #expect(throws: DatabaseError.self) { try Chat.with(latestMessage).joining(required: onOrigin).fetchAll(db) }
        #expect(originError?.message?.contains("no such column: nmae") == true)
        #expect(originError?.message?.contains("the columns of chat are id, name") == true)

        let withoutWith = Chat.association(to: latestMessage) { chat, latest in chat.id == latest[Column("chatId")] }
        let missing = #expect(throws: DatabaseError.self) { try Chat.including(optional: withoutWith).fetchAll(db) }
        #expect(missing?.message?.contains("with(_:)") == true)

        // Two conditions under one key, which differ in a value only: no silent merge.
        let first = Chat.association(to: latestMessage) { chat, latest in chat.id == latest.chatId && latest[Column("body")] == Data([1]) }
        let second = Chat.association(to: latestMessage) { chat, latest in chat.id == latest.chatId && latest[Column("body")] == Data([2]) }
        let conflict = #expect(throws: DatabaseError.self) { try Chat.with(latestMessage).joining(required: first).including(required: second).fetchAll(db) }
        #expect(conflict?.message?.contains("two different associations use the key latestMessage") == true)

        // A plain Column is the associated table's; an aggregate has no place in the condition.
        let plain = Chat.association(to: latestMessage) { _, latest in Column("name") == latest[Column("body")] }
        let plainError = #expect(throws: DatabaseError.self) { try Chat.with(latestMessage).joining(required: plain).fetchAll(db) }
        #expect(plainError?.message?.contains("a Column in a join condition is read from the associated table") == true)
        let aggregate = Chat.association(to: latestMessage) { chat, latest in chat.id == latest.chatId && Chat.messages.count > 3 }
        let aggregateError = #expect(throws: DatabaseError.self) { try Chat.with(latestMessage).joining(required: aggregate).fetchAll(db) }
        #expect(aggregateError?.message?.contains("cannot hold an association aggregate") == true)

        // A reversed SQL order merged into a join of the same association stays refused.
        let merged = #expect(throws: DatabaseError.self) {
            try Message.joining(optional: Message.chat).including(optional: Message.chat.order(sql: "chat.name").reversed()).fetchAll(db)
        }
        #expect(merged?.message?.contains("cannot be reversed") == true)
        #expect(try Chat.order(sql: "name").reversed().fetchCount(db) == 12, "a count drops the order")

        // No foreign key: a record's own request for it is refused.
        let chat = try #require(try Chat.fetchOne(db, key: 1))
        let request = #expect(throws: DatabaseError.self) { try chat.request(for: withoutWith).with(latestMessage).fetchAll(db) }
        #expect(request?.message?.contains("joins on a condition of its own") == true)
    }
}
