#ifndef CARDDECK_LAZY_GSSAPI_H
#define CARDDECK_LAZY_GSSAPI_H

/* Whether the system's GSSAPI library (libgssapi_krb5.so.2) could be loaded; loads it on first use.
   libgit2's Kerberos ("Negotiate") HTTP authentication calls it through the functions defined in
   lazy_gssapi.c. */
int cards_gssapi_available(void);

/* How many of the GSSAPI functions libgit2 needs the loaded library lacks (0 when all are there;
   -1 when the library cannot be loaded): for a test of the forwarding. */
int cards_gssapi_missing_functions(void);

#endif
