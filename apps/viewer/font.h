/* A tiny 5x7 bitmap font (printable ASCII) for the viewer's status line and help, drawn straight into an RGBA
 * framebuffer: no font library needed. Each glyph sits in a 6x9 cell (one column and two rows of spacing). */
#ifndef VIEWER_FONT_H
#define VIEWER_FONT_H

#include <stdint.h>

#define FONT_GLYPH_W 5
#define FONT_GLYPH_H 7
#define FONT_CELL_W 6
#define FONT_CELL_H 9

/** Rows of the glyph of `c` (bit 4 = leftmost column, row 0 at the top); '?' for characters outside 32..126. */
const uint8_t *font_glyph(char c);
/** Width and height in pixels of `text` drawn at integer `scale` (lines split at '\n'). */
void font_measure(const char *text, int scale, int *width, int *height);
/** Draws `text` with its top-left corner at (x, y) into an RGBA image of w x h pixels (row 0 at the top), each set
 *  pixel a `scale` x `scale` block of colour `rgba` (alpha-blended). Pixels outside the image are skipped. */
void font_draw(uint8_t *pixels, int w, int h, int x, int y, const char *text, int scale, const uint8_t rgba[4]);
/** Blends a rectangle of colour `rgba` (alpha-blended) into the image, clipped to it. */
void font_fill_rect(uint8_t *pixels, int w, int h, int x, int y, int rw, int rh, const uint8_t rgba[4]);

#endif
