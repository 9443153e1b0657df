/*
 * items.h - the WPP item types of TMF files and how each is decoded.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_TMF_ITEMS_H
#define ETL_TMF_ITEMS_H

#include <stddef.h>
#include <stdint.h>

struct tmf_item_type {
	const char *name;
	uint8_t item;      /* enum tmf_item */
	uint16_t in_type;  /* enum etl_in_type */
	uint16_t out_type; /* enum etl_out_type */
	uint8_t size;      /* bytes of a fixed-size value, 0 for pointer-sized and variable ones */
	uint8_t length;    /* a binary of this many bytes (IPv6, MAC addresses), else 0 */
};

/* The type named name[0..len), or NULL. */
const struct tmf_item_type *etl__tmf_item_type(const char *name, size_t len);

#endif
