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

    /// Below this many versions one thread decodes them all: waking a second costs more than it saves.
    static let parallelVersions = 64

    /// Reads and decodes the card versions a merge will ask `readVersion` for, ahead: the blobs out of
    /// the mapped packs (`PackReader`), else through one odb handle (`BlobReader`), the decoding on
    /// two threads. A blob `BlobReader` does not hand back
    /// (missing, too big, not a blob) is left out, for `readVersion` to read and explain as before.
    /// Also hands back each blob's bytes, for the merge to take a side's file as it is.
    func readVersionsAhead(_ keys: [VersionKey], packs: PackReader)
        -> (versions: [VersionKey: Version], bytes: [ObjectID: [UInt8]])
    {
        var seen = Set<VersionKey>()
        let unique = keys.filter { seen.insert($0).inserted }
        guard !unique.isEmpty else { return ([:], [:]) }
        var reader: BlobReader?
        var wanted: [VersionKey] = []
        var blobs: [[UInt8]] = []
        for key in unique {
            if let bytes = packs.readBlob(key.blob, limit: Card.maximumFileSize) {
                wanted.append(key)
                blobs.append(bytes)
                continue
            }
            if reader == nil { reader = try? BlobReader(repository) }
            guard let bytes = reader?.read(key.blob, limit: Card.maximumFileSize) else { continue }
            wanted.append(key)
            blobs.append(bytes)
        }
        var decoded = [Version?](repeating: nil, count: wanted.count)
        let processors = Repository.processors
        let halves = wanted.count >= Deck.parallelVersions && processors > 1 ? 2 : 1
        decoded.withUnsafeMutableBufferPointer { buffer in
            // Each half writes only its own range of the buffer; `concurrentPerform` returns after both.
            let slots = UncheckedSendable(buffer)
            let input = (keys: wanted, blobs: blobs)
            DispatchQueue.concurrentPerform(iterations: halves) { half in
                let range = half == 0 ? 0..<(input.keys.count / halves) : (input.keys.count / halves)..<input.keys.count
                for index in range {
                    slots.value[index] = Deck.version(input.blobs[index], id: input.keys[index].id)
                }
            }
        }
        var result: [VersionKey: Version] = [:]
        result.reserveCapacity(wanted.count)
        var bytes: [ObjectID: [UInt8]] = [:]
        bytes.reserveCapacity(wanted.count)
        for (index, key) in wanted.enumerated() {
            if let version = decoded[index] { result[key] = version }
            bytes[key.blob] = blobs[index]
        }
        return (result, bytes)
    }
}
