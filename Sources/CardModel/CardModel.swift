// Placeholder: the CardModel module.
