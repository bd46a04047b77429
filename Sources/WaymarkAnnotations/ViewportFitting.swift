import Foundation
import WaymarkGeo
import WaymarkGeoJSON

/// Insets from the viewport's edges, in points, that the fitted content must stay clear of
/// (like `UIEdgeInsets` / MapKit's `edgePadding`).
public struct EdgePadding: Sendable, Hashable {
    public var top: Double
    public var left: Double
    public var bottom: Double
    public var right: Double

    public init(top: Double, left: Double, bottom: Double, right: Double) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    /// The same inset on every side.
    public init(all: Double) {
        self.init(top: all, left: all, bottom: all, right: all)
    }

    public static let zero = EdgePadding(all: 0)
}

/// What to fit into: the viewport and the zoom rules of the map that will show it.
public struct ViewportOptions: Sendable, Hashable {
    /// Viewport width in points.
    public var width: Double
    /// Viewport height in points.
    public var height: Double
    /// Insets the content must stay clear of.
    public var padding: EdgePadding
    /// Lowest zoom the map allows.
    public var minZoom: Double
    /// Highest zoom the map allows; one point (or identical points) is shown at this zoom.
    public var maxZoom: Double
    /// The map's projection: world size 256 (MapKit, Leaflet, Google) or 512 (Mapbox GL).
    public var projection: WebMercator
    /// Zoom step the map snaps to (Leaflet's `zoomSnap`, e.g. 1 or 0.5); `nil` for continuous zoom.
    public var zoomSnap: Double?

    public init(width: Double, height: Double, padding: EdgePadding = .zero, minZoom: Double = 0,
                maxZoom: Double = 18, projection: WebMercator = .tiles256, zoomSnap: Double? = nil) {
        self.width = width
        self.height = height
        self.padding = padding
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.projection = projection
        self.zoomSnap = zoomSnap
    }
}

/// Where the camera goes to show a set of coordinates: the answer of MapKit's
/// `showAnnotations(_:animated:)`, Leaflet's `fitBounds`, Mapbox GL's `cameraForBounds`.
public struct ViewportFit: Sendable, Hashable {
    /// The map's center: the Mercator midpoint of the coordinates' box, moved by half the padding
    /// difference on each axis so the box is centred in the padded area.
    public var center: Coordinate
    /// The largest zoom at which the box fits inside the padded viewport, clamped to the zoom range.
    public var zoom: Double
    /// ``zoom`` snapped down to the map's zoom step (equal to ``zoom`` without a snap).
    public var snappedZoom: Double
    /// The region the viewport shows at ``snappedZoom`` (center and span, like `MKCoordinateRegion`).
    public var region: CoordinateRegion
    /// The box the viewport shows at ``snappedZoom``; `west > east` when it crosses 180°.
    public var visibleBox: BoundingBox
    /// The smallest box around the coordinates (shortest way round in longitude).
    public var contentBox: BoundingBox
}

/// Why a viewport could not be fitted.
public enum ViewportError: Error, Sendable, Equatable, CustomStringConvertible {
    case noCoordinates
    case invalidCoordinate(InvalidCoordinate)
    case invalidViewport(String)
    case paddingLeavesNoRoom(axis: String, size: Double, padding: Double)

    public var description: String {
        switch self {
        case .noCoordinates: return "nothing to fit: no coordinates"
        case let .invalidCoordinate(error): return "\(error)"
        case let .invalidViewport(text): return text
        case let .paddingLeavesNoRoom(axis, size, padding):
            return
                "padding leaves no room: \(axis) padding \(format(padding)) ≥ viewport \(axis) \(format(size)) points"
        }
    }

    private func format(_ v: Double) -> String { JSONValue.number(v).jsonText() }
}

/// Computes the camera that shows every coordinate.
///
/// The zoom is log2 of the largest scale at which the coordinates' Web Mercator box fits inside the
/// viewport less its padding: `min(log2(availableWidth / boxWidth), log2(availableHeight / boxHeight))`
/// with box sizes in world points at zoom 0. This is Leaflet's `getBoundsZoom` (world 256, padding
/// summed per axis) and Mapbox GL's `cameraForBounds` (world 512). The snap, when set, follows
/// Leaflet: round to 1 % of the step, then floor to the step. Longitudes take the shortest way round,
/// so a set straddling 180° is fitted across it. One coordinate, or identical ones, fit at `maxZoom`.
///
/// - Complexity: one pass over `coordinates`, O(1) extra memory (see ``BoundingBox/enclosing(_:)``).
/// - Throws: ``ViewportError`` for an empty input, an invalid coordinate (with its index), a
///   non-positive or non-finite viewport, an inverted zoom range, or padding that leaves no room.
public func fitViewport(_ coordinates: UnsafeBufferPointer<Coordinate>,
                        options: ViewportOptions) throws(ViewportError) -> ViewportFit {
    try validate(options) // before the O(n) pass: a bad viewport fails fast
    let enclosing: BoundingBox?
    do {
        enclosing = try BoundingBox.enclosing(coordinates)
    } catch {
        throw .invalidCoordinate(error)
    }
    guard let box = enclosing else { throw .noCoordinates }
    return try fitViewport(box: box, options: options)
}

/// ``fitViewport(_:options:)`` over an array.
public func fitViewport(_ coordinates: [Coordinate], options: ViewportOptions) throws(ViewportError) -> ViewportFit {
    try coordinates.withUnsafeBufferPointer { (buffer) throws(ViewportError) in
        try fitViewport(buffer, options: options)
    }
}

/// ``fitViewport(_:options:)`` for annotations.
public func fitViewport(_ annotations: [Annotation], options: ViewportOptions) throws(ViewportError) -> ViewportFit {
    try fitViewport(annotations.map(\.coordinate), options: options)
}

/// Fits an already known box (west > east crossing 180°) into the viewport.
/// - Throws: ``ViewportError`` for a non-positive or non-finite viewport, an inverted zoom range,
///   or padding that leaves no room.
public func fitViewport(box: BoundingBox, options: ViewportOptions) throws(ViewportError) -> ViewportFit {
    try validate(options)
    let projection = options.projection
    let content = projection.rect(for: box)
    let padding = options.padding
    let availableWidth = options.width - padding.left - padding.right
    let availableHeight = options.height - padding.top - padding.bottom

    // A zero extent fits at any zoom on that axis.
    let zoomX = content.size.width > 0 ? log2(availableWidth / content.size.width) : Double.infinity
    let zoomY = content.size.height > 0 ? log2(availableHeight / content.size.height) : Double.infinity
    let fitted = min(zoomX, zoomY)
    let zoom = fitted.isFinite ? min(options.maxZoom, max(options.minZoom, fitted)) : options.maxZoom

    var snapped = zoom
    if let step = options.zoomSnap, step > 0 {
        // Leaflet: do not jump a level when within 1 % of it, then floor to the step.
        let nearest = (zoom / (step / 100)).rounded() * (step / 100)
        snapped = min(options.maxZoom, max(options.minZoom, (nearest / step).rounded(.down) * step))
    }

    let scale = WebMercator.scale(atZoom: snapped)
    // Center the box in the padded area: shift the viewport center by half the padding difference.
    let centerPoint = MapPoint(x: content.midX + (padding.right - padding.left) / 2 / scale,
                               y: content.midY + (padding.bottom - padding.top) / 2 / scale)
    let visibleSize = MapSize(width: options.width / scale, height: options.height / scale)
    let visible = MapRect(origin: MapPoint(x: centerPoint.x - visibleSize.width / 2,
                                           y: centerPoint.y - visibleSize.height / 2),
                          size: visibleSize)
    return ViewportFit(center: projection.coordinate(for: centerPoint),
                       zoom: zoom,
                       snappedZoom: snapped,
                       region: CoordinateRegion(visible, projection: projection),
                       visibleBox: projection.boundingBox(for: visible),
                       contentBox: box)
}

private func validate(_ options: ViewportOptions) throws(ViewportError) {
    guard options.width.isFinite, options.height.isFinite, options.width > 0, options.height > 0 else {
        throw .invalidViewport("viewport must be positive and finite, not \(options.width)x\(options.height)")
    }
    let p = options.padding
    guard [p.top, p.left, p.bottom, p.right].allSatisfy({ $0.isFinite && $0 >= 0 }) else {
        throw .invalidViewport(
            "padding must be finite and ≥ 0 (top \(p.top), left \(p.left), bottom \(p.bottom), right \(p.right))")
    }
    guard options.minZoom.isFinite, options.maxZoom.isFinite, options.minZoom <= options.maxZoom else {
        throw .invalidViewport("zoom range must be finite with min ≤ max, not \(options.minZoom)…\(options.maxZoom)")
    }
    if let snap = options.zoomSnap, !(snap.isFinite && snap > 0) {
        throw .invalidViewport("zoom snap must be positive, not \(snap)")
    }
    if p.left + p.right >= options.width {
        throw .paddingLeavesNoRoom(axis: "horizontal", size: options.width, padding: p.left + p.right)
    }
    if p.top + p.bottom >= options.height {
        throw .paddingLeavesNoRoom(axis: "vertical", size: options.height, padding: p.top + p.bottom)
    }
}

// MARK: - Output

extension ViewportFit {
    /// The fit as JSON: `{"center":{"latitude","longitude"},"zoom","snappedZoom",
    /// "span":{"latitudeDelta","longitudeDelta"},"bbox":[west,south,east,north]}` (the visible box).
    public var json: JSONValue {
        [
            "center": ["latitude": .number(center.latitude), "longitude": .number(center.longitude)],
            "zoom": .number(zoom),
            "snappedZoom": .number(snappedZoom),
            "span": ["latitudeDelta": .number(region.span.latitudeDelta),
                     "longitudeDelta": .number(region.span.longitudeDelta)],
            "bbox": .array(visibleBox.array.map { .number($0) }),
        ]
    }

    /// A few aligned lines for people.
    public var text: String {
        func f(_ v: Double, _ digits: Int = 6) -> String { String(format: "%.\(digits)f", v) }
        func box(_ b: BoundingBox) -> String { "[\(f(b.west)), \(f(b.south)), \(f(b.east)), \(f(b.north))]" }
        return """
        center    \(f(center.latitude)), \(f(center.longitude))
        zoom      \(f(zoom, 4)) (snapped \(f(snappedZoom, 4)))
        span      \(f(region.span.latitudeDelta))° latitude × \(f(region.span.longitudeDelta))° longitude
        visible   \(box(visibleBox))\(visibleBox.crossesAntimeridian ? " (crosses 180°)" : "")
        content   \(box(contentBox))\(contentBox.crossesAntimeridian ? " (crosses 180°)" : "")

        """
    }
}
