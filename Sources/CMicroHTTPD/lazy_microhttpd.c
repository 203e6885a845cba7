/*
 * libmicrohttpd for `cards serve`, loaded from the system's libmicrohttpd.so.12 on first use.
 *
 * Linked as a shared library, it would be loaded at every start of `cards`, with GnuTLS and the
 * ten libraries GnuTLS needs (`ldd libmicrohttpd.so.12`), for the one command that serves; its static
 * archive needs GnuTLS's, which Debian does not ship. As CLazySSH2 does for libssh2, the functions
 * are looked up with dlsym when `serve` first asks, and every other command never loads them.
 * microhttpd.h gives the types and option constants, so each call is checked against the header.
 */
#include <sys/types.h>
#include <sys/select.h>
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "lazy_microhttpd.h"

static void *library;
static const char *load_error;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static struct MHD_Daemon *(*start_daemon)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *,
                                          MHD_AccessHandlerCallback, void *, ...);
static void (*stop_daemon)(struct MHD_Daemon *);
static const union MHD_DaemonInfo *(*get_daemon_info)(struct MHD_Daemon *, enum MHD_DaemonInfoType, ...);
static const char *(*lookup_value)(struct MHD_Connection *, enum MHD_ValueKind, const char *);
static int (*get_values)(struct MHD_Connection *, enum MHD_ValueKind, MHD_KeyValueIterator, void *);
static struct MHD_Response *(*response_from_buffer)(size_t, void *, enum MHD_ResponseMemoryMode);
static struct MHD_Response *(*response_from_callback)(uint64_t, size_t, MHD_ContentReaderCallback, void *,
                                                      MHD_ContentReaderFreeCallback);
static enum MHD_Result (*add_header)(struct MHD_Response *, const char *, const char *);
static enum MHD_Result (*queue_response)(struct MHD_Connection *, unsigned int, struct MHD_Response *);
static void (*destroy_response)(struct MHD_Response *);

#define LOOK_UP(variable, name)                                   \
    do {                                                          \
        *(void **)(&variable) = dlsym(library, name);             \
        if (variable == NULL) {                                   \
            load_error = "libmicrohttpd.so.12 lacks " name;       \
            library = NULL;                                       \
            return;                                               \
        }                                                         \
    } while (0)

static void load(void) {
    library = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        load_error = dlerror();
        return;
    }
    LOOK_UP(start_daemon, "MHD_start_daemon");
    LOOK_UP(stop_daemon, "MHD_stop_daemon");
    LOOK_UP(get_daemon_info, "MHD_get_daemon_info");
    LOOK_UP(lookup_value, "MHD_lookup_connection_value");
    LOOK_UP(get_values, "MHD_get_connection_values");
    LOOK_UP(response_from_buffer, "MHD_create_response_from_buffer");
    LOOK_UP(response_from_callback, "MHD_create_response_from_callback");
    LOOK_UP(add_header, "MHD_add_response_header");
    LOOK_UP(queue_response, "MHD_queue_response");
    LOOK_UP(destroy_response, "MHD_destroy_response");
}

int cards_http_available(void) {
    pthread_once(&load_once, load);
    return library != NULL;
}

const char *cards_http_load_error(void) {
    pthread_once(&load_once, load);
    return library == NULL ? load_error : NULL;
}

/* The Swift handler and its context, kept by the daemon for its lifetime. */
struct handler {
    cards_http_access access;
    cards_http_completed completed;
    void *context;
};

static enum MHD_Result access_trampoline(void *cls, struct MHD_Connection *connection, const char *url,
                                         const char *method, const char *version, const char *upload,
                                         size_t *upload_size, void **request_state) {
    (void)version;
    struct handler *handler = cls;
    return handler->access(handler->context, connection, url, method, upload, upload_size, request_state)
               ? MHD_YES
               : MHD_NO;
}

static void completed_trampoline(void *cls, struct MHD_Connection *connection, void **request_state,
                                 enum MHD_RequestTerminationCode code) {
    (void)connection;
    (void)code;
    struct handler *handler = cls;
    if (*request_state != NULL) handler->completed(handler->context, request_state);
}

/* A daemon and the handler its callbacks are given, freed together by cards_http_stop. */
struct cards_http_daemon {
    struct MHD_Daemon *daemon;
    struct handler handler;
};

struct cards_http_daemon *cards_http_start(const char *address, uint16_t port, cards_http_access access,
                                    cards_http_completed completed, void *context, size_t memory_limit,
                                    unsigned connection_limit, unsigned per_ip_limit,
                                    unsigned timeout_seconds, int *error_number) {
    *error_number = 0;
    if (!cards_http_available()) {
        *error_number = ENOENT;
        return NULL;
    }
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    struct sockaddr *socket_address;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION;
    memset(&v4, 0, sizeof v4);
    memset(&v6, 0, sizeof v6);
    if (inet_pton(AF_INET, address, &v4.sin_addr) == 1) {
        v4.sin_family = AF_INET;
        v4.sin_port = htons(port);
        socket_address = (struct sockaddr *)&v4;
    } else if (inet_pton(AF_INET6, address, &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons(port);
        socket_address = (struct sockaddr *)&v6;
        flags |= MHD_USE_IPv6;
    } else {
        *error_number = EINVAL;
        return NULL;
    }
    struct cards_http_daemon *made = calloc(1, sizeof *made);
    if (made == NULL) {
        *error_number = ENOMEM;
        return NULL;
    }
    struct handler *handler = &made->handler;
    handler->access = access;
    handler->completed = completed;
    handler->context = context;
    errno = 0;
    struct MHD_Daemon *daemon = start_daemon(
        flags, port, NULL, NULL, access_trampoline, handler, MHD_OPTION_SOCK_ADDR, socket_address,
        MHD_OPTION_NOTIFY_COMPLETED, completed_trampoline, handler, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        memory_limit, MHD_OPTION_CONNECTION_LIMIT, connection_limit, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
        per_ip_limit, MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds, MHD_OPTION_END);
    if (daemon == NULL) {
        *error_number = errno != 0 ? errno : EIO;
        free(made);
        return NULL;
    }
    made->daemon = daemon;
    return made;
}

uint16_t cards_http_port(struct cards_http_daemon *daemon) {
    const union MHD_DaemonInfo *info = get_daemon_info(daemon->daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

void cards_http_stop(struct cards_http_daemon *daemon) {
    stop_daemon(daemon->daemon);
    free(daemon);
}

const char *cards_http_header(struct MHD_Connection *connection, const char *name) {
    return lookup_value(connection, MHD_HEADER_KIND, name);
}

const char *cards_http_query(struct MHD_Connection *connection, const char *name) {
    return lookup_value(connection, MHD_GET_ARGUMENT_KIND, name);
}

struct header_count {
    const char *name;
    int count;
};

static enum MHD_Result count_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    (void)value;
    struct header_count *count = cls;
    if (key != NULL && strcasecmp(key, count->name) == 0) count->count++;
    return MHD_YES;
}

int cards_http_header_count(struct MHD_Connection *connection, const char *name) {
    struct header_count count = {name, 0};
    get_values(connection, MHD_HEADER_KIND, count_header, &count);
    return count.count;
}

static int queue(struct MHD_Connection *connection, unsigned status, struct MHD_Response *response,
                 const char *const *headers) {
    for (const char *const *pair = headers; pair != NULL && pair[0] != NULL && pair[1] != NULL; pair += 2) {
        add_header(response, pair[0], pair[1]);
    }
    enum MHD_Result queued = queue_response(connection, status, response);
    destroy_response(response);
    return queued == MHD_YES;
}

int cards_http_respond(struct MHD_Connection *connection, unsigned status, const void *body, size_t length,
                       const char *const *headers) {
    struct MHD_Response *response = response_from_buffer(length, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (response == NULL) return 0;
    return queue(connection, status, response, headers);
}

struct stream {
    cards_http_reader reader;
    cards_http_reader_free free_reader;
    void *context;
};

static ssize_t stream_read(void *cls, uint64_t position, char *buffer, size_t capacity) {
    (void)position;
    struct stream *stream = cls;
    long length = stream->reader(stream->context, buffer, capacity);
    return length < 0 ? MHD_CONTENT_READER_END_OF_STREAM : (ssize_t)length;
}

static void stream_free(void *cls) {
    struct stream *stream = cls;
    stream->free_reader(stream->context);
    free(stream);
}

int cards_http_respond_stream(struct MHD_Connection *connection, unsigned status, cards_http_reader reader,
                              void *reader_context, cards_http_reader_free free_reader,
                              const char *const *headers) {
    struct stream *stream = malloc(sizeof *stream);
    if (stream == NULL) {
        free_reader(reader_context);
        return 0;
    }
    stream->reader = reader;
    stream->free_reader = free_reader;
    stream->context = reader_context;
    struct MHD_Response *response = response_from_callback(MHD_SIZE_UNKNOWN, 1024, stream_read, stream, stream_free);
    if (response == NULL) {
        stream_free(stream);
        return 0;
    }
    return queue(connection, status, response, headers);
}
