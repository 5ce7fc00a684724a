// colod's metrics responder alone (metrics_http.h), on loopback, driven on
// the test's thread with a time the test sets: well-formed scrapes are
// answered; garbage, oversized, slow and non-reading clients are answered
// with an error or dropped, within bounds, and never keep another scrape
// from its answer.
#include "runtime/metrics_http.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace colo::runtime {
namespace {

// A server on 127.0.0.1, a free port, rendering `body`.
class MetricsHttpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MetricsSettings s;
    s.enabled = true;
    s.host = "127.0.0.1";
    s.port = 0;
    auto m = MetricsServer::Start(s, 0600, -1, [this] {
      ++renders_;
      return body_;
    });
    ASSERT_TRUE(m.ok()) << m.status().message();
    server_ = std::move(*m);
    const std::string& a = server_->address();
    port_ = std::stoi(a.substr(a.rfind(':') + 1));
  }
  ~MetricsHttpTest() override {
    for (int fd : fds_) close(fd);
  }

  // A blocking client socket connected to the server (the kernel completes
  // the handshake from the backlog; the server accepts at its next turn).
  int Connect() {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port_));
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    timeval tv{5, 0};  // a read the server never answers fails the test.
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    fds_.push_back(fd);
    return fd;
  }
  void Send(int fd, const std::string& s) {
    ASSERT_EQ(send(fd, s.data(), s.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(s.size()));
  }
  // Lets the server take what is ready: a few turns of its loop, each
  // after its descriptor said there is work (or 20 ms passed).
  void Pump(int turns = 5) {
    for (int i = 0; i < turns; ++i) {
      pollfd p{server_->fd(), POLLIN, 0};
      poll(&p, 1, 20);
      server_->Service(now_);
    }
  }
  // Everything the server sends until it closes (pumping it meanwhile).
  std::string ReadAll(int fd) {
    std::string out;
    for (int i = 0; i < 500; ++i) {
      Pump(1);
      char buf[4096];
      const ssize_t r = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
      if (r == 0) return out;
      if (r > 0) out.append(buf, static_cast<size_t>(r));
    }
    ADD_FAILURE() << "the server did not close the connection";
    return out;
  }
  // Whether the server closed fd (EOF or reset) without sending anything.
  bool ClosedSilently(int fd) {
    Pump(2);
    char c;
    const ssize_t r = recv(fd, &c, 1, MSG_DONTWAIT);
    return r == 0 || (r < 0 && errno == ECONNRESET);
  }

  std::unique_ptr<MetricsServer> server_;
  std::string body_ = "# HELP a_total A.\n# TYPE a_total counter\na_total 1\n";
  int renders_ = 0;
  int port_ = 0;
  TimePoint now_ = TimeZero();
  std::vector<int> fds_;
};

TEST_F(MetricsHttpTest, GetMetricsIsAnsweredWithTheTextFormat) {
  const int fd = Connect();
  Send(fd, "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n");
  const std::string r = ReadAll(fd);
  EXPECT_EQ(r.substr(0, r.find("\r\n")), "HTTP/1.1 200 OK");
  EXPECT_NE(r.find("Content-Type: text/plain; version=0.0.4"),
            std::string::npos);
  EXPECT_NE(r.find("Content-Length: " + std::to_string(body_.size())),
            std::string::npos);
  EXPECT_EQ(r.substr(r.find("\r\n\r\n") + 4), body_);
  EXPECT_EQ(server_->scrapes(), 1);
  EXPECT_EQ(server_->open_connections(), 0u);
}

TEST_F(MetricsHttpTest, OtherRequestsGetTheirErrorCodes) {
  const struct {
    std::string request;
    std::string status;
  } cases[] = {
      {"GET / HTTP/1.1\r\n\r\n", "HTTP/1.1 404 Not Found"},
      {"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
       "HTTP/1.1 405 Method Not Allowed"},
      {"hello there\r\n\r\n", "HTTP/1.1 400 Bad Request"},
      {"GET /metrics SPDY/3\r\n\r\n", "HTTP/1.1 400 Bad Request"},
      {std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11) +
           "\r\n\r\n",
       "HTTP/1.1 400 Bad Request"},
  };
  for (const auto& c : cases) {
    const int fd = Connect();
    Send(fd, c.request);
    const std::string r = ReadAll(fd);
    EXPECT_EQ(r.substr(0, r.find("\r\n")), c.status) << c.request;
  }
  EXPECT_EQ(renders_, 0);  // only GET /metrics renders.
}

TEST_F(MetricsHttpTest, OversizedHeadersAreRefusedAtTheBound) {
  // A head that never ends: the server reads kMaxRequestBytes + 1 and
  // answers 431; its buffer never holds more.
  const int fd = Connect();
  const std::string big = "GET /metrics HTTP/1.1\r\nX: " +
                          std::string(MetricsServer::kMaxRequestBytes, 'a');
  Send(fd, big);
  const std::string r = ReadAll(fd);
  EXPECT_EQ(r.substr(0, r.find("\r\n")),
            "HTTP/1.1 431 Request Header Fields Too Large");
}

TEST_F(MetricsHttpTest, SlowClientsAreDroppedAtTheDeadline) {
  // Slowloris: a request head sent a few bytes at a time, never finished.
  const int slow = Connect();
  Send(slow, "GET /met");
  Pump();
  EXPECT_EQ(server_->open_connections(), 1u);
  now_ = now_ + MetricsServer::kExchangeTimeout - Milliseconds(1);
  Send(slow, "ri");
  Pump();
  EXPECT_EQ(server_->open_connections(), 1u);  // within its deadline.
  now_ = now_ + Milliseconds(1);               // accepted + the timeout.
  server_->Expire(now_);
  EXPECT_EQ(server_->open_connections(), 0u);
  EXPECT_TRUE(ClosedSilently(slow));
  EXPECT_EQ(server_->dropped(), 1);
}

TEST_F(MetricsHttpTest, ACrowdOfStalledClientsDoesNotKeepAScrapeOut) {
  // kMaxConnections + 4 clients each open and stalled mid-request: the
  // server holds at most kMaxConnections (closing the oldest for a new
  // one), and a scrape that comes after them is answered at once.
  std::vector<int> stalled;
  for (size_t i = 0; i < MetricsServer::kMaxConnections + 4; ++i) {
    stalled.push_back(Connect());
    Send(stalled.back(), "GET /metrics HTTP/1.1\r\nHost:");
    Pump(1);
    EXPECT_LE(server_->open_connections(), MetricsServer::kMaxConnections);
  }
  const int good = Connect();
  Send(good, "GET /metrics HTTP/1.1\r\n\r\n");
  const std::string r = ReadAll(good);
  EXPECT_EQ(r.substr(0, r.find("\r\n")), "HTTP/1.1 200 OK");
  EXPECT_TRUE(ClosedSilently(stalled.front()));  // the oldest went first.
  EXPECT_GE(server_->dropped(), 5);
}

TEST_F(MetricsHttpTest, AClientThatDoesNotReadCannotBlockTheServer) {
  // A 16 MiB answer to a client that never reads: the socket takes part of
  // it, the server keeps the rest and returns to its loop at once (every
  // Pump returns), serves another scrape, and drops the non-reader at its
  // deadline.
  body_ = std::string(16 << 20, 'x');
  const int sink = Connect();
  Send(sink, "GET /metrics HTTP/1.1\r\n\r\n");
  Pump();
  EXPECT_EQ(server_->open_connections(), 1u);
  body_ = "small\n";
  const int good = Connect();
  Send(good, "GET /metrics HTTP/1.1\r\n\r\n");
  const std::string r = ReadAll(good);
  EXPECT_EQ(r.substr(r.find("\r\n\r\n") + 4), "small\n");
  now_ = now_ + MetricsServer::kExchangeTimeout;
  server_->Expire(now_);
  EXPECT_EQ(server_->open_connections(), 0u);
  EXPECT_EQ(server_->dropped(), 1);
}

TEST(MetricsUnixSocketTest, ServesOnAUnixSocketWithItsModeAndRemovesIt) {
  char tmpl[] = "/tmp/colo-metrics-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  MetricsSettings s;
  s.enabled = true;
  s.socket_path = dir + "/m.sock";
  {
    auto m = MetricsServer::Start(s, 0600, -1, [] { return "u 1\n"; });
    ASSERT_TRUE(m.ok()) << m.status().message();
    EXPECT_EQ((*m)->address(), "unix:" + s.socket_path);
    struct stat st {};
    ASSERT_EQ(stat(s.socket_path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::snprintf(a.sun_path, sizeof a.sun_path, "%s", s.socket_path.c_str());
    ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    const std::string req = "GET /metrics HTTP/1.0\r\n\r\n";
    ASSERT_EQ(send(fd, req.data(), req.size(), 0),
              static_cast<ssize_t>(req.size()));
    std::string out;
    for (int i = 0; i < 200; ++i) {
      pollfd p{(*m)->fd(), POLLIN, 0};
      poll(&p, 1, 10);
      (*m)->Service(TimeZero());
      char buf[512];
      const ssize_t r = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
      if (r == 0) break;
      if (r > 0) out.append(buf, static_cast<size_t>(r));
    }
    close(fd);
    EXPECT_EQ(out.substr(out.find("\r\n\r\n") + 4), "u 1\n");
  }
  EXPECT_FALSE(std::filesystem::exists(s.socket_path));
  std::filesystem::remove_all(dir);
}

TEST(MetricsServerStartTest, APortInUseIsUnavailable) {
  MetricsSettings s;
  s.enabled = true;
  s.host = "127.0.0.1";
  auto first = MetricsServer::Start(s, 0600, -1, [] { return ""; });
  ASSERT_TRUE(first.ok());
  const std::string& a = (*first)->address();
  s.port = static_cast<uint16_t>(std::stoi(a.substr(a.rfind(':') + 1)));
  auto second = MetricsServer::Start(s, 0600, -1, [] { return ""; });
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(second.status().message().find(a), std::string::npos)
      << second.status().message();
}

}  // namespace
}  // namespace colo::runtime
