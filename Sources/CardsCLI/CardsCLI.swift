// Placeholder: the CardsCLI module.
