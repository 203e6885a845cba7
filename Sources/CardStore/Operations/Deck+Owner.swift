import CardModel
import GitCore

extension DeckSnapshot {
    /// `deck.json` at this commit, parsed; nil when there is none or it is not JSON (or larger than a
    /// card may be). Throws only when it cannot be read.
    func deckDescription() throws(StoreError) -> JSONValue? {
        guard let blob = try blobID(at: Deck.metadataPath) else { return nil }
        let bytes: [UInt8]
        do {
            bytes = try repository.readBlob(blob, limit: Card.maximumFileSize, cache: trees)
        } catch  where error.code == .tooLarge {
            return nil
        } catch {
            throw StoreError.git(error, while: "reading \(Deck.metadataPath)")
        }
        return try? JSONValue.parse(bytes)
    }

    /// The deck's owner as `deck.json` gives it at this commit, or nil when it names none (an older
    /// deck). Throws when the owner is there but breaks a rule, naming the file and the rule.
    package func owner() throws(StoreError) -> DeckOwner? {
        try owner(in: try deckDescription())
    }

    /// Whom the deck's vCard and page name, from one read of `deck.json`: the deck's name ("Cards" when it
    /// names none) and its owner (nil when it has none). Throws as `owner()` does.
    package func nameAndOwner() throws(StoreError) -> (deckName: String, owner: DeckOwner?) {
        let value = try deckDescription()
        return (value?["name"]?.stringValue ?? "Cards", try owner(in: value))
    }

    private func owner(in value: JSONValue?) throws(StoreError) -> DeckOwner? {
        guard let value else { return nil }
        do {
            return try DeckOwner.from(deckDescription: value)
        } catch {
            throw StoreError(
                .invalidInput,
                "\(Deck.metadataPath): the deck's owner is not valid (\(error)); \(Deck.ownerRemedy(error))")
        }
    }
}

extension Deck {
    /// What mends an owner on `main` that breaks `error`'s rule, in the command line's words: the flag
    /// that replaces or removes the member at fault (`cards owner` keeps the members it is not given, so
    /// naming the owner again would meet the same fault), else the file to fix and commit.
    static func ownerRemedy(_ error: CardValidationError) -> String {
        switch error.field {
        case "owner.name": "`cards owner --name NAME` gives another name"
        case "owner.note": "`cards owner --note \"\"` removes the note, or --note gives another"
        case "owner.pronouns": "`cards owner --pronouns \"\"` removes them, or --pronouns gives others"
        default:
            "fix it in \(Deck.metadataPath) (owner.uid is a lowercase UUID; owner an object with a name) and "
                + "`cards commit`"
        }
    }
}

extension Deck {
    /// Sets the deck's owner in `deck.json` in one commit (op `owner`): `name` when given, `note` and
    /// `pronouns` when given (`""` removes one), the owner's other members and the rest of `deck.json`
    /// kept. Nil when nothing changes. Refuses, naming the rule, an owner that breaks one, and a deck
    /// with no owner yet when no `name` is given.
    @discardableResult
    package func setOwner(name: String?, note: String?, pronouns: String?) throws(StoreError) -> CommitOutcome? {
        try commitChange { (snapshot) throws(StoreError) -> DeckChange? in
            guard case .object(var description)? = try snapshot.deckDescription() else {
                throw StoreError(
                    .invalidInput,
                    "\(Deck.metadataPath) on main is not a deck description this version reads; fix it by hand "
                        + "and `cards commit`, then set the owner")
            }
            var owner: DeckOwner
            if case .object(let fields)? = description["owner"] {
                owner = DeckOwner(fields: fields)
            } else {
                guard let name else {
                    throw StoreError(
                        .invalidInput, "the deck has no owner yet: give the owner's name with --name NAME")
                }
                owner = DeckOwner(name: name)
                owner.uid = CardID.random()
            }
            if let name { owner.name = name }
            if let note { owner.note = note.replacingCRLF() }
            if let pronouns { owner.pronouns = pronouns }
            do {
                try owner.validate()
            } catch {
                throw StoreError(.invalidCard, "the owner is not valid: \(error); nothing was changed")
            }
            if description["owner"] == owner.jsonValue { return nil }
            description["owner"] = owner.jsonValue
            return DeckChange(
                files: [(Deck.metadataPath, JSONValue.object(description).canonicalBytes())],
                message: CommitMessage(subject: "Set the deck's owner: \(owner.name)", trailers: [("Op", "owner")]))
        }
    }
}

extension String {
    /// CR LF and lone CR as LF: a note pasted from another system keeps its lines, not a control character.
    fileprivate func replacingCRLF() -> String {
        var text = ""
        var lastWasCR = false
        for scalar in unicodeScalars {
            if scalar == "\r" {
                text.unicodeScalars.append("\n")
                lastWasCR = true
                continue
            }
            if !(scalar == "\n" && lastWasCR) { text.unicodeScalars.append(scalar) }
            lastWasCR = false
        }
        return text
    }
}
