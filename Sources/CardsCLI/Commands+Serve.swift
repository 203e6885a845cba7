import CardStore
import DeckServer
import Glibc
import SystemCalls
import Synchronization

extension Commands {
    static let serveCommand = Command(
        spec: CommandSpec(
            name: "serve", abstract: "Serve the deck as a web page: swipe cards in a browser, on a phone or a laptop.",
            usage: "serve [--port <n>] [--listen <address>] [--open] [--qr | --no-qr] [--new-token]",
            options: [
                .value("--port", "n", "The port to listen on (default: 8025; 0 for any free one)."),
                .value(
                    "--listen", "address",
                    "The address to listen on (default: 127.0.0.1, this machine only; 0.0.0.0 for a phone on your network)."
                ),
                .flag(
                    "--open",
                    "Open the page in the default browser (xdg-open); listening for a phone, the page of its QR code."
                ),
                .flag(
                    "--qr",
                    "Print the QR code of the phone's address even when standard output is not a terminal."),
                .flag("--no-qr", "Print no QR code."),
                .flag(
                    "--new-token",
                    "Make a new token (the old address and every browser's cookie stop working)."),
            ],
            discussion: """
                The page shows the deck as a stack (drag the top card: left deletes, right keeps) and as a list \
                (slide a row left over the red area to delete it), with undo (u), and follows changes made \
                elsewhere (another command, a sync) as they happen. The gesture engine decides every release, \
                with the presets of `cards swipe` (stack and row); each delete is one commit with a Gesture trailer.
                The address printed holds the deck's secret token (kept in its git folder, readable by you only); \
                the page's first load trades it for a cookie, and requests without either are refused. With \
                --listen 0.0.0.0 (a phone on the same network) it prints this machine's addresses and, on a \
                terminal, a QR code for the phone's camera; the page's "Phone" link shows it too. Scripts send the \
                token as the X-Cards-Token header. Ctrl-C stops.
                """)
    ) { context, arguments in
        try runServe(context, arguments)
    }

    /// The default port: unassigned by IANA, easy to type, away from the usual development servers.
    static let defaultServePort: UInt16 = 8025

    static func runServe(_ context: Context, _ arguments: ParsedArguments) throws -> Int32 {
        var port = defaultServePort
        if let text = arguments.value("--port") {
            guard let value = UInt16(text) else {
                throw UsageError(message: "--port '\(text)': expected a port number, 0 to 65535")
            }
            port = value
        }
        let address = arguments.value("--listen") ?? "127.0.0.1"
        if arguments.has("--qr") && arguments.has("--no-qr") {
            throw UsageError(message: "--qr and --no-qr: give one")
        }
        let loopback = RequestGuard.isLoopback(address)
        let deck = try context.openDeck()
        // Held back on every thread but the one that waits for them: started now, libmicrohttpd's threads
        // inherit the mask, so Ctrl-C comes to `sigwait` and the server stops in order.
        var signals = sigset_t()
        sigemptyset(&signals)
        for number in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&signals, number) }
        var previousMask = sigset_t()
        pthread_sigmask(SIG_BLOCK, &signals, &previousMask)
        defer { pthread_sigmask(SIG_SETMASK, &previousMask, nil) }
        let token = ServeAccess.token(
            gitDirectory: deck.gitDirectory, renew: arguments.has("--new-token"), context: context)
        let machine = MachineAddresses.current()
        let server: HTTPServer
        let service: DeckService
        do {
            // The service needs the port the server got (port 0), and the server the service's handler:
            // the handler reads the service through a box filled once both exist.
            let box = ServiceBox()
            server = try HTTPServer(address: address == "localhost" ? "127.0.0.1" : address, port: port) {
                request in
                box.service?.handle(request) ?? .text(503, "Error: starting; try again in a moment\n")
            }
            service = DeckService(
                deck: deck,
                checks: RequestGuard(address: address, port: server.port, token: token, names: machine.hostNames))
            service.shareURLs = machine.reachable(listening: address).map {
                MachineAddresses.url(host: $0, port: server.port, token: token)
            }
            box.service = service
            try service.startWatching()
        } catch {
            throw CLIError(message: error.message)
        }
        // The address this machine's own browser uses: loopback when listening everywhere.
        let localHost =
            switch address {
            case "0.0.0.0", "localhost": "127.0.0.1"
            case "::": "::1"
            default: address
            }
        let local = MachineAddresses.url(host: localHost, port: server.port, token: token)
        let urls = service.shareURLs
        context.output.print("Serving the deck at \(urls.first ?? local)")
        for url in urls.dropFirst() { context.output.print("Also at \(url)") }
        if loopback {
            context.output.print("Only this machine can open it (--listen 0.0.0.0 for a phone on your network).")
        } else {
            if address == "0.0.0.0" || address == "::" {
                context.output.print("On this machine: \(local)")
            }
            if urls.isEmpty {
                context.output.print("This machine has no network address up: a phone cannot reach it yet.")
            }
            context.output.print(
                "Anyone on the network with this address, token included, can change the deck: keep it to yourself.")
        }
        let terminal = Output.isTerminal(1)
        let wantsQR = arguments.has("--qr") || (terminal && !arguments.has("--no-qr") && !urls.isEmpty)
        if wantsQR, let url = urls.first ?? (arguments.has("--qr") ? local : nil) {
            context.output.print("Scan this with the phone's camera to open \(url):")
            context.output.write(Array(ServeAccess.qrText(url, terminal: terminal).utf8))
        }
        context.output.print("Ctrl-C stops.")
        if arguments.has("--open") {
            // This machine's browser, at the loopback address; listening for a phone, it opens on the phone's
            // QR code (its "Back to the deck" link leads to the deck).
            let phone = MachineAddresses.url(host: localHost, port: server.port, token: token, path: "phone")
            openInBrowser(urls.isEmpty ? local : phone, gitDirectory: deck.gitDirectory, context)
        }
        var caught: Int32 = 0
        while sigwait(&signals, &caught) != 0 {}
        service.stop()
        server.stop()
        context.output.print("Stopped serving (\(caught == SIGINT ? "Ctrl-C" : "signal \(caught)")).")
        return 0
    }

    /// Opens `url` in this machine's browser (`xdg-open`, in the background); says so when there is none.
    /// The URL holds the token, and a process's arguments are readable by every user of the machine
    /// (`/proc/PID/cmdline`, for as long as a browser it started runs): the browser is given a page of the
    /// deck's git folder (mode 0600, as the token's own file) that sends it on, as Jupyter does.
    static func openInBrowser(_ url: String, gitDirectory: String, _ context: Context) {
        let page = gitDirectory + "/cards-serve-open.html"
        let text = PageAssets.redirectPage(to: url)
        do {
            try FileSystem.writeAtomically(Array(text.utf8), to: page, durable: false, mode: 0o600)
        } catch {
            context.output.error("warning: \(error.message); open the address by hand")
            return
        }
        var pid = pid_t()
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("xdg-open"), strdup("file://" + page), nil]
        defer { argv.forEach { free($0) } }
        let result = posix_spawnp(&pid, "xdg-open", nil, nil, argv, environ)
        if result != 0 {
            context.output.error(
                "warning: could not run xdg-open (\(SystemError.reason(result))); open the address by hand")
        }
    }
}

/// The service, once made, for the server's handler (which exists first: the service needs its port).
private final class ServiceBox: Sendable {
    private let held = Mutex<DeckService?>(nil)

    var service: DeckService? {
        get { held.withLock { $0 } }
        set { held.withLock { $0 = newValue } }
    }
}
