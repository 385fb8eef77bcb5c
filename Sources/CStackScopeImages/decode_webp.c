#include "decode_internal.h"

#include <webp/decode.h>
#include <webp/demux.h>

static const char *ssi_vp8_status(VP8StatusCode code) {
    switch (code) {
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "the bitstream is damaged";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "an unsupported feature";
    case VP8_STATUS_SUSPENDED: return "suspended";
    case VP8_STATUS_USER_ABORT: return "aborted";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "the data ends early (truncated)";
    default: return "unknown error";
    }
}

/// An animated WebP's first frame, composed on its canvas by libwebpdemux.
static ssi_status ssi_decode_webp_animation(const uint8_t *data, size_t length, ssi_image *out) {
    WebPData webp = {data, length};
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) return ssi_fail(out, SSI_NO_DECODER, "libwebpdemux version mismatch");
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;
    WebPAnimDecoder *decoder = WebPAnimDecoderNew(&webp, &options);
    if (decoder == NULL) return ssi_fail(out, SSI_DAMAGED, "the animation is damaged or truncated");
    uint8_t *frame = NULL;
    int timestamp = 0;
    if (!WebPAnimDecoderGetNext(decoder, &frame, &timestamp) || frame == NULL) {
        WebPAnimDecoderDelete(decoder);
        return ssi_fail(out, SSI_DAMAGED, "the first frame is damaged or truncated");
    }
    WebPAnimInfo info;
    if (!WebPAnimDecoderGetInfo(decoder, &info) || info.canvas_width == 0 || info.canvas_height == 0
        || (int)info.canvas_width != out->source_width || (int)info.canvas_height != out->source_height) {
        WebPAnimDecoderDelete(decoder);
        return ssi_fail(out, SSI_DAMAGED, "the animation's canvas does not match its header");
    }
    int width = (int)info.canvas_width, height = (int)info.canvas_height;
    uint8_t *pixels = ssi_allocate(out, width, height);
    if (pixels == NULL) {
        WebPAnimDecoderDelete(decoder);
        return SSI_NO_MEMORY;
    }
    memcpy(pixels, frame, (size_t)width * (size_t)height * 4);
    WebPAnimDecoderDelete(decoder);
    out->pixels = pixels;
    out->width = width;
    out->height = height;
    return SSI_OK;
}

ssi_status ssi_decode_webp(const uint8_t *data, size_t length, int64_t max_pixels, ssi_image *out) {
    WebPBitstreamFeatures features;
    VP8StatusCode status = WebPGetFeatures(data, length, &features);
    if (status != VP8_STATUS_OK) return ssi_fail(out, SSI_DAMAGED, "%s", ssi_vp8_status(status));
    ssi_status size = ssi_check_size(out, features.width, features.height, max_pixels);
    if (size != SSI_OK) return size;
    if (features.has_animation) return ssi_decode_webp_animation(data, length, out);

    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return ssi_fail(out, SSI_NO_DECODER, "libwebp version mismatch");
    int width = features.width, height = features.height;
    uint8_t *pixels = ssi_allocate(out, width, height);
    if (pixels == NULL) return SSI_NO_MEMORY;
    config.output.colorspace = MODE_RGBA;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = pixels;
    config.output.u.RGBA.stride = width * 4;
    config.output.u.RGBA.size = (size_t)width * (size_t)height * 4;
    status = WebPDecode(data, length, &config);
    WebPFreeDecBuffer(&config.output);
    if (status != VP8_STATUS_OK) {
        free(pixels);
        return ssi_fail(out, SSI_DAMAGED, "%s", ssi_vp8_status(status));
    }
    out->pixels = pixels;
    out->width = width;
    out->height = height;
    return SSI_OK;
}
