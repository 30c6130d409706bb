// The scene's third back end, beside the window's (draw_sdl.c) and the SVG slides' (svg.c): pages
// of a PDF drawn with cairo's PDF surface. Text stays text: shaped with HarfBuzz in the same TTF
// files the window uses (DejaVu, then the system's fonts for the characters it lacks), embedded as
// subsets, so a reader finds and copies every number. Writes into memory; no SDL and no files.
#ifndef MHA_PDF_H
#define MHA_PDF_H

#include <stdbool.h>
#include <stddef.h>
#include "render/scene.h"

typedef struct PdfDoc PdfDoc;

// Opens a document whose fonts come from font_dir (DejaVuSans.ttf, DejaVuSans-Bold.ttf,
// DejaVuSansMono.ttf) and the system's (fontfind.h); title and subject go into its information
// (NULL: none). No creation date is written, so the same pages give the same bytes. NULL with msg
// filled (cap bytes) when a font or cairo fails. Free with pdf_close.
PdfDoc *pdf_open(const char *font_dir, const char *title, const char *subject, char *msg,
                 size_t cap);
void pdf_close(PdfDoc *d);

// Starts page pdf_page_count() + 1, w x h points, labelled label in a reader's page list (NULL or
// "": its number). Every page begun is ended with pdf_page_end.
bool pdf_page_begin(PdfDoc *d, double w, double h, const char *label);
// Draws scene s with its top-left at (x, y) points, k points a scene pixel, clipped to its size.
bool pdf_draw_scene(PdfDoc *d, const Scene *s, double x, double y, double k);
bool pdf_page_end(PdfDoc *d);
// Pages ended so far.
int pdf_page_count(const PdfDoc *d);

// A bookmark in the reader's outline to page (from 1), under parent (0: the top level); returns its
// id, a parent for others.
int pdf_outline(PdfDoc *d, int parent, const char *title, int page);

// Ends the document: *data (malloc'd, free it) and *size hold the PDF, which carries our mark
// (pdf_is_ours). False with msg filled when cairo failed or memory ran out.
bool pdf_finish(PdfDoc *d, unsigned char **data, size_t *size, char *msg, size_t cap);

// A PDF of ours, from its first bytes (head, hn) and its last (tail, tn): a PDF header, and our
// mark in the trailer just before its end.
bool pdf_is_ours(const unsigned char *head, size_t hn, const unsigned char *tail, size_t tn);

// The first character no font on this computer showed, as a sentence ("" when every one had one).
const char *pdf_missing(PdfDoc *d);

#endif
