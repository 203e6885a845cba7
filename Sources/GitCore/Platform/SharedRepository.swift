import Glibc

/// git's `core.sharedRepository`: who besides the owner may write the files of a repository that
/// several Unix users share (`git init --shared=group`). git widens the mode of each file it creates
/// there; `cards` gets the same modes by widening the process's umask while it works on such a
/// repository (new folders take the group and setgid bit of the shared folders they are made in).
package enum SharedRepository {
    /// The umask that gives new files and folders at least the access `setting` asks for, from the
    /// umask in force `current`; nil when the setting asks for nothing (`false`, `umask`, unset) or is
    /// not one git knows.
    ///
    /// `group` (`true`, `1`): group read and write; `all` (`world`, `everybody`, `2`): that and read for
    /// others; an octal mode such as `0660`: exactly that mode for files (folders get search where read
    /// is given, as git gives it).
    package static func umask(for setting: String, current: mode_t) -> mode_t? {
        switch setting.lowercased() {
        case "", "false", "no", "off", "umask", "0": return nil
        case "group", "true", "yes", "on", "1": return current & ~0o070
        case "all", "world", "everybody", "2": return current & ~0o074
        default:
            guard setting.hasPrefix("0"), let mode = mode_t(setting, radix: 8), mode <= 0o777,
                mode & 0o600 == 0o600
            else { return nil }
            return 0o777 & ~(mode | (mode & 0o444) >> 2)
        }
    }

    /// Widens the process's umask as `setting` (the repository's `core.sharedRepository`) asks.
    package static func apply(_ setting: String?) {
        guard let setting else { return }
        let current = Glibc.umask(0o022)
        Glibc.umask(umask(for: setting, current: current) ?? current)
    }
}
