import CipherStore
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Dates stored as text read the same whichever way they are read, and as the C library counts
/// them.
@Suite struct DateTextTests {
    /// The texts of a sweep of dates: every month of years 0 to 9999 (a step of 37), days that
    /// end months and some past their month's end, each with a time and a fraction.
    static let texts: [String] = {
        var texts: [String] = []
        for year in stride(from: 0, through: 9999, by: 37) {
            for month in 1...12 {
                for day in [1, 28, 29, 30, 31] {
                    let time: [Int] = [(year + day) % 24, (month * 7) % 60, year % 61, (year * month) % 1000]
                    texts.append(String(format: "%04d-%02d-%02d %02d:%02d:%02d.%03d", year, month, day, time[0], time[1], time[2], time[3]))
                }
            }
        }
        return texts
    }()

    /// The same instants in other layouts, which the general reading takes (not the stored
    /// layout's fixed places): `T` and `Z`, two digits of fraction, or none.
    static let otherLayoutTexts: [String] = texts.enumerated().map { index, text in
        index % 2 == 0 ? text.replacingOccurrences(of: " ", with: "T").dropLast() + "Z" : String(text.prefix(19))
    }

    /// `timegm`'s seconds for a text of the sweeps, with its fraction's milliseconds.
    static func timegmSeconds(_ text: String) -> TimeInterval {
        let parts = text.split(whereSeparator: { "- :.TZ".contains($0) }).map { Int32($0)! }
        var time = tm()
        time.tm_year = parts[0] - 1900
        time.tm_mon = parts[1] - 1
        time.tm_mday = parts[2]
        time.tm_hour = parts[3]
        time.tm_min = parts[4]
        time.tm_sec = parts[5]
        let milliseconds = parts.count > 6 ? (text.hasSuffix("Z") ? parts[6] * 10 : parts[6]) : 0
        return TimeInterval(timegm(&time)) + TimeInterval(milliseconds) / 1000
    }

    @Test func textDatesCountAsTheCLibrarysTimegmDoes() {
        #expect(Self.texts.count > 10_000)
        #expect(Self.otherLayoutTexts.allSatisfy { $0.contains("T") || $0.utf8.count == 19 })  // none in the stored layout
        for text in Self.texts + Self.otherLayoutTexts {
            let date = Date.fromDatabaseValue(.text(text))
            #expect(date == Date(timeIntervalSince1970: Self.timegmSeconds(text)), "\(text)")
        }
    }

    @Test func aDayPastItsMonthsEndAndASixtiethSecondCarryOver() {
        #expect(Date.fromDatabaseValue(.text("2023-02-31")) == Date.fromDatabaseValue(.text("2023-03-03")))
        #expect(Date.fromDatabaseValue(.text("2024-02-30 10:00")) == Date.fromDatabaseValue(.text("2024-03-01 10:00")))
        #expect(Date.fromDatabaseValue(.text("2016-12-31 23:59:60")) == Date.fromDatabaseValue(.text("2017-01-01 00:00:00")))
        // The stored layout (23 bytes, read at fixed places) and other layouts of the same time agree.
        #expect(Date.fromDatabaseValue(.text("2016-12-31 23:59:60.250")) == Date.fromDatabaseValue(.text("2017-01-01T00:00:00.25Z")))
        #expect(Date.fromDatabaseValue(.text("2016-12-31 23:59:59.999")) == Date.fromDatabaseValue(.text("2016-12-31 23:59:59.9990")))
        for text in ["2023-02-32", "2023-00-10", "2023-02-10 24:00", "2023-02-10 10:60", "2023-02-10 10:00:61",
                     "2023-02-10 10:00:00.", "2023-02-10 24:00:00.000", "2023-13-10 10:00:00.000", "2023-02-10 10:00:00.0a0",
                     "2023-02-10 10:00:61.000", "2023-02-00 10:00:00.000", "2023/02/10 10:00:00.000", "2023-02-10 10", "2023-2-10", "2023-02-10 10:00Z0", "２０２３-02-10", "2023-02-10\u{0}"] {
            #expect(Date.fromDatabaseValue(.text(text)) == nil, "\(text)")
        }
    }

    @Test func aDateReadInPlaceIsTheCopiedRowsDate() throws {
        let db = try Connection(location: .inMemory, key: .passphrase("k"))
        try db.execute(sql: "CREATE TABLE t(at)")
        let samples = Self.texts.enumerated().filter { $0.offset % 7 == 0 }.map(\.element)
            + ["2014-11-14", "2014-11-14T09:30:05Z", "not a date", "2014-13-01", "2014-11-14 09:30:05.1234"]
        for text in samples { try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [text]) }
        try db.execute(sql: "INSERT INTO t VALUES (1415957405), (1415957405.5), (NULL), (x'32303134')")
        let copied = try db.fetchAll(sql: "SELECT at FROM t ORDER BY rowid").map { row in
            (try? row.value(Date.self, at: 0), try? row.value(Date?.self, at: 0))
        }
        var inPlace: [(Date?, Date??)] = []
        try db.forEachRow(sql: "SELECT at FROM t ORDER BY rowid") { row in
            inPlace.append((try? row.value(Date.self, at: 0), try? row.value(Date?.self, at: 0)))
        }
        #expect(inPlace.count == samples.count + 4)
        #expect(inPlace.map(\.0) == copied.map(\.0))
        #expect(inPlace.map(\.1) == copied.map(\.1))
        #expect(inPlace.map(\.0).filter { $0 == nil }.count == 4)  // two texts, NULL and a blob
        // The other optionals read in place: NULL is nil, a value of another class converts as a copied row's.
        func outcome<T>(_ read: () throws -> T) -> String {
            do { return "\(try read())" } catch { return "error" }
        }
        var optionalsInPlace: [[String]] = []
        try db.forEachRow(sql: "SELECT at FROM t ORDER BY rowid") { row in
            optionalsInPlace.append([outcome { try row.value(String?.self, at: 0) }, outcome { try row.value(Int64?.self, at: 0) },
                                     outcome { try row.value(Int?.self, at: 0) }, outcome { try row.value(Double?.self, at: 0) }])
        }
        let optionalsCopied = try db.fetchAll(sql: "SELECT at FROM t ORDER BY rowid").map { row in
            [outcome { try row.value(String?.self, at: 0) }, outcome { try row.value(Int64?.self, at: 0) },
             outcome { try row.value(Int?.self, at: 0) }, outcome { try row.value(Double?.self, at: 0) }]
        }
        #expect(optionalsInPlace == optionalsCopied)
        // By name, through `decode(_:forColumn:)`, and in a record built by `init(row:)`.
        var byName: [String] = []
        try db.forEachRow(sql: "SELECT at FROM t ORDER BY rowid") { row in
            byName.append(outcome { try row.value(Date?.self, named: "AT") } + outcome { try row.decode(Date?.self, forColumn: "at") }
                          + outcome { try row.decode(String?.self, forColumn: "at") } + outcome { try row.value(Int?.self, named: "at") })
        }
        let byNameCopied = try db.fetchAll(sql: "SELECT at FROM t ORDER BY rowid").map { row in
            outcome { try row.value(Date?.self, named: "AT") } + outcome { try row.value(Date?.self, named: "at") }
                + outcome { try row.value(String?.self, named: "at") } + outcome { try row.value(Int?.self, named: "at") }
        }
        #expect(byName == byNameCopied)
        let records = try Stamp.fetchAll(db, sql: "SELECT at, at AS maybe FROM t WHERE at IS NOT NULL AND typeof(at) <> 'blob' AND at NOT IN ('not a date', '2014-13-01') ORDER BY rowid")
        #expect(records.count == samples.count)  // less two texts that are no dates, with the two numbers
        #expect(records.map(\.at) == records.map(\.maybe))
        #expect(records.map(\.at) == copied.map(\.0).compactMap { $0 })
        #expect(optionalsInPlace.suffix(4).map { $0[1] } == ["Optional(1415957405)", "error", "nil", "error"])
        #expect(optionalsInPlace.suffix(4).map { $0[3] } == ["Optional(1415957405.0)", "Optional(1415957405.5)", "nil", "error"])
        var column: String?
        do {
            try db.forEachRow(sql: "SELECT at AS createdAt FROM t WHERE at = 'not a date'") { row in _ = try row.value(Date.self, at: 0) }
        } catch CipherStoreError.valueConversion(let name, _) { column = name }
        #expect(column == "createdAt")
    }

    /// A record that reads its dates itself, in place.
    struct Stamp: FetchableRecord, RowDecodableRecord, Decodable {
        var at: Date
        var maybe: Date?
        init(row: borrowing RowView) throws {
            at = try row.decode(forColumn: "at")
            maybe = try row.decode(forColumn: "maybe")
        }
    }
}
