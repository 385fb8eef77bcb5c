// Real encoders for the image tests: libpng, libjpeg-turbo, giflib, libwebp, libheif (x265 for
// HEIC, aom for AVIF) and libtiff turn RGBA pixels into files, so the decoders are tested on
// what those libraries write (Tests/StackScopeTests/Images).
#ifndef IMAGE_FIXTURES_H
#define IMAGE_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

/// An encoded file, or why encoding failed (bytes NULL).
typedef struct {
    uint8_t *bytes;
    size_t length;
    char message[256];
} sif_encoded;

/// Encodes width x height RGBA pixels (rows of width * 4 bytes) as `format`, named as stackscope
/// names it (`PNG`, `JPEG`, `GIF`, `WebP`, `HEIC`, `AVIF`, `TIFF`). `quality` (1-100) for the lossy
/// formats (JPEG, HEIC, AVIF; WebP is lossless at 0, lossy otherwise). A GIF takes at most 256
/// distinct colours; pixels with alpha 0 become its transparent colour. 0 on success.
int sif_encode(const char *format, const uint8_t *rgba, int width, int height, int quality, sif_encoded *out);

/// Frees what sif_encode made.
void sif_free(sif_encoded *encoded);

#endif
