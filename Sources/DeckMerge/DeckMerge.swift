// Placeholder: the DeckMerge module.
