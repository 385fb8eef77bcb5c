// Real encoders for the image tests: libpng, libjpeg-turbo, giflib, libwebp, libheif (x265 for
// HEIC, aom for AVIF) and libtiff turn RGBA pixels into files, so the decoders are tested on
// what those libraries write (Tests/StackScopeTests/Images).
#ifndef IMAGE_FIXTURES_H
#define IMAGE_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

/// The formats written (the same numbers as ssi_format).
typedef enum {
    SIF_PNG = 0,
    SIF_JPEG = 1,
    SIF_GIF = 2,
    SIF_WEBP = 3,
    SIF_HEIC = 4,
    SIF_AVIF = 5,
    SIF_TIFF = 6,
} sif_format;

/// An encoded file, or why encoding failed (bytes NULL).
typedef struct {
    uint8_t *bytes;
    size_t length;
    char message[256];
} sif_encoded;

/// Encodes width x height RGBA pixels (rows of width * 4 bytes). `quality` (1-100) for the lossy
/// formats (JPEG, HEIC, AVIF; WebP is lossless at 0, lossy otherwise). A GIF takes at most 256
/// distinct colours; pixels with alpha 0 become its transparent colour. 0 on success.
int sif_encode(sif_format format, const uint8_t *rgba, int width, int height, int quality, sif_encoded *out);

/// Frees what sif_encode made.
void sif_free(sif_encoded *encoded);

#endif
