/*
 * The dataplane benchmark's load generator (C, one thread, epoll), so that the client costs
 * little and varies little next to what is measured. New TCP connections at a paced rate, each
 * sending BYTES and waiting for their echo, then closing (FIN, the client closes first); prints
 * one JSON line: counts and the latency (connect to echo) percentiles in microseconds.
 *
 *   loadgen RATE SECONDS BYTES TIMEOUT_MS HOST:PORT [HOST:PORT ...]
 *
 * Connections go to the targets in turn. Built by the benchmark with `cc -O2`.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_FD 65536
#define MAX_TARGETS 16

struct conn {
  double start;  /* µs, monotonic */
  int received;
  int active;
};

static struct conn conns[MAX_FD];
static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}
static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: loadgen RATE SECONDS BYTES TIMEOUT_MS HOST:PORT...\n");
    return 2;
  }
  double rate = atof(argv[1]), seconds = atof(argv[2]);
  int bytes = atoi(argv[3]);
  double timeout_us = atof(argv[4]) * 1000;
  struct sockaddr_in targets[MAX_TARGETS];
  int ntargets = 0;
  for (int i = 5; i < argc && ntargets < MAX_TARGETS; i++) {
    char host[64];
    int port;
    if (sscanf(argv[i], "%63[^:]:%d", host, &port) != 2) return 2;
    memset(&targets[ntargets], 0, sizeof(targets[0]));
    targets[ntargets].sin_family = AF_INET;
    targets[ntargets].sin_port = htons(port);
    if (inet_pton(AF_INET, host, &targets[ntargets].sin_addr) != 1) return 2;
    ntargets++;
  }
  struct rlimit rl = {MAX_FD, MAX_FD};
  setrlimit(RLIMIT_NOFILE, &rl);

  long total = (long)(rate * seconds + 0.5);
  double *latencies = malloc(sizeof(double) * (total > 0 ? total : 1));
  char *payload = malloc(bytes), buffer[65536];
  memset(payload, 'a', bytes);
  long launched = 0, ok = 0, failed = 0, timeouts = 0, refused = 0, in_flight = 0;
  int epfd = epoll_create1(0);
  struct epoll_event events[256];
  double start = now_us(), last_sweep = start;
  int one = 1, max_fd = 0;

#define FINISH(fd, success)                      \
  do {                                           \
    epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);    \
    close(fd);                                   \
    conns[fd].active = 0;                        \
    in_flight--;                                 \
    if (!(success)) failed++;                    \
  } while (0)

  while (launched < total || in_flight > 0) {
    double t = now_us();
    long due = (long)((t - start) / 1e6 * rate);
    if (due > total) due = total;
    while (launched < due) {
      int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
      launched++;
      if (fd < 0 || fd >= MAX_FD) {
        if (fd >= 0) close(fd);
        failed++;
        continue;
      }
      if (fd > max_fd) max_fd = fd;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      conns[fd].start = now_us();
      conns[fd].received = 0;
      conns[fd].active = 1;
      in_flight++;
      struct sockaddr_in *target = &targets[(launched - 1) % ntargets];
      if (connect(fd, (struct sockaddr *)target, sizeof(*target)) < 0 && errno != EINPROGRESS) {
        refused++;
        close(fd);
        conns[fd].active = 0;
        in_flight--;
        failed++;
        continue;
      }
      struct epoll_event ev = {.events = EPOLLOUT, .data.fd = fd};
      epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
    }
    int n = epoll_wait(epfd, events, 256, 1);
    for (int i = 0; i < n; i++) {
      int fd = events[i].data.fd;
      if (!conns[fd].active) continue;
      if (events[i].events & EPOLLOUT) {
        int err = 0;
        socklen_t len = sizeof(err);
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
        if (err != 0 || write(fd, payload, bytes) != bytes) {
          if (err == ECONNREFUSED || err == ECONNRESET) refused++;
          FINISH(fd, 0);
          continue;
        }
        struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
        epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev);
      } else if (events[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
        ssize_t r = read(fd, buffer, sizeof(buffer));
        if (r <= 0) {
          if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) continue;
          if (r < 0 && errno == ECONNRESET) refused++;
          FINISH(fd, 0);
          continue;
        }
        conns[fd].received += r;
        if (conns[fd].received >= bytes) {
          latencies[ok++] = now_us() - conns[fd].start;
          FINISH(fd, 1);
        }
      }
    }
    t = now_us();
    if (t - last_sweep > 10000) {
      last_sweep = t;
      for (int fd = 0; fd <= max_fd; fd++)
        if (conns[fd].active && t - conns[fd].start > timeout_us) {
          timeouts++;
          FINISH(fd, 0);
        }
    }
  }
  double wall_ms = (now_us() - start) / 1000;
  qsort(latencies, ok, sizeof(double), compare);
  /* Nearest rank: the ceil(p/100 × ok)-th smallest. */
  double p50 = -1, p99 = -1;
  if (ok > 0) {
    long r50 = (long)(0.50 * ok + 0.999999), r99 = (long)(0.99 * ok + 0.999999);
    p50 = latencies[(r50 < 1 ? 1 : r50) - 1];
    p99 = latencies[(r99 < 1 ? 1 : r99) - 1];
  }
  printf(
      "{\"launched\":%ld,\"ok\":%ld,\"failed\":%ld,\"timeouts\":%ld,\"refused\":%ld,\"wallMs\":%.1f,"
      "\"p50Us\":%.1f,\"p99Us\":%.1f,\"maxUs\":%.1f}\n",
      launched, ok, failed, timeouts, refused, wall_ms, p50, p99,
      ok ? latencies[ok - 1] : -1);
  return 0;
}
