// zlib, for reading .osm.gz in the OSM module (gzopen/gzread also read plain files).
#include <zlib.h>
