import Testing

@testable import VCard

/// A link's host, as a card's link is checked (`Card.webHost`), and the platform it names.
@Suite struct PlatformTests {
    @Test(
        arguments: [
            ("https://GitHub.com/ada", "github.com"), ("http://user:pw@example.org:8080/x", "example.org"),
            ("https://[2001:db8::1]:443/ada", "2001:db8::1"), ("https://[2001:db8::1]/", "2001:db8::1"),
        ])
    func host(url: String, host: String) {
        #expect(Platform.host(of: url) == host)
    }

    @Test(arguments: ["mailto:ada@example.org", "ftp://example.org/", "https:/example.org", "https:///x", "ada"])
    func noHost(url: String) {
        #expect(Platform.host(of: url) == nil)
    }

    @Test func platformFromHost() {
        #expect(Platform.of(url: "https://www.linkedin.com/in/ada")?.name == "LinkedIn")
        #expect(Platform.of(url: "https://mastodon.example/@ada")?.name == "Mastodon")
        #expect(Platform.of(url: "https://[2001:db8::1]/") == nil)
    }
}
