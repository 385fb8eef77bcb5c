// Image decoding and terminal output for stackscope's value inspector, in C because libpng and
// libjpeg report errors with longjmp (which Swift code cannot survive) and libchafa's API is
// written in GLib types. Swift calls only what this header declares (Sources/StackScope/Images).
//
// Every decoder takes untrusted bytes: it reads only inside them, checks the size the file
// declares against a pixel limit before allocating, prints nothing, and reports failure with a
// status and a message instead of exiting.
#ifndef STACKSCOPE_IMAGES_H
#define STACKSCOPE_IMAGES_H

#include <stddef.h>
#include <stdint.h>

/// The formats decoded. HEIC and AVIF are both read by libheif (HEVC and AV1 inside).
typedef enum {
    SSI_FORMAT_PNG = 0,
    SSI_FORMAT_JPEG = 1,
    SSI_FORMAT_GIF = 2,
    SSI_FORMAT_WEBP = 3,
    SSI_FORMAT_HEIC = 4,
    SSI_FORMAT_AVIF = 5,
    SSI_FORMAT_TIFF = 6,
} ssi_format;

/// What a decode ended with.
typedef enum {
    SSI_OK = 0,
    /// The library that decodes this format (or its codec) is not there.
    SSI_NO_DECODER = 1,
    /// The size the file declares is larger than the pixel limit (nothing was allocated for it).
    SSI_TOO_LARGE = 2,
    /// The bytes are damaged, truncated or use something the library does not support.
    SSI_DAMAGED = 3,
    /// Memory ran out.
    SSI_NO_MEMORY = 4,
} ssi_status;

/// A decoded image: RGBA, 8 bits a sample, alpha not premultiplied, rows of width * 4 bytes.
typedef struct {
    uint8_t *pixels;
    int width;
    int height;
    /// The size the file declares (a JPEG may be decoded smaller: see ssi_decode).
    int source_width;
    int source_height;
    /// Why a decode failed (empty on success).
    char message[256];
} ssi_image;

/// Decodes the first image (the first frame of an animation) in `data`.
///
/// `max_pixels`: a file declaring more than this many pixels gives SSI_TOO_LARGE before anything
/// is allocated. `min_long_side`: a JPEG is decoded at 1/2, 1/4 or 1/8 of its size (libjpeg's
/// DCT scaling, much faster) when its longer side stays at least this long; 0 decodes full size.
/// On failure `out->pixels` is NULL and `out->message` says why.
ssi_status ssi_decode(ssi_format format, const uint8_t *data, size_t length, int64_t max_pixels,
                      int min_long_side, ssi_image *out);

/// Frees the pixels of an image ssi_decode filled (safe on a failed or zeroed one).
void ssi_image_free(ssi_image *image);

/// 1 when this build can decode `format` (for HEIC and AVIF: libheif has the codec), else 0.
int ssi_has_decoder(ssi_format format);

/// How a picture is drawn in a terminal.
typedef enum {
    /// Unicode block symbols coloured with SGR escapes.
    SSI_PIXELS_SYMBOLS = 0,
    /// The DEC sixel graphics protocol (`ESC P … q … ESC \`).
    SSI_PIXELS_SIXEL = 1,
    /// The kitty graphics protocol (`ESC _G … ESC \`).
    SSI_PIXELS_KITTY = 2,
} ssi_pixel_mode;

/// The colours symbols are drawn in.
typedef enum {
    SSI_COLORS_TRUECOLOR = 0,
    SSI_COLORS_256 = 1,
    SSI_COLORS_16 = 2,
    /// No colour escapes at all: the symbols' shapes in the default colours (NO_COLOR).
    SSI_COLORS_NONE = 3,
} ssi_color_mode;

/// Terminal output made by ssi_render.
typedef struct {
    /// The escapes and symbols (NUL-terminated; `length` bytes before the NUL). Symbol rows are
    /// separated by '\n'; sixel and kitty output is one sequence.
    char *text;
    size_t length;
    /// The cells the picture covers.
    int columns;
    int rows;
} ssi_rendered;

/// Turns RGBA pixels into terminal output with libchafa, fitted into `max_columns` x `max_rows`
/// cells with the image's aspect ratio kept, for cells `cell_width` x `cell_height` pixels
/// (their ratio shapes the symbols; sixel and kitty output is sized in them). A picture smaller
/// than the area is not enlarged in sixel and kitty modes. Returns 0, or -1 (out zeroed) when
/// a size is not positive or memory ran out.
int ssi_render(const uint8_t *rgba, int width, int height, int max_columns, int max_rows,
               ssi_pixel_mode pixel_mode, ssi_color_mode color_mode, int cell_width, int cell_height,
               ssi_rendered *out);

/// Frees what ssi_render made.
void ssi_rendered_free(ssi_rendered *rendered);

#endif
