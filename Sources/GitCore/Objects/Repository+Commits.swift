import CGit2

extension Repository {
    /// Reads a commit.
    package func commit(_ id: ObjectID) throws(GitError) -> Commit {
        var commit: OpaquePointer?
        var oid = id.raw
        try check(git_commit_lookup(&commit, pointer, &oid), "git_commit_lookup")
        defer { git_commit_free(commit) }
        let tree = ObjectID(git_commit_tree_id(commit))
        var parents: [ObjectID] = []
        let count = git_commit_parentcount(commit)
        for index in 0..<count {
            if let parent = git_commit_parent_id(commit, index) { parents.append(ObjectID(parent)) }
        }
        let message = git_commit_message(commit).map { String(cString: $0) } ?? ""
        guard let author = git_commit_author(commit), let committer = git_commit_committer(commit) else {
            throw GitError(code: .damaged, message: "commit \(id.short) has no author", function: "git_commit_author")
        }
        return Commit(
            id: id, tree: tree, parents: parents, message: message, author: Signature(author),
            committer: Signature(committer))
    }

    /// Whether the commit carries a signature (a `gpgsig` header, as `commit.gpgsign` makes), whether
    /// or not it verifies (`git verify-commit` says that).
    package func commitIsSigned(_ id: ObjectID) -> Bool {
        var commit: OpaquePointer?
        var oid = id.raw
        guard git_commit_lookup(&commit, pointer, &oid) == 0 else {
            git_error_clear()
            return false
        }
        defer { git_commit_free(commit) }
        var buffer = git_buf()
        defer { git_buf_dispose(&buffer) }
        let found = git_commit_header_field(&buffer, commit, "gpgsig") == 0
        if !found { git_error_clear() }
        return found
    }

    /// Writes a commit object without moving any reference (publish it with `updateReference`). The
    /// tree and the parents must be stored already.
    package func createCommit(
        tree: ObjectID, parents: [ObjectID], message: String, author: Signature, committer: Signature
    ) throws(GitError) -> ObjectID {
        let bytes = try Repository.commitBytes(
            tree: tree, parents: parents, message: message, author: author, committer: committer)
        return try writeCommit(bytes, tree: tree, parents: parents)
    }

    /// Writes a commit object made of `bytes` (`commitBytes`, perhaps signed), which name `tree` and
    /// `parents`, as a loose object, after checking that they are stored.
    package func writeCommit(_ bytes: [UInt8], tree: ObjectID, parents: [ObjectID]) throws(GitError) -> ObjectID {
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, pointer), "git_repository_odb")
        defer { git_odb_free(odb) }
        // What `git_commit_create` checks: a commit names a stored tree and stored commits.
        for (id, type, what) in [(tree, GIT_OBJECT_TREE, "tree")] + parents.map({ ($0, GIT_OBJECT_COMMIT, "parent") }) {
            var oid = id.raw
            var length = 0
            var stored = GIT_OBJECT_INVALID
            guard git_odb_read_header(&length, &stored, odb, &oid) == 0, stored == type else {
                git_error_clear()
                throw GitError(
                    code: .notFound,
                    message: "the commit's \(what) \(id.short) is not a stored \(what == "tree" ? "tree" : "commit")",
                    function: "createCommit")
            }
        }
        var out = git_oid()
        try check(git_odb_write(&out, odb, bytes, bytes.count, GIT_OBJECT_COMMIT), "git_odb_write")
        return ObjectID(out)
    }

    /// The bytes of a commit object, as `git_commit_create_buffer` makes them with the "UTF-8"
    /// encoding every commit of a deck names (tree, parents, author, committer, encoding, a blank line,
    /// the message up to a NUL), made here without looking anything up: libgit2 looks the tree and
    /// each parent up, which in a `PackWriter`'s second handle on the repository opened every pack
    /// index again (`CommitBytesTests` checks the bytes against libgit2's on random signatures and
    /// messages). Throws for a signature libgit2 refuses (`Signature.commitText`).
    package static func commitBytes(
        tree: ObjectID, parents: [ObjectID], message: String, author: Signature, committer: Signature
    ) throws(GitError) -> [UInt8] {
        var bytes = Array("tree \(tree.hex)\n".utf8)
        for parent in parents { bytes += Array("parent \(parent.hex)\n".utf8) }
        bytes += Array("author ".utf8) + (try author.commitText()) + [UInt8(ascii: "\n")]
        bytes += Array("committer ".utf8) + (try committer.commitText()) + [UInt8(ascii: "\n")]
        bytes += Array("encoding UTF-8\n\n".utf8)
        let text = Array(message.utf8)
        bytes += text[..<(text.firstIndex(of: 0) ?? text.count)]
        return bytes
    }

    /// The best common ancestor of two commits, or nil when their histories are unrelated.
    package func mergeBase(_ one: ObjectID, _ two: ObjectID) throws(GitError) -> ObjectID? {
        var out = git_oid()
        var first = one.raw
        var second = two.raw
        let result = git_merge_base(&out, pointer, &first, &second)
        if result == GIT_ENOTFOUND.rawValue {
            git_error_clear()
            return nil
        }
        try check(result, "git_merge_base")
        return ObjectID(out)
    }

    /// Every best common ancestor of two commits (more than one after criss-cross merges), in no
    /// particular order; empty when their histories are unrelated.
    package func mergeBases(_ one: ObjectID, _ two: ObjectID) throws(GitError) -> [ObjectID] {
        var out = git_oidarray()
        var first = one.raw
        var second = two.raw
        let result = git_merge_bases(&out, pointer, &first, &second)
        if result == GIT_ENOTFOUND.rawValue {
            git_error_clear()
            return []
        }
        try check(result, "git_merge_bases")
        defer { git_oidarray_dispose(&out) }
        guard let ids = out.ids else { return [] }
        return (0..<out.count).map { ObjectID(ids[$0]) }
    }

    /// Whether `commit` has `ancestor` in its history (a commit is not its own descendant).
    package func isDescendant(_ commit: ObjectID, of ancestor: ObjectID) throws(GitError) -> Bool {
        var one = commit.raw
        var two = ancestor.raw
        let result = git_graph_descendant_of(pointer, &one, &two)
        try check(result, "git_graph_descendant_of")
        return result == 1
    }

    /// Visits commits reachable from `start`, newest first (topological, then by time), until
    /// `body` returns false. With `firstParentOnly` it follows only first parents (the local line);
    /// commits reachable from `hiding` are left out (`git log hidden..start`).
    package func walkHistory(
        from start: ObjectID, firstParentOnly: Bool = false, hiding: [ObjectID] = [], _ body: (Commit) throws -> Bool
    ) throws {
        // A shallow clone's history stops at the commits `shallow` lists, whose parents it lacks: libgit2
        // 1.5 knows no shallow history and fails on them, so such a history is walked by hand, as far as
        // git has it.
        if isShallow {
            return try walkShallowHistory(from: start, firstParentOnly: firstParentOnly, body)
        }
        var walker: OpaquePointer?
        try check(git_revwalk_new(&walker, pointer), "git_revwalk_new")
        defer { git_revwalk_free(walker) }
        try check(
            git_revwalk_sorting(walker, GIT_SORT_TOPOLOGICAL.rawValue | GIT_SORT_TIME.rawValue), "git_revwalk_sorting")
        if firstParentOnly { try check(git_revwalk_simplify_first_parent(walker), "git_revwalk_simplify_first_parent") }
        var startOID = start.raw
        try check(git_revwalk_push(walker, &startOID), "git_revwalk_push")
        for hidden in hiding {
            var hiddenOID = hidden.raw
            try check(git_revwalk_hide(walker, &hiddenOID), "git_revwalk_hide")
        }
        var oid = git_oid()
        while true {
            let result = git_revwalk_next(&oid, walker)
            if result == GIT_ITEROVER.rawValue {
                git_error_clear()
                return
            }
            try check(result, "git_revwalk_next")
            if try !body(commit(ObjectID(oid))) { return }
        }
    }
}

extension Repository {
    /// Whether this is a shallow clone (`git clone --depth`): git lists where its history stops in `shallow`.
    package var isShallow: Bool { access(commonDirectory + "shallow", F_OK) == 0 }

    /// `walkHistory` in a shallow clone: newest committer time first, parents this repository lacks
    /// left out (where git's history of it ends).
    private func walkShallowHistory(
        from start: ObjectID, firstParentOnly: Bool, _ body: (Commit) throws -> Bool
    ) throws {
        var pending = [try commit(start)]
        var seen: Set<ObjectID> = [start]
        while !pending.isEmpty {
            let newest = pending.indices.max { pending[$0].committer.time < pending[$1].committer.time } ?? 0
            let next = pending.remove(at: newest)
            if try !body(next) { return }
            for parent in firstParentOnly ? Array(next.parents.prefix(1)) : next.parents
            where hasObject(parent) && seen.insert(parent).inserted {
                pending.append(try commit(parent))
            }
        }
    }
}

extension Repository {
    /// The root tree of commit `id`, as `commit(id).tree` gives it, read from `cache`'s packs when the
    /// commit lies whole in one (hashed in hardware against `id`) and its header is plainly well formed
    /// (`Repository.treeLine`); else through libgit2, which reads or explains it. Opening a deck and
    /// taking a snapshot need no more of the commit, and libgit2's first read of an object maps every
    /// pack index again beside the ones the raw trees use and hashes the commit with its
    /// collision-detecting SHA-1: ~0.2 ms of a one-card command at 100,000 cards (2 ms after a merge of
    /// 2,000 cards).
    package func commitTree(_ id: ObjectID, cache: RawTreeCache) throws(GitError) -> ObjectID {
        if let known = cache.commitTrees[id] { return known }
        let tree: ObjectID
        if let bytes = cache.reader(for: self).read(id, type: GIT_OBJECT_COMMIT),
            let named = Repository.treeLine(of: bytes)
        {
            tree = named
        } else {
            tree = try commit(id).tree
        }
        cache.commitTrees[id] = tree
        return tree
    }

    /// The tree a commit's bytes name, when their header begins as libgit2 requires it and leaves no
    /// doubt: `tree <40 lowercase hex>`, any number of `parent <40 lowercase hex>`, then `author` and
    /// `committer` lines each `<name> <<email>> <seconds> <+|-><4 digits>`; nil for anything else
    /// (which libgit2 then reads, accepts or refuses).
    static func treeLine(of bytes: [UInt8]) -> ObjectID? {
        var position = 0
        func take(_ prefix: String) -> Bool {
            let text = Array(prefix.utf8)
            guard bytes.count - position >= text.count, bytes[position..<position + text.count].elementsEqual(text)
            else { return false }
            position += text.count
            return true
        }
        func hexLine() -> ObjectID? {
            guard bytes.count - position >= 41, bytes[position + 40] == 0x0A else { return nil }
            let hex = bytes[position..<position + 40]
            guard hex.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return nil }
            position += 41
            return ObjectID(hex: String(decoding: hex, as: UTF8.self))
        }
        func signatureLine() -> Bool {
            guard let end = bytes[position...].firstIndex(of: 0x0A) else { return false }
            let line = bytes[position..<end]
            position = end + 1
            // `… <email> 1700000000 +0100`: from the last '>' on, a space, digits, a space, a sign, 4 digits.
            guard let open = line.firstIndex(of: UInt8(ascii: "<")), let close = line.lastIndex(of: UInt8(ascii: ">")),
                open < close
            else { return false }
            let rest = Array(line[(close + 1)...])
            guard rest.count >= 8, rest[0] == 0x20, rest[rest.count - 6] == 0x20,
                rest[rest.count - 5] == UInt8(ascii: "+") || rest[rest.count - 5] == UInt8(ascii: "-")
            else { return false }
            let seconds = rest[1..<rest.count - 6]
            let zone = rest[(rest.count - 4)...]
            let digit: (UInt8) -> Bool = { (0x30...0x39).contains($0) }
            return !seconds.isEmpty && seconds.count <= 18 && seconds.allSatisfy(digit) && zone.allSatisfy(digit)
        }
        guard take("tree "), let tree = hexLine() else { return nil }
        while take("parent ") {
            guard hexLine() != nil else { return nil }
        }
        guard take("author "), signatureLine(), take("committer "), signatureLine() else { return nil }
        return tree
    }
}
