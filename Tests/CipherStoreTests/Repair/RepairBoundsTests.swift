@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// The repair's page reader bounds its work by the file, whatever the file claims: a shared
/// overflow chain is walked once, a payload longer than the file is not read.
@Suite struct RepairBoundsTests {
    let pageSize = SQLCipherLibrary.defaultPageSize

    /// A decrypted image: `leaves` table leaves (pages 2…), each with as many cells as fit,
    /// every cell's payload continuing in the same chain of `chain` overflow pages after them.
    func imageWithSharedChain(leaves: Int, chain: Int) -> (image: [UInt8], cells: Int, firstOverflow: UInt32) {
        let usable = pageSize
        let minLocal = (usable - 12) * 32 / 255 - 23
        // A payload whose local part is minLocal: the rest fills `chain` overflow pages exactly.
        let payloadSize = minLocal + chain * (usable - 4)
        let firstOverflow = UInt32(leaves + 2)
        var image = [UInt8](repeating: 0, count: pageSize * (leaves + 1 + chain))
        image[100] = 13  // page 1: an empty table leaf
        var cells = 0
        for leaf in 0..<leaves {
            let base = (leaf + 1) * pageSize
            var cellBytes: [[UInt8]] = []
            var end = pageSize
            while true {
                var cell = Self.varint(UInt64(payloadSize)) + Self.varint(UInt64(cells + 1))
                cell += [UInt8](repeating: 0x61, count: minLocal)
                cell += Self.bigEndian(firstOverflow)
                let used = cellBytes.reduce(0) { $0 + $1.count }
                guard 8 + 2 * (cellBytes.count + 1) + used + cell.count < pageSize else { break }
                cellBytes.append(cell)
                cells += 1
            }
            image[base] = 13
            image[base + 3] = UInt8(cellBytes.count >> 8)
            image[base + 4] = UInt8(cellBytes.count & 0xFF)
            for (index, cell) in cellBytes.enumerated() {
                end -= cell.count
                image.replaceSubrange((base + end)..<(base + end + cell.count), with: cell)
                image[base + 8 + 2 * index] = UInt8(end >> 8)
                image[base + 9 + 2 * index] = UInt8(end & 0xFF)
            }
        }
        for index in 0..<chain {
            let page = Int(firstOverflow) + index
            let next = index + 1 < chain ? UInt32(page + 1) : 0
            image.replaceSubrange((page - 1) * pageSize..<((page - 1) * pageSize + 4), with: Self.bigEndian(next))
        }
        return (image, cells, firstOverflow)
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func varint(_ value: UInt64) -> [UInt8] {
        var groups: [UInt8] = [UInt8(value & 0x7F)]
        var rest = value >> 7
        while rest > 0 {
            groups.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
            rest >>= 7
        }
        return groups
    }

    @Test func cellsSharingOneOverflowChainWalkItOnce() throws {
        let chain = 300
        let (image, cells, _) = imageWithSharedChain(leaves: 40, chain: chain)
        #expect(cells >= 100)
        let reader = EncryptedPageReader(image: image, pageSize: pageSize, cipher: nil)
        var whole = 0
        for number in UInt32(2)...41 {
            let leaf = try #require(try reader.page(number).flatMap { BTreePage($0, number: number) })
            for cell in leaf.cells where try reader.payload(of: cell, visit: { _ in }) != nil { whole += 1 }
        }
        // The first cell keeps the chain; every other cell that points into it is damage.
        #expect(whole == 1)
        #expect(reader.overflowPagesRead == chain, "a chain shared by \(cells) cells was walked \(reader.overflowPagesRead) pages")
    }

    @Test func aPayloadLongerThanTheFileIsNotRead() throws {
        let (image, _, _) = imageWithSharedChain(leaves: 1, chain: 2)
        let reader = EncryptedPageReader(image: image, pageSize: pageSize, cipher: nil)
        let cell = try #require(try reader.page(2).flatMap { BTreePage($0, number: 2) }?.cells.first)
        // The same cell claiming 2^31 bytes: more than the whole image holds.
        let claimed = BTreePage.Cell(rowID: cell.rowID, payloadSize: 1 << 31, local: cell.local,
                                     firstOverflowPage: cell.firstOverflowPage, slot: cell.slot)
        #expect(try reader.payload(of: claimed, visit: { _ in }) == nil)
        #expect(reader.overflowPagesRead == 0)
        #expect(try reader.payload(of: cell, visit: { _ in })?.count == cell.payloadSize)
    }
}

/// Without an HMAC, a wrong key decrypts every page into noise: the repair says so instead of
/// writing an empty database.
@Suite struct RepairWithoutHMACTests {
    @Test func aWrongPassphraseIsRefusedAndTheRightOneReadsTheRows() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("nohmac.db")
        var settings = CipherSettings.libraryDefaults
        settings.useHMAC = false
        settings.kdfIterations = 4000
        let db = try Connection(path: path, key: .passphrase("right passphrase"), configuration: Configuration(cipher: settings))
        try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES ('one'), ('two');")
        try db.close()

        let wrongOutput = directory.path("wrong.db")
        #expect(throws: RepairError.self) {
            try DatabaseRepair.salvage(path: path, key: .passphrase("wrong passphrase"), cipher: settings, to: wrongOutput)
        }
        #expect(!FileManager.default.fileExists(atPath: wrongOutput))
        let report = try DatabaseRepair.salvage(path: path, key: .passphrase("right passphrase"), cipher: settings, to: directory.path("right.db"))
        #expect(report.isComplete)
        #expect(report.recoveredRows == 2)
    }
}

/// A log is read only when every page between the file's end and the size it claims has a
/// frame: one frame numbered 4,294,967,295 does not make a claim of as many pages plausible.
@Suite struct RepairLogBoundsTests {
    @Test func aFrameWithTheLargestPageNumberDoesNotMakeAHugeClaimPlausible() throws {
        let pageSize = 1024
        let image = [UInt8](repeating: 0, count: 2 * pageSize)
        let blank = [UInt8](repeating: 0, count: pageSize)
        let hostile = craftedWAL(pageSize: pageSize, frames: [(1, blank), (UInt32.max, blank)], sizeAfterCommit: UInt32.max)
        #expect(EncryptedPageReader(image: image, log: hostile, pageSize: pageSize, cipher: nil).pageCount == 2)
        // A commit that grew the database by the pages it wrote is read.
        let grown = craftedWAL(pageSize: pageSize, frames: [(3, blank), (4, blank)], sizeAfterCommit: 4)
        #expect(EncryptedPageReader(image: image, log: grown, pageSize: pageSize, cipher: nil).pageCount == 4)
        let gap = craftedWAL(pageSize: pageSize, frames: [(4, blank)], sizeAfterCommit: 4)
        #expect(EncryptedPageReader(image: image, log: gap, pageSize: pageSize, cipher: nil).pageCount == 2)
    }
}
