#ifndef CARDDECK_LAZY_SSH2_H
#define CARDDECK_LAZY_SSH2_H

/* Whether the system's libssh2 (libssh2.so.1) could be loaded; loads it on first use. libgit2's SSH
   transport calls it through the functions defined in lazy_ssh2.c. */
int cards_ssh2_available(void);

/* How many of the libssh2 functions libgit2 calls the loaded library lacks (0 when all are there;
   -1 when the library cannot be loaded): for a test of the forwarding. */
int cards_ssh2_missing_functions(void);

/* The blocking timeout, in milliseconds, of the SSH sessions made from now on (0: none). */
void cards_ssh2_set_timeout(long milliseconds);

/* Whether the network timeout ran out (set from a signal handler): the SSH calls then fail at once. */
void cards_ssh2_set_stalled(int value);

#endif
