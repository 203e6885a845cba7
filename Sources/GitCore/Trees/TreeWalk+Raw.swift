extension Repository {
    /// `changedLeaves` over raw tree bytes: each tree read once (kept in `cache`), entries compared
    /// in place, only the differing ones turned into values. Throws `RawTreeFallback` when a tree
    /// is not canonical or cannot be read this way; the caller then walks with libgit2.
    func rawChangedLeaves(_ trees: [ObjectID?], comparing pair: (Int, Int), cache: RawTreeCache)
        throws(RawTreeFallback) -> [TreeWalkChange]
    {
        var result: [TreeWalkChange] = []
        try rawWalk(trees, comparing: pair, prefix: "", cache: cache, into: &result)
        return result
    }

    /// One key where the two compared trees differ: a leaf to report, or a folder to walk.
    private enum WalkItem {
        case leaf(TreeWalkChange)
        case folder([ObjectID?], path: String)
    }

    private func rawWalk(
        _ ids: [ObjectID?], comparing pair: (Int, Int), prefix: String, cache: RawTreeCache,
        into result: inout [TreeWalkChange]
    ) throws(RawTreeFallback) {
        if ids[pair.0] == ids[pair.1] { return }
        var trees: [RawTree] = []
        for id in ids {
            guard let id else {
                trees.append(RawTree.empty)
                continue
            }
            trees.append(try rawTree(id, cache: cache, like: trees.last))
            cache.remember(id, at: prefix)
        }
        let items = differingKeys(trees, comparing: pair, prefix: prefix)
        // The folders to walk next, read ahead together: at 100,000 cards they are ~100–700 card
        // folders of ~27 KB each, and inflating them is most of a merge's time.
        var next: [ObjectID] = []
        for case .folder(let children, _) in items { next += children.compactMap { $0 } }
        readAhead(next, cache: cache)
        for item in items {
            switch item {
            case .leaf(let change): result.append(change)
            case .folder(let children, let path):
                try rawWalk(children, comparing: pair, prefix: path, cache: cache, into: &result)
            }
        }
    }

    /// The keys of one folder where the trees at `pair` differ, in git's order.
    private func differingKeys(_ trees: [RawTree], comparing pair: (Int, Int), prefix: String) -> [WalkItem] {
        var items: [WalkItem] = []
        // The runs of entries every tree has alike (at its end here, anywhere else below) are not
        // compared one by one: in a card folder of ~400 entries a merge changed one or two.
        let tail = RawTree.commonTail(trees)
        var positions = [Int](repeating: 0, count: trees.count)
        let ends = trees.map { $0.entries.count - tail }
        // Reused for every key: no allocation per equal entry.
        var present = [Bool](repeating: false, count: trees.count)
        while true {
            // A run of keys unchanged everywhere (most of a changed folder) is stepped over whole.
            let alike = RawTree.alikeEntries(trees, from: positions, before: ends)
            if alike > 0 {
                for index in positions.indices { positions[index] += alike }
                continue
            }
            // The smallest key under any cursor, in git's order.
            var smallest: (tree: Int, entry: RawTree.Entry)?
            for index in trees.indices where positions[index] < ends[index] {
                let entry = trees[index].entries[positions[index]]
                if let best = smallest,
                    RawTree.order(trees[index].bytes, entry, trees[best.tree].bytes, best.entry) >= 0
                {
                    continue
                }
                smallest = (index, entry)
            }
            guard let smallest else { return items }
            for index in trees.indices {
                present[index] = false
                guard positions[index] < ends[index] else { continue }
                let entry = trees[index].entries[positions[index]]
                if RawTree.order(trees[index].bytes, entry, trees[smallest.tree].bytes, smallest.entry) == 0 {
                    present[index] = true
                }
            }
            defer { for index in trees.indices where present[index] { positions[index] += 1 } }
            if present[pair.0] && present[pair.1]
                && RawTree.sameTarget(
                    trees[pair.0], trees[pair.0].entries[positions[pair.0]], trees[pair.1],
                    trees[pair.1].entries[positions[pair.1]])
            {
                continue
            }
            // The path laid out once from the prefix's and the name's bytes, and the name made once for
            // every tree that has the key (a merge lists a few hundred changed cards).
            let named = trees[smallest.tree]
            if smallest.entry.isTree {
                let children = trees.indices.map { index in
                    present[index] ? trees[index].id(trees[index].entries[positions[index]]) : nil
                }
                items.append(.folder(children, path: named.path(prefix, smallest.entry, folder: true)))
            } else {
                let name = named.name(smallest.entry)
                let entries = trees.indices.map { index in
                    present[index] ? trees[index].treeEntry(trees[index].entries[positions[index]], named: name) : nil
                }
                items.append(.leaf(TreeWalkChange(path: named.path(prefix, smallest.entry), entries: entries)))
            }
        }
    }
}
