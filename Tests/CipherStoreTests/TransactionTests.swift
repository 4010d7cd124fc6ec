import CipherStore
import Foundation
import Testing

struct Failure: Error {}

@Suite struct TransactionTests {
    let db: Connection

    init() throws {
        db = try Connection(location: .inMemory, key: .passphrase("k"))
        try db.execute(sql: "CREATE TABLE t(x)")
    }

    func count() throws -> Int { try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") ?? -1 }

    @Test func commitKeepsTheWork() throws {
        try db.inTransaction {
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            return .commit
        }
        #expect(try count() == 1)
        #expect(!db.isInTransaction)
    }

    @Test func returningRollbackUndoesTheWork() throws {
        try db.inTransaction(.immediate) {
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            return .rollback
        }
        #expect(try count() == 0)
        #expect(!db.isInTransaction)
    }

    @Test func throwingRollsBackAndRethrows() throws {
        #expect(throws: Failure.self) {
            try db.inTransaction(.exclusive) {
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                throw Failure()
            }
        }
        #expect(try count() == 0)
        #expect(!db.isInTransaction)
    }

    @Test func nestedSavepointRollbackKeepsTheOuterWork() throws {
        try db.inTransaction {
            try db.execute(sql: "INSERT INTO t VALUES ('outer')")
            try db.inSavepoint {
                try db.execute(sql: "INSERT INTO t VALUES ('inner, undone')")
                return .rollback
            }
            #expect(throws: Failure.self) {
                try db.inSavepoint {
                    try db.execute(sql: "INSERT INTO t VALUES ('inner, thrown')")
                    try db.inSavepoint {
                        try db.execute(sql: "INSERT INTO t VALUES ('deeper')")
                        return .commit
                    }
                    throw Failure()
                }
            }
            try db.inSavepoint {
                try db.execute(sql: "INSERT INTO t VALUES ('inner, kept')")
                return .commit
            }
            return .commit
        }
        let values = try db.fetchAll(sql: "SELECT x FROM t ORDER BY rowid").map { try $0.value(String.self, at: 0) }
        #expect(values == ["outer", "inner, kept"])
    }

    @Test func beginFailureIsReported() throws {
        try db.beginTransaction()
        #expect(throws: DatabaseError.self) {
            try db.inTransaction { .commit }
        }
        try db.rollback()
    }

    @Test func commitFailureIsReportedAndRolledBack() throws {
        try db.execute(sql: "CREATE TABLE parent(id INTEGER PRIMARY KEY)")
        try db.execute(sql: "CREATE TABLE child(parent REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)")
        #expect(throws: DatabaseError.self) {
            try db.inTransaction {
                try db.execute(sql: "INSERT INTO child VALUES (42)")
                return .commit
            }
        }
        #expect(!db.isInTransaction)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM child") == 0)
    }
}
