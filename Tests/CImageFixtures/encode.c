#include "image_fixtures.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <png.h>
#include <jpeglib.h>
#include <gif_lib.h>
#include <webp/encode.h>
#include <libheif/heif.h>
#include <tiffio.h>

static int sif_fail(sif_encoded *out, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(out->message, sizeof out->message, format, args);
    va_end(args);
    free(out->bytes);
    out->bytes = NULL;
    out->length = 0;
    return -1;
}

static int sif_png(const uint8_t *rgba, int w, int h, sif_encoded *out) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = (png_uint_32)w;
    image.height = (png_uint_32)h;
    image.format = PNG_FORMAT_RGBA;
    png_alloc_size_t size = 0;
    if (!png_image_write_to_memory(&image, NULL, &size, 0, rgba, 0, NULL)) return sif_fail(out, "png: %s", image.message);
    out->bytes = malloc(size);
    if (out->bytes == NULL) return sif_fail(out, "png: out of memory");
    if (!png_image_write_to_memory(&image, out->bytes, &size, 0, rgba, 0, NULL)) return sif_fail(out, "png: %s", image.message);
    out->length = size;
    return 0;
}

struct sif_jpeg_error {
    struct jpeg_error_mgr base;
    jmp_buf jump;
};

static void sif_jpeg_exit(j_common_ptr cinfo) { longjmp(((struct sif_jpeg_error *)cinfo->err)->jump, 1); }

static int sif_jpeg(const uint8_t *rgba, int w, int h, int quality, sif_encoded *out) {
    struct jpeg_compress_struct cinfo;
    struct sif_jpeg_error error;
    unsigned char *volatile buffer = NULL;
    unsigned long size = 0;
    cinfo.err = jpeg_std_error(&error.base);
    error.base.error_exit = sif_jpeg_exit;
    if (setjmp(error.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(buffer);
        return sif_fail(out, "jpeg: encoding failed");
    }
    jpeg_create_compress(&cinfo);
    unsigned char *dest = NULL;
    jpeg_mem_dest(&cinfo, &dest, &size);
    cinfo.image_width = (JDIMENSION)w;
    cinfo.image_height = (JDIMENSION)h;
    cinfo.input_components = 4;
    cinfo.in_color_space = JCS_EXT_RGBA;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(rgba + (size_t)cinfo.next_scanline * (size_t)w * 4);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    buffer = dest;
    jpeg_destroy_compress(&cinfo);
    out->bytes = buffer;
    out->length = size;
    return 0;
}

struct sif_buffer {
    uint8_t *bytes;
    size_t length;
    size_t capacity;
};

static int sif_append(struct sif_buffer *b, const void *data, size_t n) {
    if (b->length + n > b->capacity) {
        size_t capacity = (b->capacity + n) * 2;
        uint8_t *grown = realloc(b->bytes, capacity);
        if (grown == NULL) return -1;
        b->bytes = grown;
        b->capacity = capacity;
    }
    memcpy(b->bytes + b->length, data, n);
    b->length += n;
    return 0;
}

static int sif_gif_write(GifFileType *gif, const GifByteType *data, int n) {
    return sif_append((struct sif_buffer *)gif->UserData, data, (size_t)n) == 0 ? n : 0;
}

static int sif_gif(const uint8_t *rgba, int w, int h, sif_encoded *out) {
    GifColorType colors[256];
    int count = 0, transparent = -1;
    uint8_t *indexes = malloc((size_t)w * (size_t)h);
    if (indexes == NULL) return sif_fail(out, "gif: out of memory");
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++) {
        const uint8_t *p = rgba + 4 * i;
        int found = -1;
        if (p[3] == 0) {
            if (transparent < 0) {
                if (count == 256) { free(indexes); return sif_fail(out, "gif: more than 256 colours"); }
                transparent = count;
                colors[count].Red = colors[count].Green = colors[count].Blue = 0;
                count++;
            }
            found = transparent;
        } else {
            for (int c = 0; c < count; c++) {
                if (c != transparent && colors[c].Red == p[0] && colors[c].Green == p[1] && colors[c].Blue == p[2]) { found = c; break; }
            }
            if (found < 0) {
                if (count == 256) { free(indexes); return sif_fail(out, "gif: more than 256 colours"); }
                colors[count].Red = p[0];
                colors[count].Green = p[1];
                colors[count].Blue = p[2];
                found = count++;
            }
        }
        indexes[i] = (uint8_t)found;
    }
    int size = 2;
    while (size < count) size *= 2;
    ColorMapObject *map = GifMakeMapObject(size, NULL);
    if (map == NULL) { free(indexes); return sif_fail(out, "gif: out of memory"); }
    memcpy(map->Colors, colors, sizeof(GifColorType) * (size_t)count);
    struct sif_buffer buffer = {NULL, 0, 0};
    int error = 0;
    GifFileType *gif = EGifOpen(&buffer, sif_gif_write, &error);
    int ok = gif != NULL;
    if (ok) {
        EGifSetGifVersion(gif, true);
        ok = EGifPutScreenDesc(gif, w, h, 8, 0, map) != GIF_ERROR;
    }
    if (ok && transparent >= 0) {
        GifByteType control[4] = {1, 0, 0, (GifByteType)transparent};
        ok = EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, 4, control) != GIF_ERROR;
    }
    if (ok) ok = EGifPutImageDesc(gif, 0, 0, w, h, false, NULL) != GIF_ERROR;
    for (int y = 0; ok && y < h; y++) ok = EGifPutLine(gif, indexes + (size_t)y * (size_t)w, w) != GIF_ERROR;
    if (gif != NULL && EGifCloseFile(gif, &error) == GIF_ERROR) ok = 0;
    GifFreeMapObject(map);
    free(indexes);
    if (!ok) {
        free(buffer.bytes);
        return sif_fail(out, "gif: %s", GifErrorString(error) ? GifErrorString(error) : "encoding failed");
    }
    out->bytes = buffer.bytes;
    out->length = buffer.length;
    return 0;
}

static int sif_webp(const uint8_t *rgba, int w, int h, int quality, sif_encoded *out) {
    uint8_t *encoded = NULL;
    size_t size = quality <= 0 ? WebPEncodeLosslessRGBA(rgba, w, h, w * 4, &encoded)
                               : WebPEncodeRGBA(rgba, w, h, w * 4, (float)quality, &encoded);
    if (size == 0 || encoded == NULL) return sif_fail(out, "webp: encoding failed");
    out->bytes = malloc(size);
    if (out->bytes == NULL) { WebPFree(encoded); return sif_fail(out, "webp: out of memory"); }
    memcpy(out->bytes, encoded, size);
    out->length = size;
    WebPFree(encoded);
    return 0;
}

static struct heif_error sif_heif_write(struct heif_context *ctx, const void *data, size_t size, void *user) {
    (void)ctx;
    struct heif_error ok = {heif_error_Ok, heif_suberror_Unspecified, "ok"};
    struct heif_error failed = {heif_error_Encoding_error, heif_suberror_Cannot_write_output_data, "out of memory"};
    return sif_append((struct sif_buffer *)user, data, size) == 0 ? ok : failed;
}

static int sif_heif(const uint8_t *rgba, int w, int h, int quality, int av1, sif_encoded *out) {
    struct heif_context *ctx = heif_context_alloc();
    struct heif_image *image = NULL;
    struct heif_encoder *encoder = NULL;
    struct sif_buffer buffer = {NULL, 0, 0};
    const char *failure = NULL;
    struct heif_error e = heif_image_create(w, h, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, &image);
    if (e.code == heif_error_Ok) e = heif_image_add_plane(image, heif_channel_interleaved, w, h, 8);
    if (e.code == heif_error_Ok) {
        int stride = 0;
        uint8_t *plane = heif_image_get_plane(image, heif_channel_interleaved, &stride);
        for (int y = 0; y < h; y++) memcpy(plane + (size_t)y * (size_t)stride, rgba + (size_t)y * (size_t)w * 4, (size_t)w * 4);
        e = heif_context_get_encoder_for_format(ctx, av1 ? heif_compression_AV1 : heif_compression_HEVC, &encoder);
    }
    if (e.code == heif_error_Ok) e = heif_encoder_set_lossy_quality(encoder, quality);
    if (e.code == heif_error_Ok) e = heif_context_encode_image(ctx, image, encoder, NULL, NULL);
    if (e.code == heif_error_Ok) {
        struct heif_writer writer = {1, sif_heif_write};
        e = heif_context_write(ctx, &writer, &buffer);
    }
    if (e.code != heif_error_Ok) failure = e.message;
    if (encoder != NULL) heif_encoder_release(encoder);
    if (image != NULL) heif_image_release(image);
    heif_context_free(ctx);
    if (failure != NULL) {
        free(buffer.bytes);
        return sif_fail(out, "heif: %s", failure);
    }
    out->bytes = buffer.bytes;
    out->length = buffer.length;
    return 0;
}

/// libtiff writes a file: a temporary one, read back and removed.
static int sif_tiff(const uint8_t *rgba, int w, int h, sif_encoded *out) {
    char path[] = "/tmp/sif-tiff-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return sif_fail(out, "tiff: cannot make a temporary file");
    close(fd);
    TIFF *tiff = TIFFOpen(path, "w");
    if (tiff == NULL) { unlink(path); return sif_fail(out, "tiff: cannot open the temporary file"); }
    uint16_t extra[1] = {EXTRASAMPLE_UNASSALPHA};
    TIFFSetField(tiff, TIFFTAG_IMAGEWIDTH, (uint32_t)w);
    TIFFSetField(tiff, TIFFTAG_IMAGELENGTH, (uint32_t)h);
    TIFFSetField(tiff, TIFFTAG_SAMPLESPERPIXEL, 4);
    TIFFSetField(tiff, TIFFTAG_BITSPERSAMPLE, 8);
    TIFFSetField(tiff, TIFFTAG_EXTRASAMPLES, 1, extra);
    TIFFSetField(tiff, TIFFTAG_ORIENTATION, ORIENTATION_TOPLEFT);
    TIFFSetField(tiff, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(tiff, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
    TIFFSetField(tiff, TIFFTAG_COMPRESSION, COMPRESSION_LZW);
    TIFFSetField(tiff, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(tiff, (uint32_t)-1));
    int ok = 1;
    for (int y = 0; ok && y < h; y++) ok = TIFFWriteScanline(tiff, (void *)(rgba + (size_t)y * (size_t)w * 4), (uint32_t)y, 0) >= 0;
    TIFFClose(tiff);
    FILE *file = fopen(path, "rb");
    if (!ok || file == NULL) { if (file) fclose(file); unlink(path); return sif_fail(out, "tiff: writing failed"); }
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    out->bytes = malloc(size > 0 ? (size_t)size : 1);
    if (out->bytes == NULL || size <= 0 || fread(out->bytes, 1, (size_t)size, file) != (size_t)size) {
        fclose(file);
        unlink(path);
        return sif_fail(out, "tiff: reading the file back failed");
    }
    fclose(file);
    unlink(path);
    out->length = (size_t)size;
    return 0;
}

int sif_encode(const char *format, const uint8_t *rgba, int width, int height, int quality, sif_encoded *out) {
    memset(out, 0, sizeof *out);
    if (format == NULL || rgba == NULL || width <= 0 || height <= 0) return sif_fail(out, "no pixels");
    if (strcmp(format, "PNG") == 0) return sif_png(rgba, width, height, out);
    if (strcmp(format, "JPEG") == 0) return sif_jpeg(rgba, width, height, quality, out);
    if (strcmp(format, "GIF") == 0) return sif_gif(rgba, width, height, out);
    if (strcmp(format, "WebP") == 0) return sif_webp(rgba, width, height, quality, out);
    if (strcmp(format, "HEIC") == 0) return sif_heif(rgba, width, height, quality, 0, out);
    if (strcmp(format, "AVIF") == 0) return sif_heif(rgba, width, height, quality, 1, out);
    if (strcmp(format, "TIFF") == 0) return sif_tiff(rgba, width, height, out);
    return sif_fail(out, "unknown format %s", format);
}

void sif_free(sif_encoded *encoded) {
    if (encoded == NULL) return;
    free(encoded->bytes);
    encoded->bytes = NULL;
    encoded->length = 0;
}
