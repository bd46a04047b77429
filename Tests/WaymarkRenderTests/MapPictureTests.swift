import Foundation
import Testing
import WaymarkAnnotations
import WaymarkGeo
import WaymarkOSM
@testable import WaymarkRender

@Suite struct MapPictureTests {
    @Test func scaleBarIsARoundDistanceThatFits() {
        // Zoom 14 at 52.3°N: 5.83 m per point; 120 points = 700 m; the bar is 500 m.
        let bar = MapPicture.scaleBar(latitude: 52.3, zoom: 14)
        #expect(bar.metres == 500 && bar.label == "500 m")
        let metresPerPoint: Double = cos(52.3 * Double.pi / 180) * 2 * Double.pi * 6_378_137 / (256 * 16384)
        #expect(abs(bar.points - 500 / metresPerPoint) < 1e-9)
        #expect(MapPicture.scaleBar(latitude: 0, zoom: 5).label == "500 km") // 4.9 km per point: 587 km fit
        #expect(MapPicture.scaleBar(latitude: 41.15, zoom: 12.6).label == "2 km")
        for zoom in stride(from: 0.0, through: 18, by: 0.5) {
            let b = MapPicture.scaleBar(latitude: 45, zoom: zoom)
            #expect(b.points <= 120 && b.points > 40, "zoom \(zoom): \(b.points) points")
        }
    }

    @Test func numbersAndEscaping() {
        #expect(fmt(3) == "3" && fmt(-2.5) == "-2.5" && fmt(0.125) == "0.13" && fmt(-0.004) == "0" && fmt(12.10) == "12.1")
        #expect(SVGWriter.escape("Fish & Chips <\"best\">") == "Fish &amp; Chips &lt;&quot;best&quot;&gt;")
        #expect(SVGWriter.escape("a\u{1}b") == "ab")
    }

    @Test func viewportLeavesRoomForTheCallout() throws {
        let places = [Annotation(coordinate: Coordinate(latitude: 52.30, longitude: -2.60), title: "A", id: .string("a")),
                      Annotation(coordinate: Coordinate(latitude: 52.32, longitude: -2.57), title: "B", id: .string("b"))]
        let picture = MapPicture(width: 800, height: 600)
        let plain = try picture.viewport(for: MapScene(annotations: places))
        let selected = try picture.viewport(for: MapScene(annotations: places, selected: 1))
        #expect(selected.zoom < plain.zoom) // the bubble's room costs zoom
        #expect(throws: MapPictureError.self) { try picture.svg(MapScene()) }
    }

    @Test func pinsOutsideNoClusterAcrossTheWorld() throws {
        // Two far-apart places never cluster; a selected one is drawn once, as the selected pin.
        let places = [Annotation(coordinate: Coordinate(latitude: 48.858370, longitude: 2.294481), title: "Eiffel & Co", id: .string("e")),
                      Annotation(coordinate: Coordinate(latitude: 35.658581, longitude: 139.745433), title: "東京タワー", id: .string("t"))]
        let svg = try MapPicture().svg(MapScene(annotations: places, selected: 1))
        #expect(svg.components(separatedBy: "class=\"pin\"").count - 1 == 1)
        #expect(svg.components(separatedBy: "class=\"pin selected\"").count - 1 == 1)
        #expect(svg.contains("Eiffel &amp; Co") && svg.contains(">東京タワー</text>"))
        #expect(!svg.contains("class=\"cluster\""))
    }
}
