#include "repro/store/http_test_util.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/subprocess.h"

namespace rk::repro {

std::string RunfilePath(const std::string& path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir == nullptr) return path;
  return absl::StrCat(srcdir, "/", workspace != nullptr ? workspace : "reprokit", "/", path);
}

absl::StatusOr<NginxServer> NginxServer::Start(const std::string& dir, const std::string& user,
                                               const std::string& password, int port) {
  SubprocessOptions options;
  options.timeout_seconds = 30;
  if (!user.empty()) {
    options.env = {"NGINX_AUTH_USER=" + user, "NGINX_AUTH_PASSWORD=" + password};
  } else {
    options.env = {"NGINX_AUTH_USER="};
  }
  std::vector<std::string> argv = {RunfilePath("repro/store/testdata/nginx_server.sh"), "start",
                                   dir};
  if (port != 0) argv.push_back(std::to_string(port));
  absl::StatusOr<SubprocessResult> r = RunSubprocess(argv, options);
  if (!r.ok()) return r.status();
  int got = 0;
  if (!r->ok() || !absl::SimpleAtoi(absl::StripAsciiWhitespace(r->stdout_text), &got)) {
    return absl::InternalError(absl::StrCat("nginx did not start (", r->Describe(),
                                            "): ", r->stderr_text));
  }
  return NginxServer(dir, got);
}

NginxServer::~NginxServer() { Stop(); }

std::string NginxServer::url() const { return absl::StrCat("http://127.0.0.1:", port_); }

std::string NginxServer::ObjectPath(const std::string& prefix, const std::string& hex) const {
  return absl::StrCat(dir_, "/root", prefix, "/cas/", hex);
}

void NginxServer::Stop() {
  if (dir_.empty()) return;
  (void)RunSubprocess({RunfilePath("repro/store/testdata/nginx_server.sh"), "stop", dir_});
}

void NginxServer::Kill() {
  if (dir_.empty()) return;
  (void)RunSubprocess({RunfilePath("repro/store/testdata/nginx_server.sh"), "kill", dir_});
}

absl::StatusOr<BadServer> BadServer::Start(const std::string& dir) {
  SubprocessOptions options;
  options.timeout_seconds = 30;
  absl::StatusOr<SubprocessResult> r =
      RunSubprocess({"python3", RunfilePath("repro/store/testdata/bad_server.py"), dir}, options);
  if (!r.ok()) return r.status();
  int port = 0;
  if (!r->ok() || !absl::SimpleAtoi(absl::StripAsciiWhitespace(r->stdout_text), &port)) {
    return absl::InternalError(absl::StrCat("bad_server.py did not start (", r->Describe(),
                                            "): ", r->stderr_text));
  }
  absl::StatusOr<std::string> pid_text = ReadFileToString(dir + "/bad_server.pid");
  int pid = 0;
  if (!pid_text.ok() || !absl::SimpleAtoi(absl::StripAsciiWhitespace(*pid_text), &pid)) {
    return absl::InternalError("bad_server.py wrote no pid");
  }
  return BadServer(pid, port);
}

BadServer::~BadServer() {
  if (pid_ > 0) ::kill(pid_, SIGKILL);
}

std::string BadServer::url(const std::string& mode) const {
  return absl::StrCat("http://127.0.0.1:", port_, "/", mode);
}

}  // namespace rk::repro
