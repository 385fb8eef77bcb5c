#include "decode_internal.h"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <libheif/heif.h>

static ssi_status ssi_heif_fail(ssi_image *out, struct heif_error error, const char *what) {
    ssi_status status = SSI_DAMAGED;
    if (error.code == heif_error_Unsupported_feature && error.subcode == heif_suberror_Unsupported_codec) status = SSI_NO_DECODER;
    if (error.code == heif_error_Memory_allocation_error) status = SSI_NO_MEMORY;
    // libheif's own limits on declared sizes (image extents, box sizes): a bomb refused.
    if (error.subcode == heif_suberror_Security_limit_exceeded) status = SSI_TOO_LARGE;
    return ssi_fail(out, status, "%s: %s", what, error.message ? error.message : "unknown error");
}

/// libheif's codecs (libde265, dav1d) print their complaints about damaged data to stderr, which
/// in the browser is the screen curses draws: stderr goes to /dev/null while one decodes. One
/// decode at a time, so the descriptor saved is always the real stderr.
static pthread_mutex_t ssi_heif_lock = PTHREAD_MUTEX_INITIALIZER;

static int ssi_silence_stderr(void) {
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (saved < 0 || null < 0 || dup2(null, STDERR_FILENO) < 0) {
        if (saved >= 0) close(saved);
        if (null >= 0) close(null);
        return -1;
    }
    close(null);
    return saved;
}

static void ssi_restore_stderr(int saved) {
    if (saved < 0) return;
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
}

// The primary image, decoded to interleaved RGBA by libheif (HEVC for HEIC, AV1 for AVIF).
static ssi_status ssi_decode_heif_quietly(const uint8_t *data, size_t length, int64_t max_pixels, int av1, ssi_image *out) {
    enum heif_compression_format codec = av1 ? heif_compression_AV1 : heif_compression_HEVC;
    if (!heif_have_decoder_for_format(codec)) {
        return ssi_fail(out, SSI_NO_DECODER, "this libheif has no %s decoder", av1 ? "AV1" : "HEVC");
    }
    struct heif_context *context = heif_context_alloc();
    if (context == NULL) return ssi_fail(out, SSI_NO_MEMORY, "out of memory");
    struct heif_image_handle *handle = NULL;
    struct heif_image *image = NULL;
    ssi_status result = SSI_OK;

    struct heif_error error = heif_context_read_from_memory_without_copy(context, data, length, NULL);
    if (error.code != heif_error_Ok) {
        result = ssi_heif_fail(out, error, "reading the file");
        goto done;
    }
    error = heif_context_get_primary_image_handle(context, &handle);
    if (error.code != heif_error_Ok) {
        result = ssi_heif_fail(out, error, "finding the primary image");
        goto done;
    }
    result = ssi_check_size(out, heif_image_handle_get_width(handle), heif_image_handle_get_height(handle), max_pixels);
    if (result != SSI_OK) goto done;
    error = heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, NULL);
    if (error.code != heif_error_Ok) {
        result = ssi_heif_fail(out, error, "decoding the image");
        goto done;
    }
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    int width = heif_image_get_width(image, heif_channel_interleaved);
    int height = heif_image_get_height(image, heif_channel_interleaved);
    if (plane == NULL || width <= 0 || height <= 0 || stride < width * 4 || (int64_t)width * height > max_pixels) {
        result = ssi_fail(out, SSI_DAMAGED, "the decoded image has no usable RGBA plane");
        goto done;
    }
    uint8_t *pixels = ssi_allocate(out, width, height);
    if (pixels == NULL) {
        result = SSI_NO_MEMORY;
        goto done;
    }
    for (int y = 0; y < height; y++) {
        memcpy(pixels + (size_t)y * (size_t)width * 4, plane + (size_t)y * (size_t)stride, (size_t)width * 4);
    }
    out->pixels = pixels;
    out->width = width;
    out->height = height;

done:
    if (image != NULL) heif_image_release(image);
    if (handle != NULL) heif_image_handle_release(handle);
    heif_context_free(context);
    return result;
}

ssi_status ssi_decode_heif(const uint8_t *data, size_t length, int64_t max_pixels, int av1, ssi_image *out) {
    pthread_mutex_lock(&ssi_heif_lock);
    int saved = ssi_silence_stderr();
    ssi_status status = ssi_decode_heif_quietly(data, length, max_pixels, av1, out);
    ssi_restore_stderr(saved);
    pthread_mutex_unlock(&ssi_heif_lock);
    return status;
}
