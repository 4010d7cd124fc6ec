@testable import CipherStore
import Foundation
import Testing

/// `busyTimeout` is clamped to what `sqlite3_busy_timeout` takes instead of trapping.
@Suite struct BusyTimeoutTests {
    @Test(arguments: [(Double.infinity, Int32.max), (3e6, Int32.max), (Double.greatestFiniteMagnitude, Int32.max),
                      (2.5, 2500), (0, 0), (-1, 0), (-Double.infinity, 0)] as [(Double, Int32)])
    func timeoutIsClampedToMilliseconds(_ seconds: Double, _ milliseconds: Int32) throws {
        #expect(try Configuration(busyTimeout: seconds).busyTimeoutMilliseconds() == milliseconds)
    }

    @Test(arguments: [Double.infinity, 3e6, -1])
    func connectionOpensWithAnOutOfRangeTimeout(_ seconds: Double) throws {
        let db = try Connection(location: .inMemory, key: .passphrase("k"), configuration: Configuration(busyTimeout: seconds))
        #expect(try db.fetchScalar(Int.self, sql: "SELECT 1") == 1)
    }

    @Test func notANumberIsRefused() {
        #expect(throws: CipherStoreError.self) {
            try Connection(location: .inMemory, key: .passphrase("k"), configuration: Configuration(busyTimeout: .nan))
        }
        #expect(throws: CipherStoreError.self) {
            try DatabaseQueue(location: .inMemory, key: nil, configuration: Configuration(busyTimeout: .nan))
        }
    }
}
