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
#include <time.h>
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
static const union MHD_ConnectionInfo *(*get_connection_info)(struct MHD_Connection *, enum MHD_ConnectionInfoType,
                                                             ...);

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
    LOOK_UP(get_connection_info, "MHD_get_connection_info");
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

/*
 * The request deadline. libmicrohttpd's own timeout closes a connection that stays silent; one that
 * sends a byte now and then (a slow trickle) never is, and holds its place under the per-address limit
 * for ever. So each connection is watched from its start, and again from the end of each request, until
 * its next request is in (head and body): a watchdog thread shuts down (shutdown(2), which wakes the
 * connection's thread, and libmicrohttpd closes it) any connection still sending a request after
 * `deadline` seconds. An answer being sent (an event stream) is never cut. libmicrohttpd tells us a
 * connection is closed (NOTIFY_CLOSED) before it closes its socket, and the entry leaves the list under
 * the lock the watchdog holds, so the watchdog never shuts down a socket number reused by another.
 */
struct watched {
    int fd;
    int answering;
    double since;
    struct watched *previous;
    struct watched *next;
};

/* A daemon, the handler its callbacks are given and its watchdog, freed together by cards_http_stop. */
struct cards_http_daemon {
    struct MHD_Daemon *daemon;
    struct handler handler;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    struct watched *watched;
    unsigned deadline;
    int stopping;
    int has_watchdog;
    pthread_t watchdog;
};

static double monotonic_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* Notes that the connection's request is in (answering 1: no deadline) or that it waits for the next one. */
static void mark(struct cards_http_daemon *made, struct MHD_Connection *connection, int answering) {
    const union MHD_ConnectionInfo *info = get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct watched *entry = info == NULL ? NULL : info->socket_context;
    if (entry == NULL) return;
    pthread_mutex_lock(&made->lock);
    entry->answering = answering;
    entry->since = monotonic_seconds();
    pthread_mutex_unlock(&made->lock);
}

static void notify_connection(void *cls, struct MHD_Connection *connection, void **socket_context,
                              enum MHD_ConnectionNotificationCode code) {
    struct cards_http_daemon *made = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        struct watched *entry = calloc(1, sizeof *entry);
        if (entry == NULL) return;
        const union MHD_ConnectionInfo *info = get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        entry->fd = info == NULL ? -1 : info->connect_fd;
        entry->since = monotonic_seconds();
        pthread_mutex_lock(&made->lock);
        entry->next = made->watched;
        if (made->watched != NULL) made->watched->previous = entry;
        made->watched = entry;
        pthread_mutex_unlock(&made->lock);
        *socket_context = entry;
        return;
    }
    struct watched *entry = *socket_context;
    if (entry == NULL) return;
    pthread_mutex_lock(&made->lock);
    if (entry->previous != NULL) entry->previous->next = entry->next;
    else made->watched = entry->next;
    if (entry->next != NULL) entry->next->previous = entry->previous;
    pthread_mutex_unlock(&made->lock);
    free(entry);
    *socket_context = NULL;
}

static void *watchdog_main(void *argument) {
    struct cards_http_daemon *made = argument;
    pthread_mutex_lock(&made->lock);
    while (!made->stopping) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += 250 * 1000 * 1000;
        if (until.tv_nsec >= 1000 * 1000 * 1000) {
            until.tv_sec += 1;
            until.tv_nsec -= 1000 * 1000 * 1000;
        }
        pthread_cond_timedwait(&made->wake, &made->lock, &until);
        double now = monotonic_seconds();
        for (struct watched *entry = made->watched; entry != NULL; entry = entry->next) {
            if (!entry->answering && entry->fd >= 0 && now - entry->since > made->deadline) {
                shutdown(entry->fd, SHUT_RDWR);
                entry->fd = -1;
            }
        }
    }
    pthread_mutex_unlock(&made->lock);
    return NULL;
}

static enum MHD_Result access_trampoline(void *cls, struct MHD_Connection *connection, const char *url,
                                         const char *method, const char *version, const char *upload,
                                         size_t *upload_size, void **request_state) {
    (void)version;
    struct cards_http_daemon *made = cls;
    /* The last call of a request (its body all in): from here the server answers; no deadline. */
    if (*request_state != NULL && *upload_size == 0) mark(made, connection, 1);
    return made->handler.access(made->handler.context, connection, url, method, upload, upload_size,
                                request_state)
               ? MHD_YES
               : MHD_NO;
}

static void completed_trampoline(void *cls, struct MHD_Connection *connection, void **request_state,
                                 enum MHD_RequestTerminationCode code) {
    (void)code;
    struct cards_http_daemon *made = cls;
    if (connection != NULL) mark(made, connection, 0);
    if (*request_state != NULL) made->handler.completed(made->handler.context, request_state);
}

struct cards_http_daemon *cards_http_start(const char *address, uint16_t port, cards_http_access access,
                                    cards_http_completed completed, void *context, size_t memory_limit,
                                    unsigned connection_limit, unsigned per_ip_limit,
                                    unsigned timeout_seconds, unsigned request_deadline_seconds,
                                    int *error_number) {
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
        /* `::` is every address: IPv4 ones too (as ::ffff:a.b.c.d), as `cards serve` prints them. */
        flags |= IN6_IS_ADDR_UNSPECIFIED(&v6.sin6_addr) ? MHD_USE_DUAL_STACK : MHD_USE_IPv6;
    } else {
        *error_number = EINVAL;
        return NULL;
    }
    struct cards_http_daemon *made = calloc(1, sizeof *made);
    if (made == NULL) {
        *error_number = ENOMEM;
        return NULL;
    }
    made->handler.access = access;
    made->handler.completed = completed;
    made->handler.context = context;
    made->deadline = request_deadline_seconds;
    pthread_condattr_t clock;
    pthread_condattr_init(&clock);
    pthread_condattr_setclock(&clock, CLOCK_MONOTONIC);
    pthread_mutex_init(&made->lock, NULL);
    pthread_cond_init(&made->wake, &clock);
    pthread_condattr_destroy(&clock);
    errno = 0;
    struct MHD_Daemon *daemon = start_daemon(
        flags, port, NULL, NULL, access_trampoline, made, MHD_OPTION_SOCK_ADDR, socket_address,
        MHD_OPTION_NOTIFY_COMPLETED, completed_trampoline, made, MHD_OPTION_NOTIFY_CONNECTION, notify_connection,
        made, MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit, MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit, MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
        MHD_OPTION_END);
    if (daemon == NULL) {
        *error_number = errno != 0 ? errno : EIO;
        pthread_mutex_destroy(&made->lock);
        pthread_cond_destroy(&made->wake);
        free(made);
        return NULL;
    }
    made->daemon = daemon;
    if (request_deadline_seconds > 0 && pthread_create(&made->watchdog, NULL, watchdog_main, made) == 0) {
        made->has_watchdog = 1;
    }
    return made;
}

uint16_t cards_http_port(struct cards_http_daemon *daemon) {
    const union MHD_DaemonInfo *info = get_daemon_info(daemon->daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

void cards_http_stop(struct cards_http_daemon *daemon) {
    if (daemon->has_watchdog) {
        pthread_mutex_lock(&daemon->lock);
        daemon->stopping = 1;
        pthread_cond_signal(&daemon->wake);
        pthread_mutex_unlock(&daemon->lock);
        pthread_join(daemon->watchdog, NULL);
    }
    /* Every connection closes here, and its NOTIFY_CLOSED frees its entry. */
    stop_daemon(daemon->daemon);
    pthread_mutex_destroy(&daemon->lock);
    pthread_cond_destroy(&daemon->wake);
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
