import GitCore
import Glibc
import Testing

@Suite("core.sharedRepository as git reads it")
struct SharedRepositoryTests {
    static let widenings: [(setting: String, current: mode_t, expected: mode_t)] = [
        ("group", 0o022, 0o002), ("true", 0o077, 0o007), ("1", 0o022, 0o002),
        ("all", 0o077, 0o003), ("world", 0o022, 0o002), ("everybody", 0o027, 0o003),
        ("0660", 0o022, 0o007), ("0640", 0o002, 0o027), ("0664", 0o077, 0o002),
    ]

    @Test("each setting widens the umask as git widens a new file's mode", arguments: 0..<widenings.count)
    func widened(row: Int) {
        let (setting, current, expected) = Self.widenings[row]
        let umask = SharedRepository.umask(for: setting, current: current)
        #expect(umask == expected, "\(setting) from \(String(current, radix: 8))")
        // An octal mode: a file made 0666 gets exactly it, as git gives it.
        if let umask, setting.hasPrefix("0") {
            #expect(0o666 & ~umask == mode_t(setting, radix: 8))
        }
    }

    @Test(
        "no setting, false or umask, or one git does not know: the umask stays",
        arguments: ["", "false", "umask", "0", "sometimes", "0999", "0044"])
    func unchanged(setting: String) {
        #expect(SharedRepository.umask(for: setting, current: 0o022) == nil)
    }
}
