// libchafa (libchafa-dev, pkg-config `chafa`): pixels to terminal output (Unicode symbols in true
// colour, 256 or 16 colours or none, sixel, kitty). Used from C only, by Sources/CStackScopeImages:
// its API is full of GLib types that Swift need not see.
#ifndef CCHAFA_SHIM_H
#define CCHAFA_SHIM_H
#include <chafa.h>
#endif
