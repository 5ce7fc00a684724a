// colod against clients that attack the memory it shares with them, run as
// a real colod process: whatever one client does to its own ring, colod and
// every other client go on.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>

#include "colod_harness.h"
#include "ipc/launch_ring.h"
#include "ipc/runtime_client.h"
#include "ipc/wire.h"
#include "support/unsealed_ring.h"

namespace colo::testing {
namespace {

// A client that shrinks its ring (ftruncate) after connecting would fault
// colod's next read of it (SIGBUS). The ring is sealed at its size: the
// shrink fails, and colod keeps serving everyone.
TEST(ColodHostileClientTest, AClientCannotShrinkTheRingColodMaps) {
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto attacker = ipc::RuntimeClient::Connect(AppOptions(colod));
  ASSERT_TRUE(attacker.ok()) << attacker.status().ToString();
  auto other = ipc::RuntimeClient::Connect(AppOptions(colod));
  ASSERT_TRUE(other.ok());
  ipc::LaunchRing* ring = (*attacker)->ring();
  errno = 0;
  EXPECT_NE(ftruncate(ring->memfd(), 0), 0);
  EXPECT_EQ(errno, EPERM);
  // Make colod read the ring: an entry, then the doorbell.
  ipc::RingEntry launch;
  launch.type = static_cast<uint32_t>(ipc::EntryType::kLaunch);
  launch.seq = 1;
  launch.func_id = 7;
  ASSERT_TRUE(ring->Push(launch).ok());
  EXPECT_TRUE(colod.LogHas("launch of undefined kernel id 7"));
  EXPECT_FALSE(colod.process().Ended()) << colod.Log();
  EXPECT_TRUE((*other)->Sync(0).ok());
}

// A hello whose ring lives in memory that could still shrink is refused
// with a reason before colod maps it; the next client is served.
TEST(ColodHostileClientTest, ARingThatIsNotSealedIsRefused) {
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  const int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(sock, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, colod.socket().c_str(),
               sizeof(addr.sun_path) - 1);
  ASSERT_EQ(connect(sock, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  // A well-formed ring, but in an unsealed memfd.
  const int mfd = MakeUnsealedRingMemfd();
  ASSERT_GE(mfd, 0);
  const int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  int pair[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair), 0);
  ipc::HelloMsg hello;
  hello.role = static_cast<uint32_t>(ipc::ClientRole::kApp);
  hello.pid = getpid();
  ipc::CopyString(hello.program, "unsealed");
  ASSERT_TRUE(
      ipc::SendStruct(sock, ipc::MsgType::kHello, hello, {mfd, efd, pair[1]})
          .ok());
  EXPECT_TRUE(colod.LogHas(
      "dropped: protocol error: ring memory is not a memfd sealed"))
      << colod.Log();
  // Had colod mapped it, this would have faulted colod on its next read.
  EXPECT_EQ(ftruncate(mfd, 0), 0);
  EXPECT_FALSE(colod.process().Ended());
  auto other = ipc::RuntimeClient::Connect(AppOptions(colod));
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  EXPECT_TRUE((*other)->Sync(0).ok());
  for (int fd : {sock, mfd, efd, pair[0], pair[1]}) close(fd);
}

// colod logs to stderr; when whatever reads it (a pipe to a supervisor, a
// terminal) goes away, the next client's log line must not kill colod
// (SIGPIPE). Its log here is a FIFO whose reader leaves after start-up.
TEST(ColodHostileClientTest, ColodOutlivesTheReaderOfItsLog) {
  TempDir dir;
  const std::string fifo = dir.path() + "/colod.log";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  Colod colod(dir, "");  // opens the FIFO's other end as its stderr
  ASSERT_TRUE(colod.ready());
  close(reader);
  for (int i = 0; i < 3; ++i) {  // each registers, and logs a line
    auto client = ipc::RuntimeClient::Connect(AppOptions(colod));
    ASSERT_TRUE(client.ok())
        << "client " << i << ": " << client.status().ToString();
    EXPECT_TRUE((*client)->Sync(0).ok());
  }
  EXPECT_FALSE(colod.process().Ended());
}

// An operator's token of 64 characters (`openssl rand -hex 32`), or of the
// most a hello carries, matches its grant whole; the client cuts none.
TEST(ColodHostileClientTest, ALongTokenMatchesItsGrantWhole) {
  TempDir dir;
  const std::string token(64, 'a');
  const std::string longest(ipc::kMaxTokenBytes, 'b');
  Colod colod(dir, "grants:\n  - {token: " + token +
                       ", class: high}\n  - {token: " + longest +
                       ", class: high}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  ipc::ClientOptions o = AppOptions(colod);
  o.requested_class = ipc::WireClass::kHigh;
  for (const std::string& t : {token, longest}) {
    o.token = t;
    auto c = ipc::RuntimeClient::Connect(o);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    EXPECT_EQ((*c)->welcome().granted_class,
              static_cast<uint32_t>(ipc::WireClass::kHigh))
        << t.size() << " bytes";
  }
  // One byte short of the grant is another token; one byte too long is
  // refused by the client, not cut.
  o.token = token.substr(0, 63);
  auto shorter = ipc::RuntimeClient::Connect(o);
  ASSERT_TRUE(shorter.ok());
  EXPECT_EQ((*shorter)->welcome().granted_class,
            static_cast<uint32_t>(ipc::WireClass::kBestEffort));
  o.token = longest + "b";
  auto too_long = ipc::RuntimeClient::Connect(o);
  ASSERT_FALSE(too_long.ok());
  EXPECT_EQ(too_long.status().code(), StatusCode::kInvalidArgument);
}

// A token longer than any hello carries is refused where the operator wrote
// it, not left to never match.
TEST(ColodHostileClientTest, AConfigTokenTooLongForTheWireIsBadInput) {
  TempDir dir;
  const std::string cfg = dir.path() + "/colod.yaml";
  std::ofstream(cfg) << "socket: " << dir.path() << "/colod.sock\n"
                     << "grants:\n  - {token: "
                     << std::string(ipc::kMaxTokenBytes + 1, 'c')
                     << ", class: high}\n";
  Process colod({kColod, "--config", cfg}, {}, dir.path() + "/out",
                dir.path() + "/err");
  EXPECT_EQ(colod.Wait(std::chrono::seconds(10)), 2);
  const std::string err = ReadFile(dir.path() + "/err");
  EXPECT_NE(err.find(cfg + ":3:"), std::string::npos) << err;
  EXPECT_NE(err.find("at most 255 bytes"), std::string::npos) << err;
}

// A fake colod on a socket in a world-writable directory must not collect a
// real client's token: the client sends a token only to a server that runs
// as root, as the client's user, or as a uid it was told is colod's.
TEST(ColodHostileClientTest, ATokenIsNotSentToAServerOfAnotherUser) {
  if (geteuid() != 0) GTEST_SKIP() << "serving as another uid needs root";
  TempDir dir;
  const std::string sock = dir.path() + "/fake.sock";
  ASSERT_EQ(chmod(dir.path().c_str(), 0777), 0);
  int ready[2], got[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(got), 0);
  const uid_t kNobody = 65534;
  pid_t pid = fork();
  if (pid == 0) {  // the fake colod, as nobody: reports any token it reads
    if (setgid(65534) != 0 || setuid(kNobody) != 0) _exit(20);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, sock.c_str(), sizeof(a.sun_path) - 1);
    if (bind(s, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
        listen(s, 4) != 0)
      _exit(21);
    chmod(sock.c_str(), 0777);
    if (write(ready[1], "r", 1) != 1) _exit(22);
    for (int i = 0; i < 2; ++i) {
      int c = accept(s, nullptr, nullptr);
      if (c < 0) _exit(23);
      pollfd pfd{c, POLLIN, 0};
      std::string token = "-";
      if (poll(&pfd, 1, 2000) == 1) {
        Result<ipc::Message> m = ipc::ReceiveMessage(c);
        if (m.ok() && m->type == ipc::MsgType::kHello &&
            m->payload.size() >= sizeof(ipc::HelloMsg)) {
          ipc::HelloMsg h;
          std::memcpy(&h, m->payload.data(), sizeof(h));
          token = ipc::ReadString(h.token);
          if (token.empty()) token = "-";
        }
      }
      token += "\n";
      if (write(got[1], token.data(), token.size()) < 0) _exit(24);
      close(c);
    }
    _exit(0);
  }
  close(ready[1]);
  close(got[1]);
  char r;
  ASSERT_EQ(read(ready[0], &r, 1), 1);
  ipc::ClientOptions o;
  o.socket_path = sock;
  o.token = "op-issued-secret";
  o.reply_timeout = Milliseconds(500);
  auto refused = ipc::RuntimeClient::Connect(o);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find("uid 65534"), std::string::npos)
      << refused.status().message();
  // Told that uid is colod's, the client does send it.
  o.server_uids = {kNobody};
  auto trusted = ipc::RuntimeClient::Connect(o);
  EXPECT_FALSE(trusted.ok());  // a fake colod gives no welcome
  std::string seen;
  char buf[128];
  ssize_t n;
  while ((n = read(got[0], buf, sizeof(buf))) > 0)
    seen.append(buf, static_cast<size_t>(n));
  int st = 0;
  waitpid(pid, &st, 0);
  EXPECT_EQ(seen, "-\nop-issued-secret\n");
  close(ready[0]);
  close(got[0]);
}

}  // namespace
}  // namespace colo::testing
