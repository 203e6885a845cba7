import CardsCLI
