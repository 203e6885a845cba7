/// A QR code's modules: `width` × `width`, row by row, `true` for a dark module. Drawn with the quiet
/// zone (the light margin readers need) around it.
public struct QRMatrix: Sendable, Equatable {
    /// The number of modules on a side (21 for version 1, 4 more a version).
    public let width: Int
    /// The modules, row by row: `modules[row * width + column]`.
    public let modules: [Bool]

    /// A matrix of the given modules; `modules.count` must be `width * width`.
    public init(width: Int, modules: [Bool]) {
        precondition(modules.count == width * width, "a QR matrix has width × width modules")
        self.width = width
        self.modules = modules
    }

    /// Whether the module at `row`, `column` is dark; outside the code (the quiet zone) it is light.
    public func isDark(row: Int, column: Int) -> Bool {
        guard row >= 0, column >= 0, row < width, column < width else { return false }
        return modules[row * width + column]
    }
}

/// How a QR code is drawn in a terminal.
public enum QRTerminalStyle: Sendable {
    /// Black on white set by ANSI colours: reads the same on light and dark terminals.
    case ansi
    /// Block characters for the light modules, for a terminal with light text on a dark background
    /// when colours must not be sent (`qrencode -t UTF8` draws so).
    case lightOnDark
    /// Block characters for the dark modules, for dark text on a light background (print, a file).
    case darkOnLight
}

extension QRMatrix {
    /// The code as lines of half blocks (two module rows a line, so modules look square), with a
    /// quiet zone of `quietZone` modules, each line ending in a newline.
    public func terminalText(style: QRTerminalStyle = .ansi, quietZone: Int = 2) -> String {
        let margin = max(0, quietZone)
        let first = -margin
        let end = width + margin
        var text = ""
        var row = first
        while row < end {
            if style == .ansi { text += "\u{1B}[30;107m" }
            for column in first..<end {
                var top = isDark(row: row, column: column)
                var bottom = row + 1 < end ? isDark(row: row + 1, column: column) : false
                // A block is drawn in the terminal's text colour: for ANSI that is black (dark), for
                // lightOnDark the terminal's light text, so the light modules are the ones drawn.
                if style == .lightOnDark {
                    top.toggle()
                    bottom = row + 1 < end ? !bottom : false
                }
                text += Self.halfBlock(top: top, bottom: bottom)
            }
            if style == .ansi { text += "\u{1B}[0m" }
            text += "\n"
            row += 2
        }
        return text
    }

    private static func halfBlock(top: Bool, bottom: Bool) -> String {
        switch (top, bottom) {
        case (true, true): "\u{2588}"
        case (true, false): "\u{2580}"
        case (false, true): "\u{2584}"
        case (false, false): " "
        }
    }

    /// The code as a standalone SVG image: one path of unit squares in a `viewBox` that includes the
    /// quiet zone, `size` pixels on a side. Byte-identical for the same matrix and arguments.
    public func svg(size: Int = 256, quietZone: Int = 4) -> String {
        let side = width + 2 * max(0, quietZone)
        var path = ""
        for row in 0..<width {
            var column = 0
            while column < width {
                guard isDark(row: row, column: column) else {
                    column += 1
                    continue
                }
                // One rectangle per run of dark modules in a row keeps the path short.
                var run = 1
                while isDark(row: row, column: column + run) { run += 1 }
                path += "M\(column + quietZone) \(row + quietZone)h\(run)v1h-\(run)z"
                column += run
            }
        }
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(size)\" height=\"\(size)\" "
            + "viewBox=\"0 0 \(side) \(side)\" shape-rendering=\"crispEdges\">"
            + "<rect width=\"\(side)\" height=\"\(side)\" fill=\"#fff\"/>"
            + "<path fill=\"#000\" d=\"\(path)\"/></svg>\n"
    }
}
