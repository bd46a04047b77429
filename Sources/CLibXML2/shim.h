// The libxml2 headers Waymark uses. Only the OSM module imports this target, and
// only one Swift file in it makes libxml2 calls.
#ifndef WAYMARK_CLIBXML2_SHIM_H
#define WAYMARK_CLIBXML2_SHIM_H
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>
#endif
