/*
 * The dataplane benchmark's application service (C, one thread, epoll): echoes what each
 * connection sends and closes when the peer does. `echo HOST PORT`. Built with `cc -O2`.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: echo HOST PORT\n");
    return 2;
  }
  struct rlimit rl = {65536, 65536};
  setrlimit(RLIMIT_NOFILE, &rl);
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[2]))};
  if (inet_pton(AF_INET, argv[1], &address.sin_addr) != 1) return 2;
  int one = 1;
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (bind(listener, (struct sockaddr *)&address, sizeof(address)) < 0 ||
      listen(listener, 4096) < 0) {
    perror("echo: listen");
    return 1;
  }
  int epfd = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN, .data.fd = listener}, events[256];
  epoll_ctl(epfd, EPOLL_CTL_ADD, listener, &ev);
  static char buffer[65536];
  for (;;) {
    int n = epoll_wait(epfd, events, 256, -1);
    for (int i = 0; i < n; i++) {
      int fd = events[i].data.fd;
      if (fd == listener) {
        int c;
        while ((c = accept4(listener, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
          setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
          struct epoll_event cev = {.events = EPOLLIN, .data.fd = c};
          epoll_ctl(epfd, EPOLL_CTL_ADD, c, &cev);
        }
        continue;
      }
      ssize_t r = read(fd, buffer, sizeof(buffer));
      if (r > 0) {
        /* Small echoes: a short write on a fresh socket does not happen at these sizes. */
        if (write(fd, buffer, r) == r) continue;
      } else if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        continue;
      }
      epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
      close(fd);
    }
  }
}
