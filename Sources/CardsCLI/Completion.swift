import CardModel
import CardStore
import SwipeEngine

/// Shell completion, worked out from the same command specs as `--help`: the shells' scripts
/// (`cards completions SHELL`, in Completion+Scripts.swift) only ask `cards __complete WORD…` for the
/// candidates of the last word, so what they offer can never drift from what the parser takes.
///
/// The answer is one candidate a line, `value<TAB>description` (the description may be empty), or one
/// line `:files` or `:dirs` for the shell's own file or folder completion.
enum Completion {
    /// One thing the shell may offer.
    struct Candidate: Equatable {
        var value: String
        var description: String
    }

    /// What the last word may be.
    enum Answer: Equatable {
        case candidates([Candidate])
        case files
        case directories
    }

    /// The hidden command the scripts call. It prints nothing on stderr and always succeeds: a
    /// completion must never put an error in the middle of what someone is typing.
    static func run(_ words: [String], context: inout Context) -> Int32 {
        switch complete(words, context: &context) {
        case .files: context.output.print(":files")
        case .directories: context.output.print(":dirs")
        case .candidates(let candidates):
            for candidate in candidates {
                // A tab or newline inside a title would split the line: shown as a space.
                let description = String(candidate.description.map { $0 == "\t" || $0 == "\n" ? " " : $0 })
                context.output.print("\(candidate.value)\t\(description)")
            }
        }
        return 0
    }

    /// The candidates for the last of `words` (the words after `cards`, the last one being typed, maybe
    /// empty), those that start with it.
    static func complete(_ given: [String], context: inout Context) -> Answer {
        var words = given
        let current = words.popLast() ?? ""
        var index = 0
        // Global options before the command.
        while index < words.count, words[index].hasPrefix("-") {
            if words[index] == "--deck" {
                index += 1
                guard index < words.count else { return .directories }
                context.deckOption = Context.expandingHome(words[index])
            } else if words[index].hasPrefix("--deck=") {
                context.deckOption = Context.expandingHome(String(words[index].dropFirst("--deck=".count)))
            }
            index += 1
        }
        guard index < words.count else {
            if current.hasPrefix("-") {
                return matching(
                    current,
                    [
                        Candidate(value: "--deck", description: "The deck to use"),
                        Candidate(value: "--version", description: "Show the version"),
                        Candidate(value: "--help", description: "Show help information"),
                    ])
            }
            return matching(current, Commands.all.map { Candidate(value: $0.spec.name, description: $0.spec.abstract) })
        }
        let name = words[index]
        index += 1
        guard var command = Commands.all.first(where: { $0.spec.name == name }) else { return .candidates([]) }
        if let group = Commands.groups[name] {
            if index == words.count && !current.hasPrefix("-") {
                return matching(
                    current,
                    group.map {
                        Candidate(value: String($0.spec.name.dropFirst(name.count + 1)), description: $0.spec.abstract)
                    })
            }
            if index < words.count, let sub = group.first(where: { $0.spec.name == "\(name) \(words[index])" }) {
                command = sub
                index += 1
            }
        }
        return completeArguments(Array(words[index...]), current: current, spec: command.spec, context: &context)
    }

    /// The candidates for `current` after `words`, the command's own arguments so far.
    static func completeArguments(_ words: [String], current: String, spec: CommandSpec, context: inout Context)
        -> Answer
    {
        var positionals = 0
        var awaiting: OptionSpec?
        var awaitingDeck = false
        var optionsEnded = false
        for word in words {
            if awaitingDeck {
                context.deckOption = Context.expandingHome(word)
                awaitingDeck = false
            } else if awaiting != nil {
                awaiting = nil
            } else if optionsEnded || !word.hasPrefix("-") || word == "-" {
                positionals += 1
            } else if word == "--" {
                optionsEnded = true
            } else if word == "--deck" {
                awaitingDeck = true
            } else if word.hasPrefix("--deck=") {
                context.deckOption = Context.expandingHome(String(word.dropFirst("--deck=".count)))
            } else if let option = spec.options.first(where: { $0.name == word || $0.short == word }),
                option.valueName != nil
            {
                awaiting = option
            }
        }
        if awaitingDeck { return .directories }
        if let awaiting, let valueName = awaiting.valueName {
            return value(named: valueName, current: current, context: context)
        }
        if current.hasPrefix("-") && !optionsEnded {
            let options =
                spec.options.map { Candidate(value: $0.name, description: $0.help) } + [
                    Candidate(value: "--deck", description: "The deck to use"),
                    Candidate(value: "--help", description: "Show help information"),
                ]
            return matching(current, options)
        }
        guard !spec.arguments.isEmpty, positionals < spec.positionals.upperBound else { return .candidates([]) }
        // Past the named arguments, a command that takes more (`delete <id>…`) takes more of the last kind.
        let argument = spec.arguments[min(positionals, spec.arguments.count - 1)].0
        switch (spec.name, argument) {
        case ("remote remove", _), (_, "remote"): return remotes(current, context: context)
        case (_, "subcommand"):
            return matching(current, Commands.all.map { Candidate(value: $0.spec.name, description: $0.spec.abstract) })
        default: return value(named: argument, current: current, context: context)
        }
    }

    /// The candidates for a value whose placeholder is `name` (`id`, `preset`, `dir`, `keep|delete`).
    static func value(named name: String, current: String, context: Context) -> Answer {
        if name.contains("|") {
            return matching(current, name.split(separator: "|").map { Candidate(value: String($0), description: "") })
        }
        switch name {
        case "id": return cards(current, context: context)
        case "preset":
            return matching(
                current,
                SwipeConfiguration.presets.map { Candidate(value: $0.name, description: "gesture preset") })
        case "dir": return .directories
        case "file", "path": return .files
        case "color": return matching(current, Card.colorNames.map { Candidate(value: $0, description: "") })
        default: return .candidates([])
        }
    }

    /// The deck's cards whose id starts with `prefix`, each with its title.
    static func cards(_ prefix: String, context: Context) -> Answer {
        // The deck is only read; its lock is never taken. A missing or broken deck offers nothing.
        Deck.deferNetworkSetUp()
        guard let deck = try? context.openDeck(), let cards = try? deck.snapshot().allCards().cards else {
            return .candidates([])
        }
        let typed = prefix.lowercased()
        return .candidates(
            cards.filter { $0.id.hasPrefix(typed) }.map { Candidate(value: $0.id, description: $0.title) })
    }

    /// The deck's remotes whose name starts with `prefix`. Their URLs are not shown: one may carry a
    /// password, and a completion menu is on screen for anyone to read.
    static func remotes(_ prefix: String, context: Context) -> Answer {
        Deck.deferNetworkSetUp()
        guard let deck = try? context.openDeck(), let remotes = try? deck.remotes() else { return .candidates([]) }
        return matching(prefix, remotes.map { Candidate(value: $0.name, description: "remote") })
    }

    static func matching(_ prefix: String, _ candidates: [Candidate]) -> Answer {
        .candidates(candidates.filter { $0.value.hasPrefix(prefix) })
    }
}
