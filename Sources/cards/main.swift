import CardsCLI

CardsCLI.main()
