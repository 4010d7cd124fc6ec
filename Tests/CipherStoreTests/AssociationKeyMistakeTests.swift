import CipherStore
import Foundation
import TestSupport
import Testing

/// A property keyed unlike the association it means: one record-typed property named by no
/// column or association reads the row's own columns, as in GRDB; a second one, or an array,
/// is an error that names the request's associations, never records read from the wrong
/// columns.
@Suite struct AssociationKeyMistakeTests {
    struct Employee: Codable, Equatable, FetchableRecord, TableRecord {
        static let databaseTableName = "employee"
        static let manager = belongsTo(Employee.self, key: "manager", using: ForeignKey(["managerId"]))
        static let reports = hasMany(Employee.self, key: "reports", using: ForeignKey(["managerId"]))
        var id: Int64
        var name: String
        var managerId: Int64?
    }

    /// `boss` where the association is keyed `manager`.
    struct EmployeeAndBoss: Decodable, FetchableRecord {
        var employee: Employee
        var boss: Employee
    }

    /// Keyed as the association is.
    struct EmployeeAndManager: Decodable, FetchableRecord, Equatable {
        var employee: Employee
        var manager: Employee
    }

    /// `team` where the to-many association is keyed `reports`.
    struct EmployeeAndTeam: Decodable, FetchableRecord {
        var employee: Employee
        var team: [Employee]
    }

    /// Two records from one flat row.
    struct TwoFromTheRow: Decodable, FetchableRecord {
        var first: Employee
        var second: Employee
    }

    func openDatabase() throws -> (TemporaryDirectory, DatabaseQueue) {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.path("keys.db"), key: .passphrase("association keys"))
        try queue.inDatabase { db in
            try db.executeScript("""
                CREATE TABLE employee(id INTEGER PRIMARY KEY, name TEXT NOT NULL, managerId INTEGER REFERENCES employee(id));
                INSERT INTO employee VALUES (1, 'Boss', NULL), (2, 'Mid', 1), (3, 'Ann', 2), (4, 'Bob', 2);
                """)
        }
        return (directory, queue)
    }

    @Test func aSecondRecordNamedByNoAssociationIsAnErrorNotTheRowAgain() throws {
        let (_, queue) = try openDatabase()
        try queue.inDatabase { db in
            let request = Employee.including(required: Employee.manager).order(Column("id"))
            func refused(_ error: any Error) -> Bool {
                guard let error = error as? RecordDecodingError, error.column == "boss",
                      case .secondRecordFromRow(let first, let associations) = error.problem else { return false }
                return first == "employee" && associations == ["manager"] && "\(error)".contains("which employee already is")
            }
            #expect(performing: { try request.asRequest(of: EmployeeAndBoss.self).fetchAll(db) }, throws: refused)
            #expect(performing: {
                let cursor = try request.asRequest(of: EmployeeAndBoss.self).fetchCursor(db)
                while try cursor.next() != nil {}
            }, throws: refused)

            // Keyed as the association is, each employee gets their manager, as SQL says.
            let pairs = try request.asRequest(of: EmployeeAndManager.self).fetchAll(db)
            let expected = try db.fetchAll(sql: "SELECT e.id, m.id FROM employee e JOIN employee m ON m.id = e.managerId ORDER BY e.id")
                .map { [try $0.value(Int64.self, at: 0), try $0.value(Int64.self, at: 1)] }
            #expect(pairs.map { [$0.employee.id, $0.manager.id] } == expected)
            #expect(expected == [[2, 1], [3, 2], [4, 2]])
        }
    }

    @Test func anArrayNamedByNoToManyAssociationNamesTheAssociations() throws {
        let (_, queue) = try openDatabase()
        try queue.inDatabase { db in
            let request = Employee.including(all: Employee.reports).order(Column("id"))
            _ = #expect(performing: { try request.asRequest(of: EmployeeAndTeam.self).fetchAll(db) }, throws: { error in
                guard let error = error as? RecordDecodingError, error.column == "team",
                      case .noToManyAssociation(let associations) = error.problem else { return false }
                return associations == ["reports"] && "\(error)".contains("none is named team")
            })
        }
    }

    @Test func twoRecordsFromOneFlatRowAreRefusedToo() throws {
        let (_, queue) = try openDatabase()
        try queue.inDatabase { db -> Void in
            #expect(performing: { try TwoFromTheRow.fetchAll(db, sql: "SELECT * FROM employee") }, throws: { error in
                guard let error = error as? RecordDecodingError, error.column == "second",
                      case .secondRecordFromRow(let first, let associations) = error.problem else { return false }
                return first == "first" && associations.isEmpty && "\(error)".contains("Decode the row as each record in turn") && !"\(error)".contains("forKey")
            })
        }
    }
}
