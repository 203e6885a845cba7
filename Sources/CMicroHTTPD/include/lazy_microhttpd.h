#ifndef CARDDECK_LAZY_MICROHTTPD_H
#define CARDDECK_LAZY_MICROHTTPD_H

#include <stddef.h>
#include <stdint.h>

/* The few libmicrohttpd calls `cards serve` makes, through the system's libmicrohttpd.so.12 loaded
   on first use (lazy_microhttpd.c says why). microhttpd.h stays out of this header: Swift sees only
   these functions, so no call can bypass the loader. */

struct cards_http_daemon;
struct MHD_Connection;

/* Called for each part of a request (MHD's access handler without its version argument): first with
   *request_state NULL once the headers are in, then with each piece of the body (*upload_size > 0;
   set it to 0 once taken), then with *upload_size 0 to answer. Returns 1 to go on, 0 to close. */
typedef int (*cards_http_access)(void *context, struct MHD_Connection *connection, const char *url,
                                 const char *method, const char *upload, size_t *upload_size,
                                 void **request_state);
/* Called once a request ends, answered or not: frees what *request_state holds. */
typedef void (*cards_http_completed)(void *context, void **request_state);
/* Fills `buffer` (at most `capacity` bytes) with the next part of a streamed answer and returns its
   length; -1 ends the stream. Runs on the connection's own thread and may block. */
typedef long (*cards_http_reader)(void *context, char *buffer, size_t capacity);
/* Frees a reader's context once its stream is over. */
typedef void (*cards_http_reader_free)(void *context);

/* Whether libmicrohttpd.so.12 could be loaded (and has every function used); loads it once. */
int cards_http_available(void);

/* The dynamic loader's message when the library could not be loaded, or NULL. */
const char *cards_http_load_error(void);

/* Starts a daemon on `address` (an IPv4 or IPv6 literal) and `port` (0: any free one), one thread per
   connection: at most `connection_limit` at once, `per_ip_limit` from one address; one silent for
   `timeout_seconds` is closed, and one still sending a request `request_deadline_seconds` after its
   start or its previous request's end (a slow trickle) is shut down (0: no deadline). NULL on failure
   with *error_number set (errno: EADDRINUSE, EADDRNOTAVAIL, EACCES…, or EINVAL for an address that is
   no IP literal). */
struct cards_http_daemon *cards_http_start(const char *address, uint16_t port, cards_http_access access,
                                    cards_http_completed completed, void *context, size_t memory_limit,
                                    unsigned connection_limit, unsigned per_ip_limit,
                                    unsigned timeout_seconds, unsigned request_deadline_seconds,
                                    int *error_number);

/* The port the daemon listens on (the one chosen when started with port 0). */
uint16_t cards_http_port(struct cards_http_daemon *daemon);

/* Stops the daemon: closes the listening socket and every connection, joins their threads, frees it. */
void cards_http_stop(struct cards_http_daemon *daemon);

/* A request header's value (case-insensitive name), or NULL. Valid during the request. */
const char *cards_http_header(struct MHD_Connection *connection, const char *name);

/* A query argument's decoded value, or NULL. Valid during the request. */
const char *cards_http_query(struct MHD_Connection *connection, const char *name);

/* How many request headers named `name` the request has (a Host given twice is refused). */
int cards_http_header_count(struct MHD_Connection *connection, const char *name);

/* Answers with `body` (copied) and the headers in `headers`: name, value, name, value, …, NULL.
   Returns 1 when queued. */
int cards_http_respond(struct MHD_Connection *connection, unsigned status, const void *body, size_t length,
                       const char *const *headers);

/* Answers with a stream of unknown length read from `reader` (server-sent events). Returns 1 when
   queued; otherwise `free_reader` has been called. */
int cards_http_respond_stream(struct MHD_Connection *connection, unsigned status, cards_http_reader reader,
                              void *reader_context, cards_http_reader_free free_reader,
                              const char *const *headers);

#endif
