extension IndexPatch {
    /// Cached-tree nodes nested deeper than this decline the patch: no path that deep can be checked
    /// out (PATH_MAX), and the bound keeps a hostile extension from growing the walk's memory at will.
    static let cachedTreeDepthLimit = 4096

    /// The TREE extension's body `bytes[body..<limit]` rewritten: every node copied, the nodes whose
    /// paths are in `invalid` marked invalid (entry count -1, no id) so git and libgit2 recompute them.
    /// nil when the body does not parse.
    static func rewriteCachedTree(
        _ bytes: UnsafeRawBufferPointer, body: Int, limit: Int, invalid: Set<[UInt8]>
    ) -> [UInt8]? {
        // Nodes come depth first, each followed by its subtrees. A node's path matters only while it
        // can still be an invalid path: past the longest one it is nil, for its subtrees too.
        let longest = invalid.map(\.count).max() ?? 0
        var out: [UInt8] = []
        var cursor = body
        guard let root = rewriteTreeNode(bytes, &cursor, limit: limit, prefix: [], invalid: invalid, into: &out)
        else { return nil }
        var open: [(path: [UInt8]?, subtreesLeft: Int)] = [
            (root.path.count <= longest ? root.path : nil, root.subtrees)
        ]
        while let last = open.last {
            guard last.subtreesLeft > 0 else {
                open.removeLast()
                continue
            }
            open[open.count - 1].subtreesLeft -= 1
            guard open.count < cachedTreeDepthLimit,
                let node = rewriteTreeNode(
                    bytes, &cursor, limit: limit, prefix: last.path ?? [], invalid: last.path == nil ? [] : invalid,
                    into: &out)
            else { return nil }
            let path = last.path == nil || node.path.count > longest ? nil : node.path
            open.append((path, node.subtrees))
        }
        return cursor == limit ? out : nil
    }

    /// Copies one cached-tree node (not its subtrees) at `cursor` into `out`, invalidated when its
    /// path is in `invalid`; returns its path and subtree count, or nil when it does not parse.
    private static func rewriteTreeNode(
        _ bytes: UnsafeRawBufferPointer, _ cursor: inout Int, limit: Int, prefix: [UInt8], invalid: Set<[UInt8]>,
        into out: inout [UInt8]
    ) -> (path: [UInt8], subtrees: Int)? {
        let nameStart = cursor
        while cursor < limit && bytes[cursor] != 0 { cursor += 1 }
        guard cursor < limit else { return nil }
        let name = Array(bytes[nameStart..<cursor])
        cursor += 1
        guard let entries = number(bytes, &cursor, limit: limit, until: 0x20),
            let subtrees = number(bytes, &cursor, limit: limit, until: 0x0a), subtrees >= 0
        else { return nil }
        let path: [UInt8] = prefix.isEmpty ? name : prefix + [UInt8(ascii: "/")] + name
        out += name
        out.append(0)
        if entries >= 0 && !invalid.contains(path) {
            guard cursor + 20 <= limit else { return nil }
            out += Array("\(entries) \(subtrees)\n".utf8)
            out += bytes[cursor..<cursor + 20]
        } else {
            out += Array("-1 \(subtrees)\n".utf8)
        }
        if entries >= 0 { cursor += 20 }
        return (path, subtrees)
    }

    /// A decimal number (optional minus, at most 10 digits) ending with `terminator`, which is skipped.
    private static func number(
        _ bytes: UnsafeRawBufferPointer, _ cursor: inout Int, limit: Int, until terminator: UInt8
    )
        -> Int?
    {
        var negative = false
        var value = 0
        var digits = 0
        if cursor < limit && bytes[cursor] == UInt8(ascii: "-") {
            negative = true
            cursor += 1
        }
        while cursor < limit && bytes[cursor] != terminator {
            let digit = Int(bytes[cursor]) - 48
            guard digit >= 0 && digit <= 9, digits < 10 else { return nil }
            value = value * 10 + digit
            digits += 1
            cursor += 1
        }
        guard cursor < limit, digits > 0 else { return nil }
        cursor += 1
        return negative ? -value : value
    }
}
