import CipherStore
import Foundation
import Testing
import TestSupport

/// SIGINT, SIGTERM and SIGHUP during the copy of a ~50 MB encrypt cancel it: exit 128 + the
/// signal, the source byte for byte as it was, no temporary file left. A run killed with
/// SIGKILL leaves its temporary file, which the next run to the same output removes and names.
@Suite(.serialized) struct SignalCLITests {
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    /// Seconds after the temporary file appears, i.e. during the copy.
    static let delays: [Double] = [0, 0.05, 0.15]

    static func temporaries(in workspace: TemporaryDirectory) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: workspace.url.path)) ?? []).filter { $0.contains(".cipherstore-") }
    }

    /// Starts `arguments` and waits until its temporary file exists.
    static func startAndWaitForTheCopy(_ arguments: [String], in workspace: TemporaryDirectory) throws -> (Process, Pipe, Pipe) {
        let started = try CLI.start(arguments)
        let deadline = Date().addingTimeInterval(30)
        while temporaries(in: workspace).isEmpty && started.0.isRunning && Date() < deadline { usleep(2_000) }
        return started
    }

    @Test(arguments: [false, true])
    func aSignalDuringTheCopyCancelsAndLeavesNothing(inPlace: Bool) throws {
        let workspace = try TemporaryDirectory()
        let path = workspace.path("big.db")
        let output = workspace.path("out.db")
        let keyFile = try workspace.keyFile("key", "signal test key")
        try SampleDatabases.makeLarge(at: path, rows: KillTests.rows)
        let original = fileBytes(path)
        var cancelled = 0
        for signal in Self.signals {
            for delay in Self.delays {
                let destination = inPlace ? ["--in-place"] : ["-o", output]
                let (process, stdout, stderr) = try Self.startAndWaitForTheCopy(["encrypt", path, "--quiet", "--key-file", keyFile] + destination, in: workspace)
                Thread.sleep(forTimeInterval: delay)
                kill(process.processIdentifier, signal)
                let result = ProcessResult.collect(process, output: stdout, errors: stderr)
                let label = "signal \(signal) after \(delay) s"
                #expect(process.terminationReason == .exit, "\(label): ended by the signal itself")
                if result.status == 0 {
                    // Finished before the signal: then the result is complete, and reset for the next run.
                    #expect(KillTests.isComplete(inPlace ? path : output, key: try .passphrase("signal test key")), "\(label)")
                    try FileManager.default.removeItem(atPath: inPlace ? path : output)
                    if inPlace { try original.write(to: URL(fileURLWithPath: path)) }
                } else {
                    cancelled += 1
                    #expect(result.status == 128 + signal, "\(label): \(result.status) \(result.errorOutput)")
                    #expect(result.errorOutput.contains("Cancelled"), "\(label): \(result.errorOutput)")
                    #expect(fileBytes(path) == original, "\(label): the source changed")
                    #expect(!FileManager.default.fileExists(atPath: output), "\(label)")
                }
                #expect(Self.temporaries(in: workspace).isEmpty, "\(label): left \(Self.temporaries(in: workspace))")
            }
        }
        #expect(cancelled >= Self.signals.count * Self.delays.count - 2, "only \(cancelled) runs were still copying when signalled")
    }

    @Test func theNextRunRemovesAndNamesWhatAKilledRunLeft() throws {
        let workspace = try TemporaryDirectory()
        let path = workspace.path("big.db")
        let output = workspace.path("export.db")
        let keyFile = try workspace.keyFile("key", "leftover key")
        try SampleDatabases.makeLarge(at: path, rows: KillTests.rows)
        let (process, _, _) = try Self.startAndWaitForTheCopy(["encrypt", path, "-o", output, "--quiet", "--key-file", keyFile], in: workspace)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let leftovers = Self.temporaries(in: workspace)
        #expect(!leftovers.isEmpty, "the killed run left nothing to clean")

        // Even a run that then fails (here on an empty key file) removes them, and says so.
        let emptyKey = try workspace.keyFile("empty.key", "")
        let failing = try CLI.run(["encrypt", path, "-o", output, "--key-file", emptyKey])
        #expect(failing.status == 64)
        #expect(failing.errorOutput.contains("removed \(leftovers.count) leftover temporary file"), "\(failing.errorOutput)")
        for leftover in leftovers { #expect(failing.errorOutput.contains(leftover), "\(failing.errorOutput)") }
        #expect(Self.temporaries(in: workspace).isEmpty)

        let next = try CLI.run(["encrypt", path, "-o", output, "--quiet", "--key-file", keyFile])
        #expect(next.status == 0, "\(next.errorOutput)")
        #expect(!next.errorOutput.contains("leftover"), "\(next.errorOutput)")
    }

    /// Ctrl-C, Ctrl-\, SIGTERM or SIGHUP at the key prompt, on a pseudo-terminal: the process
    /// exits with 128 + the signal and the terminal echoes again.
    @Test(arguments: ["INT", "QUIT", "TERM", "HUP"])
    func aSignalAtTheKeyPromptRestoresEcho(signal: String) throws {
        let workspace = try TemporaryDirectory()
        let source = workspace.path("plain.db")
        try Connection(path: source, key: nil).execute(sql: "CREATE TABLE t(x)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", Self.promptDriver, CLI.executable.path, source, workspace.path("out.db"), signal]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let result = ProcessResult.collect(process, output: output, errors: errors)
        #expect(result.status == 0, "\(result.errorOutput)")
        let number = ["INT": SIGINT, "QUIT": SIGQUIT, "TERM": SIGTERM, "HUP": SIGHUP][signal]!
        #expect(result.output.hasPrefix("status \(128 + number) echo-at-prompt False echo-after True"), "\(result.output)")
        #expect(!FileManager.default.fileExists(atPath: workspace.path("out.db")))
    }

    /// Runs the CLI on a new pseudo-terminal as its controlling terminal, waits for the key
    /// prompt, then types Ctrl-C (INT) or Ctrl-\ (QUIT) or sends the signal, and prints how it ended and
    /// whether the terminal echoed at the prompt and after.
    static let promptDriver = #"""
    import os, select, signal, subprocess, sys, termios, time
    executable, source, output, name = sys.argv[1:5]
    master, slave = os.openpty()
    terminal = os.ttyname(slave)
    def take_terminal():
        os.setsid()
        os.close(os.open(terminal, os.O_RDWR))
    child = subprocess.Popen([executable, "encrypt", source, "-o", output], stdin=slave, stdout=slave, stderr=slave,
                             preexec_fn=take_terminal)
    screen, deadline = b"", time.time() + 30
    while b"Enter the key: " not in screen and time.time() < deadline:
        if select.select([master], [], [], 0.1)[0]:
            screen += os.read(master, 4096)
    time.sleep(0.2)
    echo_at_prompt = bool(termios.tcgetattr(slave)[3] & termios.ECHO)
    if name == "INT":
        os.write(master, b"\x03")
    elif name == "QUIT":
        os.write(master, b"\x1c")
    else:
        os.kill(child.pid, getattr(signal, "SIG" + name))
    status = child.wait(timeout=30)
    echo_after = bool(termios.tcgetattr(slave)[3] & termios.ECHO)
    print("status", status, "echo-at-prompt", echo_at_prompt, "echo-after", echo_after)
    """#
}
