import SwipeEngine
import Testing

@testable import DeckServer

/// The page's files as the server sends them, the presets it reads, and the swipe body's `dryRun` and `list`.
@Suite("The page's files and presets")
struct PageTests {
    @Test("every page file is served by its path with its type: the shell, the scripts, the style, the glyphs")
    func files() {
        let expected = [
            "/": "text/html", "/app.js": "text/javascript", "/engine.js": "text/javascript", "/app.css": "text/css",
            "/icons.svg": "image/svg+xml", "/icons-LICENSE.txt": "text/plain",
        ]
        for (path, type) in expected {
            let file = PageAssets.files[path]
            #expect(file?.type.hasPrefix(type) == true, "\(path)")
            #expect(file?.text.isEmpty == false, "\(path)")
        }
        #expect(PageAssets.html.contains("src=\"engine.js\""))
        #expect(PageAssets.icons.contains("id=\"i-github\"") && PageAssets.icons.contains("id=\"i-id-card\""))
        // The glyphs' licence travels with them (SIL OFL 1.1, condition 2).
        #expect(PageAssets.iconsLicense.contains("SIL OPEN FONT LICENSE Version 1.1"))
        #expect(PageAssets.iconsLicense.contains("Fork Awesome"))
    }

    @Test("the list's preset is the seed's 75 points with the row's axis lock and flings; the page reads every rule")
    func listPreset() throws {
        let list = try #require(PageGeometry.preset(named: "list"))
        #expect(list.commitDistance == .points(75))
        #expect(list.fling != nil && list.axisLock == .horizontal(k: 1))
        #expect(PageGeometry.preset(named: "row") != nil && PageGeometry.preset(named: "nope") == nil)
        let json = PageGeometry.presetsJSON
        #expect(json.contains("\"list\":{\"name\":\"list\""))
        #expect(json.contains("\"commitDistance\":{\"points\":75}"))
        #expect(json.contains("\"fling\":{\"minimumVelocity\":700,\"crossAxisMargin\":400,\"minimumTravel\":32"))
        #expect(json.contains("\"fling\":null"))
    }

    @Test("a swipe body may ask for the engine's decision only (dryRun), and name the list's preset")
    func dryRun() throws {
        let body = #"{"id": "a", "preset": "list", "samples": [[0, 0, 0], [0.1, -80, 0]], "dryRun": true}"#
        let request = try DeckService.parseSwipe(Array(body.utf8))
        #expect(request.dryRun && request.configuration.name == "list")
        let plain = try DeckService.parseSwipe(Array(#"{"id": "a", "direction": "left"}"#.utf8))
        #expect(!plain.dryRun)
        #expect(throws: ServeError.self) {
            try DeckService.parseSwipe(Array(#"{"id": "a", "direction": "left", "dryRun": "yes"}"#.utf8))
        }
    }
}
