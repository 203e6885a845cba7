/// What a ref update checks of its new target just before the compare-and-swap: that the commit can
/// still be read back. git's maintenance (`git repack -a -d`, `git gc`) deletes what no ref reaches;
/// a ref moved to a commit it deleted would leave every later command failing until the ref is reset
/// by hand, so the update is refused instead, and nothing changes.
package enum TargetCheck {
    /// Nothing to check: the target is reached by another ref already (a remote-tracking ref), or the
    /// caller checked it.
    case none
    /// The target's objects are in this pack, kept (`PackKeep`) until the ref is written: its files are
    /// looked for (two `access` calls, no read of the object database).
    case pack(PackKeep)
    /// The target's objects are in these packs, each kept until the ref is written (a commit whose hooks
    /// read its tree first: the tree's pack, then the commit's).
    case packs([PackKeep])
    /// The target is looked up in the object database (libgit2 rescans the packs on a miss).
    case lookUp
}

extension Repository {
    /// Throws `.targetRemoved`, naming `name` and the target, when `check` finds the target gone.
    package func checkReadable(_ target: ObjectID, _ check: TargetCheck, for name: String) throws(GitError) {
        let present: Bool
        switch check {
        case .none: return
        case .pack(let keep): present = keep.isPresent || hasObject(target)
        case .packs(let keeps): present = keeps.allSatisfy(\.isPresent) || hasObject(target)
        case .lookUp: present = hasObject(target)
        }
        guard !present else { return }
        throw GitError(
            code: .targetRemoved,
            message: "the new commit \(target.short) is no longer in the repository (another program, such as "
                + "`git gc` or `git repack`, removed it before \(name) could point at it); \(name) was not moved",
            function: "checkReadable")
    }
}

extension GitError {
    /// Whether this is `checkReadable`'s refusal: the new target was removed (by git's maintenance)
    /// before the ref could name it. Writing it again and retrying is the remedy.
    package var isTargetRemoved: Bool { code == .targetRemoved }
}
