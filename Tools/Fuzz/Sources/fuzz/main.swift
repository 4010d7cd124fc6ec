import Foundation

// libFuzzer's own driver, started from here because SwiftPM gives every executable a `main`.
// The first argument names the target; the rest are libFuzzer's.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<Int32>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                     _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

/// The target chosen on the command line.
nonisolated(unsafe) var selectedTarget: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32 = { _, _ in 0 }

let targets: [String: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32] = [
    "open": { fuzzOpen($0, $1) },
    "slots": { fuzzSlotFile($0, $1) },
    "pages": { fuzzPages($0, $1) },
    "records": { fuzzRecords($0, $1) },
    "repair": { fuzzRepair($0, $1) },
    "repair-structured": { fuzzStructuredRepair($0, $1) },
    "tokenizer": { fuzzTokenizer($0, $1) },
]
// `fuzz seeds DIRECTORY`: writes the seed inputs of the targets that need a made one (kept in
// Corpus/ in the repository; written again only when their format changes).
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "seeds" {
    let directory = CommandLine.arguments[2]
    try! slotFileSeed().write(to: URL(fileURLWithPath: directory + "/slots/two-slots.keys"))
    for (name, bytes) in recordSeeds { try! Data(bytes).write(to: URL(fileURLWithPath: directory + "/records/" + name)) }
    exit(0)
}
guard CommandLine.arguments.count >= 2, let target = targets[CommandLine.arguments[1]] else {
    FileHandle.standardError.write(Data("usage: fuzz open|slots|pages|records|repair|repair-structured|tokenizer [libFuzzer options] CORPUS\n".utf8))
    exit(64)
}
selectedTarget = target
// The slot target's recovery key is made fresh by each process: its slot file joins the corpus
// (the last argument) so that the recovery-key slots really open.
if CommandLine.arguments[1] == "slots", let corpus = CommandLine.arguments.last, !corpus.hasPrefix("-") {
    try? slotFileSeed().write(to: URL(fileURLWithPath: corpus + "/this-run.keys"))
}
// libFuzzer sees the program name followed by its own options: the target's name is dropped.
var arguments = [CommandLine.unsafeArgv[0]] + (2..<Int(CommandLine.argc)).map { CommandLine.unsafeArgv[$0] }
var argumentCount = Int32(arguments.count)
arguments.append(nil)
exit(arguments.withUnsafeMutableBufferPointer { buffer in
    var argumentValues: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = buffer.baseAddress
    return runFuzzerDriver(&argumentCount, &argumentValues, target)
})

/// A file of this process's own in the temporary directory.
func scratchPath(_ name: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("cipherstore-fuzz-\(getpid())-\(name)").path
}


/// libFuzzer's runtime refers to this symbol even though its driver is started from `main`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    selectedTarget(data, size)
}
