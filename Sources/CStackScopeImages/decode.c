#include "decode_internal.h"

#include <libheif/heif.h>

ssi_status ssi_decode(ssi_format format, const uint8_t *data, size_t length, int64_t max_pixels,
                      int min_long_side, ssi_image *out) {
    memset(out, 0, sizeof *out);
    if (data == NULL || length == 0) return ssi_fail(out, SSI_DAMAGED, "no bytes");
    if (max_pixels <= 0) max_pixels = 1;
    ssi_status status;
    switch (format) {
    case SSI_FORMAT_PNG: status = ssi_decode_png(data, length, max_pixels, out); break;
    case SSI_FORMAT_JPEG: status = ssi_decode_jpeg(data, length, max_pixels, min_long_side, out); break;
    case SSI_FORMAT_GIF: status = ssi_decode_gif(data, length, max_pixels, out); break;
    case SSI_FORMAT_WEBP: status = ssi_decode_webp(data, length, max_pixels, out); break;
    case SSI_FORMAT_HEIC: status = ssi_decode_heif(data, length, max_pixels, 0, out); break;
    case SSI_FORMAT_AVIF: status = ssi_decode_heif(data, length, max_pixels, 1, out); break;
    case SSI_FORMAT_TIFF: status = ssi_decode_tiff(data, length, max_pixels, out); break;
    default: return ssi_fail(out, SSI_NO_DECODER, "unknown format %d", (int)format);
    }
    if (status != SSI_OK) {
        free(out->pixels);
        out->pixels = NULL;
        out->width = out->height = 0;
        if (out->message[0] == '\0') ssi_fail(out, status, "the decoder gave no reason");
    } else {
        out->message[0] = '\0';
    }
    return status;
}

void ssi_image_free(ssi_image *image) {
    if (image == NULL) return;
    free(image->pixels);
    image->pixels = NULL;
}

int ssi_has_decoder(ssi_format format) {
    switch (format) {
    case SSI_FORMAT_HEIC: return heif_have_decoder_for_format(heif_compression_HEVC) ? 1 : 0;
    case SSI_FORMAT_AVIF: return heif_have_decoder_for_format(heif_compression_AV1) ? 1 : 0;
    case SSI_FORMAT_PNG:
    case SSI_FORMAT_JPEG:
    case SSI_FORMAT_GIF:
    case SSI_FORMAT_WEBP:
    case SSI_FORMAT_TIFF: return 1;
    default: return 0;
    }
}
