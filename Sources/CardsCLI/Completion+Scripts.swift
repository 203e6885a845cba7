/// The shells' completion scripts (`cards completions bash|zsh|fish`; `./dev install` installs them
/// where each shell looks). Each hands the words typed so far to `cards __complete` and offers what it
/// prints (see `Completion`): commands, options and their values, card ids (zsh and fish show each
/// card's title beside its id; bash can show only the ids), remote names, presets, files.
extension Completion {
    /// The shells there is a script for, by name.
    static let scripts: [String: String] = ["bash": bash, "zsh": zsh, "fish": fish]

    static let bash = #"""
        # bash completion for cards (from `cards completions bash`)
        _cards() {
            local cur=${COMP_WORDS[COMP_CWORD]} IFS=$'\n' lines line
            lines=$("${COMP_WORDS[0]}" __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) || return 0
            COMPREPLY=()
            case $lines in
                :files) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")); return 0 ;;
                :dirs) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur")); return 0 ;;
            esac
            for line in $lines; do COMPREPLY+=("${line%%$'\t'*}"); done
        }
        complete -F _cards cards

        """#

    static let zsh = #"""
        #compdef cards
        # zsh completion for cards (from `cards completions zsh`)
        _cards() {
            local -a lines described
            local line
            lines=("${(@f)$(${words[1]} __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")
            case ${lines[1]} in
                :files) _files; return ;;
                :dirs) _files -/; return ;;
            esac
            for line in $lines; do
                [[ -n $line ]] && described+=("${${line%%$'\t'*}//:/\\:}:${line#*$'\t'}")
            done
            _describe -t values cards described
        }
        if [[ $funcstack[1] == _cards ]]; then _cards "$@"; else compdef _cards cards; fi

        """#

    static let fish = #"""
        # fish completion for cards (from `cards completions fish`)
        function __cards_complete
            set -l words (commandline -opc)
            set -l lines ($words[1] __complete $words[2..-1] (commandline -ct) 2>/dev/null)
            switch "$lines[1]"
                case :files
                    __fish_complete_path (commandline -ct)
                case :dirs
                    __fish_complete_directories (commandline -ct)
                case '*'
                    printf '%s\n' $lines
            end
        end
        complete -c cards -f -a '(__cards_complete)'

        """#
}

extension Commands {
    static let completionsCommand = Command(
        spec: CommandSpec(
            name: "completions", abstract: "Print the shell completion script for bash, zsh or fish.",
            usage: "completions <shell>",
            arguments: [("shell", "bash, zsh or fish.")], positionals: 1...1,
            discussion: """
                The script completes commands, options, card ids by prefix (with their titles in zsh and fish),
                remote names and presets. `./dev install` installs all three; by hand, for bash:
                `cards completions bash > ~/.local/share/bash-completion/completions/cards`; zsh: write it as
                `_cards` in a folder of your $fpath; fish: `cards completions fish > ~/.config/fish/completions/cards.fish`.
                """)
    ) { context, arguments in
        let shell = arguments.positionals[0]
        guard let script = Completion.scripts[shell] else {
            let hint = Suggestion.hint(for: shell, among: Completion.scripts.keys.sorted())
            throw UsageError(message: "no completion script for '\(shell)'\(hint): give bash, zsh or fish")
        }
        context.output.print(script, terminator: "")
        return 0
    }
}
