#include "repro/store/caching_store.h"

#include <unistd.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "base/file_util.h"

namespace rk::repro {

absl::Status CopyObject(Store& from, Store& to, const Digest& digest) {
  absl::StatusOr<bool> present = to.Contains(digest);
  if (!present.ok()) return present.status();
  if (*present) return absl::OkStatus();
  const char* tmpdir = std::getenv("TMPDIR");
  std::string temp = TempPathIn(tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp",
                                absl::StrCat("reprokit-copy-", digest.Hex()));
  absl::Status status = from.GetToFile(digest, temp);
  if (status.ok()) {
    absl::StatusOr<Digest> stored = to.PutFile(temp);
    if (!stored.ok()) {
      status = stored.status();
    } else if (*stored != digest) {
      status = absl::DataLossError(absl::StrCat("object ", digest.Hex(), " changed in transit (",
                                                stored->Hex(), ")"));
    }
  }
  ::unlink(temp.c_str());
  return status;
}

absl::StatusOr<Digest> CachingStore::Put(absl::string_view bytes, const PutOptions& options) {
  absl::StatusOr<Digest> digest = local_->Put(bytes, options);
  if (!digest.ok()) return digest.status();
  absl::StatusOr<Digest> remote = remote_->Put(bytes, options);
  if (!remote.ok()) return remote.status();
  return digest;
}

absl::StatusOr<Digest> CachingStore::PutStream(ByteSource& source, const PutOptions& options) {
  absl::StatusOr<Digest> digest = local_->PutStream(source, options);
  if (!digest.ok()) return digest.status();
  if (absl::Status s = Publish(*digest); !s.ok()) return s;
  return digest;
}

absl::StatusOr<Digest> CachingStore::PutFile(const std::string& path, const PutOptions& options) {
  absl::StatusOr<Digest> digest = local_->PutFile(path, options);
  if (!digest.ok()) return digest.status();
  absl::StatusOr<bool> there = remote_->Contains(*digest);
  if (!there.ok()) return there.status();
  if (*there) return digest;
  absl::StatusOr<Digest> remote = remote_->PutFile(path, options);
  if (!remote.ok()) return remote.status();
  return digest;
}

absl::Status CachingStore::Fetch(const Digest& digest) {
  return CopyObject(*remote_, *local_, digest);
}

absl::Status CachingStore::Publish(const Digest& digest) {
  return CopyObject(*local_, *remote_, digest);
}

absl::StatusOr<std::string> CachingStore::Get(const Digest& digest) {
  absl::StatusOr<std::string> local = local_->Get(digest);
  if (!absl::IsNotFound(local.status())) return local;
  absl::StatusOr<std::string> remote = remote_->Get(digest);
  if (!remote.ok()) return remote.status();
  // Verified by the remote backend; caching is best effort (a full or
  // read-only cache must not fail the read).
  (void)local_->Put(*remote);
  return remote;
}

absl::Status CachingStore::GetStream(const Digest& digest, ByteSink& sink) {
  absl::StatusOr<bool> here = local_->Contains(digest);
  if (!here.ok()) return here.status();
  if (!*here) {
    if (absl::Status s = Fetch(digest); !s.ok()) {
      // A cache that cannot be written still lets the bytes through.
      if (absl::IsNotFound(s) || absl::IsDataLoss(s) || absl::IsUnavailable(s) ||
          absl::IsUnauthenticated(s) || absl::IsFailedPrecondition(s)) {
        return s;
      }
      return remote_->GetStream(digest, sink);
    }
  }
  return local_->GetStream(digest, sink);
}

absl::StatusOr<bool> CachingStore::Contains(const Digest& digest) {
  absl::StatusOr<bool> here = local_->Contains(digest);
  if (!here.ok() || *here) return here;
  return remote_->Contains(digest);
}

absl::StatusOr<ObjectInfo> CachingStore::Stat(const Digest& digest) {
  absl::StatusOr<ObjectInfo> here = local_->Stat(digest);
  if (!absl::IsNotFound(here.status())) return here;
  return remote_->Stat(digest);
}

absl::Status CachingStore::ForEach(absl::FunctionRef<absl::Status(const Digest&)> visit) {
  return local_->ForEach(visit);
}

absl::Status CachingStore::Remove(const Digest& digest) { return local_->Remove(digest); }

}  // namespace rk::repro
