// The libxml2 headers Waymark uses. Only the OSM module imports this target: its map
// parser and its GPX reader make the libxml2 calls.
#ifndef WAYMARK_CLIBXML2_SHIM_H
#define WAYMARK_CLIBXML2_SHIM_H

#include <libxml/xmlversion.h>
// Debian's libxml2 is built with ICU, so <libxml/encoding.h> includes the system's
// <unicode/ucnv.h>. Swift 6.3.0/6.3.1 on Linux bundle a newer ICU inside Foundation
// (_FoundationICU), and any Swift module importing both sees two different `UErrorCode`
// enums and fails to build (swiftlang/swift-foundation-icu#93, fixed in Swift 6.3.2).
// The ICU part of libxml2's API is two trailing pointer fields of xmlCharEncodingHandler,
// a struct Waymark never allocates or reads, so hiding it changes nothing we use.
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>

// libxml2 prints some errors (an encoding it cannot convert, I/O) through its generic error
// function, straight to standard error. A variadic C callback cannot be written in Swift, so this
// no-op is; Waymark reports the structured error instead.
static inline void waymark_ignore_generic_error(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

// Silences the generic error function for the calling thread (libxml2 keeps it per thread).
static inline void waymark_silence_generic_errors(void) {
    xmlSetGenericErrorFunc(NULL, waymark_ignore_generic_error);
}

// libxml2's `xmlFree` is a global function pointer, which Swift 6 will not read from Swift code.
static inline void waymark_xml_free(void *pointer) {
    xmlFree(pointer);
}
#endif
