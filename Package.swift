// swift-tools-version: 6.0
// Waymark — a Swift geospatial engine: viewport fitting, annotation clustering,
// OpenStreetMap road graphs and driving directions, GeoJSON, and the `waymark` CLI.
//
// No package dependencies: the toolchain (stdlib, Foundation, Dispatch, Swift Testing)
// and system C libraries only. Module DAG (bottom to top) is drawn in README.md.
import PackageDescription

let package = Package(
    name: "Waymark",
    products: [
        .library(name: "Waymark", targets: ["Waymark"]),
        .library(name: "WaymarkGeo", targets: ["WaymarkGeo"]),
        .library(name: "WaymarkGeoJSON", targets: ["WaymarkGeoJSON"]),
        .library(name: "WaymarkAnnotations", targets: ["WaymarkAnnotations"]),
        .library(name: "WaymarkSupport", targets: ["WaymarkSupport"]),
        .library(name: "WaymarkGraph", targets: ["WaymarkGraph"]),
        .library(name: "WaymarkProfiles", targets: ["WaymarkProfiles"]),
        .library(name: "WaymarkOSM", targets: ["WaymarkOSM"]),
        .library(name: "WaymarkPreparation", targets: ["WaymarkPreparation"]),
        .library(name: "WaymarkQueries", targets: ["WaymarkQueries"]),
        .library(name: "WaymarkGuidance", targets: ["WaymarkGuidance"]),
        .library(name: "WaymarkRouting", targets: ["WaymarkRouting"]),
        .library(name: "WaymarkRender", targets: ["WaymarkRender"]),
        .library(name: "WaymarkServer", targets: ["WaymarkServer"]),
        .executable(name: "waymark", targets: ["WaymarkCLI"]),
    ],
    targets: [
        // MARK: - C libraries
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .systemLibrary(name: "CPrefetch"),

        // MARK: - Engine
        .target(name: "WaymarkSupport"),
        .target(name: "WaymarkGeo"),
        .target(name: "WaymarkGeoJSON", dependencies: ["WaymarkGeo"]),
        .target(name: "WaymarkAnnotations", dependencies: ["WaymarkSupport", "WaymarkGeo", "WaymarkGeoJSON"]),
        .target(name: "WaymarkGraph", dependencies: ["WaymarkSupport", "WaymarkGeo"]),
        .target(name: "WaymarkProfiles", dependencies: ["WaymarkGraph"]),
        .target(name: "WaymarkOSM",
                dependencies: ["CLibXML2", "CZlib", "WaymarkSupport", "WaymarkGraph", "WaymarkProfiles", "WaymarkGeo"]),
        .target(name: "WaymarkPreparation",
                dependencies: ["WaymarkSupport", "WaymarkGraph", "WaymarkProfiles", "WaymarkGeo"]),
        .target(name: "WaymarkQueries",
                dependencies: ["CPrefetch", "WaymarkSupport", "WaymarkGraph", "WaymarkProfiles", "WaymarkPreparation",
                               "WaymarkGeo"]),
        .target(name: "WaymarkGuidance",
                dependencies: ["WaymarkSupport", "WaymarkGraph", "WaymarkProfiles", "WaymarkPreparation",
                               "WaymarkQueries", "WaymarkGeo"]),
        .target(name: "WaymarkRouting",
                dependencies: ["WaymarkSupport", "WaymarkGraph", "WaymarkProfiles", "WaymarkPreparation",
                               "WaymarkQueries", "WaymarkGuidance", "WaymarkGeo"]),
        .target(name: "WaymarkRender",
                dependencies: ["WaymarkGeo", "WaymarkGeoJSON", "WaymarkAnnotations", "WaymarkGraph", "WaymarkRouting"]),
        .target(name: "Waymark",
                dependencies: ["WaymarkSupport", "WaymarkGeo", "WaymarkGeoJSON", "WaymarkAnnotations", "WaymarkGraph",
                               "WaymarkProfiles", "WaymarkOSM", "WaymarkPreparation", "WaymarkQueries",
                               "WaymarkGuidance", "WaymarkRouting", "WaymarkRender"]),

        // MARK: - Service (OSRM's HTTP API over a RoadMap)
        .target(name: "WaymarkServer", dependencies: ["Waymark"]),

        // MARK: - Command line
        .executableTarget(name: "WaymarkCLI", dependencies: ["Waymark", "WaymarkServer"]),

        // MARK: - Tools (not products: sample-data generator and benchmarks)
        .executableTarget(name: "sample-town", dependencies: ["WaymarkGeo"], path: "Tools/SampleTown"),
        .executableTarget(name: "waymark-bench", dependencies: ["Waymark"], path: "Tools/Bench"),
        .executableTarget(name: "waymark-fuzz",
                          dependencies: ["WaymarkOSM", "WaymarkGraph", "WaymarkRouting", "WaymarkAnnotations",
                                         "WaymarkGeoJSON", "WaymarkServer", "WaymarkRender"],
                          path: "Tools/Fuzz"),

        // MARK: - Tests
        .testTarget(name: "WaymarkGeoTests", dependencies: ["WaymarkGeo", "WaymarkSupport"]),
        .testTarget(name: "WaymarkGeoJSONTests", dependencies: ["WaymarkGeoJSON"]),
        .testTarget(name: "WaymarkAnnotationsTests", dependencies: ["WaymarkAnnotations", "WaymarkSupport"]),
        .testTarget(name: "CLibXML2Tests", dependencies: ["CLibXML2"]),
        .testTarget(name: "WaymarkSupportTests", dependencies: ["WaymarkSupport"]),
        .testTarget(name: "WaymarkGraphTests", dependencies: ["WaymarkGraph", "WaymarkProfiles", "WaymarkSupport"]),
        .testTarget(name: "WaymarkProfilesTests", dependencies: ["WaymarkProfiles", "WaymarkGraph"]),
        .testTarget(name: "WaymarkOSMTests",
                    dependencies: ["WaymarkOSM", "WaymarkGraph", "WaymarkProfiles", "WaymarkSupport", "CZlib"]),
        .testTarget(name: "WaymarkRoutingTests",
                    dependencies: ["WaymarkRouting", "WaymarkPreparation", "WaymarkQueries", "WaymarkGuidance",
                                   "WaymarkGraph", "WaymarkProfiles", "WaymarkOSM", "WaymarkSupport"]),
        .testTarget(name: "WaymarkRenderTests",
                    dependencies: ["WaymarkRender", "WaymarkRouting", "WaymarkOSM", "WaymarkAnnotations"]),
        .testTarget(name: "WaymarkTests", dependencies: ["Waymark"]),
        .testTarget(name: "WaymarkServerTests", dependencies: ["WaymarkServer", "Waymark"]),
        .testTarget(name: "CLITests", dependencies: ["WaymarkCLI", "sample-town", "waymark-fuzz", "WaymarkGeoJSON"],
                    exclude: ["Golden"]), // read from the source tree by path, not bundled
    ],
    swiftLanguageModes: [.v6]
)
