/// A path or URL written into a command a message suggests (`cards init <path>`), quoted so that a
/// person can paste it into a POSIX shell as one word: spaces, line breaks, quotes and `$` intact.
package enum ShellWord {
    /// `text` as is when every byte is one a shell leaves alone, else in single quotes (a `'` in it as
    /// `'\''`); one that starts with `-` gets `./` in front, so that it is not read as an option.
    package static func quoted(_ text: String) -> String {
        let word = text.hasPrefix("-") ? "./" + text : text
        return isPlain(word) ? word : singleQuoted(word)
    }

    /// `text` as a name a suggested command takes (a remote's, a ref's): one word, quoted as `quoted`
    /// quotes it but never given a `./` (that would make it a path), after `-- ` when it starts with "-".
    package static func operand(_ text: String) -> String {
        let word = isPlain(text) ? text : singleQuoted(text)
        return text.hasPrefix("-") ? "-- " + word : word
    }

    /// Whether every byte of `word` is one a shell leaves alone.
    private static func isPlain(_ word: String) -> Bool {
        !word.isEmpty
            && word.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    return true
                default:
                    return "@%+=:,./_-".utf8.contains(byte)
                }
            }
    }

    /// `text` in single quotes, a `'` in it as `'\''`: one word to a POSIX shell, whatever it holds.
    package static func singleQuoted(_ text: String) -> String {
        "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: #"'\''"#) + "'"
    }
}
