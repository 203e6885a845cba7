import CLazySSH2
import Testing

/// libgit2's SSH transport reaches the system libssh2 through forwarders that load it on first use
/// (Sources/CLazySSH2): the library loads and has every function they forward to. (The SSH sync tests
/// against a real sshd use them end to end.)
@Suite("libssh2 loaded on first use")
struct LazySSH2Tests {
    @Test("libssh2.so.1 loads and exports all 37 functions libgit2 calls")
    func forwardersResolve() {
        // libgit2-dev depends on libssh2-1-dev, so the library is there wherever `cards` builds.
        #expect(cards_ssh2_available() == 1, "libssh2.so.1 did not load")
        #expect(cards_ssh2_missing_functions() == 0)
    }
}
