/*
 * libqrencode for `cards serve`'s and `cards qr`'s QR codes, loaded from the system's libqrencode.so.4
 * on first use.
 *
 * As CMicroHTTPD does for libmicrohttpd, the library is looked up with dlopen when a command first asks
 * for a QR code: linked, it would be loaded at every start of `cards` (start-up is a large part of a
 * one-card operation), and Debian ships no static archive of it to link into the static build.
 * qrencode.h gives the types, so each call is checked against the header.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <qrencode.h>

#include "lazy_qrencode.h"

static void *library;
static const char *load_error;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static QRcode *(*encode_data)(int, const unsigned char *, int, QRecLevel);
static void (*free_code)(QRcode *);

static void load(void) {
    library = dlopen("libqrencode.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        load_error = dlerror();
        return;
    }
    *(void **)(&encode_data) = dlsym(library, "QRcode_encodeData");
    *(void **)(&free_code) = dlsym(library, "QRcode_free");
    if (encode_data == NULL || free_code == NULL) {
        load_error = "libqrencode.so.4 lacks QRcode_encodeData or QRcode_free";
        library = NULL;
    }
}

int cards_qr_available(void) {
    pthread_once(&load_once, load);
    return library != NULL;
}

const char *cards_qr_load_error(void) {
    pthread_once(&load_once, load);
    return library == NULL ? load_error : NULL;
}

unsigned char *cards_qr_encode(const unsigned char *data, int length, int level, int *width, int *error_number) {
    *error_number = 0;
    *width = 0;
    if (!cards_qr_available()) {
        *error_number = ENOENT;
        return NULL;
    }
    if (length <= 0 || level < 0 || level > 3) {
        *error_number = EINVAL;
        return NULL;
    }
    errno = 0;
    /* Version 0: the smallest version that holds the data. Bytes (8-bit mode), so any UTF-8 text and
       any byte goes in unchanged, as QR readers expect of a URL or a vCard. */
    QRcode *code = encode_data(length, data, 0, (QRecLevel)level);
    if (code == NULL) {
        *error_number = errno != 0 ? errno : EINVAL;
        return NULL;
    }
    size_t count = (size_t)code->width * (size_t)code->width;
    unsigned char *modules = malloc(count);
    if (modules == NULL) {
        free_code(code);
        *error_number = ENOMEM;
        return NULL;
    }
    /* Bit 0 of each byte is the module's colour; the other bits say what part of the symbol it is. */
    for (size_t index = 0; index < count; index++) modules[index] = code->data[index] & 1;
    *width = code->width;
    free_code(code);
    return modules;
}

void cards_qr_free(unsigned char *modules) { free(modules); }
