// Placeholder: the TerminalUI module.
