#include "decode_internal.h"

#include <tiffio.h>

struct ssi_tiff_reader {
    const uint8_t *data;
    toff_t length;
    toff_t position;
    ssi_image *out;
    int failed;
};

static tmsize_t ssi_tiff_read(thandle_t handle, void *buffer, tmsize_t count) {
    struct ssi_tiff_reader *r = (struct ssi_tiff_reader *)handle;
    if (count <= 0 || r->position >= r->length) return 0;
    toff_t left = r->length - r->position;
    toff_t n = (toff_t)count < left ? (toff_t)count : left;
    memcpy(buffer, r->data + r->position, (size_t)n);
    r->position += n;
    return (tmsize_t)n;
}

static tmsize_t ssi_tiff_write(thandle_t handle, void *buffer, tmsize_t count) {
    (void)handle; (void)buffer; (void)count;
    return 0;
}

static toff_t ssi_tiff_seek(thandle_t handle, toff_t offset, int whence) {
    struct ssi_tiff_reader *r = (struct ssi_tiff_reader *)handle;
    toff_t base = whence == SEEK_CUR ? r->position : whence == SEEK_END ? r->length : 0;
    if (offset > UINT64_MAX - base) return (toff_t)-1;
    r->position = base + offset;
    return r->position;
}

static int ssi_tiff_close(thandle_t handle) { (void)handle; return 0; }
static toff_t ssi_tiff_size(thandle_t handle) { return ((struct ssi_tiff_reader *)handle)->length; }
static int ssi_tiff_map(thandle_t handle, void **base, toff_t *size) { (void)handle; (void)base; (void)size; return 0; }
static void ssi_tiff_unmap(thandle_t handle, void *base, toff_t size) { (void)handle; (void)base; (void)size; }

/// libtiff's errors: the first is kept as the message, nothing is printed.
static int ssi_tiff_error(TIFF *tiff, void *user, const char *module, const char *format, va_list args) {
    (void)tiff; (void)module;
    struct ssi_tiff_reader *r = (struct ssi_tiff_reader *)user;
    if (!r->failed) {
        vsnprintf(r->out->message, sizeof r->out->message, format, args);
        r->failed = 1;
    }
    return 1;
}

static int ssi_tiff_warning(TIFF *tiff, void *user, const char *module, const char *format, va_list args) {
    (void)tiff; (void)user; (void)module; (void)format; (void)args;
    return 1;
}

// The first directory, read through libtiff's RGBA interface (any photometric, compression and
// bit depth it supports), rows top to bottom.
ssi_status ssi_decode_tiff(const uint8_t *data, size_t length, int64_t max_pixels, ssi_image *out) {
    struct ssi_tiff_reader reader = {data, (toff_t)length, 0, out, 0};
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (options == NULL) return ssi_fail(out, SSI_NO_MEMORY, "out of memory");
    TIFFOpenOptionsSetErrorHandlerExtR(options, ssi_tiff_error, &reader);
    TIFFOpenOptionsSetWarningHandlerExtR(options, ssi_tiff_warning, &reader);
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, (tmsize_t)(max_pixels < INT32_MAX / 4 ? max_pixels * 4 : INT32_MAX));
    // "m": never memory-map (the reader has no file).
    TIFF *tiff = TIFFClientOpenExt("value", "rm", &reader, ssi_tiff_read, ssi_tiff_write, ssi_tiff_seek, ssi_tiff_close,
                                   ssi_tiff_size, ssi_tiff_map, ssi_tiff_unmap, options);
    TIFFOpenOptionsFree(options);
    if (tiff == NULL) {
        return reader.failed ? SSI_DAMAGED : ssi_fail(out, SSI_DAMAGED, "libtiff cannot open the data");
    }
    uint32_t width = 0, height = 0;
    if (!TIFFGetField(tiff, TIFFTAG_IMAGEWIDTH, &width) || !TIFFGetField(tiff, TIFFTAG_IMAGELENGTH, &height)) {
        TIFFClose(tiff);
        return ssi_fail(out, SSI_DAMAGED, "the first directory has no image size");
    }
    ssi_status size = ssi_check_size(out, width, height, max_pixels);
    if (size != SSI_OK) {
        TIFFClose(tiff);
        return size;
    }
    char why[1024] = {0};
    if (!TIFFRGBAImageOK(tiff, why)) {
        TIFFClose(tiff);
        return ssi_fail(out, SSI_DAMAGED, "%s", why);
    }
    uint32_t *raster = (uint32_t *)ssi_allocate(out, (int)width, (int)height);
    if (raster == NULL) {
        TIFFClose(tiff);
        return SSI_NO_MEMORY;
    }
    reader.failed = 0;
    out->message[0] = '\0';
    int ok = TIFFReadRGBAImageOriented(tiff, width, height, raster, ORIENTATION_TOPLEFT, 1);
    TIFFClose(tiff);
    if (!ok || reader.failed) {
        free(raster);
        return reader.failed ? SSI_DAMAGED : ssi_fail(out, SSI_DAMAGED, "the pixels cannot be read");
    }
    // ABGR words to R, G, B, A bytes, whatever the machine's byte order.
    uint8_t *pixels = (uint8_t *)raster;
    size_t count = (size_t)width * (size_t)height;
    for (size_t i = 0; i < count; i++) {
        uint32_t v = raster[i];
        pixels[4 * i] = (uint8_t)TIFFGetR(v);
        pixels[4 * i + 1] = (uint8_t)TIFFGetG(v);
        pixels[4 * i + 2] = (uint8_t)TIFFGetB(v);
        pixels[4 * i + 3] = (uint8_t)TIFFGetA(v);
    }
    out->pixels = pixels;
    out->width = (int)width;
    out->height = (int)height;
    return SSI_OK;
}
