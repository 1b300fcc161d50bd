/* accept.h -- the accept loop in front of libmicrohttpd (service/accept.c;
 * docs/service.md, "Limits"): a connection whose first bytes cannot start
 * an HTTP request line is answered 400 and closed at once, every other is
 * handed to libmicrohttpd. */
#ifndef FS_SERVICE_ACCEPT_H
#define FS_SERVICE_ACCEPT_H

#include <stddef.h>

#include <microhttpd.h>

#include "service.h"

typedef struct svc_accept svc_accept;

/* A loop for cfg's --max-connections and --max-connections-per-ip; NULL
 * when out of memory.  Give svc_accept_notify and it to the daemon as
 * MHD_OPTION_NOTIFY_CONNECTION: it counts the daemon's connections. */
svc_accept *svc_accept_new(const svc_config *cfg);
void svc_accept_notify(void *cls, struct MHD_Connection *c, void **ctx,
                       enum MHD_ConnectionNotificationCode code);

/* Accepts on listen_fd (made non-blocking) in a thread of its own and
 * hands connections to `daemon` (MHD_add_connection: the daemon is started
 * with MHD_USE_NO_LISTEN_SOCKET and MHD_USE_ITC).  0, or -1 with why set
 * (the caller keeps listen_fd). */
int svc_accept_start(svc_accept *a, int listen_fd, struct MHD_Daemon *daemon,
                     char *why, size_t cap);

/* Stops accepting: joins the thread, closes the connections still waiting
 * for their first bytes and the listen socket.  Connections handed on stay
 * the daemon's. */
void svc_accept_stop(svc_accept *a);

/* Stops a (if started) and frees it (NULL: nothing); after the daemon has
 * stopped, since the daemon calls svc_accept_notify until then. */
void svc_accept_free(svc_accept *a);

#endif
