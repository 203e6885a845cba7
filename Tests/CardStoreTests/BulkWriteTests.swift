import Foundation
import Testing

@testable import CardStore
import TestSupport

@Suite("Many working-tree files written in two halves", .scratchFolder)
struct BulkWriteTests {
    /// `count` files spread over card-like folders under `root`, each holding its own name.
    static func files(_ count: Int, under root: String) -> [(full: String, bytes: [UInt8])] {
        (0..<count).map { index in
            let name = String(format: "cards/%02x/card-%05d.json", index % 256, index)
            return (root + "/" + name, Array("{\"n\": \(index)}\n".utf8))
        }
    }

    /// Every file under `root`, by path relative to it.
    static func listing(_ root: String) -> Set<String> {
        Set(FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? [])
    }

    @Test("3,000 files: each written with its own bytes, no temporary file left")
    func written() throws {
        let scratch = try ScratchFolder.current
        let files = Self.files(3_000, under: scratch.root)
        try Deck.writeFilesInBulk(files, durable: false)
        for file in files {
            #expect(FileManager.default.contents(atPath: file.full) == Data(file.bytes), "\(file.full)")
        }
        #expect(Self.listing(scratch.root).filter { $0.hasSuffix(".tmp") }.isEmpty)
    }

    @Test("a file that cannot be written, in either half: an error naming it, nothing renamed, no temporary file left")
    func failing() throws {
        for blocked in [10, 2_990] {
            let scratch = try ScratchFolder()
            let files = Self.files(3_000, under: scratch.root)
            // A folder where the blocked file's temporary file would go.
            let full = files[blocked].full
            let temp = FileSystem.temporaryPath(for: full, in: FileSystem.parent(of: full))
            try FileManager.default.createDirectory(atPath: temp, withIntermediateDirectories: true)
            let error = #expect(throws: StoreError.self) { try Deck.writeFilesInBulk(files, durable: false) }
            #expect(error?.message.contains(temp) == true, "\(error?.message ?? "")")
            let left = Self.listing(scratch.root)
            #expect(left.filter { $0.hasSuffix(".json") }.isEmpty, "blocked \(blocked): files renamed into place")
            #expect(left.filter { $0.hasSuffix(".tmp") } == [String(temp.dropFirst(scratch.root.count + 1))])
            // The folders the write made are gone again; those that were there (made above) stay.
            let folder = String(FileSystem.parent(of: full).dropFirst(scratch.root.count + 1))
            #expect(
                Set(left.filter { !$0.hasSuffix(".tmp") }) == Set(["cards", folder]),
                "blocked \(blocked): \(left.count) left")
        }
    }
}
