import CardModel
import GitCore

/// The deck's own id, by which `undo` knows the commits made here.
extension Deck {
    /// The trailer naming the deck a commit was made in (`deviceID`).
    static let deviceTrailer = "Device"
    /// Where a deck keeps its own id, in its git config.
    static let deviceSetting = "cards.device"

    /// This deck's own id (`cards.device` in its git config), made on its first commit: the `Device`
    /// trailer of every commit made here, by which `undo` tells them from commits pushed, fetched or
    /// cloned into it where there is no reflog (a bare repository keeps none). Nil when the config
    /// cannot be written.
    func deviceID() -> String? {
        if let knownDeviceID { return knownDeviceID }
        if let known = Deck.configuredDeviceID(of: repository) {
            knownDeviceID = known
        } else {
            let made = CardID.random()
            if (try? repository.setConfig(Deck.deviceSetting, made)) != nil { knownDeviceID = made }
        }
        return knownDeviceID
    }

    /// The id in the repository's own config (a user's or system-wide one would be every deck's), when
    /// it is one.
    static func configuredDeviceID(of repository: Repository) -> String? {
        guard let value = (try? repository.localConfigString(Deck.deviceSetting)) ?? nil, CardID.isValid(value)
        else { return nil }
        return value
    }
}
