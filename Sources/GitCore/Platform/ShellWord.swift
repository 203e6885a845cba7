/// A path or URL written into a command a message suggests (`cards init <path>`), quoted so that a
/// person can paste it into a POSIX shell as one word: spaces, line breaks, quotes and `$` intact.
package enum ShellWord {
    /// `text` as is when every byte is one a shell leaves alone, else in single quotes (a `'` in it as
    /// `'\''`); one that starts with `-` gets `./` in front, so that it is not read as an option.
    package static func quoted(_ text: String) -> String {
        word(text.hasPrefix("-") ? "./" + text : text)
    }

    /// `text` as a name a suggested command takes (a remote's, a ref's): one word, quoted as `quoted`
    /// quotes it but never given a `./` (that would make it a path), after `-- ` when it starts with "-".
    package static func operand(_ text: String) -> String {
        text.hasPrefix("-") ? "-- " + word(text) : word(text)
    }

    /// `text` as is when every byte is one a shell leaves alone, else in single quotes: one word, with
    /// nothing put in front of it (an option's value given as `--option=WORD`).
    package static func word(_ text: String) -> String {
        let plain =
            !text.isEmpty
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    return true
                default:
                    return "@%+=:,./_-".utf8.contains(byte)
                }
            }
        return plain ? text : singleQuoted(text)
    }

    /// `text` in single quotes, a `'` in it as `'\''`: one word for a POSIX shell, whatever it holds
    /// (GIT_SSH_COMMAND is run by one; so is a command a message suggests).
    package static func singleQuoted(_ text: String) -> String {
        "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}
