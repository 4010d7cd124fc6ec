import CipherStore
import Foundation
import Testing

/// `forEachRow` and `RowView`: the rows read in place give what copied rows give, with the
/// same errors, and the statement is left ready for the next query however the loop ends.
@Suite struct RowViewTests {
    let db: Connection

    init() throws {
        db = try Connection(location: .inMemory, key: .passphrase("k"))
        try db.execute(sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price REAL, data BLOB, note TEXT)")
        try db.execute(sql: "INSERT INTO item(name, price, data, note) VALUES (?, ?, ?, ?)", arguments: ["a", 1.5, Data([0, 255]), nil])
        try db.execute(sql: "INSERT INTO item(name, price, data, note) VALUES (?, ?, ?, ?)", arguments: ["b", 2, Data(), "x"])
        try db.execute(sql: "INSERT INTO item(name, price, data, note) VALUES (?, ?, ?, ?)", arguments: ["c", 3.25, nil, "y"])
    }

    @Test func viewsReadWhatCopiedRowsHold() throws {
        let sql = "SELECT id, name, price, data, note, id AS ID FROM item ORDER BY id"
        let copied = try db.fetchAll(sql: sql)
        var viewed: [Row] = []
        var fromViews: [[DatabaseValue]] = []
        var counts: [Int] = []
        var names: [[String]] = []
        try db.forEachRow(sql: sql) { row in
            counts.append(row.count)
            names.append(row.columnNames)
            var values: [DatabaseValue] = []
            for index in 0..<row.count { values.append(row[index]) }
            fromViews.append(values)
            viewed.append(row.copy())
        }
        #expect(counts == [6, 6, 6])
        #expect(names.allSatisfy { $0 == ["id", "name", "price", "data", "note", "ID"] })
        #expect(fromViews == copied.map(\.values))
        #expect(viewed.map(\.values) == copied.map(\.values))
        #expect(viewed.map(\.columnNames) == copied.map(\.columnNames))
    }

    @Test func valuesConvertByIndexAndByNameAsRowsDo() throws {
        var names: [String] = []
        var prices: [Double] = []
        var notes: [String?] = []
        var lookups: [[Bool]] = []
        try db.forEachRow(sql: "SELECT * FROM item WHERE price > ? ORDER BY id", arguments: [1]) { row in
            names.append(try row.value(String.self, named: "NAME"))
            prices.append(try row.value(at: 2))
            notes.append(try row.value(String?.self, named: "note"))
            lookups.append([row.hasColumn("Price"), row.hasColumn("city"), row["city"] == nil, row["data"] != nil])
        }
        #expect(lookups == Array(repeating: [true, false, true, true], count: 3))
        #expect(names == ["a", "b", "c"])
        #expect(prices == [1.5, 2, 3.25])
        #expect(notes == [nil, "x", "y"])
    }

    @Test func conversionErrorsNameTheColumnAsRowsDo() throws {
        let sql = "SELECT note, name FROM item ORDER BY id LIMIT 1"
        /// The error a read throws, as text; `nil` when it returned a value.
        func failure(_ read: () throws -> Any) -> String? {
            do {
                _ = try read()
                return nil
            } catch {
                return "\(error)"
            }
        }
        let copied = try #require(try db.fetchOne(sql: sql))
        let expected = [failure { try copied.value(String.self, at: 0) }, failure { try copied.value(Int64.self, named: "name") },
                        failure { try copied.value(String.self, at: 7) }, failure { try copied.value(String.self, named: "city") }]
        var errors: [String?] = []
        try db.forEachRow(sql: sql) { row in
            errors = [failure { try row.value(String.self, at: 0) }, failure { try row.value(Int64.self, named: "name") },
                      failure { try row.value(String.self, at: 7) }, failure { try row.value(String.self, named: "city") }]
        }
        #expect(expected.allSatisfy { $0 != nil })
        #expect(errors == expected)
        #expect(errors[0]?.contains("note") == true && errors[0]?.contains("NULL") == true)
        #expect(errors[1]?.contains("a text value does not convert to Int64") == true, "\(errors[1] ?? "")")
        #expect(errors[2]?.contains("the row has 2 column(s)") == true && errors[3]?.contains("no such column") == true)
        var integer: String?
        try db.forEachRow(sql: "SELECT id FROM item LIMIT 1") { row in integer = failure { try row.value(String.self, at: 0) } }
        #expect(integer?.contains("an integer value does not convert to String") == true, "\(integer ?? "")")
    }

    @Test func aBodyThatThrowsStopsTheLoopAndLeavesTheStatementReady() throws {
        struct Stop: Error {}
        var seen = 0
        #expect(throws: Stop.self) {
            try db.forEachRow(sql: "SELECT name FROM item ORDER BY id") { _ in
                seen += 1
                if seen == 2 { throw Stop() }
            }
        }
        #expect(seen == 2)
        // The same cached statement runs again from its first row, and writes are not held
        // back by a statement left open.
        var names: [String] = []
        try db.forEachRow(sql: "SELECT name FROM item ORDER BY id") { names.append(try $0.value(at: 0)) }
        #expect(names == ["a", "b", "c"])
        try db.execute(sql: "DELETE FROM item WHERE name = 'a'")
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM item") == 2)
    }

    @Test func theSameQueryMayRunInsideTheLoop() throws {
        let sql = "SELECT id FROM item ORDER BY id"
        var pairs: [[Int64]] = []
        try db.forEachRow(sql: sql) { outer in
            let id: Int64 = try outer.value(at: 0)
            try db.forEachRow(sql: sql) { inner in pairs.append([id, try inner.value(at: 0)]) }
        }
        #expect(pairs.count == 9)
        #expect(pairs.first == [1, 1] && pairs.last == [3, 3])
    }

    @Test func argumentsThatDoNotFitAreRefusedBeforeAnyRow() throws {
        var calls = 0
        #expect(throws: CipherStoreError.self) {
            try db.forEachRow(sql: "SELECT * FROM item WHERE id = ?", arguments: [1, 2]) { _ in calls += 1 }
        }
        #expect(calls == 0)
    }
}
