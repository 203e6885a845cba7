import Foundation
import Testing

/// git's own maintenance (`git repack -a -d`, `git gc`, `git maintenance run`, `git prune`) run in a
/// loop beside `cards` writes and syncs: nothing `cards` acknowledged is lost, and the repository stays
/// whole. A pack of ours holds a `.keep` from before it is named until the ref that reaches it is
/// written, as git's index-pack does for a fetch (issue 32).
@Suite("Maintenance races: git repack, gc and maintenance beside cards writes lose nothing")
struct MaintenanceRaceTests {
    /// A shell loop of git maintenance commands in `folders`, started in the background: it runs until
    /// stopped (SIGTERM, taken after the git command under way has finished) or for `limit` seconds.
    final class MaintenanceLoop {
        let process = Process()
        let rounds: String

        init(_ scratch: Scratch, commands: [String], in folders: [String], limit: Int = 60) throws {
            rounds = scratch.path("maintenance-rounds-\(Scratch.nextSerial())")
            let body = folders.map { folder in
                commands.map { "git -C '\(folder)' \($0) >/dev/null 2>&1" }.joined(separator: "; ")
            }.joined(separator: "; ")
            // The trap runs once the git command under way has finished: nothing is left half done.
            let script = """
                trap 'exit 0' TERM
                end=$(( $(date +%s) + \(limit) ))
                while [ "$(date +%s)" -lt "$end" ]; do \(body); echo >> '\(rounds)'; done
                """
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", script]
            process.environment = scratch.environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
        }

        /// Stops the loop by its pid and waits for it; returns how many rounds it ran.
        func stop() -> Int {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            let text = (try? String(contentsOfFile: rounds, encoding: .utf8)) ?? ""
            return text.filter { $0 == "\n" }.count
        }
    }

    /// What the writes acknowledged: each card added and not deleted since, with its last title.
    struct Acknowledged {
        var titles: [String: String] = [:]
        var failures: [String] = []
    }

    /// 100 writes (adds, edits, deletes; a sync through git and one through libgit2 every 25 when
    /// `remote` is given) with `loop` running beside them; returns what was acknowledged.
    func write(_ scratch: Scratch, _ deck: String, remote: String?) throws -> Acknowledged {
        var known = Acknowledged()
        var order: [String] = []
        for step in 0..<100 {
            if let remote, step % 25 == 24 {
                for transport in ["git", "libgit2"] {
                    let synced = try scratch.cards(["sync"], in: deck, extraEnvironment: ["CARDS_TRANSPORT": transport])
                    if synced.status != 0 {
                        known.failures.append("sync (\(transport)) to \(remote): \(synced.stderr)")
                    }
                }
                continue
            }
            switch step % 5 {
            case 3 where order.count > 2:
                let id = order[(step * 7) % order.count]
                let title = "Edited \(step)"
                let edited = try scratch.cards(["edit", id, "--title", title], in: deck)
                if edited.status == 0 {
                    known.titles[id] = title
                } else {
                    known.failures.append("edit: \(edited.stderr)")
                }
            case 4 where order.count > 4:
                let id = order.removeFirst()
                let deleted = try scratch.cards(["delete", id], in: deck)
                if deleted.status == 0 {
                    known.titles[id] = nil
                } else {
                    order.insert(id, at: 0)
                    known.failures.append("delete: \(deleted.stderr)")
                }
            default:
                let title = "Card \(step)"
                let added = try scratch.cards(
                    ["add", "--title", title, "--url", "https://race.example/\(step)"], in: deck)
                let id = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                if added.status == 0 && !id.isEmpty {
                    known.titles[id] = title
                    order.append(id)
                } else {
                    known.failures.append("add: \(added.stderr)")
                }
            }
        }
        return known
    }

    /// Every acknowledged card is there with its last acknowledged title, every write succeeded, and
    /// git finds the repository (and the remote, when given) whole.
    func expectNothingLost(
        _ scratch: Scratch, _ deck: String, remote: String?, _ known: Acknowledged, rounds: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(rounds > 0, "the maintenance loop never finished a round", sourceLocation: sourceLocation)
        // Counts, not the lists: a broken repository fails every write after, each with a long message.
        #expect(
            known.failures.count == 0, "writes failed, the first: \(known.failures.first ?? "")",
            sourceLocation: sourceLocation)
        for folder in [deck] + (remote.map { [$0] } ?? []) {
            let fsck = try scratch.git(["fsck", "--full", "--no-dangling"], in: folder)
            #expect(
                fsck.status == 0, "git fsck --full in \(folder): \(fsck.stdout)\(fsck.stderr)",
                sourceLocation: sourceLocation)
        }
        let exported = try scratch.cards(["export"], in: deck)
        #expect(exported.status == 0, "\(exported.stderr)", sourceLocation: sourceLocation)
        let cards = (try? JSONSerialization.jsonObject(with: Data(exported.stdout.utf8))) as? [[String: Any]] ?? []
        var titles: [String: String] = [:]
        for card in cards {
            if let id = card["id"] as? String { titles[id.lowercased()] = card["title"] as? String }
        }
        let lost = known.titles.filter { id, title in titles[id.lowercased()] != title }
        #expect(
            lost.count == 0,
            "of \(known.titles.count) acknowledged cards, lost or changed: \(lost.first.map { "\($0)" } ?? "")",
            sourceLocation: sourceLocation)
        #expect(known.titles.count > 30, sourceLocation: sourceLocation)
    }

    /// A deck and, beside it, a bare remote it syncs with (seeded by a first sync).
    func deckWithRemote(_ scratch: Scratch) throws -> (deck: String, remote: String) {
        let deck = scratch.path("deck")
        #expect(try scratch.cards(["init", deck]).status == 0)
        let remote = scratch.path("remote.git")
        #expect(try scratch.git(["init", "-q", "--bare", remote], in: scratch.root).status == 0)
        #expect(try scratch.cards(["remote", "add", "origin", remote], in: deck).status == 0)
        let seeded = try scratch.cards(["sync"], in: deck)
        #expect(seeded.status == 0, "\(seeded.stderr)")
        return (deck, remote)
    }

    @Test(
        "a .keep a killed write left on its pack: named by fsck and removed by --repair once the pack is old; the user's own .keep stays"
    )
    func abandonedKeep() throws {
        let scratch = try Scratch()
        let deck = scratch.path("deck")
        #expect(try scratch.cards(["init", deck]).status == 0)
        for index in 0..<2 {
            let added = try scratch.cards(
                ["add", "--title", "Card \(index)", "--url", "https://keep.example/"], in: deck)
            #expect(added.status == 0, "\(added.stderr)")
        }
        let folder = deck + "/.git/objects/pack"
        let packs = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".pack") }
            .sorted()
        try #require(packs.count >= 2)
        // What a write killed between naming its pack and moving main leaves: a link to the file ours
        // link to, on a pack written long ago; and the user's own .keep on another old pack.
        let ours = folder + "/" + packs[0].dropLast(5) + ".keep"
        let theirs = folder + "/" + packs[1].dropLast(5) + ".keep"
        #expect(link(deck + "/.git/cards-pack-keep", ours) == 0, "no cards-pack-keep to link to")
        writeFileCloseOnExec(theirs, "kept by hand\n")
        for pack in packs.prefix(2) {
            let index = folder + "/" + pack.dropLast(5) + ".idx"
            #expect(try scratch.run("/usr/bin/touch", ["-d", "20 minutes ago", index]).status == 0)
        }
        let fsck = try scratch.cards(["fsck"], in: deck)
        #expect(fsck.status != 0 && fsck.stderr.contains(ours) && !fsck.stderr.contains(theirs), "\(fsck.stderr)")
        let repair = try scratch.cards(["fsck", "--repair"], in: deck)
        #expect(repair.status == 0, "\(repair.stdout)\(repair.stderr)")
        #expect(!FileManager.default.fileExists(atPath: ours))
        #expect(FileManager.default.fileExists(atPath: theirs))
        #expect(try scratch.cards(["fsck"], in: deck).status == 0)
    }

    @Test("git repack -a -d in a loop beside 100 writes and 6 syncs: every acknowledged card is there, git fsck clean")
    func repackLoop() throws {
        let scratch = try Scratch()
        let (deck, remote) = try deckWithRemote(scratch)
        try writeBeside(["repack -a -d -q"], scratch, deck, remote: remote)
    }

    /// `git prune` with gc's expiry: a plain `git prune` (expiry now) also removes git's own pack being
    /// received (`objects/pack/tmp_pack_*`, a push's `objects/tmp_objdir-incoming-*`), failing git's
    /// fetch and push in flight; `cards`' own pack writes are named so that it passes them by.
    @Test(
        "git gc, git maintenance run (gc, incremental-repack), multi-pack-index and git prune in a loop beside 100 writes"
    )
    func gcAndMaintenanceLoop() throws {
        let scratch = try Scratch()
        let (deck, remote) = try deckWithRemote(scratch)
        for folder in [deck, remote] {
            // A multi-pack index from the start: incremental-repack's expire and repack work on it (over
            // a pack: the deck's first commit and a small push are loose objects).
            #expect(try scratch.git(["repack", "-q", "-d"], in: folder).status == 0)
            let written = try scratch.git(["multi-pack-index", "write"], in: folder)
            #expect(written.status == 0, "\(written.stderr)")
        }
        try writeBeside(
            [
                "gc -q", "multi-pack-index write", "maintenance run --task=gc --task=incremental-repack",
                "multi-pack-index write", "prune --expire=2.weeks.ago",
            ], scratch, deck, remote: remote)
    }

    /// A `pre-commit` hook reads the commit's tree before the commit exists: those objects, written
    /// loose, were packed by the loose-objects task into a pack that `git repack -a -d` then deleted
    /// before `main` moved (every run lost a commit's tree). They now go into a kept pack of their own.
    @Test(
        "a deck with a pre-commit hook: git maintenance's loose-objects task and git repack -a -d in a loop beside 100 writes"
    )
    func hookDeckLooseObjectsLoop() throws {
        let scratch = try Scratch()
        let (deck, remote) = try deckWithRemote(scratch)
        let hook = deck + "/.git/hooks/pre-commit"
        try FileManager.default.createDirectory(atPath: deck + "/.git/hooks", withIntermediateDirectories: true)
        // What a real hook does: read the index's tree (git write-tree), which needs its objects.
        try "#!/bin/sh\ngit write-tree >/dev/null\n".write(toFile: hook, atomically: true, encoding: .utf8)
        chmod(hook, 0o755)
        // The two at the same time, as `git maintenance` (scheduled) and a `git gc` by hand would be.
        try writeBeside(
            ["repack -a -d -q"], alongside: ["maintenance run --task=loose-objects"], scratch, deck, remote: remote)
    }

    /// The 100 writes and syncs beside git running `commands` in a loop in the deck and the remote (each
    /// of `alongside` in a loop of its own in the deck, at the same time), then nothing acknowledged
    /// lost; the loops stopped whatever happens.
    func writeBeside(
        _ commands: [String], alongside: [String] = [], _ scratch: Scratch, _ deck: String, remote: String
    ) throws {
        var loops = [try MaintenanceLoop(scratch, commands: commands, in: [deck, remote])]
        for command in alongside { loops.append(try MaintenanceLoop(scratch, commands: [command], in: [deck])) }
        let known: Acknowledged
        do {
            known = try write(scratch, deck, remote: remote)
        } catch {
            for loop in loops { _ = loop.stop() }
            throw error
        }
        let rounds = loops.map { $0.stop() }.min() ?? 0
        try expectNothingLost(scratch, deck, remote: remote, known, rounds: rounds)
    }
}
