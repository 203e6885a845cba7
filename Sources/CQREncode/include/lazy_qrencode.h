#ifndef CARDDECK_LAZY_QRENCODE_H
#define CARDDECK_LAZY_QRENCODE_H

#include <stddef.h>

/* libqrencode's one encoding call, through the system's libqrencode.so.4 loaded on first use
   (lazy_qrencode.c says why). qrencode.h stays out of this header: Swift sees only these functions. */

/* Whether libqrencode.so.4 could be loaded (and has every function used); loads it once. */
int cards_qr_available(void);

/* The dynamic loader's message when the library could not be loaded, or NULL. */
const char *cards_qr_load_error(void);

/* Encodes `length` bytes as a QR code of the smallest version that holds them at error-correction
   `level` (0 L, 1 M, 2 Q, 3 H). On success returns a malloc'd buffer of width × width bytes, row by
   row, 1 for a dark module and 0 for a light one, and sets *width; free it with cards_qr_free. On
   failure returns NULL with *error_number set: ERANGE when the data does not fit the largest code,
   EINVAL, ENOMEM, or ENOENT when the library could not be loaded. */
unsigned char *cards_qr_encode(const unsigned char *data, int length, int level, int *width, int *error_number);

/* Frees a buffer returned by cards_qr_encode. */
void cards_qr_free(unsigned char *modules);

#endif
