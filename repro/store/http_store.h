// The content store on a Bazel HTTP remote cache (bazel-remote, BuildBuddy,
// nginx with WebDAV PUT, ...): `PUT`/`GET`/`HEAD` on `<base>/cas/<sha256>`
// with the blob's raw bytes on the wire, so an object put here is a valid CAS
// entry for Bazel and the reverse (docs/STORE.md, "A remote store").
//
// Through libcurl: every transfer takes an easy handle from a pool and gives
// it back, so connections are reused, and the store may be used from many
// threads at once (parallel transfers: TransferMany). Connection errors,
// stalls and 5xx answers are retried with exponential backoff. Every GET is
// re-hashed: a body whose SHA-256 is not the digest asked for (a truncated or
// corrupt object, an HTML error page) is DataLoss naming the digest, and its
// bytes are never returned or written where a caller would use them.
//
// Credentials, never printed (errors show the URL without its userinfo):
// $REPROKIT_STORE_TOKEN (a bearer token), else the URL's `user:password@` or
// $REPROKIT_STORE_USER / $REPROKIT_STORE_PASSWORD (basic auth), else the
// host's entry in ~/.netrc. TLS peers are verified unless turned off.
//
// Status codes: InvalidArgument for a malformed URL, Unavailable for a host
// that cannot be reached (refused, unresolvable, timed out, 5xx after the
// retries), Unauthenticated for 401/403, FailedPrecondition for a TLS failure
// or an unexpected answer, NotFound for 404, DataLoss for a bad body.
// ForEach and Remove are Unimplemented: a cache has no listing.
//
// Tested by repro/store/http_store_test.cc against a real nginx
// (repro/store/testdata/nginx_server.sh) and a misbehaving server
// (repro/store/testdata/bad_server.py).
#ifndef REPROKIT_REPRO_STORE_HTTP_STORE_H_
#define REPROKIT_REPRO_STORE_HTTP_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "repro/store/store.h"

namespace rk::repro {

// `http(s)://[user[:password]@]host[:port][/prefix]`, split and checked.
struct StoreUrl {
  std::string scheme;  // http or https
  std::string user;
  std::string password;
  std::string host_port;
  std::string prefix;  // "" or "/a/b", no trailing slash
  // scheme://host[:port]/prefix: no credentials, safe to print.
  std::string Redacted() const;
};

// True when `spec` starts with a URL scheme (`xyz://`).
bool LooksLikeUrl(const std::string& spec);
absl::StatusOr<StoreUrl> ParseStoreUrl(const std::string& spec);

struct HttpStoreOptions {
  double connect_timeout_seconds = 10;
  // A transfer slower than 1 KiB/s for this long is a stall (retried).
  double stall_seconds = 30;
  int retries = 3;               // after the first attempt
  double backoff_seconds = 0.2;  // doubled on every retry
  int parallel = 8;              // transfers at once in TransferMany
  bool verify_tls = true;
  std::string ca_file;  // "": the system's CA bundle
  // Credentials; FromEnvironment fills these from $REPROKIT_STORE_*.
  std::string bearer_token;
  std::string user;
  std::string password;
  bool use_netrc = true;

  // Defaults plus $REPROKIT_STORE_TOKEN, _USER, _PASSWORD, _CA_FILE, and
  // $REPROKIT_STORE_INSECURE=1 (no TLS verification).
  static HttpStoreOptions FromEnvironment();
};

// Transfer counts since the store was opened (for tests and `--stats`).
struct HttpStoreCounters {
  int64_t requests = 0;  // attempts, retries included
  int64_t retries = 0;
  uint64_t bytes_up = 0;
  uint64_t bytes_down = 0;
};

class HttpStore : public Store {
 public:
  static absl::StatusOr<std::unique_ptr<HttpStore>> Open(const std::string& url,
                                                         HttpStoreOptions options = {});
  ~HttpStore() override;

  absl::StatusOr<Digest> Put(absl::string_view bytes, const PutOptions& options = {}) override;
  // Buffers the stream in a temporary file (its digest names the object).
  absl::StatusOr<Digest> PutStream(ByteSource& source, const PutOptions& options = {}) override;
  absl::StatusOr<Digest> PutFile(const std::string& path, const PutOptions& options = {}) override;
  absl::StatusOr<std::string> Get(const Digest& digest) override;
  // Retries only while the sink has received nothing.
  absl::Status GetStream(const Digest& digest, ByteSink& sink) override;
  // Downloads into a temporary file (retried from the start), verifies, renames.
  absl::Status GetToFile(const Digest& digest, const std::string& path) override;
  absl::StatusOr<bool> Contains(const Digest& digest) override;
  absl::StatusOr<ObjectInfo> Stat(const Digest& digest) override;
  absl::Status ForEach(absl::FunctionRef<absl::Status(const Digest&)> visit) override;
  absl::Status Remove(const Digest& digest) override;

  // Runs `transfer(i)` for i in [0, n) on up to options.parallel threads;
  // returns the first error (by index) after all have finished.
  absl::Status TransferMany(int n, const std::function<absl::Status(int)>& transfer);

  // The object's URL without credentials.
  std::string ObjectUrl(const Digest& digest) const;
  const StoreUrl& url() const { return url_; }
  HttpStoreCounters counters() const;

  // Implementation details, public only for the libcurl callbacks.
  struct Handle;  // a pooled curl easy handle
  struct Request;
  struct Response;

 private:
  HttpStore(StoreUrl url, HttpStoreOptions options);
  std::unique_ptr<Handle> Acquire();
  void Release(std::unique_ptr<Handle> handle);
  // One request with retries. `Request::restart` is called before each retry.
  absl::StatusOr<Response> Perform(Request& request);
  // A verified GET: `write` gets the body, `restart` runs before a retry
  // (non-OK: no retry); OK only when the digest matched.
  absl::Status Download(const Digest& digest,
                        const std::function<absl::Status(absl::string_view)>& write,
                        const std::function<absl::Status()>& restart);
  absl::Status UploadFd(const Digest& digest, int fd, uint64_t size);
  absl::Status UploadBytes(const Digest& digest, absl::string_view bytes);
  absl::Status PutOutcome(const Digest& digest, const absl::StatusOr<Response>& response);

  StoreUrl url_;
  HttpStoreOptions options_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Handle>> idle_;
  HttpStoreCounters counters_;
};

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_STORE_HTTP_STORE_H_
