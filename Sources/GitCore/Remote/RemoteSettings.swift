import Glibc

/// How far a fetch, push or clone has come, for a progress line.
public struct TransferProgress: Sendable, Equatable {
    /// Which part of the transfer this is.
    public enum Phase: Sendable, Equatable {
        /// Receiving objects from the remote.
        case receiving
        /// Resolving deltas of received objects.
        case resolving
        /// Sending objects to the remote.
        case sending
    }
    /// Which part of the transfer this is.
    public var phase: Phase
    /// Objects done so far.
    public var objects: Int
    /// Objects in all (0 when not known yet).
    public var totalObjects: Int
    /// Bytes moved so far.
    public var bytes: Int
}

/// Credentials, host-key checking and progress for talking to a remote. `fromEnvironment()`
/// gives what `cards` uses; tests and callers may change any field.
public struct RemoteSettings: Sendable {
    /// Try the ssh agent first (when `SSH_AUTH_SOCK` is set).
    public var useSSHAgent: Bool
    /// Private key files to offer, in order, after the agent (`CARDS_SSH_KEY`, else `~/.ssh/id_ed25519`, `~/.ssh/id_rsa`).
    public var sshKeys: [String]
    /// The user name for ssh when the URL has none.
    public var sshUser: String?
    /// The http(s) user when the URL has none (`CARDS_HTTP_USER`).
    public var httpUser: String?
    /// The http(s) password or token (`CARDS_HTTP_TOKEN`).
    public var httpToken: String?
    /// The known_hosts file that ssh host keys are checked against (`$HOME/.ssh/known_hosts`).
    public var knownHostsPath: String?
    /// Through git: gives up once git has said nothing (no progress, no byte) for this many seconds,
    /// 60 when nil. Through libgit2: once this many seconds have passed since a transfer began, also
    /// while it waits on a server that sends nothing (`StallTimer`); nil waits as long as it takes.
    /// At most a day is used (`CARDS_NETWORK_TIMEOUT`).
    public var timeout: Double?
    /// `git` or `libgit2` (`CARDS_TRANSPORT`); nil: git config `cards.transport`, else git where it is
    /// installed. See `Repository.transport(_:)`.
    public var transport: String?
    /// Called as objects move; nil shows nothing.
    public var progress: (@Sendable (TransferProgress) -> Void)?
    /// Asked as data moves: true stops the transfer, which then fails as interrupted (a signal the
    /// caller caught, say); nil never stops.
    public var isInterrupted: (@Sendable () -> Bool)?
    /// Whether `sshKeys` are the default key files `fromEnvironment()` found (which OpenSSH, under the git
    /// transport, offers by itself), not keys someone chose.
    package var sshKeysAreDefaults = false
    /// Whether `knownHostsPath` is the `$HOME/.ssh/known_hosts` `fromEnvironment()` assumed (OpenSSH,
    /// under the git transport, reads its own), not a file someone chose.
    package var knownHostsPathIsDefault = false

    /// Creates settings with nothing configured (no agent, no keys, no known hosts).
    public init(
        useSSHAgent: Bool = false, sshKeys: [String] = [], sshUser: String? = nil, httpUser: String? = nil,
        httpToken: String? = nil, knownHostsPath: String? = nil, timeout: Double? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil, isInterrupted: (@Sendable () -> Bool)? = nil
    ) {
        self.useSSHAgent = useSSHAgent
        self.sshKeys = sshKeys
        self.sshUser = sshUser
        self.httpUser = httpUser
        self.httpToken = httpToken
        self.knownHostsPath = knownHostsPath
        self.timeout = timeout
        self.progress = progress
        self.isInterrupted = isInterrupted
    }

    /// The settings `cards` runs with: agent when `SSH_AUTH_SOCK` is set; `CARDS_SSH_KEY`, else
    /// `~/.ssh/id_ed25519` and `~/.ssh/id_rsa` that exist; `CARDS_HTTP_USER`/`CARDS_HTTP_TOKEN`;
    /// `$HOME/.ssh/known_hosts`; `CARDS_NETWORK_TIMEOUT` seconds when set; `CARDS_TRANSPORT`.
    public static func fromEnvironment() -> RemoteSettings {
        var settings = RemoteSettings()
        settings.useSSHAgent = !(environment("SSH_AUTH_SOCK") ?? "").isEmpty
        let home = environment("HOME")
        if let key = environment("CARDS_SSH_KEY"), !key.isEmpty {
            settings.sshKeys = [key]
        } else if let home {
            settings.sshKeys = ["id_ed25519", "id_rsa"].map { "\(home)/.ssh/\($0)" }.filter { access($0, R_OK) == 0 }
            settings.sshKeysAreDefaults = true
        }
        settings.sshUser = environment("USER").flatMap { $0.isEmpty ? nil : $0 }
        settings.httpUser = environment("CARDS_HTTP_USER")
        settings.httpToken = environment("CARDS_HTTP_TOKEN")
        if let home {
            settings.knownHostsPath = "\(home)/.ssh/known_hosts"
            settings.knownHostsPathIsDefault = true
        }
        settings.transport = environment("CARDS_TRANSPORT")
        // A day at most: "inf" or 1e300 would not fit the timer (nor a whole number of seconds to say).
        if let text = environment("CARDS_NETWORK_TIMEOUT"), let seconds = Double(text), seconds.isFinite, seconds > 0 {
            settings.timeout = min(seconds, 86_400)
        }
        return settings
    }

    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
