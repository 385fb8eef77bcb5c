#include "decode_internal.h"

#include <png.h>

// libpng's simplified API: it catches its own longjmp errors and reports them in image.message.
ssi_status ssi_decode_png(const uint8_t *data, size_t length, int64_t max_pixels, ssi_image *out) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, length)) {
        ssi_status s = ssi_fail(out, SSI_DAMAGED, "%s", image.message);
        png_image_free(&image);
        return s;
    }
    ssi_status size = ssi_check_size(out, image.width, image.height, max_pixels);
    if (size != SSI_OK) {
        png_image_free(&image);
        return size;
    }
    image.format = PNG_FORMAT_RGBA;
    uint8_t *pixels = ssi_allocate(out, (int)image.width, (int)image.height);
    if (pixels == NULL) {
        png_image_free(&image);
        return SSI_NO_MEMORY;
    }
    if (!png_image_finish_read(&image, NULL, pixels, 0, NULL)) {
        free(pixels);
        ssi_status s = ssi_fail(out, SSI_DAMAGED, "%s", image.message);
        png_image_free(&image);
        return s;
    }
    out->pixels = pixels;
    out->width = (int)image.width;
    out->height = (int)image.height;
    png_image_free(&image);
    return SSI_OK;
}
