// Real servers for the remote store's tests: a throwaway nginx serving a
// Bazel HTTP cache (testdata/nginx_server.sh) and a misbehaving one
// (testdata/bad_server.py), both on 127.0.0.1, stopped by the destructor.
#ifndef REPROKIT_REPRO_STORE_HTTP_TEST_UTIL_H_
#define REPROKIT_REPRO_STORE_HTTP_TEST_UTIL_H_

#include <string>

#include "absl/status/statusor.h"

namespace rk::repro {

// The path of a file in the source tree from a test's runfiles.
std::string RunfilePath(const std::string& path);

class NginxServer {
 public:
  // Starts nginx with its files in `dir`; with a user, basic auth is required.
  static absl::StatusOr<NginxServer> Start(const std::string& dir, const std::string& user = "",
                                           const std::string& password = "", int port = 0);
  NginxServer(NginxServer&& other) noexcept : dir_(std::move(other.dir_)), port_(other.port_) {
    other.dir_.clear();
  }
  NginxServer& operator=(NginxServer&&) = delete;
  ~NginxServer();

  int port() const { return port_; }
  // http://127.0.0.1:PORT
  std::string url() const;
  // Where an object under `prefix` (e.g. "/team") lies on the server's disk.
  std::string ObjectPath(const std::string& prefix, const std::string& hex) const;
  void Stop();
  void Kill();
  const std::string& dir() const { return dir_; }

 private:
  NginxServer(std::string dir, int port) : dir_(std::move(dir)), port_(port) {}
  std::string dir_;
  int port_ = 0;
};

class BadServer {
 public:
  static absl::StatusOr<BadServer> Start(const std::string& dir);
  BadServer(BadServer&& other) noexcept : pid_(other.pid_), port_(other.port_) { other.pid_ = 0; }
  BadServer& operator=(BadServer&&) = delete;
  ~BadServer();
  // http://127.0.0.1:PORT/<mode>
  std::string url(const std::string& mode) const;

 private:
  BadServer(int pid, int port) : pid_(pid), port_(port) {}
  int pid_ = 0;
  int port_ = 0;
};

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_STORE_HTTP_TEST_UTIL_H_
