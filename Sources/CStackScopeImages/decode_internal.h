// Shared by the decoders (not part of the public header).
#ifndef STACKSCOPE_IMAGES_DECODE_INTERNAL_H
#define STACKSCOPE_IMAGES_DECODE_INTERNAL_H

#include "stackscope_images.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Sets out->message (printf-style) and returns `status`.
static inline ssi_status ssi_fail(ssi_image *out, ssi_status status, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(out->message, sizeof out->message, format, args);
    va_end(args);
    return status;
}

/// SSI_OK when width x height is positive and at most max_pixels; else a failure naming the size.
static inline ssi_status ssi_check_size(ssi_image *out, int64_t width, int64_t height, int64_t max_pixels) {
    out->source_width = width > INT32_MAX ? INT32_MAX : (int)width;
    out->source_height = height > INT32_MAX ? INT32_MAX : (int)height;
    if (width <= 0 || height <= 0) {
        return ssi_fail(out, SSI_DAMAGED, "the header declares a size of %lld x %lld pixels", (long long)width, (long long)height);
    }
    if (width > INT32_MAX / 4 || height > INT32_MAX / 4 || width * height > max_pixels) {
        return ssi_fail(out, SSI_TOO_LARGE, "%lld x %lld pixels, more than the %lld allowed",
                        (long long)width, (long long)height, (long long)max_pixels);
    }
    return SSI_OK;
}

/// width * height * 4 bytes, or NULL (with out->message) when memory runs out.
static inline uint8_t *ssi_allocate(ssi_image *out, int width, int height) {
    uint8_t *p = calloc((size_t)width * (size_t)height, 4);
    if (p == NULL) ssi_fail(out, SSI_NO_MEMORY, "out of memory for %d x %d pixels", width, height);
    return p;
}

ssi_status ssi_decode_png(const uint8_t *data, size_t length, int64_t max_pixels, ssi_image *out);
ssi_status ssi_decode_jpeg(const uint8_t *data, size_t length, int64_t max_pixels, int min_long_side, ssi_image *out);
ssi_status ssi_decode_gif(const uint8_t *data, size_t length, int64_t max_pixels, ssi_image *out);
ssi_status ssi_decode_webp(const uint8_t *data, size_t length, int64_t max_pixels, ssi_image *out);
ssi_status ssi_decode_heif(const uint8_t *data, size_t length, int64_t max_pixels, int av1, ssi_image *out);
ssi_status ssi_decode_tiff(const uint8_t *data, size_t length, int64_t max_pixels, ssi_image *out);

#endif
