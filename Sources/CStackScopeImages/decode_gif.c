#include "decode_internal.h"

#include <gif_lib.h>

struct ssi_gif_reader {
    const uint8_t *data;
    size_t length;
    size_t position;
};

static int ssi_gif_read(GifFileType *gif, GifByteType *buffer, int count) {
    struct ssi_gif_reader *r = (struct ssi_gif_reader *)gif->UserData;
    if (count <= 0) return 0;
    size_t left = r->length - r->position;
    size_t n = (size_t)count < left ? (size_t)count : left;
    memcpy(buffer, r->data + r->position, n);
    r->position += n;
    return (int)n;
}

static ssi_status ssi_gif_fail(ssi_image *out, GifFileType *gif, const char *what) {
    const char *reason = GifErrorString(gif->Error);
    ssi_status s = ssi_fail(out, SSI_DAMAGED, "%s: %s", what, reason ? reason : "unknown error");
    int ignored;
    DGifCloseFile(gif, &ignored);
    return s;
}

// The first image of the file on its logical screen (later frames of an animation are not read,
// so a file of many frames costs one); the transparent colour of its graphic control extension
// becomes alpha 0.
ssi_status ssi_decode_gif(const uint8_t *data, size_t length, int64_t max_pixels, ssi_image *out) {
    struct ssi_gif_reader reader = {data, length, 0};
    int error = 0;
    GifFileType *gif = DGifOpen(&reader, ssi_gif_read, &error);
    if (gif == NULL) {
        const char *reason = GifErrorString(error);
        return ssi_fail(out, SSI_DAMAGED, "%s", reason ? reason : "not a GIF");
    }
    int transparent = -1;
    for (;;) {
        GifRecordType type;
        if (DGifGetRecordType(gif, &type) == GIF_ERROR) return ssi_gif_fail(out, gif, "reading a record");
        if (type == TERMINATE_RECORD_TYPE) {
            int ignored;
            DGifCloseFile(gif, &ignored);
            return ssi_fail(out, SSI_DAMAGED, "the file holds no image");
        }
        if (type == EXTENSION_RECORD_TYPE) {
            int code;
            GifByteType *extension = NULL;
            if (DGifGetExtension(gif, &code, &extension) == GIF_ERROR) return ssi_gif_fail(out, gif, "reading an extension");
            if (code == GRAPHICS_EXT_FUNC_CODE && extension != NULL && extension[0] >= 4) {
                transparent = (extension[1] & 1) ? extension[4] : -1;
            }
            while (extension != NULL) {
                if (DGifGetExtensionNext(gif, &extension) == GIF_ERROR) return ssi_gif_fail(out, gif, "reading an extension");
            }
            continue;
        }
        if (type != IMAGE_DESC_RECORD_TYPE) continue;

        if (DGifGetImageDesc(gif) == GIF_ERROR) return ssi_gif_fail(out, gif, "reading the image descriptor");
        GifImageDesc desc = gif->Image;
        int64_t screenW = gif->SWidth > 0 ? gif->SWidth : desc.Width;
        int64_t screenH = gif->SHeight > 0 ? gif->SHeight : desc.Height;
        ssi_status size = ssi_check_size(out, screenW, screenH, max_pixels);
        if (size == SSI_OK && (desc.Width <= 0 || desc.Height <= 0 || (int64_t)desc.Width * desc.Height > max_pixels)) {
            size = ssi_fail(out, desc.Width <= 0 || desc.Height <= 0 ? SSI_DAMAGED : SSI_TOO_LARGE,
                            "the first frame declares %d x %d pixels", desc.Width, desc.Height);
        }
        if (size != SSI_OK) {
            int ignored;
            DGifCloseFile(gif, &ignored);
            return size;
        }
        ColorMapObject *map = desc.ColorMap != NULL ? desc.ColorMap : gif->SColorMap;
        if (map == NULL || map->Colors == NULL) {
            int ignored;
            DGifCloseFile(gif, &ignored);
            return ssi_fail(out, SSI_DAMAGED, "the image has no colour table");
        }
        int width = (int)screenW, height = (int)screenH;
        uint8_t *pixels = ssi_allocate(out, width, height);
        GifPixelType *line = malloc((size_t)desc.Width);
        if (pixels == NULL || line == NULL) {
            free(pixels);
            free(line);
            int ignored;
            DGifCloseFile(gif, &ignored);
            return ssi_fail(out, SSI_NO_MEMORY, "out of memory for %d x %d pixels", width, height);
        }
        // Interlaced rows come in four passes.
        static const int starts[4] = {0, 4, 2, 1}, steps[4] = {8, 8, 4, 2};
        int passes = desc.Interlace ? 4 : 1;
        for (int pass = 0; pass < passes; pass++) {
            int start = desc.Interlace ? starts[pass] : 0, step = desc.Interlace ? steps[pass] : 1;
            for (int row = start; row < desc.Height; row += step) {
                if (DGifGetLine(gif, line, desc.Width) == GIF_ERROR) {
                    free(pixels);
                    free(line);
                    return ssi_gif_fail(out, gif, "reading the pixels");
                }
                int y = desc.Top + row;
                if (y < 0 || y >= height) continue;
                for (int col = 0; col < desc.Width; col++) {
                    int x = desc.Left + col;
                    int index = line[col];
                    if (x < 0 || x >= width || index == transparent || index >= map->ColorCount) continue;
                    uint8_t *p = pixels + ((size_t)y * (size_t)width + (size_t)x) * 4;
                    p[0] = map->Colors[index].Red;
                    p[1] = map->Colors[index].Green;
                    p[2] = map->Colors[index].Blue;
                    p[3] = 255;
                }
            }
        }
        free(line);
        int ignored;
        DGifCloseFile(gif, &ignored);
        out->pixels = pixels;
        out->width = width;
        out->height = height;
        return SSI_OK;
    }
}
