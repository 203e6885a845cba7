import CardModel
import Dispatch
import GitCore
import Glibc

extension Deck {
    /// One card version to read: a blob, decoded as the card with this id.
    struct VersionKey: Hashable {
        var blob: ObjectID
        var id: String
    }

    /// Below this many versions one thread reads and decodes them all: waking a second costs more
    /// than it saves.
    static let parallelVersions = 64

    /// Reads and decodes the card versions a merge will ask `readVersion` for, ahead: out of the
    /// mapped packs (`PackReader`) on two threads, each reading and decoding its half (a 1000+1000
    /// merge at 100,000 cards reads ~4,000 blobs: ~10 ms of lookups, inflating and hashing on one
    /// thread), in the order of their ids, so that neighbouring lookups bisect the same pages of a
    /// pack's index. What the packs do not hand back (loose, a delta) is then read here through one
    /// odb handle (`BlobReader`); a blob that does not read at all (missing, too big, not a blob) is
    /// left out, for `readVersion` to read and explain as before. Also hands back each blob's bytes,
    /// for the merge to take a side's file as it is. A version wanted as a `listing` that reads as
    /// `CardListing` reads one (canonical and valid) is not decoded: its title is handed back instead.
    func readVersionsAhead(_ wanted: [(key: VersionKey, listing: Bool)], packs: PackReader)
        -> (versions: [VersionKey: Version], bytes: [ObjectID: [UInt8]], titles: [VersionKey: String])
    {
        guard !wanted.isEmpty else { return ([:], [:], [:]) }
        // Each key once, by blob id then card id (indices sorted: the keys' strings are not copied); a
        // listing only when every asker takes one.
        let order = wanted.indices.sorted { left, right in
            let (one, other) = (wanted[left].key, wanted[right].key)
            return one.blob != other.blob ? one.blob < other.blob : one.id < other.id
        }
        var unique: [VersionKey] = []
        var listing: [Bool] = []
        unique.reserveCapacity(wanted.count)
        listing.reserveCapacity(wanted.count)
        for index in order {
            if unique.last == wanted[index].key {
                listing[listing.count - 1] = listing[listing.count - 1] && wanted[index].listing
            } else {
                unique.append(wanted[index].key)
                listing.append(wanted[index].listing)
            }
        }
        let halves = unique.count >= Deck.parallelVersions && Repository.processors > 1 ? 2 : 1
        let readers = halves == 2 ? [packs, packs.sibling()] : [packs]
        var blobs = [[UInt8]?](repeating: nil, count: unique.count)
        var decoded = [Version?](repeating: nil, count: unique.count)
        var titles = [String?](repeating: nil, count: unique.count)
        blobs.withUnsafeMutableBufferPointer { blobSlots in
            decoded.withUnsafeMutableBufferPointer { versionSlots in
                titles.withUnsafeMutableBufferPointer { titleSlots in
                    // Each half writes only its own range of the buffers and uses only its own reader; the
                    // first reader counts its blobs in the deck's repository, which no other thread touches
                    // meanwhile (this one waits in `concurrentPerform` until both halves are done).
                    let shared = UncheckedSendable((blobSlots, versionSlots, titleSlots, readers, unique, listing))
                    DispatchQueue.concurrentPerform(iterations: halves) { half in
                        let (blobSlots, versionSlots, titleSlots, readers, keys, listing) = shared.value
                        let middle = keys.count / halves
                        let range = half == 0 ? 0..<middle : middle..<keys.count
                        let reader = readers[half]
                        for index in range {
                            guard let bytes = reader.readBlob(keys[index].blob, limit: Card.maximumFileSize) else {
                                continue
                            }
                            blobSlots[index] = bytes
                            if listing[index],
                                let title = CardListing.title(canonical: bytes, expectedID: keys[index].id)
                            {
                                titleSlots[index] = title
                            } else {
                                versionSlots[index] = Deck.version(bytes, id: keys[index].id)
                            }
                        }
                    }
                }
            }
        }
        if halves == 2 { packs.count(blobsReadBy: readers[1]) }
        var reader: BlobReader?
        for index in unique.indices where blobs[index] == nil {
            if reader == nil { reader = try? BlobReader(repository) }
            guard let bytes = reader?.read(unique[index].blob, limit: Card.maximumFileSize) else { continue }
            blobs[index] = bytes
            if listing[index], let title = CardListing.title(canonical: bytes, expectedID: unique[index].id) {
                titles[index] = title
            } else {
                decoded[index] = Deck.version(bytes, id: unique[index].id)
            }
        }
        var result: [VersionKey: Version] = [:]
        result.reserveCapacity(unique.count)
        var bytes: [ObjectID: [UInt8]] = [:]
        bytes.reserveCapacity(unique.count)
        var listedTitles: [VersionKey: String] = [:]
        listedTitles.reserveCapacity(unique.count)
        for (index, key) in unique.enumerated() {
            if let version = decoded[index] { result[key] = version }
            if let title = titles[index] { listedTitles[key] = title }
            if let blob = blobs[index] { bytes[key.blob] = blob }
        }
        return (result, bytes, listedTitles)
    }
}
