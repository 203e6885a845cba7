import Glibc
import SystemCalls

/// Signs commits as `git commit` does with `commit.gpgsign` (git's gpg-interface.c): the program
/// `gpg.format` names (`openpgp`: `gpg.openpgp.program`, else `gpg.program`, else `gpg`; `x509`:
/// `gpg.x509.program`, else `gpgsm`; `ssh`: `gpg.ssh.program`, else `ssh-keygen`), called with git's
/// own arguments, so a wrapper written for git works; the key `user.signingkey`, else the committer
/// (OpenPGP, X.509) or `gpg.ssh.defaultKeyCommand` (SSH). The signature goes into a `gpgsig` header
/// at the end of the commit's header, as git puts it.
package struct CommitSigner: Sendable {
    /// The kinds of signature git makes.
    package enum Format: String, Sendable {
        case openpgp, x509, ssh
    }

    /// The kind of signature.
    package var format: Format
    /// The signing program, as configured (a name looked up on PATH, or a path).
    package var program: String
    /// `user.signingkey`, or nil to use the format's default.
    package var key: String?
    /// `gpg.ssh.defaultKeyCommand`, for an SSH signature without `user.signingkey`.
    package var defaultKeyCommand: String?

    /// The signer `git commit` would use in `repository`, or nil when `commit.gpgsign` is not true.
    package static func configured(in repository: Repository) throws(GitError) -> CommitSigner? {
        guard repository.configBool("commit.gpgsign") == true else { return nil }
        let formatName = (try repository.configString("gpg.format")) ?? "openpgp"
        guard let format = Format(rawValue: formatName.lowercased()) else {
            throw GitError(
                code: .invalidConfig,
                message: "invalid value for 'gpg.format': '\(formatName)' (git knows openpgp, x509 and ssh)",
                function: "CommitSigner")
        }
        let program: String
        switch format {
        case .openpgp:
            let specific = try repository.configString("gpg.openpgp.program")
            let general = try repository.configString("gpg.program")
            program = specific ?? general ?? "gpg"
        case .x509: program = (try repository.configString("gpg.x509.program")) ?? "gpgsm"
        case .ssh: program = (try repository.configString("gpg.ssh.program")) ?? "ssh-keygen"
        }
        let key = try repository.configString("user.signingkey").flatMap { $0.isEmpty ? nil : $0 }
        return CommitSigner(
            format: format, program: program, key: key,
            defaultKeyCommand: try repository.configString("gpg.ssh.defaultKeyCommand"))
    }

    /// The commit `bytes` (as `Repository.commitBytes` makes them) signed: a `gpgsig` header holding
    /// the signature of the unsigned bytes, before the blank line that ends the header. `committer`
    /// ("Name <email>") is the OpenPGP and X.509 default key. Fails with the program's own words.
    package func sign(_ bytes: [UInt8], committer: Signature, in directory: String) throws(GitError) -> [UInt8] {
        let signature: [UInt8]
        switch format {
        case .openpgp, .x509:
            let key = self.key ?? "\(committer.name) <\(committer.email)>"
            signature = try signWithGPG(bytes, key: key, in: directory)
        case .ssh:
            signature = try signWithSSH(bytes, in: directory)
        }
        return CommitSigner.inserting(signature: signature, into: bytes)
    }

    /// `program --status-fd=2 -bsau KEY` with the commit on standard input: the armoured signature on
    /// standard output, and `[GNUPG:] SIG_CREATED` on the status descriptor when it was made.
    private func signWithGPG(_ bytes: [UInt8], key: String, in directory: String) throws(GitError) -> [UInt8] {
        let outcome = try run(["--status-fd=2", "-bsau", key], input: bytes, in: directory)
        let created = outcome.errorLines.contains { $0.hasPrefix("[GNUPG:] SIG_CREATED ") }
        guard outcome.status == 0, created, !outcome.output.isEmpty else {
            let said = outcome.errorLines.filter { !$0.hasPrefix("[GNUPG:]") && !$0.isEmpty }
            throw failure("\(program) failed to sign the data", said: said)
        }
        return CommitSigner.withoutCarriageReturns(outcome.output)
    }

    /// `program -Y sign -n git -f KEYFILE [-U] FILE`, as git runs ssh-keygen: a literal key
    /// (`key::…` or `ssh-…`) is written to a file and its private half is asked of the agent (`-U`);
    /// the signature is read from FILE.sig.
    private func signWithSSH(_ bytes: [UInt8], in directory: String) throws(GitError) -> [UInt8] {
        var key = self.key
        if key == nil, let command = defaultKeyCommand,
            let program = command.split(separator: " ").first.map(String.init)
        {
            let parts = command.split(separator: " ").map(String.init)
            let outcome = try run(Array(parts.dropFirst()), program: program, input: nil, in: directory)
            let first = String(decoding: outcome.output, as: UTF8.self).split(separator: "\n").first.map(String.init)
            if outcome.status == 0, let first, CommitSigner.literalSSHKey(first) != nil { key = first }
        }
        guard let key else {
            throw GitError(
                code: .invalidConfig,
                message: "either user.signingkey or gpg.ssh.defaultKeyCommand needs to be configured to sign with ssh",
                function: "CommitSigner")
        }
        let folder = CommitSigner.temporaryFolder()
        var made: [String] = []
        defer { for path in made { unlink(path) } }
        let keyFile: String
        if let literal = CommitSigner.literalSSHKey(key) {
            keyFile = try FileSync.writeTemporary(
                Array(literal.utf8), in: folder, prefix: ".git_signing_key_tmp", flush: false)
            made.append(keyFile)
        } else {
            keyFile = RepositoryOwnership.expandedPath(key) ?? key
        }
        let bufferFile = try FileSync.writeTemporary(bytes, in: folder, prefix: ".git_signing_buffer_tmp", flush: false)
        made += [bufferFile, bufferFile + ".sig"]
        var arguments = ["-Y", "sign", "-n", "git", "-f", keyFile]
        if CommitSigner.literalSSHKey(key) != nil { arguments.append("-U") }
        arguments.append(bufferFile)
        let outcome = try run(arguments, input: nil, in: directory)
        guard outcome.status == 0, let signature = Repository.readSmallFile(bufferFile + ".sig", limit: 1 << 20),
            !signature.isEmpty
        else {
            let said = outcome.errorLines.filter { !$0.isEmpty }
            if said.contains(where: { $0.contains("usage:") }) {
                throw failure(
                    "ssh-keygen -Y sign is needed for ssh signing (available in openssh version 8.2p1+)", said: [])
            }
            throw failure("\(program) failed to sign the data with \(keyFile)", said: said)
        }
        return CommitSigner.withoutCarriageReturns(signature)
    }

    /// Runs the signing program (or `program`), looked up on PATH as git's run-command does.
    private func run(
        _ arguments: [String], program name: String? = nil, input: [UInt8]?, in directory: String
    ) throws(GitError) -> GitProcess.Outcome {
        let name = name ?? program
        guard let path = CommitSigner.lookUp(name) else {
            throw GitError(
                code: .notFound,
                message: "cannot run \(name) to sign the commit: no such program on PATH (set gpg.program, "
                    + "gpg.\(format.rawValue).program, or commit.gpgsign false)",
                function: "CommitSigner")
        }
        var inputFile: Int32?
        if let input {
            let file = try FileSync.writeTemporary(
                input, in: CommitSigner.temporaryFolder(), prefix: ".cards-sign", flush: false)
            let descriptor = open(file, O_RDONLY | O_CLOEXEC)
            let error = errno
            unlink(file)
            // (-1 would mean /dev/null to the spawn: the program would sign nothing.)
            guard descriptor >= 0 else {
                throw GitError(
                    code: .system(error), message: "cannot read back \(file): \(SystemError.reason(error))",
                    function: "open")
            }
            inputFile = descriptor
        }
        defer { if let inputFile { close(inputFile) } }
        var process = GitProcess(arguments: arguments, directory: directory, stallTimeout: 86_400)
        process.program = path
        process.input = inputFile
        return try process.run()
    }

    private func failure(_ what: String, said: [String]) -> GitError {
        GitError(
            code: .processFailed,
            message: what + (said.isEmpty ? "" : ": " + said.joined(separator: "\n"))
                + "; nothing was committed (fix the signing set-up, or `git config commit.gpgsign false`)",
            function: "CommitSigner")
    }

    /// The key text of `key::…` or `ssh-…`, else nil (a path).
    static func literalSSHKey(_ key: String) -> String? {
        if key.hasPrefix("key::") { return String(key.dropFirst(5)) }
        if key.hasPrefix("ssh-") { return key }
        return nil
    }

    /// `bytes` with the signature in a `gpgsig` header at the end of the header: its first line after
    /// "gpgsig ", every other line after a space (git's `do_sign_commit`).
    static func inserting(signature: [UInt8], into bytes: [UInt8]) -> [UInt8] {
        var end = bytes.count
        for index in bytes.indices.dropLast() where bytes[index] == 10 && bytes[index + 1] == 10 {
            end = index + 1
            break
        }
        var header = Array("gpgsig".utf8)
        var lineStart = true
        for byte in signature {
            if lineStart { header.append(UInt8(ascii: " ")) }
            header.append(byte)
            lineStart = byte == 10
        }
        if header.last != 10 { header.append(10) }
        return Array(bytes[..<end]) + header + Array(bytes[end...])
    }

    static func withoutCarriageReturns(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        for (index, byte) in bytes.enumerated() where !(byte == 13 && index + 1 < bytes.count && bytes[index + 1] == 10)
        {
            result.append(byte)
        }
        return result
    }

    static func lookUp(_ name: String) -> String? {
        if name.contains("/") {
            let path = RepositoryOwnership.expandedPath(name) ?? name
            return access(path, X_OK) == 0 ? path : nil
        }
        return GitProcess.lookUp(name)
    }

    static func temporaryFolder() -> String {
        getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }

}
