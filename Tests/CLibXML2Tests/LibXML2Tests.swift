import Testing
import CLibXML2
import Foundation

/// The system-library target links and its headers resolve: parse a small document in memory.
@Suite struct LibXML2Tests {
    @Test func parsesADocumentInMemory() throws {
        let xml = #"<osm version="0.6"><node id="1" lat="52.2" lon="-1.5"/></osm>"#
        let document = xml.withCString { xmlReadMemory($0, Int32(strlen($0)), "inline.osm", nil, 0) }
        let doc = try #require(document)
        defer { xmlFreeDoc(doc) }
        let root = try #require(xmlDocGetRootElement(doc))
        #expect(String(cString: root.pointee.name) == "osm")
        let child = try #require(root.pointee.children)
        var attributes: [String: String] = [:]
        var attribute = child.pointee.properties
        while let a = attribute {
            if let text = a.pointee.children?.pointee.content {
                attributes[String(cString: a.pointee.name)] = String(cString: text)
            }
            attribute = a.pointee.next
        }
        #expect(attributes == ["id": "1", "lat": "52.2", "lon": "-1.5"])
    }

    @Test func reportsMalformedXML() {
        let broken = "<osm><node></osm>"
        let document = broken.withCString {
            xmlReadMemory(
                $0, Int32(strlen($0)), "broken.osm", nil,
                Int32(XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue))
        }
        #expect(document == nil)
        if let document { xmlFreeDoc(document) }
    }
}
