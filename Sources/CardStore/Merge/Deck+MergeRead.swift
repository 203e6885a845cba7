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
    /// for the merge to take a side's file as it is.
    func readVersionsAhead(_ keys: [VersionKey], packs: PackReader)
        -> (versions: [VersionKey: Version], bytes: [ObjectID: [UInt8]])
    {
        guard !keys.isEmpty else { return ([:], [:]) }
        // Each key once, by blob id then card id (indices sorted: the keys' strings are not copied).
        let order = keys.indices.sorted { left, right in
            keys[left].blob != keys[right].blob ? keys[left].blob < keys[right].blob : keys[left].id < keys[right].id
        }
        var unique: [VersionKey] = []
        unique.reserveCapacity(keys.count)
        for index in order where unique.last.map({ $0 != keys[index] }) ?? true { unique.append(keys[index]) }
        let halves = unique.count >= Deck.parallelVersions && Repository.processors > 1 ? 2 : 1
        let readers = halves == 2 ? [packs, packs.sibling()] : [packs]
        var blobs = [[UInt8]?](repeating: nil, count: unique.count)
        var decoded = [Version?](repeating: nil, count: unique.count)
        blobs.withUnsafeMutableBufferPointer { blobSlots in
            decoded.withUnsafeMutableBufferPointer { versionSlots in
                // Each half writes only its own range of the buffers and uses only its own reader; the
                // first reader counts its blobs in the deck's repository, which no other thread touches
                // meanwhile (this one waits in `concurrentPerform` until both halves are done).
                let shared = UncheckedSendable((blobSlots, versionSlots, readers, unique))
                DispatchQueue.concurrentPerform(iterations: halves) { half in
                    let (blobSlots, versionSlots, readers, keys) = shared.value
                    let middle = keys.count / halves
                    let range = half == 0 ? 0..<middle : middle..<keys.count
                    let reader = readers[half]
                    for index in range {
                        guard let bytes = reader.readBlob(keys[index].blob, limit: Card.maximumFileSize) else {
                            continue
                        }
                        blobSlots[index] = bytes
                        versionSlots[index] = Deck.version(bytes, id: keys[index].id)
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
            decoded[index] = Deck.version(bytes, id: unique[index].id)
        }
        var result: [VersionKey: Version] = [:]
        result.reserveCapacity(unique.count)
        var bytes: [ObjectID: [UInt8]] = [:]
        bytes.reserveCapacity(unique.count)
        for (index, key) in unique.enumerated() {
            if let version = decoded[index] { result[key] = version }
            if let blob = blobs[index] { bytes[key.blob] = blob }
        }
        return (result, bytes)
    }
}
