#include "decode_internal.h"

#include <setjmp.h>
#include <jpeglib.h>
#include <jerror.h>

// libjpeg's error manager: errors longjmp back here with the message kept; warnings are not
// printed, but the end of the data arriving early (a truncated file) is remembered.
struct ssi_jpeg_error {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    int premature_end;
};

static void ssi_jpeg_error_exit(j_common_ptr cinfo) {
    struct ssi_jpeg_error *e = (struct ssi_jpeg_error *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, e->message);
    longjmp(e->jump, 1);
}

static void ssi_jpeg_emit_message(j_common_ptr cinfo, int level) {
    struct ssi_jpeg_error *e = (struct ssi_jpeg_error *)cinfo->err;
    if (level < 0) {
        if (cinfo->err->msg_code == JWRN_JPEG_EOF) e->premature_end = 1;
        cinfo->err->num_warnings++;
    }
}

static void ssi_jpeg_output_message(j_common_ptr cinfo) { (void)cinfo; }

/// CMYK or YCCK (decoded to CMYK) to RGB; Adobe's files store the inks inverted.
static void ssi_cmyk_to_rgba(uint8_t *row, int width, int inverted) {
    for (int x = 0; x < width; x++) {
        uint8_t *p = row + 4 * x;
        int c = p[0], m = p[1], y = p[2], k = p[3];
        if (!inverted) { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k; }
        p[0] = (uint8_t)(c * k / 255);
        p[1] = (uint8_t)(m * k / 255);
        p[2] = (uint8_t)(y * k / 255);
        p[3] = 255;
    }
}

ssi_status ssi_decode_jpeg(const uint8_t *data, size_t length, int64_t max_pixels, int min_long_side, ssi_image *out) {
    struct jpeg_decompress_struct cinfo;
    struct ssi_jpeg_error error;
    // Changed after setjmp and read after a longjmp: volatile.
    uint8_t *volatile pixels = NULL;
    memset(&cinfo, 0, sizeof cinfo);
    memset(&error, 0, sizeof error);
    cinfo.err = jpeg_std_error(&error.base);
    error.base.error_exit = ssi_jpeg_error_exit;
    error.base.emit_message = ssi_jpeg_emit_message;
    error.base.output_message = ssi_jpeg_output_message;
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(pixels);
        return ssi_fail(out, SSI_DAMAGED, "%s", error.message);
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    if (jpeg_read_header(&cinfo, TRUE) != JPEG_HEADER_OK) {
        jpeg_destroy_decompress(&cinfo);
        return ssi_fail(out, SSI_DAMAGED, "no image in the data");
    }
    ssi_status size = ssi_check_size(out, cinfo.image_width, cinfo.image_height, max_pixels);
    if (size != SSI_OK) {
        jpeg_destroy_decompress(&cinfo);
        return size;
    }
    // The smallest of 1/8, 1/4, 1/2 whose longer side is still at least min_long_side.
    unsigned int longer = cinfo.image_width > cinfo.image_height ? cinfo.image_width : cinfo.image_height;
    cinfo.scale_num = 1;
    cinfo.scale_denom = 1;
    if (min_long_side > 0) {
        for (unsigned int d = 8; d >= 2; d /= 2) {
            if (longer / d >= (unsigned int)min_long_side) {
                cinfo.scale_denom = d;
                break;
            }
        }
    }
    int cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA;
    jpeg_start_decompress(&cinfo);
    if (cinfo.output_components != 4 || cinfo.output_width == 0 || cinfo.output_height == 0) {
        jpeg_destroy_decompress(&cinfo);
        return ssi_fail(out, SSI_DAMAGED, "unexpected output of %d components", cinfo.output_components);
    }
    int width = (int)cinfo.output_width, height = (int)cinfo.output_height;
    pixels = ssi_allocate(out, width, height);
    if (pixels == NULL) {
        jpeg_destroy_decompress(&cinfo);
        return SSI_NO_MEMORY;
    }
    while (cinfo.output_scanline < cinfo.output_height && !error.premature_end) {
        JSAMPROW row = pixels + (size_t)cinfo.output_scanline * (size_t)width * 4;
        if (jpeg_read_scanlines(&cinfo, &row, 1) != 1) break;
        if (cmyk) ssi_cmyk_to_rgba(row, width, cinfo.saw_Adobe_marker);
    }
    if (error.premature_end || cinfo.output_scanline < cinfo.output_height) {
        unsigned int done = cinfo.output_scanline;
        jpeg_destroy_decompress(&cinfo);
        free(pixels);
        return ssi_fail(out, SSI_DAMAGED, "the data ends early (truncated after row %u of %d)", done, height);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    out->pixels = pixels;
    out->width = width;
    out->height = height;
    return SSI_OK;
}
