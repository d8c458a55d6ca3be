/*
 * A small SCTP peer on usrsctp (SCTP in user space over raw IP: needs root), for the tests and
 * benchmarks. Built at test time by sctp-peer.ts. One binary, three modes; every line it prints on
 * stdout is one event, for a program to parse:
 *
 *   sctp-peer server --name NAME --port P --bind ADDR[,ADDR2] [--quiet]
 *     listening <addr>[,<addr2>] <port>     once bound
 *     assoc <peer-address> <peer-port>      per new association (the primary address the peer
 *                                           used, as this host sees it)
 *     lost <peer-address> <peer-port> <why> per association gone (comm-lost, shutdown, restart)
 *     Echoes each message back on its stream, prefixed with "NAME ". --quiet: no assoc/lost lines.
 *
 *   sctp-peer client --connect ADDR[,ADDR2] [--connect ...] --port P [--bind LOCAL[,LOCAL2]]
 *                    --associations N [--interval-ms 100] [--timeout-ms 3000]
 *     open <i> <local-port>                 association i started (i from 0; target i mod count
 *                                           of --connect)
 *     up <i> <server-name>                  its first echo arrived
 *     path <i> <peer-address> <state>       a peer address changed (available, unreachable, ...)
 *     lost <i> <why>                        comm-lost, shutdown, restart, cant-start, no-echo
 *     Sends "<i> <seq>" on each open association every interval. stdin: "stats" prints
 *     "stats <i> <sent> <echoed> <server-name|->" for every i then "stats-end"; "quit" shuts the
 *     associations down and exits ("bye").
 *
 *   sctp-peer rate --connect ADDR[,ADDR2] --port P [--bind LOCAL[,LOCAL2]] --seconds S
 *                  [--parallel K]
 *     Opens (connect to the first address until the four-way handshake is done) and closes
 *     (graceful SHUTDOWN) associations as fast as it can for S seconds on K threads, then prints
 *     "failed <n>" and "associations <count>".
 *
 * Timers, set for every association with usrsctp sysctls at start-up (before any socket): RTO
 * min 100 ms / initial 200 ms / max 500 ms, INIT RTO max 500 ms, heartbeats every 200 ms (plus
 * RTO, jittered), path max retransmissions 2, association max retransmissions 10. A primary path
 * that goes dark is given up after 3 timeouts (100 + 200 + 400 ms), and what waited for it goes
 * on the alternate path: about 0.75 s in sctp-peer.test.ts.
 *
 * Traps of usrsctp over raw IP, and what this peer does about them:
 * - Every usrsctp process in a namespace receives every SCTP packet of it. Out-of-the-blue packets
 *   (another process's association) would be answered with ABORT and kill that association, so
 *   the sysctl sctp_blackhole is 2: out-of-the-blue packets are dropped silently. Several peers may
 *   then share a namespace (never two servers on one port).
 * - The kernel has no SCTP, so an SCTP packet to a namespace where no usrsctp runs is answered with
 *   ICMP protocol unreachable; where a usrsctp raw socket takes it, the kernel sends nothing
 *   (checked with nft counters). usrsctp reads no ICMP, so no nftables rule is needed: a client of
 *   a namespace without a server just times out.
 * - usrsctp has no routing table: it sends every packet from one bound address whatever the path
 *   (IPv6: from whatever the kernel picks). See sendmsg() below, which picks the source per path.
 * - Closing a socket while usrsctp's input thread handles a packet of its association frees it
 *   twice (sofree): sockets are closed only once their association is gone.
 * - usrsctp learns the host's addresses once, at start, and ignores those on lo: addresses must be
 *   on other interfaces and in place before the peer starts.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <usrsctp.h>

#define MAX_ADDRS 4
#define MAX_TARGETS 16
#define BUFFER 65536

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static void out(const char *format, ...) {
	va_list args;
	pthread_mutex_lock(&out_lock);
	va_start(args, format);
	vprintf(format, args);
	va_end(args);
	putchar('\n');
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
}

static void die(const char *format, ...) {
	va_list args;
	va_start(args, format);
	fputs("sctp-peer: ", stderr);
	vfprintf(stderr, format, args);
	va_end(args);
	fputc('\n', stderr);
	exit(2);
}

static int64_t now_ms(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

struct addrs {
	int count;
	struct sockaddr_storage a[MAX_ADDRS];
};

/* "10.0.0.1,fd00::1" into socket addresses with this port. */
static void parse_addrs(const char *text, uint16_t port, struct addrs *out_addrs) {
	char *copy = strdup(text), *save = NULL;
	out_addrs->count = 0;
	for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		if (out_addrs->count == MAX_ADDRS) die("at most %d addresses: %s", MAX_ADDRS, text);
		struct sockaddr_storage *s = &out_addrs->a[out_addrs->count++];
		memset(s, 0, sizeof(*s));
		struct sockaddr_in *v4 = (struct sockaddr_in *)s;
		struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)s;
		if (inet_pton(AF_INET, item, &v4->sin_addr) == 1) {
			v4->sin_family = AF_INET;
			v4->sin_port = htons(port);
		} else if (inet_pton(AF_INET6, item, &v6->sin6_addr) == 1) {
			v6->sin6_family = AF_INET6;
			v6->sin6_port = htons(port);
		} else {
			die("not an IP address: %s", item);
		}
	}
	free(copy);
	if (out_addrs->count == 0) die("no address in \"%s\"", text);
}

/* usrsctp wants the addresses of bindx/connectx packed one after the other. */
static size_t pack(const struct addrs *list, char *buffer) {
	size_t at = 0;
	for (int i = 0; i < list->count; i++) {
		size_t len = list->a[i].ss_family == AF_INET ? sizeof(struct sockaddr_in)
		                                             : sizeof(struct sockaddr_in6);
		memcpy(buffer + at, &list->a[i], len);
		at += len;
	}
	return at;
}

static int domain_of(const struct addrs *list) {
	for (int i = 0; i < list->count; i++)
		if (list->a[i].ss_family == AF_INET6) return AF_INET6;
	return AF_INET;
}

static const char *show(const void *sa, char *buffer, size_t size, uint16_t *port) {
	const struct sockaddr *s = sa;
	if (s->sa_family == AF_INET) {
		const struct sockaddr_in *v4 = sa;
		if (port) *port = ntohs(v4->sin_port);
		return inet_ntop(AF_INET, &v4->sin_addr, buffer, size);
	}
	if (s->sa_family == AF_INET6) {
		const struct sockaddr_in6 *v6 = sa;
		if (port) *port = ntohs(v6->sin6_port);
		return inet_ntop(AF_INET6, &v6->sin6_addr, buffer, size);
	}
	if (port) *port = 0;
	snprintf(buffer, size, "?");
	return buffer;
}

/* ---------------------------------------------------------------- source addresses */

/*
 * usrsctp has no routing table on Linux: it gives every packet the same source address (the last
 * one bound), whatever the path, and for IPv6 it leaves the choice to the kernel, which knows
 * nothing of the association (a server holding a TSA would answer from its own address, which
 * the client does not know). A kernel SCTP stack picks the source per path. So usrsctp's sendmsg
 * on its raw sockets goes through this one (the binary's definition wins over libc's), which sets
 * the source a kernel would: the kernel's routing choice for that destination if it is one of
 * ours (--bind), else the bound address sharing the longest prefix with the destination.
 */
static const struct addrs *bound; /* NULL: bound to every address */

struct route {
	struct sockaddr_storage to, from;
	int64_t at;
};
#define ROUTES 256
static struct route routes[ROUTES];
static int route_count;
static pthread_mutex_t route_lock = PTHREAD_MUTEX_INITIALIZER;

static const void *address_bytes(const struct sockaddr_storage *s, size_t *len) {
	if (s->ss_family == AF_INET) {
		*len = 4;
		return &((const struct sockaddr_in *)s)->sin_addr;
	}
	*len = 16;
	return &((const struct sockaddr_in6 *)s)->sin6_addr;
}

static int same_address(const struct sockaddr_storage *a, const struct sockaddr_storage *b) {
	size_t la, lb;
	const void *x = address_bytes(a, &la), *y = address_bytes(b, &lb);
	return a->ss_family == b->ss_family && memcmp(x, y, la) == 0;
}

static int common_prefix(const struct sockaddr_storage *a, const struct sockaddr_storage *b) {
	size_t len, ignored;
	const uint8_t *x = address_bytes(a, &len), *y = address_bytes(b, &ignored);
	int bits = 0;
	for (size_t i = 0; i < len; i++) {
		uint8_t d = x[i] ^ y[i];
		if (d == 0) {
			bits += 8;
			continue;
		}
		while (!(d & 0x80)) bits++, d <<= 1;
		break;
	}
	return bits;
}

/* The address only, not the port: the families are the same. */
static void copy_address(struct sockaddr_storage *to, const struct sockaddr_storage *from) {
	size_t len;
	const void *bytes = address_bytes(from, &len);
	memcpy((void *)address_bytes(to, &len), bytes, len);
}

/* The kernel's source for `to` (connect a UDP socket, read its name), cached for a second. */
static int kernel_source(const struct sockaddr_storage *to, struct sockaddr_storage *from) {
	int64_t now = now_ms();
	pthread_mutex_lock(&route_lock);
	for (int i = 0; i < route_count; i++)
		if (same_address(&routes[i].to, to) && now - routes[i].at < 1000) {
			*from = routes[i].from;
			pthread_mutex_unlock(&route_lock);
			return 0;
		}
	pthread_mutex_unlock(&route_lock);
	struct sockaddr_storage target = *to;
	socklen_t len = to->ss_family == AF_INET ? sizeof(struct sockaddr_in)
	                                         : sizeof(struct sockaddr_in6);
	((struct sockaddr_in *)&target)->sin_port = htons(9);
	int fd = socket(to->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) return -1;
	socklen_t from_len = sizeof(*from);
	int failed = connect(fd, (struct sockaddr *)&target, len) < 0 ||
	             getsockname(fd, (struct sockaddr *)from, &from_len) < 0;
	close(fd);
	if (failed) return -1;
	pthread_mutex_lock(&route_lock);
	int slot = route_count < ROUTES ? route_count++ : (int)(now % ROUTES);
	routes[slot].to = *to;
	routes[slot].from = *from;
	routes[slot].at = now;
	pthread_mutex_unlock(&route_lock);
	return 0;
}

/* Rewrites `source` (usrsctp's choice) in place; returns whether it changed. */
static int choose_source(const struct sockaddr_storage *to, struct sockaddr_storage *source) {
	struct sockaddr_storage kernel;
	if (kernel_source(to, &kernel) == 0) {
		int ours = bound == NULL;
		for (int i = 0; bound && i < bound->count; i++)
			if (same_address(&bound->a[i], &kernel)) ours = 1;
		if (ours) {
			int changed = !same_address(&kernel, source);
			copy_address(source, &kernel);
			return changed;
		}
	}
	if (!bound) return 0;
	int best = -1, best_bits = common_prefix(source, to);
	for (int i = 0; i < bound->count; i++) {
		if (bound->a[i].ss_family != to->ss_family) continue;
		int bits = common_prefix(&bound->a[i], to);
		if (bits > best_bits) best = i, best_bits = bits;
	}
	if (best < 0) return 0;
	copy_address(source, &bound->a[best]);
	return 1;
}

static int raw_sctp_fds[8];
static int raw_sctp_count;

static int raw_sctp(int fd) {
	for (int i = 0; i < raw_sctp_count; i++)
		if (raw_sctp_fds[i] == fd) return 1;
	int type = 0, protocol = 0;
	socklen_t len = sizeof(int);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0 || type != SOCK_RAW) return 0;
	len = sizeof(int);
	if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &protocol, &len) < 0 || protocol != IPPROTO_SCTP)
		return 0;
	/* usrsctp's raw sockets live as long as the process. */
	pthread_mutex_lock(&route_lock);
	if (raw_sctp_count < 8) raw_sctp_fds[raw_sctp_count++] = fd;
	pthread_mutex_unlock(&route_lock);
	return 1;
}

ssize_t sendmsg(int fd, const struct msghdr *message, int flags) {
	static ssize_t (*libc_sendmsg)(int, const struct msghdr *, int);
	if (!libc_sendmsg) libc_sendmsg = (ssize_t (*)(int, const struct msghdr *, int))dlsym(RTLD_NEXT, "sendmsg");
	if (!raw_sctp(fd) || !message->msg_name || message->msg_iovlen < 1) goto send;
	const struct sockaddr_storage *to = message->msg_name;
	if (to->ss_family == AF_INET && message->msg_iov[0].iov_len >= sizeof(struct ip)) {
		/* IPv4: usrsctp writes the IP header itself (IP_HDRINCL); the kernel redoes its checksum,
		 * and SCTP's CRC32c does not cover addresses. */
		struct ip *header = message->msg_iov[0].iov_base;
		struct sockaddr_storage source;
		memset(&source, 0, sizeof(source));
		source.ss_family = AF_INET;
		((struct sockaddr_in *)&source)->sin_addr = header->ip_src;
		if (choose_source(to, &source)) header->ip_src = ((struct sockaddr_in *)&source)->sin_addr;
	} else if (to->ss_family == AF_INET6 && !message->msg_control) {
		/* IPv6: usrsctp built the header and stepped past it (m_adj) before sending the payload
		 * alone; it is still in front of the payload. Its source goes back in as IPV6_PKTINFO. */
		const uint8_t *header = (const uint8_t *)message->msg_iov[0].iov_base - 40;
		const struct sockaddr_in6 *to6 = message->msg_name;
		if ((header[0] >> 4) != 6 || header[6] != IPPROTO_SCTP ||
		    memcmp(header + 24, &to6->sin6_addr, 16) != 0)
			goto send;
		struct sockaddr_storage source;
		memset(&source, 0, sizeof(source));
		source.ss_family = AF_INET6;
		memcpy(&((struct sockaddr_in6 *)&source)->sin6_addr, header + 8, 16);
		choose_source(to, &source);
		union {
			char buffer[CMSG_SPACE(sizeof(struct in6_pktinfo))];
			struct cmsghdr align;
		} control;
		memset(&control, 0, sizeof(control));
		struct msghdr with_source = *message;
		with_source.msg_control = control.buffer;
		with_source.msg_controllen = sizeof(control.buffer);
		struct cmsghdr *c = CMSG_FIRSTHDR(&with_source);
		c->cmsg_level = IPPROTO_IPV6;
		c->cmsg_type = IPV6_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(struct in6_pktinfo));
		struct in6_pktinfo info;
		memset(&info, 0, sizeof(info));
		info.ipi6_addr = ((struct sockaddr_in6 *)&source)->sin6_addr;
		memcpy(CMSG_DATA(c), &info, sizeof(info));
		return libc_sendmsg(fd, &with_source, flags);
	}
send:
	return libc_sendmsg(fd, message, flags);
}

static void start_stack(const struct addrs *local) {
	bound = local;
	/* Port 0: no UDP encapsulation, SCTP straight over IP (raw sockets). */
	usrsctp_init(0, NULL, NULL);
	usrsctp_sysctl_set_sctp_blackhole(2);
	usrsctp_sysctl_set_sctp_rto_min_default(100);
	usrsctp_sysctl_set_sctp_rto_initial_default(200);
	usrsctp_sysctl_set_sctp_rto_max_default(500);
	usrsctp_sysctl_set_sctp_init_rto_max_default(500);
	usrsctp_sysctl_set_sctp_heartbeat_interval_default(200);
	usrsctp_sysctl_set_sctp_path_rtx_max_default(2);
	usrsctp_sysctl_set_sctp_assoc_rtx_max_default(10);
	usrsctp_sysctl_set_sctp_init_rtx_max_default(8);
}

static void subscribe(struct socket *s) {
	const uint16_t types[] = {SCTP_ASSOC_CHANGE, SCTP_PEER_ADDR_CHANGE, SCTP_SHUTDOWN_EVENT};
	struct sctp_event event;
	memset(&event, 0, sizeof(event));
	event.se_assoc_id = SCTP_FUTURE_ASSOC;
	event.se_on = 1;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		event.se_type = types[i];
		if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_EVENT, &event, sizeof(event)) < 0)
			die("SCTP_EVENT: %s", strerror(errno));
	}
	const int on = 1;
	usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_NODELAY, &on, sizeof(on));
}

static void bind_all(struct socket *s, const struct addrs *list, const char *text) {
	char packed[sizeof(struct sockaddr_storage) * MAX_ADDRS];
	pack(list, packed);
	if (usrsctp_bindx(s, (struct sockaddr *)packed, list->count, SCTP_BINDX_ADD_ADDR) < 0)
		die("bind %s: %s (usrsctp knows only the addresses present when it started, none on lo)",
		    text, strerror(errno));
}

static const char *path_state(uint32_t state) {
	switch (state) {
	case SCTP_ADDR_AVAILABLE: return "available";
	case SCTP_ADDR_UNREACHABLE: return "unreachable";
	case SCTP_ADDR_REMOVED: return "removed";
	case SCTP_ADDR_ADDED: return "added";
	case SCTP_ADDR_MADE_PRIM: return "primary";
	case SCTP_ADDR_CONFIRMED: return "confirmed";
	default: return "other";
	}
}

/* ---------------------------------------------------------------- server */

struct known {
	sctp_assoc_t id;
	char addr[INET6_ADDRSTRLEN];
	uint16_t port;
	struct known *next;
};

#define TABLE 4096
static struct known *table[TABLE];

static struct known **find(sctp_assoc_t id) {
	struct known **at = &table[id % TABLE];
	while (*at && (*at)->id != id) at = &(*at)->next;
	return at;
}

/* `from`: the association's primary address when usrsctp queued the notification. */
static void server_notification(struct socket *s, const union sctp_notification *n,
                                const struct sockaddr_storage *from, int quiet) {
	if (n->sn_header.sn_type == SCTP_ASSOC_CHANGE) {
		const struct sctp_assoc_change *c = &n->sn_assoc_change;
		if (c->sac_state == SCTP_COMM_UP || c->sac_state == SCTP_RESTART) {
			struct sctp_status status;
			socklen_t len = sizeof(status);
			memset(&status, 0, sizeof(status));
			status.sstat_assoc_id = c->sac_assoc_id;
			struct known *k = calloc(1, sizeof(*k));
			k->id = c->sac_assoc_id;
			if (from->ss_family == AF_INET || from->ss_family == AF_INET6)
				show(from, k->addr, sizeof(k->addr), &k->port);
			else if (usrsctp_getsockopt(s, IPPROTO_SCTP, SCTP_STATUS, &status, &len) == 0)
				show(&status.sstat_primary.spinfo_address, k->addr, sizeof(k->addr), &k->port);
			else
				snprintf(k->addr, sizeof(k->addr), "?");
			if (c->sac_state == SCTP_RESTART) {
				struct known **old = find(c->sac_assoc_id);
				if (*old) {
					struct known *gone = *old;
					*old = gone->next;
					if (!quiet) out("lost %s %u restart", gone->addr, gone->port);
					free(gone);
				}
			}
			struct known **slot = find(k->id);
			k->next = *slot;
			*slot = k;
			if (!quiet) out("assoc %s %u", k->addr, k->port);
		} else if (c->sac_state == SCTP_COMM_LOST || c->sac_state == SCTP_SHUTDOWN_COMP) {
			struct known **at = find(c->sac_assoc_id);
			if (*at) {
				struct known *gone = *at;
				*at = gone->next;
				if (!quiet)
					out("lost %s %u %s", gone->addr, gone->port,
					    c->sac_state == SCTP_COMM_LOST ? "comm-lost" : "shutdown");
				free(gone);
			}
		}
	}
}

static _Noreturn void run_server(const char *name, uint16_t port, const char *bind_text, int quiet) {
	struct addrs local;
	parse_addrs(bind_text, port, &local);
	start_stack(&local);
	struct socket *s =
	    usrsctp_socket(domain_of(&local), SOCK_SEQPACKET, IPPROTO_SCTP, NULL, NULL, 0, NULL);
	if (!s) die("usrsctp_socket: %s (root needed for raw IP)", strerror(errno));
	subscribe(s);
	const int on = 1;
	usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_RECVRCVINFO, &on, sizeof(on));
	bind_all(s, &local, bind_text);
	if (usrsctp_listen(s, 1) < 0) die("listen: %s", strerror(errno));
	out("listening %s %u", bind_text, port);

	size_t prefix = strlen(name) + 1;
	char *buffer = malloc(prefix + BUFFER);
	memcpy(buffer, name, prefix - 1);
	buffer[prefix - 1] = ' ';
	char *data = buffer + prefix;
	for (;;) {
		struct sockaddr_storage from;
		from.ss_family = AF_UNSPEC;
		socklen_t from_len = sizeof(from);
		struct sctp_rcvinfo info;
		socklen_t info_len = sizeof(info);
		unsigned int info_type = 0;
		int flags = 0;
		ssize_t n = usrsctp_recvv(s, data, BUFFER, (struct sockaddr *)&from, &from_len, &info,
		                          &info_len, &info_type, &flags);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN) continue;
			die("recv: %s", strerror(errno));
		}
		if (flags & MSG_NOTIFICATION) {
			server_notification(s, (const union sctp_notification *)data, &from, quiet);
			continue;
		}
		if (info_type != SCTP_RECVV_RCVINFO) continue;
		struct sctp_sndinfo reply;
		memset(&reply, 0, sizeof(reply));
		reply.snd_sid = info.rcv_sid;
		reply.snd_ppid = info.rcv_ppid;
		reply.snd_assoc_id = info.rcv_assoc_id;
		if (usrsctp_sendv(s, buffer, prefix + (size_t)n, NULL, 0, &reply, sizeof(reply),
		                  SCTP_SENDV_SNDINFO, 0) < 0 &&
		    errno != EWOULDBLOCK)
			fprintf(stderr, "sctp-peer: echo: %s\n", strerror(errno));
	}
}

/* ---------------------------------------------------------------- client */

enum { OPENING, OPEN, LOST };

struct association {
	int index;
	struct socket *sock;
	int state;
	int closed;     /* socket closed by the main thread */
	int64_t lost_at;
	uint64_t sent, echoed;
	char server[64];
	int64_t since; /* opened, or last echo */
	const char *lost_why;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct association *associations;
static int association_count;

/* Called on usrsctp's threads, with `lock` not held. */
static void mark_lost(struct association *a, const char *why) {
	if (a->state == LOST) return;
	a->state = LOST;
	a->lost_why = why;
	a->lost_at = now_ms();
	out("lost %d %s", a->index, why);
}

static int client_receive(struct socket *sock, union sctp_sockstore addr, void *data,
                          size_t length, struct sctp_rcvinfo info, int flags, void *ulp) {
	(void)sock;
	(void)addr;
	(void)info;
	struct association *a = ulp;
	pthread_mutex_lock(&lock);
	if (!data) {
		mark_lost(a, "shutdown");
	} else if (flags & MSG_NOTIFICATION) {
		const union sctp_notification *n = data;
		if (n->sn_header.sn_type == SCTP_ASSOC_CHANGE) {
			switch (n->sn_assoc_change.sac_state) {
			case SCTP_COMM_UP:
				if (a->state == OPENING) a->state = OPEN;
				break;
			case SCTP_COMM_LOST: mark_lost(a, "comm-lost"); break;
			case SCTP_SHUTDOWN_COMP: mark_lost(a, "shutdown"); break;
			case SCTP_CANT_STR_ASSOC: mark_lost(a, "cant-start"); break;
			case SCTP_RESTART: mark_lost(a, "restart"); break;
			}
		} else if (n->sn_header.sn_type == SCTP_SHUTDOWN_EVENT) {
			mark_lost(a, "shutdown");
		} else if (n->sn_header.sn_type == SCTP_PEER_ADDR_CHANGE) {
			char text[INET6_ADDRSTRLEN];
			show(&n->sn_paddr_change.spc_aaddr, text, sizeof(text), NULL);
			out("path %d %s %s", a->index, text, path_state(n->sn_paddr_change.spc_state));
		}
	} else if (a->state == OPEN) {
		const char *text = data;
		size_t name = 0;
		while (name < length && name < sizeof(a->server) - 1 && text[name] != ' ') name++;
		a->echoed++;
		a->since = now_ms();
		if (a->echoed == 1) {
			memcpy(a->server, text, name);
			a->server[name] = '\0';
			out("up %d %s", a->index, a->server);
		}
	}
	pthread_mutex_unlock(&lock);
	free(data);
	return 1;
}

static struct socket *open_socket(int domain, const struct addrs *local, const char *local_text,
                                  int (*receive)(struct socket *, union sctp_sockstore, void *,
                                                 size_t, struct sctp_rcvinfo, int, void *),
                                  void *ulp) {
	struct socket *s = usrsctp_socket(domain, SOCK_STREAM, IPPROTO_SCTP, receive, NULL, 0, ulp);
	if (!s) die("usrsctp_socket: %s (root needed for raw IP)", strerror(errno));
	subscribe(s);
	usrsctp_set_non_blocking(s, 1);
	if (local) bind_all(s, local, local_text);
	return s;
}

static int start_connect(struct socket *s, const struct addrs *remote) {
	char packed[sizeof(struct sockaddr_storage) * MAX_ADDRS];
	pack(remote, packed);
	if (usrsctp_connectx(s, (struct sockaddr *)packed, remote->count, NULL) < 0 &&
	    errno != EINPROGRESS)
		return -1;
	return 0;
}

static uint16_t local_port(struct socket *s) {
	struct sockaddr *addrs = NULL;
	uint16_t port = 0;
	if (usrsctp_getladdrs(s, 0, &addrs) > 0) {
		char ignored[INET6_ADDRSTRLEN];
		show(addrs, ignored, sizeof(ignored), &port);
	}
	if (addrs) usrsctp_freeladdrs(addrs);
	return port;
}

/*
 * usrsctp frees a socket closed while its input thread is handling a packet of that socket's
 * association (it takes its reference on the socket too late): a double free in sofree. So a
 * socket is closed only once its association is gone (ended, or aborted by us first).
 */
static int association_gone(struct socket *s) {
	struct sctp_status status;
	socklen_t len = sizeof(status);
	memset(&status, 0, sizeof(status));
	return usrsctp_getsockopt(s, IPPROTO_SCTP, SCTP_STATUS, &status, &len) != 0;
}

static void abort_association(struct socket *s) {
	struct sctp_sndinfo info;
	memset(&info, 0, sizeof(info));
	info.snd_flags = SCTP_ABORT;
	usrsctp_sendv(s, NULL, 0, NULL, 0, &info, sizeof(info), SCTP_SENDV_SNDINFO, 0);
}

/* Graceful SHUTDOWN of every association, a second at most; the sockets die with the process. */
static _Noreturn void quit(void) {
	for (int i = 0; i < association_count; i++)
		if (!associations[i].closed) usrsctp_shutdown(associations[i].sock, SHUT_WR);
	for (int tries = 0; tries < 20; tries++) {
		int open = 0;
		for (int i = 0; i < association_count; i++)
			if (!associations[i].closed && !association_gone(associations[i].sock)) open++;
		if (open == 0) break;
		usleep(50000);
	}
	out("bye");
	exit(0);
}

static _Noreturn void run_client(struct addrs *targets, int target_count, const char *bind_text,
                      int count, int interval_ms, int timeout_ms) {
	struct addrs local;
	if (bind_text) parse_addrs(bind_text, 0, &local);
	int domain = bind_text ? domain_of(&local) : AF_INET;
	for (int t = 0; t < target_count; t++)
		if (domain_of(&targets[t]) == AF_INET6) domain = AF_INET6;
	start_stack(bind_text ? &local : NULL);
	associations = calloc((size_t)count, sizeof(*associations));
	association_count = count;
	for (int i = 0; i < count; i++) {
		struct association *a = &associations[i];
		a->index = i;
		a->state = OPENING;
		a->since = now_ms();
		a->sock = open_socket(domain, bind_text ? &local : NULL, bind_text, client_receive, a);
		if (start_connect(a->sock, &targets[i % target_count]) < 0) {
			pthread_mutex_lock(&lock);
			mark_lost(a, "cant-start");
			pthread_mutex_unlock(&lock);
			continue;
		}
		out("open %d %u", i, local_port(a->sock));
	}

	char line[256];
	size_t have = 0;
	int commands = 1;
	int64_t next = now_ms();
	for (;;) {
		int64_t wait = next - now_ms();
		struct pollfd in = {.fd = commands ? 0 : -1, .events = POLLIN};
		int ready = poll(&in, 1, wait > 0 ? (int)wait : 0);
		if (ready > 0) {
			ssize_t n = read(0, line + have, sizeof(line) - 1 - have);
			if (n <= 0) {
				/* No more commands (stdin closed or /dev/null): go on until killed. */
				if (n == 0 || errno != EINTR) commands = 0;
			} else {
				have += (size_t)n;
				line[have] = '\0';
				char *end;
				while ((end = strchr(line, '\n'))) {
					*end = '\0';
					if (strcmp(line, "stats") == 0) {
						pthread_mutex_lock(&lock);
						pthread_mutex_lock(&out_lock);
						for (int i = 0; i < count; i++) {
							struct association *a = &associations[i];
							printf("stats %d %llu %llu %s\n", i, (unsigned long long)a->sent,
							       (unsigned long long)a->echoed, a->server[0] ? a->server : "-");
						}
						printf("stats-end\n");
						fflush(stdout);
						pthread_mutex_unlock(&out_lock);
						pthread_mutex_unlock(&lock);
					} else if (strcmp(line, "quit") == 0) {
						quit();
					} else if (line[0]) {
						fprintf(stderr, "sctp-peer: unknown command: %s\n", line);
					}
					size_t used = (size_t)(end - line) + 1;
					memmove(line, end + 1, have - used + 1);
					have -= used;
				}
				if (have == sizeof(line) - 1) have = 0;
			}
			continue;
		}
		next += interval_ms;
		int64_t now = now_ms();
		for (int i = 0; i < count; i++) {
			struct association *a = &associations[i];
			pthread_mutex_lock(&lock);
			if (a->state != LOST && now - a->since > timeout_ms)
				mark_lost(a, a->state == OPENING ? "cant-start" : "no-echo");
			int send = a->state == OPEN;
			int lost = a->state == LOST && !a->closed;
			int64_t lost_for = now - a->lost_at;
			uint64_t seq = a->sent;
			pthread_mutex_unlock(&lock);
			if (lost) {
				if (!association_gone(a->sock)) {
					abort_association(a->sock);
				} else if (lost_for > 1000) {
					pthread_mutex_lock(&lock);
					a->closed = 1;
					pthread_mutex_unlock(&lock);
					usrsctp_close(a->sock);
				}
				continue;
			}
			if (!send) continue;
			char message[64];
			int len = snprintf(message, sizeof(message), "%d %llu", i, (unsigned long long)seq);
			struct sctp_sndinfo info;
			memset(&info, 0, sizeof(info));
			if (usrsctp_sendv(a->sock, message, (size_t)len, NULL, 0, &info, sizeof(info),
			                  SCTP_SENDV_SNDINFO, 0) >= 0) {
				pthread_mutex_lock(&lock);
				a->sent++;
				pthread_mutex_unlock(&lock);
			}
		}
	}
}

/* ---------------------------------------------------------------- rate */

struct worker {
	pthread_t thread;
	const struct addrs *remote, *local;
	const char *local_text;
	int domain;
	int64_t until;
	long done, failed;
};

/*
 * Blocking sockets without a receive callback: connect returns once the four-way handshake is
 * done. Each socket then shuts down gracefully and waits in `pending` until its association is
 * gone before it is closed (see association_gone).
 */
#define PENDING 16384
struct pending {
	struct socket *sock[PENDING];
	int64_t since[PENDING];
	int head, tail;
};

static void settle(struct pending *p, int all) {
	while (p->head != p->tail) {
		struct socket *s = p->sock[p->head];
		if (!association_gone(s)) {
			if (!all && p->tail != (p->head + PENDING - 1) % PENDING &&
			    now_ms() - p->since[p->head] < 3000)
				return;
			abort_association(s);
			if (!association_gone(s)) return;
		}
		usrsctp_close(s);
		p->head = (p->head + 1) % PENDING;
	}
}

static void *rate_worker(void *arg) {
	struct worker *w = arg;
	struct pending *p = calloc(1, sizeof(*p));
	const struct sockaddr_storage *to = &w->remote->a[0];
	socklen_t to_len = to->ss_family == AF_INET ? sizeof(struct sockaddr_in)
	                                            : sizeof(struct sockaddr_in6);
	while (now_ms() < w->until) {
		struct socket *s = usrsctp_socket(w->domain, SOCK_STREAM, IPPROTO_SCTP, NULL, NULL, 0, NULL);
		if (!s) die("usrsctp_socket: %s (root needed for raw IP)", strerror(errno));
		if (w->local) bind_all(s, w->local, w->local_text);
		if (usrsctp_connect(s, (struct sockaddr *)to, to_len) == 0) {
			w->done++;
			usrsctp_shutdown(s, SHUT_WR);
		} else {
			w->failed++;
		}
		p->sock[p->tail] = s;
		p->since[p->tail] = now_ms();
		p->tail = (p->tail + 1) % PENDING;
		settle(p, 0);
	}
	int64_t give_up = now_ms() + 3000;
	while (p->head != p->tail && now_ms() < give_up) {
		usleep(10000);
		settle(p, 0);
	}
	settle(p, 1);
	free(p);
	return NULL;
}

static int run_rate(const struct addrs *remote, const char *bind_text, int seconds, int parallel) {
	struct addrs local;
	if (bind_text) parse_addrs(bind_text, 0, &local);
	int domain = domain_of(remote) == AF_INET6 || (bind_text && domain_of(&local) == AF_INET6)
	                 ? AF_INET6
	                 : AF_INET;
	start_stack(bind_text ? &local : NULL);
	struct worker *workers = calloc((size_t)parallel, sizeof(*workers));
	int64_t until = now_ms() + (int64_t)seconds * 1000;
	for (int i = 0; i < parallel; i++) {
		struct worker *w = &workers[i];
		w->remote = remote;
		w->local = bind_text ? &local : NULL;
		w->local_text = bind_text;
		w->domain = domain;
		w->until = until;
		pthread_create(&w->thread, NULL, rate_worker, w);
	}
	long done = 0, failed = 0;
	for (int i = 0; i < parallel; i++) {
		pthread_join(workers[i].thread, NULL);
		done += workers[i].done;
		failed += workers[i].failed;
	}
	out("failed %ld", failed);
	out("associations %ld", done);
	return 0;
}

/* ---------------------------------------------------------------- main */

static void usage(void) {
	fputs("usage:\n"
	      "  sctp-peer server --name NAME --port P --bind ADDR[,ADDR2] [--quiet]\n"
	      "  sctp-peer client --connect ADDR[,ADDR2] [--connect ...] --port P"
	      " [--bind LOCAL[,LOCAL2]] --associations N [--interval-ms 100] [--timeout-ms 3000]\n"
	      "  sctp-peer rate --connect ADDR[,ADDR2] --port P [--bind LOCAL[,LOCAL2]]"
	      " --seconds S [--parallel K]\n",
	      stderr);
	exit(2);
}

static int number(const char *text, const char *option, int min, int max) {
	char *end;
	long value = strtol(text, &end, 10);
	if (*text == '\0' || *end != '\0' || value < min || value > max)
		die("%s wants a number from %d to %d, not \"%s\"", option, min, max, text);
	return (int)value;
}

int main(int argc, char **argv) {
	if (argc < 2) usage();
	/* Gone with the test that started it, even when that one is killed. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGPIPE, SIG_IGN);
	const char *mode = argv[1], *name = NULL, *bind_text = NULL;
	const char *connect[MAX_TARGETS];
	int connects = 0, port = -1, count = 1, interval_ms = 100, timeout_ms = 3000, seconds = 5,
	    parallel = 1, quiet = 0;
	for (int i = 2; i < argc; i++) {
		const char *option = argv[i];
		if (strcmp(option, "--quiet") == 0) {
			quiet = 1;
			continue;
		}
		if (i + 1 >= argc) die("%s wants a value", option);
		const char *value = argv[++i];
		if (strcmp(option, "--name") == 0)
			name = value;
		else if (strcmp(option, "--bind") == 0)
			bind_text = value;
		else if (strcmp(option, "--connect") == 0) {
			if (connects == MAX_TARGETS) die("at most %d --connect", MAX_TARGETS);
			connect[connects++] = value;
		} else if (strcmp(option, "--port") == 0)
			port = number(value, option, 1, 65535);
		else if (strcmp(option, "--associations") == 0)
			count = number(value, option, 1, 100000);
		else if (strcmp(option, "--interval-ms") == 0)
			interval_ms = number(value, option, 1, 600000);
		else if (strcmp(option, "--timeout-ms") == 0)
			timeout_ms = number(value, option, 1, 600000);
		else if (strcmp(option, "--seconds") == 0)
			seconds = number(value, option, 1, 3600);
		else if (strcmp(option, "--parallel") == 0)
			parallel = number(value, option, 1, 256);
		else
			die("unknown option %s", option);
	}
	if (port < 0) die("--port is needed");
	if (strcmp(mode, "server") == 0) {
		if (!name || !bind_text) die("server wants --name and --bind");
		if (strchr(name, ' ') || strlen(name) >= 64) die("--name: one word under 64 characters");
		run_server(name, (uint16_t)port, bind_text, quiet);
	}
	if (connects == 0) die("%s wants --connect", mode);
	struct addrs targets[MAX_TARGETS];
	for (int t = 0; t < connects; t++) parse_addrs(connect[t], (uint16_t)port, &targets[t]);
	if (strcmp(mode, "client") == 0)
		run_client(targets, connects, bind_text, count, interval_ms, timeout_ms);
	if (strcmp(mode, "rate") == 0) {
		if (connects > 1) die("rate takes one --connect");
		return run_rate(&targets[0], bind_text, seconds, parallel);
	}
	usage();
}
