// ncursesw for Swift: the wide-character API, plus static inline wrappers for what Swift cannot
// import (function-like and expression macros, and the library's global variables, which Swift 6
// would treat as unsafe shared mutable state).
//
// SwiftPM drops the -D flags `pkg-config ncursesw` gives, so this header defines them itself.
#ifndef CCURSES_SHIM_H
#define CCURSES_SHIM_H

#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE 1
#endif
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif

#include <locale.h>
#include <stdio.h>
#include <wchar.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <ncursesw/curses.h>

// MARK: windows and sizes

static inline WINDOW *ccurses_stdscr(void) { return stdscr; }
static inline WINDOW *ccurses_curscr(void) { return curscr; }
static inline int ccurses_lines(void) { return LINES; }
static inline int ccurses_cols(void) { return COLS; }
static inline int ccurses_colors(void) { return COLORS; }
static inline int ccurses_color_pairs(void) { return COLOR_PAIRS; }
static inline int ccurses_maxy(WINDOW *w) { int y, x; getmaxyx(w, y, x); (void)x; return y; }
static inline int ccurses_maxx(WINDOW *w) { int y, x; getmaxyx(w, y, x); (void)y; return x; }

/// The terminal's size from the kernel (TIOCGWINSZ) on `fd`; 0 on success, -1 when unknown.
static inline int ccurses_window_size(int fd, int *rows, int *cols) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) != 0 || ws.ws_row == 0 || ws.ws_col == 0) return -1;
    *rows = ws.ws_row;
    *cols = ws.ws_col;
    return 0;
}

/// The terminal's size in pixels from the kernel (TIOCGWINSZ) on `fd`; 0 on success, -1 when
/// the terminal does not say.
static inline int ccurses_window_pixels(int fd, int *width, int *height) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) != 0 || ws.ws_xpixel == 0 || ws.ws_ypixel == 0) return -1;
    *width = ws.ws_xpixel;
    *height = ws.ws_ypixel;
    return 0;
}

/// Writes `length` bytes to stdout (the stream curses draws on) and flushes it: output that goes
/// past curses, such as pictures.
static inline void ccurses_write_raw(const char *bytes, size_t length) {
    fwrite(bytes, 1, length, stdout);
    fflush(stdout);
}

/// Starts curses on the process's stdout and stdin; NULL (instead of exiting, as `initscr` does)
/// when the terminal type is unknown.
static inline SCREEN *ccurses_newterm(void) { return newterm(NULL, stdout, stdin); }

// MARK: attributes and colours

static inline attr_t ccurses_a_normal(void) { return A_NORMAL; }
static inline attr_t ccurses_a_bold(void) { return A_BOLD; }
static inline attr_t ccurses_a_dim(void) { return A_DIM; }
static inline attr_t ccurses_a_reverse(void) { return A_REVERSE; }
static inline attr_t ccurses_a_underline(void) { return A_UNDERLINE; }
static inline int ccurses_color_pair(int n) { return (int)COLOR_PAIR(n); }

/// Fills `cell` with up to CCHARW_MAX wide characters (`text` is NUL-terminated), attributes and a
/// colour pair.
static inline int ccurses_setcchar(cchar_t *cell, const wchar_t *text, attr_t attrs, short pair) {
    return setcchar(cell, text, attrs, pair, NULL);
}
static inline int ccurses_cchar_max(void) { return CCHARW_MAX; }

// MARK: keys

static inline int ccurses_key_code_yes(void) { return KEY_CODE_YES; }
static inline int ccurses_key_f(int n) { return KEY_F(n); }
static inline int ccurses_key_f0(void) { return KEY_F0; }
static inline int ccurses_key_mouse(void) { return KEY_MOUSE; }
static inline int ccurses_key_resize(void) { return KEY_RESIZE; }
static inline int ccurses_err(void) { return ERR; }
static inline int ccurses_ok(void) { return OK; }

// MARK: mouse

static inline mmask_t ccurses_button1_pressed(void) { return BUTTON1_PRESSED; }
static inline mmask_t ccurses_button1_released(void) { return BUTTON1_RELEASED; }
static inline mmask_t ccurses_button1_clicked(void) { return BUTTON1_CLICKED; }
static inline mmask_t ccurses_button2_pressed(void) { return BUTTON2_PRESSED; }
static inline mmask_t ccurses_button2_released(void) { return BUTTON2_RELEASED; }
static inline mmask_t ccurses_button3_pressed(void) { return BUTTON3_PRESSED; }
static inline mmask_t ccurses_button3_released(void) { return BUTTON3_RELEASED; }
static inline mmask_t ccurses_button4_pressed(void) { return BUTTON4_PRESSED; }
static inline mmask_t ccurses_button5_pressed(void) { return BUTTON5_PRESSED; }
static inline mmask_t ccurses_all_mouse_events(void) { return ALL_MOUSE_EVENTS; }
static inline mmask_t ccurses_report_mouse_position(void) { return REPORT_MOUSE_POSITION; }

// MARK: width

/// wcwidth(3) of one code point in the current locale (-1: unprintable).
static inline int ccurses_wcwidth(unsigned int c) { return wcwidth((wchar_t)c); }

// MARK: terminfo (last: term.h defines lower-case macros such as `lines` and `columns`)

#include <ncursesw/term.h>

/// True once a terminal description is loaded (by `newterm` or `setupterm`), so `tigetstr` works.
static inline bool ccurses_has_terminal(void) { return cur_term != NULL; }

#endif
