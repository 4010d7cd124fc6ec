import CipherStore

/// The skeleton that `encrypt`, `decrypt`, `rekey` and `upgrade` share: `--json`, the output
/// options checked, an earlier run's leftovers removed, progress and signals wired once the
/// keys are read, and the summary.
enum ConversionCommand {
    /// What a conversion command did, for the summary.
    struct Outcome {
        let report: DatabaseFileReport
        /// "Encrypted", "Decrypted"…
        let verb: String
        var warnings: [String] = []
    }

    /// Runs one conversion command.
    /// - Parameters:
    ///   - command: the subcommand's name, for `--json`.
    ///   - path: the database it was given.
    ///   - progressVerb: the progress bar's verb ("encrypting").
    ///   - checks: refusals that come before anything is removed or asked for. In place, a
    ///     database another process has open is refused next (unless `--force`).
    ///   - convert: reads the keys, then converts with the options it gets from `options()`.
    ///     Called only once the keys are read, so a Ctrl-C at a prompt still ends the process:
    ///     from then on, a signal cancels the conversion. Returns `nil` when it printed its own
    ///     summary.
    static func run(_ command: String, path: String, output: OutputOptions, progressVerb: String,
                    remedies: ErrorText.Remedies = .conversions, checks: () throws -> Void = {},
                    convert: (_ options: () -> DatabaseFileOptions, _ json: JSONOutput?) throws -> Outcome?) throws {
        let json = output.jsonOutput(command: command, path: path)
        try CommandRunner.run(json: json, remedies: remedies) {
            try output.check()
            try checks()
            if output.inPlace { try OtherProcesses.refuseReplacing(path, force: output.force) }
            CommandRunner.removeLeftovers(source: path, destination: output.destination(backup: nil))
            let options = { CommandRunner.conversionOptions(output, verb: progressVerb).0 }
            guard let outcome = try convert(options, json) else { return }
            Summary.conversionFinished(outcome.report, verb: outcome.verb, output: output, json: json, warnings: outcome.warnings)
        }
    }
}
