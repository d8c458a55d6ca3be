/*
 * A paced flood of TCP SYNs for the Global Packet Rate Limit's test and benchmark (issue 27): it
 * sends RATE packets a second for SECONDS from SOURCE to TARGET:PORT over a raw socket, each from
 * the next source port of 20000–59999, so that every one is a new connection to the IPFE and none
 * is held back by a socket's congestion control. Prints one JSON line: {"sent":N,"seconds":S}.
 *
 *   syn-flood SOURCE TARGET PORT RATE SECONDS
 *
 * Whatever answers (a server's SYN-ACK) finds no socket: the caller drops it at SOURCE so that no
 * RST comes back through the IPFE.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint16_t checksum(const void *data, size_t len, uint32_t sum) {
  const uint16_t *p = data;
  for (; len > 1; len -= 2) sum += *p++;
  if (len) sum += *(const uint8_t *)p;
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return (uint16_t)~sum;
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: syn-flood SOURCE TARGET PORT RATE SECONDS\n");
    return 2;
  }
  struct in_addr source, target;
  if (inet_pton(AF_INET, argv[1], &source) != 1 || inet_pton(AF_INET, argv[2], &target) != 1) {
    fprintf(stderr, "syn-flood: SOURCE and TARGET must be IPv4 addresses\n");
    return 2;
  }
  int port = atoi(argv[3]);
  double rate = atof(argv[4]), seconds = atof(argv[5]);
  if (port < 1 || port > 65535 || rate <= 0 || seconds <= 0) {
    fprintf(stderr, "syn-flood: PORT 1-65535, RATE and SECONDS above 0\n");
    return 2;
  }
  int fd = socket(AF_INET, SOCK_RAW, IPPROTO_TCP);
  if (fd < 0) {
    perror("syn-flood: socket");
    return 1;
  }
  struct sockaddr_in from = {.sin_family = AF_INET, .sin_addr = source};
  if (bind(fd, (struct sockaddr *)&from, sizeof from) < 0) {
    perror("syn-flood: bind");
    return 1;
  }
  struct sockaddr_in to = {.sin_family = AF_INET, .sin_addr = target};

  struct tcphdr syn;
  /* The pseudo-header's part of the checksum: addresses, protocol, TCP length. */
  uint32_t pseudo = 0;
  const uint16_t *s = (const uint16_t *)&source.s_addr, *t = (const uint16_t *)&target.s_addr;
  pseudo += s[0] + s[1] + t[0] + t[1] + htons(IPPROTO_TCP) + htons(sizeof syn);

  long sent = 0, errors = 0;
  double start = now_s();
  for (;;) {
    double elapsed = now_s() - start;
    if (elapsed >= seconds) break;
    long due = (long)(elapsed * rate);
    for (; sent < due; sent++) {
      memset(&syn, 0, sizeof syn);
      syn.source = htons(20000 + sent % 40000);
      syn.dest = htons(port);
      syn.seq = htonl((uint32_t)random());
      syn.doff = 5;
      syn.syn = 1;
      syn.window = htons(64240);
      syn.check = checksum(&syn, sizeof syn, pseudo);
      if (sendto(fd, &syn, sizeof syn, 0, (struct sockaddr *)&to, sizeof to) < 0) errors++;
    }
    struct timespec pause = {0, 200000}; /* 0.2 ms: pacing finer than the limit's burst */
    nanosleep(&pause, NULL);
  }
  printf("{\"sent\":%ld,\"errors\":%ld,\"seconds\":%.3f}\n", sent, errors, now_s() - start);
  return 0;
}
