#include "shim/form_cache_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace colo::shim::form_file {
namespace {

constexpr char kMagic[8] = {'C', 'O', 'L', 'O', 'F', 'R', 'M', '\0'};

void Put32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out += static_cast<char>(v >> (8 * i));
}
void Put64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>(v >> (8 * i));
}
uint64_t Get(std::string_view b, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i)
    v |= uint64_t{static_cast<unsigned char>(b[at + i])} << (8 * i);
  return v;
}
std::string_view AsBytes(const Sha256Digest& d) {
  return std::string_view(reinterpret_cast<const char*>(d.data()), d.size());
}

std::string Errno(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

// mkdir -p with mode 0700 for what it creates.
Status MakeDirectories(const std::string& dir) {
  for (size_t at = 1; at <= dir.size(); ++at) {
    if (at != dir.size() && dir[at] != '/') continue;
    const std::string part = dir.substr(0, at);
    if (mkdir(part.c_str(), 0700) != 0 && errno != EEXIST)
      return FailedPreconditionError(Errno("cannot create " + part));
  }
  return OkStatus();
}

}  // namespace

std::string FileName(const Key& key) {
  return HexDigest(key.ptx) + ".sm" + std::to_string(key.arch) + ".drv" +
         std::to_string(key.driver_version) + ".v" +
         std::to_string(kFormatVersion) + ".colo-forms";
}

std::string Encode(const Key& key, std::string_view cubin) {
  std::string out(kMagic, sizeof kMagic);
  Put32(out, kFormatVersion);
  Put32(out, static_cast<uint32_t>(key.arch));
  Put32(out, static_cast<uint32_t>(key.driver_version));
  Put32(out, 0);
  out += AsBytes(key.ptx);
  Put64(out, cubin.size());
  out += AsBytes(Sha256(cubin));
  out += cubin;
  return out;
}

Result<std::string> Decode(const Key& key, std::string_view bytes) {
  if (bytes.size() < kHeaderBytes)
    return InvalidArgumentError("shorter than its header (" +
                                std::to_string(bytes.size()) + " bytes)");
  if (bytes.substr(0, sizeof kMagic) != std::string_view(kMagic, sizeof kMagic))
    return InvalidArgumentError("not a colo form cache file (magic)");
  if (Get(bytes, 8, 4) != kFormatVersion)
    return InvalidArgumentError("format version " +
                                std::to_string(Get(bytes, 8, 4)));
  if (Get(bytes, 12, 4) != static_cast<uint32_t>(key.arch) ||
      Get(bytes, 16, 4) != static_cast<uint32_t>(key.driver_version) ||
      Get(bytes, 20, 4) != 0 || bytes.substr(24, 32) != AsBytes(key.ptx))
    return InvalidArgumentError("its key is another module's");
  const uint64_t size = Get(bytes, 56, 8);
  if (size != bytes.size() - kHeaderBytes)
    return InvalidArgumentError(
        "holds " + std::to_string(bytes.size() - kHeaderBytes) +
        " bytes of cubin, its header says " + std::to_string(size));
  const std::string_view cubin = bytes.substr(kHeaderBytes);
  if (bytes.substr(64, 32) != AsBytes(Sha256(cubin)))
    return InvalidArgumentError("the cubin's checksum does not match");
  return std::string(cubin);
}

Status PrepareDirectory(const std::string& dir) {
  if (dir.empty() || dir[0] != '/')
    return FailedPreconditionError("'" + dir + "' is not an absolute path");
  COLO_RETURN_IF_ERROR(MakeDirectories(dir));
  struct stat st;
  if (lstat(dir.c_str(), &st) != 0)
    return FailedPreconditionError(Errno("cannot stat " + dir));
  if (!S_ISDIR(st.st_mode))
    return FailedPreconditionError(dir + " is not a directory");
  if (st.st_uid != geteuid())
    return FailedPreconditionError(dir + " belongs to uid " +
                                   std::to_string(st.st_uid) + ", not to " +
                                   std::to_string(geteuid()));
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return FailedPreconditionError(dir + " is writable by others");
  return OkStatus();
}

Result<std::string> ReadFile(const std::string& dir, const std::string& name,
                             size_t max_bytes) {
  const std::string path = dir + "/" + name;
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return NotFoundError(path + " is absent");
    return FailedPreconditionError(Errno("cannot open " + path));
  }
  struct stat st;
  std::string out;
  Status status = OkStatus();
  if (fstat(fd, &st) != 0) {
    status = FailedPreconditionError(Errno("cannot stat " + path));
  } else if (!S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
    status = FailedPreconditionError(path + " is not a file of this user's");
  } else if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    status = InvalidArgumentError(path + " is implausibly large");
  } else {
    out.resize(static_cast<size_t>(st.st_size));
    size_t got = 0;
    while (got < out.size()) {
      const ssize_t n = read(fd, out.data() + got, out.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    out.resize(got);  // a file shortened meanwhile fails Decode.
  }
  close(fd);
  if (!status.ok()) return status;
  return out;
}

Status WriteFileAtomically(const std::string& dir, const std::string& name,
                           std::string_view bytes) {
  static std::atomic<uint64_t> counter{0};
  const std::string tmp = dir + "/." + name + ".tmp." +
                          std::to_string(getpid()) + "." +
                          std::to_string(counter.fetch_add(1));
  const int fd = open(
      tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return FailedPreconditionError(Errno("cannot create " + tmp));
  size_t put = 0;
  while (put < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + put, bytes.size() - put);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    put += static_cast<size_t>(n);
  }
  const bool written = put == bytes.size();
  const std::string why = written ? "" : Errno("cannot write " + tmp);
  if (close(fd) != 0 || !written) {
    unlink(tmp.c_str());
    return FailedPreconditionError(why.empty() ? Errno("cannot write " + tmp)
                                               : why);
  }
  const std::string path = dir + "/" + name;
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string rename_why = Errno("cannot rename " + tmp);
    unlink(tmp.c_str());
    return FailedPreconditionError(rename_why);
  }
  return OkStatus();
}

}  // namespace colo::shim::form_file
