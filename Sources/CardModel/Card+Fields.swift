extension Card {
    /// The card's id (`fields["id"]`), or `""` if it has none.
    public var id: String { text("id") }

    /// The card's title; `""` if missing.
    public var title: String {
        get { text("title") }
        set { fields["title"] = .string(newValue) }
    }

    /// The platform's display name; setting `""` removes the field.
    public var platformName: String {
        get { text("platformName") }
        set { setOptional("platformName", newValue) }
    }

    /// The platform's icon name; setting `""` removes the field.
    public var platformIcon: String {
        get { text("platformIcon") }
        set { setOptional("platformIcon", newValue) }
    }

    /// The URL the card opens; `""` if missing.
    public var indexURL: String {
        get { text("indexURL") }
        set { fields["indexURL"] = .string(newValue) }
    }

    /// A colour name or `#rrggbb`; `""` if missing.
    public var color: String {
        get { text("color") }
        set { fields["color"] = .string(newValue) }
    }

    /// The fractional-index position in the deck; `""` if missing.
    public var rank: String {
        get { text("rank") }
        set { fields["rank"] = .string(newValue) }
    }

    /// The merge's conflict records (`fields["conflicts"]`), or `[]`.
    public var conflicts: [JSONValue] {
        fields["conflicts"]?.arrayValue ?? []
    }

    /// The card's canonical file bytes (keys sorted, two-space indent, a final newline: the README's "The deck on disk").
    public func encoded() -> [UInt8] {
        JSONValue.object(fields).canonicalBytes()
    }

    private func text(_ name: String) -> String {
        fields[name]?.stringValue ?? ""
    }

    private mutating func setOptional(_ name: String, _ value: String) {
        fields[name] = value.isEmpty ? nil : .string(value)
    }
}
