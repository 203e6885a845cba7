/*
 * The libssh2 functions libgit2's SSH transport calls, loading the system's libssh2.so.1 only when
 * an SSH session is first made (a connection to an ssh:// remote).
 *
 * Linked in statically, libssh2 brings OpenSSL's libcrypto with it: ~16,600 relocations on ~85
 * pages of data that every start of `cards` applied and faulted in, ~0.3 ms of a one-card command
 * that takes a few, for a transport most commands never touch. So libgit2's references resolve to
 * these definitions, which dlopen the library (and, through it, libcrypto) on first use and forward.
 * libgit2 calls libssh2_init when it sets up its transports, before any connection (over HTTPS too):
 * that call is only noted, and made on the library once it is loaded. Without the library each
 * function fails as libssh2 fails (an error code, or NULL), and GitCore names what is missing.
 * Parameters as in libssh2.h (1.10): its structs and callbacks are passed through as opaque
 * pointers, which the x86-64 and AArch64 calling conventions pass alike.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/types.h>

#include "lazy_ssh2.h"

static void *library;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/* libssh2_init as libgit2 asked for it, made on the library once loaded; under `init_lock`. */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static int init_requested;
static int init_flags;
static int initialised;

static void load(void) {
    library = dlopen("libssh2.so.1", RTLD_NOW | RTLD_LOCAL);
}

/* The real libssh2_init, with the flags libgit2 gave, once the library is loaded and was asked for. */
static void initialise_if_requested(void) {
    pthread_mutex_lock(&init_lock);
    if (library != NULL && init_requested && !initialised) {
        int (*init)(int) = (int (*)(int))dlsym(library, "libssh2_init");
        if (init != NULL && init(init_flags) == 0) initialised = 1;
    }
    pthread_mutex_unlock(&init_lock);
}

/* A function of the library, loading it (and making the initialisation libgit2 asked for) first. */
static void *symbol(const char *name) {
    pthread_once(&load_once, load);
    if (library == NULL) return NULL;
    initialise_if_requested();
    return dlsym(library, name);
}

int cards_ssh2_available(void) {
    pthread_once(&load_once, load);
    return library != NULL;
}

static const char *const forwarded[] = {
    "libssh2_agent_connect", "libssh2_agent_disconnect", "libssh2_agent_free", "libssh2_agent_get_identity",
    "libssh2_agent_init", "libssh2_agent_list_identities", "libssh2_agent_userauth", "libssh2_channel_close",
    "libssh2_channel_free", "libssh2_channel_open_ex", "libssh2_channel_process_startup", "libssh2_channel_read_ex",
    "libssh2_channel_set_blocking", "libssh2_channel_write_ex", "libssh2_exit", "libssh2_hostkey_hash",
    "libssh2_init", "libssh2_knownhost_checkp", "libssh2_knownhost_free", "libssh2_knownhost_init",
    "libssh2_knownhost_readfile", "libssh2_session_abstract", "libssh2_session_disconnect_ex",
    "libssh2_session_free", "libssh2_session_handshake", "libssh2_session_hostkey", "libssh2_session_init_ex",
    "libssh2_session_last_error", "libssh2_session_method_pref", "libssh2_session_set_blocking",
    "libssh2_userauth_authenticated", "libssh2_userauth_keyboard_interactive_ex", "libssh2_userauth_list",
    "libssh2_userauth_password_ex", "libssh2_userauth_publickey", "libssh2_userauth_publickey_fromfile_ex",
    "libssh2_userauth_publickey_frommemory",
};

int cards_ssh2_missing_functions(void) {
    if (!cards_ssh2_available()) return -1;
    int missing = 0;
    for (size_t index = 0; index < sizeof forwarded / sizeof forwarded[0]; index++) {
        if (dlsym(library, forwarded[index]) == NULL) missing++;
    }
    return missing;
}

/* libssh2's error codes: LIBSSH2_ERROR_SOCKET_NONE, what a call that cannot be made reports. */
#define CARDS_SSH2_FAILURE (-1)

typedef void (*callback)(void);

/* Hidden: libgit2 is linked into the same executable and still finds them, but the dlopened library
   must bind its own internal calls to its own definitions. */
/* Set (from a signal handler) when CARDS_NETWORK_TIMEOUT ran out: every call then fails at once, since
   libgit2 calls the handshake and authentication again as long as libssh2 says it timed out. */
static volatile sig_atomic_t stalled = 0;

void cards_ssh2_set_stalled(int value) { stalled = value; }

#define FORWARD(type, name, parameters, arguments, failure)       \
    __attribute__((visibility("hidden"))) type name parameters {  \
        typedef type(*function_type) parameters;                  \
        if (stalled) return failure;                              \
        function_type function = (function_type)symbol(#name);    \
        if (function == NULL) return failure;                     \
        return function arguments;                                \
    }

#define FORWARD_VOID(name, parameters, arguments)                 \
    __attribute__((visibility("hidden"))) void name parameters {  \
        typedef void (*function_type) parameters;                 \
        function_type function = (function_type)symbol(#name);    \
        if (function != NULL) function arguments;                 \
    }

/* Noted, not made: see the top of this file. */
__attribute__((visibility("hidden"))) int libssh2_init(int flags) {
    pthread_mutex_lock(&init_lock);
    init_requested = 1;
    init_flags = flags;
    pthread_mutex_unlock(&init_lock);
    return 0;
}

/* Only a library that was loaded and initialised has anything to end. */
__attribute__((visibility("hidden"))) void libssh2_exit(void) {
    pthread_mutex_lock(&init_lock);
    if (initialised) {
        void (*end)(void) = (void (*)(void))dlsym(library, "libssh2_exit");
        if (end != NULL) end();
        initialised = 0;
    }
    init_requested = 0;
    pthread_mutex_unlock(&init_lock);
}

/* The blocking timeout new sessions get, in milliseconds (0: none), for CARDS_NETWORK_TIMEOUT: libgit2 1.5
   sets none, and libssh2 retries a read a signal interrupted. */
static volatile long session_timeout = 0;

void cards_ssh2_set_timeout(long milliseconds) { session_timeout = milliseconds; }

__attribute__((visibility("hidden"))) void *libssh2_session_init_ex(
    callback my_alloc, callback my_free, callback my_realloc, void *abstract) {
    typedef void *(*init_type)(callback, callback, callback, void *);
    init_type init = (init_type)symbol("libssh2_session_init_ex");
    if (init == NULL) return NULL;
    void *session = init(my_alloc, my_free, my_realloc, abstract);
    long timeout = session_timeout;
    if (session != NULL && timeout > 0) {
        void (*set_timeout)(void *, long) = (void (*)(void *, long))symbol("libssh2_session_set_timeout");
        if (set_timeout != NULL) set_timeout(session, timeout);
    }
    return session;
}
FORWARD(void **, libssh2_session_abstract, (void *session), (session), NULL)
FORWARD(int, libssh2_session_handshake, (void *session, int socket), (session, socket), CARDS_SSH2_FAILURE)
FORWARD(int, libssh2_session_disconnect_ex, (void *session, int reason, const char *description, const char *lang),
        (session, reason, description, lang), CARDS_SSH2_FAILURE)
FORWARD(int, libssh2_session_free, (void *session), (session), CARDS_SSH2_FAILURE)
FORWARD(const char *, libssh2_session_hostkey, (void *session, size_t *length, int *type), (session, length, type),
        NULL)
FORWARD(int, libssh2_session_method_pref, (void *session, int method_type, const char *prefs),
        (session, method_type, prefs), CARDS_SSH2_FAILURE)
FORWARD_VOID(libssh2_session_set_blocking, (void *session, int blocking), (session, blocking))
FORWARD(const char *, libssh2_hostkey_hash, (void *session, int hash_type), (session, hash_type), NULL)

static const char unavailable[] = "libssh2.so.1 could not be loaded (install libssh2-1)";

/* Without the library there is no session to ask: the message says why. */
__attribute__((visibility("hidden"))) int libssh2_session_last_error(void *session, char **message, int *length,
                                                                     int want_buffer) {
    typedef int (*function_type)(void *, char **, int *, int);
    function_type function = (function_type)symbol("libssh2_session_last_error");
    if (function != NULL) return function(session, message, length, want_buffer);
    if (message != NULL) *message = want_buffer ? strdup(unavailable) : (char *)unavailable;
    if (length != NULL) *length = (int)(sizeof unavailable - 1);
    return CARDS_SSH2_FAILURE;
}

FORWARD(void *, libssh2_channel_open_ex,
        (void *session, const char *channel_type, unsigned int channel_type_length, unsigned int window_size,
         unsigned int packet_size, const char *message, unsigned int message_length),
        (session, channel_type, channel_type_length, window_size, packet_size, message, message_length), NULL)
FORWARD(int, libssh2_channel_process_startup,
        (void *channel, const char *request, unsigned int request_length, const char *message,
         unsigned int message_length),
        (channel, request, request_length, message, message_length), CARDS_SSH2_FAILURE)
FORWARD(ssize_t, libssh2_channel_read_ex, (void *channel, int stream_id, char *buffer, size_t length),
        (channel, stream_id, buffer, length), CARDS_SSH2_FAILURE)
FORWARD(ssize_t, libssh2_channel_write_ex, (void *channel, int stream_id, const char *buffer, size_t length),
        (channel, stream_id, buffer, length), CARDS_SSH2_FAILURE)
FORWARD_VOID(libssh2_channel_set_blocking, (void *channel, int blocking), (channel, blocking))
FORWARD(int, libssh2_channel_close, (void *channel), (channel), CARDS_SSH2_FAILURE)
FORWARD(int, libssh2_channel_free, (void *channel), (channel), CARDS_SSH2_FAILURE)

FORWARD(void *, libssh2_knownhost_init, (void *session), (session), NULL)
FORWARD(int, libssh2_knownhost_readfile, (void *hosts, const char *filename, int type), (hosts, filename, type),
        CARDS_SSH2_FAILURE)
FORWARD(int, libssh2_knownhost_checkp,
        (void *hosts, const char *host, int port, const char *key, size_t key_length, int type_mask, void **found),
        (hosts, host, port, key, key_length, type_mask, found), CARDS_SSH2_FAILURE)
FORWARD_VOID(libssh2_knownhost_free, (void *hosts), (hosts))

FORWARD(void *, libssh2_agent_init, (void *session), (session), NULL)
FORWARD(int, libssh2_agent_connect, (void *agent), (agent), CARDS_SSH2_FAILURE)
FORWARD(int, libssh2_agent_list_identities, (void *agent), (agent), CARDS_SSH2_FAILURE)
FORWARD(int, libssh2_agent_get_identity, (void *agent, void **store, void *previous), (agent, store, previous),
        CARDS_SSH2_FAILURE)
FORWARD(int, libssh2_agent_userauth, (void *agent, const char *username, void *identity),
        (agent, username, identity), CARDS_SSH2_FAILURE)
FORWARD(int, libssh2_agent_disconnect, (void *agent), (agent), CARDS_SSH2_FAILURE)
FORWARD_VOID(libssh2_agent_free, (void *agent), (agent))

FORWARD(char *, libssh2_userauth_list, (void *session, const char *username, unsigned int username_length),
        (session, username, username_length), NULL)
FORWARD(int, libssh2_userauth_authenticated, (void *session), (session), 0)
FORWARD(int, libssh2_userauth_password_ex,
        (void *session, const char *username, unsigned int username_length, const char *password,
         unsigned int password_length, callback change_request),
        (session, username, username_length, password, password_length, change_request), CARDS_SSH2_FAILURE)
FORWARD(int, libssh2_userauth_keyboard_interactive_ex,
        (void *session, const char *username, unsigned int username_length, callback response),
        (session, username, username_length, response), CARDS_SSH2_FAILURE)
FORWARD(int, libssh2_userauth_publickey,
        (void *session, const char *username, const unsigned char *key, size_t key_length, callback sign,
         void **abstract),
        (session, username, key, key_length, sign, abstract), CARDS_SSH2_FAILURE)
FORWARD(int, libssh2_userauth_publickey_fromfile_ex,
        (void *session, const char *username, unsigned int username_length, const char *public_key,
         const char *private_key, const char *passphrase),
        (session, username, username_length, public_key, private_key, passphrase), CARDS_SSH2_FAILURE)
FORWARD(int, libssh2_userauth_publickey_frommemory,
        (void *session, const char *username, size_t username_length, const char *public_key, size_t public_length,
         const char *private_key, size_t private_length, const char *passphrase),
        (session, username, username_length, public_key, public_length, private_key, private_length, passphrase),
        CARDS_SSH2_FAILURE)
