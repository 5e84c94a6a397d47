#include "repro/store/http_store.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/sha256.h"

namespace rk::repro {

struct HttpStore::Handle {
  CURL* curl = nullptr;
  ~Handle() {
    if (curl != nullptr) curl_easy_cleanup(curl);
  }
};

struct HttpStore::Request {
  enum class Method { kGet, kHead, kPut } method = Method::kGet;
  Digest digest;
  // kPut: fills up to `size` bytes, returns how many (0 at the end).
  std::function<absl::StatusOr<size_t>(char*, size_t)> read;
  uint64_t upload_size = 0;
  // kGet: receives the body of a 200 answer.
  std::function<absl::Status(absl::string_view)> write;
  // Before every retry; a non-OK status stops retrying.
  std::function<absl::Status()> restart;
  // Set by the callbacks when they stop a transfer.
  absl::Status callback_status;
  std::string error_body;  // the start of a non-200 body, for messages
  long code = 0;           // the response code while the body arrives
  CURL* curl = nullptr;
};

struct HttpStore::Response {
  long code = 0;
  std::string content_type;
  int64_t content_length = -1;
  std::string error_body;
};

namespace {

constexpr size_t kChunk = 4 << 20;
constexpr uint64_t kHeadBeforePutBytes = 1 << 20;

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    // Transfers run with CURLOPT_NOSIGNAL (threads); a peer closing a TLS
    // connection must be an error, not a SIGPIPE that kills the process.
    struct sigaction old;
    if (sigaction(SIGPIPE, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) {
      signal(SIGPIPE, SIG_IGN);
    }
  });
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

bool IsRetryable(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

bool IsTlsError(CURLcode code) {
  switch (code) {
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CRL_BADFILE:
      return true;
    default:
      return false;
  }
}

size_t ReadCallback(char* buffer, size_t size, size_t count, void* data) {
  auto* request = static_cast<HttpStore::Request*>(data);
  absl::StatusOr<size_t> n = request->read(buffer, size * count);
  if (!n.ok()) {
    request->callback_status = n.status();
    return CURL_READFUNC_ABORT;
  }
  return *n;
}

size_t WriteCallback(char* buffer, size_t size, size_t count, void* data) {
  auto* request = static_cast<HttpStore::Request*>(data);
  const size_t n = size * count;
  if (request->code == 0) curl_easy_getinfo(request->curl, CURLINFO_RESPONSE_CODE, &request->code);
  // Only a 200's body is the blob; anything else is kept for the message.
  if (request->code != 200 || !request->write) {
    if (request->error_body.size() < 512) request->error_body.append(buffer, std::min<size_t>(n, 512));
    return n;
  }
  absl::Status s = request->write(absl::string_view(buffer, n));
  if (!s.ok()) {
    request->callback_status = s;
    return 0;  // aborts the transfer
  }
  return n;
}

std::string BodyHint(const std::string& content_type) {
  if (absl::StartsWithIgnoreCase(content_type, "text/html")) {
    return " (the server answered with an HTML page, not the blob's bytes)";
  }
  return "";
}

}  // namespace

std::string StoreUrl::Redacted() const { return absl::StrCat(scheme, "://", host_port, prefix); }

bool LooksLikeUrl(const std::string& spec) {
  size_t colon = spec.find("://");
  if (colon == std::string::npos || colon == 0) return false;
  for (size_t i = 0; i < colon; ++i) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(spec[i])) && spec[i] != '+' &&
        spec[i] != '-' && spec[i] != '.') {
      return false;
    }
  }
  return true;
}

absl::StatusOr<StoreUrl> ParseStoreUrl(const std::string& spec) {
  auto bad = [&](const std::string& why) {
    // Never echo credentials: show the URL only up to its userinfo.
    std::string shown = spec;
    size_t at = shown.find('@');
    size_t scheme_end = shown.find("://");
    if (at != std::string::npos && scheme_end != std::string::npos && at > scheme_end) {
      shown = absl::StrCat(shown.substr(0, scheme_end + 3), "***", shown.substr(at));
    }
    return absl::InvalidArgumentError(absl::StrCat("bad store URL '", shown, "': ", why));
  };
  size_t scheme_end = spec.find("://");
  if (scheme_end == std::string::npos) return bad("expected http://HOST[:PORT]/PREFIX");
  StoreUrl url;
  url.scheme = absl::AsciiStrToLower(spec.substr(0, scheme_end));
  if (url.scheme != "http" && url.scheme != "https") {
    return bad(absl::StrCat("unsupported scheme '", url.scheme, "' (expected http or https)"));
  }
  std::string rest = spec.substr(scheme_end + 3);
  if (rest.find_first_of("?#") != std::string::npos) return bad("no query or fragment allowed");
  for (char c : rest) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f || c == '\\') {
      return bad("control characters, spaces and backslashes are not allowed");
    }
  }
  size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  std::string path = slash == std::string::npos ? "" : rest.substr(slash);
  size_t at = authority.rfind('@');
  if (at != std::string::npos) {
    std::string userinfo = authority.substr(0, at);
    authority = authority.substr(at + 1);
    size_t colon = userinfo.find(':');
    url.user = userinfo.substr(0, colon);
    if (colon != std::string::npos) url.password = userinfo.substr(colon + 1);
    if (url.user.empty()) return bad("empty user name before '@'");
  }
  if (authority.empty()) return bad("no host");
  std::string host = authority;
  if (authority[0] == '[') {
    size_t close = authority.find(']');
    if (close == std::string::npos) return bad("unterminated IPv6 address");
    host = authority.substr(0, close + 1);
    std::string after = authority.substr(close + 1);
    if (!after.empty() && after[0] != ':') return bad("junk after the IPv6 address");
    if (!after.empty()) authority = host + after;
  }
  size_t colon = authority.find(':', authority[0] == '[' ? authority.find(']') : 0);
  if (colon != std::string::npos) {
    host = authority.substr(0, colon);
    int port = 0;
    if (!absl::SimpleAtoi(authority.substr(colon + 1), &port) || port < 1 || port > 65535) {
      return bad(absl::StrCat("bad port '", authority.substr(colon + 1), "'"));
    }
  }
  if (host.empty()) return bad("no host");
  url.host_port = authority;
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (absl::StrContains(path, "//")) return bad("empty path component");
  for (absl::string_view part : {"/../", "/./"}) {
    if (absl::StrContains(path + "/", part)) return bad("'.' and '..' are not allowed in the path");
  }
  url.prefix = path;
  return url;
}

HttpStoreOptions HttpStoreOptions::FromEnvironment() {
  HttpStoreOptions options;
  options.bearer_token = Env("REPROKIT_STORE_TOKEN");
  options.user = Env("REPROKIT_STORE_USER");
  options.password = Env("REPROKIT_STORE_PASSWORD");
  options.ca_file = Env("REPROKIT_STORE_CA_FILE");
  options.verify_tls = Env("REPROKIT_STORE_INSECURE") != "1";
  return options;
}

absl::StatusOr<std::unique_ptr<HttpStore>> HttpStore::Open(const std::string& spec,
                                                           HttpStoreOptions options) {
  absl::StatusOr<StoreUrl> url = ParseStoreUrl(spec);
  if (!url.ok()) return url.status();
  if (options.user.empty() && !url->user.empty()) {
    options.user = url->user;
    options.password = url->password;
  }
  if (options.parallel < 1) options.parallel = 1;
  GlobalInit();
  return std::unique_ptr<HttpStore>(new HttpStore(*std::move(url), std::move(options)));
}

HttpStore::HttpStore(StoreUrl url, HttpStoreOptions options)
    : url_(std::move(url)), options_(std::move(options)) {}

HttpStore::~HttpStore() = default;

std::string HttpStore::ObjectUrl(const Digest& digest) const {
  return absl::StrCat(url_.Redacted(), "/cas/", digest.Hex());
}

HttpStoreCounters HttpStore::counters() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counters_;
}

std::unique_ptr<HttpStore::Handle> HttpStore::Acquire() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      std::unique_ptr<Handle> h = std::move(idle_.back());
      idle_.pop_back();
      return h;
    }
  }
  auto h = std::make_unique<Handle>();
  h->curl = curl_easy_init();
  return h;
}

void HttpStore::Release(std::unique_ptr<Handle> handle) {
  std::lock_guard<std::mutex> lock(mu_);
  idle_.push_back(std::move(handle));
}

absl::StatusOr<HttpStore::Response> HttpStore::Perform(Request& request) {
  const std::string shown = ObjectUrl(request.digest);
  const std::string full = absl::StrCat(url_.scheme, "://", url_.host_port, url_.prefix, "/cas/",
                                        request.digest.Hex());
  absl::Status last;
  CURLcode last_code = CURLE_OK;
  for (int attempt = 0; attempt <= options_.retries; ++attempt) {
    if (attempt > 0) {
      if (request.restart) {
        if (absl::Status s = request.restart(); !s.ok()) break;
      }
      double delay = options_.backoff_seconds * (1 << std::min(attempt - 1, 10));
      std::this_thread::sleep_for(std::chrono::duration<double>(delay));
      std::lock_guard<std::mutex> lock(mu_);
      ++counters_.retries;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++counters_.requests;
    }
    std::unique_ptr<Handle> handle = Acquire();
    if (handle->curl == nullptr) return absl::InternalError("curl_easy_init failed");
    CURL* c = handle->curl;
    curl_easy_reset(c);  // keeps the handle's live connections
    char error[CURL_ERROR_SIZE] = {0};
    request.callback_status = absl::OkStatus();
    request.error_body.clear();
    request.code = 0;
    request.curl = c;
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(c, CURLOPT_URL, full.c_str());
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    // Larger than the 16 KiB default: fewer callbacks and syscalls per MiB.
    curl_easy_setopt(c, CURLOPT_BUFFERSIZE, 512L << 10);
    curl_easy_setopt(c, CURLOPT_UPLOAD_BUFFERSIZE, 512L << 10);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(options_.connect_timeout_seconds * 1000));
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1024L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME,
                     std::max(1L, static_cast<long>(options_.stall_seconds)));
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, options_.verify_tls ? 1L : 0L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, options_.verify_tls ? 2L : 0L);
    if (!options_.ca_file.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, options_.ca_file.c_str());
    if (!options_.bearer_token.empty()) {
      curl_easy_setopt(c, CURLOPT_HTTPAUTH, CURLAUTH_BEARER);
      curl_easy_setopt(c, CURLOPT_XOAUTH2_BEARER, options_.bearer_token.c_str());
    } else if (!options_.user.empty()) {
      curl_easy_setopt(c, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
      curl_easy_setopt(c, CURLOPT_USERNAME, options_.user.c_str());
      curl_easy_setopt(c, CURLOPT_PASSWORD, options_.password.c_str());
    } else if (options_.use_netrc) {
      curl_easy_setopt(c, CURLOPT_NETRC, static_cast<long>(CURL_NETRC_OPTIONAL));
    }
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, WriteCallback);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &request);
    switch (request.method) {
      case Request::Method::kHead:
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
        break;
      case Request::Method::kPut:
        curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(c, CURLOPT_READFUNCTION, ReadCallback);
        curl_easy_setopt(c, CURLOPT_READDATA, &request);
        curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE,
                         static_cast<curl_off_t>(request.upload_size));
        break;
      case Request::Method::kGet:
        break;
    }
    CURLcode code = curl_easy_perform(c);
    Response response;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &response.code);
    char* type = nullptr;
    if (curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &type) == CURLE_OK && type != nullptr) {
      response.content_type = type;
    }
    curl_off_t length = -1;
    if (curl_easy_getinfo(c, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length) == CURLE_OK) {
      response.content_length = length;
    }
    curl_off_t up = 0, down = 0;
    curl_easy_getinfo(c, CURLINFO_SIZE_UPLOAD_T, &up);
    curl_easy_getinfo(c, CURLINFO_SIZE_DOWNLOAD_T, &down);
    {
      std::lock_guard<std::mutex> lock(mu_);
      counters_.bytes_up += static_cast<uint64_t>(std::max<curl_off_t>(up, 0));
      counters_.bytes_down += static_cast<uint64_t>(std::max<curl_off_t>(down, 0));
    }
    const std::string why = error[0] != '\0' ? std::string(error) : curl_easy_strerror(code);
    if (code != CURLE_OK) {
      // A failed connection is not reused.
      handle.reset();
    } else {
      Release(std::move(handle));
    }
    response.error_body = request.error_body;
    if (code == CURLE_OK && response.code >= 500) {
      last = absl::UnavailableError(absl::StrCat(shown, ": HTTP ", response.code,
                                                 " from the server"));
      last_code = CURLE_OK;
      continue;
    }
    if (code == CURLE_OK) return response;
    if (!request.callback_status.ok()) return request.callback_status;
    last_code = code;
    if (code == CURLE_URL_MALFORMAT) {
      return absl::InvalidArgumentError(absl::StrCat(shown, ": malformed URL: ", why));
    }
    if (IsTlsError(code)) {
      return absl::FailedPreconditionError(
          absl::StrCat(shown, ": TLS failure: ", why,
                       " (set $REPROKIT_STORE_CA_FILE to the server's CA certificate)"));
    }
    if (code == CURLE_COULDNT_RESOLVE_HOST) {
      return absl::UnavailableError(absl::StrCat(shown, ": cannot resolve the host: ", why));
    }
    if (code == CURLE_LOGIN_DENIED) {
      return absl::UnauthenticatedError(absl::StrCat(shown, ": login denied"));
    }
    last = absl::UnavailableError(absl::StrCat(shown, ": ", why));
    if (!IsRetryable(code)) return last;
  }
  if (last_code == CURLE_PARTIAL_FILE) {
    return absl::DataLossError(absl::StrCat("object ", request.digest.Hex(), " at ", shown,
                                            " is truncated: the server closed the connection "
                                            "before the whole body arrived (",
                                            options_.retries + 1, " attempts)"));
  }
  return absl::Status(last.code(), absl::StrCat(last.message(), " (after ", options_.retries + 1,
                                                " attempts)"));
}

namespace {

absl::Status AuthError(const std::string& url, long code) {
  return absl::UnauthenticatedError(absl::StrCat(
      url, ": HTTP ", code,
      ": authentication failed (credentials: $REPROKIT_STORE_TOKEN, $REPROKIT_STORE_USER and "
      "$REPROKIT_STORE_PASSWORD, the URL's user:password@, or ~/.netrc)"));
}

absl::Status Unexpected(const std::string& url, const char* method,
                        const HttpStore::Response& r) {
  return absl::FailedPreconditionError(absl::StrCat(url, ": unexpected answer to ", method,
                                                    ": HTTP ", r.code));
}

}  // namespace

// What the server said to a PUT of `digest`.
absl::Status HttpStore::PutOutcome(const Digest& digest, const absl::StatusOr<Response>& r) {
  if (!r.ok()) return r.status();
  if (r->code == 200 || r->code == 201 || r->code == 204) return absl::OkStatus();
  if (r->code == 401 || r->code == 403) return AuthError(ObjectUrl(digest), r->code);
  if (r->code == 405) {
    return absl::FailedPreconditionError(absl::StrCat(
        ObjectUrl(digest), ": HTTP 405: the server does not accept PUT (nginx needs "
                           "`dav_methods PUT; create_full_put_path on;`)"));
  }
  return Unexpected(ObjectUrl(digest), "PUT", *r);
}

absl::Status HttpStore::UploadFd(const Digest& digest, int fd, uint64_t size) {
  Request request;
  request.method = Request::Method::kPut;
  request.digest = digest;
  request.upload_size = size;
  uint64_t offset = 0;
  request.read = [&](char* buffer, size_t n) -> absl::StatusOr<size_t> {
    n = static_cast<size_t>(std::min<uint64_t>(n, size - offset));
    size_t done = 0;
    while (done < n) {
      ssize_t got = ::pread(fd, buffer + done, n - done, static_cast<off_t>(offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return ErrnoStatus(errno, "reading", "the blob to upload");
      if (got == 0) return absl::AbortedError("the file to upload shrank while it was sent");
      done += static_cast<size_t>(got);
    }
    offset += n;
    return n;
  };
  request.restart = [&] {
    offset = 0;
    return absl::OkStatus();
  };
  return PutOutcome(digest, Perform(request));
}

absl::Status HttpStore::UploadBytes(const Digest& digest, absl::string_view bytes) {
  Request request;
  request.method = Request::Method::kPut;
  request.digest = digest;
  request.upload_size = bytes.size();
  absl::string_view left = bytes;
  request.read = [&](char* buffer, size_t n) -> absl::StatusOr<size_t> {
    n = std::min(n, left.size());
    std::memcpy(buffer, left.data(), n);
    left.remove_prefix(n);
    return n;
  };
  request.restart = [&] {
    left = bytes;
    return absl::OkStatus();
  };
  return PutOutcome(digest, Perform(request));
}

absl::StatusOr<Digest> HttpStore::Put(absl::string_view bytes, const PutOptions&) {
  Digest digest = Sha256(bytes);
  if (bytes.size() >= kHeadBeforePutBytes) {
    absl::StatusOr<bool> present = Contains(digest);
    if (!present.ok()) return present.status();
    if (*present) return digest;
  }
  if (absl::Status s = UploadBytes(digest, bytes); !s.ok()) return s;
  return digest;
}

absl::StatusOr<Digest> HttpStore::PutFile(const std::string& path, const PutOptions&) {
  ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoStatus(errno, "opening", path);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return ErrnoStatus(errno, "reading", path);
  Sha256Hasher hasher;
  auto buffer = std::make_unique<char[]>(kChunk);
  uint64_t total = 0;
  while (true) {
    absl::StatusOr<size_t> n = ReadFull(fd.get(), buffer.get(), kChunk, path);
    if (!n.ok()) return n.status();
    if (*n == 0) break;
    hasher.Update(buffer.get(), *n);
    total += *n;
  }
  Digest digest = hasher.Finish();
  absl::StatusOr<bool> present = Contains(digest);
  if (!present.ok()) return present.status();
  if (*present) return digest;
  if (absl::Status s = UploadFd(digest, fd.get(), total); !s.ok()) return s;
  return digest;
}

absl::StatusOr<Digest> HttpStore::PutStream(ByteSource& source, const PutOptions& options) {
  const char* tmpdir = std::getenv("TMPDIR");
  std::string temp = TempPathIn(tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp",
                                "reprokit-upload");
  ScopedFd fd(::open(temp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (fd.get() < 0) return ErrnoStatus(errno, "creating", temp);
  ::unlink(temp.c_str());  // gone when closed, whatever happens
  auto buffer = std::make_unique<char[]>(kChunk);
  Sha256Hasher hasher;
  uint64_t total = 0;
  while (true) {
    absl::StatusOr<size_t> n = source.Read(buffer.get(), kChunk);
    if (!n.ok()) return n.status();
    if (*n == 0) break;
    hasher.Update(buffer.get(), *n);
    if (absl::Status s = WriteAll(fd.get(), buffer.get(), *n, temp); !s.ok()) return s;
    total += *n;
  }
  if (std::optional<uint64_t> hint = source.SizeHint(); hint && *hint != total) {
    return absl::InvalidArgumentError(
        absl::StrCat("the stream held ", total, " bytes, its size hint said ", *hint));
  }
  (void)options;
  Digest digest = hasher.Finish();
  absl::StatusOr<bool> present = Contains(digest);
  if (!present.ok()) return present.status();
  if (*present) return digest;
  if (absl::Status s = UploadFd(digest, fd.get(), total); !s.ok()) return s;
  return digest;
}


absl::Status HttpStore::Download(const Digest& digest,
                                const std::function<absl::Status(absl::string_view)>& write,
                                const std::function<absl::Status()>& restart) {
  Request request;
  request.method = Request::Method::kGet;
  request.digest = digest;
  Sha256Hasher hasher;
  uint64_t received = 0;
  request.write = [&](absl::string_view bytes) {
    hasher.Update(bytes);
    received += bytes.size();
    return write(bytes);
  };
  request.restart = [&]() -> absl::Status {
    if (absl::Status s = restart(); !s.ok()) return s;
    (void)hasher.Finish();
    received = 0;
    return absl::OkStatus();
  };
  absl::StatusOr<Response> r = Perform(request);
  if (!r.ok()) return r.status();
  const std::string url = ObjectUrl(digest);
  if (r->code == 404) {
    return absl::NotFoundError(absl::StrCat("object ", digest.Hex(), " not found at ", url));
  }
  if (r->code == 401 || r->code == 403) return AuthError(url, r->code);
  if (r->code != 200) return Unexpected(url, "GET", *r);
  Digest got = hasher.Finish();
  if (got != digest) {
    return absl::DataLossError(absl::StrCat("object ", digest.Hex(), " at ", url,
                                            " is corrupt: received ", received,
                                            " bytes with sha256 ", got.Hex(),
                                            BodyHint(r->content_type)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> HttpStore::Get(const Digest& digest) {
  std::string out;
  absl::Status s = Download(
      digest,
      [&](absl::string_view bytes) {
        out.append(bytes.data(), bytes.size());
        return absl::OkStatus();
      },
      [&] {
        out.clear();
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  return out;
}

absl::Status HttpStore::GetStream(const Digest& digest, ByteSink& sink) {
  bool handed_on = false;
  return Download(
      digest,
      [&](absl::string_view bytes) {
        handed_on = true;
        return sink.Write(bytes);
      },
      [&] {
        return handed_on ? absl::FailedPreconditionError("bytes already handed on")
                         : absl::OkStatus();
      });
}

absl::Status HttpStore::GetToFile(const Digest& digest, const std::string& path) {
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, std::max<size_t>(slash, 1));
  std::string temp = TempPathIn(dir, digest.Hex());
  ScopedFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd.get() < 0) return ErrnoStatus(errno, "creating", temp);
  absl::Status status = Download(
      digest,
      [&](absl::string_view bytes) {
        return WriteAll(fd.get(), bytes.data(), bytes.size(), temp);
      },
      [&]() -> absl::Status {
        if (::ftruncate(fd.get(), 0) != 0 || ::lseek(fd.get(), 0, SEEK_SET) != 0) {
          return ErrnoStatus(errno, "truncating", temp);
        }
        return absl::OkStatus();
      });
  if (status.ok() && ::fsync(fd.get()) != 0) status = ErrnoStatus(errno, "syncing", temp);
  if (absl::Status closed = fd.Close(temp); status.ok()) status = closed;
  if (status.ok() && ::rename(temp.c_str(), path.c_str()) != 0) {
    status = ErrnoStatus(errno, "renaming into place", path);
  }
  if (!status.ok()) ::unlink(temp.c_str());
  return status;
}

absl::StatusOr<bool> HttpStore::Contains(const Digest& digest) {
  absl::StatusOr<ObjectInfo> info = Stat(digest);
  if (absl::IsNotFound(info.status())) return false;
  if (!info.ok()) return info.status();
  return true;
}

absl::StatusOr<ObjectInfo> HttpStore::Stat(const Digest& digest) {
  Request request;
  request.method = Request::Method::kHead;
  request.digest = digest;
  absl::StatusOr<Response> r = Perform(request);
  if (!r.ok()) return r.status();
  const std::string url = ObjectUrl(digest);
  if (r->code == 404) {
    return absl::NotFoundError(absl::StrCat("object ", digest.Hex(), " not found at ", url));
  }
  if (r->code == 401 || r->code == 403) return AuthError(url, r->code);
  if (r->code != 200) return Unexpected(url, "HEAD", *r);
  ObjectInfo info;
  info.digest = digest;
  info.raw_size = r->content_length < 0 ? 0 : static_cast<uint64_t>(r->content_length);
  info.stored_size = info.raw_size;
  return info;
}

absl::Status HttpStore::ForEach(absl::FunctionRef<absl::Status(const Digest&)>) {
  return absl::UnimplementedError(
      absl::StrCat(url_.Redacted(), ": a remote cache cannot list its objects"));
}

absl::Status HttpStore::Remove(const Digest&) {
  return absl::UnimplementedError(
      absl::StrCat(url_.Redacted(), ": objects are not removed from a remote cache (it "
                                    "evicts them itself)"));
}

absl::Status HttpStore::TransferMany(int n, const std::function<absl::Status(int)>& transfer) {
  std::vector<absl::Status> results(static_cast<size_t>(std::max(n, 0)));
  std::atomic<int> next{0};
  auto work = [&] {
    for (int i = next++; i < n; i = next++) results[static_cast<size_t>(i)] = transfer(i);
  };
  const int threads = std::min(n, options_.parallel);
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  for (const absl::Status& s : results) {
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace rk::repro
