#ifndef CARDDECK_CLINUX_H
#define CARDDECK_CLINUX_H

/* The Linux calls GitCore makes that Swift's Glibc module does not show (GNU extensions, statfs's
   f_type, a per-thread POSIX timer) or that must be made in C (the work between fork and exec), in
   one place apart from the libgit2 wrappers (CGit2). Swift reaches them through Platform/ and the
   few Remote/ files that start or time out the git executable. */

#include <stddef.h>

/* statfs's f_type (the Glibc module shows only statvfs, which has no file-system type); -1 when
   statfs fails. */
#include <sys/vfs.h>
static inline long clinux_filesystem_type(const char *path) {
    struct statfs info;
    return statfs(path, &info) == 0 ? (long)info.f_type : -1;
}

/* sync_file_range(2), a GNU extension the Glibc module does not show, over a whole file. */
extern int sync_file_range(int fd, long offset, long count, unsigned int flags);
static inline int clinux_sync_file_range(int fd, unsigned int flags) {
    return sync_file_range(fd, 0, 0, flags);
}

/* syncfs(2) is a GNU extension the Glibc module does not show: one flush for a bulk write. */
extern int syncfs(int fd);
static inline int clinux_syncfs(int fd) {
    return syncfs(fd);
}

/* A POSIX timer that sends `signo` to the calling thread only (SIGEV_THREAD_ID), first after `first`
   seconds, then every `every`: it interrupts a read that thread is blocked in (a server that never
   answers), which libgit2 1.5 has no timeout for. */
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
static inline int clinux_thread_timer_start(timer_t *timer, int signo, double first, double every) {
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

/* Starts the git executable for a transfer, or a signing program (Sources/GitCore/Remote/GitProcess.swift), with
   standard input from `input` (-1: /dev/null, -2: ours): fork and exec here, in C,
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

static inline int clinux_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

static inline pid_t clinux_spawn(const char *path, char *const argv[], char *const envp[], const char *folder,
                                int input, int output, int error) {
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
    if (input == -1) {
        int fd = open("/dev/null", O_RDONLY);
        if (fd < 0 || dup2(fd, 0) < 0) _exit(127);
    } else if (input >= 0 && dup2(input, 0) < 0) {
        _exit(127);
    }
    if (dup2(output, 1) < 0 || dup2(error, 2) < 0) _exit(127);
    closefrom(3);
    if (chdir(folder) != 0) _exit(126);
    execve(path, argv, envp);
    _exit(127);
}

#endif
