// Who may talk to colod, and who gets which class: the socket's mode, the
// peer-credential check, and priority from colod's config only.
#include <grp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "colod_harness.h"

namespace colo::testing {
namespace {

using std::chrono::seconds;

constexpr uid_t kNobody = 65534;

// Forks; the child drops to uid nobody (group nogroup) and tries to register
// as a monitor. Returns 0 (accepted), 10 (rejected by colod), 11 (could not
// connect: the socket's permissions), other on a harness failure.
int ConnectAsNobody(const std::string& socket) {
  pid_t pid = fork();
  if (pid == 0) {
    group* g = getgrnam("nogroup");
    const gid_t gid = g != nullptr ? g->gr_gid : kNobody;
    if (setgroups(0, nullptr) != 0 || setgid(gid) != 0 || setuid(kNobody) != 0)
      _exit(20);
    ipc::ClientOptions o;
    o.socket_path = socket;
    o.role = ipc::ClientRole::kMonitor;
    auto c = ipc::RuntimeClient::Connect(o);
    if (c.ok()) _exit(0);
    _exit(c.status().code() == StatusCode::kFailedPrecondition ? 10 : 11);
  }
  int st = 0;
  const bool ended =
      WaitFor([&] { return waitpid(pid, &st, WNOHANG) == pid; }, seconds(10));
  if (!ended) {
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return -1;
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(ColodSecurityTest, SocketIsOwnerOnlyByDefault) {
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  struct stat st;
  ASSERT_EQ(stat(colod.socket().c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(ColodSecurityTest, TheSocketAppearsOnlyWhenItIsListeningWithItsMode) {
  // Watch the path without pausing from before colod starts: the first time
  // it exists it must already carry its final mode and accept connections
  // (colod binds a temporary name and renames it when ready). Clients that
  // saw a socket before its mode was set or before listen() got EACCES or
  // ECONNREFUSED.
  TempDir dir;
  const std::string socket = dir.path() + "/colod.sock";
  const std::string cfg = dir.path() + "/c.yaml";
  std::ofstream(cfg) << "socket: " << socket << "\nsocket_mode: \"0660\"\n";
  Process colod({kColod, "--config", cfg}, {}, dir.path() + "/out",
                dir.path() + "/log");
  struct stat st;
  const auto end = std::chrono::steady_clock::now() + seconds(10);
  bool seen = false;
  while (!seen && std::chrono::steady_clock::now() < end) {
    seen = stat(socket.c_str(), &st) == 0;
  }
  ASSERT_TRUE(seen) << ReadFile(dir.path() + "/log");
  EXPECT_EQ(st.st_mode & 0777, 0660u);
  ipc::ClientOptions o;
  o.socket_path = socket;
  o.role = ipc::ClientRole::kMonitor;
  auto c = ipc::RuntimeClient::Connect(o);
  EXPECT_TRUE(c.ok()) << c.status().message();
}

TEST(ColodSecurityTest, AnotherUserCannotConnectToTheDefaultSocket) {
  if (geteuid() != 0) GTEST_SKIP() << "connecting as another uid needs root";
  TempDir dir;
  chmod(dir.path().c_str(), 0755);  // let nobody reach the socket's directory.
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  EXPECT_EQ(ConnectAsNobody(colod.socket()), 11)
      << "uid nobody must not be able to connect to a 0600 socket";
}

TEST(ColodSecurityTest, PeerCredentialsAreCheckedBeyondTheMode) {
  if (geteuid() != 0) GTEST_SKIP() << "connecting as another uid needs root";
  if (getgrnam("nogroup") == nullptr)
    GTEST_SKIP() << "no 'nogroup' group on this machine";
  TempDir dir;
  chmod(dir.path().c_str(), 0755);
  // Group-writable for nogroup, so the file mode lets nobody in: the
  // SO_PEERCRED check must still refuse uid 65534.
  Colod colod(dir, "socket_mode: \"0660\"\nsocket_group: nogroup\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  EXPECT_EQ(ConnectAsNobody(colod.socket()), 10);
  EXPECT_TRUE(colod.LogHas("rejected connection from uid 65534"));
  // Listed in allowed_uids: accepted.
  TempDir dir2;
  chmod(dir2.path().c_str(), 0755);
  Colod allowed(
      dir2,
      "socket_mode: \"0660\"\nsocket_group: nogroup\nallowed_uids: [65534]\n");
  ASSERT_TRUE(allowed.ready()) << allowed.Log();
  EXPECT_EQ(ConnectAsNobody(allowed.socket()), 0);
}

TEST(ColodSecurityTest, AskingForHighWithoutAGrantGetsBestEffortAndALogLine) {
  TempDir dir;
  // Only uid 12345 and a token are granted high; this test's uid is neither.
  ASSERT_NE(geteuid(), 12345u);
  Colod colod(dir,
              "grants:\n  - {uid: 12345, class: high}\n  - {token: op-issued, "
              "class: high}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  ipc::ClientOptions o;
  o.socket_path = colod.socket();
  o.requested_class = ipc::WireClass::kHigh;  // what COLO_CLASS=high asks for.
  auto c = ipc::RuntimeClient::Connect(o);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ((*c)->welcome().granted_class,
            static_cast<uint32_t>(ipc::WireClass::kBestEffort));
  EXPECT_TRUE(colod.LogHas(
      "registered as best-effort: asked for high, but no grant matches uid " +
      std::to_string(geteuid())));
  // A wrong token changes nothing; the operator's token does.
  o.token = "guessed";
  auto wrong = ipc::RuntimeClient::Connect(o);
  ASSERT_TRUE(wrong.ok());
  EXPECT_EQ((*wrong)->welcome().granted_class,
            static_cast<uint32_t>(ipc::WireClass::kBestEffort));
  o.token = "op-issued";
  auto right = ipc::RuntimeClient::Connect(o);
  ASSERT_TRUE(right.ok());
  EXPECT_EQ((*right)->welcome().granted_class,
            static_cast<uint32_t>(ipc::WireClass::kHigh));
}

TEST(ColodSecurityTest, EnvironmentAloneCannotRaiseAProgramsClass) {
  if (!ProgramsBuilt())
    GTEST_SKIP() << "the CUDA test programs were not built (no nvcc)";
  TempDir dir;
  Colod colod(dir, "grants:\n  - {uid: 12345, class: high}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto p = colod.Run(dir, "infer", {Program("infer_loop"), "2", "1", "10"},
                     {{"COLO_CLASS", "high"}});
  ASSERT_EQ(p->Wait(seconds(30)), 0) << p->Output();
  EXPECT_TRUE(
      colod.LogHas("infer_loop) registered as best-effort: asked for high"));
}

TEST(ColodSecurityTest, TheTokenLeavesTheProgramsEnvironmentYetStillCounts) {
  // The interposer takes COLO_TOKEN out of the environment when it first
  // connects: after its first CUDA call the program (token=none) and a
  // shell it starts (child_token=none) no longer see it, and colod got it
  // (the grant makes the program high priority). Before: the program and
  // its children read the token.
  TempDir dir;
  Colod colod(dir, "grants:\n  - {token: op-issued, class: high}\n");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto p = colod.Run(dir, "env", {Program("environment_program")},
                     {{"COLO_TOKEN", "op-issued"}, {"COLO_CLASS", "high"}});
  ASSERT_EQ(p->Wait(seconds(20)), 0) << p->Output();
  const std::string out = p->Output();
  EXPECT_EQ(ValueOf(out, "alloc"), 0) << out;
  EXPECT_NE(out.find("token=none\n"), std::string::npos) << out;
  EXPECT_NE(out.find("child_token=none\n"), std::string::npos) << out;
  EXPECT_TRUE(colod.LogHas("registered as high")) << colod.Log();
}

TEST(ColodSecurityTest, AServerUidThatIsNoUidIsIgnoredWithOneLine) {
  // COLO_SERVER_UID is read at the first connect; a value that is not a uid
  // list is ignored (root and the program's own uid still trusted, so this
  // test's colod is), with one line on stderr naming it.
  TempDir dir;
  Colod colod(dir, "");
  ASSERT_TRUE(colod.ready()) << colod.Log();
  auto p = colod.Run(dir, "uid", {Program("environment_program")},
                     {{"COLO_SERVER_UID", "colod,0"}});
  ASSERT_EQ(p->Wait(seconds(20)), 0) << p->Output();
  EXPECT_EQ(ValueOf(p->Output(), "alloc"), 0) << p->Output();
  const std::string err = ReadFile(dir.path() + "/uid.err");
  EXPECT_NE(err.find("colo: COLO_SERVER_UID='colod,0' is not a uid"),
            std::string::npos)
      << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

}  // namespace
}  // namespace colo::testing
