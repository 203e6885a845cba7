import Glibc
import QRCode

/// The page's home-screen icon: two cards, one leaning on the other, on the deck's blue, drawn by the
/// server itself as SVG and as PNG (Chromium's install check and the launchers want raster sizes). The
/// picture fills the square edge to edge and keeps its cards in the middle 80 %, so a launcher may cut
/// it to a circle (`purpose: maskable`).
enum AppIcon {
    /// One rounded rectangle of the picture, in units of the icon's side.
    struct Shape {
        var centerX: Double
        var centerY: Double
        var width: Double
        var height: Double
        var radius: Double
        /// Degrees, clockwise.
        var rotation: Double
        var color: (UInt8, UInt8, UInt8)

        /// Signed distance from (x, y) to the shape's edge, negative inside.
        func distance(_ x: Double, _ y: Double) -> Double {
            let angle = -rotation * Double.pi / 180
            let dx = x - centerX
            let dy = y - centerY
            let px = abs(dx * cos(angle) - dy * sin(angle)) - (width / 2 - radius)
            let py = abs(dx * sin(angle) + dy * cos(angle)) - (height / 2 - radius)
            let outside = (max(px, 0) * max(px, 0) + max(py, 0) * max(py, 0)).squareRoot()
            return outside + min(max(px, py), 0) - radius
        }
    }

    static let background: (UInt8, UInt8, UInt8) = (0x1d, 0x4e, 0xd8)

    /// `#rrggbb`.
    static func hex(_ color: (UInt8, UInt8, UInt8)) -> String {
        let digits = Array("0123456789abcdef")
        return "#" + [color.0, color.1, color.2].map { "\(digits[Int($0 >> 4)])\(digits[Int($0 & 15)])" }.joined()
    }

    /// Back to front: the card behind (orange, leaning right), the card in front (white), its avatar dot
    /// and two lines of text.
    static let shapes: [Shape] = [
        Shape(
            centerX: 0.56, centerY: 0.49, width: 0.38, height: 0.52, radius: 0.05, rotation: 12,
            color: (0xf9, 0x73, 0x16)),
        Shape(
            centerX: 0.45, centerY: 0.52, width: 0.38, height: 0.52, radius: 0.05, rotation: -6,
            color: (0xff, 0xff, 0xff)),
        Shape(
            centerX: 0.44, centerY: 0.40, width: 0.13, height: 0.13, radius: 0.065, rotation: -6,
            color: (0x1d, 0x4e, 0xd8)),
        Shape(
            centerX: 0.455, centerY: 0.56, width: 0.24, height: 0.04, radius: 0.02, rotation: -6,
            color: (0x33, 0x41, 0x55)),
        Shape(
            centerX: 0.465, centerY: 0.64, width: 0.17, height: 0.04, radius: 0.02, rotation: -6,
            color: (0x94, 0xa3, 0xb8)),
    ]

    /// `/icon.svg`.
    static let svg: String = {
        var text =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"512\" height=\"512\" viewBox=\"0 0 512 512\">"
            + "<rect width=\"512\" height=\"512\" fill=\"\(hex(background))\"/>"
        for shape in shapes {
            func px(_ value: Double) -> String { "\(Int((value * 512).rounded()))" }
            text +=
                "<rect x=\"\(px(shape.centerX - shape.width / 2))\" y=\"\(px(shape.centerY - shape.height / 2))\" "
                + "width=\"\(px(shape.width))\" height=\"\(px(shape.height))\" rx=\"\(px(shape.radius))\" "
                + "fill=\"\(hex(shape.color))\" transform=\"rotate(\(Int(shape.rotation)) \(px(shape.centerX)) "
                + "\(px(shape.centerY)))\"/>"
        }
        return text + "</svg>\n"
    }()

    /// The icon as a PNG of `size` pixels a side, each shape's edge smoothed by its distance.
    static func png(size: Int) -> [UInt8] {
        let side = Double(size)
        var pixels = [UInt8](repeating: 0, count: size * size * 3)
        for row in 0..<size {
            for column in 0..<size {
                let x = (Double(column) + 0.5) / side
                let y = (Double(row) + 0.5) / side
                var red = Double(background.0)
                var green = Double(background.1)
                var blue = Double(background.2)
                for shape in shapes {
                    let cover = min(max(0.5 - shape.distance(x, y) * side, 0), 1)
                    guard cover > 0 else { continue }
                    red += (Double(shape.color.0) - red) * cover
                    green += (Double(shape.color.1) - green) * cover
                    blue += (Double(shape.color.2) - blue) * cover
                }
                let index = (row * size + column) * 3
                pixels[index] = UInt8(red.rounded())
                pixels[index + 1] = UInt8(green.rounded())
                pixels[index + 2] = UInt8(blue.rounded())
            }
        }
        return PNGFile.rgb(width: size, height: size, pixels: pixels)
    }

    /// `/icon-192.png` and `/icon-512.png`, drawn once on first use.
    static let png192 = png(size: 192)
    static let png512 = png(size: 512)

    /// `/manifest.webmanifest`: what a phone needs to add the page to its home screen. It names no deck
    /// (anyone who reaches the server may read it, without the token).
    static let manifest = """
        {"name":"Cards","short_name":"Cards","description":"Swipe the cards of your deck",\
        "start_url":"./","scope":"./","display":"standalone","orientation":"any",\
        "background_color":"#1d4ed8","theme_color":"#1d4ed8","icons":[\
        {"src":"icon-192.png","sizes":"192x192","type":"image/png","purpose":"any maskable"},\
        {"src":"icon-512.png","sizes":"512x512","type":"image/png","purpose":"any maskable"},\
        {"src":"icon.svg","sizes":"any","type":"image/svg+xml","purpose":"any"}]}

        """
}
