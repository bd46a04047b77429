// The facade an app imports: `import Waymark` brings in every engine module.
@_exported import WaymarkSupport
@_exported import WaymarkGeo
@_exported import WaymarkGeoJSON
@_exported import WaymarkAnnotations
@_exported import WaymarkGraph
@_exported import WaymarkProfiles
@_exported import WaymarkOSM
@_exported import WaymarkPreparation
@_exported import WaymarkQueries
@_exported import WaymarkGuidance
@_exported import WaymarkRouting
@_exported import WaymarkRender

/// The engine's version, as `waymark --version` prints it.
public let waymarkVersion = "0.1.0"
