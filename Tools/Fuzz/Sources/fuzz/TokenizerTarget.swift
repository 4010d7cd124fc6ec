import CipherStore
import Foundation

// The `cjk` tokenizer and the pattern builders on any bytes. The bytes are indexed as text,
// unchecked, by FTS4 (and FTS5 where the library has it), and searched with every pattern the
// builders make of them. A crash, a sanitizer report, a token outside the input, a built
// pattern that fails to run, or one that does not find the very text it was built from, is a
// finding.

// libFuzzer runs the target on one thread only: the one connection is never shared.
nonisolated(unsafe) let tokenizerDatabase: Connection = {
    let db = try! Connection(location: .inMemory, key: nil)
    try! db.execute(sql: "CREATE VIRTUAL TABLE tokens USING fts3tokenize(cjk)")
    try! db.execute(sql: "CREATE VIRTUAL TABLE t4 USING fts4(body, tokenize=cjk)")
    if FTS5.isAvailable { try! db.execute(sql: "CREATE VIRTUAL TABLE t5 USING fts5(body, tokenize='cjk')") }
    return db
}()

func fuzzTokenizer(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    // FTS4 reads a document up to its first NUL: leave NULs out, so that the whole input is
    // the document the patterns must find.
    let bytes = Data(UnsafeBufferPointer(start: data, count: size).filter { $0 != 0 })
    let db = tokenizerDatabase
    do {
        for row in try db.fetchAll(sql: #"SELECT start, "end" FROM tokens WHERE input = CAST(? AS TEXT)"#, arguments: [bytes]) {
            let start = try row.value(Int.self, at: 0), end = try row.value(Int.self, at: 1)
            if start < 0 || start >= end || end > bytes.count { finding("token [\(start), \(end)) outside \(bytes.count) bytes") }
        }
        try db.execute(sql: "DELETE FROM t4")
        try db.execute(sql: "INSERT INTO t4(rowid, body) VALUES (1, CAST(? AS TEXT))", arguments: [bytes])
        if FTS5.isAvailable {
            try db.execute(sql: "DELETE FROM t5")
            try db.execute(sql: "INSERT INTO t5(rowid, body) VALUES (1, CAST(? AS TEXT))", arguments: [bytes])
        }
    } catch {
        finding("indexing failed: \(error)")
    }
    // Invalid UTF-8 decodes as U+FFFD, a separator like the bytes it replaces.
    let text = String(decoding: bytes, as: UTF8.self)
    let fts4 = [FTS3Pattern(matchingAllTokensIn: text), FTS3Pattern(matchingAnyTokenIn: text),
                FTS3Pattern(matchingAllPrefixesIn: text), FTS3Pattern(matchingPhrase: text)]
    for pattern in fts4.compactMap(\.self) { expectFound(db, "t4", pattern.rawPattern) }
    if FTS5.isAvailable {
        let fts5 = [FTS5Pattern(matchingAllTokensIn: text), FTS5Pattern(matchingAnyTokenIn: text), FTS5Pattern(matchingAllPrefixesIn: text),
                    FTS5Pattern(matchingPhrase: text), FTS5Pattern(matchingPrefixPhrase: text)]
        for pattern in fts5.compactMap(\.self) { expectFound(db, "t5", pattern.rawPattern) }
    }
    // The raw text as a pattern: errors are fine, crashes are not.
    _ = try? db.fetchAll(sql: "SELECT rowid FROM t4 WHERE t4 MATCH ?", arguments: [text])
    if FTS5.isAvailable { _ = try? db.fetchAll(sql: "SELECT rowid FROM t5 WHERE t5 MATCH ?", arguments: [text]) }
    return 0
}

private func expectFound(_ db: Connection, _ table: String, _ pattern: String) {
    do {
        let rows = try db.fetchAll(sql: "SELECT rowid FROM \(table) WHERE \(table) MATCH ?", arguments: [pattern])
        if rows.count != 1 { finding("\(table): \(pattern) does not find the text it was built from") }
    } catch {
        finding("\(table): \(pattern) failed: \(error)")
    }
}

private func finding(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    abort()
}
