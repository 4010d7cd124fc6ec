@_spi(Fuzzing) import CipherStore

/// A log of one commit for pages of `pageSize` bytes: each frame (page number, page image),
/// the last one committing with `sizeAfterCommit`; salts and checksums valid.
public func craftedWAL(pageSize: Int, frames: [(page: UInt32, image: [UInt8])], sizeAfterCommit: UInt32) -> [UInt8] {
    var log = [UInt8](repeating: 0, count: 32)
    func bigEndian(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    func put(_ value: UInt32, at offset: Int) { log.replaceSubrange(offset..<(offset + 4), with: bigEndian(value)) }
    put(0x377f_0682, at: 0)
    put(3_007_000, at: 4)
    put(UInt32(pageSize), at: 8)
    put(0x1234_5678, at: 16)
    put(0x9abc_def0, at: 20)
    var sums = DatabaseRepair.walChecksum(log[0..<24], from: (0, 0))
    put(sums.0, at: 24)
    put(sums.1, at: 28)
    for (index, frame) in frames.enumerated() {
        let header = bigEndian(frame.page) + bigEndian(index == frames.count - 1 ? sizeAfterCommit : 0) + bigEndian(0x1234_5678) + bigEndian(0x9abc_def0)
        sums = DatabaseRepair.walChecksum(header[0..<8], from: sums)
        sums = DatabaseRepair.walChecksum(frame.image[...], from: sums)
        log += header + bigEndian(sums.0) + bigEndian(sums.1) + frame.image
    }
    return log
}
