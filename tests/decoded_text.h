/*
 * decoded_text.h - the whole of what etl_reader_decode() says about an event,
 * as one text, for tests that compare two decodings.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef DECODED_TEXT_H
#define DECODED_TEXT_H

#include <etl.h>

/* Decodes ev with r and writes the status, the error (message and offset) when there is one,
 * the names, the source, the reason, the trailing bytes and every property's text; malloc'd
 * (the caller frees it), NULL without memory. */
char *decoded_text(struct etl_reader *r, const struct etl_event *ev);

#endif
