// zlib, from the system (Debian/Ubuntu: zlib1g-dev), for CoreStack's inflate of Core Data's
// Z_MODELCACHE (raw deflate data).
#include <zlib.h>
