#!/usr/bin/env python3
"""Screenshots of the real `stackscope` in tmux, rendered to PNG (Sources/CoreStack/CoreStack.docc/Reference/Architecture.md, "Testing and screenshots").

The binary runs in a private tmux server at a fixed size (120x36, TERM=xterm-256color,
LANG=C.UTF-8), is driven with `send-keys`, captured with `capture-pane -p -e -N` (without -N
full-width coloured bars are cut short) and the ANSI text is drawn with Pillow and DejaVu Sans
Mono, every glyph at its grid cell, wide characters taking two cells.

Needs: tmux, Pillow and the DejaVu fonts (Noto CJK and Noto Color Emoji draw wide glyphs and emoji):
    apt-get install tmux fonts-dejavu-core fonts-noto-cjk fonts-noto-color-emoji
    python3 -m pip install pillow

Usage:
    Scripts/screenshots.py --binary .build/debug/stackscope              # every scene below
    Scripts/screenshots.py --binary .build/debug/stackscope --scene main # one scene
    Scripts/screenshots.py --binary B --name demo --args "STORE" --steps "wait:Entities" "j" "Enter" "wait:Book"
    Scripts/screenshots.py --render capture.ans out.png                  # just render a capture

A step is a tmux key name or several separated by spaces ("j", "C-d", "Enter", "Escape"),
`text:...` (typed literally), `wait:TEXT` (poll the screen until TEXT appears, 15 s at most),
`sleep:SECONDS` (only where there is nothing to wait for), `resize:WxH`, or `sh:COMMAND` (a shell
command run beside the browser, e.g. another process writing to the store). In the scenes,
`{store}` stands for a demo store the script makes with `stackscope demo create`, `{cache}`
for an empty folder (for XDG_CACHE_HOME: `stackscope` with no store makes its demo store there),
`{recipes}` for a copy of Apple's Recipes sample store and `{coredataplus}` for one of
CoreDataPlus's sample stores (Tests/Fixtures/stores).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unicodedata

try:
    from PIL import Image, ImageDraw, ImageFont
except ImportError:  # pragma: no cover
    Image = ImageDraw = ImageFont = None

FONT_REGULAR = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
FONT_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"
# Fallback fonts for the glyphs DejaVu Sans Mono lacks (CJK, symbols): each glyph is drawn with
# the first font of these that has it (apt-get install fonts-noto-cjk). A glyph none of them has
# shows as the main font's missing-glyph box (as wide as its cells); the script warns once when no
# CJK font is there.
FALLBACK_FONTS = [
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansMonoCJK-Regular.ttc",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/noto/NotoSansSymbols2-Regular.ttf",
    "/usr/share/fonts/truetype/unifont/unifont.ttf",
]
# Colour emoji (apt-get install fonts-noto-color-emoji): a bitmap font, drawn at its one size and
# scaled into the two cells; without it emoji are drawn with the wide font above.
EMOJI_FONT = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"
EMOJI_SIZE = 109
FONT_SIZE = 15
WIDTH, HEIGHT = 120, 36

# A dark theme: default colours and the 16 palette colours (Tango-like, readable on dark).
DEFAULT_FG = (220, 220, 215)
DEFAULT_BG = (28, 30, 34)
PALETTE16 = [
    (46, 52, 54), (204, 0, 0), (78, 154, 6), (196, 160, 0),
    (52, 101, 164), (117, 80, 123), (6, 152, 154), (211, 215, 207),
    (85, 87, 83), (239, 41, 41), (138, 226, 52), (252, 233, 79),
    (114, 159, 207), (173, 127, 168), (52, 226, 226), (238, 238, 236),
]

# The scenes the README and the DocC articles show (Screenshots/, listed in UsingStackScope.md); each is (name, extra arguments for stackscope, steps) or
# (name, arguments, steps, environment variables for stackscope).
GENRE_SQL = (
    "BEGIN; INSERT INTO ZGENRE (Z_PK, Z_ENT, Z_OPT, ZNAME, ZCODE) "
    "SELECT Z_MAX + 1, Z_ENT, 1, '{name}', 99 FROM Z_PRIMARYKEY WHERE Z_NAME = 'Genre'; "
    "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + 1 WHERE Z_NAME = 'Genre'; COMMIT;"
)
# What the diff scene's copy of the store changes: a book's title and pages, a publisher's city,
# a chapter deleted, a genre added; and book 2's last chapter moved to the front (its chapters are
# an ordered relationship: their order column, Z_FOK_BOOK, renumbered).
DIFF_SQL = (
    "BEGIN; UPDATE ZBOOK SET ZTITLE = 'The Long Way Round', ZPAGES = 412 WHERE Z_PK = 1; "
    "UPDATE ZPUBLISHER SET ZCITY = 'Lisbon' WHERE Z_PK = 2; DELETE FROM ZCHAPTER WHERE Z_PK = 5; "
    "UPDATE ZCHAPTER SET Z_FOK_BOOK = CASE WHEN Z_FOK_BOOK = (SELECT MAX(Z_FOK_BOOK) FROM ZCHAPTER WHERE ZBOOK = 2) "
    "THEN (SELECT MIN(Z_FOK_BOOK) FROM ZCHAPTER WHERE ZBOOK = 2) - 1 ELSE Z_FOK_BOOK END WHERE ZBOOK = 2; COMMIT;"
)


def plist_sql():
    """SQL that puts a binary property list (written by Python's plistlib) in book 1's cover (the first row): the
    inspector-plist scene's value, with CJK and emoji in its strings."""
    import datetime
    import plistlib
    value = {
        "title": "日本語の庭", "subtitle": "L’Écume des jours 📚", "pages": 412, "rating": 4.5, "inPrint": True,
        "published": datetime.datetime(2019, 4, 12, 9, 30),
        "tags": ["漫画", "Essays", "Travel 🧳"],
        "chapters": [{"number": 1, "title": "始まり"}, {"number": 2, "title": "The Long Way Round"}],
        "thumbnail": bytes(range(48)),
    }
    data = plistlib.dumps(value, fmt=plistlib.FMT_BINARY)
    return f"UPDATE ZBOOK SET ZCOVER = X'{data.hex()}' WHERE Z_PK = 1;"
SCENES = [
    # The entities and objects panes on the demo library, the detail of the selected book.
    ("browser", ["{store}"], ["wait:Book · ", "j", "j", "sleep:0.3"]),
    # The detail pane focused, on a book's relationships, after following one to its objects.
    ("detail", ["{store}"], ["wait:Book · ", "j", "Enter", "wait:Book: ", "G", "k", "k", "k", "sleep:0.3"]),
    ("relationship", ["{store}"], ["wait:Book · ", "j", "Enter", "G", "k", "k", "Enter", "wait:genres", "sleep:0.3"]),
    # A filter with a parse error, its position marked.
    ("filter-error", ["{store}"], ["wait:Book · ", "f", "text:pages > 300 AND title BEGINSWITH[c] \"th", "sleep:0.3"]),
    # Sections by a sort key.
    ("sections", ["{store}"], ["wait:Book · ", "l", "l", "l", "l", "s", "sleep:0.5", "=", "sleep:0.5", "g", "wait:── 1 (", "sleep:0.3"]),
    # The saves pane after another process wrote to the store twice and R re-read it.
    ("saves", ["{store}"], [
        "wait:Book · ", "text::entity Genre", "Enter", "wait:Genre · ",
        "sh:sqlite3 '{store}' \"" + GENRE_SQL.format(name="Graphic Memoir") + "\"", "wait:Genre · 13",
        "sh:sqlite3 '{store}' \"" + GENRE_SQL.format(name="Cli-fi") + "\"", "wait:Genre · 14", "Tab", "Tab", "sleep:0.3"]),
    # The help screen, generated from the keymap.
    ("help", ["{store}"], ["wait:Book · ", "?", "wait:Help", "sleep:0.3"]),
    # The model view (m): the entities and the selected one's card.
    ("model-view", ["{store}"], ["wait:Book · ", "m", "wait:Model · 8 entities", "sleep:0.3"]),
    # The model view's drawing (Tab): Author with its parent above and what it is linked with below.
    ("model-drawing", ["{store}"], ["wait:Book · ", "m", "wait:Model · 8 entities", "text:Auth", "Tab", "wait:inherits from", "sleep:0.3"]),
    # The whole model drawn in layers (Tab twice), at Book.
    ("model-layers", ["{store}"], ["wait:Book · ", "m", "wait:Model · 8 entities", "Tab", "Tab", "wait:drawn in layers", "sleep:0.3"]),
    # Editing (issue 16). The attribute editor refusing a value the model's range does not allow.
    ("edit-refused", ["{store}"], [
        "wait:Book · ", "l l", "e", "wait:Edit Book", "C-u", "text:0", "Enter", "wait:below the minimum 1", "sleep:0.3"]),
    # The save preview after two attribute edits and a relationship linked by picking.
    ("save-preview", ["{store}"], [
        "wait:Book · ", "e", "wait:Edit Book", "C-u", "text:The Long Way Round", "Enter", "wait:title set in",
        "l l", "e", "wait:Edit Book", "C-u", "text:412", "Enter", "wait:pages set in",
        "Enter", "wait:publisher", "g", *["j"] * 12, "e", "wait:Pick a Publisher", "j j", "Enter", "wait:Linked",
        "W", "wait:Save scratch-1?", "sleep:0.3"]),
    # The saves pane after a save through a scratch child: scratch-1, main and root, the first expanded.
    ("saves-scratch", ["{store}"], [
        "wait:Book · ", "e", "wait:Edit Book", "C-u", "text:The Long Way Round", "Enter", "wait:title set in",
        "W", "wait:Save scratch-1?", "y", "wait:Saved scratch-1", "wait:root", "Tab Tab", "g", "Enter", "sleep:0.5"]),
    # Two sibling contexts edit one book; the second saves under objecttrump: the report per property.
    ("merge-result", ["{store}"], [
        "wait:Book · ", "text::ctx new sibling", "Enter", "wait:scratch-1 (sibling)",
        "e", "wait:Edit Book", "C-u", "text:Left Title", "Enter", "wait:title set in scratch-1",
        "l l", "e", "wait:Edit Book", "C-u", "text:321", "Enter", "wait:pages set in scratch-1",
        "text::ctx new sibling", "Enter", "wait:scratch-2 (sibling)",
        "h h", "e", "wait:Edit Book", "C-u", "text:Right Title", "Enter", "wait:title set in scratch-2",
        *["l"] * 6, "e", "wait:Edit Book", "C-u", "text:4.8", "Enter", "wait:rating set in scratch-2",
        "text::ctx scratch-1", "Enter", "wait:ctx scratch-1", "W", "wait:Save scratch-1?", "y", "wait:Saved scratch-1",
        "text::ctx scratch-2", "Enter", "wait:ctx scratch-2", "text::mergepolicy objecttrump", "Enter", "wait:objectTrump",
        "W", "wait:Save scratch-2?", "y", "wait:what won", "sleep:0.3"]),
    # The diff view (stackscope diff OLD NEW): a copy of the store changed with sqlite3 (DIFF_SQL),
    # the changed book's old and new values side by side.
    ("diff-view", ["diff", "{store}", "{after}"], ["wait:entities changed", "Enter", "Enter", "wait:≠ title", "sleep:0.3"]),
    # The same diff at book 2's chapters: the last one moved to the front, an order move (↕).
    ("diff-order", ["diff", "{store}", "{after}"], [
        "wait:entities changed", "Enter", "G", "wait:reordered", "Enter", "wait:old: Z_PK", "G", "wait:↕ chapters:", "sleep:0.3"]),
    # The store picker (stackscope DIR): the stores under a folder, the first selected.
    ("store-picker", ["{stores}"], ["wait:folders searched", "sleep:0.3"]),
    # Tables no model explains (added below by sqlite3) under "Other tables" in the entities pane.
    ("other-tables", ["{store}"], ["wait:Book · ", "BTab", "G", "k", "wait:settings", "sleep:0.3"]),
    # One of them browsed as plain rows (Enter), sorted by its term column (s).
    ("other-table-rows", ["{store}"], ["wait:Book · ", "BTab", "G", "k", "Enter", "wait:other table", "l", "s", "wait:term↑", "sleep:0.3"]),
    # The value inspector's picture of an image value: a thumbnail of Apple's Recipes sample (a
    # JPEG) in 24-bit colour ({recipes}: a copy of the fixture store).
    ("inspector-picture", ["{recipes}"], [
        "wait:[read-only]", "text::entity Image", "Enter", "wait:JPEG 728×486", "j", "Enter", "Enter",
        "wait:728 × 486 pixels", "sleep:0.5"], {"COLORTERM": "truecolor"}),
    # The value inspector on a keyed archive: a transformable cover of CoreDataPlus's sample store
    # (archived by Apple's NSKeyedArchiver), as a tree.
    ("inspector-archive", ["{coredataplus}"], [
        "wait:[read-only]", "text::entity GraphicNovel", "Enter", "wait:GraphicNovel · 1 object", "Enter", "j j j j j",
        "Enter", "wait:tree ─", "sleep:0.5"]),
    # The value inspector on a property list: book 1's cover replaced by a binary plist (plist_sql).
    ("inspector-plist", ["{store}"], [
        "wait:Book · ", "Enter", "Enter", "j j j j j j j j j j", "wait:plist dict", "Enter", "wait:tree ─", "sleep:0.5"]),
    # The reset demo: :corrupt on the demo store (stackscope with no store, its cache folder
    # elsewhere); the shared manager quarantines the damaged file and starts a fresh store.
    ("reset", [], [
        "wait:Book · ", "text::corrupt", "Enter", "wait:Damage the demo store?", "y", "wait:Corrupt: damaged",
        "Tab Tab", "G", "Enter", "sleep:0.5"], {"XDG_CACHE_HOME": "{cache}"}),
]


def xterm256(n):
    """The RGB of xterm colour n (0-255)."""
    if n < 16:
        return PALETTE16[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + 10 * (n - 232)
    return (v, v, v)


def char_width(ch):
    """Cells a character takes: 0 for combining marks and other zero-width ones, 2 for East
    Asian wide/fullwidth (CJK, most emoji), 1 otherwise."""
    if not ch:
        return 0
    cp = ord(ch[0])
    if cp in (0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF) or 0xFE00 <= cp <= 0xFE0F:
        return 0
    if unicodedata.combining(ch[0]) or unicodedata.category(ch[0]) in ("Mn", "Me", "Cf"):
        return 0
    if unicodedata.east_asian_width(ch[0]) in ("W", "F"):
        return 2
    if 0x1F300 <= cp <= 0x1FAFF:  # emoji, wide in terminals
        return 2
    return 1


class Attr:
    __slots__ = ("fg", "bg", "bold", "dim", "italic", "underline", "reverse")

    def __init__(self):
        self.reset()

    def reset(self):
        self.fg = None
        self.bg = None
        self.bold = self.dim = self.italic = self.underline = self.reverse = False

    def copy(self):
        a = Attr()
        for k in Attr.__slots__:
            setattr(a, k, getattr(self, k))
        return a


def apply_sgr(attr, params):
    """Updates attr from the parameters of one SGR sequence (ESC [ ... m)."""
    if not params:
        params = [0]
    i = 0
    while i < len(params):
        p = params[i]
        if p == 0:
            attr.reset()
        elif p == 1:
            attr.bold = True
        elif p == 2:
            attr.dim = True
        elif p == 3:
            attr.italic = True
        elif p == 4:
            attr.underline = True
        elif p == 7:
            attr.reverse = True
        elif p == 22:
            attr.bold = attr.dim = False
        elif p == 23:
            attr.italic = False
        elif p == 24:
            attr.underline = False
        elif p == 27:
            attr.reverse = False
        elif 30 <= p <= 37:
            attr.fg = PALETTE16[p - 30]
        elif p == 39:
            attr.fg = None
        elif 40 <= p <= 47:
            attr.bg = PALETTE16[p - 40]
        elif p == 49:
            attr.bg = None
        elif 90 <= p <= 97:
            attr.fg = PALETTE16[p - 90 + 8]
        elif 100 <= p <= 107:
            attr.bg = PALETTE16[p - 100 + 8]
        elif p in (38, 48) and i + 1 < len(params):
            target = "fg" if p == 38 else "bg"
            if params[i + 1] == 5 and i + 2 < len(params):
                setattr(attr, target, xterm256(params[i + 2] % 256))
                i += 2
            elif params[i + 1] == 2 and i + 4 < len(params):
                setattr(attr, target, tuple(max(0, min(255, v)) for v in params[i + 2:i + 5]))
                i += 4
        i += 1


CSI = re.compile(r"\x1b\[([0-9;:]*)([A-Za-z])")
OTHER_ESC = re.compile(r"\x1b[()][0-9A-Za-z]|\x1b[=>]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)")


def parse(text, width=WIDTH, height=HEIGHT):
    """The grid of a capture: rows of cells (char, attr, cells wide), None for the hidden half
    of a wide character."""
    grid = [[(" ", Attr(), 1) for _ in range(width)] for _ in range(height)]
    lines = text.split("\n")
    for y, line in enumerate(lines[:height]):
        attr = Attr()
        x = 0
        i = 0
        while i < len(line):
            ch = line[i]
            if ch == "\x1b":
                m = CSI.match(line, i)
                if m:
                    if m.group(2) == "m":
                        params = [int(p) if p else 0 for p in re.split("[;:]", m.group(1))] if m.group(1) else []
                        apply_sgr(attr, params)
                    i = m.end()
                    continue
                m = OTHER_ESC.match(line, i)
                i = m.end() if m else i + 1
                continue
            if ch == "\r":
                i += 1
                continue
            w = char_width(ch)
            if w == 0:
                # A combining mark joins the previous cell's character.
                if x > 0:
                    px = x - 1
                    if grid[y][px] is None and px > 0:
                        px -= 1
                    c, a, cw = grid[y][px]
                    grid[y][px] = (c + ch, a, cw)
                i += 1
                continue
            if x + w > width:
                break
            grid[y][x] = (ch, attr.copy(), w)
            if w == 2:
                grid[y][x + 1] = None
            x += w
            i += 1
    return grid


def render(text, out_path, width=WIDTH, height=HEIGHT, font_size=FONT_SIZE):
    """Draws a capture (`capture-pane -p -e -N`) to a PNG."""
    require_pillow()
    regular = ImageFont.truetype(FONT_REGULAR, font_size)
    bold = ImageFont.truetype(FONT_BOLD, font_size) if os.path.exists(FONT_BOLD) else regular
    fallbacks = [ImageFont.truetype(p, font_size) for p in FALLBACK_FONTS if os.path.exists(p)]
    emoji = None
    if os.path.exists(EMOJI_FONT):
        try:
            emoji = ImageFont.truetype(EMOJI_FONT, EMOJI_SIZE)
        except OSError:  # a FreeType without colour bitmap support
            warn_once("emoji", f"{EMOJI_FONT} cannot be loaded (FreeType without colour bitmaps): emoji are drawn with the fallback fonts")
    else:
        warn_once("emoji", "no colour emoji font (apt-get install fonts-noto-color-emoji): emoji are drawn with the fallback fonts, or as boxes")
    if not any("CJK" in p or "Fallback" in p or "wqy" in p for p in FALLBACK_FONTS if os.path.exists(p)):
        warn_once("cjk", "no CJK font (apt-get install fonts-noto-cjk): CJK characters are drawn as boxes")
    left, top, right, bottom = regular.getbbox("M")
    cell_w = round(regular.getlength("M"))
    ascent, descent = regular.getmetrics()
    cell_h = ascent + descent + 2
    pad = 12
    image = Image.new("RGB", (width * cell_w + 2 * pad, height * cell_h + 2 * pad), DEFAULT_BG)
    draw = ImageDraw.Draw(image)
    grid = parse(text, width, height)
    for y, row in enumerate(grid):
        for x, cell in enumerate(row):
            if cell is None:
                continue
            ch, a, w = cell
            fg = a.fg or DEFAULT_FG
            bg = a.bg or DEFAULT_BG
            if a.bold and a.fg in PALETTE16[:8]:
                fg = PALETTE16[PALETTE16.index(a.fg) + 8]  # bold brightens basic colours
            if a.reverse:
                fg, bg = bg, fg
            if a.dim:
                fg = tuple((f + b) // 2 for f, b in zip(fg, bg))
            px, py = pad + x * cell_w, pad + y * cell_h
            if bg != DEFAULT_BG:
                draw.rectangle([px, py, px + w * cell_w - 1, py + cell_h - 1], fill=bg)
            if ch.strip() and emoji and w == 2 and 0x1F000 <= ord(ch[0]) <= 0x1FAFF:
                paste_emoji(image, emoji, ch, px, py, w * cell_w, cell_h)
            elif ch.strip():
                main = bold if a.bold else regular
                font = next((f for f in [main] + fallbacks if has_glyph(f, ch)), main)
                glyph_w = font.getlength(ch)
                # Centre glyphs narrower or wider than their cells (wide ones get two).
                gx = px + max(0, (w * cell_w - glyph_w) / 2) if w == 2 else px
                # On the main font's baseline, whichever font draws it (fallbacks' ascents differ).
                draw.text((gx, py + 1 + ascent), ch, font=font, fill=fg, anchor="ls")
            if a.underline:
                draw.line([px, py + cell_h - 2, px + w * cell_w - 1, py + cell_h - 2], fill=fg)
    image.save(out_path)
    return out_path


_WARNED = set()


def warn_once(key, message):
    """Says `message` on standard error the first time `key` is warned about."""
    if key not in _WARNED:
        _WARNED.add(key)
        print(f"screenshots.py: warning: {message}", file=sys.stderr)


_GLYPHS = {}


def has_glyph(font, ch):
    """Whether `font` has a glyph for `ch` (its first code point): its drawing differs from the
    font's missing-glyph box (drawn for a private-use code point no font maps)."""
    key = (id(font), ch[0])
    if key not in _GLYPHS:
        def drawn(c):
            mask = font.getmask(c)
            return mask.size, bytes(mask)
        missing = _GLYPHS.setdefault((id(font), None), drawn("\U0010FFFD"))
        _GLYPHS[key] = drawn(ch[0]) != missing
    return _GLYPHS[key]


def paste_emoji(image, font, ch, px, py, cell_w, cell_h):
    """Draws a colour emoji at its font's size and pastes it, scaled to the cell's height and
    centred, at (px, py)."""
    left, top, right, bottom = font.getbbox(ch)
    glyph = Image.new("RGBA", (max(1, right - left), max(1, bottom - top)), (0, 0, 0, 0))
    ImageDraw.Draw(glyph).text((-left, -top), ch, font=font, embedded_color=True)
    size = cell_h - 2
    scale = min(size / glyph.height, cell_w / glyph.width)
    glyph = glyph.resize((max(1, round(glyph.width * scale)), max(1, round(glyph.height * scale))), Image.LANCZOS)
    image.paste(glyph, (px + (cell_w - glyph.width) // 2, py + (cell_h - glyph.height) // 2), glyph)


def require_pillow():
    if Image is None:
        sys.exit("screenshots.py needs Pillow: python3 -m pip install pillow")
    if not os.path.exists(FONT_REGULAR):
        sys.exit("screenshots.py needs DejaVu Sans Mono: apt-get install fonts-dejavu-core")


class Tmux:
    """A private tmux server running one command at a fixed size."""

    def __init__(self, command, width=WIDTH, height=HEIGHT, env=None):
        if not shutil.which("tmux"):
            sys.exit("screenshots.py needs tmux: apt-get install tmux")
        self.socket = "stackscope-shot-%d" % os.getpid()
        self.target = "shot"
        self.dir = tempfile.mkdtemp(prefix="stackscope-shot-")
        conf = os.path.join(self.dir, "tmux.conf")
        with open(conf, "w") as f:
            f.write("set -g default-terminal xterm-256color\nset -g status off\n"
                    "set -g remain-on-exit on\nset -sg escape-time 0\n"
                    "set -g default-size %dx%d\n" % (width, height))
        environment = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
        environment.update(env or {})
        assignments = " ".join("'%s=%s'" % (k, v.replace("'", "'\\''")) for k, v in sorted(environment.items()))
        self.run("-f", conf, "new-session", "-d", "-s", self.target, "-x", str(width), "-y", str(height),
                 "exec env %s %s" % (assignments, command))

    def run(self, *args):
        env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8")
        env.pop("TMUX", None)
        with tempfile.TemporaryFile() as out:  # not a pipe: the forked server keeps it open
            status = subprocess.call(["tmux", "-u", "-L", self.socket] + list(args), stdout=out,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
            out.seek(0)
            text = out.read().decode("utf-8", "replace")
        if status != 0:
            raise RuntimeError("tmux %s: %s" % (" ".join(args), text))
        return text

    def capture(self, escapes=True):
        return self.run("capture-pane", "-p", "-t", self.target, *(["-e", "-N"] if escapes else []))

    def wait_for(self, text, timeout=15.0):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if text in self.capture(escapes=False):
                return
            time.sleep(0.05)
        raise RuntimeError("timed out waiting for %r; the screen:\n%s" % (text, self.capture(False)))

    def step(self, step):
        if step.startswith("wait:"):
            self.wait_for(step[5:])
        elif step.startswith("sleep:"):
            time.sleep(float(step[6:]))
        elif step.startswith("text:"):
            self.run("send-keys", "-t", self.target, "-l", "--", step[5:])
        elif step.startswith("sh:"):
            subprocess.run(["sh", "-c", step[3:]], check=True)
        elif step.startswith("resize:"):
            w, h = step[7:].split("x")
            self.run("resize-window", "-t", self.target, "-x", w, "-y", h)
        else:
            self.run("send-keys", "-t", self.target, *step.split())

    def kill(self):
        try:
            self.run("kill-server")
        except RuntimeError:
            pass
        shutil.rmtree(self.dir, ignore_errors=True)


def shoot(binary, name, steps, args=(), out_dir="Screenshots", env=None, width=WIDTH, height=HEIGHT):
    """Runs `binary args` in tmux, plays `steps`, and writes OUT_DIR/NAME.png (and NAME.ans, the
    raw capture). Returns the PNG's path."""
    require_pillow()
    command = " ".join("'%s'" % a.replace("'", "'\\''") for a in [os.path.abspath(binary)] + list(args))
    tmux = Tmux(command, width, height, env)
    try:
        for s in steps:
            tmux.step(s)
        capture = tmux.capture(escapes=True)
    finally:
        tmux.kill()
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, name + ".ans"), "w") as f:
        f.write(capture)
    return render(capture, os.path.join(out_dir, name + ".png"), width, height)


# SQL run on a scene's demo store before stackscope opens it.
OTHER_TABLES_SQL = (
    "CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT); "
    "INSERT INTO settings VALUES ('theme', 'dark'), ('sync', 'on'); "
    "CREATE TABLE search_log (id INTEGER PRIMARY KEY, term TEXT, results BLOB); "
    "INSERT INTO search_log (term, results) VALUES ('dune', randomblob(300)), ('austen', NULL), ('le guin', X'00');"
)
PREPARE = {"other-tables": OTHER_TABLES_SQL, "other-table-rows": OTHER_TABLES_SQL, "inspector-plist": plist_sql()}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", help="the stackscope executable")
    parser.add_argument("--scene", action="append", help="only these scenes (default: all)")
    parser.add_argument("--name", help="an ad-hoc scene's name (with --steps)")
    parser.add_argument("--args", nargs="*", default=[], help="arguments for stackscope")
    parser.add_argument("--steps", nargs="*", help="an ad-hoc scene's steps")
    parser.add_argument("--out", default="Screenshots", help="output folder (default: Screenshots)")
    parser.add_argument("--render", nargs=2, metavar=("CAPTURE", "PNG"), help="render a saved capture")
    opts = parser.parse_args()
    if opts.render:
        with open(opts.render[0], encoding="utf-8") as f:
            print(render(f.read(), opts.render[1]))
        return
    if not opts.binary:
        parser.error("--binary is required")
    if opts.name:
        print(shoot(opts.binary, opts.name, opts.steps or [], opts.args, opts.out))
        return
    # A short, fixed path: it shows in the browser's title bar.
    store_dir = "/tmp/stackscope-screens"
    shutil.rmtree(store_dir, ignore_errors=True)
    os.makedirs(store_dir)
    try:
        for scene in SCENES:
            name, args, steps = scene[:3]
            env = dict(scene[3]) if len(scene) > 3 else {}
            if opts.scene and name not in opts.scene:
                continue
            # A fresh demo store per scene, so what one scene writes does not show in the next.
            store = os.path.join(store_dir, "library.sqlite")
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(store + suffix):
                    os.remove(store + suffix)
            subprocess.run([os.path.abspath(opts.binary), "demo", "create", store], check=True, stdout=subprocess.DEVNULL)
            if name in PREPARE:
                subprocess.run(["sqlite3", store, PREPARE[name]], check=True)
            cache = os.path.join(store_dir, "cache")
            shutil.rmtree(cache, ignore_errors=True)
            os.makedirs(cache)

            fixture_stores = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures", "stores")
            recipes = os.path.join(store_dir, "Recipes.sqlite")
            shutil.copyfile(os.path.join(fixture_stores, "apple-iPhoneCoreDataRecipes-2018", "Recipes.sqlite"), recipes)
            coredataplus = os.path.join(store_dir, "SampleModel2.sqlite")
            shutil.copyfile(os.path.join(fixture_stores, "alemar11-CoreDataPlus", "SampleModel2_V1.sqlite"), coredataplus)

            # The diff scene's changed copy, and the picker scene's folder of stores.
            after = os.path.join(store_dir, "after.sqlite")
            stores = os.path.join(store_dir, "stores")
            if any("{after}" in a or "{stores}" in a for a in args):
                for path in (after,):
                    if os.path.exists(path):
                        os.remove(path)
                shutil.copyfile(store, after)
                subprocess.run(["sqlite3", after, DIFF_SQL], check=True)
                subprocess.run(["sqlite3", after, GENRE_SQL.format(name="Solarpunk")], check=True)
                shutil.rmtree(stores, ignore_errors=True)
                os.makedirs(os.path.join(stores, "backups"))
                shutil.copyfile(store, os.path.join(stores, "Library.sqlite"))
                shutil.copyfile(after, os.path.join(stores, "backups", "Library before QA.sqlite"))
                fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures", "stores")
                for fixture in ("apple-iPhoneCoreDataRecipes-2018/Recipes.sqlite",
                             "wibosco-CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite",
                             "wibosco-CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite-wal"):
                    shutil.copyfile(os.path.join(fixtures, fixture), os.path.join(stores, os.path.basename(fixture)))

            def fill(text):
                return text.replace("{store}", store).replace("{cache}", cache).replace("{after}", after).replace("{stores}", stores).replace("{recipes}", recipes).replace("{coredataplus}", coredataplus)

            args = [fill(a) for a in args]
            steps = [fill(st) for st in steps]
            env = {k: fill(v) for k, v in env.items()}
            print(shoot(opts.binary, name, steps, args, opts.out, env=env))
        # The demo model drawn by Graphviz from `stackscope model --format dot` (when dot is installed).
        if not opts.scene or "model-dot" in opts.scene:
            if shutil.which("dot"):
                store = os.path.join(store_dir, "model.sqlite")
                subprocess.run([os.path.abspath(opts.binary), "demo", "create", store, "--size", "40"], check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                dot = subprocess.run([os.path.abspath(opts.binary), "model", store, "--format", "dot"], check=True,
                                     capture_output=True).stdout
                out = os.path.join(opts.out, "model-dot.png")
                subprocess.run(["dot", "-Tpng", "-Gdpi=80", "-o", out], input=dot, check=True)
                print(out)
            else:
                print("model-dot.png skipped: Graphviz's dot is not installed", file=sys.stderr)
    finally:
        shutil.rmtree(store_dir, ignore_errors=True)

if __name__ == "__main__":
    main()
