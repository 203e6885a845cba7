#ifndef CARDDECK_CGIT2_SHIM_H
#define CARDDECK_CGIT2_SHIM_H

#define GIT_DEPRECATE_HARD
#include <git2.h>

/* The oldest libgit2 CardDeck builds with (README, "Installing"): the API it calls, and the behaviour
   its tests pin down, are those of 1.5. Said here so an older one fails with this, not with the
   compiler's words about a missing function. */
#if !defined(LIBGIT2_VER_MAJOR) || LIBGIT2_VER_MAJOR < 1 || (LIBGIT2_VER_MAJOR == 1 && LIBGIT2_VER_MINOR < 5)
#error "CardDeck needs libgit2 1.5 or later: install a newer libgit2 and its headers (Debian 12: apt-get install libgit2-dev), or point PKG_CONFIG_PATH at one"
#endif
#include <git2/sys/repository.h>
#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>
#include <zlib.h>

/* Variadic libgit2 calls cannot be called from Swift: wrap the few we need. */

static inline int cgit2_enable_fsync_gitdir(int enabled) {
    return git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, enabled);
}

static inline int cgit2_enable_strict_hash_verification(int enabled) {
    return git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, enabled);
}

static inline int cgit2_set_cache_object_limit(git_object_t type, size_t size) {
    return git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, type, size);
}

static inline int cgit2_set_owner_validation(int enabled) {
    return git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, enabled);
}

/* OpenSSL's low-level SHA-1 (libcrypto is linked in with libgit2's libraries; see SHA1.swift). */
extern int SHA1_Init(void *context);
extern int SHA1_Update(void *context, const void *data, size_t count);
extern int SHA1_Final(unsigned char *digest, void *context);
static inline unsigned char *cgit2_sha1(const unsigned char *data, size_t count, unsigned char *digest) {
    _Alignas(16) unsigned char context[256];
    SHA1_Init(context);
    SHA1_Update(context, data, count);
    SHA1_Final(digest, context);
    return digest;
}

/* libgit2's TLS (mbedTLS) and SSH (libssh2, OpenSSL) set-up inside git_libgit2_init, reached through
   the linker's --wrap (see Libgit2+NetworkSetUp.swift). Internal to libgit2 (and named so in 1.5 only):
   called only by the static build (CARDS_STATIC_LINK), which links Debian's libgit2 1.5.1 archive. */
extern int __real_git_mbedtls_stream_global_init(void);
extern int __real_git_transport_ssh_global_init(void);

#endif
