import Foundation
import TestSupport

/// Builds the states a power cut could leave a directory in, from the file calls a command made
/// (recorded by `Tests/FaultInjection/fault_injection.c` with `FAULT_RECORD`), in the spirit of
/// SQLite's crash tests and ALICE (OSDI 2014).
///
/// The model of the disk is strict: a file's data is durable once an `fsync`/`fdatasync` of
/// that file followed the write; a name (a create, rename, link or unlink) once an `fsync` of
/// its directory followed it. At every sync point, and at the end, it builds:
/// - `durable`: only what was made durable;
/// - `namesKept`: every name change so far, with the data not yet synced dropped;
/// - `random(seed)`: the names as they are or as they were durably, with a seeded random
///   subset of the unsynced writes applied, in order.
struct PowerLossSimulator {
    enum Operation {
        case write(path: String, offset: Int, data: [UInt8])
        case truncate(path: String, length: Int)
        case create(path: String, truncating: Bool)
        case rename(from: String, to: String)
        case link(from: String, to: String)
        case unlink(path: String)
        case sync(path: String)
    }

    /// One state a power cut could leave: file name → content, for the names in the directory.
    struct CrashState {
        let description: String
        let files: [String: [UInt8]]
    }

    let directory: String
    let initialFiles: [String: [UInt8]]
    let operations: [Operation]

    /// Reads the directory as it was before the command (`initialFiles`) and the record.
    init(directory: String, initialFiles: [String: [UInt8]], record: [UInt8]) throws {
        self.directory = directory
        self.initialFiles = initialFiles
        operations = try Self.parse(record, directory: directory)
    }

    /// Every crash state: at each sync point and at the end, `durable` and `namesKept`, and
    /// `randomSubsets` seeded random ones.
    func crashStates(randomSubsets: Int = 4) -> [CrashState] {
        var disk = Disk(files: initialFiles)
        var states: [CrashState] = []
        var generator = SplitMix64(seed: 0x5eed)
        func capture(_ point: String) {
            states.append(CrashState(description: "\(point), durable only", files: disk.state(names: disk.durableNames, unsynced: { _, _ in false })))
            states.append(CrashState(description: "\(point), names kept, unsynced data lost", files: disk.state(names: disk.names, unsynced: { _, _ in false })))
            for subset in 0..<randomSubsets {
                let names = Bool.random(using: &generator) ? disk.names : disk.durableNames
                var choices: [Bool] = []
                for _ in 0..<disk.unsyncedCount { choices.append(Bool.random(using: &generator)) }
                states.append(CrashState(description: "\(point), random subset \(subset)",
                                         files: disk.state(names: names, unsynced: { _, index in choices[index] })))
            }
        }
        for (index, operation) in operations.enumerated() {
            disk.apply(operation, directory: directory)
            if case .sync = operation { capture("after call \(index + 1) (a sync)") }
        }
        capture("at the end")
        return states
    }

    /// The files of `state` written into `directory` (emptied first).
    static func materialize(_ state: CrashState, into directory: String) throws {
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (name, content) in state.files {
            try Data(content).write(to: URL(fileURLWithPath: directory + "/" + name))
        }
    }

    /// Inodes with their durable content and the writes since their last sync; names now and as
    /// of the last directory sync.
    private struct Disk {
        struct Inode {
            var synced: [UInt8]
            var unsynced: [Operation] = []
        }

        var inodes: [Inode] = []
        var names: [String: Int] = [:]
        var durableNames: [String: Int] = [:]
        /// Numbers the unsynced writes of all inodes, for the random subsets.
        var unsyncedCount: Int { inodes.reduce(0) { $0 + $1.unsynced.count } }

        init(files: [String: [UInt8]]) {
            for (name, content) in files.sorted(by: { $0.key < $1.key }) {
                inodes.append(Inode(synced: content))
                names[name] = inodes.count - 1
            }
            durableNames = names
        }

        mutating func apply(_ operation: Operation, directory: String) {
            switch operation {
            case .write(let path, _, _), .truncate(let path, _):
                if let inode = names[path] { inodes[inode].unsynced.append(operation) }
            case .create(let path, let truncating):
                if let inode = names[path] {
                    if truncating { inodes[inode].unsynced.append(.truncate(path: path, length: 0)) }
                } else {
                    inodes.append(Inode(synced: []))
                    names[path] = inodes.count - 1
                }
            case .rename(let from, let to):
                if let inode = names.removeValue(forKey: from) { names[to] = inode }
            case .link(let from, let to):
                if let inode = names[from] { names[to] = inode }
            case .unlink(let path):
                names[path] = nil
            case .sync(let path):
                if path == directory {
                    durableNames = names
                } else if let inode = names[path] {
                    inodes[inode].synced = Self.applying(inodes[inode].unsynced, to: inodes[inode].synced)
                    inodes[inode].unsynced = []
                }
            }
        }

        /// The content under each name: synced data, plus the unsynced writes `unsynced(inode,
        /// global index)` keeps.
        func state(names: [String: Int], unsynced keep: (Int, Int) -> Bool) -> [String: [UInt8]] {
            var base = 0
            var contents: [Int: [UInt8]] = [:]
            for (number, inode) in inodes.enumerated() {
                let kept = inode.unsynced.enumerated().filter { keep(number, base + $0.offset) }.map(\.element)
                contents[number] = Self.applying(kept, to: inode.synced)
                base += inode.unsynced.count
            }
            return names.reduce(into: [:]) { files, entry in files[entry.key] = contents[entry.value] ?? [] }
        }

        static func applying(_ operations: [Operation], to content: [UInt8]) -> [UInt8] {
            var content = content
            for operation in operations {
                switch operation {
                case .write(_, let offset, let data):
                    if content.count < offset + data.count { content += [UInt8](repeating: 0, count: offset + data.count - content.count) }
                    content.replaceSubrange(offset..<(offset + data.count), with: data)
                case .truncate(_, let length):
                    if content.count > length { content.removeLast(content.count - length) } else {
                        content += [UInt8](repeating: 0, count: length - content.count)
                    }
                default:
                    break
                }
            }
            return content
        }
    }

    /// Records as `fault_injection.c` writes them; paths become names in `directory` (or the
    /// directory itself), calls on other files are dropped.
    static func parse(_ record: [UInt8], directory: String) throws -> [Operation] {
        var operations: [Operation] = []
        var index = 0
        func name(_ bytes: ArraySlice<UInt8>) -> String? {
            let path = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "/./", with: "/")
            if path == directory { return path }
            guard path.hasPrefix(directory + "/") else { return nil }
            let rest = String(path.dropFirst(directory.count + 1))
            return rest.contains("/") || rest.hasSuffix(" (deleted)") ? nil : rest
        }
        while index < record.count {
            guard let newline = record[index...].firstIndex(of: 0x0A) else { throw SimulatorError.truncatedRecord }
            let fields = String(decoding: record[index..<newline], as: UTF8.self).split(separator: " ")
            guard fields.count == 5, let offset = Int(fields[1]), let first = Int(fields[2]), let second = Int(fields[3]),
                  let length = Int(fields[4]) else { throw SimulatorError.truncatedRecord }
            let start = newline + 1
            guard start + first + second + length <= record.count else { throw SimulatorError.truncatedRecord }
            let path = name(record[start..<(start + first)])
            let other = name(record[(start + first)..<(start + first + second)])
            let data = Array(record[(start + first + second)..<(start + first + second + length)])
            index = start + first + second + length
            switch (fields[0], path) {
            case ("W", let path?): operations.append(.write(path: path, offset: offset, data: data))
            case ("T", let path?): operations.append(.truncate(path: path, length: offset))
            case ("C", let path?): operations.append(.create(path: path, truncating: offset == 1))
            case ("R", let path?): if let other { operations.append(.rename(from: path, to: other)) }
            case ("L", let path?): if let other { operations.append(.link(from: path, to: other)) }
            case ("U", let path?): operations.append(.unlink(path: path))
            case ("S", let path?): operations.append(.sync(path: path))
            default: break
            }
        }
        return operations
    }

    enum SimulatorError: Error {
        case truncatedRecord
    }
}
