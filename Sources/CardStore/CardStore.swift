// Placeholder: the CardStore module.
