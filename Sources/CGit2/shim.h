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

/* statfs's f_type (the Glibc module shows only statvfs, which has no file-system type); -1 when
   statfs fails. */
#include <sys/vfs.h>
static inline long cgit2_filesystem_type(const char *path) {
    struct statfs info;
    return statfs(path, &info) == 0 ? (long)info.f_type : -1;
}

/* sync_file_range(2), a GNU extension the Glibc module does not show, over a whole file. */
extern int sync_file_range(int fd, long offset, long count, unsigned int flags);
static inline int cgit2_sync_file_range(int fd, unsigned int flags) {
    return sync_file_range(fd, 0, 0, flags);
}

/* syncfs(2) is a GNU extension the Glibc module does not show: one flush for a bulk write. */
extern int syncfs(int fd);
static inline int cgit2_syncfs(int fd) {
    return syncfs(fd);
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

/* A POSIX timer that sends `signo` to the calling thread only (SIGEV_THREAD_ID), first after `first`
   seconds, then every `every`: it interrupts a read that thread is blocked in (a server that never
   answers), which libgit2 1.5 has no timeout for. */
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
static inline int cgit2_thread_timer_start(timer_t *timer, int signo, double first, double every) {
    struct sigevent event = {0};
    event.sigev_notify = 4; /* SIGEV_THREAD_ID */
    event.sigev_signo = signo;
    event._sigev_un._tid = (int)syscall(SYS_gettid);
    if (timer_create(CLOCK_MONOTONIC, &event, timer) != 0) return -1;
    struct itimerspec when = {0};
    when.it_value.tv_sec = (time_t)first;
    when.it_value.tv_nsec = (long)((first - (double)(time_t)first) * 1e9);
    when.it_interval.tv_sec = (time_t)every;
    when.it_interval.tv_nsec = (long)((every - (double)(time_t)every) * 1e9);
    if (timer_settime(*timer, 0, &when, NULL) != 0) {
        timer_delete(*timer);
        return -1;
    }
    return 0;
}

/* Starts the git executable for a transfer (Sources/GitCore/GitProcess.swift): fork and exec here, in C,
   because the child must ask to die with us (PR_SET_PDEATHSIG), which posix_spawn cannot: a `cards`
   killed outright must not leave a `git fetch` writing into a deck or a clone that is being removed.
   Between fork and exec only async-signal-safe calls. Signals are put back to their defaults and
   unblocked (a test runner's thread, or our own catching of Ctrl-C, must not leave git deaf to them);
   descriptors 3 and up are closed (a deck's lock must not live on in git or its ssh). Returns the
   child's pid, or -1 with errno. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>
extern int pipe2(int fds[2], int flags);
extern void closefrom(int lowfd);

static inline int cgit2_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

static inline pid_t cgit2_spawn_git(const char *path, char *const argv[], char *const envp[], const char *folder,
                                    int null_input, int output, int error) {
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0) return pid;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    int caught[] = {SIGINT, SIGTERM, SIGHUP, SIGALRM, SIGPIPE, SIGQUIT};
    for (unsigned i = 0; i < sizeof caught / sizeof caught[0]; i++) signal(caught[i], SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (null_input) {
        int fd = open("/dev/null", O_RDONLY);
        if (fd < 0 || dup2(fd, 0) < 0) _exit(127);
    }
    if (dup2(output, 1) < 0 || dup2(error, 2) < 0) _exit(127);
    closefrom(3);
    if (chdir(folder) != 0) _exit(126);
    execve(path, argv, envp);
    _exit(127);
}

#endif
