// The launch ring's memory is sealed at its size: a client cannot shrink it
// under colod's mapping (which faulted colod with SIGBUS), and colod maps
// no ring that is not sealed so.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <memory>

#include "ipc/launch_ring.h"
#include "support/unsealed_ring.h"

namespace colo::ipc {
namespace {

TEST(LaunchRingSealTest, TheClientCannotResizeItsOwnRing) {
  Result<LaunchRing*> made = LaunchRing::Create();
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  std::unique_ptr<LaunchRing> ring(*made);
  EXPECT_EQ(fcntl(ring->memfd(), F_GET_SEALS) & kRingSeals, kRingSeals);
  errno = 0;
  EXPECT_NE(ftruncate(ring->memfd(), 0), 0);
  EXPECT_EQ(errno, EPERM);
  EXPECT_NE(ftruncate(ring->memfd(), static_cast<off_t>(RingBytes() * 2)), 0);
  // Nor add a seal that would stop the other side's writes.
  EXPECT_NE(fcntl(ring->memfd(), F_ADD_SEALS, F_SEAL_FUTURE_WRITE), 0);
}

TEST(LaunchRingSealTest, ASealedRingAttachesAndAnUnsealedOneIsRefused) {
  Result<LaunchRing*> made = LaunchRing::Create();
  ASSERT_TRUE(made.ok());
  std::unique_ptr<LaunchRing> client(*made);
  Result<LaunchRing*> attached =
      LaunchRing::Attach(dup(client->memfd()), dup(client->eventfd()));
  ASSERT_TRUE(attached.ok()) << attached.status().ToString();
  delete *attached;

  // The same ring, byte for byte, in memory that could still shrink.
  const int mfd = testing::MakeUnsealedRingMemfd();
  ASSERT_GE(mfd, 0);
  Result<LaunchRing*> refused = LaunchRing::Attach(mfd, dup(client->eventfd()));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("not a memfd sealed"),
            std::string::npos)
      << refused.status().message();
}

}  // namespace
}  // namespace colo::ipc
