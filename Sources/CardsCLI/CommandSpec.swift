/// One option a command accepts.
struct OptionSpec: Sendable {
    /// Long name with dashes (`--title`).
    var name: String
    /// A short alias (`-n`), if any.
    var short: String?
    /// The value's placeholder (`title`), or nil for a flag.
    var valueName: String?
    /// One line of help.
    var help: String
    /// Whether it may be given more than once (values accumulate).
    var repeatable = false

    static func value(
        _ name: String, _ valueName: String, _ help: String, short: String? = nil, repeatable: Bool = false
    )
        -> OptionSpec
    {
        OptionSpec(name: name, short: short, valueName: valueName, help: help, repeatable: repeatable)
    }

    static func flag(_ name: String, _ help: String, short: String? = nil) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: nil, help: help)
    }
}

/// A command's interface: what it is called, what it takes, and its help text.
struct CommandSpec: Sendable {
    /// The subcommand name (`add`), or a two-word name (`remote add`).
    var name: String
    /// One line: what it does.
    var abstract: String
    /// The usage line after `cards `.
    var usage: String
    /// Positional arguments: placeholder and help.
    var arguments: [(String, String)] = []
    /// Options.
    var options: [OptionSpec] = []
    /// Fewest and most positional arguments.
    var positionals: ClosedRange<Int> = 0...0
    /// Extra paragraphs for `--help`.
    var discussion: String?
    /// Subcommands listed in help (for groups such as `remote`).
    var subcommands: [(String, String)] = []
}

/// What the parser made of a command's arguments.
struct ParsedArguments {
    /// Positional arguments, in order.
    var positionals: [String] = []
    /// Option values by long name, in the order given.
    var values: [String: [String]] = [:]
    /// Flags given, by long name.
    var flags: Set<String> = []
    /// Options in the order they came (for `--set` and similar).
    var order: [(String, String)] = []
    /// `--deck DIR` given after the command (it may come before it too).
    var deck: String?

    /// The last value of an option.
    func value(_ name: String) -> String? { values[name]?.last }

    /// Whether a flag was given.
    func has(_ name: String) -> Bool { flags.contains(name) }
}

/// A mistake in how the command was called: exit 64 with the usage line.
struct UsageError: Error {
    var message: String
    var command: CommandSpec?
}

/// A runtime failure the CLI itself detects (not from the store): exit 1.
struct CLIError: Error {
    var message: String
    var exitCode: Int32 = 1
}

extension CommandSpec {
    /// Parses `arguments` (everything after the command name) against this spec.
    func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
        var result = ParsedArguments()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let token = arguments[index]
            index += 1
            if optionsEnded || !token.hasPrefix("-") || token == "-" {
                result.positionals.append(token)
                continue
            }
            if token == "--" {
                optionsEnded = true
                continue
            }
            var name = token
            var inlineValue: String?
            if token.hasPrefix("--"), let equals = token.firstIndex(of: "=") {
                name = String(token[..<equals])
                inlineValue = String(token[token.index(after: equals)...])
            } else if !token.hasPrefix("--"), token.count > 2,
                let option = options.first(where: { $0.short == String(token.prefix(2)) }), option.valueName != nil
            {
                // A short option with its value attached, as git takes it: `-n5` for `-n 5`.
                name = String(token.prefix(2))
                inlineValue = String(token.dropFirst(2))
            }
            if name == "--deck" {
                // The global option, where people also put it: `cards list --deck ~/cards`.
                guard let value = inlineValue ?? (index < arguments.count ? arguments[index] : nil), !value.isEmpty
                else { throw UsageError(message: "missing value for '--deck <dir>'", command: self) }
                if inlineValue == nil { index += 1 }
                if result.deck != nil { throw UsageError(message: "'--deck' given more than once", command: self) }
                result.deck = value
                continue
            }
            guard let option = options.first(where: { $0.name == name || $0.short == name }) else {
                if name == "-h" || name == "--help" { throw UsageError(message: "--help", command: self) }
                let hint = Suggestion.hint(for: name, among: options.map(\.name) + ["--help", "--deck"])
                throw UsageError(message: "unknown option '\(name)'\(hint)", command: self)
            }
            if let valueName = option.valueName {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else if index < arguments.count {
                    value = arguments[index]
                    index += 1
                } else {
                    // Named as typed: `-n` for `-n`, not its long name.
                    throw UsageError(message: "missing value for '\(name) <\(valueName)>'", command: self)
                }
                if !option.repeatable, result.values[option.name] != nil {
                    throw UsageError(message: "'\(name)' given more than once", command: self)
                }
                result.values[option.name, default: []].append(value)
                result.order.append((option.name, value))
            } else {
                if inlineValue != nil {
                    throw UsageError(message: "'\(option.name)' takes no value", command: self)
                }
                result.flags.insert(option.name)
            }
        }
        if result.positionals.count < positionals.lowerBound {
            let names = self.arguments.dropFirst(result.positionals.count).map { "<\($0.0)>" }
            throw UsageError(message: "missing \(names.first ?? "argument")", command: self)
        }
        if result.positionals.count > positionals.upperBound {
            let extra = result.positionals[positionals.upperBound]
            throw UsageError(message: "unexpected argument '\(extra)'", command: self)
        }
        return result
    }

    /// The `--help` text, laid out like swift-argument-parser's.
    var helpText: String {
        var text = "OVERVIEW: \(abstract)\n\n"
        if let discussion { text += discussion + "\n\n" }
        text += "USAGE: cards \(usage)\n"
        if !arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            for (name, help) in arguments { text += Self.row("<\(name)>", help) }
        }
        text += "\nOPTIONS:\n"
        for option in options {
            var label = option.short.map { "\($0), " } ?? ""
            label += option.name
            if let valueName = option.valueName { label += " <\(valueName)>" }
            text += Self.row(label, option.help)
        }
        text += Self.row("-h, --help", "Show help information.")
        if !subcommands.isEmpty {
            text += "\nSUBCOMMANDS:\n"
            for (name, help) in subcommands { text += Self.row(name, help) }
        }
        return text
    }

    static func row(_ label: String, _ help: String) -> String {
        let padded =
            label.count < 24
            ? label + String(repeating: " ", count: 24 - label.count) : label + "\n" + String(repeating: " ", count: 26)
        return "  \(padded)\(help)\n"
    }
}
