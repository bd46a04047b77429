// Routing is a map and what it answers: importing it brings in the stages below it, so an app's
// one import reaches snapping, searches, tables, isochrones and the told route.
@_exported import WaymarkPreparation
@_exported import WaymarkQueries
@_exported import WaymarkGuidance
