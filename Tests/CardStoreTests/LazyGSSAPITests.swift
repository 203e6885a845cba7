import CLazyGSSAPI
import Testing

/// libgit2's Kerberos authentication reaches the system GSSAPI library through forwarders that load
/// it on first use (Sources/CLazyGSSAPI): the library loads and has every function they forward to.
@Suite("GSSAPI loaded on first use")
struct LazyGSSAPITests {
    @Test("libgssapi_krb5.so.2 loads and exports all nine functions libgit2 calls")
    func forwardersResolve() {
        #expect(cards_gssapi_available() == 1)
        #expect(cards_gssapi_missing_functions() == 0)
    }
}
