import Foundation

/// The workloads of the section "CipherStore encrypted vs GRDB plaintext". The two libraries
/// export the same `sqlite3_*` symbols, so each runs in its own process: `bench-grdb` runs
/// GRDB's side and asks a `bench-cipherstore --serve` child (built on SQLCipher 4.6.1) for the
/// other, workload by workload, alternating, so drift touches both alike.
public enum VersusWorkload: String, CaseIterable, Sendable {
    case fetchByIndex = "fetch-by-index"
    case fetchByName = "fetch-by-name"
    case fetchByIndexInPlace = "fetch-by-index-in-place"
    case fetchByNameInPlace = "fetch-by-name-in-place"
    case decodable = "decodable"
    case handWritten = "hand-written"
    case insertPositional = "insert-positional"
    case insertNamed = "insert-named"
    case insertEncodable = "insert-encodable"

    /// The row's name in the table.
    public var title: String {
        switch self {
        case .fetchByIndex: return "fetch by index, `Row` cursor"
        case .fetchByName: return "fetch by name, `Row` cursor"
        case .fetchByIndexInPlace: return "fetch by index, rows read in place (CipherStore `forEachRow`; GRDB `Row` cursor)"
        case .fetchByNameInPlace: return "fetch by name, rows read in place (CipherStore `forEachRow`; GRDB `Row` cursor)"
        case .decodable: return "`Decodable` fetch"
        case .handWritten: return "hand-written initialiser (`Statement`; GRDB: `init(row:)`)"
        case .insertPositional: return "insert, positional"
        case .insertNamed: return "insert, named"
        case .insertEncodable: return "`Encodable` insert"
        }
    }
}

extension VersusWorkload {
    /// The workloads that read rows in place on CipherStore's side; GRDB's side is its `Row`
    /// cursor, which reads its rows in place too, so GRDB's own table lists it once.
    public var readsInPlace: Bool { self == .fetchByIndexInPlace || self == .fetchByNameInPlace }

    /// CipherStore's target for the workload, as a ratio to the raw C API.
    public var cipherStoreTarget: String {
        switch self {
        case .fetchByIndex, .fetchByIndexInPlace: return "≤ 1.10×"
        case .fetchByName, .fetchByNameInPlace: return "≤ 1.30×"
        case .decodable: return "≤ 1.20×"
        case .handWritten: return "—"
        case .insertPositional: return "≤ 1.20×"
        case .insertNamed: return "≤ 1.30×"
        case .insertEncodable: return "≤ 1.30×"
        }
    }
}

/// The child's side: reads a workload's name per line on standard input, runs its untimed
/// setup and then the workload, and answers with the workload's seconds on standard output.
/// Ends at end of input.
public func serveVersusWorkloads(setup: (VersusWorkload) throws -> Void, run: (VersusWorkload) throws -> Void) throws {
    while let line = readLine() {
        guard let workload = VersusWorkload(rawValue: line) else {
            FileHandle.standardError.write(Data("unknown workload '\(line)'\n".utf8))
            exit(2)
        }
        try setup(workload)
        let start = DispatchTime.now().uptimeNanoseconds
        try run(workload)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        FileHandle.standardOutput.write(Data("\(seconds)\n".utf8))
    }
}

/// The driver's side: a `--serve` child and the workloads it runs on request.
public final class VersusChild {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var pending = Data()

    public init(executable: String, environment: [String: String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--serve"]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    /// Runs one workload in the child (its setup untimed) and returns its seconds.
    public func run(_ workload: VersusWorkload) -> Double {
        input.fileHandleForWriting.write(Data((workload.rawValue + "\n").utf8))
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                guard let seconds = Double(line) else { fatalError("the --serve child answered '\(line)'") }
                return seconds
            }
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { fatalError("the --serve child ended during \(workload.rawValue)") }
            pending += chunk
        }
    }

    /// Ends the child (end of its input) and waits for it.
    public func finish() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
