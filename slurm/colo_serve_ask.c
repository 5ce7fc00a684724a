/*
 * colo-serve-ask SOCKET TIMEOUT_MS REQUEST: sends one request line to
 * `colo serve` on its Unix socket and prints the one-line answer.
 *
 * Slurm's job_submit/lua runs Lua 5.1 with no socket library (Debian's
 * slurmctld links liblua5.1 and nothing more), so job_submit.lua reaches
 * colo serve through this helper with io.popen: one small process per GPU
 * job, bounded by TIMEOUT_MS in all (connect, send, answer). Any failure
 * prints {"ok":false,"error":"..."} and exits 1, so the caller falls back
 * to Slurm's own choice and never waits longer than the timeout.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static long long NowMs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Prints the failure as an answer the caller reads like any other. */
static int Fail(const char *what, const char *detail) {
  printf("{\"ok\":false,\"error\":\"colo serve: %s", what);
  for (const char *p = detail; p && *p; ++p) {
    if (*p == '"' || *p == '\\') putchar('\\');
    if ((unsigned char)*p >= 0x20) putchar(*p);
  }
  printf("\"}\n");
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: colo-serve-ask SOCKET TIMEOUT_MS REQUEST\n");
    return 2;
  }
  const char *path = argv[1];
  const long timeout_ms = strtol(argv[2], NULL, 10);
  const char *request = argv[3];
  if (timeout_ms <= 0 || timeout_ms > 60000) {
    fprintf(stderr, "colo-serve-ask: TIMEOUT_MS must be in 1..60000\n");
    return 2;
  }
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof(addr));
  if (strlen(path) >= sizeof(addr.sun_path))
    return Fail("socket path too long", "");
  addr.sun_family = AF_UNIX;
  strcpy(addr.sun_path, path);
  const long long deadline = NowMs() + timeout_ms;
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Fail("socket: ", strerror(errno));
  /* A Unix-socket connect does not block on a live listener, and fails at
   * once where nobody listens. */
  if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0)
    return Fail("not reachable: ", strerror(errno));
  const size_t len = strlen(request);
  if (send(fd, request, len, MSG_NOSIGNAL) != (ssize_t)len ||
      send(fd, "\n", 1, MSG_NOSIGNAL) != 1)
    return Fail("send: ", strerror(errno));
  char buf[65536];
  size_t got = 0;
  for (;;) {
    const long long left = deadline - NowMs();
    if (left <= 0) return Fail("no answer within the timeout", "");
    struct pollfd p = {fd, POLLIN, 0};
    const int n = poll(&p, 1, (int)left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Fail("no answer within the timeout", "");
    const ssize_t r = read(fd, buf + got, sizeof(buf) - 1 - got);
    if (r <= 0) return Fail("closed without an answer", "");
    got += (size_t)r;
    buf[got] = '\0';
    char *nl = strchr(buf, '\n');
    if (nl != NULL) {
      *nl = '\0';
      puts(buf);
      close(fd);
      return 0;
    }
    if (got == sizeof(buf) - 1) return Fail("answer too long", "");
  }
}
