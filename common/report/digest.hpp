// SHA-256 for the digest a run file carries (report/integrity.hpp), computed by OpenSSL's
// libcrypto through its EVP interface (linked statically: the binary still needs no libssl on
// the lab machines). Fed in pieces, so a run is hashed as it is serialized, never held twice.
#pragma once

#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX, kept out of every includer

namespace cudalab {

class Sha256 {
 public:
  Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::string_view data);
  // 64 lowercase hex digits of everything fed so far; the object is spent afterwards.
  std::string finish_hex();

 private:
  struct Free {
    void operator()(evp_md_ctx_st* ctx) const;
  };
  std::unique_ptr<evp_md_ctx_st, Free> ctx_;
};

// 64 lowercase hex digits.
std::string sha256_hex(std::string_view data);

// An output stream whose bytes go into a Sha256: what is written to it is hashed, not stored.
class HashingStream : public std::ostream {
 public:
  // flush() it before finishing the Sha256.
  explicit HashingStream(Sha256& sha);

 private:
  class Buffer : public std::streambuf {
   public:
    explicit Buffer(Sha256& sha);
    void drain();

   protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override;

   private:
    Sha256& sha_;
    char bytes_[1 << 16];
  };
  Buffer buffer_;
};

}  // namespace cudalab
