#include "stackscope_images.h"

#include <chafa.h>
#include <stdlib.h>
#include <string.h>

int ssi_render(const uint8_t *rgba, int width, int height, int max_columns, int max_rows,
               ssi_pixel_mode pixel_mode, ssi_color_mode color_mode, int cell_width, int cell_height,
               ssi_rendered *out) {
    memset(out, 0, sizeof *out);
    if (rgba == NULL || width <= 0 || height <= 0 || max_columns <= 0 || max_rows <= 0 || cell_width <= 0 || cell_height <= 0) {
        return -1;
    }
    int columns = max_columns, rows = max_rows;
    if (pixel_mode != SSI_PIXELS_SYMBOLS) {
        // Pixels are shown as they are: no more cells than the image covers at this cell size.
        int natural_columns = (width + cell_width - 1) / cell_width;
        int natural_rows = (height + cell_height - 1) / cell_height;
        if (natural_columns < columns) columns = natural_columns;
        if (natural_rows < rows) rows = natural_rows;
    }
    chafa_calc_canvas_geometry(width, height, &columns, &rows, (gfloat)cell_width / (gfloat)cell_height, FALSE, FALSE);
    if (columns < 1) columns = 1;
    if (rows < 1) rows = 1;

    ChafaCanvasMode canvas_mode = CHAFA_CANVAS_MODE_TRUECOLOR;
    ChafaDitherMode dither = CHAFA_DITHER_MODE_NONE;
    ChafaSymbolTags tags = CHAFA_SYMBOL_TAG_BLOCK | CHAFA_SYMBOL_TAG_SPACE;
    if (pixel_mode == SSI_PIXELS_SYMBOLS) {
        switch (color_mode) {
        case SSI_COLORS_TRUECOLOR: break;
        // 240: the 6x6x6 cube and the grey ramp, not the 16 colours a theme may have changed.
        case SSI_COLORS_256: canvas_mode = CHAFA_CANVAS_MODE_INDEXED_240; break;
        case SSI_COLORS_16:
            canvas_mode = CHAFA_CANVAS_MODE_INDEXED_16;
            dither = CHAFA_DITHER_MODE_ORDERED;
            break;
        case SSI_COLORS_NONE:
            // The symbols' shapes alone, in the default colours: ordered dithering of the
            // block symbols gives a ramp of greys.
            canvas_mode = CHAFA_CANVAS_MODE_FGBG;
            dither = CHAFA_DITHER_MODE_ORDERED;
            break;
        }
    }

    ChafaSymbolMap *symbols = chafa_symbol_map_new();
    chafa_symbol_map_add_by_tags(symbols, tags);
    ChafaCanvasConfig *config = chafa_canvas_config_new();
    chafa_canvas_config_set_geometry(config, columns, rows);
    chafa_canvas_config_set_cell_geometry(config, cell_width, cell_height);
    chafa_canvas_config_set_canvas_mode(config, canvas_mode);
    chafa_canvas_config_set_pixel_mode(config, pixel_mode == SSI_PIXELS_SIXEL ? CHAFA_PIXEL_MODE_SIXELS
                                               : pixel_mode == SSI_PIXELS_KITTY ? CHAFA_PIXEL_MODE_KITTY
                                                                                : CHAFA_PIXEL_MODE_SYMBOLS);
    chafa_canvas_config_set_dither_mode(config, dither);
    chafa_canvas_config_set_symbol_map(config, symbols);
    ChafaCanvas *canvas = chafa_canvas_new(config);
    // The fallback description knows every sequence (SGR in each colour depth, sixel, kitty);
    // which ones the terminal understands the caller decided when it chose the modes.
    ChafaTermInfo *term = chafa_term_db_get_fallback_info(chafa_term_db_get_default());
    int result = -1;
    if (canvas != NULL && term != NULL) {
        chafa_canvas_draw_all_pixels(canvas, CHAFA_PIXEL_RGBA8_UNASSOCIATED, rgba, width, height, width * 4);
        GString *printed = chafa_canvas_print(canvas, term);
        if (printed != NULL) {
            out->text = malloc(printed->len + 1);
            if (out->text != NULL) {
                memcpy(out->text, printed->str, printed->len);
                out->text[printed->len] = '\0';
                out->length = printed->len;
                out->columns = columns;
                out->rows = rows;
                result = 0;
            }
            g_string_free(printed, TRUE);
        }
    }
    if (term != NULL) chafa_term_info_unref(term);
    if (canvas != NULL) chafa_canvas_unref(canvas);
    chafa_canvas_config_unref(config);
    chafa_symbol_map_unref(symbols);
    return result;
}

void ssi_rendered_free(ssi_rendered *rendered) {
    if (rendered == NULL) return;
    free(rendered->text);
    rendered->text = NULL;
    rendered->length = 0;
}
