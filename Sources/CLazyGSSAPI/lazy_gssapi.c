/*
 * The GSSAPI functions libgit2 calls for Kerberos ("Negotiate") HTTP authentication, loading the
 * system's libgssapi_krb5.so.2 only when one is first called.
 *
 * Linked normally, that library and the five it needs (krb5, k5crypto, com_err, krb5support,
 * keyutils) are mapped and relocated at every start of `cards`, about 0.5 ms of a one-card command
 * that takes a few, for an authentication scheme almost no deck uses. Debian ships no static
 * archive for it. So libgit2's references resolve to these definitions, which dlopen the library on
 * first use and forward; without it, each returns GSS_S_FAILURE and libgit2 reports that the
 * authentication failed. Signatures as in RFC 2744 (all pointers and 32-bit integers), declared here
 * because the GSSAPI headers (libkrb5-dev) are not a build dependency.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "lazy_gssapi.h"

typedef uint32_t OM_uint32;

typedef struct {
    OM_uint32 length;
    void *elements;
} cards_gss_oid_desc;

#define CARDS_GSS_S_FAILURE (13u << 16)

/* GSS_C_NT_HOSTBASED_SERVICE, { 1 2 840 113554 1 2 1 4 }: libgit2 passes it to gss_import_name; the
   library compares name types by value, so our own copy of the OID serves. */
static cards_gss_oid_desc hostbased_service_oid = {10, (void *)"\x2a\x86\x48\x86\xf7\x12\x01\x02\x01\x04"};
/* Hidden, like the forwarders below: libgit2 is linked into the same executable and still finds
   them, but the dlopened library must bind its own internal references to its own definitions. */
__attribute__((visibility("hidden"))) cards_gss_oid_desc *GSS_C_NT_HOSTBASED_SERVICE = &hostbased_service_oid;

static void *library;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void) {
    library = dlopen("libgssapi_krb5.so.2", RTLD_NOW | RTLD_LOCAL);
}

static void *symbol(const char *name) {
    pthread_once(&load_once, load);
    return library ? dlsym(library, name) : NULL;
}

int cards_gssapi_available(void) {
    pthread_once(&load_once, load);
    return library != NULL;
}

int cards_gssapi_missing_functions(void) {
    static const char *const names[] = {
        "gss_init_sec_context", "gss_import_name",    "gss_release_name",        "gss_release_buffer",
        "gss_delete_sec_context", "gss_display_status", "gss_indicate_mechs", "gss_test_oid_set_member",
        "gss_release_oid_set",
    };
    if (!cards_gssapi_available()) return -1;
    int missing = 0;
    for (size_t index = 0; index < sizeof names / sizeof names[0]; index++) {
        if (symbol(names[index]) == NULL) missing++;
    }
    return missing;
}

/* On a missing library or function: failure, with a zero minor status. */
#define FORWARD(name, parameters, arguments)                          \
    __attribute__((visibility("hidden"))) OM_uint32 name parameters { \
        typedef OM_uint32(*function_type) parameters;                 \
        function_type function = (function_type)symbol(#name);        \
        if (function == NULL) {                                       \
            if (minor_status != NULL) *minor_status = 0;              \
            return CARDS_GSS_S_FAILURE;                               \
        }                                                             \
        return function arguments;                                    \
    }

FORWARD(gss_init_sec_context,
        (OM_uint32 *minor_status, void *claimant_credentials, void **context, void *target_name,
         void *mechanism, OM_uint32 requested_flags, OM_uint32 time_requested, void *channel_bindings,
         void *input_token, void **actual_mechanism, void *output_token, OM_uint32 *returned_flags,
         OM_uint32 *time_received),
        (minor_status, claimant_credentials, context, target_name, mechanism, requested_flags,
         time_requested, channel_bindings, input_token, actual_mechanism, output_token, returned_flags,
         time_received))
FORWARD(gss_import_name, (OM_uint32 *minor_status, void *name_buffer, void *name_type, void **output_name),
        (minor_status, name_buffer, name_type, output_name))
FORWARD(gss_release_name, (OM_uint32 *minor_status, void **name), (minor_status, name))
FORWARD(gss_release_buffer, (OM_uint32 *minor_status, void *buffer), (minor_status, buffer))
FORWARD(gss_delete_sec_context, (OM_uint32 *minor_status, void **context, void *output_token),
        (minor_status, context, output_token))
FORWARD(gss_display_status,
        (OM_uint32 *minor_status, OM_uint32 status_value, int status_type, void *mechanism,
         OM_uint32 *message_context, void *status_string),
        (minor_status, status_value, status_type, mechanism, message_context, status_string))
FORWARD(gss_indicate_mechs, (OM_uint32 *minor_status, void **mechanism_set), (minor_status, mechanism_set))
FORWARD(gss_test_oid_set_member, (OM_uint32 *minor_status, void *member, void *set, int *present),
        (minor_status, member, set, present))
FORWARD(gss_release_oid_set, (OM_uint32 *minor_status, void **set), (minor_status, set))
